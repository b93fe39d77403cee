package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The agent's start time from /proc agrees with the JVM's own, to well under a second. */
class ProcessAgeTests {
    @Test
    void startsWhenTheJvmSaysItStarted() {
        long jvm = ManagementFactory.getRuntimeMXBean().getStartTime();
        long proc = ProcessAge.startMillis();
        // the process exists a little before the JVM takes its start time; ProcessHandle's start
        // instant, counted from a boot time in whole seconds, was up to a second off
        assertTrue(proc <= jvm + 20 && proc > jvm - 250, "from /proc " + proc + ", the JVM's " + jvm);
    }
}
