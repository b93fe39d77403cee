package dev.warmpool.events;

import java.util.List;

/** The CloudEvent types warmpool takes and sends. */
public final class EventTypes {
    /** In: data is a {@code POST /jobs} body. */
    public static final String JOB_SUBMIT = "dev.warmpool.job.submit";
    /** In: Knative's PingSource; runs one reconcile pass. */
    public static final String PING = "dev.knative.sources.ping";
    /** Out, as the reply to a submit: the accepted job. */
    public static final String JOB_ACCEPTED = "dev.warmpool.job.accepted";
    /** Out, to K_SINK, sent by the agent that saw the job end. */
    public static final String JOB_FINISHED = "dev.warmpool.job.finished";

    public static final List<String> ACCEPTED = List.of(JOB_SUBMIT, PING);

    private EventTypes() {
    }
}
