package dev.warmpool.agent;

import dev.warmpool.protocol.script.HeartbeatReply;

/**
 * What the agent's one loop acts on; the inbox reader, the heartbeat, the job thread and the
 * signal handler only post these.
 */
sealed interface AgentEvent permits AgentEvent.Message, AgentEvent.Stop, AgentEvent.Beat, JobRun.Outcome {
    /** An inbox message: {@code job <id> <token>}, {@code cancel <id> <token>} or {@code retire}. */
    record Message(String text) implements AgentEvent {}

    /** SIGTERM: take no more work, let the job finish within the grace period, deregister. */
    record Stop() implements AgentEvent {}

    /**
     * What a heartbeat learned when it was not plain alive (unknown, or fenced), about the job (and token)
     * the heartbeat was sent for; the loop may have moved on to another job since.
     */
    record Beat(HeartbeatReply reply, String jobId, String token) implements AgentEvent {}
}
