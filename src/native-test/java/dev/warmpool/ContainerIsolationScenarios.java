package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The attacks of issue 37 on a container runtime, as a job of one tenant would try them on a warm
 * container that serves the next tenant's job: read its agent's memory and environment (where the
 * Redis password is), leave a process that outlives its job and forges or reads the next one, leave
 * files in the dirs every user may write, and use root's capabilities. Run by every container
 * runtime's IT (DockerRuntimeIT, and PodmanRuntimeIT through it) against its packaged manager.
 */
interface ContainerIsolationScenarios {
    /** The fixture of the runtime under test (the class that runs these). */
    default DockerFixture fixture() {
        return (DockerFixture) this;
    }

    /** A pool of one warm container ({@code minIdle} 1, {@code maxSize} 1) that runs {@code script} with sh. */
    private void shPool(String type, String script, String... jobEnv) throws Exception {
        ObjectNode spec = ManagerProcess.JSON.createObjectNode();
        spec.putArray("command").add("sh").add("-c").add(script);
        spec.put("minIdle", 1).put("maxSize", 1);
        spec.putObject("template").put("image", DockerFixture.IMAGE);
        if (jobEnv.length > 0) {
            var names = spec.putArray("jobEnv");
            List.of(jobEnv).forEach(names::add);
        }
        fixture().manager.send("PUT", "/pools/" + type, spec.toString());
    }

    private JsonNode ended(String id) throws Exception {
        ManagerProcess m = fixture().manager;
        await().atMost(Duration.ofSeconds(90))
                .until(() -> !List.of("QUEUED", "ASSIGNED", "RUNNING")
                        .contains(m.get("/jobs/" + id + "?wait=5").get("state").asText()));
        return m.get("/jobs/" + id);
    }

    private String submit(String body) throws Exception {
        return fixture().manager.send("POST", "/jobs", body).get("id").asText();
    }

    /**
     * A regular expression for {@code text} that does not match itself: the grep that looks for
     * a secret must not find its own command line (nor the job's) in /proc.
     */
    private static String unselfish(String text) {
        int last = text.length() - 1;
        return text.substring(0, last) + "[" + text.charAt(last) + "]";
    }

    @Test
    default void aJobReadsNeitherItsAgentsMemoryNorItsEnvironmentAndFindsNoRedisPassword() throws Exception {
        String type = "iso-peek";
        String agentUser = unselfish("wp-agent-" + type + ":");
        String password = unselfish(DockerFixture.PASSWORD);
        // every process of another user: its command line, then its environ and memory (as /proc/<pid>/mem is
        // opened by a debugger); then every file it may read, every process's environ and command line
        shPool(
                type,
                "me=$(id -u); echo uid=$me; for d in /proc/[0-9]*; do [ -O \"$d\" ] && continue;"
                        + " echo \"other ${d#/proc/}: $(tr '\\000' ' ' < $d/cmdline 2>/dev/null)\";"
                        + " tr '\\000' '\\n' < $d/environ >/dev/null 2>&1 && echo \"READ environ of $d\";"
                        + " (exec 3< $d/mem) 2>/dev/null && echo \"OPENED mem of $d\"; done;"
                        + " grep -rlsI -D skip --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev -e '" + agentUser
                        + "' -e '" + password
                        + "' / | sed 's/^/FOUND in file /';"
                        + " grep -ls -a -e '" + agentUser + "' -e '" + password
                        + "' /proc/[0-9]*/environ /proc/[0-9]*/cmdline /proc/[0-9]*/task/*/environ"
                        + " | sed 's/^/FOUND in /'; env | grep -c 'redis://' | sed 's/^/redis urls in env: /';"
                        + " echo end");
        JsonNode job = ended(submit("{\"type\": \"" + type + "\"}"));
        String out = job.at("/result/logTail").asText();
        assertEquals("SUCCEEDED", job.get("state").asText(), job + "\n" + out);
        assertTrue(out.endsWith("end\n") || out.endsWith("end"), "the whole attack ran:\n" + out);
        assertNotEquals("uid=0", out.lines().findFirst().orElse(""), "not root beside the agent:\n" + out);
        assertTrue(out.contains("warmpool-agent"), "the agent is there to attack (its command line shows):\n" + out);
        assertFalse(out.contains("READ environ"), "another user's environment:\n" + out);
        assertFalse(out.contains("OPENED mem"), "another user's memory:\n" + out);
        assertFalse(out.contains("FOUND"), "a Redis password where the job can read it:\n" + out);
        assertTrue(out.contains("redis urls in env: 0"), out);
    }

