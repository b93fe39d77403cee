package dev.warmpool.ui;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.service.JobService;
import dev.warmpool.service.PoolService;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The overview's live state (the pools as {@code GET /pools} shows them, the recent jobs as
 * {@code GET /jobs} does), read once a {@link #PERIOD} for every open page of this manager
 * together, and not at all while no page is open. Why shared: a read costs a snapshot script per
 * pool plus a job listing per pool, so a read per page per second would grow Redis's load with
 * the number of people looking; shared, ten open pages cost what one does.
 */
@ApplicationScoped
public class UiFeed {
    /** How often the open pages' state is read. */
    static final Duration PERIOD = Duration.ofSeconds(1);
    /** How many of the newest jobs the overview lists. */
    static final int RECENT_JOBS = 50;

    /** One item of the feed: the state as JSON, or a sentence saying why a read failed (the feed goes on). */
    public record Item(boolean problem, String text) {
    }

    private final Multi<Item> shared;
    /** What the open pages were last sent, for a page that opens meanwhile; null while none is open. */
    private final AtomicReference<String> latest = new AtomicReference<>();

    @Inject
    public UiFeed(PoolService pools, JobService jobs, ObjectMapper json) {
        this(() -> Uni.combine().all().unis(pools.list(), jobs.list(null, null, RECENT_JOBS, null)).asTuple().map(t -> {
            Map<String, Object> state = new LinkedHashMap<>();
            state.put("pools", t.getItem1());
            state.put("jobs", t.getItem2());
            try {
                return json.writeValueAsString(state);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }), PERIOD);
    }

    UiFeed(Supplier<Uni<String>> read, Duration period) {
        this.shared = Multi.createFrom().ticks().startingAfter(Duration.ofMillis(1)).every(period).onOverflow().drop()
                .onItem().transformToUniAndConcatenate(tick -> Uni.createFrom().deferred(read::get).map(text -> new Item(false, text))
                        .onFailure().recoverWithItem(e -> new Item(true, String.valueOf(e.getMessage()))))
                .invoke(i -> {
                    if (!i.problem()) {
                        latest.set(i.text());
                    }
                })
                .onTermination().invoke(() -> latest.set(null))
                .broadcast().withCancellationAfterLastSubscriberDeparture().toAllSubscribers();
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
            Multi<Item> first = now == null ? Multi.createFrom().empty() : Multi.createFrom().item(new Item(false, now));
            return Multi.createBy().concatenating().streams(first, shared.onOverflow().dropPreviousItems())
                    .select().where(i -> i.problem() || !sent.getAndSet(i.text()).equals(i.text()));
        });
    }
}
