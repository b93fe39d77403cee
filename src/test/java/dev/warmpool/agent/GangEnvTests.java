package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.google.gson.JsonParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class GangEnvTests {
    static final List<GangEnv.Member> TF = List.of(
            new GangEnv.Member("g-0", "ps", 0, "10.0.0.1:2222"),
            new GangEnv.Member("g-1", "worker", 0, "10.0.0.2:2222"),
            new GangEnv.Member("g-2", "worker", 1, "10.0.0.3:2222"));

    @Test
    void tensorFlowGetsTheClusterByRoleAndItsTask() {
        Map<String, String> env = GangEnv.of("worker", 1, TF);
        assertEquals(
                JsonParser.parseString("{\"cluster\": {\"ps\": [\"10.0.0.1:2222\"], \"worker\": [\"10.0.0.2:2222\", "
                        + "\"10.0.0.3:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}"),
                JsonParser.parseString(env.get("TF_CONFIG")));
        assertEquals("10.0.0.3:2222", env.get("WARMPOOL_GANG_ADDR"));
        assertEquals("3", env.get("WARMPOOL_GANG_SIZE"));
    }

    @Test
    void pyTorchRanksTheMembersThatAreNotParameterServersWithTheMasterFirst() {
        Map<String, String> w1 = GangEnv.of("worker", 1, TF);
        assertEquals("1", w1.get("RANK"));
        assertEquals("2", w1.get("WORLD_SIZE"));
        assertEquals("10.0.0.2", w1.get("MASTER_ADDR"));
        assertEquals("2222", w1.get("MASTER_PORT"));
        assertFalse(GangEnv.of("ps", 0, TF).containsKey("RANK"), "a parameter server has no rank");

        List<GangEnv.Member> torch = List.of(
                new GangEnv.Member("g-0", "worker", 0, "h1:29500"),
                new GangEnv.Member("g-1", "worker", 1, "h2:29500"),
                new GangEnv.Member("g-2", "master", 0, "h0:29500"));
        assertEquals(
                "0",
                GangEnv.of("master", 0, torch).get("RANK"),
                "the master is rank 0 whatever its role's name sorts as");
        assertEquals("2", GangEnv.of("worker", 1, torch).get("RANK"));
        assertEquals("h0", GangEnv.of("worker", 0, torch).get("MASTER_ADDR"));
        assertEquals("3", GangEnv.of("worker", 0, torch).get("WORLD_SIZE"));
    }
}
