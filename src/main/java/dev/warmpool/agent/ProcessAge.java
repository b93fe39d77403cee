package dev.warmpool.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * When this process started, to the 10 ms of the kernel's clock ticks: read from /proc, because
 * {@code ProcessHandle}'s start instant is only right to the second (it counts from the boot time
 * in whole seconds) and the {@code RuntimeMXBean} took about 25 ms of an agent's start to load.
 */
final class ProcessAge {
    /** USER_HZ, what /proc counts in: 100 on every Linux architecture Java runs on. */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessAge() {}

    /** This process's start in epoch milliseconds; now, where /proc cannot say. */
    static long startMillis() {
        return startMillis("self");
    }

    /** The start of process {@code pid} ("self", or a number) in epoch milliseconds; now, where /proc cannot say. */
    static long startMillis(String pid) {
        long now = System.currentTimeMillis();
        try {
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            // after the command name in parentheses: state is field 3, starttime field 22
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startedTicks = Long.parseLong(f[22 - 3]);
            String up = Files.readString(Path.of("/proc/uptime"));
            String[] secs = up.substring(0, up.indexOf(' ')).split("\\.");
            long uptimeMillis = Long.parseLong(secs[0]) * 1000 + Long.parseLong((secs[1] + "00").substring(0, 3));
            return now - (uptimeMillis - startedTicks * 1000 / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return now;
        }
    }
}
