package dev.warmpool.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Tokens;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Behind a TLS proxy whose headers Quarkus is told to trust, the session cookie is Secure when the client spoke HTTPS. */
@QuarkusTest
@TestProfile(UiBehindProxyTests.Proxied.class)
class UiBehindProxyTests {
    public static class Proxied implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.http.proxy.proxy-address-forwarding",
                    "true",
                    "quarkus.http.proxy.allow-x-forwarded",
                    "true");
        }
    }

    static final HttpClient HTTP =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @TestHTTPResource("/")
    URL base;

    String login(String... headers) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + "/ui?token=" + Tokens.VIEWER));
        if (headers.length > 0) {
            b.headers(headers);
        }
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(303, r.statusCode());
        assertEquals("/ui", r.headers().firstValue("Location").orElseThrow(), "relative, whatever the forwarded host");
        return r.headers().firstValue("Set-Cookie").orElseThrow();
    }

    @Test
    void theSessionCookieIsSecureWhenTheProxySaysTheClientSpokeHttps() throws Exception {
        assertTrue(login("X-Forwarded-Proto", "https", "X-Forwarded-Host", "evil.example")
                .contains("Secure"));
        assertFalse(login().contains("Secure"), "plain HTTP end to end");
    }
}
