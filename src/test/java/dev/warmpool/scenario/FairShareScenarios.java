package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.job;
import static dev.warmpool.testing.Api.millis;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Fair share between the tenants of one pool (docs/fair-share.md), end to end on real agents and
 * a real redis-server over HTTP, alice and bob submitting with their own tokens: run in-process
 * ({@link FairShareTests}) and against Redis Cluster (ClusterFairShareIT).
 */
public abstract class FairShareScenarios {
    static {
        Tokens.asAdminByDefault();
    }

    /** Four warm processors running {@code sh -c 'sleep <seconds>'}, plus {@code extra} settings. */
    static Map<String, Object> fourProcessors(double seconds, Map<String, Object> extra) {
        Map<String, Object> spec = new HashMap<>(Map.of(
                "command",
                List.of("sh", "-c", "sleep " + seconds),
                "minIdle",
                4,
                "maxSize",
                4,
                "idleTimeoutSeconds",
                300));
        spec.putAll(extra);
        return spec;
    }

    /** {@code n} jobs of {@code type} in one batch, as {@code token}'s; their ids in submission order. */
    static List<String> batch(String token, String type, int n) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Map.of("type", type));
        }
        return given().header("Authorization", Tokens.bearer(token))
                .contentType(ContentType.JSON)
                .body(Map.of("jobs", jobs))
                .post("/jobs/batch")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getList("jobs.id");
    }

    /** The pool's row for tenant {@code name} in GET /pools/{type} (empty when it has none). */
    static Map<String, Object> tenant(String type, String name) {
        List<Map<String, Object>> all = pool(type).getList("tenants");
        return all == null
                ? Map.of()
                : all.stream()
                        .filter(t -> name.equals(t.get("tenant")))
                        .findFirst()
                        .orElse(Map.of());
    }

    static double num(Map<String, Object> row, String field) {
        return row.get(field) instanceof Number n ? n.doubleValue() : 0;
    }

    @Test
    public void aNewcomersJobsOvertakeAThousandJobFlood() {
        putPool("flood", fourProcessors(0.2, Map.of()));
        awaitIdle("flood", 4);
        List<String> alice = batch(Tokens.ALICE, "flood", 1000);
        await().atMost(Duration.ofSeconds(30)).until(() -> num(tenant("flood", "alice"), "running") == 4);
        List<String> bob = batch(Tokens.BOB, "flood", 10);
        List<JsonPath> bobs = bob.stream().map(Api::awaitEnd).toList();
        JsonPath aliceHundredth = awaitEnd(alice.get(99));

        // one job's duration, as alice's first jobs took it on these processors
        double duration = alice.subList(0, 8).stream()
                .map(Api::job)
                .mapToLong(j -> millis(j, "finishedAt") - millis(j, "startedAt"))
                .sorted()
                .skip(4)
                .findFirst()
                .orElseThrow();
        JsonPath first = bobs.stream()
                .min(Comparator.comparing(j -> millis(j, "startedAt")))
                .orElseThrow();
        long wait = millis(first, "startedAt") - millis(first, "submittedAt");
        assertTrue(wait <= duration, "bob's first job waited " + wait + " ms, more than one job (" + duration + " ms)");
        long bobsLast =
                bobs.stream().mapToLong(j -> millis(j, "finishedAt")).max().orElseThrow();
        assertTrue(
                bobsLast < millis(aliceHundredth, "finishedAt"),
                "bob's 10 jobs ended before alice's 100th: " + bobsLast + " vs "
                        + millis(aliceHundredth, "finishedAt"));
        assertEquals("bob", first.getString("tenant"));
        given().delete("/pools/flood").then().statusCode(202); // alice's hundreds left are cancelled
    }

    @Test
    public void aTenantCappedAtOneNeverHoldsTwoProcessorsWhileOthersUseTheRest() {
        putPool("capped", fourProcessors(0.3, Map.of("maxRunning", Map.of("bob", 1))));
        awaitIdle("capped", 4);
        List<String> bob = batch(Tokens.BOB, "capped", 5);
        List<String> alice = batch(Tokens.ALICE, "capped", 6);
        AtomicInteger most = new AtomicInteger();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            most.accumulateAndGet((int) num(tenant("capped", "bob"), "running"), Math::max);
            return bob.stream().allMatch(id -> "SUCCEEDED".equals(job(id).getString("state")));
        });
        assertEquals(1, most.get(), "bob ran one job at a time, as his maxRunning says");
        List<JsonPath> runs = bob.stream()
                .map(Api::job)
                .sorted(Comparator.comparing(j -> millis(j, "startedAt")))
                .toList();
        for (int i = 1; i < runs.size(); i++) {
            assertTrue(
                    millis(runs.get(i), "startedAt") >= millis(runs.get(i - 1), "finishedAt"),
                    "bob's jobs " + (i - 1) + " and " + i + " overlapped");
        }
        // the most of alice's jobs running at once (a job of hers may start on a processor her own
        // earlier job freed, before bob's first ends: counting starts before that end miscounts)
        List<JsonPath> aliceRuns = alice.stream().map(Api::awaitEnd).toList();
        long aliceParallel = aliceRuns.stream()
                .mapToLong(a -> aliceRuns.stream()
                        .filter(b -> millis(b, "startedAt") <= millis(a, "startedAt")
                                && millis(b, "finishedAt") > millis(a, "startedAt"))
                        .count())
                .max()
                .orElse(0);
        assertEquals(3, aliceParallel, "alice used the three processors bob's cap left free");
        assertEquals(1.0, num(tenant("capped", "bob"), "maxRunning"));
    }

    @Test
    public void oneTenantAloneUsesAllFourProcessors() {
        putPool("alone", fourProcessors(1, Map.of()));
        awaitIdle("alone", 4);
        List<String> alice = batch(Tokens.ALICE, "alone", 8);
        await().atMost(Duration.ofSeconds(30)).until(() -> pool("alone").getInt("status.busy") == 4);
        assertEquals(4.0, num(tenant("alone", "alice"), "running"));
        List<JsonPath> ends = alice.stream().map(Api::awaitEnd).toList();
        assertEquals(
                4, ends.stream().map(j -> j.getString("processor")).distinct().count());
    }

    @Test
    public void aSweepAndItsTrialsCountForItsSubmitterAndAGroupForItsMembers() {
        putPool(
                "fair-sweep",
                fourProcessors(
                        0.2, Map.of("groups", Map.of("team-a", List.of("carol")), "shares", Map.of("team-a", 3))));
        awaitIdle("fair-sweep", 4);
        String sweep = given().header("Authorization", Tokens.bearer(Tokens.ALICE))
                .contentType(ContentType.JSON)
                .body(Map.of(
                        "type",
                        "fair-sweep",
                        "space",
                        Map.of("x", Map.of("grid", List.of(1, 2, 3, 4, 5, 6))),
                        "parallelism",
                        2))
                .post("/sweeps")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "SUCCEEDED"
                        .equals(given().get("/sweeps/" + sweep).jsonPath().getString("state")));
        assertEquals("alice", given().get("/sweeps/" + sweep).jsonPath().getString("tenant"));
        List<String> tenants = given().get("/jobs?sweep=" + sweep).jsonPath().getList("tenant");
        assertEquals(List.of("alice"), tenants.stream().distinct().toList());
        Map<String, Object> a = tenant("fair-sweep", "alice");
        assertEquals(0.0, num(a, "running"));
        assertTrue(num(a, "usageSeconds") > 6 * 0.2 * 0.9, "six trials' processor time: " + a);
        double swept = ((Number) ((Map<?, ?>) a.get("sweeps")).get("busySeconds")).doubleValue();
        assertEquals(
                given().get("/sweeps/" + sweep).jsonPath().getDouble("cost.busySeconds"),
                swept,
                0.0015,
                "her one sweep's cost is her sweeps' cost here: " + a);
        String scraped =
                given().get("/q/metrics").then().statusCode(200).extract().asString();
        String series = scraped.lines()
                .filter(l -> l.startsWith("warmpool_tenant_sweep_busy_seconds_total{")
                        && l.contains("pool=\"fair-sweep\"")
                        && l.contains("tenant=\"alice\""))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no sweep cost series for alice in fair-sweep"));
        assertEquals(swept, Double.parseDouble(series.substring(series.lastIndexOf(' ') + 1)), 0.0015, series);

        String carols = batch(Tokens.CAROL, "fair-sweep", 1).get(0);
        assertEquals("team-a", awaitEnd(carols).getString("tenant"));
        assertEquals(3.0, num(tenant("fair-sweep", "team-a"), "weight"));
        Map<String, Object> row =
                pool("fair-sweep").getList("tenants", Map.class).get(0);
        assertEquals(
                Set.of("tenant", "weight", "running", "queued", "usageSeconds", "share", "sweeps"),
                row.keySet(),
                "the tenant row's names (maxRunning only when set), as the Python client reads them");
    }

    @Test
    public void badFairShareSettingsAreRefusedNamingTheFieldAndWhy() {
        Map<String, Map<String, Object>> bad = Map.of(
                "shares",
                Map.of("shares", Map.of("alice", 0)),
                "maxRunning",
                Map.of("maxRunning", Map.of("bob", 0)),
                "usageHalfLifeSeconds",
                Map.of("usageHalfLifeSeconds", -1),
                "groups.team-b",
                Map.of("groups", Map.of("team-a", List.of("carol"), "team-b", List.of("carol"))),
                "shares.carol",
                Map.of("groups", Map.of("team-a", List.of("carol")), "shares", Map.of("carol", 2)));
        bad.forEach((field, settings) -> {
            JsonPath p = given().contentType(ContentType.JSON)
                    .body(fourProcessors(0.1, settings))
                    .put("/pools/fair-bad")
                    .then()
                    .statusCode(400)
                    .contentType("application/problem+json")
                    .extract()
                    .jsonPath();
            assertTrue(p.getString("field").startsWith(field), field + ": " + p.prettify());
            assertTrue(p.getString("detail").length() > 20, p.prettify());
        });
        given().get("/pools/fair-bad").then().statusCode(404);
    }
}
