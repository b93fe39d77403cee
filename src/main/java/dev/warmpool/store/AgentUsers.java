package dev.warmpool.store;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.protocol.KeySchema;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A Redis ACL user per pool for its agents ({@code wp-agent-<type>}): its own pool's keys, the
 * pool's spec read-only ({@code %R~wp:{type}:pool}), and the commands an agent sends (scripts,
 * its inbox, reads and writes inside them), nothing dangerous, no other pool. So a job that finds its way to Redis with its
 * agent's credentials still cannot touch another pool, nor read the manager's.
 *
 * <p>Made when Redis asks for a password (the manager's URL carries one: with an open default
 * user a per-pool user would guard nothing) on a single Redis (ACLs are per node, so not on
 * Redis Cluster), for the local runtime (pods read the URL from a Secret). The passwords live in
 * {@code wp:agents}, a key no agent user can read. A user holds its current and its previous
 * password; every {@code agent-password-rotation} a new one replaces the oldest, so an agent
 * started before a rotation keeps working through the next one.
 */
@ApplicationScoped
public class AgentUsers {
    static final String PASSWORDS = KeySchema.AGENTS;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RedisAPI redis;
    private final String managerUrl;
    private final boolean enabled;
    private final long rotationMillis;

    public AgentUsers(
            RedisAPI redis,
            @ConfigProperty(name = "quarkus.redis.hosts") String hosts,
            @ConfigProperty(name = "quarkus.redis.client-type", defaultValue = "standalone") String clientType,
            WarmpoolConfig config) {
        this.redis = redis;
        this.managerUrl = hosts.replace(" ", "");
        this.enabled = config.redis().agentUsers()
                && "standalone".equals(clientType)
                && !managerUrl.contains(",")
                && hasPassword(managerUrl)
                && List.of("local", "docker").contains(config.runtime().type());
        this.rotationMillis = config.redis().agentPasswordRotation().toMillis();
    }

    public boolean enabled() {
        return enabled;
    }

    public static String user(String type) {
        return "wp-agent-" + type;
    }

    static boolean hasPassword(String url) {
        String auth = URI.create(url).getRawUserInfo();
        return auth != null && !auth.isEmpty() && !auth.equals(":");
    }

    /**
     * The Redis URL an agent of {@code type} connects with: its pool's user and current password
     * (made, or rotated when due, first), or the manager's own when agent users are off.
     */
    public Uni<String> urlFor(String type) {
        if (!enabled) {
            return Uni.createFrom().item(managerUrl);
        }
        return ensure(type).map(pw -> {
            URI u = URI.create(managerUrl);
            return u.getScheme() + "://" + user(type) + ":" + URLEncoder.encode(pw, StandardCharsets.UTF_8) + "@"
                    + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort())
                    + (u.getRawPath() == null ? "" : u.getRawPath());
        });
    }

    /** Makes (or restores, after Redis lost its ACLs) the pool's user, rotating its password when due; its current password. */
    public Uni<String> ensure(String type) {
        return redis.hmget(List.of(PASSWORDS, type, type + ":prev", type + ":at"))
                .flatMap(r -> {
                    String current = text(r.get(0));
                    String prev = text(r.get(1));
                    long at = r.get(2) == null ? 0 : Long.parseLong(r.get(2).toString());
                    long now = System.currentTimeMillis();
                    if (current == null || now - at >= rotationMillis) {
                        String next = newPassword();
                        return redis.hset(List.of(
                                        PASSWORDS,
                                        type,
                                        next,
                                        type + ":prev",
                                        current == null ? "" : current,
                                        type + ":at",
                                        Long.toString(now)))
                                .flatMap(x -> setUser(type, next, current))
                                .replaceWith(next);
                    }
                    return setUser(type, current, prev).replaceWith(current);
                });
    }

    /** Removes a pool's user and passwords (its pool is gone). */
    public Uni<Void> remove(String type) {
        if (!enabled) {
            return Uni.createFrom().voidItem();
        }
        return redis.acl(List.of("DELUSER", user(type)))
                .flatMap(x -> redis.hdel(List.of(PASSWORDS, type, type + ":prev", type + ":at")))
                .replaceWithVoid();
    }

    /** The user as it should be, whatever it was (idempotent: after a Redis restart it is made anew). */
    private Uni<Response> setUser(String type, String current, String prev) {
        List<String> args = new ArrayList<>(List.of("SETUSER", user(type), "on", "resetpass", ">" + current));
        if (prev != null && !prev.isEmpty()) {
            args.add(">" + prev);
        }
        args.addAll(rules(type));
        return redis.acl(args);
    }

    /**
     * What an agent may do: read its pool's spec (never write it: whoever holds an agent's password
     * could otherwise change the command the next job runs), read and write the keys of its
     * pool's processors, jobs, queue and sweeps (not its Idempotency-Keys), the commands its
     * scripts and inbox need, nothing dangerous, no other pool.
     */
    static List<String> rules(String type) {
        List<String> rules = new ArrayList<>(List.of("resetkeys", "%R~" + KeySchema.pool(type)));
        for (String family : AGENT_KEYS) {
            rules.add("~" + KeySchema.prefix(type) + family);
        }
        rules.addAll(List.of(
                "resetchannels",
                "&" + KeySchema.ended(type),
                "&" + KeySchema.changed(type),
                "-@all",
                "+@read",
                "+@write",
                "+@scripting",
                "+@connection",
                "+time",
                "+publish",
                "-@dangerous",
                "-script",
                "-function",
                "-scan",
                "-keys",
                "-randomkey"));
        return rules;
    }

    /** The keys of a pool (below its prefix) that its agents' scripts change. */
    static final List<String> AGENT_KEYS = List.of(
            "procs",
            "proc:*",
            "inbox:*",
            "idle",
            "queue",
            "tenants",
            "tenant:*",
            "tq:*",
            "waiting",
            "jobs",
            "job:*",
            "warmth",
            "seq",
            "demand",
            "gangs",
            "gang:*",
            "sweeps",
            "drivers",
            "sweep:*");

    private static String newPassword() {
        byte[] b = new byte[24];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String text(Response r) {
        return r == null || r.toString().isEmpty() ? null : r.toString();
    }
}
