package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.Ids;
import dev.warmpool.protocol.Fields;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.CancelReply;
import dev.warmpool.protocol.script.DeregisterReply;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.NewJob;
import dev.warmpool.protocol.script.PoolPutReply;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SnapshotReply;
import dev.warmpool.protocol.script.SpawnReply;
import dev.warmpool.protocol.script.SubmitReply;
import dev.warmpool.protocol.script.TenantsReply;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * Fair share between tenants (lua/lib/tenants.lua) in the scripts themselves, on a real redis-server:
 * four processors whose agents finish their jobs in turn, each job made to have held its processor
 * 200 ms (its {@code chargedFrom} set back before it ends), so processor-seconds and decay are told
 * with explicit times rather than a clock the test waits on.
 */
class FairShareScriptTests {
    static final String TYPE = "fair";
    static final List<String> PROCS = List.of("pfair00001", "pfair00002", "pfair00003", "pfair00004");

    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    static final Jedis j = ON.j;

    @AfterEach
    void everyFieldTheScriptsWroteIsNamedInFields() {
        ON.checkFields();
    }

    @BeforeEach
    void flush() {
        j.flushAll();
    }

    /** The pool with {@code fair} as pool_put stores it, and four idle processors. */
    static void pool(String fair) {
        ON.run(
                Script.POOL_PUT,
                PoolPutReply.args("{\"command\":[\"true\"]}", 0, 4, 300_000, "[\"true\"]", "{}", 100_000, false, fair));
        for (String p : PROCS) {
            ON.run(Script.SPAWN, SpawnReply.args(p));
            assertInstanceOf(
                    RegisterReply.Registered.class,
                    RegisterReply.decode(ON.run(Script.REGISTER, RegisterReply.args(p, 1, "host", ""))));
        }
    }

    static String submit(String submitter) {
        return submit(submitter, 0);
    }

    static String submit(String submitter, int priority) {
        String id = Ids.newJobId(TYPE, System.currentTimeMillis());
        SubmitReply r = SubmitReply.decode(ON.run(
                Script.SUBMIT,
                SubmitReply.args(
                        new NewJob(id, priority, Map.of("id", id, "type", TYPE, "submittedBy", submitter)),
                        Idempotency.NONE)));
        assertTrue(r instanceof SubmitReply.Assigned || r instanceof SubmitReply.Queued, r.toString());
        return id;
    }

    /** Redis's clock, ms. */
    static long now() {
        List<String> t = j.time();
        return Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
    }

    /** The job on {@code proc} ends, having held it {@code heldMs}; the agent takes its next one from the reply. */
    static String finish(String proc, long heldMs) {
        List<String> p = j.hmget(KeySchema.processor(TYPE, proc), "job", "token");
        if (j.hexists(KeySchema.job(TYPE, p.get(0)), "chargedFrom")) {
            j.hset(KeySchema.job(TYPE, p.get(0)), "chargedFrom", Long.toString(now() - heldMs));
        }
        FinishReply r = FinishReply.decode(ON.run(
                Script.FINISH,
                new FinishReply.Args(proc, p.get(0), p.get(1), "SUCCEEDED", 0, "{}", "", null, 60, false, true)
                        .argv()));
        return ((FinishReply.Done) r).nextJob();
    }

    static String tenantOf(String job) {
        return j.hget(KeySchema.job(TYPE, job), "tenant");
    }

    static Map<String, TenantsReply.Tenant> tenants() {
        Map<String, TenantsReply.Tenant> out = new LinkedHashMap<>();
        ((TenantsReply.Tenants) TenantsReply.decode(ON.run(Script.TENANTS, List.of())))
                .tenants()
                .forEach(t -> out.put(t.tenant(), t));
        return out;
    }

    static int running(String tenant) {
        String r = j.hget(KeySchema.tenant(TYPE, tenant), "running");
        return r == null ? 0 : Integer.parseInt(r);
    }

