package dev.warmpool.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.api.StrictJson;
import dev.warmpool.pool.PoolSpec;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Pools declared in config read by name into the spec PUT /pools/{type} takes, every field of it. */
@Tag("unit")
class ConfigPoolsTests {
    static ConfigPools.Declared read(String runtime, Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withProfile("prod")
                .withSources(new PropertiesConfigSource(properties, "test", 100))
                .build();
        ObjectMapper mapper = new ObjectMapper();
        new StrictJson().customize(mapper);
        return ConfigPools.read(config, runtime, mapper);
    }

    @Test
    void everyFieldARequestCanSetConfigCanToo() {
        ConfigPools.Declared d = read(
                "local",
                Map.ofEntries(
                        Map.entry("warmpool.pools.train.command[0]", "python3"),
                        Map.entry("warmpool.pools.train.command[1]", "train.py"),
                        Map.entry("warmpool.pools.train.min-idle", "2"),
                        Map.entry("warmpool.pools.train.maxSize", "6"),
                        Map.entry("warmpool.pools.train.env.\"HF_HOME\"", "/data/hf"),
                        Map.entry("warmpool.pools.train.env.\"a.b\"", "dotted"),
                        Map.entry("warmpool.pools.train.fair-share", "false"),
                        Map.entry("warmpool.pools.train.shares.alice", "2.5"),
                        Map.entry("warmpool.pools.train.shares.\"team-b\"", "1"),
                        Map.entry("warmpool.pools.train.max-running.bob", "3"),
                        Map.entry("warmpool.pools.train.groups.research[0]", "alice"),
                        Map.entry("warmpool.pools.train.groups.research[1]", "bob"),
                        Map.entry("warmpool.pools.train.usage-half-life-seconds", "600"),
                        Map.entry("warmpool.pools.train.job-env", "HF_*,SEED"),
                        Map.entry("warmpool.pools.train.network", "outbound"),
                        Map.entry("%dev.warmpool.pools.train.min-idle", "9"),
                        Map.entry("warmpool.pools.gang.gang.ps.count", "1"),
                        Map.entry("warmpool.pools.gang.gang.worker.count", "2"),
                        Map.entry("warmpool.pools.gang.gang.worker.command[0]", "python3"),
                        Map.entry("warmpool.pools.gang.gang.worker.env.RANK_FROM", "env"),
                        Map.entry("warmpool.pools.gang.command", "python3,-c,print(1\\,2)"),
                        Map.entry("warmpool.pools.pod.runtime", "kubernetes"),
                        Map.entry("warmpool.pools.pod.command[0]", "true"),
                        Map.entry("warmpool.pools.pod.template.image", "pytorch:2"),
                        Map.entry("warmpool.pools.pod.template.node-selector.\"kubernetes.io/arch\"", "amd64"),
                        Map.entry("warmpool.pools.pod.template.resources.limits.\"nvidia.com/gpu\"", "1"),
                        Map.entry("warmpool.pools.pod.template.tolerations[0].key", "gpu"),
                        Map.entry("warmpool.pools.pod.template.tolerations[0].toleration-seconds", "30")));
        assertEquals(List.of(), d.problems());
        PoolSpec train = d.specs().get("train");
        assertEquals(List.of("python3", "train.py"), train.command());
        assertEquals(2, train.minIdle(), "the active profile's value, not %dev's");
        assertEquals(6, train.maxSize());
        assertEquals(Map.of("HF_HOME", "/data/hf", "a.b", "dotted"), train.env());
        assertEquals(false, train.fairShare());
        assertEquals(Map.of("alice", 2.5, "team-b", 1.0), train.shares(), "a map's keys as written");
        assertEquals(Map.of("bob", 3), train.maxRunning());
        assertEquals(Map.of("research", List.of("alice", "bob")), train.groups());
        assertEquals(600, train.usageHalfLifeSeconds());
        assertEquals(List.of("HF_*", "SEED"), train.jobEnv());
        assertEquals("outbound", train.network());
        assertEquals("local", train.runtime(), "the manager's runtime where the pool names none");
        assertEquals(PoolSpec.DEFAULT_MAX_QUEUED, train.maxQueued(), "defaults filled in as for a request");

        PoolSpec gang = d.specs().get("gang");
        assertEquals(List.of("python3", "-c", "print(1,2)"), gang.command(), "\\, keeps a comma");
        assertEquals(2, gang.gang().get("worker").count());
        assertEquals(List.of("python3"), gang.gang().get("worker").command());
        assertEquals(Map.of("RANK_FROM", "env"), gang.gang().get("worker").env());

        PoolSpec pod = d.specs().get("pod");
        assertEquals("kubernetes", pod.runtime());
        assertEquals("pytorch:2", pod.template().image());
        assertEquals(Map.of("kubernetes.io/arch", "amd64"), pod.template().nodeSelector());
        assertEquals(
                "1",
                pod.template().resources().getLimits().get("nvidia.com/gpu").getAmount());
        assertEquals("gpu", pod.template().tolerations().get(0).getKey());
        assertEquals(30L, pod.template().tolerations().get(0).getTolerationSeconds());
    }

