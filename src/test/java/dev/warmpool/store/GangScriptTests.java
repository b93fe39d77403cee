package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.Ids;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.DeregisterReply;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.LostReply;
import dev.warmpool.protocol.script.NewJob;
import dev.warmpool.protocol.script.PoolPutReply;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SpawnGangReply;
import dev.warmpool.protocol.script.StartReply;
import dev.warmpool.protocol.script.SubmitReply;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The gang scripts on a real redis-server (started here on a free port), called as the manager
 * and the agents call them: a job claims every member of an idle gang in one step, or waits.
 */
class GangScriptTests {
    static final String TYPE = "gang";

    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    static final Jedis j = ON.j;
    static final String GANG = "pgang00001";
    static final List<String> MEMBERS = List.of(GANG + "-0", GANG + "-1", GANG + "-2");

    @AfterEach
    void everyFieldTheScriptsWroteIsNamedInFields() {
        ON.checkFields();
    }

    @BeforeEach
    void gang() {
        j.flushAll();
        ON.run(
                Script.POOL_PUT,
                PoolPutReply.args("{\"command\":[\"true\"]}", 0, 1, 300_000, "[\"true\"]", "{}", 100, true));
        // members in spawn order: ps-0, worker-0, worker-1
        assertTrue(SpawnGangReply.decode(ON.run(
                        Script.SPAWN_GANG,
                        SpawnGangReply.args(
                                GANG,
                                List.of(
                                        new SpawnGangReply.Member(MEMBERS.get(0), "ps", 0),
                                        new SpawnGangReply.Member(MEMBERS.get(1), "worker", 0),
                                        new SpawnGangReply.Member(MEMBERS.get(2), "worker", 1)))))
                .recorded());
    }

    static String submit() {
        String id = Ids.newJobId(TYPE, System.currentTimeMillis());
        SubmitReply r = SubmitReply.decode(ON.run(
                Script.SUBMIT,
                SubmitReply.args(
                        new NewJob(id, 0, Map.of("id", id, "type", TYPE, "maxAttempts", "2")), Idempotency.NONE)));
        return (r instanceof SubmitReply.Assigned
                        ? "ASSIGNED"
                        : r instanceof SubmitReply.Queued ? "QUEUED" : r.toString())
                + " " + id;
    }

    static void register(String member) {
        assertInstanceOf(
                RegisterReply.Registered.class,
                RegisterReply.decode(ON.run(
                        Script.REGISTER,
                        RegisterReply.args(member, 1, "host", "127.0.0.1:" + (7000 + MEMBERS.indexOf(member))))));
    }

    static List<String> inbox(String member) {
        return j.lrange(KeySchema.inbox(TYPE, member), 0, -1);
    }

    static FinishReply finish(String member, String job, String state) {
        return FinishReply.decode(ON.run(
                Script.FINISH,
                new FinishReply.Args(
                                member,
                                job,
                                "1",
                                state,
                                state.equals("SUCCEEDED") ? 0 : 1,
                                "{}",
                                "",
                                "",
                                60,
                                false,
                                false)
                        .argv()));
    }

    static StartReply start(String member, String job) {
        return StartReply.decode(ON.run(Script.START, StartReply.args(member, job, "1")));
    }

    @Test
    void aGangWithAStartingMemberIsNotClaimedAndTakesTheJobWhenItsLastMemberRegisters() {
        register(MEMBERS.get(0));
        register(MEMBERS.get(1));
        String[] job = submit().split(" ");
        assertEquals("QUEUED", job[0], "one member is still starting");
        MEMBERS.forEach(m -> assertEquals(List.of(), inbox(m)));

        register(MEMBERS.get(2));
        for (String m : MEMBERS) {
            assertEquals(List.of("job " + job[1] + " 1"), inbox(m), "every member got the job, in one step");
            assertEquals("BUSY", j.hget(KeySchema.processor(TYPE, m), "state"));
        }
        assertEquals(GANG, j.hget(KeySchema.job(TYPE, job[1]), "processor"));
    }

