package dev.warmpool.agent.io;

import java.time.Instant;

/**
 * The agent's log: a line on its stdout, which the runtime keeps (the local runtime's agent log
 * file, a container's or pod's log). Below the loop, the room and the worker, so each of them
 * logs without depending on the others.
 */
public final class AgentLog {
    private AgentLog() {}

    public static void log(String format, Object... args) {
        log(String.format(format, args));
    }

    public static void log(String message) {
        System.out.println(Instant.now() + " " + message);
    }
}
