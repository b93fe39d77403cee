package dev.warmpool.protocol.script;

import dev.warmpool.protocol.Fields;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** sweep_get.lua: a sweep's hash and its trials' fields (those in {@link #TRIAL_FIELDS}) in trial order; or no such sweep. */
public sealed interface SweepGetReply permits SweepGetReply.Found, SweepGetReply.NoSweep {
    /** The job fields a sweep view shows of each trial; handed to the script, which reads only these. */
    List<String> TRIAL_FIELDS = List.of(
            Fields.JobHash.ID,
            Fields.JobHash.STATE,
            Fields.JobHash.TRIAL,
            Fields.JobHash.CONFIG,
            Fields.JobHash.METRICS,
            Fields.JobHash.PROGRESS,
            Fields.JobHash.ATTEMPTS,
            Fields.JobHash.PROCESSOR,
            Fields.JobHash.SUBMITTED_AT,
            Fields.JobHash.STARTED_AT,
            Fields.JobHash.FINISHED_AT,
            Fields.JobHash.ERROR);

    record Found(Map<String, String> sweep, List<Map<String, String>> trials) implements SweepGetReply {}

    record NoSweep() implements SweepGetReply {}

    /** ARGV after the prefix: sweep id, then the trial fields to read. */
    static List<String> args(String sweepId) {
        List<String> args = new ArrayList<>(1 + TRIAL_FIELDS.size());
        args.add(sweepId);
        args.addAll(TRIAL_FIELDS);
        return args;
    }

    static SweepGetReply decode(Object raw) {
        if ("NOSWEEP".equals(Replies.status(raw))) {
            return new NoSweep();
        }
        List<Map<String, String>> parts =
                Replies.list(raw).stream().map(Replies::hash).toList();
        return new Found(parts.get(0), parts.subList(1, parts.size()));
    }
}
