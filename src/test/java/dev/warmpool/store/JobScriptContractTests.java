package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.BatchReply;
import dev.warmpool.protocol.script.CancelReply;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.ListJobsReply;
import dev.warmpool.protocol.script.LogReply;
import dev.warmpool.protocol.script.NewJob;
import dev.warmpool.protocol.script.Refused;
import dev.warmpool.protocol.script.ReportReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.StartReply;
import dev.warmpool.protocol.script.SubmitReply;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** The contract tests of the job scripts: submit, submit_batch, start, report, log, finish, cancel, list_jobs (see {@link ScriptContract}). */
class JobScriptContractTests extends ScriptContract {
    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    JobScriptContractTests() {
        super(ON);
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
        List<String> kinds = new ArrayList<>();
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
        List<String> lines = IntStream.range(0, 500).mapToObj(i -> "line " + i).toList();
        for (int i = 0; i < 4; i++) {
            call(Script.LOG, LogReply.args("p1", job, "1", 100, lines), LogReply::decode);
        }
        long len = j.xlen(KeySchema.jobEvents(TYPE, job));
        assertTrue(len >= 100 && len < 300, "about 100 kept of 2000: " + len);
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

    /**
     * Every script that ends a job publishes its id on the pool's ended channel (what ?wait= wakes
     * on), with the ended job's hash as it stands after the script (what a waiter answers from).
     */
    @Test
    void aJobsEndIsPublishedOnItsPoolsChannel() throws Exception {
        putPool(0, 2, 10, false);
        processor("p1");
        String finished = newJobId() + "f";
        String cancelled = newJobId() + "c";
        submit(finished);
        submit(cancelled);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        redis.clients.jedis.JedisPubSub listener = new redis.clients.jedis.JedisPubSub() {
            @Override
            public void onPMessage(String pattern, String channel, String message) {
                heard.add(channel + " " + message);
            }
        };
        Thread t = new Thread(() -> {
            try (Jedis sub = new Jedis(URI.create(on.url()))) {
                sub.psubscribe(listener, KeySchema.ENDED_PATTERN);
            }
        });
        t.setDaemon(true);
        t.start();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> j.pubsubNumPat() == 1);
        start("p1", finished, "1");
        finish("p1", finished, "1", false);
        call(Script.CANCEL, CancelReply.args(cancelled, "no longer needed", 60), CancelReply::decode);
        for (String id : List.of(finished, cancelled)) {
            String message = heard.poll(10, TimeUnit.SECONDS);
            String prefix = KeySchema.ended(TYPE) + " " + id + "\n";
            assertTrue(message != null && message.startsWith(prefix), message);
            String[] flat = new ObjectMapper().readValue(message.substring(prefix.length()), String[].class);
            Map<String, String> carried = new HashMap<>();
            for (int i = 0; i + 1 < flat.length; i += 2) {
                carried.put(flat[i], flat[i + 1]);
            }
            assertEquals(j.hgetAll(KeySchema.job(TYPE, id)), carried, id);
        }
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
    void aJobStaysListedWhileItIsKeptHoweverLongAgoItWasSubmitted() {
        putPool(0, 2, 10, false);
        processor("p1");
        processor("p2");
        String longRunning = newJobId() + "1";
        String other = newJobId() + "2";
        submit(longRunning);
        submit(other);
        String expired = newJobId() + "3"; // listed, but its hash has expired
        j.zadd(KeySchema.jobs(TYPE), 0, longRunning); // both submitted long before the retention (60 s)
        j.zadd(KeySchema.jobs(TYPE), 0, expired);
        String p1 = field(KeySchema.job(TYPE, longRunning), "processor");
        String p2 = field(KeySchema.job(TYPE, other), "processor");
        start(p1, longRunning, field(KeySchema.processor(TYPE, p1), "token"));
        String token = field(KeySchema.processor(TYPE, p2), "token");
        start(p2, other, token);
        finish(p2, other, token, true);
        assertEquals(
                List.of(longRunning, other),
                j.zrange(KeySchema.jobs(TYPE), 0, -1),
                "the running job stays listed, the expired one leaves");
        token = field(KeySchema.processor(TYPE, p1), "token");
        finish(p1, longRunning, token, true);
        assertTrue(j.zrank(KeySchema.jobs(TYPE), longRunning) != null, "an ended job is listed while it is kept");
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
}
