package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A newcomer's first start, as the README's run command makes it (its own Redis, the demo pool):
 * the one warning in its log is the one that says where the admin token is. Every start used to
 * open with a framework's warning about a metric registered twice, which a newcomer cannot act on.
 */
class FirstStartIT {
    LocalInstall install;

    @AfterEach
    void tearDown() throws Exception {
        if (install != null) {
            install.close();
        }
    }

    @Test
    void theFirstStartWarnsOfNothingButWhereTheTokenIs() throws Exception {
        install = new LocalInstall();
        ManagerProcess m = install.start(List.of(), Map.of());
        // the demo pool's processor is up: the start is over, its class-data run too
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> m.get("/pools/demo").at("/status/idle").asInt() >= 1);
        String log = install.log();
        List<String> warnings = log.lines()
                .filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                .filter(l -> !l.contains("made an admin API token"))
                .toList();
        assertEquals(List.of(), warnings, log);
    }

    /**
     * A mistyped key stops the start and says which, whether SmallRye refuses it before the log is
     * up (a setting) or the manager does (a declared pool's field); the own Redis it started goes.
     */
    @Test
    void aMistypedKeyStopsTheStartSayingWhich() throws Exception {
        install = new LocalInstall();
        Process p = install.launch(List.of("-Dwarmpool.heartbeat.intervall=1s"), Map.of());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the manager exits");
        String log = install.log();
        assertTrue(log.contains("warmpool did not start: ") && log.contains("warmpool.heartbeat.intervall"), log);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> install.redis().map(r -> !r.isAlive()).orElse(true));

        p = install.launch(List.of("-Dwarmpool.pools.demo.min-idel=0"), Map.of());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the manager exits");
        log = install.log();
        assertTrue(log.contains("warmpool.pools.demo.min-idel names no field of PoolSpec"), log);
    }
}
