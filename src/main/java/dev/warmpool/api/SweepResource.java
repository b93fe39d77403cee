package dev.warmpool.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.auth.Roles;
import dev.warmpool.service.Caller;
import dev.warmpool.service.Follower;
import dev.warmpool.service.JobReaders;
import dev.warmpool.service.StreamLimiter;
import dev.warmpool.service.SweepRequest;
import dev.warmpool.service.SweepService;
import dev.warmpool.sweep.Sweep;
import io.quarkus.security.identity.SecurityIdentity;
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

/** Sweeps: submit (the configurations are drawn and stored at once), read with every trial, list, cancel. */
@Path("/sweeps")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN})
public class SweepResource {
    private final SweepService sweeps;
    private final Follower follow;
    private final ObjectMapper json;
    private final SecurityIdentity identity;
    private final StreamLimiter streams;
    private final QuietConnections quiet;

    private final JobReaders readers;

    public SweepResource(
            SweepService sweeps,
            Follower follow,
            ObjectMapper json,
            SecurityIdentity identity,
            StreamLimiter streams,
            QuietConnections quiet,
            JobReaders readers) {
        this.readers = readers;
        this.streams = streams;
        this.quiet = quiet;
        this.sweeps = sweeps;
        this.follow = follow;
        this.json = json;
        this.identity = identity;
    }

    /**
     * Accepts a sweep (202): its trials are stored, the first {@code parallelism} of them already
     * running or queued. A repeated {@code Idempotency-Key} answers with the sweep it created first.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
    public Uni<Response> submit(SweepRequest body, @HeaderParam("Idempotency-Key") String idempotencyKey) {
        return sweeps.submit(body, idempotencyKey, RequestCaller.of(identity))
                .map(sweep -> Response.accepted(sweep)
                        .header(HttpHeaders.LOCATION, "/sweeps/" + sweep.id())
                        .build());
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Uni<Sweep> get(@PathParam("id") String id) {
        DriverScope.sweep(identity, id);
        return sweeps.get(id);
    }

    /** The newest sweeps, without their trials. */
    /**
     * The sweep as Server-Sent Events: {@code sweep} with the whole sweep as it is (every trial
     * that ended before is in it, so a reconnect loses nothing), then {@code trial} for each trial
     * as it ends followed by {@code sweep} again, {@code warning} (a sentence) for each warning the
     * sweep gains, e.g. an objective its trials do not report, and {@code end} with the ended sweep.
     */
    @GET
    @Path("/{id}/events")
    @io.smallrye.common.annotation.Blocking
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Multi<OutboundSseEvent> events(@PathParam("id") String id, @Context Sse sse, @Context RoutingContext rc) {
        DriverScope.sweep(identity, id);
        sweeps.get(id).await().atMost(Duration.ofSeconds(10)); // a missing sweep is a 404, before the stream begins
        Caller caller = RequestCaller.of(identity);
        Multi<OutboundSseEvent> stream = streams.held(
                caller, () -> EventStreams.sse(follow.sweep(id), sse, json, job -> readers.shownTo(job, caller)));
        quiet.allowQuiet(rc);
        return stream;
    }

    @GET
    public Uni<List<Sweep>> list(@QueryParam("type") String type, @QueryParam("limit") String limit) {
        return sweeps.list(type, limit == null ? null : QueryParams.integer("limit", limit));
    }

    /**
     * Adds a trial to an external sweep (201, the trial; its job is {@code /jobs/{trial id}}): its
     * driver chose the configuration. Only the sweep's submitter or an admin may.
     */
    @POST
    @Path("/{id}/trials")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Uni<Response> addTrial(@PathParam("id") String id, TrialRequest body) {
        DriverScope.sweep(identity, id);
        return sweeps.addTrial(
                        id,
                        body == null ? null : body.config(),
                        body == null ? null : body.key(),
                        RequestCaller.of(identity))
                .map(added -> Response.status(added.existing() ? Response.Status.OK : Response.Status.CREATED)
                        .entity(added.trial())
                        .header(HttpHeaders.LOCATION, "/jobs/" + added.trial().id())
                        .build());
    }

    /**
     * The body of {@code POST /sweeps/{id}/trials}: the trial's configuration, and optionally the
     * driver's key for it (the same key again answers 200 with the trial added first).
     */
    public record TrialRequest(JsonNode config, String key) {}

    /** Appends entries to an external sweep's journal (its driver's study log); how many it holds now. */
    @POST
    @Path("/{id}/journal")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Uni<Map<String, Long>> appendJournal(@PathParam("id") String id, JournalAppend body) {
        DriverScope.sweep(identity, id);
        return sweeps.appendJournal(
                        id,
                        body == null ? null : body.entries(),
                        body == null ? null : body.id(),
                        RequestCaller.of(identity))
                .map(size -> Map.of("size", size));
    }

    /** The body of {@code POST /sweeps/{id}/journal}. */
    public record JournalAppend(List<JsonNode> entries, String id) {}

    /** A sweep's journal from {@code from} (default 0), at most {@code limit} (default 1000) entries. */
    @GET
    @Path("/{id}/journal")
    @RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN, Roles.DRIVER})
    public Uni<SweepService.Journal> readJournal(
            @PathParam("id") String id, @QueryParam("from") String from, @QueryParam("limit") String limit) {
        DriverScope.sweep(identity, id);
        return sweeps.readJournal(
                id,
                from == null ? 0 : QueryParams.integer("from", from),
                limit == null ? 1000 : QueryParams.integer("limit", limit),
                RequestCaller.of(identity));
    }

    /** Cancels every trial that has not ended; running ones are killed. */
    @DELETE
    @Path("/{id}")
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
    public Uni<Sweep> cancel(@PathParam("id") String id) {
        return sweeps.cancel(id, RequestCaller.of(identity));
    }
}
