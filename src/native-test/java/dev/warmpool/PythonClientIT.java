package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.store.RedisServer;
import dev.warmpool.testing.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Python client's own unittest suite (clients/python/tests) against the packaged app on a
 * redis-server of its own, run with Debian's /usr/bin/python3 (the one whose optional packages,
 * pandas among them, the suite may use).
 */
class PythonClientIT {
    static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    @Test
    void thePythonClientSuitePasses() throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        ManagerProcess manager = null;
        try {
            manager = ManagerProcess.start(redis.url(), "python-client-it");
            Path out = Path.of("target", "python-client-tests.txt");
            ProcessBuilder pb = new ProcessBuilder(python(), "-m", "unittest", "discover", "-v", "-s", "tests")
                    .directory(Path.of("clients", "python").toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile());
            pb.environment().put("WARMPOOL_URL", manager.base());
            pb.environment().put("WARMPOOL_TOKEN", Tokens.ADMIN);
            pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
            }
            assertEquals(0, p.exitValue(), Files.readString(out));
        } finally {
            ManagerProcess.tearDown(redis, Collections.singletonList(manager));
        }
    }
}
