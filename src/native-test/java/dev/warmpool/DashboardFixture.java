package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.store.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * What the dashboard ITs share: a redis-server, the packaged manager with pools "web" and "batch",
 * Debian's chromium driven by chromium-driver through Selenium, signed out before each test.
 */
abstract class DashboardFixture {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    static RedisServer redis;
    static ManagerProcess manager;
    static ChromeDriver browser;

    /** Starts redis, the manager (its log target/{@code name}.log) with two pools, and the browser. */
    static void startAll(String name) throws Exception {
        assertTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
                "the browser tests need Debian's chromium and chromium-driver (.ci/run installs them)");
        redis = RedisServer.ephemeral();
        manager = ManagerProcess.start(redis.url(), name, "-Dwarmpool.reconcile.interval=1s");
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
        ManagerProcess.tearDown(redis, Collections.singletonList(manager));
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

    /** What the Page Visibility API tells the page when its tab is hidden or shown. */
    void visible(boolean shown) {
        ((JavascriptExecutor) browser)
                .executeScript(
                        "Object.defineProperty(document, 'hidden', {value: arguments[0], configurable: true});"
                                + " document.dispatchEvent(new Event('visibilitychange'));",
                        !shown);
    }
}
