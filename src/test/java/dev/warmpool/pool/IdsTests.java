package dev.warmpool.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class IdsTests {
    @Test
    void jobIdsCarryTheirTypeAndSortByAge() {
        String a = Ids.newJobId("pytorch-cpu", 1_000);
        String b = Ids.newJobId("pytorch-cpu", 2_000);
        assertEquals("pytorch-cpu", Ids.typeOfJob(a));
        assertTrue(a.compareTo(b) < 0);
    }

    @Test
    void refusesNamesThatAreNotDnsLabels() {
        assertTrue(Ids.validType("a"));
        assertTrue(Ids.validType("train-gpu-2"));
        assertFalse(Ids.validType("-a"));
        assertFalse(Ids.validType("A"));
        assertFalse(Ids.validType("a_b"));
        assertFalse(Ids.validType("a".repeat(41)));
        assertFalse(Ids.validType("../etc"));
    }

    @Test
    void aTrialIdIsAJobIdOfItsSweepsType() {
        String sweep = Ids.newJobId("pytorch-cpu", 1_000);
        assertEquals("pytorch-cpu", Ids.typeOfJob(Ids.trialId(sweep, 31)));
        assertNull(Ids.typeOfJob(sweep + "-x"));
        assertNull(Ids.typeOfJob(sweep + "-123456"));
    }

    @Test
    void refusesPathTricksAsJobIds() {
        assertNull(Ids.typeOfJob("../../etc/passwd"));
        assertNull(Ids.typeOfJob("demo.abc"));
        assertNull(Ids.typeOfJob("demo.0123456789:x"));
        assertNull(Ids.typeOfJob(null));
    }

    @Test
    void aJobIdSaysWhenItWasMade() {
        long t = 1_796_000_000_123L;
        assertEquals(t, Ids.millisOfJob(Ids.newJobId("train", t)));
        assertEquals(-1, Ids.millisOfJob("train.#########"), "not an id newJobId made");
        assertEquals(-1, Ids.millisOfJob("nodot"));
        assertEquals(-1, Ids.millisOfJob(null));
    }
}
