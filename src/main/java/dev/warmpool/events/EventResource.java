package dev.warmpool.events;

import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The Knative sink: Triggers and PingSources deliver CloudEvents here. */
@Path("/")
public class EventResource {
    private final EventIntake intake;
    private final CurrentIdentityAssociation identity;

    public EventResource(EventIntake intake, CurrentIdentityAssociation identity) {
        this.intake = intake;
        this.identity = identity;
    }

    /**
     * Open at this layer: the intake asks for a submitter's token for submit events, none for pings.
     * The Content-Type goes to the intake as sent, since {@code headers.getMediaType()} throws on a
     * malformed one (an empty header, say), which would be a 500 instead of the 400 it deserves.
     */
    @POST
    @PermitAll
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> receive(byte[] body, @Context HttpHeaders headers) {
        return intake.receive(
                headers.getRequestHeaders().getFirst(HttpHeaders.CONTENT_TYPE),
                headers.getRequestHeaders(),
                body == null ? new byte[0] : body,
                identity.getDeferredIdentity());
    }
}
