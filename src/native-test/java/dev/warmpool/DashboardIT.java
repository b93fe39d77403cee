package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.testing.Tokens;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;

/**
 * The dashboard's overview in a real browser against the packaged app: no token shows a login form
 * and no data; a viewer sees the pools, processors and states that the API shows, live; an admin's
 * cancel button cancels; a screenshot of the overview is not blank; a wide pool's card; a hidden
 * tab holds no stream. The job and sweep pages are {@link DashboardPagesIT}.
 * {@code -Ddashboard.screenshot=docs/dashboard.png} keeps the screenshot there too.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardIT extends DashboardFixture {
    @BeforeAll
    static void start() throws Exception {
        startAll("dashboard-it");
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
                HttpRequest.newBuilder(URI.create(manager.base() + "/ui/events"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
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
        Rectangle chart = browser.findElement(By.id("pool-chart")).getRect();
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
    void everyPoolsCardHoldsItsTablesAt1280PxAndItsWarmthCountsJobs() throws Exception {
        // the web pool's jobs so far (the earlier tests') give its card a tenants table
        browser.get(manager.base() + "/ui?token=" + Tokens.VIEWER);
        awaitPage("[data-pool='web'] table.tenants tr[data-tenant]");
        Object overflowing = ((JavascriptExecutor) browser)
                .executeScript(
                        "return [...document.querySelectorAll('.pool')].flatMap(card => {"
                                + " const edge = card.getBoundingClientRect().right;"
                                + " return [...card.querySelectorAll('table, .fit')]"
                                + " .filter(t => t.getBoundingClientRect().right > edge + 0.5)"
                                + " .map(t => card.dataset.pool + ' ' + t.className + ' ' + t.getBoundingClientRect().right + ' > ' + edge); })");
        assertEquals(List.of(), overflowing, "tables that stick out of their pool's card");
        Object scrolled = ((JavascriptExecutor) browser)
                .executeScript("return [...document.querySelectorAll('.pool .fit')]"
                        + ".filter(f => f.scrollWidth > f.clientWidth).map(f => f.closest('.pool').dataset.pool)");
        assertEquals(List.of(), scrolled, "the tenants tables fit their cards without scrolling");
        // what the card counts are jobs, as the API's warmStarts and coldStarts are, not processor starts
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            JsonNode api = manager.get("/pools/web").path("warmth");
            return text("[data-pool='web'] [data-warmth]")
                    .contains(api.path("warmStarts").asText() + " jobs met a warm processor, "
                            + api.path("coldStarts").asText() + " waited for one");
        });
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
