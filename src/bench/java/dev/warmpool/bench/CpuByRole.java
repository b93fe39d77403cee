package dev.warmpool.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * CPU time of every process on the machine, summed by role (as {@code role} names each from its
 * command line), from /proc: taken before and after a run, the difference says where the cores
 * went (the work itself, the agents, the manager, Redis, the container engine). Containers' processes
 * are the host's too, so their agents and workers count. A process that started and ended between
 * the two samples is missed (its parent's reaped-children time is not added: it would count twice).
 */
final class CpuByRole {
    private CpuByRole() {}

    /** The CPU milliseconds so far of each role's living processes (null roles are left out). */
    static Map<String, Long> sample(Function<String, String> role) {
        Map<String, Long> byRole = new TreeMap<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .forEach(p -> {
                        try {
                            String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                            String r = role.apply(cmd);
                            if (r != null) {
                                long pid = Long.parseLong(p.getFileName().toString());
                                byRole.merge(r, Harness.cpuMs(pid, false), Long::sum);
                            }
                        } catch (IOException | RuntimeException e) {
                            // the process ended meanwhile
                        }
                    });
        } catch (IOException e) {
            return byRole;
        }
        return byRole;
    }

    /** The machine's busy CPU milliseconds so far, all cores, every process (from /proc/stat). */
    static long machineBusyMs() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) { // idle and iowait are not busy
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy * 10; // clock ticks of 10 ms
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** after - before, by role (a role with no process before counts from 0). */
    static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        after.forEach((r, ms) -> d.put(r, ms - before.getOrDefault(r, 0L)));
        return d;
    }
}