    @Test
    default void whatAJobLeavesRunningIsGoneBeforeTheNextJobAndNeverReadsItsSecret() throws Exception {
        String type = "iso-leftover";
        String secret = "bob-" + Long.toHexString(System.nanoTime());
        String tag = "3" + (System.nanoTime() % 1000);
        // the first job (alice's) leaves a setsid loop that looks for a later job's secret and result path in
        // /proc/*/environ and writes both into that result, and a double fork; the second (bob's) reads its
        // result back after a while and counts the processes of its uid in another session than its own
        shPool(
                type,
                "case \"$WARMPOOL_CONFIG\" in *first*)"
                        + " setsid sh -c 'while :; do for e in /proc/[0-9]*/environ; do"
                        + " s=$(tr \"\\000\" \"\\n\" < $e 2>/dev/null | sed -n \"s/^JOBSECRET=//p\");"
                        + " r=$(tr \"\\000\" \"\\n\" < $e 2>/dev/null | sed -n \"s/^WARMPOOL_RESULT=//p\");"
                        + " [ -n \"$s\" ] && printf \"{\\\"loss\\\": 999, \\\"stolen\\\": \\\"%s\\\"}\" \"$s\" > \"$r\";"
                        + " done; sleep 0.1; done' </dev/null >/dev/null 2>&1 &"
                        + " ( (sleep " + tag + "; echo '{\"loss\": 999}' > \"$WARMPOOL_RESULT\") & ) ;"
                        + " echo '{\"first\": 1}' > \"$WARMPOOL_RESULT\";;"
                        + " *) echo '{\"mine\": 1}' > \"$WARMPOOL_RESULT\"; sleep 2; mine=$(cut -d' ' -f6 /proc/self/stat);"
                        + " n=0; for d in /proc/[0-9]*; do [ -O \"$d\" ] || continue;"
                        + " s=$(cut -d' ' -f6 $d/stat 2>/dev/null); [ -n \"$s\" ] && [ \"$s\" != \"$mine\" ] && n=$((n+1));"
                        + " done; echo \"others: $n\";; esac",
                "JOBSECRET");
        String first = submit("{\"type\": \"" + type + "\", \"config\": {\"first\": true}}");
        JsonNode alice = ended(first);
        assertEquals("SUCCEEDED", alice.get("state").asText(), alice.toString());
        JsonNode bob = ended(submit("{\"type\": \"" + type + "\", \"env\": {\"JOBSECRET\": \"" + secret + "\"}}"));
        assertEquals("SUCCEEDED", bob.get("state").asText(), bob.toString());
        assertEquals(alice.get("processor"), bob.get("processor"), "the same warm container ran both");
        assertEquals(
                Map.of("mine", 1),
                ManagerProcess.JSON.convertValue(bob.at("/result/metrics"), Map.class),
                "nothing of the first job wrote the second's result: " + bob);
        assertEquals("others: 0", bob.at("/result/logTail").asText().trim(), "none of the first job's processes");
        assertFalse(bob.get("result").toString().contains(secret), "the secret is in no result: " + bob);
        assertFalse(
                fixture().manager.get("/jobs/" + first).get("result").toString().contains(secret));
    }

    @Test
    default void whatAJobLeavesInTmpVarTmpAndShmIsGoneForTheNextJob() throws Exception {
        String type = "iso-litter";
        // each job counts what it finds of the others, then litters every dir its user may write
        shPool(
                type,
                "echo \"found $(ls -A /tmp /var/tmp /dev/shm /run/lock 2>/dev/null | grep -c '^left')\";"
                        + " for d in /tmp /var/tmp /dev/shm /run/lock; do { echo x > $d/left-$$; } 2>/dev/null; done;"
                        + " mkdir -p /tmp/left-dir/deep /var/tmp/left-dir; chmod 777 /tmp/left-dir");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(submit("{\"type\": \"" + type + "\"}"));
        }
        Set<String> processors = new HashSet<>();
        for (String id : ids) {
            JsonNode job = ended(id);
            assertEquals("SUCCEEDED", job.get("state").asText(), job.toString());
            assertEquals("found 0", job.at("/result/logTail").asText().trim(), job.toString());
            processors.add(job.get("processor").asText());
        }
        assertEquals(1, processors.size(), "one warm container ran them all");
    }

    @Test
    default void aJobRunsAsAUidOfItsContainersOwnWithoutCapabilitiesOrGroups() throws Exception {
        String type = "iso-user";
        shPool(type, "id -u; grep -E '^(Cap(Inh|Prm|Eff|Amb)|Groups|NoNewPrivs):' /proc/self/status");
        JsonNode job = ended(submit("{\"type\": \"" + type + "\"}"));
        String out = job.at("/result/logTail").asText();
        assertEquals("SUCCEEDED", job.get("state").asText(), job + "\n" + out);
        String uid = out.lines().findFirst().orElse("");
        assertNotEquals("0", uid, out);
        List<String> ids = fixture().containers(fixture().poolLabel(type));
        String label = fixture()
                .run("docker", "inspect", "-f", "{{index .Config.Labels \"warmpool.dev/job-uid\"}}", ids.get(0))
                .out()
                .trim();
        assertEquals(label, uid, "the uid its container was given");
        for (String field : List.of("CapInh", "CapPrm", "CapEff", "CapAmb")) {
            assertTrue(out.contains(field + ":\t0000000000000000"), field + ":\n" + out);
        }
        assertTrue(out.matches("(?s).*Groups:[ \\t]*\\n.*"), "no supplementary groups:\n" + out);
        assertTrue(out.contains("NoNewPrivs:\t1"), out);
    }

    @Test
    default void everyLiveContainersJobsHaveAUidNoOtherHoldsAcrossAManagerRestart() throws Exception {
        String type = "iso-uids";
        DockerFixture f = fixture();
        f.pool(type, "[\"sh\", \"-c\", \"true\"]", 2, 3, "");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> f.containers(f.poolLabel(type)).size() == 2);
        f.manager.kill();
        f.startManager();
        f.pool(type, "[\"sh\", \"-c\", \"true\"]", 3, 3, "");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> f.containers(f.poolLabel(type)).size() == 3);
        Set<String> uids = new HashSet<>();
        for (String id : f.containers(f.poolLabel(type))) {
            String uid = f.run("docker", "inspect", "-f", "{{index .Config.Labels \"warmpool.dev/job-uid\"}}", id)
                    .out()
                    .trim();
            long n = Long.parseLong(uid);
            assertTrue(n >= 0x70000000L && n < 0x70000000L + 65536, uid);
            uids.add(uid);
        }
        assertEquals(3, uids.size(), "the restarted manager read the others' back: " + uids);
        assertTrue(f.manager.call("DELETE", "/pools/" + type, null).statusCode() < 300);
    }
}
