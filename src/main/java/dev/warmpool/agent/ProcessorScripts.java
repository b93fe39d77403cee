package dev.warmpool.agent;

import static dev.warmpool.agent.io.AgentLog.log;

import dev.warmpool.protocol.script.DeregisterReply;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.HeartbeatReply;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.StartFailedReply;
import dev.warmpool.protocol.script.StartReply;
import java.io.IOException;
import java.net.InetAddress;

/**
 * The agent's calls of the scripts on its own processor (register, start, heartbeat, finish,
 * deregister), each with its typed arguments and decoded reply, through {@link RedisLink}.
 */
final class ProcessorScripts {
    private final AgentConfig config;
    private final RedisLink redis;
    private final String address;

    ProcessorScripts(AgentConfig config, RedisLink redis, String address) {
        this.config = config;
        this.redis = redis;
        this.address = address;
    }

    RegisterReply register() {
        return RegisterReply.decode(redis.runReliably(
                Script.REGISTER,
                RegisterReply.args(config.processorId(), ProcessHandle.current().pid(), host(), address)));
    }

    StartReply start(String jobId, String token) {
        return StartReply.decode(redis.runReliably(Script.START, StartReply.args(config.processorId(), jobId, token)));
    }

    /** One heartbeat, not retried (the next one comes soon). */
    HeartbeatReply heartbeat(String jobId, String token) {
        return HeartbeatReply.decode(
                redis.run(Script.HEARTBEAT, HeartbeatReply.args(config.processorId(), jobId, token)));
    }

    /**
     * Records the outcome. Should the script refuse what the job left (a value it cannot store),
     * the job is recorded FAILED with the reason and without its metrics, so the processor goes on.
     */
    FinishReply finish(JobRun.Outcome o, boolean last, boolean reset) {
        try {
            return FinishReply.decode(redis.runReliably(
                    Script.FINISH,
                    new FinishReply.Args(
                                    config.processorId(),
                                    o.run().jobId,
                                    o.run().token,
                                    o.state(),
                                    o.exitCode(),
                                    o.metrics(),
                                    o.logTail(),
                                    o.error(),
                                    config.retentionSeconds(),
                                    last,
                                    !reset)
                            .argv()));
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            log("job " + o.run().jobId + ": its result could not be stored (" + e.getMessage()
                    + "); recorded as FAILED");
            return FinishReply.decode(redis.runReliably(
                    Script.FINISH,
                    new FinishReply.Args(
                                    config.processorId(),
                                    o.run().jobId,
                                    o.run().token,
                                    "FAILED",
                                    o.exitCode(),
                                    "{}",
                                    o.logTail(),
                                    "its result could not be stored: " + e.getMessage(),
                                    config.retentionSeconds(),
                                    last,
                                    !reset)
                            .argv()));
        }
    }

    /**
     * Leaves why this processor cannot serve on it, still STARTING, for lost.lua to make the pool's
     * startError once the agent has exited (start_failed.lua); false when it was no longer STARTING.
     */
    boolean startFailed(String reason) {
        return StartFailedReply.decode(
                        redis.runReliably(Script.START_FAILED, StartFailedReply.args(config.processorId(), reason)))
                .recorded();
    }

    /** Removes the processor (its job, if any, goes back to the queue), and says so in the log. */
    void deregister(String reason) {
        DeregisterReply reply;
        try {
            reply = DeregisterReply.decode(redis.runReliably(
                    Script.DEREGISTER, DeregisterReply.args(config.processorId(), reason, config.retentionSeconds())));
        } catch (RedisLink.GaveUp e) {
            log(
                    "processor %s not deregistered (%s): the reconciler will find it lost",
                    config.processorId(), e.getMessage());
            return;
        }
        log(
                "processor %s deregistered: %s%s",
                config.processorId(),
                reason,
                reply.requeuedAs() == null ? "" : "; its job is " + reply.requeuedAs() + " again");
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
