package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.Ids;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.BatchReply;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.NewJob;
import dev.warmpool.protocol.script.PoolPutReply;
import dev.warmpool.protocol.script.Refused;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SnapshotReply;
import dev.warmpool.protocol.script.SpawnReply;
import dev.warmpool.protocol.script.StartReply;
import dev.warmpool.protocol.script.StatsReply;
import dev.warmpool.protocol.script.SubmitReply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The hot-path scripts on a real redis-server (started here on a free port), called as the
 * manager and an agent call them: an agent that finishes a job takes the next one from the
 * reply, already running; a batch is stored whole, best job first, or not at all.
 */
class DispatchScriptTests {
    static final String TYPE = "hot";

    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    static final Jedis j = ON.j;
    static final String PROC = "phot000001";

    @AfterEach
    void everyFieldTheScriptsWroteIsNamedInFields() {
        ON.checkFields();
    }

    @BeforeEach
    void pool() {
        j.flushAll();
        ON.run(
                Script.POOL_PUT,
                PoolPutReply.args("{\"command\":[\"true\"]}", 0, 1, 300_000, "[\"true\"]", "{}", 3, false));
        assertTrue(
                SpawnReply.decode(ON.run(Script.SPAWN, SpawnReply.args(PROC))).recorded());
        assertTrue(
                RegisterReply.decode(ON.run(Script.REGISTER, RegisterReply.args(PROC, 1, "host", "")))
                        instanceof RegisterReply.Registered);
    }

    /** Scripts are read and hashed on first use: each one's resource is there and Redis knows it by that SHA1. */
    @Test
    void everyScriptLoadsUnderTheShaItIsCalledBy() {
        for (Script s : Script.values()) {
            assertEquals(s.sha(), j.scriptLoad(s.source()), s.name());
        }
    }

    /** A job through submit.lua's production arguments and decoded reply (a swap in either fails here). */
    static String submit(String priority) {
        String id = Ids.newJobId(TYPE, System.currentTimeMillis());
        SubmitReply reply = SubmitReply.decode(ON.run(
                Script.SUBMIT,
                SubmitReply.args(
                        new NewJob(
                                id,
                                Integer.parseInt(priority),
                                Map.of("id", id, "type", TYPE, "args", "[\"" + id + "\"]")),
                        Idempotency.NONE)));
        assertTrue(reply instanceof SubmitReply.Assigned || reply instanceof SubmitReply.Queued, reply.toString());
        return id;
    }

    /** A job's end through finish.lua's production arguments and decoded reply, as the agent reports it. */
    static FinishReply finish(String job, String token, String take) {
        return FinishReply.decode(ON.run(
                Script.FINISH,
                new FinishReply.Args(PROC, job, token, "SUCCEEDED", 0, "{}", "", null, 60, false, "1".equals(take))
                        .argv()));
    }

    static List<String> inbox() {
        return j.lrange(KeySchema.inbox(TYPE, PROC), 0, -1);
    }

    @Test
    void anAgentThatTakesItsNextJobGetsItRunningInTheReplyAndNoInboxMessage() {
        String first = submit("0");
        assertEquals(List.of("job " + first + " 1"), inbox(), "an idle processor hears of a job in its inbox");
        j.del(KeySchema.inbox(TYPE, PROC));
        assertTrue(
                StartReply.decode(ON.run(Script.START, StartReply.args(PROC, first, "1")))
                        instanceof StartReply.Running);
        String second = submit("0");
        String third = submit("0");

        FinishReply.Done r = (FinishReply.Done) finish(first, "1", "1");
        assertEquals(
                List.of(second, "1", "[\"" + second + "\"]"),
                List.of(r.nextJob(), r.nextToken(), r.next().argsJson()));
        assertEquals(List.of(), inbox(), "the reply told the agent; nothing waits in the inbox");
        assertEquals("RUNNING", j.hget(KeySchema.job(TYPE, second), "state"));
        assertTrue(j.hget(KeySchema.job(TYPE, second), "startedAt") != null);
        assertEquals(second, j.hget(KeySchema.processor(TYPE, PROC), "job"));

        // without take (an agent of an earlier version), the next job goes through the inbox as before
        assertEquals(new FinishReply.Done(third, "", null), finish(second, "1", "0"));
        assertEquals(List.of("job " + third + " 1"), inbox());
        assertEquals("ASSIGNED", j.hget(KeySchema.job(TYPE, third), "state"));

        // an empty queue: the processor turns idle whichever way
        assertTrue(
                StartReply.decode(ON.run(Script.START, StartReply.args(PROC, third, "1")))
                        instanceof StartReply.Running);
        assertEquals(new FinishReply.Done("", "", null), finish(third, "1", "1"));
        assertEquals(
                new StartReply.Stale("processor holds "),
                StartReply.decode(ON.run(Script.START, StartReply.args(PROC, third, "1"))),
                "a start for a job the processor no longer holds is stale");
        assertEquals("IDLE", j.hget(KeySchema.processor(TYPE, PROC), "state"));
    }

