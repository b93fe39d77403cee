package dev.warmpool.protocol.script;

import java.util.List;

/**
 * What an agent needs to run a job, as start.lua and finish.lua (for the next job) hand it over
 * in one reply: the job's args, config and env (JSON), its timeout, the pool's command, env and
 * spec (JSON), for a gang member its role and the members' addresses (JSON, else ""), the
 * job's tenant (a persistent worker serves one tenant at a time), and, for a sweep's driver only,
 * the token its API calls carry (else "": the agent opens the driver's way to the API only then).
 */
public record Run(
        String argsJson,
        String configJson,
        String envJson,
        long timeoutSeconds,
        String commandJson,
        String poolEnvJson,
        String specJson,
        String gangJson,
        String tenant,
        String apiToken) {

    /** The run that starts at {@code r.get(from)}, which says {@code RUN} (lib/jobs.lua's run_reply). */
    static Run decode(List<Object> r, int from) {
        if (!"RUN".equals(Replies.string(r.get(from)))) {
            throw new IllegalStateException("not a run reply: " + r);
        }
        return new Run(
                Replies.string(r.get(from + 1)),
                Replies.string(r.get(from + 2)),
                Replies.string(r.get(from + 3)),
                Long.parseLong(Replies.string(r.get(from + 4))),
                Replies.string(r.get(from + 5)),
                Replies.string(r.get(from + 6)),
                Replies.string(r.get(from + 7)),
                r.size() > from + 8 ? Replies.string(r.get(from + 8)) : "",
                r.size() > from + 9 ? Replies.string(r.get(from + 9)) : "",
                r.size() > from + 10 ? Replies.string(r.get(from + 10)) : "");
    }
}
