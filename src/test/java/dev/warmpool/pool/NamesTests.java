package dev.warmpool.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NamesTests {
    @Test
    void jobIdsCarryTheirTypeAndSortByAge() {
        String a = Names.newJobId("pytorch-cpu", 1_000);
        String b = Names.newJobId("pytorch-cpu", 2_000);
        assertEquals("pytorch-cpu", Names.typeOfJob(a));
        assertTrue(a.compareTo(b) < 0);
    }

    @Test
    void refusesNamesThatAreNotDnsLabels() {
        assertTrue(Names.validType("a"));
        assertTrue(Names.validType("train-gpu-2"));
        assertFalse(Names.validType("-a"));
        assertFalse(Names.validType("A"));
        assertFalse(Names.validType("a_b"));
        assertFalse(Names.validType("a".repeat(41)));
        assertFalse(Names.validType("../etc"));
    }

    @Test
    void aTrialIdIsAJobIdOfItsSweepsType() {
        String sweep = Names.newJobId("pytorch-cpu", 1_000);
        assertEquals("pytorch-cpu", Names.typeOfJob(Names.trialId(sweep, 31)));
        assertNull(Names.typeOfJob(sweep + "-x"));
        assertNull(Names.typeOfJob(sweep + "-123456"));
    }

    @Test
    void refusesPathTricksAsJobIds() {
        assertNull(Names.typeOfJob("../../etc/passwd"));
        assertNull(Names.typeOfJob("demo.abc"));
        assertNull(Names.typeOfJob("demo.0123456789:x"));
        assertNull(Names.typeOfJob(null));
    }
}
