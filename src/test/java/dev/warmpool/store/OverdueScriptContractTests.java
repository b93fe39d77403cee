package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.CancelReply;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.HeartbeatReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.NewJob;
import dev.warmpool.protocol.script.OverdueReply;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SpawnGangReply;
import dev.warmpool.protocol.script.StartReply;
import dev.warmpool.protocol.script.SubmitReply;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract test of overdue.lua, the manager's backstop for a job's timeout (see
 * {@link ScriptContract}): the processor's deadline as start sets it, the job timed out, the
 * processor removed and its late report refused, and nothing changed for an assignment that moved on.
 */
class OverdueScriptContractTests extends ScriptContract {
    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    static final String REASON =
            "timed out: processor p1 did not end the job within 30 s of its timeout and was replaced";

    OverdueScriptContractTests() {
        super(ON);
    }

    /** A job with {@code timeoutSeconds} (0: none, as the submit builder of the base stores it). */
    String submitWithTimeout(int timeoutSeconds) {
        String id = newJobId() + timeoutSeconds;
        Map<String, String> fields = new HashMap<>(Map.of("id", id, "type", TYPE, "maxAttempts", "3"));
        if (timeoutSeconds > 0) {
            fields.put("timeoutSeconds", Integer.toString(timeoutSeconds));
        }
        call(Script.SUBMIT, SubmitReply.args(new NewJob(id, 0, fields), Idempotency.NONE), SubmitReply::decode);
        return id;
    }

    long procField(String proc, String field) {
        return Long.parseLong(field(KeySchema.processor(TYPE, proc), field));
    }

    OverdueReply overdue(String proc, String job, long since, long deadline) {
        return call(Script.OVERDUE, OverdueReply.args(proc, job, since, deadline, REASON, 60), OverdueReply::decode);
    }

    OverdueReply overdueAsSeen(String proc, String job) {
        return overdue(proc, job, procField(proc, "since"), procField(proc, "deadline"));
    }

    @Test
    void aRunningJobPastItsDeadlineEndsTimedOutItsProcessorGoesAndItsLateReportIsRefused() {
        putPool(0, 2, 10, false);
        processor("p1");
        String job = submitWithTimeout(5);
        assertEquals(0, procField("p1", "deadline"), "assigned, not started: no deadline yet");
        long before = Long.parseLong(j.time().get(0)) * 1000;
        start("p1", job, "1");
        long deadline = procField("p1", "deadline");
        assertTrue(
                deadline >= before + 5000 && deadline < before + 7000,
                "the start plus the timeout, as the agent counts it: " + (deadline - before));

        assertEquals(new OverdueReply.Replaced(JobState.TIMED_OUT), overdueAsSeen("p1", job));
        String jkey = KeySchema.job(TYPE, job);
        assertEquals(List.of("TIMED_OUT", REASON, "1"), j.hmget(jkey, "state", "error", "completions"));
        assertTrue(j.ttl(jkey) > 0, "an ended job expires after the retention");
        assertEquals("1", j.hget(KeySchema.warmth(TYPE), "e:TIMED_OUT"), "counted as any timed out job");
        assertFalse(j.exists(KeySchema.processor(TYPE, "p1")), "the processor is gone from Redis");
        assertFalse(j.sismember(KeySchema.processors(TYPE), "p1"));

        assertInstanceOf(FinishReply.Stale.class, finish("p1", job, "1", true), "the old agent's late report");
        assertEquals(List.of("TIMED_OUT", "1"), j.hmget(jkey, "state", "completions"), "a job ends once");
        assertInstanceOf(
                HeartbeatReply.Unknown.class,
                call(Script.HEARTBEAT, HeartbeatReply.args("p1", job, "1"), HeartbeatReply::decode));
        assertEquals(new OverdueReply.Gone(), overdue("p1", job, 0, deadline), "a second call changes nothing");
    }

