package dev.warmpool.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.auth.Roles;
import dev.warmpool.pool.Fingerprint;
import dev.warmpool.pool.Job;
import dev.warmpool.service.Caller;
import dev.warmpool.service.JobRequest;
import dev.warmpool.service.JobService;
import dev.warmpool.service.Refusal;
import dev.warmpool.service.SweepRequest;
import dev.warmpool.service.SweepService;
import dev.warmpool.sweep.Sweep;
import io.cloudevents.CloudEvent;
import io.cloudevents.http.restful.ws.impl.RestfulWSMessageFactory;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * CloudEvents at the Knative sink ({@code POST /}), binary or structured mode, read with the
 * CloudEvents SDK. Knative delivers at least once, so a submit is idempotent on the event's
 * {@code source} and {@code id}: a redelivery answers with the job (or sweep) the first delivery created.
 * Like an Idempotency-Key, (source, id) is the sender's own: the same pair from another identity is
 * another event, so an id sent first by someone else never blocks the real one.
 */
@ApplicationScoped
public class EventIntake {
    static final String SOURCE = "/warmpool";

    private final JobService jobs;
    private final SweepService sweeps;
    private final Pings pings;
    private final ObjectMapper json;

    public EventIntake(JobService jobs, SweepService sweeps, Pings pings, ObjectMapper json) {
        this.jobs = jobs;
        this.sweeps = sweeps;
        this.pings = pings;
        this.json = json;
    }

    /**
     * A submit event needs a submitter's token (as {@code POST /jobs} does); a PingSource's ping
     * needs none, since a PingSource sends no token, and all a ping does is run the idempotent
     * reconcile pass that the manager runs every few seconds anyway, at most one a second ({@link Pings}).
     */
    public Uni<Response> receive(
            String contentType, MultivaluedMap<String, String> headers, byte[] body, Uni<SecurityIdentity> identity) {
        CloudEvent event = read(mediaType(contentType), headers, body);
        return switch (event.getType()) {
            case EventTypes.JOB_SUBMIT ->
                submitter(identity)
                        .flatMap(caller -> submit(
                                event,
                                JobRequest.class,
                                "{\"type\": \"pytorch-cpu\"}",
                                (r, key) -> jobs.submit(r, key, caller),
                                Job::id,
                                EventTypes.JOB_ACCEPTED));
            case EventTypes.SWEEP_SUBMIT ->
                submitter(identity)
                        .flatMap(caller -> submit(
                                event,
                                SweepRequest.class,
                                "{\"type\": \"pytorch-cpu\", \"space\": {\"lr\": {\"grid\": [0.01, 0.1]}}}",
                                (r, key) -> sweeps.submit(r, key, caller),
                                Sweep::id,
                                EventTypes.SWEEP_ACCEPTED));
            case EventTypes.PING ->
                pings.pass().map(report -> Response.ok(report).build());
            default ->
                throw new Refusal(
                                Refusal.Kind.INVALID,
                                "unknown-event-type",
                                "Unknown event type",
                                "warmpool does not take events of " + "type '" + shorten(event.getType())
                                        + "'; it takes " + String.join(", ", EventTypes.ACCEPTED) + ".")
                        .with("acceptedTypes", EventTypes.ACCEPTED);
        };
    }

    /** The caller, if it may submit: 401 without a (valid) token, 403 without the role. */
    private static Uni<Caller> submitter(Uni<SecurityIdentity> identity) {
        return identity.map(id -> {
            if (id == null || id.isAnonymous()) {
                throw new UnauthorizedException();
            }
            if (!id.hasRole(Roles.SUBMITTER) && !id.hasRole(Roles.ADMIN)) {
                throw new ForbiddenException("Submitting an event needs the role submitter or admin.");
            }
            return new Caller(id.getPrincipal().getName(), id.getRoles());
        });
    }

