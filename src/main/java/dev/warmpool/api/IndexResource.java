package dev.warmpool.api;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code GET /}: what this service is and where its parts are, for someone who points a browser
 * or curl at it first. It holds no data, so it needs no token. ({@code POST /} is CloudEvents intake.)
 */
@Path("/")
public class IndexResource {
    /** A browser (it asks for HTML) goes to the dashboard; anything else gets the map below. */
    @GET
    @PermitAll
    @Produces({MediaType.APPLICATION_JSON, MediaType.TEXT_HTML})
    public Response index(@HeaderParam("Accept") String accept) {
        if (accept != null && accept.contains(MediaType.TEXT_HTML)) {
            return Response.status(Response.Status.SEE_OTHER)
                    .header(HttpHeaders.LOCATION, "/ui")
                    .build(); // relative: never from the Host header
        }
        return Response.ok(map(), MediaType.APPLICATION_JSON_TYPE).build();
    }

    private static Map<String, Object> map() {
        Map<String, Object> links = new LinkedHashMap<>();
        links.put("pools", "/pools");
        links.put("jobs", "/jobs");
        links.put("sweeps", "/sweeps");
        links.put("openapi", "/q/openapi");
        links.put("health", "/q/health");
        links.put("metrics", "/q/metrics");
        links.put("dashboard", "/ui");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("service", "warmpool");
        out.put(
                "about",
                "Warm pools of job processors, one pool per job type: PUT /pools/{type}, then POST /jobs "
                        + "with {\"type\": \"<type>\"}. Every endpoint but this one, /q/health and CloudEvents pings needs "
                        + "'Authorization: Bearer <token>' (the run command writes an admin token to .warmpool/token).");
        out.put("links", links);
        return out;
    }
}
