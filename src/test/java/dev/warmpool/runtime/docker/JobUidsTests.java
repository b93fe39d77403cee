package dev.warmpool.runtime.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("unit")
class JobUidsTests {
    @ParameterizedTest(name = "{0} with {1} held: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                // range | held (by live containers)  | the new container's
                "10-12   | ''                          | 10",
                "10-12   | 10                          | 11",
                "10-12   | 11                          | 10", // a uid given back is taken again first
                "10-12   | 10;11                       | 12",
                "10-12   | 10;11;12                    | none",
                "10-12   | 1000;5                      | 10", // a pool's own runAsUser outside the range
                "10-10   | ''                          | 10",
                "1879048192-1879113727 | 1879048192 | 1879048193",
            })
    void aNewContainersJobsGetTheLowestUidNoLiveContainerHolds(String range, String held, String expected) {
        Set<Long> taken = held.isBlank()
                ? Set.of()
                : Set.copyOf(
                        List.of(held.split(";")).stream().map(Long::valueOf).toList());
        OptionalLong got = JobUids.parse(range).free(taken);
        assertEquals(expected.equals("none") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(expected)), got);
    }

    @Test
    void theDefaultIsTheBlockAt0x70000000() {
        assertEquals(new JobUids(0x70000000L, 0x70000000L + 65535), JobUids.DEFAULT);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"12-10", "0-10", "10", "a-b", "1-4294967295", "''"})
    void aRangeThatIsNoneIsRefusedWithTheSettingToFix(String range) {
        var e = assertThrows(IllegalArgumentException.class, () -> JobUids.parse(range));
        assertTrue(
                e.getMessage().contains("warmpool.runtime.docker.job-uids=")
                        && e.getMessage().contains("FIRST"),
                e.getMessage());
    }
}