    /**
     * What a scrape reads (stats.lua) comes from what the scripts counted, with no manager: the
     * processors by state, the queue, the ends by state, and each job's queue wait and run time
     * in the bucket of its length (the times here are set back by known amounts).
     */
    @Test
    void theStatsOfAPoolCountWhatTheScriptsDidAndTimeEachWaitAndRun() {
        String first = submit("0");
        assertTrue(
                StartReply.decode(ON.run(Script.START, StartReply.args(PROC, first, "1")))
                        instanceof StartReply.Running);
        String second = submit("0");
        StatsReply.Pool before = (StatsReply.Pool) StatsReply.decode(ON.run(Script.STATS, StatsReply.args()));
        assertEquals(
                List.of(0, 0, 1, 0, 1),
                List.of(before.starting(), before.idle(), before.busy(), before.draining(), before.queued()));
        assertEquals(1, before.queueWait().count(), "the first job started; the second waits");
        assertEquals(0, before.run().count());

        List<String> t = j.time();
        long now = Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
        j.hset(
                KeySchema.job(TYPE, second),
                "submittedAt",
                Long.toString(now - 2_000)); // waits ~2 s: bucket (1 s, 2.5 s]
        j.hset(
                KeySchema.job(TYPE, first),
                "startedAt",
                Long.toString(now - 400)); // runs ~0.4 s: bucket (250 ms, 500 ms]
        finish(first, "1", "1");
        StatsReply.Pool after = (StatsReply.Pool) StatsReply.decode(ON.run(Script.STATS, StatsReply.args()));
        assertEquals(List.of(1, 0), List.of(after.busy(), after.queued()));
        assertEquals(1L, after.ended().get("SUCCEEDED"));
        assertEquals(0L, after.ended().get("FAILED"));
        assertEquals(2, after.warm() + after.cold(), "both jobs counted as submitted");
        assertEquals(2, after.queueWait().count());
        assertEquals(
                1,
                after.queueWait().buckets()[StatsReply.BOUNDS_MS.indexOf(2500L)],
                Arrays.toString(after.queueWait().buckets()));
        assertEquals(1, after.run().count());
        assertEquals(
                1,
                after.run().buckets()[StatsReply.BOUNDS_MS.indexOf(500L)],
                Arrays.toString(after.run().buckets()));
        assertTrue(
                after.run().sumMs() >= 400 && after.run().sumMs() < 1_400,
                "run sum " + after.run().sumMs());
        assertTrue(
                after.queueWait().sumMs() >= 2_000,
                "wait sum " + after.queueWait().sumMs());
        assertEquals(
                new StatsReply.NoPool(),
                StatsReply.decode(j.eval(
                        Script.STATS.source(),
                        List.of(KeySchema.pool("no-pool")),
                        List.of(KeySchema.prefix("no-pool")))));
    }

