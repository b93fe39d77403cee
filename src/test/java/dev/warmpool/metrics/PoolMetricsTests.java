package dev.warmpool.metrics;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The per-pool Prometheus series agree with what the API says after a known set of jobs, and
 * every series the Grafana dashboard (deploy/grafana/warmpool.json) queries exists.
 */
@QuarkusTest
class PoolMetricsTests {
    static String metrics() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    static double value(String metrics, String series) {
        Matcher m =
                Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    @Test
    void theSeriesMatchTheApiAfterAKnownSetOfJobs() {
        putPool("metered", Map.of("command", List.of("sh", "-c", "exit $1", "job"), "minIdle", 1, "maxSize", 2));
        awaitIdle("metered", 1);
        for (String code : List.of("0", "0", "0", "3")) {
            awaitEnd(submit(Map.of("type", "metered", "args", List.of(code))));
        }
        String gated = submit(
                Map.of("type", "metered", "args", List.of("0"))); // a fifth, cancelled if still queued or running
        given().delete("/jobs/" + gated);
        String ended = awaitEnd(gated).getString("state");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> value(metrics(), "warmpool_jobs_submitted_total{pool=\"metered\"}") == 5.0
                        && value(metrics(), "warmpool_jobs_finished_total{pool=\"metered\",state=\"FAILED\"}") == 1.0
                        && value(metrics(), "warmpool_jobs_finished_total{pool=\"metered\",state=\"SUCCEEDED\"}")
                                        + value(
                                                metrics(),
                                                "warmpool_jobs_finished_total{pool=\"metered\",state=\"CANCELLED\"}")
                                == 4.0);
        String m = metrics();
        assertEquals(
                ended.equals("CANCELLED") ? 1.0 : 0.0,
                value(m, "warmpool_jobs_finished_total{pool=\"metered\",state=\"CANCELLED\"}"));
        // each scrape reads Redis (scrapes within a second share a read): the API and the series agree once quiet
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var api = pool("metered");
            String now = metrics();
            return api.getInt("status.busy") == 0
                    && value(now, "warmpool_pool_processors{pool=\"metered\",state=\"busy\"}") == 0.0
                    && value(now, "warmpool_pool_processors{pool=\"metered\",state=\"idle\"}")
                            == api.getInt("status.idle")
                    && value(now, "warmpool_pool_queued_jobs{pool=\"metered\"}") == api.getInt("status.queued");
        });
        var api = pool("metered");
        assertEquals(api.getInt("warmth.warmStarts") + api.getInt("warmth.coldStarts"), 5);
        assertEquals(
                (double) api.getInt("warmth.warmStarts"),
                value(metrics(), "warmpool_warm_starts_total{pool=\"metered\"}"));
        m = metrics();
        // every job that started waited once and (all five ended) ran once, each in one bucket
        long started = given()
                .queryParam("type", "metered")
                .get("/jobs")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("startedAt")
                .stream()
                .filter(Objects::nonNull)
                .count();
        assertTrue(started >= 4, "four jobs ran to their end");
        assertEquals((double) started, value(m, "warmpool_job_queue_wait_seconds_count{pool=\"metered\"}"), m);
        assertEquals((double) started, value(m, "warmpool_job_run_seconds_count{pool=\"metered\"}"));
        assertEquals((double) started, value(m, "warmpool_job_run_seconds_bucket{pool=\"metered\",le=\"+Inf\"}"));
        assertTrue(value(m, "warmpool_job_run_seconds_bucket{pool=\"metered\",le=\"0.005\"}") <= started);
        assertTrue(value(m, "warmpool_job_run_seconds_sum{pool=\"metered\"}") > 0);
        assertTrue(value(m, "warmpool_dispatch_seconds_count") >= 5, "every submit script is timed");
        assertTrue(value(m, "warmpool_reconcile_pass_seconds_count") >= 1, m);
    }

    @Test
    void everySeriesTheGrafanaDashboardQueriesExists() throws Exception {
        putPool("dashboarded", Map.of("command", List.of("true"), "minIdle", 1, "maxSize", 1, "warmth", "learned"));
        awaitIdle("dashboarded", 1);
        awaitEnd(submit(Map.of("type", "dashboarded")));
        var dashboard = new ObjectMapper().readTree(Files.readString(Path.of("deploy", "grafana", "warmpool.json")));
        TreeSet<String> queried = new TreeSet<>();
        dashboard
                .path("panels")
                .forEach(p -> p.path("targets").forEach(t -> {
                    String expr = t.path("expr").asText();
                    // each replica reports the same Redis-wide per-pool figures: summed over instances they would count
                    // twice
                    assertTrue(
                            !expr.contains("{pool=") || expr.contains("max by (pool"),
                            "per-pool series are taken with max across replicas: " + expr);
                    Matcher m = Pattern.compile("warmpool_[a-z_]+").matcher(expr);
                    while (m.find()) {
                        queried.add(m.group());
                    }
                }));
        assertTrue(queried.size() >= 10, queried.toString());
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            String m = metrics();
            return queried.stream()
                    .filter(q -> !q.equals("warmpool_warmth_window_seconds"))
                    .allMatch(q -> m.contains("\n" + q));
        });
    }
}