    /** The request's media type; null without a Content-Type; a 400 naming the header when it is not one. */
    private static MediaType mediaType(String contentType) {
        if (contentType == null) {
            return null;
        }
        try {
            return MediaType.valueOf(contentType);
        } catch (RuntimeException e) {
            throw new Refusal(
                    Refusal.Kind.INVALID,
                    "invalid-cloudevent",
                    "Invalid CloudEvent",
                    "The Content-Type header '" + shorten(contentType) + "' is not a media type: send "
                            + "application/json (or the data's type) in binary mode, "
                            + "application/cloudevents+json in structured mode.");
        }
    }

    private static CloudEvent read(MediaType mediaType, MultivaluedMap<String, String> headers, byte[] body) {
        try {
            return RestfulWSMessageFactory.create(mediaType, headers, body).toEvent();
        } catch (RuntimeException e) {
            // the SDK's reader fails in many ways on hostile input (its own exceptions, Jackson's,
            // a NullPointerException for a structured body of `null`): each means "not a CloudEvent"
            throw new Refusal(
                    Refusal.Kind.INVALID,
                    "invalid-cloudevent",
                    "Invalid CloudEvent",
                    "The request is not a CloudEvent 1.0 in binary "
                            + "mode (ce-specversion, ce-id, ce-source and ce-type headers) or structured mode "
                            + "(application/cloudevents+json): " + shorten(e.getMessage()) + ".");
        }
    }

    /**
     * A submit event: its data is the body of the matching POST, and the reply event carries what
     * was accepted (its id as the subject). The event's source and id are the Idempotency-Key, which
     * the submit scopes to the caller as it does a header's.
     */
    private <R, T> Uni<Response> submit(
            CloudEvent event,
            Class<R> bodyType,
            String example,
            BiFunction<R, String, Uni<T>> submit,
            Function<T, String> id,
            String replyType) {
        R request = request(event, bodyType, example);
        String key = "ce-" + Fingerprint.sha256(event.getSource() + "\n" + event.getId());
        return Uni.createFrom()
                .deferred(() -> submit.apply(request, key))
                .onFailure(Refusal.class)
                .transform(p -> ((Refusal) p).kind() == Refusal.Kind.INVALID ? asInvalidData((Refusal) p) : p)
                .map(accepted -> {
                    try {
                        return Response.accepted(json.writeValueAsBytes(accepted))
                                .type(MediaType.APPLICATION_JSON)
                                .header("ce-specversion", "1.0")
                                .header("ce-id", UUID.randomUUID().toString())
                                .header("ce-source", SOURCE)
                                .header("ce-type", replyType)
                                .header("ce-subject", id.apply(accepted))
                                .build();
                    } catch (JsonProcessingException e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    private <R> R request(CloudEvent event, Class<R> bodyType, String example) {
        String post = bodyType == SweepRequest.class ? "POST /sweeps" : "POST /jobs";
        if (event.getData() == null) {
            throw new Refusal(
                    Refusal.Kind.UNPROCESSABLE,
                    "invalid-event-data",
                    "Invalid event data",
                    "A " + event.getType() + " event needs data: the " + post + " body, e.g. " + example + ".");
        }
        try {
            return json.readValue(event.getData().toBytes(), bodyType);
        } catch (JsonProcessingException e) {
            Refusal r = new Refusal(
                    Refusal.Kind.UNPROCESSABLE,
                    "invalid-event-data",
                    "Invalid event data",
                    "The event's data is not a valid " + post + " body: " + shorten(e.getOriginalMessage()) + ".");
            String field = e instanceof JsonMappingException m ? path(m) : "";
            throw field.isEmpty() ? r : r.with("field", field);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where in the data the problem is, as the HTTP API names it: {@code seed}, {@code args[2]}; "" for the whole. */
    private static String path(JsonMappingException m) {
        return m.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
    }

    /** A validation failure of the event's data: the event was well formed, its content was not. */
    private static Refusal asInvalidData(Refusal p) {
        Refusal out =
                new Refusal(Refusal.Kind.UNPROCESSABLE, "invalid-event-data", "Invalid event data", p.getMessage());
        p.extensions().forEach(out::with);
        return out;
    }

    private static String shorten(String s) {
        return s == null ? "" : s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
