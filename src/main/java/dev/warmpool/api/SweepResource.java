package dev.warmpool.api;

import dev.warmpool.service.SweepRequest;
import dev.warmpool.service.SweepService;
import dev.warmpool.auth.Roles;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.annotation.security.RolesAllowed;
import dev.warmpool.sweep.Sweep;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;

/** Sweeps: submit (the configurations are drawn and stored at once), read with every trial, list, cancel. */
@Path("/sweeps")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN})
public class SweepResource {
    private final SweepService sweeps;
    private final SecurityIdentity identity;

    public SweepResource(SweepService sweeps, SecurityIdentity identity) {
        this.sweeps = sweeps;
        this.identity = identity;
    }

    /**
     * Accepts a sweep (202): its trials are stored, the first {@code parallelism} of them already
     * running or queued. A repeated {@code Idempotency-Key} answers with the sweep it created first.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
    public Uni<Response> submit(SweepRequest body, @HeaderParam("Idempotency-Key") String idempotencyKey, UriInfo uri) {
        return sweeps.submit(body, idempotencyKey, Callers.of(identity)).map(sweep -> Response.accepted(sweep)
                .location(uri.getBaseUriBuilder().path("sweeps").path(sweep.id()).build()).build());
    }

    @GET
    @Path("/{id}")
    public Uni<Sweep> get(@PathParam("id") String id) {
        return sweeps.get(id);
    }

    /** The newest sweeps, without their trials. */
    @GET
    public Uni<List<Sweep>> list(@QueryParam("type") String type, @QueryParam("limit") String limit) {
        return sweeps.list(type, limit == null ? null : Params.integer("limit", limit));
    }

    /** Cancels every trial that has not ended; running ones are killed. */
    @DELETE
    @Path("/{id}")
    @RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
    public Uni<Sweep> cancel(@PathParam("id") String id) {
        return sweeps.cancel(id, Callers.of(identity));
    }
}
