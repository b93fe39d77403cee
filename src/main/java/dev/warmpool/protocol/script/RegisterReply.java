package dev.warmpool.protocol.script;

import java.util.List;

/**
 * register.lua: an agent announces its processor, and learns the state Redis gives it, the job
 * it took (or "") and the pool's spec; or that the pool is gone, or that a gang pool does not know
 * this member (after Redis lost its data), both of which end the agent.
 */
public sealed interface RegisterReply permits RegisterReply.Registered, RegisterReply.NoPool, RegisterReply.NoGang {
    record Registered(String state, String jobId, String specJson) implements RegisterReply {}

    record NoPool() implements RegisterReply {}

    record NoGang() implements RegisterReply {}

    /** ARGV after the prefix: processor id, OS pid, host, address ("" or host:port, a gang member's). */
    static List<String> args(String processorId, long osPid, String host, String address) {
        return List.of(processorId, Long.toString(osPid), host, address == null ? "" : address);
    }

    static RegisterReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "NOPOOL" -> new NoPool();
            case "NOGANG" -> new NoGang();
            case "OK" -> new Registered(Replies.string(r.get(1)), Replies.string(r.get(2)), Replies.string(r.get(3)));
            default -> throw Replies.unexpected(Script.REGISTER, raw);
        };
    }
}
