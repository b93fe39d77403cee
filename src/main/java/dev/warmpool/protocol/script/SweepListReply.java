package dev.warmpool.protocol.script;

import java.util.List;
import java.util.Map;

/** sweep_list.lua: a pool's newest sweeps, newest first, as their hashes. */
public record SweepListReply(List<Map<String, String>> sweeps) {
    /** ARGV after the prefix: how many. */
    public static List<String> args(int limit) {
        return List.of(Integer.toString(limit));
    }

    public static SweepListReply decode(Object raw) {
        return new SweepListReply(Replies.list(raw).stream().map(Replies::hash).toList());
    }
}