    @Test
    void aGangWithABusyMemberIsNotClaimedUntilThatMemberIsDone() {
        MEMBERS.forEach(GangScriptTests::register);
        String first = submit().split(" ")[1];
        MEMBERS.forEach(m -> assertInstanceOf(StartReply.Running.class, start(m, first)));
        assertEquals("RUNNING", j.hget(KeySchema.job(TYPE, first), "state"));

        // both workers succeed: the job ends and the parameter server is told to stop
        finish(MEMBERS.get(1), first, "SUCCEEDED");
        assertEquals("RUNNING", j.hget(KeySchema.job(TYPE, first), "state"), "one worker is still at it");
        finish(MEMBERS.get(2), first, "SUCCEEDED");
        assertEquals("SUCCEEDED", j.hget(KeySchema.job(TYPE, first), "state"));
        assertEquals(List.of("job " + first + " 1", "cancel " + first + " 1"), inbox(MEMBERS.get(0)));

        // the parameter server has not stopped yet: the gang is not idle, a new job waits
        String[] second = submit().split(" ");
        assertEquals("QUEUED", second[0]);
        assertEquals(List.of("job " + first + " 1"), inbox(MEMBERS.get(1)));

        finish(MEMBERS.get(0), first, "CANCELLED");
        assertEquals(
                "SUCCEEDED",
                j.hget(KeySchema.job(TYPE, first), "state"),
                "the stopped parameter server changes nothing");
        assertEquals("CANCELLED (exit 1)", j.hget(KeySchema.job(TYPE, first), "member:ps-0"));
        for (String m : MEMBERS) {
            assertTrue(inbox(m).contains("job " + second[1] + " 1"), m + " got the next job");
        }
    }

    @Test
    void aFailedMemberFailsTheJobAndStopsTheOthers() {
        MEMBERS.forEach(GangScriptTests::register);
        String job = submit().split(" ")[1];
        MEMBERS.forEach(m -> start(m, job));
        finish(MEMBERS.get(2), job, "FAILED");
        assertEquals("FAILED", j.hget(KeySchema.job(TYPE, job), "state"));
        assertTrue(j.hget(KeySchema.job(TYPE, job), "error").startsWith("member worker-1 FAILED"));
        assertTrue(inbox(MEMBERS.get(0)).contains("cancel " + job + " 1"));
        assertTrue(inbox(MEMBERS.get(1)).contains("cancel " + job + " 1"));
        assertEquals("1", j.hget(KeySchema.job(TYPE, job), "completions"));
    }

    @Test
    void aLostMemberRequeuesTheJobAndTheGangDrainsAway() {
        MEMBERS.forEach(GangScriptTests::register);
        String job = submit().split(" ")[1];
        MEMBERS.forEach(m -> start(m, job));
        assertEquals(
                new LostReply.Lost(job, JobState.QUEUED),
                LostReply.decode(
                        ON.run(Script.LOST, LostReply.args(MEMBERS.get(1), Long.MAX_VALUE, "member lost", 60))));
        assertEquals("QUEUED", j.hget(KeySchema.job(TYPE, job), "state"), "requeued, one attempt charged");
        assertEquals("DRAINING", j.hget(KeySchema.gang(TYPE, GANG), "state"));
        for (String m : List.of(MEMBERS.get(0), MEMBERS.get(2))) {
            assertEquals(List.of("job " + job + " 1", "cancel " + job + " 1", "retire"), inbox(m));
        }
        // a stopped member's report cannot end the requeued job; the members leave, the gang goes
        finish(MEMBERS.get(0), job, "CANCELLED");
        assertEquals("QUEUED", j.hget(KeySchema.job(TYPE, job), "state"));
        ON.run(Script.DEREGISTER, DeregisterReply.args(MEMBERS.get(0), "retired", 60));
        ON.run(Script.DEREGISTER, DeregisterReply.args(MEMBERS.get(2), "retired", 60));
        assertEquals(0L, j.exists(KeySchema.gang(TYPE, GANG)) ? 1L : 0L);
        assertEquals(0L, j.scard(KeySchema.gangs(TYPE)));
    }
}
