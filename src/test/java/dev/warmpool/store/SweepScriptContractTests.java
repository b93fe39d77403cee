package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.CancelReply;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.ReportReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SubmitReply;
import dev.warmpool.protocol.script.SweepAddReply;
import dev.warmpool.protocol.script.SweepCancelReply;
import dev.warmpool.protocol.script.SweepGetReply;
import dev.warmpool.protocol.script.SweepJournalReply;
import dev.warmpool.protocol.script.SweepListReply;
import dev.warmpool.protocol.script.SweepPutReply;
import dev.warmpool.protocol.script.TenantsReply;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract tests of the sweep scripts: sweep_put, sweep_get, sweep_list, sweep_cancel, and what the end of a trial does to its sweep (see {@link ScriptContract}). */
class SweepScriptContractTests extends ScriptContract {
    @RegisterExtension
    static final ScriptsOnRedis ON = new ScriptsOnRedis(TYPE);

    SweepScriptContractTests() {
        super(ON);
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

    /** An external sweep of at most {@code total} trials, one out at a time, stored with no trial; returns its id. */
    String externalSweep(String name, int total) {
        String sid = "sw-" + TYPE + "-" + name;
        Map<String, String> sweep = new LinkedHashMap<>(Map.of(
                "type", TYPE, "parallelism", "1", "metric", "loss", "goal", "minimize", "maxFailedTrials", "-1"));
        sweep.put("spec", "{}");
        sweep.put("total", Integer.toString(total));
        sweep.put("submittedBy", "alice");
        sweep.put(
                "trialFields",
                "[\"type\",\"" + TYPE + "\",\"args\",\"[]\",\"maxAttempts\",\"1\",\"priority\",\"5\","
                        + "\"submittedBy\",\"alice\"]");
        SweepPutReply.Created created = (SweepPutReply.Created) call(
                Script.SWEEP_PUT,
                SweepPutReply.args(sid, Idempotency.NONE, 5, sweep, Map.of("submittedBy", "alice"), Map.of()),
                SweepPutReply::decode);
        assertEquals(total, created.total(), "its total as given, though no trial is stored yet");
        assertEquals("0", field(KeySchema.sweep(TYPE, sid), "demand"), "no demand of its own");
        return sid;
    }

    SweepAddReply add(String sid, String config) {
        return add(sid, config, "");
    }

    SweepAddReply add(String sid, String config, String key) {
        return call(Script.SWEEP_ADD, SweepAddReply.args(sid, config, 60, key, "alice", false), SweepAddReply::decode);
    }

    /** A driver that adds a trial again under its key (a retry, a restarted driver) gets that trial, even past the end. */
    @Test
    void aTrialAddedAgainUnderItsKeyIsTheSameTrial() {
        putPool(0, 2, 10, false);
        processor("p1");
        String sid = externalSweep("keyed", 2);
        assertEquals(new SweepAddReply.Added(sid + "-0", 0, "ASSIGNED", false), add(sid, "{\"lr\":1}", "t0"));
        assertEquals(new SweepAddReply.Added(sid + "-0", 0, "ASSIGNED", true), add(sid, "{\"lr\":1}", "t0"));
        assertEquals(new SweepAddReply.Added(sid + "-1", 1, "PENDING", false), add(sid, "{\"lr\":2}", "t1"));
        assertEquals(new SweepAddReply.Full(2), add(sid, "{}", "t2"), "a new key past the total");
        assertEquals(
                new SweepAddReply.Added(sid + "-1", 1, "PENDING", true),
                add(sid, "{\"lr\":2}", "t1"),
                "a known key answers before the total is checked");
        assertEquals(
                new SweepAddReply.KeyConflict(sid + "-1"),
                add(sid, "{\"lr\":3}", "t1"),
                "a known key with another configuration is a driver mixing up its studies");
        assertEquals(
                new SweepAddReply.Forbidden("alice"),
                call(Script.SWEEP_ADD, SweepAddReply.args(sid, "{}", 60, "t9", "bob", false), SweepAddReply::decode),
                "only its submitter adds its trials");
        assertInstanceOf(
                SweepAddReply.Full.class,
                call(Script.SWEEP_ADD, SweepAddReply.args(sid, "{}", 60, "t9", "root", true), SweepAddReply::decode),
                "or an admin");
        assertEquals(2, j.llen(KeySchema.sweepTrials(TYPE, sid)), "two trials, not four");
    }

    /** sweep_journal: entries appended in order, read from an index, bounded, and expiring with an ended sweep. */
    @Test
    void anExternalSweepsJournalIsAppendedReadAndExpiresWithIt() {
        putPool(0, 2, 10, false);
        String sid = externalSweep("journal", 1);
        assertEquals(
                new SweepJournalReply.Appended(2),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.appendArgs(
                                sid, "alice", false, 3, 1000, "batch-1", List.of("{\"a\":1}", "{\"a\":2}")),
                        SweepJournalReply::decode));
        assertEquals(
                new SweepJournalReply.Full("entries", 3),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.appendArgs(sid, "alice", false, 3, 1000, "", List.of("{}", "{}")),
                        SweepJournalReply::decode),
                "two more than the most it holds: none appended");
        assertEquals(
                new SweepJournalReply.Read(2, List.of("{\"a\":2}")),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.readArgs(sid, "alice", false, 1, 10),
                        SweepJournalReply::decode));
        assertEquals(
                new SweepJournalReply.Read(2, List.of()),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.readArgs(sid, "alice", false, 5, 10),
                        SweepJournalReply::decode));
        assertEquals(
                new SweepJournalReply.Appended(2),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.appendArgs(
                                sid, "alice", false, 3, 1000, "batch-1", List.of("{\"a\":1}", "{\"a\":2}")),
                        SweepJournalReply::decode),
                "a retry of the last append (its reply was lost) appends nothing");
        assertEquals(
                new SweepJournalReply.Full("bytes", 10),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.appendArgs(sid, "alice", false, 3, 10, "", List.of("{\"big\":1}")),
                        SweepJournalReply::decode),
                "bounded in bytes too");
        assertEquals(
                new SweepJournalReply.Forbidden("alice"),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.readArgs(sid, "bob", false, 0, 10),
                        SweepJournalReply::decode),
                "another submitter reads no one's study");
        assertInstanceOf(
                SweepJournalReply.Read.class,
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.readArgs(sid, "root", true, 0, 10),
                        SweepJournalReply::decode),
                "an admin does");
        assertEquals(
                new SweepJournalReply.NoSweep(),
                call(
                        Script.SWEEP_JOURNAL,
                        SweepJournalReply.readArgs("sw-none", "alice", false, 0, 10),
                        SweepJournalReply::decode));
        call(Script.SWEEP_CANCEL, SweepCancelReply.args(sid, "enough", 60), SweepCancelReply::decode);
        String journal = KeySchema.sweepJournal(TYPE, sid);
        assertTrue(j.ttl(journal) > 0 && j.ttl(journal) <= 60, "expires with its sweep");
        call(
                Script.SWEEP_JOURNAL,
                SweepJournalReply.appendArgs(sid, "alice", false, 3, 1000, "", List.of("{\"told\":1}")),
                SweepJournalReply::decode);
        assertTrue(j.ttl(journal) > 0, "an entry appended after the end keeps its time to live");
        assertEquals(3, j.llen(journal));
    }

    /** sweep_add: trials come one by one, run under the sweep's parallelism, and the sweep ends after its total. */
    @Test
    void anExternalSweepTakesTrialsAsTheyAreAddedAndEndsAfterItsTotal() {
        putPool(0, 2, 10, false);
        processor("p1");
        String sid = externalSweep("ext", 2);
        assertEquals(
                new SweepAddReply.Added(sid + "-0", 0, "ASSIGNED", false),
                add(sid, "{\"lr\":1}"),
                "an idle processor takes it");
        assertEquals(
                new SweepAddReply.Added(sid + "-1", 1, "PENDING", false),
                add(sid, "{\"lr\":2}"),
                "parallelism 1: it waits");
        assertEquals(new SweepAddReply.Full(2), add(sid, "{\"lr\":3}"));
        String second = KeySchema.job(TYPE, sid + "-1");
        assertEquals("{\"lr\":2}", field(second, "config"));
        assertEquals("alice", field(second, "submittedBy"), "the fields the sweep stored for its trials");
        assertEquals("5", field(second, "priority"));
        assertEquals(sid, field(second, "sweep"));
        assertEquals("1", field(second, "trial"));

        start("p1", sid + "-0", "1");
        FinishReply.Done next = (FinishReply.Done) finish("p1", sid + "-0", "1", true);
        assertEquals(sid + "-1", next.nextJob(), "the waiting trial is released as the first ends");
        assertEquals("RUNNING", field(KeySchema.sweep(TYPE, sid), "state"));
        finish("p1", sid + "-1", next.nextToken(), false);
        assertEquals("SUCCEEDED", field(KeySchema.sweep(TYPE, sid), "state"), "ended after its total");
        assertEquals("2", field(KeySchema.sweep(TYPE, sid), "done"));
        assertEquals(new SweepAddReply.Ended("SUCCEEDED"), add(sid, "{}"));
        assertEquals(new SweepAddReply.NoSweep(), add("sw-none", "{}"));
        String drawn = sweepOf("minimize", newJobId() + "a");
        assertEquals(
                new SweepAddReply.NotExternal(),
                call(Script.SWEEP_ADD, SweepAddReply.args(drawn, "{}", 60, "", "root", true), SweepAddReply::decode),
                "a sweep that draws its own takes none");
    }

    /**
     * The idle time a sweep held: a processor idle from the end of the sweep's trial until it takes the sweep's next
     * (its driver was slow to add it) counts that wait for the sweep and its tenant; idle time that began with
     * another job's end does not.
     */
    @Test
    void theIdleTimeBetweenTwoOfItsTrialsOnAProcessorIsTheSweeps() {
        putPool(0, 2, 10, false);
        processor("p1");
        String sid = externalSweep("idle", 3);
        String skey = KeySchema.sweep(TYPE, sid);
        String p1 = KeySchema.processor(TYPE, "p1");
        add(sid, "{\"lr\":1}");
        start("p1", sid + "-0", "1");
        finish("p1", sid + "-0", "1", true);
        assertEquals("IDLE", field(p1, "state"), "nothing was queued: p1 waits for the driver");
        assertEquals(sid, field(p1, "lastSweep"));
        // the driver takes 3 s to add the next trial
        String ended = Long.toString(Long.parseLong(field(p1, "lastSweepAt")) - 3000);
        j.hset(p1, "lastSweepAt", ended);
        j.zadd(KeySchema.idle(TYPE), Double.parseDouble(ended), "p1");
        assertEquals(new SweepAddReply.Added(sid + "-1", 1, "ASSIGNED", false), add(sid, "{\"lr\":2}"));
        long held = Long.parseLong(field(skey, "idleMs"));
        assertTrue(held >= 3000 && held < 5000, "p1 waited 3 s for this sweep, saw " + held + " ms");
        assertEquals(Long.toString(held), field(KeySchema.tenant(TYPE, field(skey, "tenant")), "sweepIdleMs"));

        // the next wait begins with a plain job's end on p1: the pool's, not the sweep's
        start("p1", sid + "-1", "1");
        finish("p1", sid + "-1", "1", true);
        String plain = newJobId() + "p";
        assertInstanceOf(SubmitReply.Assigned.class, submit(plain));
        start("p1", plain, "1");
        finish("p1", plain, "1", true);
        j.zadd(KeySchema.idle(TYPE), System.currentTimeMillis() - 2000.0, "p1");
        assertEquals(new SweepAddReply.Added(sid + "-2", 2, "ASSIGNED", false), add(sid, "{\"lr\":3}"));
        assertEquals(Long.toString(held), field(skey, "idleMs"), "unchanged");
        assertEquals(held / 1000.0, tenantRow(field(skey, "tenant")).sweepIdleSeconds(), 0.0005);
    }

    /**
     * A trial stopped early while it runs lets its processor go only when its agent reports: the processor's wait
     * for the sweep's next trial counts from then.
     */
    @Test
    void theIdleTimeAfterATrialStoppedEarlyCountsFromItsProcessorsRelease() {
        putPool(0, 2, 10, false);
        processor("p1");
        String sid = externalSweep("pruned", 2);
        String p1 = KeySchema.processor(TYPE, "p1");
        add(sid, "{\"lr\":1}");
        start("p1", sid + "-0", "1");
        call(
                Script.CANCEL,
                CancelReply.args(sid + "-0", "pruned at step 1", 60, JobState.EARLY_STOPPED),
                CancelReply::decode);
        assertEquals("EARLY_STOPPED", field(KeySchema.job(TYPE, sid + "-0"), "state"));
        assertEquals("BUSY", field(p1, "state"), "its agent has not stopped the trial yet");
        finish("p1", sid + "-0", "1", true); // the agent reports: p1 is free
        assertEquals("IDLE", field(p1, "state"));
        assertEquals(sid, field(p1, "lastSweep"), "it let go of this sweep's trial");
        String freed = Long.toString(Long.parseLong(field(p1, "lastSweepAt")) - 2000);
        j.hset(p1, "lastSweepAt", freed);
        j.zadd(KeySchema.idle(TYPE), Double.parseDouble(freed), "p1");
        assertEquals(new SweepAddReply.Added(sid + "-1", 1, "ASSIGNED", false), add(sid, "{\"lr\":2}"));
        long held = Long.parseLong(field(KeySchema.sweep(TYPE, sid), "idleMs"));
        assertTrue(held >= 2000 && held < 4000, "p1 waited 2 s after it was freed, saw " + held + " ms");
    }

    /** An external sweep cancelled, or stopped by maxFailedTrials, before its driver added all its trials still ends. */
    @Test
    void anExternalSweepStoppedBeforeItsTotalStillFinishes() {
        putPool(0, 2, 10, false);
        processor("p1");
        String sid = externalSweep("cut", 5);
        add(sid, "{}");
        add(sid, "{}");
        assertEquals(
                new SweepCancelReply.Cancelled(),
                call(Script.SWEEP_CANCEL, SweepCancelReply.args(sid, "enough", 60), SweepCancelReply::decode));
        String key = KeySchema.sweep(TYPE, sid);
        assertEquals("CANCELLED", field(key, "state"));
        assertTrue(field(key, "finishedAt") != null && !field(key, "finishedAt").isEmpty(), "finished");
        assertEquals("2", field(key, "done"), "both trials it had ended");
        assertTrue(j.ttl(key) > 0, "it expires as an ended sweep does");

        String failing = externalSweep("fails", 5);
        j.hset(KeySchema.sweep(TYPE, failing), "maxFailedTrials", "0");
        processor("p2"); // p1 holds the cancelled trial until its agent says it stopped
        add(failing, "{}");
        add(failing, "{}");
        start("p2", failing + "-0", "1");
        call(
                Script.FINISH,
                new FinishReply.Args("p2", failing + "-0", "1", "FAILED", 1, "{}", "tail", "boom", 60, false, false)
                        .argv(),
                FinishReply::decode);
        String fkey = KeySchema.sweep(TYPE, failing);
        assertEquals("FAILED", field(fkey, "state"));
        assertTrue(
                field(fkey, "finishedAt") != null && !field(fkey, "finishedAt").isEmpty(),
                "finished though 3 never came");
    }

    /** A sweep of one trial at a time, its trials t1..tn stored; returns the sweep id. */
    String sweepOf(String goal, String... trialIds) {
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
    void runTrial(String trial, String value) {
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

    /**
     * What a sweep cost: the run time of its trials (started to end) in its busyMs and the pool's sweepBusyMs; a
     * trial released as the last one ends and taken by that trial's processor from the queue is warm for the sweep
     * (no coldStarts), though the pool counts it a cold arrival (no processor was idle when it came).
     */
    @Test
    void aSweepCountsItsTrialsRunTimeAndTheTrialsNoIdleProcessorTook() {
        putPool(0, 2, 10, false);
        processor("p1");
        String t1 = newJobId() + "a";
        String t2 = newJobId() + "b";
        String sid = sweepOf("minimize", t1, t2);
        String skey = KeySchema.sweep(TYPE, sid);
        assertEquals("ASSIGNED", field(KeySchema.job(TYPE, t1), "state"), "p1 was idle: warm");
        assertEquals(null, field(skey, "coldStarts"));
        start("p1", t1, "1");
        long started = Long.parseLong(field(KeySchema.job(TYPE, t1), "startedAt"));
        j.hset(KeySchema.job(TYPE, t1), "startedAt", Long.toString(started - 5000)); // it ran 5 s
        assertInstanceOf(FinishReply.Done.class, finish("p1", t1, "1", false));
        long busy = Long.parseLong(field(skey, "busyMs"));
        assertTrue(busy >= 5000 && busy < 7000, "the trial ran 5 s, saw " + busy + " ms");
        assertEquals(Long.toString(busy), field(KeySchema.warmth(TYPE), "sweepBusyMs"), "the pool's counter");
        // t2 was released as t1 ended, before p1 was free, and p1 took it from the queue: no processor started for it
        assertEquals("p1", field(KeySchema.job(TYPE, t2), "processor"), "p1 took t2 as it was freed");
        start("p1", t2, "1");
        assertEquals(null, field(skey, "coldStarts"), "p1 was up before t2 was queued: warm");
        assertEquals("1", field(KeySchema.warmth(TYPE), "cold"), "the pool's cold arrival: no processor was idle");
        // t2 cancelled while it runs: it counts from its start to the cancel
        call(Script.SWEEP_CANCEL, SweepCancelReply.args(sid, "enough", 60), SweepCancelReply::decode);
        long after = Long.parseLong(field(skey, "busyMs"));
        assertTrue(after >= busy && after < busy + 2000, "t2 ran a moment: " + busy + " -> " + after);
        assertEquals("2", field(skey, "done"));
        String tenant = field(skey, "tenant");
        assertEquals(Long.toString(after), field(KeySchema.tenant(TYPE, tenant), "sweepMs"), "its tenant's, the same");
        TenantsReply.Tenant row = tenantRow(tenant);
        assertEquals(after / 1000.0, row.sweepSeconds(), 0.0005, "tenants.lua shows it in seconds");
        assertEquals(0, row.sweepColdStarts());
    }

    /** The pool's tenants as tenants.lua shows them: {@code tenant}'s row. */
    private TenantsReply.Tenant tenantRow(String tenant) {
        TenantsReply.Tenants all =
                (TenantsReply.Tenants) call(Script.TENANTS, TenantsReply.args(), TenantsReply::decode);
        return all.tenants().stream()
                .filter(t -> t.tenant().equals(tenant))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + tenant + " in " + all));
    }

    /**
     * A trial queued before any processor could take it, then run as the first job of a processor started after it
     * was queued, is one cold start of the sweep; that processor's next trial is not.
     */
    @Test
    void aTrialThatWaitedForItsProcessorsStartIsOneColdStart() {
        putPool(0, 2, 10, false);
        String t1 = newJobId() + "a";
        String t2 = newJobId() + "b";
        String sid = sweepOf("minimize", t1, t2);
        String skey = KeySchema.sweep(TYPE, sid);
        assertEquals("QUEUED", field(KeySchema.job(TYPE, t1), "state"), "no processor: it waits");
        // it was queued a second ago, and a processor starts for it now
        for (String t : List.of(t1, t2)) {
            j.hset(KeySchema.job(TYPE, t), "queuedAt", Long.toString(System.currentTimeMillis() - 1000));
        }
        processor("p1");
        String first = field(KeySchema.processor(TYPE, "p1"), "job");
        start("p1", first, "1");
        assertEquals("1", field(skey, "coldStarts"), "it waited for p1's start");
        assertInstanceOf(FinishReply.Done.class, finish("p1", first, "1", false));
        String second = first.equals(t1) ? t2 : t1;
        assertEquals("p1", field(KeySchema.job(TYPE, second), "processor"), "p1 took the other as it was freed");
        start("p1", second, "1");
        assertEquals("1", field(skey, "coldStarts"), "p1's second trial: p1 was up, warm");
        assertEquals(1, tenantRow(field(skey, "tenant")).sweepColdStarts(), "its tenant's, the same");
    }

    /** Trials that never started (queued, then cancelled with their sweep) add no run time and no cold start. */
    @Test
    void trialsThatNeverStartedCostNothing() {
        putPool(0, 2, 10, false);
        String sid = sweepOf("minimize", newJobId() + "a", newJobId() + "b");
        String skey = KeySchema.sweep(TYPE, sid);
        call(Script.SWEEP_CANCEL, SweepCancelReply.args(sid, "enough", 60), SweepCancelReply::decode);
        assertEquals("2", field(skey, "done"));
        assertEquals(null, field(skey, "busyMs"));
        assertEquals(null, field(skey, "coldStarts"));
    }

    /** A trial released while another processor is idle is warm: the sweep counts no cold start. */
    @Test
    void aTrialAnIdleProcessorTakesIsNoColdStart() {
        putPool(0, 2, 10, false);
        processor("p1");
        processor("p2");
        String t1 = newJobId() + "a";
        String t2 = newJobId() + "b";
        String sid = sweepOf("minimize", t1, t2);
        String skey = KeySchema.sweep(TYPE, sid);
        String first = field(KeySchema.job(TYPE, t1), "processor");
        start(first, t1, "1");
        assertInstanceOf(FinishReply.Done.class, finish(first, t1, "1", false));
        assertEquals("ASSIGNED", field(KeySchema.job(TYPE, t2), "state"));
        assertTrue(!first.equals(field(KeySchema.job(TYPE, t2), "processor")), "the other, idle processor took it");
        assertEquals(null, field(skey, "coldStarts"));
        assertEquals("2", field(KeySchema.warmth(TYPE), "warm"), "both trials found an idle processor");
        assertEquals(null, field(KeySchema.warmth(TYPE), "cold"));
    }
}
