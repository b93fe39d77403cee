package dev.warmpool.protocol;

import java.util.ArrayList;
import java.util.List;

/** sweep_journal.lua: entries appended (how many the journal holds now), read, refused as full, or no such sweep. */
public sealed interface SweepJournalReply
        permits SweepJournalReply.Appended, SweepJournalReply.Read, SweepJournalReply.Full, SweepJournalReply.NoSweep {
    record Appended(long size) implements SweepJournalReply {}

    /** The entries from the index asked for, and how many the journal holds. */
    record Read(long size, List<String> entries) implements SweepJournalReply {}

    record Full(long most) implements SweepJournalReply {}

    record NoSweep() implements SweepJournalReply {}

    /** ARGV after the prefix to append: sweep id, 'append', the most a journal holds, the entries. */
    static List<String> appendArgs(String sweepId, long most, List<String> entries) {
        List<String> args = new ArrayList<>(3 + entries.size());
        args.add(sweepId);
        args.add("append");
        args.add(Long.toString(most));
        args.addAll(entries);
        return args;
    }

    /** ARGV after the prefix to read: sweep id, 'read', the first index, the most entries. */
    static List<String> readArgs(String sweepId, long from, int limit) {
        return List.of(sweepId, "read", Long.toString(from), Integer.toString(limit));
    }

    static SweepJournalReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "APPENDED" -> new Appended(Long.parseLong(Replies.string(r.get(1))));
            case "FULL" -> new Full(Long.parseLong(Replies.string(r.get(1))));
            case "READ" -> {
                List<String> entries = new ArrayList<>(r.size() - 2);
                for (int i = 2; i < r.size(); i++) {
                    entries.add(Replies.string(r.get(i)));
                }
                yield new Read(Long.parseLong(Replies.string(r.get(1))), entries);
            }
            case "NOSWEEP" -> new NoSweep();
            default -> throw Replies.unexpected(Script.SWEEP_JOURNAL, raw);
        };
    }
}
