package dev.warmpool.bench;

import static dev.warmpool.bench.Replay.*;

import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.policy.SizingPolicy;
import dev.warmpool.policy.Warmth;
import dev.warmpool.policy.WarmthRecorder;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/** One pool of the replay ({@link Replay}) through the day: its arrivals, processors and sizing passes. */
final class ReplayPool {
    final long[] arrivals;
    final PoolSpec spec;
    final long jobMs, startMs, endMs;
    final SizingPolicy.Timing timing;
    final WarmthRecorder recorder = new WarmthRecorder();
    final List<Long> waits = new ArrayList<>();
    final Map<String, Proc> procs = new LinkedHashMap<>();
    final ArrayDeque<Long> queue = new ArrayDeque<>(); // arrival times
    final PriorityQueue<long[]> events =
            new PriorityQueue<>((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    long idleMs;
    long starts;
    int nextId;
    boolean nudged;

    static final class Proc {
        final String id;
        ProcessorState state = ProcessorState.STARTING;
        long since;
        final long startedAt;

        Proc(String id, long now) {
            this.id = id;
            this.since = now;
            this.startedAt = now;
        }
    }

    // event kinds, in the order they are taken at one instant
    static final int END = 0, READY = 1, ARRIVAL = 2, PASS = 3;

    ReplayPool(TraceGen.Row row, PoolSpec spec, long jobMs, long startMs) {
        this(row, spec, jobMs, startMs, Warmth.Params.DEFAULT.withColdStartPrice(price));
    }

    ReplayPool(TraceGen.Row row, PoolSpec spec, long jobMs, long startMs, Warmth.Params params) {
        this.arrivals = Replay.arrivals(row);
        this.spec = spec;
        this.jobMs = jobMs;
        this.startMs = startMs;
        this.endMs = row.perMinute().length * 60_000L;
        this.timing = new SizingPolicy.Timing(
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                params.withLead(startMs + PASS_MS));
    }

    ReplayPool run() {
        for (int i = 0; i < arrivals.length; i++) {
            events.add(new long[] {arrivals[i], ARRIVAL, i});
        }
        for (long t = 0; t < endMs; t += PASS_MS) {
            events.add(new long[] {t, PASS, 0});
        }
        while (!events.isEmpty()) {
            long[] e = events.poll();
            long now = e[0];
            switch ((int) e[1]) {
                case ARRIVAL -> arrive(now);
                case END -> free(procs.get(id(e[2])), now, true);
                case READY -> {
                    Proc p = procs.get(id(e[2]));
                    if (p != null) {
                        free(p, now, false);
                    }
                }
                default -> {
                    if (e[2] == 1) {
                        nudged = false;
                    }
                    if (now < endMs || !queue.isEmpty()) {
                        pass(now);
                    }
                }
            }
        }
        for (Proc p : procs.values()) {
            if (p.state == ProcessorState.IDLE) {
                idleMs += Math.max(0, endMs - p.since); // warmth held to the day's end
            }
        }
        return this;
    }

    private static String id(long n) {
        return "p" + n;
    }

    private void arrive(long now) {
        Proc warmest = null;
        for (Proc p : procs.values()) {
            if (p.state == ProcessorState.IDLE && (warmest == null || p.since > warmest.since)) {
                warmest = p;
            }
        }
        recorder.up(now, warmest != null);
        if (warmest != null) {
            run(warmest, now, now);
        } else {
            queue.add(now);
            if (!nudged) {
                nudged = true;
                events.add(new long[] {now + NUDGE_MS, PASS, 1});
            }
        }
    }

    private void run(Proc p, long arrival, long now) {
        if (p.state == ProcessorState.IDLE) {
            idleMs += now - p.since;
            recorder.idle(now - p.since);
        }
        waits.add(now - arrival);
        p.state = ProcessorState.BUSY;
        p.since = now;
        events.add(new long[] {now + jobMs, END, Long.parseLong(p.id.substring(1))});
    }

    /** A processor that finished a job ({@code ended}) or started: the next queued job, or idle. */
    private void free(Proc p, long now, boolean ended) {
        if (ended) {
            recorder.down(now);
        }
        if (!queue.isEmpty()) {
            p.state = ProcessorState.IDLE; // for run()'s accounting: it idles for no time
            p.since = now;
            run(p, queue.poll(), now);
        } else {
            p.state = ProcessorState.IDLE;
            p.since = now;
        }
    }

    private void pass(long now) {
        List<Processor> ps = new ArrayList<>(procs.size());
        Set<String> running = new HashSet<>();
        for (Proc p : procs.values()) {
            ps.add(new Processor(p.id, p.state, null, p.since, now, p.startedAt));
            running.add(p.id);
        }
        PoolSnapshot s = new PoolSnapshot(
                "replay", spec, false, queue.size(), now, ps, 0, List.of(), recorder.history(), 0, queue.size(), null);
        SizingPolicy.Plan plan = SizingPolicy.plan(s, timing, running);
        for (SizingPolicy.Retire r : plan.retire()) {
            Proc p = procs.get(r.id());
            if (p != null && p.state == ProcessorState.IDLE && p.since <= r.idleSinceAtMost()) {
                idleMs += now - p.since;
                recorder.idle(now - p.since);
                procs.remove(r.id());
            }
        }
        for (int i = 0; i < plan.start(); i++) {
            int n = nextId++;
            procs.put(id(n), new Proc(id(n), now));
            events.add(new long[] {now + startMs, READY, n});
            starts++;
        }
    }
}