    /** The buckets the scripts count in are the ones the histograms are exported with. */
    @Test
    void theLuaBucketBoundsAreTheExportedOnes() throws Exception {
        String lua = new String(
                Script.class.getResourceAsStream("/lua/lib/warmth.lua").readAllBytes(), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("TIMING_BOUNDS = \\{([^}]*)\\}").matcher(lua);
        assertTrue(m.find(), "lib/warmth.lua names TIMING_BOUNDS");
        assertEquals(
                StatsReply.BOUNDS_MS,
                Arrays.stream(m.group(1).split(","))
                        .map(String::trim)
                        .map(Long::valueOf)
                        .toList());
    }

    /** A batch through submit_batch.lua's production arguments and decoded reply. */
    static BatchReply batch(String idem, String fingerprint, String... priorities) {
        List<NewJob> jobs = new ArrayList<>();
        for (String priority : priorities) {
            String id = Ids.newJobId(TYPE, System.currentTimeMillis());
            jobs.add(new NewJob(id, Integer.parseInt(priority), Map.of("id", id, "type", TYPE, "priority", priority)));
        }
        return BatchReply.decode(
                ON.run(Script.SUBMIT_BATCH, BatchReply.args(jobs, new Idempotency(idem, fingerprint, 60))));
    }

    @Test
    void aBatchGivesItsBestJobToTheIdleProcessorAndQueuesTheRestInOrder() {
        BatchReply r = batch("", "", "0", "7", "0");
        assertEquals(List.of("", PROC, ""), ((BatchReply.Taken) r).processors());
        String best = j.hget(KeySchema.processor(TYPE, PROC), "job");
        assertEquals("ASSIGNED", j.hget(KeySchema.job(TYPE, best), "state"));
        assertEquals(
                "7", j.hget(KeySchema.job(TYPE, best), "priority"), "the best job, second in the batch, runs first");
        List<String> queue = j.zrange(KeySchema.tenantQueue(TYPE, "-"), 0, -1); // no submitter: tenant "-"
        assertEquals(2, queue.size());
        // the queue keeps the batch's order among equal priorities
        List<String> submitted = j.zrange(KeySchema.jobs(TYPE), 0, -1);
        assertEquals(3, submitted.size());
        assertTrue(queue.stream().allMatch(submitted::contains));
        List<Long> seqs = queue.stream()
                .map(id -> Long.parseLong(j.hget(KeySchema.job(TYPE, id), "score")))
                .toList();
        assertEquals(seqs.stream().sorted().toList(), seqs);
    }

    @Test
    void aBatchThatWouldNotFitInTheQueueIsRefusedWholeAndARepeatedKeyAnswersWithTheFirstBatch() {
        assertEquals(
                new Refused.Full(0),
                batch("", "", "0", "0", "0", "0", "0"),
                "five jobs, one idle processor and room for three queued: refused, though four would fit");
        assertEquals(0L, j.zcard(KeySchema.jobs(TYPE)));
        assertEquals("IDLE", j.hget(KeySchema.processor(TYPE, PROC), "state"));

        assertTrue(batch("key1", "fp1", "0", "0") instanceof BatchReply.Taken);
        List<String> ids = j.zrange(KeySchema.jobs(TYPE), 0, -1);
        Refused.Duplicate again = (Refused.Duplicate) batch("key1", "fp1", "0", "0");
        assertEquals(
                ids.stream().sorted().toList(),
                List.of(again.first().split(",")).stream().sorted().toList());
        assertEquals("fp1", again.fingerprint());
        assertEquals(2L, j.zcard(KeySchema.jobs(TYPE)));
    }

    @Test
    void aSnapshotReadsEachProcessorByTheFieldsTheProtocolNames() {
        SnapshotReply.Pool pool =
                (SnapshotReply.Pool) SnapshotReply.decode(ON.run(Script.SNAPSHOT, SnapshotReply.args()));
        assertEquals(
                List.of(PROC),
                pool.processors().stream().map(SnapshotReply.Row::id).toList());
        SnapshotReply.Row row = pool.processors().get(0);
        assertEquals(j.hget(KeySchema.processor(TYPE, PROC), "state"), row.state());
        assertEquals(Long.parseLong(j.hget(KeySchema.processor(TYPE, PROC), "since")), row.since());
        assertEquals(Long.parseLong(j.hget(KeySchema.processor(TYPE, PROC), "hb")), row.heartbeat());
        assertEquals(List.of(), pool.gangs());
        assertEquals("ACTIVE", pool.pool().get("state"));
        List<String> argv = new ArrayList<>(List.of(KeySchema.prefix("no-pool")));
        argv.addAll(SnapshotReply.args());
        assertTrue(
                SnapshotReply.decode(j.eval(Script.SNAPSHOT.source(), List.of(KeySchema.pool("no-pool")), argv))
                        instanceof SnapshotReply.NoPool);
    }
}
