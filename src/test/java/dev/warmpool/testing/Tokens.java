package dev.warmpool.testing;

import io.restassured.RestAssured;
import io.restassured.filter.Filter;

/**
 * The test run's API tokens, as src/test/resources/auth/tokens lists them (by hash). Every
 * RestAssured call carries the admin's unless it names a token itself or opts out with
 * {@code given().noFilters()}; an anonymous call is one without any.
 */
public final class Tokens {
    public static final String ADMIN = "wp-test-admin";
    /** Submitters. */
    public static final String ALICE = "wp-test-alice";

    public static final String BOB = "wp-test-bob";
    /** A submitter in the group team-a. */
    public static final String CAROL = "wp-test-carol";

    public static final String VIEWER = "wp-test-vera";

    private static final Filter AS_ADMIN = (req, res, ctx) -> {
        if (!req.getHeaders().hasHeaderWithName("Authorization")) {
            req.header("Authorization", bearer(ADMIN));
        }
        return ctx.next(req, res);
    };

    private Tokens() {}

    public static String bearer(String token) {
        return "Bearer " + token;
    }

    /** Makes every RestAssured call of this JVM the admin's by default; idempotent. */
    public static synchronized void asAdminByDefault() {
        if (!RestAssured.filters().contains(AS_ADMIN)) {
            RestAssured.filters(AS_ADMIN);
        }
    }
}
