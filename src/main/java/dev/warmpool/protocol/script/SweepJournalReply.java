package dev.warmpool.protocol.script;

import java.util.ArrayList;
import java.util.List;

/**
 * sweep_journal.lua: entries appended (how many the journal holds now), read, refused as full (by
 * entries or by bytes), refused to a caller who is not the sweep's submitter or an admin, refused for
 * a sweep that draws its own configurations, or no such sweep.
 */
public sealed interface SweepJournalReply
        permits SweepJournalReply.Appended,
                SweepJournalReply.Read,
                SweepJournalReply.Full,
                SweepJournalReply.Forbidden,
                SweepJournalReply.NotExternal,
                SweepJournalReply.NoSweep {
    record Appended(long size) implements SweepJournalReply {}

    /** The entries from the index asked for, and how many the journal holds. */
    record Read(long size, List<String> entries) implements SweepJournalReply {}

    /** {@code what}: "entries" or "bytes", and the most of it a journal holds. */
    record Full(String what, long most) implements SweepJournalReply {}

    record Forbidden(String submittedBy) implements SweepJournalReply {}

    record NotExternal() implements SweepJournalReply {}

    record NoSweep() implements SweepJournalReply {}

    /**
     * ARGV after the prefix to append: sweep id, 'append', the caller's name and whether an admin, the most
     * entries and bytes a journal holds, the append's id ("" for none: a retry under it appends nothing), the entries.
     */
    static List<String> appendArgs(
            String sweepId,
            String caller,
            boolean admin,
            long most,
            long mostBytes,
            String appendId,
            List<String> entries) {
        List<String> args = new ArrayList<>(7 + entries.size());
        args.add(sweepId);
        args.add("append");
        args.add(caller);
        args.add(admin ? "1" : "0");
        args.add(Long.toString(most));
        args.add(Long.toString(mostBytes));
        args.add(appendId == null ? "" : appendId);
        args.addAll(entries);
        return args;
    }

    /** ARGV after the prefix to read: sweep id, 'read', the caller's name and whether an admin, the first index, the most entries. */
    static List<String> readArgs(String sweepId, String caller, boolean admin, long from, int limit) {
        return List.of(sweepId, "read", caller, admin ? "1" : "0", Long.toString(from), Integer.toString(limit));
    }

    static SweepJournalReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "APPENDED" -> new Appended(Long.parseLong(Replies.string(r.get(1))));
            case "FULL" -> new Full(Replies.string(r.get(1)), Long.parseLong(Replies.string(r.get(2))));
            case "READ" -> {
                List<String> entries = new ArrayList<>(r.size() - 2);
                for (int i = 2; i < r.size(); i++) {
                    entries.add(Replies.string(r.get(i)));
                }
                yield new Read(Long.parseLong(Replies.string(r.get(1))), entries);
            }
            case "FORBIDDEN" -> new Forbidden(Replies.string(r.get(1)));
            case "NOTEXTERNAL" -> new NotExternal();
            case "NOSWEEP" -> new NoSweep();
            default -> throw Replies.unexpected(Script.SWEEP_JOURNAL, raw);
        };
    }
}
