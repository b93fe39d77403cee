package dev.warmpool.protocol.script;

import java.util.ArrayList;
import java.util.List;

/** spawn_gang.lua: a gang and its members recorded as STARTING; not when the pool is full or draining. */
public record SpawnGangReply(boolean recorded) {
    /** One member to start: its processor id, its role, its index within the role. */
    public record Member(String id, String role, int index) {}

    /** ARGV after the prefix: gang id, then per member: id, role, index. */
    public static List<String> args(String gangId, List<Member> members) {
        List<String> args = new ArrayList<>(1 + 3 * members.size());
        args.add(gangId);
        for (Member m : members) {
            args.add(m.id());
            args.add(m.role());
            args.add(Integer.toString(m.index()));
        }
        return args;
    }

    public static SpawnGangReply decode(Object raw) {
        return new SpawnGangReply(Replies.flag(raw));
    }
}
