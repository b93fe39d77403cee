package dev.warmpool.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Ci;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Python client's own checks, so that {@code ./mvnw verify} covers them: its unit tests (against an
 * in-process stub of the manager, no server), pyflakes and mypy (its {@code pyproject.toml} says what and
 * how strictly), each with Debian's /usr/bin/python3. Outside CI a machine without pyflakes or mypy skips
 * that check; in CI ({@code CI=true}; .ci/run installs python3-pyflakes and mypy) it fails instead. The
 * end-to-end suite against the packaged app is PythonClientIT's.
 */
class PythonClientTests {
    static final Path CLIENT = Path.of("clients", "python");

    @Test
    void theClientsUnitTestsPass() throws Exception {
        Result r = python("-m", "unittest", "-v");
        assertEquals(0, r.exit, r.out);
        assertTrue(r.out.contains("test_a_stream_that_breaks_off_resumes_after_the_last_event_s_id"), r.out);
    }

    @Test
    void pyflakesFindsNothingInTheClient() throws Exception {
        requireModule("pyflakes", "python3-pyflakes");
        Result r = python("-m", "pyflakes", ".");
        assertEquals(0, r.exit, "pyflakes over clients/python:\n" + r.out);
    }

    @Test
    void mypyFindsNoTypeErrorsInTheClient() throws Exception {
        requireModule("mypy", "mypy");
        Result r = python("-m", "mypy");
        assertEquals(0, r.exit, "mypy in clients/python (pyproject.toml [tool.mypy]):\n" + r.out);
    }

    /** A missing checker skips its test on a workstation and fails it in CI, which installs it. */
    static void requireModule(String module, String debianPackage) throws Exception {
        boolean present = python("-c", "import " + module).exit == 0;
        Ci.require(present, module + " is not installed for /usr/bin/python3", ".ci/run installs " + debianPackage);
    }

    record Result(int exit, String out) {}

    static Result python(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3");
        command.addAll(List.of(args));
        Path out = Files.createTempFile(Path.of("target"), "python-client-", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(CLIENT.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile());
            pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            pb.environment()
                    .put(
                            "MYPY_CACHE_DIR",
                            Path.of("target", "mypy-cache").toAbsolutePath().toString());
            pb.environment().remove("WARMPOOL_URL");
            pb.environment().remove("WARMPOOL_TOKEN");
            Process p = pb.start();
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return new Result(-1, String.join(" ", command) + " ran over 5 minutes:\n" + Files.readString(out));
            }
            return new Result(p.exitValue(), Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
