package dev.warmpool.api;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.warmpool.service.Refusal;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

/** Turns every failure into problem+json: a sentence for the client, never a stack trace. */
public class ProblemMapper {
    private static final Logger LOG = Logger.getLogger(ProblemMapper.class);
    public static final String PROBLEM_JSON = "application/problem+json";

    private final ObjectMapper json;

    public ProblemMapper(ObjectMapper json) {
        this.json = json;
    }

    @ServerExceptionMapper
    public Response problem(Problem p, UriInfo uri) {
        return respond(p, uri);
    }

    /** The domain's refusals, as problem+json with the status their kind means. */
    @ServerExceptionMapper
    public Response refusal(Refusal r, UriInfo uri) {
        return respond(Problem.of(r), uri);
    }

    /** No token, or one warmpool does not accept: 401 with the Bearer challenge. Never echoes the token. */
    @ServerExceptionMapper
    public Response badToken(AuthenticationFailedException e, UriInfo uri) {
        return unauthenticated(e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public Response anonymous(UnauthorizedException e, UriInfo uri) {
        return unauthenticated((String) null, uri);
    }

    private Response unauthenticated(String why, UriInfo uri) {
        String detail = why != null && !why.isBlank() && !why.contains("Bearer ey")
                ? why
                : "This needs a token: send 'Authorization: Bearer <token>' (the run command writes one to .warmpool/token).";
        Response r = respond(new Problem(401, "unauthenticated", "Unauthorized", detail), uri);
        return Response.fromResponse(r)
                .header("WWW-Authenticate", "Bearer realm=\"warmpool\"")
                .build();
    }

    /** A caller without the role an endpoint needs: 403 naming the roles that may. */
    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e, UriInfo uri, SimpleResourceInfo resource) {
        String[] roles = roles(resource);
        String detail = roles.length > 0
                ? "This needs the role " + String.join(" or ", roles)
                        + "; your token has none of them. Ask an admin for one that does."
                : e.getMessage() != null && !e.getMessage().isBlank() ? e.getMessage() : "Your token may not do this.";
        return respond(new Problem(403, "forbidden", "Forbidden", detail).with("requiredRoles", List.of(roles)), uri);
    }

    private static String[] roles(SimpleResourceInfo resource) {
        if (resource == null || resource.getResourceClass() == null) {
            return new String[0];
        }
        try {
            Method m = resource.getResourceClass().getMethod(resource.getMethodName(), resource.parameterTypes());
            RolesAllowed on = m.getAnnotation(RolesAllowed.class);
            if (on == null) {
                on = resource.getResourceClass().getAnnotation(RolesAllowed.class);
            }
            return on == null ? new String[0] : on.value();
        } catch (NoSuchMethodException ex) {
            return new String[0];
        }
    }

    @ServerExceptionMapper
    public Response badJson(JsonProcessingException e, UriInfo uri) {
        return respond(fromJackson(e), uri);
    }

    /** Quarkus maps this one itself (as plain JSON): take it over. */
    @ServerExceptionMapper(priority = 1)
    public Response mismatched(MismatchedInputException e, UriInfo uri) {
        return respond(fromJackson(e), uri);
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        if (e.getCause() instanceof JsonProcessingException j) {
            return respond(fromJackson(j), uri);
        }
        int status = e.getResponse().getStatus();
        String slug = switch (status) {
            case 404 -> "not-found";
            case 405 -> "method-not-allowed";
            case 406 -> "not-acceptable";
            case 413 -> "body-too-large";
            case 415 -> "unsupported-media-type";
            default -> "http-" + status;
        };
        String detail = switch (status) {
            case 404 -> "There is nothing at " + uri.getPath() + "; see /q/openapi for the API.";
            case 415 -> "Send the body as application/json.";
            case 413 -> "The body is larger than 1 MiB; send a smaller one.";
            default -> e.getMessage();
        };
        Response.Status.Family family = Response.Status.Family.familyOf(status);
        if (family == Response.Status.Family.SERVER_ERROR) {
            LOG.errorf(e, "request to %s failed", uri.getPath());
        }
        return respond(
                new Problem(
                        status,
                        slug,
                        Response.Status.fromStatusCode(status) == null
                                ? "Error"
                                : Response.Status.fromStatusCode(status).getReasonPhrase(),
                        detail),
                uri);
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e, UriInfo uri) {
        if (RedisDown.is(e)) {
            return respond(
                    new Problem(
                                    503,
                                    "redis-unavailable",
                                    "Service unavailable",
                                    "warmpool cannot reach Redis just now; retry in a few seconds.")
                            .retryAfter(5),
                    uri);
        }
        if (causedBy(e, ConnectionPoolTooBusyException.class)) {
            return respond(
                    new Problem(
                                    503,
                                    "overloaded",
                                    "Service unavailable",
                                    "warmpool has more requests in flight than Redis connections to serve them; retry in a moment.")
                            .retryAfter(1),
                    uri);
        }
        LOG.errorf(e, "request to %s failed", uri.getPath());
        return respond(
                new Problem(
                        500,
                        "internal-error",
                        "Internal error",
                        "warmpool failed to handle this request; the manager's log has the cause."),
                uri);
    }

    private static Problem fromJackson(JsonProcessingException e) {
        if (e instanceof UnrecognizedPropertyException u) {
            // named by its path, so that a nested one reads "template.imagePullPolicy"
            String field = u.getPath().isEmpty() ? u.getPropertyName() : path(u);
            List<String> known = u.getKnownPropertyIds().stream()
                    .map(Object::toString)
                    .sorted()
                    .toList();
            // knownFields as a list too, so that a client can name them as its caller writes names
            // (the Python client's min_idle for minIdle) rather than mix its names with the API's
            return Problem.invalid(
                            field,
                            "Unknown field '" + field + "'; known fields "
                                    + (field.equals(u.getPropertyName()) ? "" : "there ") + "are "
                                    + String.join(", ", known) + ".")
                    .with("knownFields", known);
        }
        if (causedBy(e, JsonParseException.class)) {
            return new Problem(
                    400, "malformed-json", "Malformed JSON", "The body is not valid JSON: " + rootMessage(e) + ".");
        }
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            String field = path(m);
            String expected = expected(m);
            return Problem.invalid(
                    field,
                    "Field '" + field + "' has the wrong type: "
                            + (expected != null ? "it must be " + expected : m.getOriginalMessage()) + ".");
        }
        if (e instanceof JsonMappingException) {
            return new Problem(400, "malformed-json", "Malformed JSON", "The body must be a JSON object.");
        }
        return new Problem(
                400, "malformed-json", "Malformed JSON", "The body is not valid JSON: " + e.getOriginalMessage() + ".");
    }