    @Test
    void anImageIsATemplatesImageAndADockerPoolWithoutOneIsLeftOut() {
        ConfigPools.Declared d = read(
                "docker",
                Map.of(
                        "warmpool.pools.demo.command[0]", "true",
                        "warmpool.pools.boxed.command[0]", "true",
                        "warmpool.pools.boxed.image", "warmpool-base:bookworm",
                        "warmpool.pools.here.command[0]", "true",
                        "warmpool.pools.here.runtime", "local",
                        "warmpool.pools.here.image", "unused:1"));
        assertEquals(List.of("demo"), d.leftOut());
        assertEquals("warmpool-base:bookworm", d.specs().get("boxed").template().image());
        assertEquals("docker", d.specs().get("boxed").runtime());
        assertNull(d.specs().get("here").template(), "a local pool's image names nothing");
        assertEquals(List.of(), d.problems());
    }

    @Test
    void aKeyThatMakesNoPoolSaysWhichAndWhy() {
        ConfigPools.Declared d = read(
                "local",
                Map.ofEntries(
                        Map.entry("warmpool.pools.a.command[0]", "true"),
                        Map.entry("warmpool.pools.a.min-idel", "1"),
                        Map.entry("warmpool.pools.b.command[0]", "true"),
                        Map.entry("warmpool.pools.b.max-size", "four"),
                        Map.entry("warmpool.pools.c.command[0]", "true"),
                        Map.entry("warmpool.pools.c.fair-share", "yes"),
                        Map.entry("warmpool.pools.d.command[0]", "true"),
                        Map.entry("warmpool.pools.d.min-idle[0]", "1"),
                        Map.entry("warmpool.pools.e", "x"),
                        Map.entry("warmpool.pools.f.command", "a,b"),
                        Map.entry("warmpool.pools.f.command[2]", "c"),
                        Map.entry("warmpool.pools.g.command[0]", "true"),
                        Map.entry("warmpool.pools.g.max-size", "99999999999"),
                        Map.entry("warmpool.pools.h.command[0]", "true"),
                        Map.entry("warmpool.pools.h.template.image", "img"),
                        Map.entry("warmpool.pools.h.template.tolerations[0]", "x")));
        List<String> problems = d.problems();
        assertEquals(8, problems.size(), problems.toString());
        assertTrue(
                problems.stream().anyMatch(p -> p.startsWith("warmpool.pools.a.min-idel names no field of PoolSpec")),
                problems.toString());
        assertTrue(
                problems.contains("warmpool.pools.b.max-size must be a whole number up to 2147483647, not 'four'"),
                problems.toString());
        assertTrue(
                problems.contains("warmpool.pools.c.fair-share must be true or false, not 'yes'"), problems.toString());
        assertTrue(
                problems.contains("warmpool.pools.d.min-idle[0] indexes 'minIdle', which is not a list"),
                problems.toString());
        assertTrue(
                problems.stream().anyMatch(p -> p.startsWith("warmpool.pools.e names no field")), problems.toString());
        assertTrue(
                problems.contains("warmpool.pools.f.command[2] and warmpool.pools.f.command both set 'command[2]': keep"
                        + " one (a list is either indexed, command[0], or one line, command=a,b)"),
                problems.toString());
        assertTrue(
                problems.contains(
                        "warmpool.pools.g.max-size must be a whole number up to 2147483647, not '99999999999'"),
                problems.toString());
        assertTrue(
                problems.stream()
                        .anyMatch(p -> p.startsWith("warmpool.pools.h is not a pool: 'template.tolerations[0]'")),
                problems.toString());
    }
}
