package dev.warmpool.runtime.local;

import java.util.List;
import java.util.Optional;

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
        return LocalRuntime.agents(redisUrl)
                .filter(h -> LocalRuntime.arguments(h).contains(LocalRuntime.POOL + pool))
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
        return LocalRuntime.agents(redisUrl).map(ProcessHandle::pid).toList();
    }
}