    /** Where in the body the problem is: {@code template.tolerations}, {@code gang[worker].count}, {@code args[2]}. */
    private static String path(JsonMappingException m) {
        return m.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
    }

    /** What a field must be, in JSON's words ("a JSON array"), when the mismatch says; else null. */
    private static String expected(JsonMappingException e) {
        if (!(e instanceof MismatchedInputException m) || m.getTargetType() == null) {
            return null;
        }
        Class<?> t = m.getTargetType();
        if (Collection.class.isAssignableFrom(t) || t.isArray()) {
            return "a JSON array";
        }
        if (Map.class.isAssignableFrom(t) || t.isRecord()) {
            return "a JSON object";
        }
        if (t == String.class) {
            return "a string";
        }
        if (t == Boolean.class || t == boolean.class) {
            return "true or false";
        }
        if (t == Integer.class || t == int.class) {
            return "a whole number from -2147483648 to 2147483647";
        }
        if (t == Long.class || t == long.class) {
            return "a whole number";
        }
        if (Number.class.isAssignableFrom(t) || t == double.class || t == float.class) {
            return "a number";
        }
        return null;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t instanceof JsonProcessingException j ? j.getOriginalMessage() : t.getMessage();
    }

    private Response respond(Problem p, UriInfo uri) {
        try {
            Response.ResponseBuilder r = Response.status(p.status())
                    .type(PROBLEM_JSON)
                    .entity(json.writeValueAsString(p.body(uri == null ? null : uri.getPath())));
            if (p.retryAfterSeconds() != null) {
                r.header("Retry-After", p.retryAfterSeconds());
            }
            return r.build();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
