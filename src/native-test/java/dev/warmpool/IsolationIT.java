package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The attacks of a shared machine, against the packaged manager as the README's run command
 * starts it (its own Redis, a state dir, jobs sandboxed by bubblewrap, as another user when
 * run as root): what a job can see, what it can leave for the next job, what another Unix user
 * of the host can read, and a Redis the manager did not start.
 */
class IsolationIT {
    /** A variable of the manager's own that no job may see. */
    static final String MARKER = "WARMPOOL_TEST_MANAGER_SECRET";

    static final String MARKER_VALUE = "manager-only-" + Long.toHexString(System.nanoTime());
    static final String OTHER_USER = "wp-other";

    LocalInstall install;
    Path home;
    int redisPort;
    final List<RedisServer> servers = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        if (install != null) {
            install.close();
        }
        servers.forEach(RedisServer::stop);
    }

    /** The packaged manager as the run command starts it, with {@code sandbox}, and a variable of its own. */
    ManagerProcess start(String sandbox) throws Exception {
        fresh();
        return install.start(options(sandbox), Map.of(MARKER, MARKER_VALUE));
    }

    private void fresh() throws IOException {
        install = new LocalInstall();
        home = install.home;
        redisPort = install.redisPort;
    }

    private static List<String> options(String sandbox) {
        return List.of("-Dwarmpool.runtime.local.sandbox=" + sandbox);
    }

    static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    JsonNode runJob(ManagerProcess m, String type) throws Exception {
        String id = m.send("POST", "/jobs", "{\"type\": \"" + type + "\"}")
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !List.of("QUEUED", "ASSIGNED", "RUNNING")
                        .contains(m.get("/jobs/" + id + "?wait=5").get("state").asText()));
        return m.get("/jobs/" + id);
    }

    static String pool(String script) {
        return "{\"command\": [\"sh\", \"-c\", " + ManagerProcess.JSON.valueToTree(script)
                + "], \"minIdle\": 1, \"maxSize\": 1}";
    }

    @Test
    void aJobReachesNoPortOfTheHostsLoopbackNorSeesItsSockets() throws Exception {
        ManagerProcess m = start("bwrap");
        StringBuilder script = new StringBuilder();
        for (int port : List.of(m.port, redisPort)) {
            script.append("if timeout 5 bash -c 'echo > /dev/tcp/127.0.0.1/" + port + "' 2>/dev/null;"
                    + " then echo port-" + port + ":ok; else echo port-" + port + ":refused; fi; ");
        }
        script.append("cat /proc/net/tcp /proc/net/tcp6 2>/dev/null");
        m.send(
                "PUT",
                "/pools/net",
                "{\"command\": [\"bash\", \"-c\", " + ManagerProcess.JSON.valueToTree(script.toString())
                        + "], \"minIdle\": 1, \"maxSize\": 1}");
        JsonNode job = runJob(m, "net");
        String out = job.at("/result/logTail").asText();
        for (int port : List.of(m.port, redisPort)) {
            // the manager's port and Redis's: neither reached nor listed (a job could not take them either)
            assertTrue(out.contains("port-" + port + ":refused"), out);
            assertFalse(out.contains(String.format(":%04X 00000000:0000 0A", port)), "a host socket:\n" + out);
        }
    }

    @Test
    void aJobSeesNoSecretNoOtherProcessAndNothingOfTheStateDir() throws Exception {
        ManagerProcess m = start("bwrap");
        Path state = home.resolve(".warmpool").toRealPath();
        m.send(
                "PUT",
                "/pools/peek",
                pool("echo env:; env; echo parent:; tr '\\000' ' ' < /proc/$PPID/environ; echo;"
                        + " tr '\\000' ' ' < /proc/$PPID/cmdline; echo; echo jvms: $(cat /proc/[0-9]*/comm | grep -c '^java$'); echo pwd: $(pwd);"
                        + " echo uid: $(id -u); ls -A; echo token:; cat " + state
                        + "/token 2>/dev/null; echo password:; cat " + state
                        + "/redis/password 2>/dev/null; echo state:; ls -A " + state + " 2>/dev/null; echo end"));
        JsonNode job = runJob(m, "peek");
        String out = job.at("/result/logTail").asText();
        assertEquals("SUCCEEDED", job.get("state").asText(), out);
        String token = Files.readString(state.resolve("token")).trim();
        String password = Files.readString(state.resolve("redis/password")).trim();
        for (String secret : List.of(
                token,
                password,
                MARKER_VALUE,
                MARKER,
                "QUARKUS_",
                "WARMPOOL_REDIS",
                "redis://",
                "rediss://",
                "127.0.0.1:" + redisPort)) {
            assertFalse(out.contains(secret), "the job saw " + secret + ":\n" + out);
        }
        assertTrue(out.contains("token:\npassword:\nstate:\nend"), "the state dir is empty for the job:\n" + out);
        assertTrue(
                out.contains("jvms: 0\n"),
                "its own PID namespace: neither the agent nor the manager is there:\n" + out);
        String pwd = out.replaceAll("(?s).*pwd: (\\S+).*", "$1");
        assertFalse(pwd.startsWith(home.toString()), "not the manager's folder: " + pwd);
        if (root()) {
            long uid = Long.parseLong(out.replaceAll("(?s).*uid: (\\d+).*", "$1"));
            assertTrue(
                    uid >= 1879048192L && uid <= 1879113727L,
                    "a root manager's jobs run as a uid of their processor's own, from warmpool.runtime.local.job-uids:\n"
                            + out);
        }
        // the agent itself holds none of the manager's environment either
        for (long pid : LocalAgents.agentPids(install.redisUrl())) {
            String environ =
                    Files.readString(Path.of("/proc", Long.toString(pid), "environ"), StandardCharsets.ISO_8859_1);
            assertFalse(environ.contains(MARKER) || environ.contains("QUARKUS"), "agent " + pid + ": " + environ);
        }
    }

    @Test
    void aPoolsResetCommandRunsInTheRoomAsTheJobsUserNeverAsTheAgent() throws Exception {
        ManagerProcess m = start("bwrap");
        Path shared = Files.createTempDirectory("wp-reset");
        try {
            // the pool's working dir is the one dir the reset can write that the test can read
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            m.send(
                    "PUT",
                    "/pools/resets",
                    "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1, \"workingDir\": "
                            + ManagerProcess.JSON.valueToTree(shared.toString())
                            + ", \"resetCommand\": [\"sh\", \"-c\", "
                            + "\"echo $(id -u) $(cat /proc/[0-9]*/comm | grep -c '^java$') > reset\"]}");
            JsonNode job = runJob(m, "resets");
            assertEquals("SUCCEEDED", job.get("state").asText(), job.toString());
            Path reset = shared.resolve("reset");
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(reset) && Files.size(reset) > 0);
            String[] uidAndJvms = Files.readString(reset).trim().split(" ");
            assertEquals("0", uidAndJvms[1], "in the room: no agent, no manager in its PID namespace");
            if (root()) {
                long uid = Long.parseLong(uidAndJvms[0]);
                assertTrue(uid >= 1879048192L && uid <= 1879113727L, "as the jobs' user, not root: " + uid);
            }
        } finally {
            try (Stream<Path> files = Files.list(shared)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(shared);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bwrap", "none"})
    void nothingAJobStartsOutlivesItNorWritesTheNextJobsResult(String sandbox) throws Exception {
        ManagerProcess m = start(sandbox);
        String tag = "3" + (System.nanoTime() % 1000) + "." + sandbox.length();
        // the first job leaves a sleeper and a delayed write to the result path it had; the second writes its own
        m.send(
                "PUT",
                "/pools/leftover",
                pool(
                        "case \"$WARMPOOL_CONFIG\" in *first*) (sleep " + tag
                                + " &) ; (sleep 1; echo '{\"forged\": 1}' > \"$WARMPOOL_RESULT\") &"
                                + " echo '{\"first\": 1}' > \"$WARMPOOL_RESULT\";; *) sleep 2; echo '{\"mine\": 1}' > \"$WARMPOOL_RESULT\";; esac"));
        String a = m.send("POST", "/jobs", "{\"type\": \"leftover\", \"config\": {\"first\": true}}")
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "SUCCEEDED"
                        .equals(m.get("/jobs/" + a + "?wait=5").get("state").asText()));
        await().atMost(Duration.ofSeconds(5)).until(() -> sleepers(tag).isEmpty());
        JsonNode b = runJob(m, "leftover");
        assertEquals("SUCCEEDED", b.get("state").asText(), b.toString());
        assertEquals(m.get("/jobs/" + a).get("processor"), b.get("processor"), "the same warm processor ran both");
        assertEquals(
                Map.of("mine", 1), ManagerProcess.JSON.convertValue(b.at("/result/metrics"), Map.class), b.toString());
        assertNotEquals(m.get("/jobs/" + a).at("/result/metrics").toString(), "{\"forged\":1}");
    }

    @Test
    void whatAJobLeavesInTmpAndShmIsGoneForEachNextJobOfTheProcessor() throws Exception {
        ManagerProcess m = start("bwrap");
        // each job counts what it finds of the others, then litters; queued while one runs, the next job
        // comes in the finish's reply, and the agent readies the room for it after recording the end
        m.send(
                "PUT",
                "/pools/litter",
                pool("echo \"found $(ls -A /tmp /dev/shm | grep -c '^left')\"; echo x > /tmp/left-$$;"
                        + " echo y > /dev/shm/left-$$; mkdir -p /tmp/left-dir/deep; sleep 0.3"));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(m.send("POST", "/jobs", "{\"type\": \"litter\"}").get("id").asText());
        }
        for (String id : ids) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> "SUCCEEDED"
                            .equals(m.get("/jobs/" + id + "?wait=5")
                                    .get("state")
                                    .asText()));
            JsonNode job = m.get("/jobs/" + id);
            assertEquals("found 0\n", job.at("/result/logTail").asText(), job.toString());
            assertEquals(
                    m.get("/jobs/" + ids.get(0)).get("processor"), job.get("processor"), "one processor ran them all");
        }
    }

    /** Processes whose command line is {@code sleep <tag>}. */
    static List<Long> sleepers(String tag) {
        return ProcessHandle.allProcesses()
                .filter(h -> {
                    try {
                        String cmdline = Files.readString(
                                Path.of("/proc", Long.toString(h.pid()), "cmdline"), StandardCharsets.ISO_8859_1);
                        return cmdline.equals("sleep\0" + tag + "\0");
                    } catch (IOException e) {
                        return false;
                    }
                })
                .map(ProcessHandle::pid)
                .toList();
    }

    @Test
    void theStateDirAndRedisDataArePrivateToTheManagersUser() throws Exception {
        ManagerProcess m = start("bwrap");
        assertEquals("SUCCEEDED", runJob(m, "demo").get("state").asText());
        Path state = home.resolve(".warmpool");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(state.resolve("redis/redis.pid")));
        try (Stream<Path> all = Files.walk(state)) {
            for (Path p : all.toList()) {
                String mode =
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    assertEquals("rwx------", mode, p.toString());
                } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    assertTrue(mode.endsWith("------"), "only its owner may read " + p + ": " + mode);
                }
            }
        }
        if (root()) {
            // another Unix user of the host: reading the token or the Redis data is refused
            new ProcessBuilder(
                            "sh",
                            "-c",
                            "id " + OTHER_USER + " >/dev/null 2>&1 || useradd --no-create-home " + OTHER_USER)
                    .inheritIO()
                    .start()
                    .waitFor();
            for (String file : List.of("token", "redis/password", "redis/redis.conf")) {
                Process cat = new ProcessBuilder(
                                "runuser",
                                "-u",
                                OTHER_USER,
                                "--",
                                "cat",
                                state.resolve(file).toString())
                        .redirectErrorStream(true)
                        .start();
                String said = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(cat.waitFor(10, TimeUnit.SECONDS));
                assertNotEquals(0, cat.exitValue(), said);
                assertTrue(said.contains("Permission denied"), said);
            }
        }
    }

    @Test
    void aRedisTheManagerDidNotStartIsNeverAdopted() throws Exception {
        fresh();
        RedisServer planted = RedisServer.ephemeralOn(redisPort); // another user's, first on the port
        servers.add(planted);
        Process manager = install.launch(options("none"), Map.of());
        assertTrue(manager.waitFor(60, TimeUnit.SECONDS), "the manager stops instead of using it");
        assertNotEquals(0, manager.exitValue());
        assertTrue(install.log().contains("will not use a Redis it did not start"), install.log());
    }

    @Test
    void aStateDirOthersMayWriteIsRefused() throws Exception {
        fresh();
        Path state = Files.createDirectory(home.resolve(".warmpool"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxrwxrwx"));
        Process manager = install.launch(options("none"), Map.of());
        assertTrue(manager.waitFor(60, TimeUnit.SECONDS));
        assertNotEquals(0, manager.exitValue());
        String log = install.log();
        assertTrue(log.contains("may be written by other users") && log.contains("chmod 700"), log);
    }
}
