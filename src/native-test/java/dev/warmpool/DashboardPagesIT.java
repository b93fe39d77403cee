package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.testing.Tokens;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;

/**
 * A job's and a sweep's pages in a real browser against the packaged app: a job's page shows a log
 * line while the job still runs and its reports as a chart, and goes on after the last line it had
 * when hidden and shown again; a sweep's page shows each trial and the objective chart.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardPagesIT extends DashboardFixture {
    @BeforeAll
    static void start() throws Exception {
        startAll("dashboard-pages-it");
    }

    @Test
    @Order(4)
    void aJobsPageShowsItsLogLineWhileItRunsAndItsReportsAsAChart() throws Exception {
        // a job's log is its submitter's, its tenant's group's and admins' (warmpool.auth.job-details)
        browser.get(manager.base() + "/ui?token=" + Tokens.ADMIN);
        String script =
                "echo first-line; for s in 1 2 3; do echo \"WARMPOOL_REPORT {\\\"step\\\": $s, \\\"loss\\\": 0.$((9 - s))}\"; done;"
                        + " sleep 20; echo last-line";
        String job = manager.send(
                        "POST",
                        "/jobs",
                        json(Map.of("type", "web", "args", List.of(script), "config", Map.of("lr", 0.01, "layers", 3))))
                .path("id")
                .asText();
        browser.get(manager.base() + "/ui/jobs/" + job);
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> text("#log").contains("first-line"));
        String facts = text("#facts");
        assertTrue(
                facts.contains("config")
                        && facts.matches("(?s).*\\{\"(lr\":0.01,\"layers\":3|layers\":3,\"lr\":0.01)}.*"),
                "the job's page shows its config: " + facts);
        assertEquals("RUNNING", manager.get("/jobs/" + job).path("state").asText(), "the line came while the job ran");
        assertFalse(text("#log").contains("last-line"));
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> ((Number)
                                        ((JavascriptExecutor) browser)
                                                .executeScript(
                                                        "return Chart.getChart('reports-chart').data.datasets.find(d => d.label === 'loss').data.length"))
                                .intValue()
                        == 3);
        assertTrue(browser.findElement(By.id("reports")).isDisplayed());
        assertEquals("RUNNING", text("#job-state"));
        manager.send("DELETE", "/jobs/" + job, null);
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> text("#job-state").equals("CANCELLED"));
    }

    @Test
    @Order(5)
    void aSweepsPageShowsEveryTrialAndTheObjectiveByTrial() throws Exception {
        browser.get(manager.base() + "/ui?token=" + Tokens.VIEWER);
        String trial = "printf '{\"loss\": %s}' \"$(echo \"$WARMPOOL_CONFIG\" | tr -cd 0-9)\" > \"$WARMPOOL_RESULT\"";
        JsonNode sweep = manager.send(
                "POST",
                "/sweeps",
                json(Map.of(
                        "type",
                        "web",
                        "parallelism",
                        2,
                        "args",
                        List.of(trial),
                        "space",
                        Map.of("x", Map.of("grid", List.of(3, 1, 2, 5))),
                        "objective",
                        Map.of("metric", "loss", "goal", "minimize"))));
        String id = sweep.path("id").asText();
        browser.get(manager.base() + "/ui/sweeps/" + id);
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> text("#sweep-state").equals("SUCCEEDED"));
        JsonNode api = manager.get("/sweeps/" + id);
        assertEquals(4, count("#trials tr[data-trial]"));
        Set<String> states = new HashSet<>();
        browser.findElements(By.cssSelector("#trials tr[data-trial] .state")).forEach(e -> states.add(e.getText()));
        assertEquals(Set.of("SUCCEEDED"), states, api.toString());
        @SuppressWarnings("unchecked")
        List<Number> best = (List<Number>) ((JavascriptExecutor) browser)
                .executeScript("return Chart.getChart('objective-chart').data.datasets[1].data.map(p => p.y)");
        assertEquals(4, best.size(), api.toString());
        assertEquals(
                api.path("best").path("value").asDouble(),
                best.get(3).doubleValue(),
                "the best-so-far line ends at the best trial");
        for (int i = 1; i < best.size(); i++) {
            assertTrue(
                    best.get(i).doubleValue() <= best.get(i - 1).doubleValue(),
                    "best so far never rises when minimizing: " + best);
        }
    }

    @Test
    @Order(9)
    void aJobsPageHiddenAndShownAgainGoesOnAfterTheLastLineItHad() throws Exception {
        // a job's log is its submitter's, its tenant's group's and admins' (warmpool.auth.job-details)
        browser.get(manager.base() + "/ui?token=" + Tokens.ADMIN);
        String job = manager.send(
                        "POST",
                        "/jobs",
                        json(Map.of("type", "web", "args", List.of("echo one; sleep 1; echo two; sleep 30"))))
                .path("id")
                .asText();
        browser.get(manager.base() + "/ui/jobs/" + job);
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> text("#log").contains("one"));
        visible(false);
        await().atMost(Duration.ofSeconds(20)).until(() -> logs(job).contains("two"));
        assertFalse(text("#log").contains("two"), "a hidden page reads nothing");
        visible(true);
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> text("#log").contains("two"));
        assertEquals("one\ntwo", text("#log").strip(), "each line once");
        manager.send("DELETE", "/jobs/" + job, null);
    }

    String logs(String job) throws Exception {
        return ManagerProcess.HTTP
                .send(
                        manager.request("GET", "/jobs/" + job + "/logs", null, Map.of()),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