    @Test
    void anAssignmentThatMovedOnSinceTheSnapshotIsLeftAlone() {
        putPool(0, 2, 10, false);
        processor("p1");
        processor("p2");
        String job = submitWithTimeout(5);
        String p = field(KeySchema.job(TYPE, job), "processor");
        long assignedSince = procField(p, "since");
        start(p, job, "1");
        assertEquals(
                new OverdueReply.Moved(),
                overdue(p, job, assignedSince, 0),
                "the snapshot saw the job not started; it has started since");
        assertEquals(new OverdueReply.Moved(), overdue(p, job, assignedSince, procField(p, "deadline") + 1));
        assertEquals(new OverdueReply.Moved(), overdue(p, "another-job", assignedSince, procField(p, "deadline")));
        String noTimeout = submitWithTimeout(0);
        String q = field(KeySchema.job(TYPE, noTimeout), "processor");
        start(q, noTimeout, "1");
        assertEquals(0, procField(q, "deadline"), "no timeout, no deadline");
        assertEquals(new OverdueReply.Moved(), overdueAsSeen(q, noTimeout), "a job without a timeout runs on");
        assertEquals(
                List.of("RUNNING", "RUNNING"),
                List.of(field(KeySchema.job(TYPE, job), "state"), field(KeySchema.job(TYPE, noTimeout), "state")));
        assertEquals(new OverdueReply.Gone(), overdue("p9", job, 0, 0));
    }

    @Test
    void aJobNeverStartedGoesBackToItsQueueChargedAndAnEndedOneStaysAsItEnded() {
        putPool(0, 2, 10, false);
        processor("p1");
        String job = submitWithTimeout(5);
        assertEquals(new OverdueReply.Replaced(JobState.QUEUED), overdueAsSeen("p1", job));
        assertEquals(List.of("QUEUED", "1"), j.hmget(KeySchema.job(TYPE, job), "state", "attempts"), "charged");
        assertFalse(j.exists(KeySchema.processor(TYPE, "p1")));

        processor("p2"); // takes the requeued job
        assertEquals("p2", field(KeySchema.job(TYPE, job), "processor"));
        start("p2", job, "2");
        call(Script.CANCEL, CancelReply.args(job, "no longer needed", 60), CancelReply::decode);
        assertEquals("BUSY", field(KeySchema.processor(TYPE, "p2"), "state"), "busy until its agent reports");
        assertEquals(
                new OverdueReply.Replaced(JobState.CANCELLED),
                overdueAsSeen("p2", job),
                "an agent that never let go of a cancelled job is replaced too");
        assertEquals(List.of("CANCELLED", "1"), j.hmget(KeySchema.job(TYPE, job), "state", "completions"));
        assertFalse(j.exists(KeySchema.processor(TYPE, "p2")));
    }

    @Test
    void aGangMemberPastItsDeadlineTimesTheGangsJobOutAndTheGangDrainsAway() {
        putPool(0, 1, 10, true);
        List<String> members = List.of("g1-0", "g1-1");
        assertTrue(call(
                        Script.SPAWN_GANG,
                        SpawnGangReply.args(
                                "g1",
                                List.of(
                                        new SpawnGangReply.Member(members.get(0), "worker", 0),
                                        new SpawnGangReply.Member(members.get(1), "worker", 1))),
                        SpawnGangReply::decode)
                .recorded());
        members.forEach(m -> assertInstanceOf(
                RegisterReply.Registered.class,
                call(Script.REGISTER, RegisterReply.args(m, 1, "host", ""), RegisterReply::decode)));
        String job = submitWithTimeout(5);
        members.forEach(m -> assertInstanceOf(StartReply.Running.class, start(m, job, "1")));

        assertEquals(new OverdueReply.Replaced(JobState.TIMED_OUT), overdueAsSeen(members.get(1), job));
        assertEquals("TIMED_OUT", field(KeySchema.job(TYPE, job), "state"));
        assertEquals("DRAINING", field(KeySchema.gang(TYPE, "g1"), "state"), "a broken gang goes");
        assertEquals(
                List.of("job " + job + " 1", "cancel " + job + " 1", "retire"),
                j.lrange(KeySchema.inbox(TYPE, members.get(0)), 0, -1),
                "the other member stops the job and retires");
        assertFalse(j.exists(KeySchema.processor(TYPE, members.get(1))));
    }
}
