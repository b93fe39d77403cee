package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.store.RedisServer;
import dev.warmpool.testing.Tokens;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The dashboard in a real browser (Debian's chromium, driven by chromium-driver through
 * Selenium) against the packaged app: no token shows a login form and no data; a viewer sees the
 * pools, processors and states that the API shows, live; an admin's cancel button cancels; a
 * job's page shows a log line while the job still runs and its reports as a chart; a sweep's page
 * shows each trial and the objective chart; a screenshot of the overview is not blank.
 * {@code -Ddashboard.screenshot=docs/dashboard.png} keeps the screenshot there too.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardIT {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    static RedisServer redis;
    static ManagerProcess manager;
    static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        assertTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
                "the browser tests need Debian's chromium and chromium-driver (.ci/run installs them)");
        redis = RedisServer.ephemeral();
        manager = ManagerProcess.start(redis.url(), "dashboard-it", "-Dwarmpool.reconcile.interval=1s");
        manager.send(
                "PUT",
                "/pools/web",
                "{\"command\": [\"sh\", \"-c\", \"eval \\\"$0\\\"\"], \"minIdle\": 2, \"maxSize\": 3}");
        manager.send("PUT", "/pools/batch", "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        manager.get("/pools/web").path("status").path("idle").asInt() == 2
                                && manager.get("/pools/batch")
                                                .path("status")
                                                .path("idle")
                                                .asInt()
                                        == 1);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=1280,1000");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        ManagerProcess.tearDown(redis, java.util.Collections.singletonList(manager));
    }

    @BeforeEach
    void signedOut() {
        browser.get(manager.base() + "/ui/app.css"); // a page of the origin, to reach its cookies
        browser.manage().deleteAllCookies();
    }

    static String json(Object body) throws Exception {
        return ManagerProcess.JSON.writeValueAsString(body);
    }

    String text(String css) {
        return browser.findElement(By.cssSelector(css)).getText();
    }

    int count(String css) {
        return browser.findElements(By.cssSelector(css)).size();
    }

    void awaitPage(String css) {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> count(css) > 0);
    }

    @Test
    @Order(1)
    void withoutATokenThePageIsALoginFormAndNoData() throws Exception {
        browser.get(manager.base() + "/");
        assertTrue(
                browser.getCurrentUrl().endsWith("/ui"), "a browser at / is sent to /ui: " + browser.getCurrentUrl());
        assertEquals(1, count("form#login"));
        assertEquals(0, count("#pools"));
        assertFalse(browser.getPageSource().contains("web"), "no pool name on the login page");
        var feed = ManagerProcess.HTTP.send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(manager.base() + "/ui/events"))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(401, feed.statusCode(), "the live feed needs a token too");

        browser.get(manager.base() + "/ui?token=not-a-token");
        assertEquals(1, count("form#login"));
        assertTrue(text("#login-error").contains("not valid"), text("#login-error"));
        assertTrue(browser.manage().getCookies().isEmpty(), "a wrong token sets no cookie");
    }

    @Test
    @Order(2)
    void aViewerSeesThePoolsAndStatesTheApiShowsAndNoButtons() throws Exception {
        browser.get(manager.base() + "/ui?token=" + Tokens.VIEWER);
        assertTrue(browser.getCurrentUrl().endsWith("/ui"), "the token leaves the address: " + browser.getCurrentUrl());
        var cookie = browser.manage().getCookieNamed("warmpool_token");
        assertTrue(cookie.isHttpOnly(), "the session cookie is HttpOnly");
        assertEquals("Strict", cookie.getSameSite());
        awaitPage("[data-pool='web'] [data-count='idle']");
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> sameAsApi("web") && sameAsApi("batch"));

        // live: a job that runs a while turns a processor busy on the page without a reload
        String job = manager.send("POST", "/jobs", "{\"type\": \"web\", \"args\": [\"sleep 30\"]}")
                .path("id")
                .asText();
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> "1".equals(text("[data-pool='web'] [data-count='busy']"))
                        && text("[data-pool='web'] tr[data-processor] a").equals(job));
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> text("#jobs tr[data-job='" + job + "'] .job-state").equals("RUNNING"));
        // the reconciler starts a processor for the one taken: page and API agree once it has
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> sameAsApi("web"));
        assertEquals(0, count("button.cancel") + count("button.drain"), "a viewer gets no buttons");
        // the chart draws the same counts
        Object busy = ((JavascriptExecutor) browser)
                .executeScript("const c = Chart.getChart('pool-chart'); const i = c.data.labels.indexOf('web');"
                        + " return c.data.datasets.find(d => d.label === 'busy').data[i];");
        assertEquals(1L, ((Number) busy).longValue());
        manager.send("DELETE", "/jobs/" + job, null);
    }

    /** The pool's card shows the API's counts by state and its processors with their states. */
    boolean sameAsApi(String type) throws Exception {
        JsonNode pool = manager.get("/pools/" + type);
        for (String state : List.of("starting", "idle", "busy", "draining", "queued")) {
            if (!text("[data-pool='" + type + "'] [data-count='" + state + "']")
                    .equals(pool.path("status").path(state).asText())) {
                return false;
            }
        }
        Set<String> api = new TreeSet<>();
        pool.path("processors")
                .forEach(p ->
                        api.add(p.path("id").asText() + " " + p.path("state").asText()));
        Set<String> page = new TreeSet<>();
        for (WebElement row : browser.findElements(By.cssSelector("[data-pool='" + type + "'] tr[data-processor]"))) {
            page.add(row.getAttribute("data-processor") + " "
                    + row.findElement(By.cssSelector(".state")).getText());
        }
        return api.equals(page);
    }

    @Test
    @Order(3)
    void anAdminsCancelButtonCancelsARunningJob() throws Exception {
        browser.get(manager.base() + "/ui");
        browser.findElement(By.id("token")).sendKeys(Tokens.ADMIN);
        browser.findElement(By.cssSelector("form#login button")).click();
        awaitPage("[data-pool='web'] button.drain");
        String job = manager.send("POST", "/jobs", "{\"type\": \"web\", \"args\": [\"sleep 60\"]}")
                .path("id")
                .asText();
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> text("#jobs tr[data-job='" + job + "'] .job-state").equals("RUNNING"));
        browser.findElement(By.cssSelector("button[data-cancel='" + job + "']")).click();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> manager.get("/jobs/" + job).path("state").asText().equals("CANCELLED"));
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> text("#jobs tr[data-job='" + job + "'] .job-state").equals("CANCELLED"));
        assertEquals("admin", manager.get("/jobs/" + job).path("submittedBy").asText());
        assertEquals(0, count("#problem.problem"), "no error shown");
    }

    @Test
    @Order(4)
    void aJobsPageShowsItsLogLineWhileItRunsAndItsReportsAsAChart() throws Exception {
        browser.get(manager.base() + "/ui?token=" + Tokens.VIEWER);
        String script =
                "echo first-line; for s in 1 2 3; do echo \"WARMPOOL_REPORT {\\\"step\\\": $s, \\\"loss\\\": 0.$((9 - s))}\"; done;"
                        + " sleep 20; echo last-line";
        String job = manager.send("POST", "/jobs", json(java.util.Map.of("type", "web", "args", List.of(script))))
                .path("id")
                .asText();
        browser.get(manager.base() + "/ui/jobs/" + job);
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> text("#log").contains("first-line"));
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
                json(java.util.Map.of(
                        "type",
                        "web",
                        "parallelism",
                        2,
                        "args",
                        List.of(trial),
                        "space",
                        java.util.Map.of("x", java.util.Map.of("grid", List.of(3, 1, 2, 5))),
                        "objective",
                        java.util.Map.of("metric", "loss", "goal", "minimize"))));
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
    @Order(6)
    void aScreenshotOfTheOverviewIsNotBlank() throws Exception {
        manager.send("POST", "/jobs", "{\"type\": \"web\", \"args\": [\"sleep 30\"]}");
        for (int i = 0; i < 3; i++) {
            manager.send("POST", "/jobs", "{\"type\": \"batch\"}");
        }
        browser.get(manager.base() + "/ui?token=" + Tokens.ADMIN);
        long t0 = System.nanoTime();
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() ->
                        "1".equals(text("[data-pool='web'] [data-count='busy']")) && count("#jobs tr[data-job]") >= 4);
        System.out.printf("screenshot page ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(Path.of("target", "dashboard.png"), png);
        String keep = System.getProperty("dashboard.screenshot");
        if (keep != null && !keep.isBlank()) {
            Files.write(Path.of(keep), png);
        }
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 4) {
            for (int x = 0; x < image.getWidth(); x += 4) {
                colours.add(image.getRGB(x, y));
            }
        }
        assertTrue(image.getWidth() >= 1000 && colours.size() > 50, "a screenshot with " + colours.size() + " colours");
        // the bars are drawn: a pixel of the idle colour (#3f9d5a) inside the chart
        org.openqa.selenium.Rectangle chart =
                browser.findElement(By.id("pool-chart")).getRect();
        boolean idleDrawn = false;
        int bottom = Math.min(image.getHeight(), chart.getY() + chart.getHeight());
        int right = Math.min(image.getWidth(), chart.getX() + chart.getWidth());
        for (int y = chart.getY(); y < bottom && !idleDrawn; y++) {
            for (int x = chart.getX(); x < right; x++) {
                if ((image.getRGB(x, y) & 0xffffff) == 0x3f9d5a) {
                    idleDrawn = true;
                    break;
                }
            }
        }
        assertTrue(idleDrawn, "the chart shows idle processors");
    }

    @Test
    @Order(7)
    void aWidePoolsCardListsTwelveProcessorsBusyFirstAndCountsTheRest() throws Exception {
        manager.send(
                "PUT",
                "/pools/wide",
                "{\"command\": [\"sh\", \"-c\", \"eval \\\"$0\\\"\"], \"minIdle\": 14, \"maxSize\": 14}");
        await().atMost(Duration.ofSeconds(120))
                .until(() ->
                        manager.get("/pools/wide").path("status").path("idle").asInt() == 14);
        String job = manager.send("POST", "/jobs", "{\"type\": \"wide\", \"args\": [\"sleep 30\"]}")
                .path("id")
                .asText();
        browser.get(manager.base() + "/ui?token=" + Tokens.VIEWER);
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> "1".equals(text("[data-pool='wide'] [data-count='busy']")));
        assertEquals(12, count("[data-pool='wide'] tr[data-processor]"));
        assertEquals("and 2 more (GET /pools/wide)", text("[data-pool='wide'] .rest"));
        WebElement first = browser.findElement(By.cssSelector("[data-pool='wide'] tr[data-processor]"));
        assertEquals("BUSY", first.findElement(By.cssSelector(".state")).getText());
        assertEquals(job, first.findElement(By.cssSelector("a")).getText());
        manager.send("DELETE", "/jobs/" + job, null);
    }

    @Test
    @Order(8)
    void aHiddenTabHoldsNoStreamAndCatchesUpWhenShownAgain() throws Exception {
        browser.get(manager.base() + "/ui?token=" + Tokens.VIEWER);
        awaitPage("[data-pool='batch'] [data-count='idle']");
        // in flight: the page's feed and the scrape that counts it
        await().atMost(Duration.ofSeconds(30)).until(() -> activeRequests() == 2);
        visible(false);
        assertEquals("paused", text("#live"));
        await().atMost(Duration.ofSeconds(30)).until(() -> activeRequests() == 1);
        String job = manager.send("POST", "/jobs", "{\"type\": \"batch\"}")
                .path("id")
                .asText();
        visible(true);
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> count("#jobs tr[data-job='" + job + "']") == 1);
        assertEquals("live", text("#live"));
        assertEquals(2, activeRequests());
    }

    @Test
    @Order(9)
    void aJobsPageHiddenAndShownAgainGoesOnAfterTheLastLineItHad() throws Exception {
        browser.get(manager.base() + "/ui?token=" + Tokens.VIEWER);
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

    /** What the Page Visibility API tells the page when its tab is hidden or shown. */
    void visible(boolean shown) {
        ((JavascriptExecutor) browser)
                .executeScript(
                        "Object.defineProperty(document, 'hidden', {value: arguments[0], configurable: true});"
                                + " document.dispatchEvent(new Event('visibilitychange'));",
                        !shown);
    }

    /** Requests the manager is serving now, this scrape among them (a live feed is one until it closes). */
    double activeRequests() throws Exception {
        String metrics = ManagerProcess.HTTP
                .send(manager.request("GET", "/q/metrics", null, Map.of()), HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = Pattern.compile("(?m)^http_server_active_requests\\{[^}]*\\} (\\S+)$")
                .matcher(metrics);
        double n = 0;
        while (m.find()) {
            n += Double.parseDouble(m.group(1));
        }
        return n;
    }
}
