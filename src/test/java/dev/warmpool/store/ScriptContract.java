package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.Ids;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.NewJob;
import dev.warmpool.protocol.script.PoolPutReply;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SpawnReply;
import dev.warmpool.protocol.script.StartReply;
import dev.warmpool.protocol.script.SubmitReply;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

/**
 * One contract test per script: each is called on a real redis-server through the argument
 * builder that production calls it with, and its reply read through the production decoder, so
 * an argument out of place or a reply the decoder misreads fails here. The tests are split by
 * script family ({@link PoolScriptContractTests}, {@link JobScriptContractTests}, {@link OverdueScriptContractTests},
 * {@link SweepScriptContractTests}), each on a redis-server of its own; this base holds their
 * shared steps, and its last checks hold that every script in {@link Script} is called by one of them.
 */
abstract class ScriptContract {
    static final String TYPE = "contract";
    static final Set<Script> CALLED = EnumSet.noneOf(Script.class);

    /** The family's redis-server (its class's {@code @RegisterExtension}) and a connection to it. */
    final ScriptsOnRedis on;

    final Jedis j;

    ScriptContract(ScriptsOnRedis on) {
        this.on = on;
        this.j = on.j;
    }

    <R> R call(Script s, List<String> args, Function<Object, R> decode) {
        CALLED.add(s);
        return decode.apply(on.run(s, args));
    }

    PoolPutReply putPool(int minIdle, int maxSize, int maxQueued, boolean gang) {
        return call(
                Script.POOL_PUT,
                PoolPutReply.args(
                        "{\"command\":[\"true\"]}",
                        minIdle,
                        maxSize,
                        300_000,
                        "[\"true\"]",
                        "{\"A\":\"1\"}",
                        maxQueued,
                        gang),
                PoolPutReply::decode);
    }

    String processor(String id) {
        assertTrue(call(Script.SPAWN, SpawnReply.args(id), SpawnReply::decode).recorded());
        RegisterReply r = call(Script.REGISTER, RegisterReply.args(id, 4242, "host-a", ""), RegisterReply::decode);
        assertInstanceOf(RegisterReply.Registered.class, r);
        return id;
    }

    String newJobId() {
        return Ids.newJobId(TYPE, System.currentTimeMillis());
    }

    SubmitReply submit(String id) {
        return call(
                Script.SUBMIT,
                SubmitReply.args(
                        new NewJob(
                                id, 0, Map.of("id", id, "type", TYPE, "args", "[\"" + id + "\"]", "maxAttempts", "3")),
                        Idempotency.NONE),
                SubmitReply::decode);
    }

    StartReply start(String proc, String job, String token) {
        return call(Script.START, StartReply.args(proc, job, token), StartReply::decode);
    }

    FinishReply finish(String proc, String job, String token, boolean take) {
        return call(
                Script.FINISH,
                new FinishReply.Args(proc, job, token, "SUCCEEDED", 0, "{\"loss\":0.1}", "tail", null, 60, false, take)
                        .argv(),
                FinishReply::decode);
    }

    String field(String key, String field) {
        return j.hget(key, field);
    }

    @BeforeEach
    void clean() {
        j.flushAll();
    }

    @AfterEach
    void everyFieldTheScriptsWroteIsNamedInFields() {
        on.checkFields();
    }

    /** Every script in {@link Script} is called through {@link #call} by a family's class; a new script needs its contract test. */
    @Test
    void everyScriptHasItsContractTestHere() throws IOException {
        StringBuilder text = new StringBuilder();
        try (var files = Files.list(Path.of("src/test/java/dev/warmpool/store"))) {
            for (Path f : files.filter(f -> f.getFileName().toString().matches(".*ScriptContract(Tests)?\\.java"))
                    .toList()) {
                text.append(Files.readString(f));
            }
        }
        String source = text.toString();
        List<Script> missing = EnumSet.allOf(Script.class).stream()
                .filter(s -> !Pattern.compile("call\\(\\s*Script\\." + s.name() + ",")
                        .matcher(source)
                        .find())
                .toList();
        assertEquals(
                List.of(),
                missing,
                "scripts without a contract test in ScriptContract and the *ScriptContractTests classes");
    }

    /** The family classes that have run in this JVM (a run may pick some of them: -Dtest=...). */
    static final Set<String> FAMILIES_RAN = new TreeSet<>();

    /** Every family class there is: each {@code *ScriptContractTests} source beside this one. */
    static Set<String> families() throws IOException {
        try (var files = Files.list(Path.of("src/test/java/dev/warmpool/store"))) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith("ScriptContractTests.java"))
                    .map(n -> n.substring(0, n.length() - ".java".length()))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /**
     * When every family class has run, the calls themselves reached every script (the text check
     * above could be fooled). It no longer keys on a few scripts being called, which a new family,
     * or a sentinel script that moved, would have disarmed in silence.
     */
    @AfterAll
    static void everyScriptWasCalled(TestInfo info) throws IOException {
        info.getTestClass().ifPresent(c -> FAMILIES_RAN.add(c.getSimpleName()));
        if (FAMILIES_RAN.containsAll(families())) {
            assertEquals(EnumSet.allOf(Script.class), CALLED, "scripts no contract test called");
        }
    }

    /** The check above can fire: the families are found where they are, by the names they have. */
    @Test
    void theFamiliesAreFound() throws IOException {
        Set<String> all = families();
        assertTrue(
                all.containsAll(List.of(
                        "PoolScriptContractTests",
                        "JobScriptContractTests",
                        "OverdueScriptContractTests",
                        "SweepScriptContractTests")),
                all.toString());
        assertTrue(all.contains(getClass().getSimpleName()), getClass() + " among " + all);
    }
}
