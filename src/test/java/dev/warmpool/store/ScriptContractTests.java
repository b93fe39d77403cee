package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.Names;
import dev.warmpool.pool.Warmth;
import dev.warmpool.protocol.BatchReply;
import dev.warmpool.protocol.CancelReply;
import dev.warmpool.protocol.DeregisterReply;
import dev.warmpool.protocol.FinishReply;
import dev.warmpool.protocol.HeartbeatReply;
import dev.warmpool.protocol.Idempotency;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.ListJobsReply;
import dev.warmpool.protocol.LogReply;
import dev.warmpool.protocol.LostReply;
import dev.warmpool.protocol.NewJob;
import dev.warmpool.protocol.PoolDeleteReply;
import dev.warmpool.protocol.PoolGcReply;
import dev.warmpool.protocol.PoolPutReply;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.protocol.Refused;
import dev.warmpool.protocol.RegisterReply;
import dev.warmpool.protocol.ReportReply;
import dev.warmpool.protocol.RetireReply;
import dev.warmpool.protocol.Script;
import dev.warmpool.protocol.SnapshotReply;
import dev.warmpool.protocol.SpawnGangReply;
import dev.warmpool.protocol.SpawnReply;
import dev.warmpool.protocol.StartReply;
import dev.warmpool.protocol.SubmitReply;
import dev.warmpool.protocol.SweepCancelReply;
import dev.warmpool.protocol.SweepGetReply;
import dev.warmpool.protocol.SweepListReply;
import dev.warmpool.protocol.SweepPutReply;
import dev.warmpool.protocol.TenantsReply;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * One contract test per script: each is called on a real redis-server through the argument
 * builder that production calls it with, and its reply read through the production decoder, so
 * an argument out of place or a reply the decoder misreads fails here. The last check holds that
 * every script in {@link Script} was called by this class.
 */
class ScriptContractTests {
    static final String TYPE = "contract";

    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    static final Jedis j = ON.j;
    static final Set<Script> CALLED = EnumSet.noneOf(Script.class);

    static <R> R call(Script s, List<String> args, Function<Object, R> decode) {
        CALLED.add(s);
        return decode.apply(ON.run(s, args));
    }

