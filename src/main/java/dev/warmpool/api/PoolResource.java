package dev.warmpool.api;

import dev.warmpool.auth.Roles;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.service.Caller;
import dev.warmpool.service.PoolService;
import dev.warmpool.service.PoolView;
import dev.warmpool.service.Secrets;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** Pools of warm processors, one per job type. */
@Path("/pools")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN})
public class PoolResource {
    private final PoolService pools;
    private final SecurityIdentity identity;

    public PoolResource(PoolService pools, SecurityIdentity identity) {
        this.pools = pools;
        this.identity = identity;
    }

    /** The pools; their env values for admins only (see {@link Secrets}). */
    @GET
    public Uni<List<PoolView>> list() {
        Caller caller = RequestCaller.of(identity);
        return pools.list().map(list -> Secrets.poolsShownTo(list, caller));
    }

    @GET
    @Path("/{type}")
    public Uni<PoolView> get(@PathParam("type") String type) {
        Caller caller = RequestCaller.of(identity);
        return pools.get(type).map(pool -> Secrets.shownTo(pool, caller));
    }

    /** Creates (201) or updates (200) the pool; idempotent. */
    @PUT
    @Path("/{type}")
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> put(@PathParam("type") String type, PoolSpec body) {
        return pools.put(type, body)
                .map(put -> put.created()
                        ? Response.status(Response.Status.CREATED)
                                .header(HttpHeaders.LOCATION, "/pools/" + type)
                                .entity(put.body())
                                .build()
                        : Response.ok(put.body()).build());
    }

    /** Drains the pool (202): no new jobs, queued ones cancelled, processors retired as they come free. */
    @DELETE
    @Path("/{type}")
    @RolesAllowed(Roles.ADMIN)
    public Uni<Response> delete(@PathParam("type") String type) {
        return pools.delete(type).map(view -> Response.accepted(view).build());
    }
}
