package dev.warmpool.runtime.local;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** The local runtime's agents as tests see them: found by the Redis their command line names. */
public final class LocalAgents {
    private LocalAgents() {}

    /** Kills every agent that serves the Redis at {@code redisUrl} (tests clean up with it). */
    public static int killAll(String redisUrl) {
        List<ProcessHandle> all = LocalRuntime.agents(redisUrl).toList();
        all.forEach(ProcessHandle::destroyForcibly);
        return all.size();
    }

    /** The process id of processor {@code processorId}'s agent, if it runs. */
    public static Optional<Long> pidOf(String redisUrl, String processorId) {
        return LocalRuntime.agents(redisUrl)
                .filter(h -> LocalRuntime.arguments(h).contains(LocalRuntime.PROCESSOR + processorId))
                .map(ProcessHandle::pid)
                .findFirst();
    }

    /** The process ids of the agents of pool {@code pool} that serve the Redis at {@code redisUrl}. */
    public static List<Long> agentPids(String redisUrl, String pool) {
        return withoutForks(LocalRuntime.agents(redisUrl)
                .filter(h -> LocalRuntime.arguments(h).contains(LocalRuntime.POOL + pool))
                .toList());
    }

    /**
     * The agents among {@code found}: a child an agent has just forked (to run a job) shows the agent's command
     * line until it execs its own, so a process whose parent is among them is not counted (ManyManagersIT once
     * counted 4 agents of a pool of 3 that had started 3).
     */
    private static List<Long> withoutForks(List<ProcessHandle> found) {
        Set<Long> pids = found.stream().map(ProcessHandle::pid).collect(Collectors.toSet());
        return found.stream()
                .filter(h -> h.parent().map(p -> !pids.contains(p.pid())).orElse(true))
                .map(ProcessHandle::pid)
                .toList();
    }

    /** The processors whose agents serve the Redis at {@code redisUrl}. */
    public static List<String> processorIds(String redisUrl) {
        return LocalRuntime.agents(redisUrl)
                .flatMap(h -> LocalRuntime.arg(h, LocalRuntime.PROCESSOR).stream())
                .toList();
    }

    /** The process ids of the agents that serve the Redis at {@code redisUrl}. */
    public static List<Long> agentPids(String redisUrl) {
        return withoutForks(LocalRuntime.agents(redisUrl).toList());
    }
}
