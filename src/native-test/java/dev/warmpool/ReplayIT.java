package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.bench.Replay;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** bench/replay runs: a generated day (a part of it) replayed per policy, its JSON and its plot. It need not meet the goal here. */
class ReplayIT {
    @Test
    void aGeneratedDayReplaysThroughEveryPolicy() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "replay-it"));
        Path trace = dir.resolve("day.csv");
        Replay.main(new String[] {"--generate", trace.toString(), "--seed", "5"});
        Path out = dir.resolve("replay.json");
        Path png = dir.resolve("replay.png");
        Replay.main(new String[] {
            "--trace",
            trace.toString(),
            "--limit",
            "14",
            "--job-seconds",
            "2",
            "--out",
            out.toString(),
            "--plot",
            png.toString()
        });
        JsonNode policies = new ObjectMapper().readTree(out.toFile()).path("policies");
        long invocations = policies.path("fixed-10m").path("invocations").asLong();
        assertTrue(invocations > 0);
        for (String name : new String[] {"fixed-1m", "fixed-2m", "fixed-10m", "fixed-60m", "learned"}) {
            JsonNode p = policies.path(name);
            assertEquals(invocations, p.path("invocations").asLong(), name + " replays the same day");
            assertTrue(
                    p.path("coldStarts").asLong() > 0 && p.path("coldStarts").asLong() <= invocations, name + ": " + p);
            assertTrue(p.path("idleProcessorSeconds").asDouble() > 0, name + ": " + p);
            assertTrue(p.has("queueWaitP50") && p.has("queueWaitP99"), name + ": " + p);
        }
        // a longer keep-alive holds more idle warmth and leaves fewer cold starts
        assertTrue(policies.path("fixed-60m").path("idleProcessorSeconds").asDouble()
                > policies.path("fixed-1m").path("idleProcessorSeconds").asDouble());
        assertTrue(policies.path("fixed-60m").path("coldStarts").asLong()
                < policies.path("fixed-1m").path("coldStarts").asLong());
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(720, image.getWidth());
        long colours = IntStream.range(0, 720)
                .map(x -> image.getRGB(x, 225))
                .distinct()
                .count();
        assertTrue(colours > 3, "the plot is drawn, not blank");
    }

    @Test
    void aFileNotInTheTraceFormatIsRefusedWithWhatItShouldBe() throws Exception {
        Path bad = Files.writeString(
                Files.createDirectories(Path.of("target", "replay-it")).resolve("bad.csv"), "a,b\n1,2\n");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Replay.main(new String[] {"--trace", bad.toString()}));
        assertTrue(e.getMessage().contains("HashOwner,HashApp,HashFunction,Trigger"), e.getMessage());
    }
}
