package dev.warmpool.auth;

import static dev.warmpool.testing.Tokens.bearer;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/** OIDC/JWT bearer tokens from an issuer the test runs (its own keys and JWKS), beside the static tokens. */
@QuarkusTest
@TestProfile(JwtTests.WithIssuer.class)
class JwtTests {
    static {
        Tokens.asAdminByDefault();
    }

    public static class WithIssuer implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(JwtIssuer.class));
        }
    }

    static String valid(String subject, String... groups) throws Exception {
        return JwtIssuer.token(subject, List.of(groups), JwtIssuer.ISSUER, JwtIssuer.AUDIENCE, 600, false);
    }

    @Test
    void takesAJwtFromTheIssuerWithItsGroupsAsRoles() throws Exception {
        given().contentType("application/json")
                .body("{\"command\": [\"true\"], \"minIdle\": 0}")
                .put("/pools/jwt")
                .then()
                .statusCode(Matchers.anyOf(equalTo(200), equalTo(201)));
        String notebook = valid("system:serviceaccount:ml:notebook", "submitter");
        given().noFilters()
                .header("Authorization", bearer(notebook))
                .contentType("application/json")
                .body("{\"type\": \"jwt\"}")
                .post("/jobs")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("system:serviceaccount:ml:notebook"));
        given().noFilters()
                .header("Authorization", bearer(valid("reader", "viewer")))
                .get("/pools")
                .then()
                .statusCode(200);
        given().noFilters()
                .header("Authorization", bearer(valid("reader", "viewer")))
                .contentType("application/json")
                .body("{\"type\": \"jwt\"}")
                .post("/jobs")
                .then()
                .statusCode(403);
        given().noFilters()
                .header("Authorization", bearer(Tokens.ALICE))
                .get("/pools")
                .then()
                .statusCode(200);
    }

    @Test
    void refusesAnExpiredJwtOneForAnotherAudienceOrIssuerAndOneSignedByAnotherKey() throws Exception {
        List<String> bad = List.of(
                JwtIssuer.token("late", List.of("admin"), JwtIssuer.ISSUER, JwtIssuer.AUDIENCE, -600, false),
                JwtIssuer.token("aud", List.of("admin"), JwtIssuer.ISSUER, "someone-else", 600, false),
                JwtIssuer.token("iss", List.of("admin"), "https://evil.test", JwtIssuer.AUDIENCE, 600, false),
                JwtIssuer.token("key", List.of("admin"), JwtIssuer.ISSUER, JwtIssuer.AUDIENCE, 600, true),
                "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.");
        for (String token : bad) {
            given().noFilters()
                    .header("Authorization", bearer(token))
                    .get("/pools")
                    .then()
                    .statusCode(401)
                    .contentType("application/problem+json")
                    .body("type", equalTo("https://warmpool.dev/problems/unauthenticated"));
        }
    }
}
