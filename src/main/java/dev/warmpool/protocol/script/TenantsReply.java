package dev.warmpool.protocol.script;

import java.util.ArrayList;
import java.util.List;

/**
 * tenants.lua: a pool's tenants (fair share, lua/lib/tenants.lua) as {@code GET /pools/{type}} and the
 * metrics show them, usage decayed to the Redis clock's now.
 */
public sealed interface TenantsReply permits TenantsReply.Tenants, TenantsReply.NoPool {
    /**
     * One tenant: its weight, its cap ({@code null}: none), running jobs, queued jobs, usage
     * (processor-seconds, decayed by the pool's half-life), its weighted share ({@code (running + usage /
     * halfLife) / weight}), the processor-seconds its jobs have held in all (never decayed), and of its
     * sweeps' cost (docs/sweeps.md): their trials' run time in seconds, the cold starts they caused and the
     * idle seconds they held.
     */
    record Tenant(
            String tenant,
            double weight,
            Integer maxRunning,
            int running,
            int queued,
            double usageSeconds,
            double share,
            double secondsTotal,
            double sweepSeconds,
            int sweepColdStarts,
            double sweepIdleSeconds) {}

    record Tenants(long now, List<Tenant> tenants) implements TenantsReply {}

    record NoPool() implements TenantsReply {}

    static List<String> args() {
        return List.of();
    }

    static TenantsReply decode(Object raw) {
        if ("NOPOOL".equals(Replies.status(raw))) {
            return new NoPool();
        }
        List<Object> v = Replies.list(raw);
        List<Tenant> out = new ArrayList<>(v.size());
        for (Object row : v.subList(1, v.size())) {
            List<Object> r = Replies.list(row);
            String cap = Replies.string(r.get(2));
            out.add(new Tenant(
                    Replies.string(r.get(0)),
                    Double.parseDouble(Replies.string(r.get(1))),
                    cap == null || cap.isEmpty() ? null : (int) Double.parseDouble(cap),
                    Integer.parseInt(Replies.string(r.get(3))),
                    Integer.parseInt(Replies.string(r.get(4))),
                    Double.parseDouble(Replies.string(r.get(5))),
                    Double.parseDouble(Replies.string(r.get(6))),
                    Double.parseDouble(Replies.string(r.get(7))),
                    Double.parseDouble(Replies.string(r.get(8))),
                    (int) Double.parseDouble(Replies.string(r.get(9))),
                    Double.parseDouble(Replies.string(r.get(10)))));
        }
        return new Tenants(Long.parseLong(Replies.string(v.get(0))), out);
    }
}
