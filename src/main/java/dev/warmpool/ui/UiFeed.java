package dev.warmpool.ui;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.service.JobReaders;
import dev.warmpool.service.JobService;
import dev.warmpool.service.PoolService;
import dev.warmpool.service.PoolView;
import dev.warmpool.service.Secrets;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The overview's live state (the pools as their cards show them ({@link Card}), the recent jobs as
 * {@code GET /jobs} shows them), read once a {@link #PERIOD} for every open page of this manager
 * together, and not at all while no page is open. Why shared: a read costs a snapshot script per
 * pool plus a job listing per pool, so a read per page per second would grow Redis's load with
 * the number of people looking; shared, ten open pages cost what one does. Shared, it is also
 * the same for every reader, so every env value in it is hidden ({@link Secrets}) whoever reads:
 * the pages never show env, and an admin or a job's submitter reads the values through the API.
 */
@ApplicationScoped
public class UiFeed {
    /** How often the open pages' state is read. */
    static final Duration PERIOD = Duration.ofSeconds(1);
    /** How many of the newest jobs the overview lists. */
    static final int RECENT_JOBS = 50;

    /** One item of the feed: the state as JSON, or a sentence saying why a read failed (the feed goes on). */
    public record Item(boolean problem, String text) {}

    private final Multi<Item> shared;
    /** What the open pages were last sent, for a page that opens meanwhile; null while none is open. */
    private final AtomicReference<String> latest = new AtomicReference<>();

    /** How many processors a pool's card lists: the busy ones (what they run) first. */
    static final int SHOWN = 12;

    private static final List<ProcessorState> ORDER = List.of(
            ProcessorState.BUSY,
            ProcessorState.STARTING,
            ProcessorState.DRAINING,
            ProcessorState.IDLE,
            ProcessorState.LOST);

    /**
     * A pool as its card shows it: {@code GET /pools}'s view with {@link #SHOWN} processors and the
     * count of the rest ({@code more}), its tenants (fair share), why its processors cannot start
     * when they cannot ({@code startError}), without gangs and learned windows. A page gets this each
     * time the state changes, so it carries what the page draws: a pool of 100 processors would
     * otherwise send all of them each second.
     */
    public record Card(
            String type,
            String state,
            PoolSpec spec,
            PoolView.Status status,
            List<Processor> processors,
            int more,
            PoolView.WarmthView warmth,
            List<PoolView.Tenant> tenants,
            PoolSnapshot.StartError startError) {
        static Card of(PoolView v) {
            List<Processor> all = v.processors().stream()
                    .sorted(Comparator.comparingInt(p -> ORDER.indexOf(p.state())))
                    .toList();
            PoolView.WarmthView w = v.warmth();
            return new Card(
                    v.type(),
                    v.state(),
                    v.spec(),
                    v.status(),
                    all.subList(0, Math.min(SHOWN, all.size())),
                    Math.max(0, all.size() - SHOWN),
                    w == null
                            ? null
                            : new PoolView.WarmthView(
                                    w.policy(),
                                    w.warmStarts(),
                                    w.coldStarts(),
                                    w.idleProcessorSeconds(),
                                    w.demand(),
                                    null),
                    v.tenants(),
                    v.startError());
        }
    }

    @Inject
    public UiFeed(PoolService pools, JobService jobs, JobReaders readers, ObjectMapper json) {
        this(
                () -> Uni.combine()
                        .all()
                        .unis(pools.list(), jobs.list(null, null, RECENT_JOBS, null))
                        .asTuple()
                        .map(t -> {
                            Map<String, Object> state = new LinkedHashMap<>();
                            state.put(
                                    "pools",
                                    t.getItem1().stream()
                                            .map(Secrets::redacted)
                                            .map(Card::of)
                                            .toList());
                            state.put(
                                    "jobs",
                                    t.getItem2().stream()
                                            .map(readers::shownToAll)
                                            .toList());
                            try {
                                return json.writeValueAsString(state);
                            } catch (JsonProcessingException e) {
                                throw new IllegalStateException(e);
                            }
                        }),
                PERIOD);
    }

    UiFeed(Supplier<Uni<String>> read, Duration period) {
        this.shared = Multi.createFrom()
                .ticks()
                .startingAfter(Duration.ofMillis(1))
                .every(period)
                .onOverflow()
                .drop()
                .onItem()
                .transformToUniAndConcatenate(tick -> Uni.createFrom()
                        .deferred(read::get)
                        .map(text -> new Item(false, text))
                        .onFailure()
                        .recoverWithItem(e -> new Item(true, String.valueOf(e.getMessage()))))
                .invoke(i -> {
                    if (!i.problem()) {
                        latest.set(i.text());
                    }
                })
                .onTermination()
                .invoke(() -> latest.set(null))
                .broadcast()
                .withCancellationAfterLastSubscriberDeparture()
                .toAllSubscribers();
    }

    /**
     * One page's feed: the state the other open pages have now (if any), then each read that
     * changed it, and each failed read. A page that reads slowly skips to the newest state rather
     * than holding the others back.
     */
    public Multi<Item> follow() {
        return Multi.createFrom().deferred(() -> {
            String now = latest.get();
            AtomicReference<String> sent = new AtomicReference<>("");
            Multi<Item> first = now == null
                    ? Multi.createFrom().empty()
                    : Multi.createFrom().item(new Item(false, now));
            return Multi.createBy()
                    .concatenating()
                    .streams(first, shared.onOverflow().dropPreviousItems())
                    .select()
                    .where(i -> i.problem() || !sent.getAndSet(i.text()).equals(i.text()));
        });
    }
}
