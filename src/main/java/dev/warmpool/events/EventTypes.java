package dev.warmpool.events;

import java.util.List;

/** The CloudEvent types warmpool takes and sends. */
public final class EventTypes {
    /** In: data is a {@code POST /jobs} body. */
    public static final String JOB_SUBMIT = "dev.warmpool.job.submit";
    /** In: data is a {@code POST /sweeps} body. */
    public static final String SWEEP_SUBMIT = "dev.warmpool.sweep.submit";
    /** In: Knative's PingSource; runs one reconcile pass. */
    public static final String PING = "dev.knative.sources.ping";
    /** Out, as the reply to a submit: the accepted job. */
    public static final String JOB_ACCEPTED = "dev.warmpool.job.accepted";
    /** Out, as the reply to a sweep submit: the accepted sweep. */
    public static final String SWEEP_ACCEPTED = "dev.warmpool.sweep.accepted";
    /** Out, to K_SINK, sent by the agent that saw the job end. */
    public static final String JOB_FINISHED = "dev.warmpool.job.finished";

    public static final List<String> ACCEPTED = List.of(JOB_SUBMIT, SWEEP_SUBMIT, PING);

    private EventTypes() {}
}
