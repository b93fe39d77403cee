package dev.warmpool.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.auth.Roles;
import dev.warmpool.pool.Job;
import dev.warmpool.pool.JobEvent;
import dev.warmpool.protocol.JobState;
import dev.warmpool.service.BatchRequest;
import dev.warmpool.service.Caller;
import dev.warmpool.service.Follower;
import dev.warmpool.service.JobReaders;
import dev.warmpool.service.JobRequest;
import dev.warmpool.service.JobService;
import dev.warmpool.service.Secrets;
import dev.warmpool.service.StreamLimiter;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Jobs: submit, read (and wait for the end), list, cancel. */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN})
public class JobResource {
    private final JobService jobs;
    private final Follower follow;
    private final ObjectMapper json;
    private final SecurityIdentity identity;
    private final StreamLimiter streams;
    private final QuietConnections quiet;
    private final JobReaders readers;

    public JobResource(
            JobService jobs,
            Follower follow,
            ObjectMapper json,
            SecurityIdentity identity,
            StreamLimiter streams,
            QuietConnections quiet,
            JobReaders readers) {
        this.readers = readers;
        this.streams = streams;
        this.quiet = quiet;
        this.jobs = jobs;
        this.follow = follow;
        this.json = json;
        this.identity = identity;
    }

    /**
     * Accepts a job (202): it is running on a warm processor already, or queued for the next free
     * one. A repeated {@code Idempotency-Key} (within 24 h) answers with the job it created first.
     * With {@code wait}, submits and waits in one request: 200 with the job once it has ended, or
     * 202 with it as it is when that many seconds pass first.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
    public Uni<Response> submit(
            JobRequest body,
            @HeaderParam("Idempotency-Key") String idempotencyKey,
            @QueryParam("wait") String wait,
            @Context RoutingContext rc) {
        Integer seconds = wait == null ? null : QueryParams.integer("wait", wait);
        if (seconds != null && seconds < 0) {
            throw Problem.invalid("wait", "'wait' must be 0 or more seconds."); // before anything is stored
        }
        if (seconds != null) {
            quiet.allowQuiet(rc);
        }
        Caller caller = RequestCaller.of(identity);
        return (seconds == null
                        ? jobs.submit(body, idempotencyKey, caller)
                        : jobs.submitAndWait(body, idempotencyKey, caller, seconds))
                .map(job -> readers.shownTo(job, caller))
                .map(job -> (job.ended() && seconds != null ? Response.ok(job) : Response.accepted(job))
                        .header(HttpHeaders.LOCATION, "/jobs/" + job.id())
                        .build());
    }

    /**
     * Accepts up to 1000 jobs of one type at once, all or none (202 with {"jobs": [...]}, in the
     * request's order); one Redis step for the whole batch.
     */
    @POST
    @Path("/batch")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
    public Uni<Response> submitBatch(BatchRequest body, @HeaderParam("Idempotency-Key") String idempotencyKey) {
        Caller caller = RequestCaller.of(identity);
        return jobs.submitBatch(body, idempotencyKey, caller)
                .map(list -> Response.accepted(Map.of("jobs", readers.shownTo(list, caller)))
                        .build());
    }

    /**
     * The job; with {@code wait}, held until it ends or that many seconds pass. Its env values
     * only for its submitter and admins (see {@link Secrets}).
     */
    @GET
    @Path("/{id}")
    @RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Uni<Job> get(@PathParam("id") String id, @QueryParam("wait") String wait, @Context RoutingContext rc) {
        DriverScope.trial(identity, id);
        Caller caller = RequestCaller.of(identity);
        if (wait != null) {
            quiet.allowQuiet(rc);
        }
        return (wait == null ? jobs.get(id) : jobs.waitForEnd(id, QueryParams.integer("wait", wait)))
                .map(job -> readers.shownTo(job, caller));
    }

    /**
     * Reads the job on this worker thread (a stream's methods run on one, see {@link Blocking})
     * so that a missing job is a 404 problem: once a stream has begun, its status is sent.
     */
    private Job exists(String id) {
        return jobs.get(id).await().atMost(Duration.ofSeconds(10));
    }

    /**
     * The job as Server-Sent Events: its state now, its log lines and reports as they come (after
     * {@code Last-Event-ID}, or the {@code after} parameter, when given), each state it goes
     * through, and {@code end} with the ended job, after which the stream closes. A reader who may
     * not read the job's details (JobReaders) gets no log lines, and the job without them.
     */
    @GET
    @Path("/{id}/events")
    @Blocking
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Multi<OutboundSseEvent> events(
            @PathParam("id") String id,
            @HeaderParam("Last-Event-ID") String lastEventId,
            @QueryParam("after") String after,
            @Context Sse sse,
            @Context RoutingContext rc) {
        DriverScope.trial(identity, id);
        Multi<Follower.Item> items = follow.job(id, lastEventId != null ? lastEventId : after, true); // a bad id: 400
        Caller caller = RequestCaller.of(identity);
        if (!readers.mayRead(exists(id), caller)) {
            items = items.filter(item -> !JobEvent.LOG.equals(item.kind())); // its states, never what it printed
        }
        Multi<Follower.Item> shown = items;
        Multi<OutboundSseEvent> stream =
                streams.held(caller, () -> EventStreams.sse(shown, sse, json, job -> readers.shownTo(job, caller)));
        quiet.allowQuiet(rc);
        return stream;
    }

    /**
     * What the job printed, as text: its live log, or the log tail it ended with when it kept no
     * live log. With {@code follow=true}, the lines as they come until the job ends.
     */
    @GET
    @Path("/{id}/logs")
    @Blocking
    @Produces(MediaType.TEXT_PLAIN)
    public Multi<String> logs(
            @PathParam("id") String id, @QueryParam("follow") String followIt, @Context RoutingContext rc) {
        boolean on = followIt != null && QueryParams.bool("follow", followIt);
        readers.checkMayRead(exists(id), RequestCaller.of(identity), "logs");
        if (!on) {
            return follow.logs(id, false).map(line -> line + "\n");
        }
        Multi<String> lines = streams.held(
                RequestCaller.of(identity), () -> follow.logs(id, true).map(line -> line + "\n"));
        quiet.allowQuiet(rc);
        return lines;
    }

    @GET
    public Uni<List<Job>> list(
            @QueryParam("type") String type,
            @QueryParam("state") String state,
            @QueryParam("limit") String limit,
            @QueryParam("sweep") String sweep) {
        Caller caller = RequestCaller.of(identity);
        return jobs.list(type, state, limit == null ? null : QueryParams.integer("limit", limit), sweep)
                .map(list -> readers.shownTo(list, caller));
    }

    /**
     * Cancels a job: one's own, or anyone's as an admin. {@code state=EARLY_STOPPED} ends it so
     * instead (a tuner outside warmpool pruned it), {@code reason} is kept as its error.
     */
    @DELETE
    @Path("/{id}")
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Uni<Job> cancel(
            @PathParam("id") String id, @QueryParam("state") String state, @QueryParam("reason") String reason) {
        DriverScope.trial(identity, id);
        JobState end = state == null ? JobState.CANCELLED : QueryParams.jobState("state", state);
        Caller caller = RequestCaller.of(identity);
        return jobs.cancel(id, caller, end, reason).map(job -> readers.shownTo(job, caller));
    }
}
