package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.p;
import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Jedis;

/** The reconcile pass and a dispatch with simulated processors, 100 per pool, at 10x and 100x. */
final class Scale {
    private Scale() {}

    static void scale(String redisUrl, Jedis j, int[] poolCounts) throws Exception {
        j.flushAll();
        ManagerProcess m = quietManager(redisUrl, "bench-scale", Path.of("."));
        try {
            int pools = 0;
            for (int target : poolCounts) {
                Footprint.simulatedPools(m, j, "s-", pools, target, 100);
                pools = target;
                List<Double> pass = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    long t0 = System.nanoTime();
                    JsonNode report = send(
                            m,
                            "POST",
                            "/",
                            "{}",
                            Map.of(
                                    "ce-specversion",
                                    "1.0",
                                    "ce-id",
                                    "bench-" + target + "-" + i,
                                    "ce-source",
                                    "/bench",
                                    "ce-type",
                                    "dev.knative.sources.ping"));
                    if (!report.path("ran").asBoolean()) {
                        throw new IllegalStateException("no pass ran: " + report);
                    }
                    pass.add((System.nanoTime() - t0) / 1e6);
                }
                List<Double> dispatch = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    long t0 = System.nanoTime();
                    send(m, "POST", "/jobs", "{\"type\": \"s-0\"}");
                    dispatch.add((System.nanoTime() - t0) / 1e6);
                }
                String k = "scale." + (target * 100) + "processors";
                put(k + ".pools", target);
                put(k + ".reconcilePassMs.p50", p(pass, 50));
                put(k + ".submitMs.p50", p(dispatch, 50));
            }
        } finally {
            m.stop();
        }
        j.flushAll();
    }
}