    static PoolPutReply putPool(int minIdle, int maxSize, int maxQueued, boolean gang) {
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

    static String processor(String id) {
        assertTrue(call(Script.SPAWN, SpawnReply.args(id), SpawnReply::decode).recorded());
        RegisterReply r = call(Script.REGISTER, RegisterReply.args(id, 4242, "host-a", ""), RegisterReply::decode);
        assertInstanceOf(RegisterReply.Registered.class, r);
        return id;
    }

    static String newJobId() {
        return Names.newJobId(TYPE, System.currentTimeMillis());
    }

    static SubmitReply submit(String id) {
        return call(
                Script.SUBMIT,
                SubmitReply.args(
                        new NewJob(
                                id, 0, Map.of("id", id, "type", TYPE, "args", "[\"" + id + "\"]", "maxAttempts", "3")),
                        Idempotency.NONE),
                SubmitReply::decode);
    }

    static StartReply start(String proc, String job, String token) {
        return call(Script.START, StartReply.args(proc, job, token), StartReply::decode);
    }

    static FinishReply finish(String proc, String job, String token, boolean take) {
        return call(
                Script.FINISH,
                new FinishReply.Args(proc, job, token, "SUCCEEDED", 0, "{\"loss\":0.1}", "tail", null, 60, false, take)
                        .argv(),
                FinishReply::decode);
    }

    static String field(String key, String field) {
        return j.hget(key, field);
    }

    @BeforeEach
    void clean() {
        j.flushAll();
    }

    @AfterEach
    void everyFieldTheScriptsWroteIsNamedInFields() {
        ON.checkFields();
    }

    @Test
    void poolPutCreatesUpdatesAndRefusesAGangChangeStoringEachArgumentUnderItsField() {
        assertEquals(PoolPutReply.CREATED, putPool(1, 7, 9, false));
        String pool = KeySchema.pool(TYPE);
        assertEquals(
                List.of("1", "7", "300000", "[\"true\"]", "{\"A\":\"1\"}", "9", ""),
                j.hmget(pool, "minIdle", "maxSize", "idleTimeoutMs", "command", "env", "maxQueued", "gang"));
        assertEquals("ACTIVE", field(pool, "state"));
        assertEquals(PoolPutReply.UPDATED, putPool(2, 7, 9, false));
        assertEquals("2", field(pool, "minIdle"));
        assertEquals(PoolPutReply.GANG_CHANGE, putPool(2, 7, 9, true));
        assertEquals("", field(pool, "gang"), "a refused change leaves the pool as it was");
    }

    @Test
    void spawnRecordsAStartingProcessorUpToMaxSizeAndRegisterTakesTheQueuedJob() {
        putPool(0, 2, 10, false);
        String queued = newJobId();
        assertInstanceOf(SubmitReply.Queued.class, submit(queued));

        assertTrue(call(Script.SPAWN, SpawnReply.args("p1"), SpawnReply::decode).recorded());
        assertEquals("STARTING", field(KeySchema.processor(TYPE, "p1"), "state"));
        assertTrue(call(Script.SPAWN, SpawnReply.args("p2"), SpawnReply::decode).recorded());
        assertFalse(
                call(Script.SPAWN, SpawnReply.args("p3"), SpawnReply::decode).recorded(), "maxSize 2");

        RegisterReply.Registered r = (RegisterReply.Registered)
                call(Script.REGISTER, RegisterReply.args("p1", 4242, "host-a", ""), RegisterReply::decode);
        assertEquals(new RegisterReply.Registered("BUSY", queued, "{\"command\":[\"true\"]}"), r);
        assertEquals(List.of("4242", "host-a"), j.hmget(KeySchema.processor(TYPE, "p1"), "pid", "host"));
        assertEquals(
                new RegisterReply.Registered("IDLE", "", "{\"command\":[\"true\"]}"),
                call(Script.REGISTER, RegisterReply.args("p2", 1, "host-b", ""), RegisterReply::decode));
    }

    @Test
    void registerRefusesWithoutAPoolAndAGangMemberThePoolDoesNotKnow() {
        assertEquals(
                new RegisterReply.NoPool(),
                call(Script.REGISTER, RegisterReply.args("p1", 1, "h", ""), RegisterReply::decode));
        putPool(0, 2, 10, true);
        assertEquals(
                new RegisterReply.NoGang(),
                call(Script.REGISTER, RegisterReply.args("p1", 1, "h", ""), RegisterReply::decode));
    }

    @Test
    void spawnGangRecordsEveryMemberWithItsRoleAndIndex() {
        putPool(0, 1, 10, true);
        List<SpawnGangReply.Member> members = List.of(
                new SpawnGangReply.Member("g1-0", "ps", 0),
                new SpawnGangReply.Member("g1-1", "worker", 0),
                new SpawnGangReply.Member("g1-2", "worker", 1));
        assertTrue(call(Script.SPAWN_GANG, SpawnGangReply.args("g1", members), SpawnGangReply::decode)
                .recorded());
        for (SpawnGangReply.Member m : members) {
            assertEquals(
                    List.of("STARTING", "g1", m.role(), Integer.toString(m.index())),
                    j.hmget(KeySchema.processor(TYPE, m.id()), "state", "gang", "role", "rank"));
        }
        assertFalse(
                call(Script.SPAWN_GANG, SpawnGangReply.args("g2", members), SpawnGangReply::decode)
                        .recorded(),
                "maxSize 1 gang");
    }

    @Test
    void heartbeatSaysAliveUnknownOrFenced() {
        putPool(0, 2, 10, false);
        processor("p1");
        assertEquals(
                new HeartbeatReply.Alive(ProcessorState.IDLE),
                call(Script.HEARTBEAT, HeartbeatReply.args("p1", "", ""), HeartbeatReply::decode));
        assertEquals(
                new HeartbeatReply.Unknown(),
                call(Script.HEARTBEAT, HeartbeatReply.args("nobody", "", ""), HeartbeatReply::decode));
        String job = newJobId();
        assertInstanceOf(SubmitReply.Assigned.class, submit(job));
        assertEquals(
                new HeartbeatReply.Alive(ProcessorState.BUSY),
                call(Script.HEARTBEAT, HeartbeatReply.args("p1", job, "1"), HeartbeatReply::decode));
        assertEquals(
                new HeartbeatReply.Fenced(),
                call(Script.HEARTBEAT, HeartbeatReply.args("p1", job, "2"), HeartbeatReply::decode),
                "another token: the assignment is not this copy's");
    }

    @Test
    void submitAssignsQueuesAndRefusesAndABatchIsTaken() {
        String noPool = newJobId();
        assertEquals(new Refused.NoPool(), submit(noPool));
        assertFalse(j.exists(KeySchema.job(TYPE, noPool)), "a refused job is not stored");
        putPool(0, 2, 1, false);
        processor("p1");
        SubmitReply.Assigned a = (SubmitReply.Assigned) submit(newJobId());
        assertEquals("p1", a.processor());
        assertEquals(1L, ((SubmitReply.Queued) submit(newJobId())).queueLength());
        assertInstanceOf(Refused.Full.class, submit(newJobId()), "maxQueued 1");
        putPool(0, 2, 10, false);
        BatchReply.Taken t = (BatchReply.Taken) call(
                Script.SUBMIT_BATCH,
                BatchReply.args(
                        List.of(
                                new NewJob(newJobId(), 0, Map.of("type", TYPE)),
                                new NewJob(newJobId() + "b", 0, Map.of("type", TYPE))),
                        Idempotency.NONE),
                BatchReply::decode);
        assertEquals(List.of("", ""), t.processors(), "the only processor is busy");
    }

    @Test
    void startRunsTheAssignedJobAndFinishRecordsItsEnd() {
        putPool(0, 2, 10, false);
        processor("p1");
        String job = newJobId();
        submit(job);
        StartReply.Running running = (StartReply.Running) start("p1", job, "1");
        assertEquals("[\"" + job + "\"]", running.run().argsJson());
        assertEquals("RUNNING", field(KeySchema.job(TYPE, job), "state"));
        assertInstanceOf(StartReply.Stale.class, start("p1", job, "2"), "another token");
        assertEquals(new FinishReply.Done("", "", null), finish("p1", job, "1", true));
        assertEquals(
                List.of("SUCCEEDED", "{\"loss\":0.1}", "tail"),
                j.hmget(KeySchema.job(TYPE, job), "state", "metrics", "logTail"));
        assertInstanceOf(FinishReply.Stale.class, finish("p1", job, "1", true), "an ended job ends once");
    }

    @Test
    void reportKeepsProgressAndIsStaleForAnotherAssignment() {
        putPool(0, 2, 10, false);
        processor("p1");
        String job = newJobId();
        submit(job);
        start("p1", job, "1");
        assertEquals(
                new ReportReply.Recorded(),
                call(
                        Script.REPORT,
                        ReportReply.args("p1", job, "1", 3, "{\"step\":3,\"loss\":0.5}", 60, 100),
                        ReportReply::decode));
        assertEquals("{\"step\":3,\"loss\":0.5}", field(KeySchema.job(TYPE, job), "progress"));
        assertInstanceOf(
                ReportReply.Stale.class,
                call(Script.REPORT, ReportReply.args("p1", job, "9", 4, "{\"step\":4}", 60, 100), ReportReply::decode));
    }

    @Test
    void logAppendsLinesToTheJobsStreamWhileItRunsAndTheStreamExpiresWithTheJob() {
        putPool(0, 2, 10, false);
        processor("p1");
        String job = newJobId();
        submit(job);
        assertInstanceOf(
                LogReply.Stale.class,
                call(Script.LOG, LogReply.args("p1", job, "1", 100, List.of("early")), LogReply::decode),
                "not running yet");
        start("p1", job, "1");
        assertEquals(
                new LogReply.Appended(),
                call(Script.LOG, LogReply.args("p1", job, "1", 100, List.of("one", "two")), LogReply::decode));
        call(Script.REPORT, ReportReply.args("p1", job, "1", 1, "{\"step\":1}", 60, 100), ReportReply::decode);
        assertInstanceOf(
                LogReply.Stale.class,
                call(Script.LOG, LogReply.args("p1", job, "2", 100, List.of("fenced")), LogReply::decode),
                "another assignment's copy");
        String events = KeySchema.jobEvents(TYPE, job);
        List<String> kinds = new java.util.ArrayList<>();
        j.xrange(events, (redis.clients.jedis.StreamEntryID) null, null)
                .forEach(e -> kinds.addAll(e.getFields().entrySet().stream()
                        .map(f -> f.getKey() + "=" + f.getValue())
                        .toList()));
        assertEquals(List.of("log=one", "log=two", "report={\"step\":1}"), kinds);
        assertEquals(-1, j.ttl(events), "no expiry while the job runs");
        finish("p1", job, "1", true);
        assertTrue(j.ttl(events) > 0 && j.ttl(events) <= 60, "expires with the job: " + j.ttl(events));
        assertInstanceOf(
                LogReply.Stale.class,
                call(Script.LOG, LogReply.args("p1", job, "1", 100, List.of("late")), LogReply::decode),
                "ended");
        assertEquals(3, j.xlen(events));
    }

    @Test
    void aLogIsCappedNearItsLength() {
        putPool(0, 2, 10, false);
        processor("p1");
        String job = newJobId();
        submit(job);
        start("p1", job, "1");
        List<String> lines = java.util.stream.IntStream.range(0, 500)
                .mapToObj(i -> "line " + i)
                .toList();
        for (int i = 0; i < 4; i++) {
            call(Script.LOG, LogReply.args("p1", job, "1", 100, lines), LogReply::decode);
        }
        long len = j.xlen(KeySchema.jobEvents(TYPE, job));
        assertTrue(len >= 100 && len < 300, "about 100 kept of 2000: " + len);
    }

    /** A sweep through sweep_put, report (the median rule stops the second trial), get, list and cancel. */
    @Test
    void aSweepIsStoredReportedOnReadListedAndCancelled() {
        putPool(0, 2, 10, false);
        processor("p1");
        String sid = "sw-" + TYPE + "-1";
        Map<String, String> sweep = new LinkedHashMap<>(Map.of(
                "type",
                TYPE,
                "parallelism",
                "1",
                "metric",
                "loss",
                "goal",
                "minimize",
                "maxFailedTrials",
                "-1",
                "earlyStopping",
                "median",
                "minSteps",
                "1",
                "minTrials",
                "1",
                "spec",
                "{}"));
        Map<String, String> trials = new LinkedHashMap<>();
        String t1 = newJobId() + "a";
        String t2 = newJobId() + "b";
        String t3 = newJobId() + "c";
        trials.put(t1, "{\"lr\":1}");
        trials.put(t2, "{\"lr\":2}");
        trials.put(t3, "{\"lr\":3}");
        SweepPutReply.Created created = (SweepPutReply.Created) call(
                Script.SWEEP_PUT,
                SweepPutReply.args(
                        sid,
                        Idempotency.NONE,
                        0,
                        sweep,
                        Map.of("type", TYPE, "args", "[]", "maxAttempts", "1"),
                        trials),
                SweepPutReply::decode);
        assertEquals(3, created.total());
        assertEquals("ASSIGNED", field(KeySchema.job(TYPE, t1), "state"), "parallelism 1: the first trial is released");
        assertEquals("PENDING", field(KeySchema.job(TYPE, t2), "state"));

        start("p1", t1, "1");
        assertEquals(
                new ReportReply.Recorded(),
                call(
                        Script.REPORT,
                        ReportReply.args("p1", t1, "1", 1, "{\"step\":1,\"loss\":0.1}", 60, 100),
                        ReportReply::decode));
        FinishReply.Done next = (FinishReply.Done) finish("p1", t1, "1", true);
        assertEquals(t2, next.nextJob(), "the next trial, released and running, in the reply");
        ReportReply stop = call(
                Script.REPORT,
                ReportReply.args("p1", t2, next.nextToken(), 1, "{\"step\":1,\"loss\":0.9}", 60, 100),
                ReportReply::decode);
        assertTrue(stop instanceof ReportReply.Stop s && s.reason().contains("median"), stop.toString());
        assertEquals("EARLY_STOPPED", field(KeySchema.job(TYPE, t2), "state"));

        SweepGetReply.Found found =
                (SweepGetReply.Found) call(Script.SWEEP_GET, SweepGetReply.args(sid), SweepGetReply::decode);
        assertEquals(sid, found.sweep().get("id"));
        assertEquals(
                List.of(t1, t2, t3),
                found.trials().stream().map(t -> t.get("id")).toList());
        assertEquals("{\"loss\":0.1}", found.trials().get(0).get("metrics"));
        assertTrue(SweepGetReply.TRIAL_FIELDS.containsAll(found.trials().get(0).keySet()), "only the fields asked for");
        assertEquals(
                new SweepGetReply.NoSweep(),
                call(Script.SWEEP_GET, SweepGetReply.args("sw-none"), SweepGetReply::decode));

        SweepListReply list = call(Script.SWEEP_LIST, SweepListReply.args(10), SweepListReply::decode);
        assertEquals(List.of(sid), list.sweeps().stream().map(h -> h.get("id")).toList());

        assertEquals(
                new SweepCancelReply.Cancelled(),
                call(Script.SWEEP_CANCEL, SweepCancelReply.args(sid, "enough", 60), SweepCancelReply::decode));
        assertEquals(
                new SweepCancelReply.Ended("CANCELLED"),
                call(Script.SWEEP_CANCEL, SweepCancelReply.args(sid, "again", 60), SweepCancelReply::decode));
        assertEquals(
                new SweepCancelReply.NoSweep(),
                call(Script.SWEEP_CANCEL, SweepCancelReply.args("sw-none", "x", 60), SweepCancelReply::decode));
    }

    /** A sweep of one trial at a time, its trials t1..tn stored; returns the sweep id. */
    static String sweepOf(String goal, String... trialIds) {
        String sid = "sw-" + TYPE + "-" + goal;
        Map<String, String> sweep = new LinkedHashMap<>(Map.of(
                "type",
                TYPE,
                "parallelism",
                "1",
                "metric",
                "loss",
                "goal",
                goal,
                "maxFailedTrials",
                "-1",
                "earlyStopping",
                "median",
                "minSteps",
                "0",
                "minTrials",
                "1",
                "spec",
                "{}"));
        Map<String, String> trials = new LinkedHashMap<>();
        for (String t : trialIds) {
            trials.put(t, "{}");
        }
        call(
                Script.SWEEP_PUT,
                SweepPutReply.args(
                        sid,
                        Idempotency.NONE,
                        0,
                        sweep,
                        Map.of("type", TYPE, "args", "[]", "maxAttempts", "1"),
                        trials),
                SweepPutReply::decode);
        return sid;
    }

    /** Runs the trial that p1 holds (its first attempt): reports {@code value} at steps 0 and 1, finishes with it. */
    static void runTrial(String trial, String value) {
        String token = "1";
        start("p1", trial, token);
        for (int step = 0; step < 2; step++) {
            assertInstanceOf(
                    ReportReply.class,
                    call(
                            Script.REPORT,
                            ReportReply.args(
                                    "p1",
                                    trial,
                                    token,
                                    step,
                                    "{\"step\":" + step + ",\"loss\":" + value + "}",
                                    60,
                                    100),
                            ReportReply::decode));
        }
        assertInstanceOf(
                FinishReply.Done.class,
                call(
                        Script.FINISH,
                        new FinishReply.Args(
                                        "p1",
                                        trial,
                                        token,
                                        "SUCCEEDED",
                                        0,
                                        "{\"loss\":" + value + "}",
                                        "",
                                        null,
                                        60,
                                        false,
                                        false)
                                .argv(),
                        FinishReply::decode));
    }

    @Test
    void nonFiniteObjectivesNeverBecomeBestNorBreakTheMedianRuleOrTheSweepsEnd() {
        putPool(0, 1, 10, false);
        processor("p1");
        String base = newJobId();
        List<String> ids = List.of(base + "a", base + "b", base + "c", base + "d", base + "e", base + "f");
        String sid = sweepOf("minimize", ids.toArray(String[]::new));
        // as agents store them (strings), as a lenient cjson reads bare tokens, and beyond a double's range
        List<String> values = List.of("\"NaN\"", "\"-Infinity\"", "\"Infinity\"", "1e999", "1e308", "0.5");
        for (int i = 0; i < ids.size(); i++) {
            runTrial(ids.get(i), values.get(i));
            assertEquals("SUCCEEDED", field(KeySchema.job(TYPE, ids.get(i)), "state"), "trial " + values.get(i));
        }
        String skey = KeySchema.sweep(TYPE, sid);
        assertEquals("SUCCEEDED", field(skey, "state"));
        assertEquals(ids.get(5), field(skey, "bestTrial"));
        assertEquals(0.5, Double.parseDouble(field(skey, "bestValue")));
        assertEquals("IDLE", field(KeySchema.processor(TYPE, "p1"), "state"), "the processor went on");
    }

    @Test
    void aSweepAnOlderBuildLeftWithNaNInItsBestAndCurvesGoesOnAndCancelsToAnEnd() {
        putPool(0, 1, 10, false);
        processor("p1");
        String base = newJobId();
        String t1 = base + "a";
        String t2 = base + "b";
        String t3 = base + "c";
        String sid = sweepOf("minimize", t1, t2, t3);
        String skey = KeySchema.sweep(TYPE, sid);
        // what the older build's finish left: best 'nan', a curve point 'nan', and t1's end never counted
        j.hset(skey, Map.of("bestTrial", t1, "bestValue", "nan"));
        j.hset(KeySchema.sweepTrial(TYPE, sid, t1), "7", "nan");
        runTrial(t1, "0.25");
        assertEquals(t1, field(skey, "bestTrial"), "a finite value beats a stored 'nan'");
        assertEquals("0.25", field(skey, "bestValue"));
        j.hincrBy(skey, "done", -1); // the uncounted end
        start("p1", t2, "1");
        assertEquals(
                new SweepCancelReply.Cancelled(),
                call(Script.SWEEP_CANCEL, SweepCancelReply.args(sid, "stuck", 60), SweepCancelReply::decode));
        assertEquals("CANCELLED", field(skey, "state"));
        assertTrue(field(skey, "finishedAt") != null, "the stuck sweep is finished, so it expires");
        assertTrue(j.ttl(skey) > 0);
    }

    @Test
    void finishRecordsMetricsItCannotReadAsAFailedJobWithTheReasonAndTheProcessorGoesOn() {
        putPool(0, 1, 10, false);
        processor("p1");
        String job = newJobId();
        assertInstanceOf(SubmitReply.Assigned.class, submit(job));
        start("p1", job, "1");
        call(
                Script.FINISH,
                new FinishReply.Args("p1", job, "1", "SUCCEEDED", 0, "{\"loss\": 0.1", "", null, 60, false, false)
                        .argv(),
                FinishReply::decode);
        assertEquals("FAILED", field(KeySchema.job(TYPE, job), "state"));
        assertEquals("{}", field(KeySchema.job(TYPE, job), "metrics"));
        assertTrue(
                field(KeySchema.job(TYPE, job), "error").contains("its metrics could not be stored"),
                field(KeySchema.job(TYPE, job), "error"));
        assertEquals("IDLE", field(KeySchema.processor(TYPE, "p1"), "state"));
    }

    /** Every script that ends a job publishes its id on the pool's ended channel (what ?wait= wakes on). */
    @Test
    void aJobsEndIsPublishedOnItsPoolsChannel() throws Exception {
        putPool(0, 2, 10, false);
        processor("p1");
        String finished = newJobId() + "f";
        String cancelled = newJobId() + "c";
        submit(finished);
        submit(cancelled);
        java.util.concurrent.BlockingQueue<String> heard = new java.util.concurrent.LinkedBlockingQueue<>();
        redis.clients.jedis.JedisPubSub listener = new redis.clients.jedis.JedisPubSub() {
            @Override
            public void onPMessage(String pattern, String channel, String message) {
                heard.add(channel + " " + message);
            }
        };
        Thread t = new Thread(() -> {
            try (Jedis sub = new Jedis(java.net.URI.create(ON.url()))) {
                sub.psubscribe(listener, KeySchema.ENDED_PATTERN);
            }
        });
        t.setDaemon(true);
        t.start();
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> j.pubsubNumPat() == 1);
        start("p1", finished, "1");
        finish("p1", finished, "1", false);
        call(Script.CANCEL, CancelReply.args(cancelled, "no longer needed", 60), CancelReply::decode);
        assertEquals(KeySchema.ended(TYPE) + " " + finished, heard.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(KeySchema.ended(TYPE) + " " + cancelled, heard.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        listener.punsubscribe();
    }

    @Test
    void cancelSaysWhatTheJobWasAndRefusesAnEndedOrUnknownOne() {
        putPool(0, 2, 10, false);
        String job = newJobId();
        submit(job);
        assertEquals(
                new CancelReply.Cancelled(JobState.QUEUED),
                call(Script.CANCEL, CancelReply.args(job, "no longer needed", 60), CancelReply::decode));
        assertEquals("no longer needed", field(KeySchema.job(TYPE, job), "error"));
        assertEquals(
                new CancelReply.Ended(JobState.CANCELLED),
                call(Script.CANCEL, CancelReply.args(job, "again", 60), CancelReply::decode));
        assertEquals(
                new CancelReply.NoJob(), call(Script.CANCEL, CancelReply.args("nojob", "x", 60), CancelReply::decode));
        String pruned = newJobId();
        submit(pruned);
        call(
                Script.CANCEL,
                CancelReply.args(pruned, "pruned by optuna at step 3", 60, JobState.EARLY_STOPPED),
                CancelReply::decode);
        assertEquals(
                List.of("EARLY_STOPPED", "pruned by optuna at step 3"),
                j.hmget(KeySchema.job(TYPE, pruned), "state", "error"));
    }

    @Test
    void listJobsFiltersByStateNewestFirstWithinTheLimit() {
        putPool(0, 2, 10, false);
        String a = newJobId() + "1";
        String b = newJobId() + "2";
        String c = newJobId() + "3";
        for (String id : List.of(a, b, c)) {
            submit(id);
            j.zadd(KeySchema.jobs(TYPE), List.of(a, b, c).indexOf(id), id); // distinct submit times, c newest
        }
        call(Script.CANCEL, CancelReply.args(b, "x", 60), CancelReply::decode);
        assertEquals(
                List.of(c, a),
                call(Script.LIST_JOBS, ListJobsReply.args(JobState.QUEUED, 10, ""), ListJobsReply::decode)
                        .jobs()
                        .stream()
                        .map(h -> h.get("id"))
                        .toList());
        assertEquals(
                List.of(c, b),
                call(Script.LIST_JOBS, ListJobsReply.args(null, 2, ""), ListJobsReply::decode).jobs().stream()
                        .map(h -> h.get("id"))
                        .toList());
    }

    @Test
    void deregisterRequeuesTheJobItHeldUnchargedAndLostChargesAnAttempt() {
        putPool(0, 3, 10, false);
        processor("p1");
        String job = newJobId();
        submit(job);
        start("p1", job, "1");
        assertEquals(
                new DeregisterReply(JobState.QUEUED),
                call(Script.DEREGISTER, DeregisterReply.args("p1", "stopping", 60), DeregisterReply::decode));
        assertFalse(j.exists(KeySchema.processor(TYPE, "p1")));
        assertEquals("0", field(KeySchema.job(TYPE, job), "attempts"), "a stopped processor charges no attempt");

        processor("p2"); // takes the queued job at registration
        assertEquals(job, field(KeySchema.processor(TYPE, "p2"), "job"));
        assertEquals(
                new LostReply.Alive(),
                call(Script.LOST, LostReply.args("p2", 0, "silent", 60), LostReply::decode),
                "it beat after the deadline");
        assertEquals(
                new LostReply.Lost(job, JobState.QUEUED),
                call(Script.LOST, LostReply.args("p2", Long.MAX_VALUE, "silent", 60), LostReply::decode));
        assertEquals("1", field(KeySchema.job(TYPE, job), "attempts"));
        assertEquals(
                new DeregisterReply(null),
                call(Script.DEREGISTER, DeregisterReply.args("p4", "never was", 60), DeregisterReply::decode));
    }

    @Test
    void retireTakesOnlyAProcessorIdleLongEnough() {
        putPool(0, 2, 10, false);
        processor("p1");
        assertFalse(
                call(Script.RETIRE, RetireReply.args("p1", 0), RetireReply::decode)
                        .retired(),
                "idle since after 0");
        assertTrue(call(Script.RETIRE, RetireReply.args("p1", Long.MAX_VALUE), RetireReply::decode)
                .retired());
        assertEquals(List.of("retire"), j.lrange(KeySchema.inbox(TYPE, "p1"), 0, -1));
        assertEquals("DRAINING", field(KeySchema.processor(TYPE, "p1"), "state"));
    }

    @Test
    void poolDeleteDrainsAndPoolGcCollectsOnceTheProcessorsAreGone() {
        assertEquals(
                new Refused.NoPool(),
                call(Script.POOL_DELETE, PoolDeleteReply.args("gone", 60), PoolDeleteReply::decode));
        putPool(0, 2, 10, false);
        processor("p1");
        submit(newJobId());
        submit(newJobId());
        submit(newJobId());
        assertEquals(
                new PoolDeleteReply.Drained(2, 0),
                call(Script.POOL_DELETE, PoolDeleteReply.args("gone", 60), PoolDeleteReply::decode),
                "two queued cancelled; the busy processor drains when its job ends");
        assertFalse(
                call(Script.POOL_GC, PoolGcReply.args(60), PoolGcReply::decode).collected(),
                "a processor is still there");
        call(Script.DEREGISTER, DeregisterReply.args("p1", "stopped", 60), DeregisterReply::decode);
        assertTrue(j.exists(KeySchema.warmth(TYPE)));
        assertTrue(
                call(Script.POOL_GC, PoolGcReply.args(60), PoolGcReply::decode).collected());
        assertFalse(j.exists(KeySchema.pool(TYPE)));
        assertFalse(j.exists(KeySchema.warmth(TYPE)), "what the pool learned goes with it");
    }

    @Test
    void theScriptsRecordDemandLevelsTheirGapsAndWarmAndColdArrivalsAsWarmthReadsThem() {
        putPool(0, 3, 10, false);
        String warmth = KeySchema.warmth(TYPE);
        String a = newJobId();
        submit(a); // no processor: cold
        assertEquals("1", field(warmth, "d"));
        call(Script.CANCEL, CancelReply.args(a, "changed my mind", 60), CancelReply::decode);
        assertEquals("0", field(warmth, "d"));
        long left = Long.parseLong(field(warmth, "b:1"));
        String b = newJobId();
        submit(b); // demand back at level 1: one gap, in the bin Warmth computes for it
        long reached = Long.parseLong(field(KeySchema.job(TYPE, b), "submittedAt"));
        Warmth.History h = Warmth.History.of(j.hgetAll(warmth));
        assertEquals(1, h.demand());
        assertEquals(0, h.leftAt()[1], "level 1 is in use again");
        assertEquals(1, h.samples(1));
        assertEquals(1, h.counts()[1][Warmth.bin(reached - left)]);
        assertEquals(2, h.cold());
        processor("p1"); // takes the queued job b
        processor("p2"); // idles
        SnapshotReply.Pool before =
                (SnapshotReply.Pool) call(Script.SNAPSHOT, SnapshotReply.args(), SnapshotReply::decode);
        assertEquals("2", before.warmth().get("cold"));
        assertTrue(before.idleNowMs() >= 0);
        String c = newJobId();
        assertInstanceOf(SubmitReply.Assigned.class, submit(c)); // p2 takes it: warm, and its idle time counts
        h = Warmth.History.of(j.hgetAll(warmth));
        assertEquals(List.of(2, 1L, 2L), List.of(h.demand(), h.warm(), h.cold()));
        assertTrue(j.hexists(warmth, "idleMs"));
        String token = field(KeySchema.job(TYPE, c), "attempts");
        start("p2", c, token);
        finish("p2", c, token, false); // demand falls from 2: level 2 left now
        h = Warmth.History.of(j.hgetAll(warmth));
        assertEquals(1, h.demand());
        assertTrue(h.leftAt()[2] >= reached, "level 2 was left when c ended");
    }

    @Test
    void snapshotReadsThePoolAndItsProcessors() {
        putPool(0, 2, 10, false);
        processor("p1");
        SnapshotReply.Pool pool =
                (SnapshotReply.Pool) call(Script.SNAPSHOT, SnapshotReply.args(), SnapshotReply::decode);
        assertEquals(
                List.of("p1"),
                pool.processors().stream().map(SnapshotReply.Row::id).toList());
        assertEquals("IDLE", pool.processors().get(0).state());
        j.del(KeySchema.pool(TYPE));
        assertInstanceOf(
                SnapshotReply.NoPool.class, call(Script.SNAPSHOT, SnapshotReply.args(), SnapshotReply::decode));
    }

    @Test
    void statsCountsTheProcessorsByStateAndReadsTheNamedWarmthFields() {
        putPool(0, 2, 10, false);
        processor("p1");
        processor("p2");
        String a = newJobId();
        assertInstanceOf(SubmitReply.Assigned.class, submit(a));
        dev.warmpool.protocol.StatsReply.Pool s = (dev.warmpool.protocol.StatsReply.Pool)
                call(Script.STATS, dev.warmpool.protocol.StatsReply.args(), dev.warmpool.protocol.StatsReply::decode);
        assertEquals(List.of(0, 1, 1, 0, 0), List.of(s.starting(), s.idle(), s.busy(), s.draining(), s.queued()));
        var ts = (TenantsReply.Tenants) call(Script.TENANTS, TenantsReply.args(), TenantsReply::decode);
        assertEquals(
                List.of("-/1.0/1/0"),
                ts.tenants().stream() // a job with no submitter counts for "-"
                        .map(t -> t.tenant() + "/" + t.weight() + "/" + t.running() + "/" + t.queued())
                        .toList());
        assertEquals(Long.parseLong(j.hget(KeySchema.warmth(TYPE), "warm")), s.warm());
        assertTrue(s.idleNowMs() >= 0);
        j.del(KeySchema.pool(TYPE));
        assertInstanceOf(
                dev.warmpool.protocol.StatsReply.NoPool.class,
                call(Script.STATS, dev.warmpool.protocol.StatsReply.args(), dev.warmpool.protocol.StatsReply::decode));
        assertInstanceOf(TenantsReply.NoPool.class, call(Script.TENANTS, TenantsReply.args(), TenantsReply::decode));
    }

    /** Every script in {@link Script} is called here through {@link #call}; a new script needs its contract test. */
    @Test
    void everyScriptHasItsContractTestHere() throws java.io.IOException {
        String source = java.nio.file.Files.readString(
                java.nio.file.Path.of("src/test/java/dev/warmpool/store/ScriptContractTests.java"));
        List<Script> missing = EnumSet.allOf(Script.class).stream()
                .filter(s -> !source.replaceAll("\\s+", "").contains("call(Script." + s.name() + ","))
                .toList();
        assertEquals(List.of(), missing, "scripts without a contract test in this class");
    }

    /** When the whole class ran, the calls themselves reached every script (the text check above could be fooled). */
    @AfterAll
    static void everyScriptWasCalled() {
        if (CALLED.contains(Script.SWEEP_PUT)
                && CALLED.contains(Script.POOL_GC)
                && CALLED.contains(Script.SPAWN_GANG)) {
            assertEquals(EnumSet.allOf(Script.class), CALLED, "scripts no test here called");
        }
    }
}
