package dev.warmpool.events;

import io.smallrye.mutiny.Uni;
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

    public EventResource(EventIntake intake) {
        this.intake = intake;
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> receive(byte[] body, @Context HttpHeaders headers) {
        return intake.receive(headers.getMediaType(), headers.getRequestHeaders(), body == null ? new byte[0] : body);
    }
}
