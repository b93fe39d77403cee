package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.policy.Warmth;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.protocol.script.CancelReply;
import dev.warmpool.protocol.script.DeregisterReply;
import dev.warmpool.protocol.script.HeartbeatReply;
import dev.warmpool.protocol.script.LostReply;
import dev.warmpool.protocol.script.PoolDeleteReply;
import dev.warmpool.protocol.script.PoolGcReply;
import dev.warmpool.protocol.script.PoolPutReply;
import dev.warmpool.protocol.script.Refused;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.RetireReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SnapshotReply;
import dev.warmpool.protocol.script.SpawnGangReply;
import dev.warmpool.protocol.script.SpawnReply;
import dev.warmpool.protocol.script.StartFailedReply;
import dev.warmpool.protocol.script.StatsReply;
import dev.warmpool.protocol.script.SubmitReply;
import dev.warmpool.protocol.script.TenantsReply;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract tests of the pool and processor scripts: pool_put, spawn, spawn_gang, register, heartbeat, deregister, lost, retire, pool_delete, pool_gc, snapshot, stats, and what they record of warmth (see {@link ScriptContract}). */
class PoolScriptContractTests extends ScriptContract {
    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    PoolScriptContractTests() {
        super(ON);
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
    void aProcessorLostBeforeItRegisteredLeavesWhyOnItsPoolUntilThePoolIsPutAgain() {
        putPool(0, 3, 10, false);
        String pool = KeySchema.pool(TYPE);
        assertTrue(call(Script.SPAWN, SpawnReply.args("p1"), SpawnReply::decode).recorded());
        call(
                Script.LOST,
                LostReply.args("p1", Long.MAX_VALUE, "could not start: no such image", 60),
                LostReply::decode);
        assertEquals("could not start: no such image", field(pool, "startError"));
        assertTrue(Long.parseLong(field(pool, "startErrorAt")) > 0);
        SnapshotReply.Pool snap =
                (SnapshotReply.Pool) call(Script.SNAPSHOT, SnapshotReply.args(), SnapshotReply::decode);
        assertEquals("could not start: no such image", snap.pool().get("startError"), "the API reads it");

        processor("p2");
        call(Script.LOST, LostReply.args("p2", Long.MAX_VALUE, "silent", 60), LostReply::decode);
        assertEquals(
                "could not start: no such image",
                field(pool, "startError"),
                "a processor lost after it registered says nothing of starting");

        putPool(0, 3, 10, false);
        assertNull(field(pool, "startError"), "a new spec gets a fresh verdict");
        assertNull(field(pool, "startErrorAt"));
    }

    @Test
    void aProcessorThatCannotServeLeavesWhyForLostToPutOnItsPool() {
        putPool(0, 3, 10, false);
        String pool = KeySchema.pool(TYPE);
        String why = "the persistent worker [python3, w.py] exited at once (exit 1): No module named 'torch'";
        assertTrue(call(Script.SPAWN, SpawnReply.args("p1"), SpawnReply::decode).recorded());
        assertTrue(call(Script.START_FAILED, StartFailedReply.args("p1", why), StartFailedReply::decode)
                .recorded());
        call(
                Script.LOST,
                LostReply.args("p1", Long.MAX_VALUE, "processor p1 was lost (its process exited)", 60),
                LostReply::decode);
        assertEquals(why, field(pool, "startError"), "the agent's own reason, not the manager's guess");

        assertFalse(
                call(Script.START_FAILED, StartFailedReply.args("p1", "again"), StartFailedReply::decode)
                        .recorded(),
                "a processor Redis no longer has");
        assertFalse(j.exists(KeySchema.processor(TYPE, "p1")), "is not brought back by a stray field");
        processor("p2");
        assertFalse(
                call(Script.START_FAILED, StartFailedReply.args("p2", "late"), StartFailedReply::decode)
                        .recorded(),
                "a registered processor is not starting");
        assertNull(field(KeySchema.processor(TYPE, "p2"), "startError"));
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
                new LostReply.Gone(),
                call(Script.LOST, LostReply.args("p2", Long.MAX_VALUE, "silent", 60), LostReply::decode),
                "a processor found lost twice (its exit, then a pass) is handled once");
        assertEquals("1", field(KeySchema.job(TYPE, job), "attempts"), "the second call charged nothing");
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
        j.zadd(KeySchema.sweeps(TYPE), 1, "s1"); // a sweep of the pool, as sweep_put lists it
        assertTrue(
                call(Script.POOL_GC, PoolGcReply.args(60), PoolGcReply::decode).collected());
        assertFalse(j.exists(KeySchema.pool(TYPE)));
        assertFalse(j.exists(KeySchema.warmth(TYPE)), "what the pool learned goes with it");
        assertTrue(j.ttl(KeySchema.jobs(TYPE)) > 0, "the job index expires with its jobs");
        assertTrue(j.ttl(KeySchema.sweeps(TYPE)) > 0, "and the sweep index with its sweeps");
        putPool(0, 2, 10, false);
        assertEquals(-1, j.ttl(KeySchema.jobs(TYPE)), "a new pool of the type keeps its job index");
        assertEquals(-1, j.ttl(KeySchema.sweeps(TYPE)), "and its sweep index");
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
        long idleFrom = System.currentTimeMillis();
        processor("p2"); // idles
        SnapshotReply.Pool before =
                (SnapshotReply.Pool) call(Script.SNAPSHOT, SnapshotReply.args(), SnapshotReply::decode);
        // two processors up at most this long (Redis's clock is this machine's)
        long idleAtMost = 2 * (System.currentTimeMillis() - idleFrom + 1);
        assertEquals("2", before.warmth().get("cold"));
        assertTrue(
                before.idleNowMs() >= 0 && before.idleNowMs() <= idleAtMost,
                "idle time so far, " + before.idleNowMs() + " ms, within the " + idleAtMost
                        + " ms two processors have been up");
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
        long idleFrom = System.currentTimeMillis();
        processor("p1");
        processor("p2");
        String a = newJobId();
        assertInstanceOf(SubmitReply.Assigned.class, submit(a));
        StatsReply.Pool s = (StatsReply.Pool) call(Script.STATS, StatsReply.args(), StatsReply::decode);
        long idleAtMost = 2 * (System.currentTimeMillis() - idleFrom + 1); // two processors up at most this long
        assertEquals(List.of(0, 1, 1, 0, 0), List.of(s.starting(), s.idle(), s.busy(), s.draining(), s.queued()));
        var ts = (TenantsReply.Tenants) call(Script.TENANTS, TenantsReply.args(), TenantsReply::decode);
        assertEquals(
                List.of("-/1.0/1/0"),
                ts.tenants().stream() // a job with no submitter counts for "-"
                        .map(t -> t.tenant() + "/" + t.weight() + "/" + t.running() + "/" + t.queued())
                        .toList());
        assertEquals(Long.parseLong(j.hget(KeySchema.warmth(TYPE), "warm")), s.warm());
        assertTrue(
                s.idleNowMs() >= 0 && s.idleNowMs() <= idleAtMost,
                "idle time so far, " + s.idleNowMs() + " ms, within the " + idleAtMost
                        + " ms two processors have been up");
        j.del(KeySchema.pool(TYPE));
        assertInstanceOf(StatsReply.NoPool.class, call(Script.STATS, StatsReply.args(), StatsReply::decode));
        assertInstanceOf(TenantsReply.NoPool.class, call(Script.TENANTS, TenantsReply.args(), TenantsReply::decode));
    }
}
