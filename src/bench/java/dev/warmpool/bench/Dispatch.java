package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.count;
import static dev.warmpool.bench.Harness.get;
import static dev.warmpool.bench.Harness.id;
import static dev.warmpool.bench.Harness.millis;
import static dev.warmpool.bench.Harness.send;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** One job after another: on a warm processor, on a cold one (a new pool each), and on a warm gang. */
final class Dispatch {
    private Dispatch() {}

    static void warm(ManagerProcess m, int n) throws Exception {
        send(m, "PUT", "/pools/b-idle", "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
        await(() -> count(m, "b-idle", "idle") == 1);
        List<List<Double>> t = oneAfterAnother(m, "b-idle", n, () -> true);
        Figures.latencies("warm", t.get(0), t.get(1), t.get(2));
    }

    /**
     * Submit, then wait, as a client sees it: POST then {@code GET ?wait=} (two requests), and
     * {@code POST /jobs?wait=} (one), on a warm processor running {@code command} (JSON), under {@code label}.
     */
    static void waits(ManagerProcess m, String label, int n, String command) throws Exception {
        send(m, "PUT", "/pools/b-wait", "{\"command\": " + command + ", \"minIdle\": 1, \"maxSize\": 1}");
        await(() -> count(m, "b-wait", "idle") == 1);
        List<Double> two = new ArrayList<>(), one = new ArrayList<>(), server = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long c0 = System.nanoTime();
            get(m, "/jobs/" + id(send(m, "POST", "/jobs", "{\"type\": \"b-wait\"}")) + "?wait=30");
            two.add((System.nanoTime() - c0) / 1e6);
            await(() -> count(m, "b-wait", "idle") == 1, 1);
            long c1 = System.nanoTime();
            JsonNode job = send(m, "POST", "/jobs?wait=30", "{\"type\": \"b-wait\"}");
            one.add((System.nanoTime() - c1) / 1e6);
            server.add(millis(job, "finishedAt") - millis(job, "submittedAt"));
            if (!job.path("state").asText().equals("SUCCEEDED")) {
                throw new IllegalStateException("submit-and-wait answered " + job);
            }
            await(() -> count(m, "b-wait", "idle") == 1, 1);
        }
        put("wait." + label + ".postThenGet.p50", Figures.p(two, 50));
        put("wait." + label + ".postThenGet.p99", Figures.p(two, 99));
        put("wait." + label + ".postWait.p50", Figures.p(one, 50));
        put("wait." + label + ".postWait.p99", Figures.p(one, 99));
        put("wait." + label + ".serverSubmitToFinished.p50", Figures.p(server, 50));
        send(m, "DELETE", "/pools/b-wait", null);
    }

    static void cold(ManagerProcess m, int n) throws Exception {
        List<Double> running = new ArrayList<>(), finished = new ArrayList<>(), client = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String type = "b-cold-" + i;
            send(m, "PUT", "/pools/" + type, "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 1}");
            long c0 = System.nanoTime();
            JsonNode job = get(m, "/jobs/" + id(send(m, "POST", "/jobs", "{\"type\": \"" + type + "\"}")) + "?wait=60");
            client.add((System.nanoTime() - c0) / 1e6);
            running.add(millis(job, "startedAt") - millis(job, "submittedAt"));
            finished.add(millis(job, "finishedAt") - millis(job, "submittedAt"));
            send(m, "DELETE", "/pools/" + type, null);
        }
        Figures.latencies("cold", running, finished, client);
    }

    /**
     * A warm gang (1 parameter server, 2 workers, each its own agent) taking job after job: the
     * claim of all three members is one script; the job runs when the slowest member starts.
     */
    static void gang(ManagerProcess m, int n) throws Exception {
        send(
                m,
                "PUT",
                "/pools/b-gang",
                "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1, \"network\": \"host\", \"gang\": "
                        + "{\"ps\": {\"count\": 1, \"command\": [\"sleep\", \"60\"]}, \"worker\": {\"count\": 2}}}");
        await(() -> count(m, "b-gang", "idle") == 3);
        // before each job, the ps member is free again
        List<List<Double>> t = oneAfterAnother(m, "b-gang", n, () -> count(m, "b-gang", "idle") == 3);
        List<Double> running = t.get(0), finished = t.get(1), client = t.get(2);
        put("gang.jobs", n);
        put("gang.submitToRunning.p50", Figures.p(running, 50));
        put("gang.submitToRunning.p99", Figures.p(running, 99));
        put("gang.submitToFinished.p50", Figures.p(finished, 50));
        put("gang.clientSubmitToFinished.p50", Figures.p(client, 50));
        send(m, "DELETE", "/pools/b-gang", null);
    }

    /**
     * {@code n} jobs of {@code type}, each submitted once {@code ready} holds and waited for: submit
     * to running and to finished by the server's clocks, and submit to finished as the client sees it.
     */
    static List<List<Double>> oneAfterAnother(ManagerProcess m, String type, int n, BooleanSupplier ready)
            throws Exception {
        List<Double> running = new ArrayList<>(), finished = new ArrayList<>(), client = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            await(ready, 2);
            long c0 = System.nanoTime();
            JsonNode job = get(m, "/jobs/" + id(send(m, "POST", "/jobs", "{\"type\": \"" + type + "\"}")) + "?wait=30");
            client.add((System.nanoTime() - c0) / 1e6);
            running.add(millis(job, "startedAt") - millis(job, "submittedAt"));
            finished.add(millis(job, "finishedAt") - millis(job, "submittedAt"));
        }
        return List.of(running, finished, client);
    }
}
