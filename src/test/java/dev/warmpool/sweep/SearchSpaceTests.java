package dev.warmpool.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("unit")
class SearchSpaceTests {
    static final ObjectMapper JSON = new ObjectMapper();

    static SearchSpace space(String json) throws Exception {
        return SearchSpace.parse(JSON.readTree(json));
    }

    static Object plain(Object v) {
        return v instanceof JsonNode n ? (n.isNumber() ? n.numberValue() : n.asText()) : v;
    }

    @Test
    void aGridIsTheFullProductInNameOrder() throws Exception {
        List<Map<String, Object>> grid = space(
                        "{\"opt\": {\"choice\": [\"sgd\", \"adam\"]}, \"layers\": {\"int\": [2, 4]}}")
                .grid(1000);
        assertEquals(6, grid.size());
        assertEquals(List.of("layers", "opt"), List.copyOf(grid.get(0).keySet()));
        Set<String> seen = grid.stream()
                .map(c -> c.get("layers") + "/" + plain(c.get("opt")))
                .collect(Collectors.toSet());
        assertEquals(Set.of("2/sgd", "2/adam", "3/sgd", "3/adam", "4/sgd", "4/adam"), seen);
    }

    @Test
    void theSameSeedDrawsTheSameConfigurationsAndAnotherSeedOthers() throws Exception {
        SearchSpace s = space("{\"lr\": {\"logUniform\": [0.0001, 0.1]}, \"dropout\": {\"uniform\": [0, 0.5]}, "
                + "\"batch\": {\"choice\": [32, 64, 128]}, \"layers\": {\"int\": [1, 8]}}");
        assertEquals(s.random(20, 42), s.random(20, 42));
        assertNotEquals(s.random(20, 42), s.random(20, 43));
    }

    @Test
    void drawsStayWithinTheirRanges() throws Exception {
        SearchSpace s = space("{\"lr\": {\"logUniform\": [0.0001, 0.1]}, \"dropout\": {\"uniform\": [0, 0.5]}, "
                + "\"layers\": {\"int\": [1, 3]}}");
        List<Map<String, Object>> draws = s.random(2000, 7);
        for (Map<String, Object> c : draws) {
            double lr = (double) c.get("lr"), dropout = (double) c.get("dropout");
            long layers = (long) c.get("layers");
            assertTrue(lr >= 0.0001 && lr < 0.1, "lr " + lr);
            assertTrue(dropout >= 0 && dropout < 0.5, "dropout " + dropout);
            assertTrue(layers >= 1 && layers <= 3, "layers " + layers);
        }
        // both ends of an int range come up, and a log-uniform draw spends as long in each decade
        assertEquals(
                Set.of(1L, 2L, 3L), draws.stream().map(c -> c.get("layers")).collect(Collectors.toSet()));
        long below1e3 = draws.stream().filter(c -> (double) c.get("lr") < 0.001).count();
        assertTrue(below1e3 > 2000 / 3 - 150 && below1e3 < 2000 / 3 + 150, "draws in [1e-4, 1e-3): " + below1e3);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{}",
                "[]",
                "{\"lr\": {\"uniform\": [1, 1]}}",
                "{\"lr\": {\"uniform\": [2, 1]}}",
                "{\"lr\": {\"logUniform\": [0, 1]}}",
                "{\"lr\": {\"grid\": []}}",
                "{\"lr\": {\"normal\": [0, 1]}}",
                "{\"lr\": {\"int\": [1.5, 3]}}",
                "{\"lr\": {\"uniform\": [\"a\", 1]}}",
                "{\"lr\": 0.1}",
                "{\"lr\": {\"uniform\": [0, 1], \"grid\": [1]}}"
            })
    void refusesABadSpaceSayingWhich(String json) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> space(json));
        assertTrue(e.getMessage().contains("space"), e.getMessage());
    }

    @Test
    void refusesToGridAContinuousParameterOrAnEndlessProduct() throws Exception {
        assertThrows(
                IllegalArgumentException.class,
                () -> space("{\"lr\": {\"uniform\": [0, 1]}}").grid(1000));
        assertThrows(
                IllegalArgumentException.class,
                () -> space("{\"a\": {\"int\": [1, 100]}, \"b\": {\"int\": [1, 100]}}")
                        .grid(1000));
    }
}
