package dev.warmpool.agent;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.warmpool.protocol.AgentEnv;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The variables a gang member's process gets, in the forms the frameworks read: {@code TF_CONFIG}
 * for TensorFlow (the cluster by role, and this member's task), and {@code MASTER_ADDR},
 * {@code MASTER_PORT}, {@code RANK}, {@code WORLD_SIZE} for PyTorch (the members that are not
 * parameter servers, a {@code chief} or {@code master} first, as rank 0). A pure function of the
 * gang as the start script describes it.
 */
final class GangEnv {
    private GangEnv() {}

    /** One member: its processor id, role, index in the role, and address (host:port). */
    record Member(String id, String role, int index, String addr) {}

    static Map<String, String> of(JsonObject gang) {
        String role = gang.get("role").getAsString();
        int index = gang.get("index").getAsInt();
        List<Member> members = new ArrayList<>();
        JsonElement list = gang.get("members");
        if (list != null && list.isJsonArray()) {
            for (JsonElement e : (JsonArray) list) {
                JsonObject m = e.getAsJsonObject();
                members.add(new Member(
                        m.get("id").getAsString(),
                        m.get("role").getAsString(),
                        m.get("index").getAsInt(),
                        m.has("addr") ? m.get("addr").getAsString() : ""));
            }
        }
        return of(role, index, members);
    }

    static Map<String, String> of(String role, int index, List<Member> members) {
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, List<Member>> byRole = new TreeMap<>();
        members.forEach(
                m -> byRole.computeIfAbsent(m.role(), r -> new ArrayList<>()).add(m));
        byRole.values().forEach(l -> l.sort(Comparator.comparingInt(Member::index)));

        JsonObject cluster = new JsonObject();
        byRole.forEach((r, l) -> {
            JsonArray addrs = new JsonArray();
            l.forEach(m -> addrs.add(m.addr()));
            cluster.add(r, addrs);
        });
        JsonObject task = new JsonObject();
        task.addProperty("type", role);
        task.addProperty("index", index);
        JsonObject tf = new JsonObject();
        tf.add("cluster", cluster);
        tf.add("task", task);
        env.put("TF_CONFIG", tf.toString());

        List<Member> ranked = members.stream()
                .filter(m -> !"ps".equals(m.role()))
                .sorted(Comparator.comparingInt(
                                (Member m) -> "chief".equals(m.role()) || "master".equals(m.role()) ? 0 : 1)
                        .thenComparing(Member::role)
                        .thenComparingInt(Member::index))
                .toList();
        env.put("WORLD_SIZE", Integer.toString(ranked.size()));
        for (int r = 0; r < ranked.size(); r++) {
            if (ranked.get(r).role().equals(role) && ranked.get(r).index() == index) {
                env.put("RANK", Integer.toString(r));
            }
        }
        if (!ranked.isEmpty()) {
            String master = ranked.get(0).addr();
            int colon = master.lastIndexOf(':');
            env.put("MASTER_ADDR", colon < 0 ? master : master.substring(0, colon));
            if (colon >= 0) {
                env.put("MASTER_PORT", master.substring(colon + 1));
            }
        }
        env.put("WARMPOOL_GANG_ROLE", role);
        env.put("WARMPOOL_GANG_INDEX", Integer.toString(index));
        env.put("WARMPOOL_GANG_SIZE", Integer.toString(members.size()));
        members.stream()
                .filter(m -> m.role().equals(role) && m.index() == index)
                .findFirst()
                .ifPresent(m -> env.put("WARMPOOL_GANG_ADDR", m.addr()));
        return env;
    }

    /**
     * Where a gang's other members reach this one's job: {@code WARMPOOL_MEMBER_ADDR} (on
     * Kubernetes, the pod's stable DNS name and port), else, for a gang member
     * ({@code WARMPOOL_GANG_MEMBER}, set by the local runtime), a free loopback port; '' for others.
     */
    static String address() {
        String given = System.getenv(AgentEnv.MEMBER_ADDR);
        if (given != null && !given.isBlank()) {
            return given;
        }
        if (!"1".equals(System.getenv("WARMPOOL_GANG_MEMBER"))) {
            return "";
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "127.0.0.1:" + s.getLocalPort();
        } catch (IOException e) {
            return "";
        }
    }
}
