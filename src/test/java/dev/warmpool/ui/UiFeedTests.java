package dev.warmpool.ui;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.service.PoolView;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The overview's feed without a server: open pages share one read per period, nothing is read
 * while no page is open, a page that opens gets the state at once, an unchanged state is not sent
 * again, a failed read is reported without ending the feed; a pool's card carries what it shows.
 */
@Tag("unit")
class UiFeedTests {
    static final Duration PERIOD = Duration.ofMillis(20);
    final AtomicInteger reads = new AtomicInteger();

    /** Each read answers a new state: its number. */
    UiFeed counting() {
        return new UiFeed(() -> Uni.createFrom().item(() -> Integer.toString(reads.incrementAndGet())), PERIOD);
    }

    static List<Integer> states(AssertSubscriber<UiFeed.Item> page) {
        List<Integer> out = new ArrayList<>();
        for (UiFeed.Item i : page.getItems()) {
            if (!i.problem()) {
                out.add(Integer.parseInt(i.text()));
            }
        }
        return out;
    }

    @Test
    void openPagesShareOneReadPerPeriod() {
        UiFeed feed = counting();
        List<AssertSubscriber<UiFeed.Item>> pages = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pages.add(feed.follow().subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE)));
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> pages.stream().allMatch(p -> states(p).size() >= 6));
        pages.forEach(AssertSubscriber::cancel);
        for (AssertSubscriber<UiFeed.Item> page : pages) {
            // read per page, the five pages' reads would interleave and each would see gaps
            List<Integer> seen = states(page);
            for (int i = 2; i < seen.size(); i++) {
                assertEquals(seen.get(i - 1) + 1, seen.get(i), "each read reaches every open page: " + seen);
            }
        }
    }

    @Test
    void nothingIsReadWhileNoPageIsOpenAndAPageThatOpensGetsTheStateAtOnce() {
        UiFeed feed = counting();
        AssertSubscriber<UiFeed.Item> first =
                feed.follow().subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        await().atMost(Duration.ofSeconds(20)).until(() -> states(first).size() >= 2);
        // a second page starts from what the first was sent last, before the next read
        AssertSubscriber<UiFeed.Item> second =
                feed.follow().subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        await().atMost(Duration.ofSeconds(20)).until(() -> !states(second).isEmpty());
        assertTrue(states(first).contains(states(second).get(0)), "the second page began with a state the first had");
        first.cancel();
        second.cancel();
        int after = reads.get();
        await().during(Duration.ofMillis(10 * PERIOD.toMillis()))
                .atMost(Duration.ofSeconds(5))
                .until(() -> reads.get() <= after + 1);
        AssertSubscriber<UiFeed.Item> later =
                feed.follow().subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        await().atMost(Duration.ofSeconds(20)).until(() -> !states(later).isEmpty());
        assertTrue(
                states(later).get(0) > after,
                "a page opened later gets a fresh read, not the state left when the last page closed");
        later.cancel();
    }

    @Test
    void anUnchangedStateIsNotSentAgain() {
        UiFeed feed =
                new UiFeed(() -> Uni.createFrom().item(() -> reads.incrementAndGet() < 5 ? "same" : "changed"), PERIOD);
        AssertSubscriber<UiFeed.Item> page =
                feed.follow().subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        await().atMost(Duration.ofSeconds(20)).until(() -> page.getItems().size() >= 2);
        await().atMost(Duration.ofSeconds(20)).until(() -> reads.get() >= 10);
        page.cancel();
        assertEquals(
                List.of("same", "changed"),
                page.getItems().stream().map(UiFeed.Item::text).toList());
    }

    @Test
    void aFailedReadIsReportedAndTheFeedGoesOn() {
        AtomicBoolean fail = new AtomicBoolean(true);
        UiFeed feed = new UiFeed(
                () -> {
                    reads.incrementAndGet();
                    return fail.getAndSet(false)
                            ? Uni.createFrom().failure(new IllegalStateException("Redis is down"))
                            : Uni.createFrom().item("up");
                },
                PERIOD);
        AssertSubscriber<UiFeed.Item> page =
                feed.follow().subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        await().atMost(Duration.ofSeconds(20)).until(() -> page.getItems().size() >= 2);
        page.cancel();
        assertEquals(new UiFeed.Item(true, "Redis is down"), page.getItems().get(0));
        assertEquals(new UiFeed.Item(false, "up"), page.getItems().get(1));
    }

    @Test
    void aCardListsTwelveProcessorsBusyFirstAndCountsTheRest() {
        List<Processor> ps = new ArrayList<>();
        for (int i = 0; i < 14; i++) {
            ps.add(new Processor(
                    "p" + i,
                    i == 9 ? ProcessorState.BUSY : i == 13 ? ProcessorState.STARTING : ProcessorState.IDLE,
                    i == 9 ? "t.job" : null,
                    0,
                    0,
                    0));
        }
        PoolView.WarmthView warmth =
                new PoolView.WarmthView("learned", 3, 1, 2.5, 1, List.of(new PoolView.Level(1, 9, true, 1.0, 60.0)));
        UiFeed.Card card = UiFeed.Card.of(
                new PoolView("t", "ACTIVE", null, new PoolView.Status(1, 12, 1, 0, 0), ps, null, warmth));
        assertEquals(UiFeed.SHOWN, card.processors().size());
        assertEquals(2, card.more());
        assertEquals(
                List.of("p9", "p13"),
                card.processors().subList(0, 2).stream().map(Processor::id).toList(),
                "busy, then starting");
        assertEquals(null, card.warmth().levels(), "no learned windows on a card");
        assertEquals(3, card.warmth().warmStarts());
        UiFeed.Card small = UiFeed.Card.of(
                new PoolView("s", "ACTIVE", null, new PoolView.Status(0, 2, 0, 0, 0), ps.subList(0, 2), null, null));
        assertEquals(0, small.more());
        assertEquals(2, small.processors().size());
        assertEquals(null, small.startError());
    }

    @Test
    void aCardSaysWhyItsPoolsProcessorsCannotStart() {
        PoolSnapshot.StartError why =
                new PoolSnapshot.StartError("could not start: no such image", Instant.ofEpochMilli(1_000));
        UiFeed.Card card = UiFeed.Card.of(new PoolView(
                "t", "ACTIVE", null, new PoolView.Status(0, 0, 0, 0, 3), List.of(), null, null, null, why));
        assertEquals(why, card.startError());
    }
}
