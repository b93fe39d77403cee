package dev.warmpool.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's boundary, as plain HTTP (the browser tests are DashboardIT and DashboardPagesIT): no or a wrong
 * token gives the login form and no data; a token sets an HttpOnly, SameSite=Strict cookie and
 * leaves the address; the cookie reads, but changes nothing without the page's header; the login
 * form never sends the browser off the dashboard; a browser at / goes to /ui.
 */
@QuarkusTest
class UiTests {
    static final HttpClient HTTP =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @TestHTTPResource("/")
    URL base;

    HttpResponse<String> call(String method, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create(base.toString().replaceAll("/$", "") + path))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A session cookie as a browser gets it: log in with the token, keep what Set-Cookie gives. */
    String session(String token) throws Exception {
        HttpResponse<String> r = call("GET", "/ui?token=" + token, null);
        assertEquals(303, r.statusCode(), "the login with " + token);
        return r.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
    }

    @Test
    void withoutAValidTokenThePagesAreALoginFormAndHoldNoData() throws Exception {
        Api.putPool("ui-secret-pool", Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1));
        for (String path :
                List.of("/ui", "/ui/jobs/some-job", "/ui/sweeps/some-sweep", "/ui/sweeps", "/ui?token=wrong")) {
            HttpResponse<String> r = call("GET", path, null);
            assertEquals(401, r.statusCode(), path);
            assertTrue(r.body().contains("id=\"login\""), path + " shows the login form");
            assertFalse(
                    r.body().contains("ui-secret-pool") || r.body().contains("app.js"),
                    path + " holds no data and no app");
            assertTrue(r.headers().allValues("Set-Cookie").isEmpty(), path);
        }
        assertTrue(call("GET", "/ui?token=wrong", null).body().contains("not valid"));
        HttpResponse<String> stale = call("GET", "/ui", null, "Cookie", "warmpool_token=no-longer-valid");
        assertEquals(401, stale.statusCode(), "a cookie whose token is gone: the login form again");
        assertEquals(
                401,
                call("GET", "/pools", null, "Cookie", "warmpool_token=no-longer-valid")
                        .statusCode());
        // a cookie that holds a token itself (as before sessions) is no session
        assertEquals(
                401,
                call("GET", "/pools", null, "Cookie", "warmpool_token=" + Tokens.ADMIN)
                        .statusCode());
        assertEquals(401, call("GET", "/ui/events", null).statusCode());
        assertEquals(404, call("GET", "/ui/jobs/" + "x".repeat(300), null).statusCode());
    }

    @Test
    void aTokenSetsAStrictHttpOnlyCookieAndLeavesTheAddress() throws Exception {
        HttpResponse<String> r = call("GET", "/ui/jobs/abc?token=" + Tokens.VIEWER, null);
        assertEquals(303, r.statusCode());
        assertEquals(
                "/ui/jobs/abc",
                r.headers().firstValue("Location").orElseThrow(),
                "relative, never from the Host header");
        String cookie = r.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(
                cookie.matches("warmpool_token=[A-Za-z0-9_-]{43};.*"),
                "a random session value, not the token: " + cookie);
        assertFalse(cookie.contains(Tokens.VIEWER), cookie);
        assertTrue(
                cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"), cookie);
        assertFalse(cookie.contains("Secure"), "plain HTTP, and proxy headers are not trusted here: " + cookie);
        assertFalse(
                call("GET", "/ui?token=" + Tokens.VIEWER, null, "X-Forwarded-Proto", "https")
                        .headers()
                        .firstValue("Set-Cookie")
                        .orElseThrow()
                        .contains("Secure"),
                "X-Forwarded-Proto counts only when proxy headers are trusted");

        HttpResponse<String> page = call("GET", "/ui", null, "Cookie", cookie.split(";", 2)[0]);
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("data-role=\"viewer\"") && page.body().contains("/ui/app.js"), page.body());
        assertTrue(
                page.headers().firstValue("Content-Security-Policy").orElse("").contains("script-src 'self'"));
        assertTrue(
                call("GET", "/ui", null, "Cookie", session(Tokens.ADMIN)).body().contains("data-role=\"admin\""));
        // the page's assets and its chart library come from the jar
        assertEquals(200, call("GET", "/ui/app.js", null).statusCode());
        assertEquals(200, call("GET", UiResource.CHART_JS, null).statusCode());
    }

    @Test
    void theSweepsPageIsServedToASessionAndLinkedFromEveryPage() throws Exception {
        HttpResponse<String> page = call("GET", "/ui/sweeps", null, "Cookie", session(Tokens.VIEWER));
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("/ui/app.js") && page.body().contains("href=\"/ui/sweeps\""), page.body());
        assertTrue(call("GET", "/ui", null, "Cookie", session(Tokens.VIEWER))
                .body()
                .contains("href=\"/ui/sweeps\""));
        assertTrue(call("GET", "/ui/app.js", null).body().contains("function sweepsPage()"));
        HttpResponse<String> login = call(
                "POST",
                "/ui/login",
                "token=" + Tokens.VIEWER + "&next=%2Fui%2Fsweeps",
                "Content-Type",
                "application/x-www-form-urlencoded");
        assertEquals(
                "/ui/sweeps",
                URI.create(login.headers().firstValue("Location").orElseThrow()).getPath());
    }

    @Test
    void theCookieReadsButChangesNothingWithoutThePagesHeader() throws Exception {
        Api.putPool("ui-csrf", Map.of("command", List.of("sleep", "30"), "minIdle", 0, "maxSize", 1));
        assertEquals(
                200,
                call("GET", "/pools/ui-csrf", null, "Cookie", session(Tokens.ADMIN))
                        .statusCode());
        String job = Api.submit(Map.of("type", "ui-csrf"));
        HttpResponse<String> forged = call("DELETE", "/jobs/" + job, null, "Cookie", session(Tokens.ADMIN));
        assertEquals(401, forged.statusCode());
        assertTrue(forged.body().contains("X-Warmpool-UI"), forged.body());
        assertEquals(
                "application/problem+json",
                forged.headers().firstValue("Content-Type").orElse("").split(";")[0]);
        assertFalse(Api.job(job).getString("state").equals("CANCELLED"), "the forged request changed nothing");
        HttpResponse<String> page =
                call("DELETE", "/jobs/" + job, null, "Cookie", session(Tokens.ADMIN), "X-Warmpool-UI", "1");
        assertEquals(200, page.statusCode(), page.body());
        assertEquals("CANCELLED", Api.job(job).getString("state"));
        // a viewer's session is a viewer: refused as a bearer token would be
        assertEquals(
                403,
                call("DELETE", "/pools/ui-csrf", null, "Cookie", session(Tokens.VIEWER), "X-Warmpool-UI", "1")
                        .statusCode());
    }

    @Test
    void theLoginFormGoesOnlyToTheDashboardsOwnPages() throws Exception {
        String form = "application/x-www-form-urlencoded";
        for (String next : List.of("//evil.example/ui", "https://evil.example/", "/ui/../pools", "/uix", "")) {
            HttpResponse<String> r = call(
                    "POST",
                    "/ui/login",
                    "token=" + Tokens.VIEWER + "&next=" + URLEncoder.encode(next, StandardCharsets.UTF_8),
                    "Content-Type",
                    form);
            assertEquals(303, r.statusCode(), next);
            assertEquals(
                    "/ui",
                    URI.create(r.headers().firstValue("Location").orElseThrow()).getPath(),
                    next);
        }
        HttpResponse<String> ok =
                call("POST", "/ui/login", "token=" + Tokens.VIEWER + "&next=%2Fui%2Fsweeps%2Fs1", "Content-Type", form);
        assertEquals(
                "/ui/sweeps/s1",
                URI.create(ok.headers().firstValue("Location").orElseThrow()).getPath());
        HttpResponse<String> bad = call("POST", "/ui/login", "token=nope&next=%2Fui", "Content-Type", form);
        assertEquals(401, bad.statusCode());
        assertTrue(bad.body().contains("not valid"));
        String mine = session(Tokens.VIEWER);
        assertEquals(200, call("GET", "/ui", null, "Cookie", mine).statusCode());
        HttpResponse<String> out = call("POST", "/ui/logout", null, "Cookie", mine);
        assertEquals(303, out.statusCode());
        assertEquals("/ui", out.headers().firstValue("Location").orElseThrow());
        assertTrue(out.headers().firstValue("Set-Cookie").orElseThrow().contains("Max-Age=0"));
        assertEquals(
                401,
                call("GET", "/ui", null, "Cookie", mine).statusCode(),
                "the session ended on the server, not just in the browser");
    }

    @Test
    void aBrowserAtTheRootGoesToTheDashboardAndCurlGetsTheMap() throws Exception {
        HttpResponse<String> browser = call("GET", "/", null, "Accept", "text/html,application/xhtml+xml,*/*;q=0.8");
        assertEquals(303, browser.statusCode());
        assertEquals("/ui", browser.headers().firstValue("Location").orElseThrow());
        HttpResponse<String> curl = call("GET", "/", null, "Accept", "*/*");
        assertEquals(200, curl.statusCode());
        assertTrue(curl.body().contains("\"dashboard\":\"/ui\""), curl.body());
    }

    @Test
    void theLiveFeedCarriesEnvNamesButNoValuesWhoeverReads() throws Exception {
        Api.putPool(
                "ui-feed-secret",
                Map.of(
                        "command",
                        List.of("true"),
                        "minIdle",
                        0,
                        "maxSize",
                        1,
                        "env",
                        Map.of("HF_TOKEN", "hf-feed-secret"),
                        "jobEnv",
                        List.of("WANDB_API_KEY")));
        String job = Api.submit(Map.of("type", "ui-feed-secret", "env", Map.of("WANDB_API_KEY", "job-feed-secret")));
        for (String reader : List.of(Tokens.VIEWER, Tokens.ADMIN)) {
            HttpRequest req = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + "/ui/events"))
                    .header("Cookie", session(reader))
                    .build();
            HttpResponse<InputStream> r = HTTP.send(req, HttpResponse.BodyHandlers.ofInputStream());
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                String data = Assertions.assertTimeoutPreemptively(
                        Duration.ofSeconds(30),
                        () -> {
                            String line = "";
                            while (!(line.contains("\"id\":\"" + job + "\"") && line.contains("ui-feed-secret"))) {
                                line = in.readLine();
                            }
                            return line;
                        },
                        "the feed shows the pool and the job");
                assertTrue(data.contains("\"HF_TOKEN\":\"***\"") && data.contains("\"WANDB_API_KEY\":\"***\""), data);
                assertFalse(data.contains("hf-feed-secret") || data.contains("job-feed-secret"), data);
            }
        }
    }

    @Test
    void theLiveFeedSendsThePoolsAndRecentJobs() throws Exception {
        Api.putPool("ui-feed", Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1));
        HttpRequest req = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + "/ui/events"))
                .header("Cookie", session(Tokens.VIEWER))
                .build();
        HttpResponse<InputStream> r = HTTP.send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, r.statusCode());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            assertEquals("event:state", in.readLine());
            String data = in.readLine();
            assertTrue(
                    data.startsWith("data:{\"pools\":[")
                            && data.contains("\"type\":\"ui-feed\"")
                            && data.contains("\"jobs\":["),
                    data);
        }
    }
}
