package dev.warmpool.auth;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import dev.warmpool.config.ConfigCheck;
import dev.warmpool.testing.Ci;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** warmpool.auth.enabled=false: every caller is the local admin (and the manager listens on loopback only). */
@QuarkusTest
@TestProfile(AuthOffTests.Off.class)
class AuthOffTests {
    public static class Off implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("warmpool.auth.enabled", "false");
        }
    }

    @Test
    void takesCallsWithoutATokenAsTheLocalAdmin() {
        given().noFilters()
                .contentType("application/json")
                .body("{\"command\": [\"true\"], \"minIdle\": 0}")
                .put("/pools/auth-off")
                .then()
                .statusCode(201);
        given().noFilters()
                .contentType("application/json")
                .body("{\"type\": \"auth-off\"}")
                .post("/jobs")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("local"));
        given().noFilters().get("/q/metrics").then().statusCode(200);
    }

    @io.quarkus.test.common.http.TestHTTPResource("/")
    URL base;

    /** A raw request with the Host given (HttpClient will not send a Host of our choosing): status line and body. */
    String[] withHost(String host) throws Exception {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.getOutputStream()
                    .write(("GET /pools HTTP/1.1\r\n" + (host == null ? "" : "Host: " + host + "\r\n")
                                    + "Connection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout(10_000);
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new String[] {all.substring(0, all.indexOf("\r\n")), all.substring(all.indexOf("\r\n\r\n") + 4)};
        }
    }

    @Test
    void answersOnlyRequestsAddressedToALoopbackName() throws Exception {
        int port = base.getPort();
        for (String host :
                List.of("127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "127.0.0.1", "[::1]:" + port)) {
            Assertions.assertEquals("HTTP/1.1 200 OK", withHost(host)[0], host);
        }
        for (String host : List.of(
                "evil.example",
                "evil.example:" + port,
                "127.0.0.1.evil.example",
                "localhost.evil:80",
                "10.0.0.7:" + port)) {
            String[] r = withHost(host);
            Assertions.assertEquals("HTTP/1.1 421 Misdirected Request", r[0], host);
            Assertions.assertTrue(r[1].contains("host-not-loopback") && r[1].contains("localhost"), r[1]);
        }
        given().noFilters()
                .contentType("application/json")
                .body("{\"command\": [\"true\"]}")
                .header("Host", "evil.example:" + port)
                .put("/pools/rebound")
                .then()
                .statusCode(421)
                .contentType("application/problem+json");
        given().noFilters().get("/pools/rebound").then().statusCode(404);
    }

    @Test
    void aTokenInTheAddressSetsNoCookieAndRedirectsRelatively() {
        Response r = given().noFilters().redirects().follow(false).get("/ui?token=anything");
        r.then().statusCode(303).header("Location", equalTo("/ui"));
        Assertions.assertNull(r.getHeader("Set-Cookie"), "no cookie, and never the token in one");
    }

    @Test
    void refusesToListenBeyondLoopbackWithoutAuthentication() {
        Assertions.assertTrue(ConfigCheck.loopback("127.0.0.1"));
        Assertions.assertTrue(ConfigCheck.loopback("localhost"));
        Assertions.assertFalse(ConfigCheck.loopback("0.0.0.0"));
    }

    /** curl run as {@code uid}: the HTTP status and body of GET /pools. */
    String[] curlAs(int uid) throws Exception {
        Process p = new ProcessBuilder(
                        "setpriv",
                        "--reuid=" + uid,
                        "--regid=" + uid,
                        "--clear-groups",
                        "curl",
                        "-sS",
                        "-w",
                        "\n%{http_code}",
                        "http://127.0.0.1:" + base.getPort() + "/pools")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assertions.assertTrue(p.waitFor(30, TimeUnit.SECONDS), out);
        int nl = out.lastIndexOf('\n');
        return new String[] {out.substring(nl + 1).trim(), out.substring(0, Math.max(nl, 0))};
    }

    @Test
    void refusesAConnectionOfAnotherUserAndTakesOneOfItsOwn() throws Exception {
        boolean able = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0
                && Files.isExecutable(Path.of("/usr/bin/setpriv"))
                && Files.isExecutable(Path.of("/usr/bin/curl"));
        Ci.require(
                able,
                "a client of another user needs root, setpriv and curl",
                "CI (.ci/run) runs as root and installs curl");
        // a job of a root manager runs as a user of its own, as this client does
        String[] other = curlAs(65534);
        Assertions.assertEquals("403", other[0], other[1]);
        Assertions.assertTrue(
                other[1].contains("not-local-user")
                        && other[1].contains("trusts only the local user")
                        && other[1].contains("uid 65534"),
                other[1]);
        String[] own = curlAs(0);
        Assertions.assertEquals("200", own[0], own[1]);
    }
}
