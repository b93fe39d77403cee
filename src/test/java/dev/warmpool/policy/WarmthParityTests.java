package dev.warmpool.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.protocol.KeySchema;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * {@link WarmthRecorder}, the replay's and the tests' Java twin of {@code lua/lib/warmth.lua}, records
 * what the script records: the same seeded stream of arrivals (warm or cold), ends and idle spells,
 * at the same clock, fed to both (the Lua functions themselves, on a real redis-server), gives the
 * same demand, levels left, gap histograms (halving included), warm and cold counts and idle time.
 */
class WarmthParityTests {
    static final RedisServer REDIS = RedisServer.ephemeral();
    static final String TYPE = "parity";

    @AfterAll
    static void stop() {
        REDIS.stop();
    }

    /** core.lua and warmth.lua as the scripts have them, then a loop that calls them on ARGV's events. */
    static String driver() throws IOException {
        Path lib = Path.of("src/main/resources/lua/lib");
        return Files.readString(lib.resolve("core.lua")) + "\n" + Files.readString(lib.resolve("warmth.lua")) + """

                for i = 2, #ARGV, 3 do
                  local ev, now, arg = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
                  if ev == 'up' then demand_up(now, arg == '1')
                  elseif ev == 'down' then demand_down(now)
                  else idle_end(tostring(now - tonumber(arg)), now) end
                end
                return 1
                """;
    }

    @Test
    void theRecorderAndWarmthLuaRecordTheSameHistory() throws IOException {
        WarmthRecorder recorder = new WarmthRecorder();
        Random r = new Random(38);
        List<String> events = new ArrayList<>();
        long now = 1_000_000;
        int demand = 0;
        long[] samples = new long[Warmth.LEVELS + 2]; // gaps recorded per level: past HALVE, its counts were halved
        // first many arrivals at levels 1-2 (past the halving at 4,000 samples), then up to level 70; gaps from ms to
        // hours
        for (int i = 0; i < 36_000; i++) {
            int cap = i < 24_000 ? 2 : 70;
            now += (long) Math.pow(10, r.nextDouble() * 6.5);
            double pick = r.nextDouble();
            if (demand > 0 && (pick < 0.45 || demand >= cap)) {
                events.addAll(List.of("down", Long.toString(now), ""));
                recorder.down(now);
                demand--;
            } else if (pick < 0.9) {
                boolean warm = r.nextBoolean();
                if (demand + 1 <= Warmth.LEVELS && recorder.history().leftAt()[demand + 1] != 0) {
                    samples[demand + 1]++;
                }
                events.addAll(List.of("up", Long.toString(now), warm ? "1" : "0"));
                recorder.up(now, warm);
                demand++;
            } else {
                long ms = r.nextInt(100_000);
                events.addAll(List.of("idle", Long.toString(now), Long.toString(ms)));
                recorder.idle(ms);
            }
        }
        assertEquals(true, samples[1] > Warmth.HALVE, "level 1's counts were halved: " + samples[1] + " gaps");
        assertEquals(true, LongStream.of(samples).filter(n -> n > 0).count() > 20, "many levels");
        try (Jedis j = new Jedis(URI.create(REDIS.url()))) {
            j.del(KeySchema.warmth(TYPE));
            String script = driver();
            for (int from = 0; from < events.size(); from += 3_000) {
                List<String> argv = new ArrayList<>(List.of(KeySchema.prefix(TYPE)));
                argv.addAll(events.subList(from, Math.min(events.size(), from + 3_000)));
                j.eval(script, List.of(KeySchema.pool(TYPE)), argv);
            }
            Warmth.History lua = Warmth.History.of(j.hgetAll(KeySchema.warmth(TYPE)));
            Warmth.History twin = recorder.history();
            assertEquals(twin.demand(), lua.demand(), "demand");
            assertEquals(twin.warm(), lua.warm(), "warm arrivals");
            assertEquals(twin.cold(), lua.cold(), "cold arrivals");
            assertEquals(twin.idleMs(), lua.idleMs(), "idle time");
            assertArrayEquals(twin.leftAt(), lua.leftAt(), "when each level was last left");
            for (int level = 1; level <= Warmth.LEVELS; level++) {
                assertArrayEquals(twin.counts()[level], lua.counts()[level], "the gaps of level " + level);
            }
        }
    }
}
