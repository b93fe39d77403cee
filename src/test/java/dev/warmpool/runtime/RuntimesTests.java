package dev.warmpool.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One manager, several runtimes: each pool's processors go to its own runtime, and never to another. */
@Tag("unit")
class RuntimesTests {
    /** A runtime that records what it was asked to do. */
    static final class Fake implements ProcessorRuntime {
        final List<String> started = new ArrayList<>();
        final List<String> stopped = new ArrayList<>();

        @Override
        public void start(String type, String processorId, PoolSpec spec) {
            started.add(type + "/" + processorId);
        }

        @Override
        public void stop(String type, String processorId) {
            stopped.add(type + "/" + processorId);
        }

        @Override
        public List<Running> list() {
            return started.stream()
                    .map(s -> new Running(s.split("/")[0], s.split("/")[1], 0))
                    .toList();
        }
    }

    static PoolSpec spec(String runtime, String image) {
        PodTemplate t = image == null
                ? null
                : new PodTemplate(image, null, null, null, null, null, null, null, null, null, null);
        return PoolSpec.builder()
                .command(List.of("true"))
                .minIdle(0)
                .maxSize(1)
                .idleTimeoutSeconds(300)
                .env(Map.of())
                .template(t)
                .build()
                .withRuntime(runtime);
    }

    @Test
    void startsEachPoolOnItsOwnRuntimeAndListsThemAll() {
        Fake local = new Fake();
        Fake docker = new Fake();
        Runtimes r = new Runtimes("local", Map.of("local", local, "docker", docker), Map.of());
        r.start("a", "p1", spec(null, null));
        r.start("b", "p2", spec("docker", "python:3.12"));
        r.start("c", "p3", spec(null, "python:3.12"));
        r.start("d", "p4", spec("local", "local"));
        assertEquals(List.of("a/p1", "d/p4"), local.started);
        assertEquals(List.of("b/p2", "c/p3"), docker.started, "an image without a runtime runs in containers");
        assertEquals(4, r.list().size());
        r.stop("b", "p2");
        assertEquals(List.of("b/p2"), docker.stopped);
        assertEquals(List.of("local", "docker"), r.names());
    }

    @Test
    void aPoolOnARuntimeItLacksIsNeverStartedOnAnother() {
        Fake local = new Fake();
        Runtimes r = new Runtimes(
                "local",
                Map.of("local", local),
                Map.of("docker", "no Docker engine answers at unix:///var/run/docker.sock"));
        Runtimes.Missing e =
                assertThrows(Runtimes.Missing.class, () -> r.start("img", "p1", spec(null, "python:3.12")));
        assertTrue(e.getMessage().contains("pool img runs on the docker runtime"), e.getMessage());
        assertTrue(e.getMessage().contains("no Docker engine answers"), e.getMessage());
        assertThrows(Runtimes.Missing.class, () -> r.start("k", "p2", spec("kubernetes", "python:3.12")));
        assertEquals(List.of(), local.started);
    }

    @Test
    void aKubernetesManagersPoolsStayOnKubernetesWhateverTheirTemplate() {
        Fake pods = new Fake();
        Runtimes r = Runtimes.only("kubernetes", pods);
        assertEquals("kubernetes", r.nameOf(spec(null, "python:3.12")));
        assertEquals("kubernetes", r.nameOf(spec(null, null)));
        assertTrue(r.lacks("local").isPresent());
    }
}
