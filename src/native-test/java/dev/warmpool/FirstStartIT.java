package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
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
}
