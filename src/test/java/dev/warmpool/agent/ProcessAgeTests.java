package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** A process's start time read from /proc, to the kernel's 10 ms ticks. */
class ProcessAgeTests {
    @Test
    void aChildStartsBetweenTheClockReadingsAroundItsSpawn() throws Exception {
        // ProcessHandle's start instant, counted from a boot time in whole seconds, was up to a second off
        for (int i = 0; i < 5; i++) {
            long before = System.currentTimeMillis();
            Process p = new ProcessBuilder("sleep", "5").start();
            long after = System.currentTimeMillis();
            try {
                long started = ProcessAge.startMillis(Long.toString(p.pid()));
                // a tick (10 ms) of the start time and one of /proc/uptime's hundredths either way
                assertTrue(
                        started >= before - 20 && started <= after + 20,
                        "from /proc " + started + ", spawned between " + before + " and " + after);
            } finally {
                p.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void thisProcessStartedBeforeTheJvmTookItsStartTime() {
        long jvm = ManagementFactory.getRuntimeMXBean().getStartTime();
        long proc = ProcessAge.startMillis();
        // the process exists before the JVM takes its start time (how long before: the machine's load)
        assertTrue(proc <= jvm + 20 && proc > jvm - 10_000, "from /proc " + proc + ", the JVM's " + jvm);
    }
}
