package dev.warmpool.scenario;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the sweep scenarios share: the Python trial (src/test/resources/sweeps/trial.py, through the
 * shipped clients/python/warmpool_worker.py), its pool, submitting and awaiting a sweep.
 */
abstract class SweepScenarioBase {
    static {
        Tokens.asAdminByDefault();
    }

    static final String TRIAL =
            Path.of("src/test/resources/sweeps/trial.py").toAbsolutePath().toString();
    static final String CLIENT = Path.of("clients/python").toAbsolutePath().toString();

    static Map<String, Object> trialPool(int minIdle, int maxSize, Map<String, Object> extra) {
        Map<String, Object> pool = new HashMap<>(Map.of(
                "command",
                List.of("python3", TRIAL),
                "minIdle",
                minIdle,
                "maxSize",
                maxSize,
                "idleTimeoutSeconds",
                300,
                "env",
                Map.of("PYTHONPATH", CLIENT)));
        pool.putAll(extra);
        return pool;
    }

    static String submitSweep(Map<String, Object> body) {
        return given().contentType(ContentType.JSON)
                .body(body)
                .post("/sweeps")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
    }

    static JsonPath sweep(String id) {
        return given().get("/sweeps/" + id).then().statusCode(200).extract().jsonPath();
    }

    static JsonPath awaitSweepEnd(String id) {
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> !"RUNNING".equals(sweep(id).getString("state")));
        return sweep(id);
    }

    /** The most trials that ran at one instant, from their recorded start and end times. */
    static int mostAtOnce(JsonPath s) {
        List<long[]> spans = new ArrayList<>();
        for (Map<String, Object> t : s.<Map<String, Object>>getList("trials")) {
            if (t.get("startedAt") != null) {
                spans.add(new long[] {
                    Instant.parse((String) t.get("startedAt")).toEpochMilli(),
                    Instant.parse((String) t.get("finishedAt")).toEpochMilli()
                });
            }
        }
        int most = 0;
        for (long[] a : spans) {
            int at = 0;
            for (long[] b : spans) {
                if (b[0] <= a[0] && a[0] < b[1]) {
                    at++;
                }
            }
            most = Math.max(most, at);
        }
        return most;
    }

    /** The data of every event but log lines of an ended event stream, parsed as strict JSON (no NaN tokens). */
    static List<JsonNode> eventData(String path) {
        String body = given().get(path).then().statusCode(200).extract().asString();
        List<JsonNode> out = new ArrayList<>();
        String event = "";
        for (String line : body.split("\n")) {
            if (line.startsWith("event:")) {
                event = line.substring(6).trim();
            } else if (line.startsWith("data:") && !"log".equals(event)) {
                try {
                    out.add(new ObjectMapper().readTree(line.substring(5).trim()));
                } catch (IOException e) {
                    throw new AssertionError("not strict JSON in " + path + ": " + line, e);
                }
            }
        }
        return out;
    }
}