    @Test
    void aNewcomersJobsRunAheadOfAFloodAndShareTheProcessorsEvenly() {
        pool("");
        List<String> alice = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            alice.add(submit("alice"));
        }
        List<String> bob = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            bob.add(submit("bob"));
        }
        assertEquals(4, running("alice"), "alice's flood took every processor before bob came");
        assertEquals("bob", tenantOf(finish(PROCS.get(0), 200)), "the first processor to come free is bob's");
        List<String> started = new ArrayList<>();
        for (int turn = 1; started.stream().filter(bob::contains).count() < 9; turn++) {
            String next = finish(PROCS.get(turn % 4), 200);
            started.add(next);
            assertTrue(running("bob") <= 2 && running("alice") >= 2, "bob holds at most half: " + running("bob"));
        }
        long aliceStarted = started.stream().filter(alice::contains).count();
        assertTrue(aliceStarted <= 12, "bob's 10 jobs all started while alice started " + aliceStarted);
        assertEquals(0, tenants().get("bob").queued());
        assertEquals(200 - 4 - aliceStarted, tenants().get("alice").queued());
    }

    @Test
    void weightsTwoToOneGiveProcessorSecondsTwoToOneUnderSaturation() {
        pool("{\"on\":true,\"halfLife\":3600,\"shares\":{\"alice\":2,\"bob\":1},\"maxRunning\":{},\"groupOf\":{}}");
        for (int i = 0; i < 500; i++) {
            submit("alice");
            submit("bob");
        }
        // 30 s of four processors busy with 200 ms jobs: 600 ends, the processors coming free in turn
        for (int turn = 0; turn < 600; turn++) {
            finish(PROCS.get(turn % 4), 200);
        }
        Map<String, TenantsReply.Tenant> t = tenants();
        double ratio = t.get("alice").secondsTotal() / t.get("bob").secondsTotal();
        assertTrue(Math.abs(ratio - 2.0) <= 0.2, "processor-seconds alice:bob = " + ratio + ", not 2:1 within 10 %");
        assertEquals(2.0, t.get("alice").weight());
    }

    @Test
    void maxRunningHoldsATenantAtItsCapWhileIdleProcessorsServeTheOthers() {
        pool("{\"on\":true,\"halfLife\":3600,\"shares\":{},\"maxRunning\":{\"bob\":1},\"groupOf\":{}}");
        List<String> bob = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            bob.add(submit("bob"));
        }
        assertEquals(1, running("bob"));
        assertEquals(3L, j.zcard(KeySchema.idle(TYPE)), "bob's cap leaves three processors idle");
        assertEquals(4, tenants().get("bob").queued());
        String a = submit("alice");
        assertEquals("ASSIGNED", j.hget(KeySchema.job(TYPE, a), "state"), "alice runs at once beside bob");
        // bob's running job is cancelled: its processor is busy until its agent reports, an idle one takes his next
        ON.run(Script.CANCEL, CancelReply.args(bob.get(0), "test", 60));
        assertEquals(1, running("bob"));
        assertEquals("ASSIGNED", j.hget(KeySchema.job(TYPE, bob.get(1)), "state"), "work-conserving: no waiting");
        for (int turn = 0; turn < 20; turn++) {
            String proc = PROCS.get(turn % 4);
            if (j.hget(KeySchema.processor(TYPE, proc), "job").isEmpty()) {
                continue;
            }
            finish(proc, 200);
            assertTrue(running("bob") <= 1, "bob never holds two processors: " + running("bob"));
        }
        assertEquals(0, tenants().get("bob").queued(), "bob's jobs all ran, one at a time");
    }

    @Test
    void theSnapshotCountsACappedTenantsBacklogOnlyAsFarAsItsCapLetsItRun() {
        pool("{\"on\":true,\"halfLife\":3600,\"shares\":{},\"maxRunning\":{\"bob\":2},\"groupOf\":{}}");
        for (int i = 0; i < 4; i++) {
            submit("alice"); // takes the four processors
        }
        for (int i = 0; i < 6; i++) {
            submit("bob");
        }
        submit("alice");
        SnapshotReply.Pool snap =
                (SnapshotReply.Pool) SnapshotReply.decode(ON.run(Script.SNAPSHOT, SnapshotReply.args()));
        assertEquals(7, snap.queued(), "every queued job is counted as queued");
        assertEquals(
                "3",
                snap.pool().get(Fields.PoolHash.RUNNABLE),
                "bob's six count as the two his cap lets run, alice's one as one");
        finish(PROCS.get(0), 200); // bob takes it: one more of his may run
        snap = (SnapshotReply.Pool) SnapshotReply.decode(ON.run(Script.SNAPSHOT, SnapshotReply.args()));
        assertEquals(1, running("bob"));
        assertEquals("2", snap.pool().get(Fields.PoolHash.RUNNABLE));
    }

    @Test
    void oneTenantAloneUsesEveryProcessor() {
        pool("");
        for (int i = 0; i < 10; i++) {
            submit("alice");
        }
        assertEquals(4, running("alice"));
        assertEquals(0L, j.zcard(KeySchema.idle(TYPE)));
        finish(PROCS.get(2), 200);
        assertEquals(4, running("alice"), "a freed processor takes alice's next job: nobody else waits");
    }

    @Test
    void withFairShareOffAFloodRunsFirstByPriorityThenAge() {
        pool("{\"on\":false,\"halfLife\":3600,\"shares\":{},\"maxRunning\":{},\"groupOf\":{}}");
        for (int i = 0; i < 20; i++) {
            submit("alice");
        }
        String bob = submit("bob");
        String urgent = submit("carol", 5);
        assertEquals(urgent, finish(PROCS.get(0), 200), "priority first, across tenants");
        for (int turn = 1; turn <= 16; turn++) {
            assertEquals("alice", tenantOf(finish(PROCS.get(turn % 4), 200)), "then age: alice's flood is older");
        }
        assertEquals(bob, finish(PROCS.get(1), 200));
    }

    @Test
    void usageDecaysByHalfEveryHalfLifeAndAHalfLifeOfZeroCountsOnlyRunningJobs() {
        pool("{\"on\":true,\"halfLife\":60,\"shares\":{\"alice\":2},\"maxRunning\":{},\"groupOf\":{}}");
        String tkey = KeySchema.tenant(TYPE, "alice");
        j.sadd(KeySchema.tenants(TYPE), "alice");
        j.hset(tkey, Map.of("running", "0", "usage", "100", "usageAt", Long.toString(now() - 60_000)));
        TenantsReply.Tenant t = tenants().get("alice");
        assertEquals(50.0, t.usageSeconds(), 0.1, "one half-life ago: half");
        assertEquals(50.0 / 60 / 2, t.share(), 0.001, "share = (running + usage / halfLife) / weight");
        j.hset(tkey, "usageAt", Long.toString(now() - 120_000));
        assertEquals(25.0, tenants().get("alice").usageSeconds(), 0.1, "two half-lives ago: a quarter");

        // an update decays first, then adds what the ended job held
        String job = submit("alice");
        j.hset(tkey, Map.of("usage", "100", "usageAt", Long.toString(now() - 60_000)));
        String proc = j.hget(KeySchema.job(TYPE, job), "processor");
        finish(proc, 10_000);
        assertEquals(60.0, Double.parseDouble(j.hget(tkey, "usage")), 0.1, "100 halved, plus the job's 10 s");
        assertEquals(10.0, tenants().get("alice").secondsTotal(), 0.1, "the counter is never decayed");

        pool("{\"on\":true,\"halfLife\":0,\"shares\":{\"alice\":2},\"maxRunning\":{},\"groupOf\":{}}");
        submit("alice");
        t = tenants().get("alice");
        assertEquals(0.0, t.usageSeconds(), "a half-life of 0: past usage does not count");
        assertEquals(0.5, t.share(), 1e-9, "only the running job, over the weight");
    }

    @Test
    void jobsQueuedBeforeFairShareAreMovedToTheirTenantsAndRun() {
        pool("");
        for (String p : PROCS) {
            ON.run(Script.DEREGISTER, DeregisterReply.args(p, "test", 60));
        }
        // as an earlier version stored them: no tenant, the pool's one queue
        List<String> old = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = Ids.newJobId(TYPE, System.currentTimeMillis());
            j.hset(
                    KeySchema.job(TYPE, id),
                    Map.of("id", id, "state", "QUEUED", "attempts", "0", "submittedBy", "dave"));
            j.zadd(KeySchema.queue(TYPE), 1e15 + i, id);
            old.add(id);
        }
        ON.run(Script.SPAWN, SpawnReply.args(PROCS.get(0)));
        RegisterReply r = RegisterReply.decode(ON.run(Script.REGISTER, RegisterReply.args(PROCS.get(0), 1, "h", "")));
        assertEquals(old.get(0), ((RegisterReply.Registered) r).jobId(), "the oldest job runs first, as before");
        assertEquals("dave", tenantOf(old.get(0)));
        assertTrue(!j.exists(KeySchema.queue(TYPE)), "the old queue is gone once moved");
        assertEquals(2, tenants().get("dave").queued());
    }
}
