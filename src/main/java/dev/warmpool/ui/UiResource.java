package dev.warmpool.ui;

import dev.warmpool.api.QuietConnections;
import dev.warmpool.auth.Roles;
import dev.warmpool.auth.StaticTokens;
import dev.warmpool.auth.UiSession;
import dev.warmpool.auth.UiSessions;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.service.Caller;
import dev.warmpool.service.StreamLimiter;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.util.regex.Pattern;

/**
 * The dashboard: {@code /ui} (pools, processors, recent jobs), {@code /ui/jobs/{id}} (a job's live
 * log and reports), {@code /ui/sweeps} (the newest sweeps) and {@code /ui/sweeps/{id}} (objective by trial). The pages are one shell
 * (the Qute template templates/UiResource/app.html, {@link Templates}) and a script (META-INF/resources/ui/app.js) that reads the API with the session
 * cookie; without a valid token they are a login form and hold no data. {@code /ui?token=...}
 * (as Jupyter's) sets the cookie and sends the browser on without the token in its address.
 */
@Path("/ui")
@PermitAll
public class UiResource {
    /** What a job or sweep id may look like on a page's path (they are checked again by the API). */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,200}");
    /** Chart.js's bundle in its WebJar (pom.xml's chartjs.version). */
    static final String CHART_JS = "/webjars/chart.js/4.4.1/dist/chart.umd.js";

    private final SecurityIdentity identity;
    private final StaticTokens tokens;
    private final UiFeed feed;
    private final boolean authEnabled;
    private final StreamLimiter streams;
    private final UiSessions sessions;
    private final QuietConnections quiet;

    /**
     * The page shells, Qute templates under templates/UiResource/ checked at build time: a name a
     * template uses that its method does not declare fails the build. Each value is HTML-escaped.
     */
    @CheckedTemplate
    static class Templates {
        /** Every page: the signed-in caller's name and role, whether authentication is on, Chart.js's path. */
        static native TemplateInstance app(String role, String user, String auth, String chartjs);

        /** The login form: the page to go on to, and an error (empty: none) in its class ("hidden" or "error"). */
        static native TemplateInstance login(String next, String error, String errorClass);
    }

    public UiResource(
            SecurityIdentity identity,
            StaticTokens tokens,
            UiFeed feed,
            WarmpoolConfig config,
            StreamLimiter streams,
            QuietConnections quiet,
            UiSessions sessions) {
        this.sessions = sessions;
        this.streams = streams;
        this.quiet = quiet;
        this.identity = identity;
        this.tokens = tokens;
        this.feed = feed;
        this.authEnabled = config.auth().enabled();
    }

    @GET
    @Produces(MediaType.TEXT_HTML)
    @Blocking // reads the caller (lazy authentication), which may block
    public Uni<Response> home(@QueryParam("token") String token, @Context UriInfo uri) {
        return page("/ui", token, uri);
    }

    @GET
    @Path("/jobs/{id}")
    @Produces(MediaType.TEXT_HTML)
    @Blocking // reads the caller (lazy authentication), which may block
    public Uni<Response> job(@PathParam("id") String id, @QueryParam("token") String token, @Context UriInfo uri) {
        return pageOf("/ui/jobs/", id, token, uri);
    }

    @GET
    @Path("/sweeps")
    @Produces(MediaType.TEXT_HTML)
    @Blocking // reads the caller (lazy authentication), which may block
    public Uni<Response> sweeps(@QueryParam("token") String token, @Context UriInfo uri) {
        return page("/ui/sweeps", token, uri);
    }

    @GET
    @Path("/sweeps/{id}")
    @Produces(MediaType.TEXT_HTML)
    @Blocking // reads the caller (lazy authentication), which may block
    public Uni<Response> sweep(@PathParam("id") String id, @QueryParam("token") String token, @Context UriInfo uri) {
        return pageOf("/ui/sweeps/", id, token, uri);
    }

    /** The page of one job or sweep ({@code base} + its id), or 404 for an id no job or sweep can have. */
    private Uni<Response> pageOf(String base, String id, String token, UriInfo uri) {
        return ID.matcher(id).matches()
                ? page(base + id, token, uri)
                : Uni.createFrom().item(notFound());
    }

    /** The login form's post: a valid token sets the cookie and goes on to {@code next}. */
    @POST
    @Path("/login")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Produces(MediaType.TEXT_HTML)
    @Blocking // reads the caller (lazy authentication), which may block
    public Uni<Response> login(@FormParam("token") String token, @FormParam("next") String next, @Context UriInfo uri) {
        return page(safeNext(next), token == null ? "" : token, uri);
    }

    @POST
    @Path("/logout")
    @Produces(MediaType.TEXT_HTML)
    public Uni<Response> logout(@CookieParam(UiSession.COOKIE) String session, @Context UriInfo uri) {
        return sessions.close(session)
                .onFailure()
                .recoverWithNull()
                .map(x -> seeOther("/ui").cookie(cookie("", uri, 0)).build());
    }

    /**
     * A redirect to one of this server's own paths, relative: never built from the request's Host
     * (which the client chose), so it cannot send a browser elsewhere.
     */
    static Response.ResponseBuilder seeOther(String path) {
        return Response.status(Response.Status.SEE_OTHER).header(HttpHeaders.LOCATION, path);
    }

    /**
     * The overview's live feed (Server-Sent Events): {@code state}, the pools as {@code GET /pools}
     * shows them and the recent jobs as {@code GET /jobs} does, when they changed ({@link UiFeed},
     * one read for all open pages); {@code problem} when a read failed (the feed goes on).
     */
    @GET
    @Path("/events")
    @RolesAllowed({Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN})
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public Multi<OutboundSseEvent> events(@Context Sse sse, @Context RoutingContext rc) {
        Caller caller = new Caller(identity.getPrincipal().getName(), identity.getRoles());
        Multi<OutboundSseEvent> stream = streams.held(
                caller,
                () -> feed.follow()
                        .map(i -> sse.newEventBuilder()
                                .name(i.problem() ? "problem" : "state")
                                .data(i.text())
                                .build()));
        quiet.allowQuiet(rc);
        return stream;
    }

    /**
     * The page, its login form, or with a valid {@code token} a new session (its value in the
     * cookie, never the token) and a redirect to the page without the token in its address. With
     * authentication off every caller is the local admin: no session, no cookie.
     */
    private Uni<Response> page(String path, String token, UriInfo uri) {
        if (token != null) {
            if (!authEnabled) {
                return Uni.createFrom().item(seeOther(path).build());
            }
            if (tokens.match(token).isPresent()) {
                return sessions.open(token)
                        .map(session ->
                                seeOther(path).cookie(cookie(session, uri, -1)).build());
            }
            return Uni.createFrom()
                    .item(
                            form(
                                    path,
                                    "That token is not valid here: check it (the run command writes one to .warmpool/token) and try again."));
        }
        if (identity.isAnonymous() || identity.hasRole(Roles.DRIVER)) {
            return Uni.createFrom()
                    .item(form(path, "")); // a sweep driver's token reads its sweep only, not the dashboard
        }
        return Uni.createFrom().item(app(path));
    }

    private Response app(String path) {
        String role = identity.hasRole(Roles.ADMIN)
                ? Roles.ADMIN
                : identity.hasRole(Roles.SUBMITTER) ? Roles.SUBMITTER : Roles.VIEWER;
        String body = Templates.app(role, identity.getPrincipal().getName(), authEnabled ? "on" : "off", CHART_JS)
                .render();
        return Response.ok(body, MediaType.TEXT_HTML_TYPE.withCharset("UTF-8"))
                .header("Cache-Control", "no-store")
                .header("Content-Security-Policy", CSP)
                .build();
    }

    /** The pages run only their own script and the vendored chart library, and talk only to this server. */
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

    private Response form(String next, String error) {
        String body = Templates.login(next, error, error.isEmpty() ? "hidden" : "error")
                .render();
        // 401: the page holds no data until the caller shows a token
        return Response.status(401)
                .entity(body)
                .type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8"))
                .header("Cache-Control", "no-store")
                .header("Content-Security-Policy", CSP)
                .build();
    }

    private static Response notFound() {
        return Response.status(404)
                .entity("<!doctype html><title>warmpool</title><p>No such page. <a href=\"/ui\">The dashboard</a>")
                .type(MediaType.TEXT_HTML_TYPE)
                .build();
    }

    /** Only one of the dashboard's own pages: never a redirect elsewhere. */
    static String safeNext(String next) {
        if (next == null || !next.startsWith("/ui") || next.contains("//") || next.contains("\\")) {
            return "/ui";
        }
        String path = next.split("[?#]", 2)[0];
        return path.equals("/ui")
                        || path.equals("/ui/sweeps")
                        || path.matches("/ui/(jobs|sweeps)/[A-Za-z0-9._:-]{1,200}")
                ? path
                : "/ui";
    }

    /**
     * The session cookie; Secure when the request came over HTTPS, which behind a TLS proxy is
     * its X-Forwarded-Proto (or Forwarded) header once Quarkus is told to trust proxy headers
     * ({@code quarkus.http.proxy.proxy-address-forwarding}).
     */
    private static NewCookie cookie(String value, UriInfo uri, int maxAge) {
        boolean https = "https".equalsIgnoreCase(uri.getRequestUri().getScheme());
        return new NewCookie.Builder(UiSession.COOKIE)
                .value(value)
                .path("/")
                .httpOnly(true)
                .secure(https)
                .sameSite(NewCookie.SameSite.STRICT)
                .maxAge(maxAge)
                .build();
    }
}
