package dev.warmpool.protocol.script;

import dev.warmpool.protocol.JobState;
import java.util.List;
import java.util.Map;

/** list_jobs.lua: the newest jobs of a pool (optionally of one state), or a sweep's trials in trial order, as their hashes. */
public record ListJobsReply(List<Map<String, String>> jobs) {
    /** How many index entries one call reads at most, whatever the filter: a bound on the script's time. */
    public static final int SCAN_BUDGET = 10_000;

    /** ARGV after the prefix: state or "", limit, most index entries to scan, sweep id or "". */
    public static List<String> args(JobState state, int limit, String sweepId) {
        return List.of(
                state == null ? "" : state.name(),
                Integer.toString(limit),
                Integer.toString(SCAN_BUDGET),
                sweepId == null ? "" : sweepId);
    }

    public static ListJobsReply decode(Object raw) {
        return new ListJobsReply(Replies.list(raw).stream().map(Replies::hash).toList());
    }
}
