package dev.warmpool.pool;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * What a pool runs and how big it may be. {@code command} is run for every job, with the job's
 * {@code args} appended; {@code template} says how a processor runs on Kubernetes. It is also the
 * body of {@code PUT /pools/{type}}: every field but {@code command} may be left out, and
 * {@link #withDefaults()} fills them in before the spec is checked.
 *
 * <p>{@code worker: "persistent"} starts the command once per processor instead, and sends it
 * each job as a JSON line on its stdin (see docs/sweeps.md, "Persistent workers"), so the
 * interpreter and whatever it loaded stay warm across jobs. {@code maxJobsPerProcessor} gives a
 * processor back after that many jobs (1: a fresh processor per job, as Katib runs trials).
 *
 * <p>Who may use it: {@code jobEnv} lists the variables a job's {@code env} may set (exact names
 * or {@code PREFIX_*}; none when absent), {@code submitters} the token names or groups that may
 * submit to it besides admins (everyone with the submitter role when absent).
 *
 * <p>{@code network} is what its jobs reach: {@code none}, {@code outbound} or {@code host} (see
 * docs/security.md); left out, the runtime's default is filled in when the pool is put.
 *
 * <p>{@code runtime} is where its processors live: {@code local}, {@code docker} or {@code
 * kubernetes}; left out, the manager's {@code warmpool.runtime.type} is filled in when the pool is
 * put, so the pool keeps its runtime when the manager's default changes. A spec stored before the
 * field existed has none and runs on the manager's default.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoolSpec(
        @Size(max = 256, message = "may have at most 256 elements")
        List<@NotNull(message = "must not contain null") @Size(max = 4096) String> command,

        @Min(value = 0, message = "must be 0 or more") @Max(value = 10_000, message = "must be at most 10000")
        Integer minIdle,

        @Min(value = 1, message = "must be 1 or more") @Max(value = 10_000, message = "must be at most 10000")
        Integer maxSize,

        @Min(value = 1, message = "must be 1 second or more")
        @Max(value = 31_536_000, message = "must be at most a year")
        Integer idleTimeoutSeconds,

        @Size(max = 256, message = "may have at most 256 variables")
        Map<@NotEmpty String, @NotNull(message = "must not be null") String> env,

        String workingDir,

        @Min(value = 1, message = "must be 1 or more") @Max(value = 1_000_000, message = "must be at most 1000000")
        Integer maxQueued,

        @jakarta.validation.Valid @JsonDeserialize(using = PodTemplate.OnFirstUse.class)
        PodTemplate template,

        @jakarta.validation.constraints.Pattern(
                regexp = "process|persistent",
                message =
                        "must be \"process\" (a new process per job, the default) or \"persistent\" (one long-lived worker per processor)")
        String worker,

        @Min(value = 1, message = "must be 1 or more")
        @Max(value = 1_000_000_000, message = "must be at most 1000000000")
        Integer maxJobsPerProcessor,

        @Size(min = 1, max = 8, message = "must have 1 to 8 roles")
        Map<
                        @jakarta.validation.constraints.Pattern(
                                regexp = "[a-z]([a-z0-9]{0,14})",
                                message =
                                        "must be a role name of at most 15 lower-case letters and digits, e.g. \"worker\"")
                        String,
                        @NotNull(message = "must not be null") @jakarta.validation.Valid GangRole>
                gang,

        @Size(max = 256, message = "may have at most 256 names")
        List<
                        @NotNull(message = "must not contain null")
                        @jakarta.validation.constraints.Pattern(
                                regexp = "[A-Za-z_][A-Za-z0-9_]{0,255}\\*?",
                                message = "must be a variable name, or a prefix ending in *, e.g. \"HF_*\"")
                        String>
                jobEnv,

        @Size(max = 256, message = "may have at most 256 names")
        List<@NotEmpty(message = "must be a token name or a group") @Size(max = 256) String> submitters,

        @jakarta.validation.constraints.Pattern(
                regexp = "fixed|learned",
                message =
                        "must be \"fixed\" (idle processors beyond minIdle are given back after idleTimeoutSeconds, the default) or \"learned\" (kept warm, given back and started ahead as the pool's demand has come and gone)")
        String warmth,

        @Size(min = 1, max = 256, message = "must have 1 to 256 elements")
        List<@NotNull(message = "must not contain null") @Size(max = 4096) String> resetCommand,

        @Min(value = 1, message = "must be 1 second or more")
        @Max(value = 31_536_000, message = "must be at most a year")
        Integer maxAgeSeconds,

        Boolean fairShare,

        @Size(max = 1000, message = "may name at most 1000 tenants or groups")
        Map<
                        @NotEmpty(message = "must be a tenant or group name") @Size(max = 256) String,
                        @NotNull(message = "must be a weight, e.g. 2")
                        @jakarta.validation.constraints.DecimalMin(
                                value = "0",
                                inclusive = false,
                                message = "must be a weight above 0, e.g. 2 (twice the default share of 1)")
                        @jakarta.validation.constraints.DecimalMax(
                                value = "1000000",
                                message = "must be at most 1000000")
                        Double>
                shares,

        @Size(max = 1000, message = "may name at most 1000 tenants or groups")
        Map<
                        @NotEmpty(message = "must be a tenant or group name") @Size(max = 256) String,
                        @NotNull(message = "must be a number of processors, e.g. 2")
                        @Min(value = 1, message = "must be 1 or more (leave the tenant out for no cap)")
                        @Max(value = 1_000_000, message = "must be at most 1000000") Integer>
                maxRunning,

        @Size(max = 1000, message = "may have at most 1000 groups")
        Map<
                        @NotEmpty(message = "must be a group name") @Size(max = 256) String,
                        @NotNull(message = "must list the group's members, e.g. [\"alice\", \"bob\"]")
                                @Size(min = 1, max = 1000, message = "must list 1 to 1000 members") List<
                                @NotEmpty(message = "must be a token name or JWT subject") @Size(max = 256) String>>
                groups,

        @Min(value = 0, message = "must be 0 (only running jobs count) or more seconds")
        @Max(value = 31_536_000, message = "must be at most a year")
        Integer usageHalfLifeSeconds,

        @jakarta.validation.constraints.Pattern(regexp = "none|outbound|host", message = NETWORK_CHOICES)
        String network,

        @jakarta.validation.constraints.Pattern(regexp = "local|docker|kubernetes", message = RUNTIME_CHOICES)
        String runtime) {
    /** A fair-share pool's usage half-life when it sets none (docs/fair-share.md). */
    public static final int DEFAULT_USAGE_HALF_LIFE_SECONDS = 3600;

    /** How {@code runtime} is refused: the three choices, each in a few words. */
    public static final String RUNTIME_CHOICES =
            "must be \"local\" (a process on the manager's machine), \"docker\" (a container of the template's"
                    + " image on the manager's Docker or Podman engine) or \"kubernetes\" (a pod), or be left out"
                    + " for the manager's default (warmpool.runtime.type)";

    /** How {@code network} is refused: the three choices, each in a few words. */
    public static final String NETWORK_CHOICES =
            "must be \"none\" (no network: the job reaches no host port, the default on the local runtime), "
                    + "\"outbound\" (the outside world, not the host's loopback) or \"host\" (the host's network, loopback included)";

    public static final String NETWORK_NONE = "none";
    public static final String NETWORK_OUTBOUND = "outbound";
    public static final String NETWORK_HOST = "host";

    /** The spec with {@code network} set (the runtime's default filled in). */
    public PoolSpec withNetwork(String network) {
        return toBuilder().network(network).build();
    }

    /** The spec with {@code runtime} set (the manager's default filled in). */
    public PoolSpec withRuntime(String runtime) {
        return toBuilder().runtime(runtime).build();
    }

    /** A spec with every field left out; set those you need by name. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this spec's fields, to change some by name. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.command = command;
        b.minIdle = minIdle;
        b.maxSize = maxSize;
        b.idleTimeoutSeconds = idleTimeoutSeconds;
        b.env = env;
        b.workingDir = workingDir;
        b.maxQueued = maxQueued;
        b.template = template;
        b.worker = worker;
        b.maxJobsPerProcessor = maxJobsPerProcessor;
        b.gang = gang;
        b.jobEnv = jobEnv;
        b.submitters = submitters;
        b.warmth = warmth;
        b.resetCommand = resetCommand;
        b.maxAgeSeconds = maxAgeSeconds;
        b.fairShare = fairShare;
        b.shares = shares;
        b.maxRunning = maxRunning;
        b.groups = groups;
        b.usageHalfLifeSeconds = usageHalfLifeSeconds;
        b.network = network;
        b.runtime = runtime;
        return b;
    }

    /**
     * The one way to make a spec in code: fields by name, those left out null (as a request that
     * leaves them out; {@link #withDefaults()} fills them in).
     */
    public static final class Builder {
        private List<String> command;
        private Integer minIdle;
        private Integer maxSize;
        private Integer idleTimeoutSeconds;
        private Map<String, String> env;
        private String workingDir;
        private Integer maxQueued;
        private PodTemplate template;
        private String worker;
        private Integer maxJobsPerProcessor;
        private Map<String, GangRole> gang;
        private List<String> jobEnv;
        private List<String> submitters;
        private String warmth;
        private List<String> resetCommand;
        private Integer maxAgeSeconds;
        private Boolean fairShare;
        private Map<String, Double> shares;
        private Map<String, Integer> maxRunning;
        private Map<String, List<String>> groups;
        private Integer usageHalfLifeSeconds;
        private String network;
        private String runtime;

        private Builder() {}

        public Builder command(List<String> command) {
            this.command = command;
            return this;
        }

        public Builder minIdle(Integer minIdle) {
            this.minIdle = minIdle;
            return this;
        }

        public Builder maxSize(Integer maxSize) {
            this.maxSize = maxSize;
            return this;
        }

        public Builder idleTimeoutSeconds(Integer idleTimeoutSeconds) {
            this.idleTimeoutSeconds = idleTimeoutSeconds;
            return this;
        }

        public Builder env(Map<String, String> env) {
            this.env = env;
            return this;
        }

        public Builder workingDir(String workingDir) {
            this.workingDir = workingDir;
            return this;
        }

        public Builder maxQueued(Integer maxQueued) {
            this.maxQueued = maxQueued;
            return this;
        }

        public Builder template(PodTemplate template) {
            this.template = template;
            return this;
        }

        public Builder worker(String worker) {
            this.worker = worker;
            return this;
        }

        public Builder maxJobsPerProcessor(Integer maxJobsPerProcessor) {
            this.maxJobsPerProcessor = maxJobsPerProcessor;
            return this;
        }

        public Builder gang(Map<String, GangRole> gang) {
            this.gang = gang;
            return this;
        }

        public Builder jobEnv(List<String> jobEnv) {
            this.jobEnv = jobEnv;
            return this;
        }

        public Builder submitters(List<String> submitters) {
            this.submitters = submitters;
            return this;
        }

        public Builder warmth(String warmth) {
            this.warmth = warmth;
            return this;
        }

        public Builder resetCommand(List<String> resetCommand) {
            this.resetCommand = resetCommand;
            return this;
        }

        public Builder maxAgeSeconds(Integer maxAgeSeconds) {
            this.maxAgeSeconds = maxAgeSeconds;
            return this;
        }

        public Builder fairShare(Boolean fairShare) {
            this.fairShare = fairShare;
            return this;
        }

        public Builder shares(Map<String, Double> shares) {
            this.shares = shares;
            return this;
        }

        public Builder maxRunning(Map<String, Integer> maxRunning) {
            this.maxRunning = maxRunning;
            return this;
        }

        public Builder groups(Map<String, List<String>> groups) {
            this.groups = groups;
            return this;
        }

        public Builder usageHalfLifeSeconds(Integer usageHalfLifeSeconds) {
            this.usageHalfLifeSeconds = usageHalfLifeSeconds;
            return this;
        }

        public Builder network(String network) {
            this.network = network;
            return this;
        }

        public Builder runtime(String runtime) {
            this.runtime = runtime;
            return this;
        }

        public PoolSpec build() {
            return new PoolSpec(
                    command,
                    minIdle,
                    maxSize,
                    idleTimeoutSeconds,
                    env,
                    workingDir,
                    maxQueued,
                    template,
                    worker,
                    maxJobsPerProcessor,
                    gang,
                    jobEnv,
                    submitters,
                    warmth,
                    resetCommand,
                    maxAgeSeconds,
                    fairShare,
                    shares,
                    maxRunning,
                    groups,
                    usageHalfLifeSeconds,
                    network,
                    runtime);
        }
    }

    /**
     * One role of a gang: how many members play it, and (optionally) their own command and env.
     * The role {@code ps} is a parameter server: it serves while the others work and is stopped
     * when they end.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GangRole(
            @NotNull(message = "must say how many members play the role")
            @Min(value = 1, message = "must be 1 or more")
            @Max(value = 64, message = "must be at most 64")
            Integer count,

            @Size(min = 1, max = 256, message = "must have 1 to 256 elements")
            List<@NotNull(message = "must not contain null") @Size(max = 4096) String> command,

            @Size(max = 256) Map<@NotEmpty String, @NotNull(message = "must not be null") String> env) {}

    /**
     * The spec with every env value (its own, its gang roles', its template's) passed through
     * {@code values}, the names kept: how a reader who may not see the values is shown the pool.
     */
    public PoolSpec withEnvValues(UnaryOperator<Map<String, String>> values) {
        Map<String, GangRole> roles = gang == null ? null : new TreeMap<>();
        if (gang != null) {
            gang.forEach((name, r) -> roles.put(
                    name,
                    r == null
                            ? null
                            : new GangRole(r.count(), r.command(), r.env() == null ? null : values.apply(r.env()))));
        }
        return toBuilder()
                .env(env == null ? null : values.apply(env))
                .template(
                        template == null || template.env() == null
                                ? template
                                : template.withEnv(values.apply(template.env())))
                .gang(roles)
                .build();
    }

    /** The role name of a parameter server. */
    public static final String PARAMETER_SERVER = "ps";

    /** A gang pool: each processor is a set of members started, claimed and reused together. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isGang() {
        return gang != null && !gang.isEmpty();
    }

    /** Members of one gang, in order: role by role (roles in name order), each role's members by index. */
    public List<Member> members() {
        List<Member> out = new ArrayList<>();
        if (isGang()) {
            new TreeMap<>(gang).forEach((role, r) -> {
                for (int i = 0; i < r.count(); i++) {
                    out.add(new Member(role, i));
                }
            });
        }
        return out;
    }

    /** One member of a gang: its role and its index within the role. */
    public record Member(String role, int index) {}

    public static final int DEFAULT_MIN_IDLE = 1;
    public static final int DEFAULT_MAX_SIZE = 4;
    public static final int DEFAULT_IDLE_TIMEOUT_SECONDS = 300;
    /** Enough for a large sweep; past it a submit is refused (429) instead of queueing without bound. */
    public static final int DEFAULT_MAX_QUEUED = 10_000;

    /** A gang whose every role runs its own command: the pool needs none of its own. */
    public boolean rolesHaveCommands() {
        return gang != null
                && !gang.isEmpty()
                && gang.values().stream()
                        .allMatch(r ->
                                r != null && r.command() != null && !r.command().isEmpty());
    }

    /** The spec with the defaults filled in where the request left a field out. */
    public PoolSpec withDefaults() {
        return new PoolSpec(
                command == null && rolesHaveCommands() ? List.of() : command,
                minIdle == null ? DEFAULT_MIN_IDLE : minIdle,
                maxSize == null ? Math.max(DEFAULT_MAX_SIZE, minIdle == null ? 0 : minIdle) : maxSize,
                idleTimeoutSeconds == null ? DEFAULT_IDLE_TIMEOUT_SECONDS : idleTimeoutSeconds,
                env == null ? Map.of() : env,
                workingDir == null || workingDir.isBlank() ? null : workingDir,
                maxQueued == null ? DEFAULT_MAX_QUEUED : maxQueued,
                template,
                worker == null || worker.isBlank() ? "process" : worker,
                maxJobsPerProcessor,
                gang == null || gang.isEmpty() ? null : new TreeMap<>(gang),
                jobEnv == null || jobEnv.isEmpty() ? null : jobEnv,
                submitters == null || submitters.isEmpty() ? null : submitters,
                warmth == null || warmth.isBlank() ? FIXED : warmth,
                resetCommand,
                maxAgeSeconds,
                fairShare == null ? Boolean.TRUE : fairShare,
                shares == null || shares.isEmpty() ? null : new TreeMap<>(shares),
                maxRunning == null || maxRunning.isEmpty() ? null : new TreeMap<>(maxRunning),
                groups == null || groups.isEmpty() ? null : new TreeMap<>(groups),
                usageHalfLifeSeconds == null ? DEFAULT_USAGE_HALF_LIFE_SECONDS : usageHalfLifeSeconds,
                network == null || network.isBlank() ? null : network,
                runtime == null || runtime.isBlank() ? null : runtime);
    }

    /** Whether {@code caller} (a name and its roles or groups) may submit here; admins always may. */
    public boolean admits(String name, Set<String> groups) {
        return submitters == null
                || submitters.contains(name)
                || submitters.stream().anyMatch(groups::contains);
    }

    public static final String FIXED = "fixed";
    public static final String LEARNED = "learned";

    /** Whether its idle processors follow the learned keep-alive ({@link Warmth}) rather than the fixed one. */
    public boolean learned() {
        return LEARNED.equals(warmth) && !isGang();
    }

    public boolean persistent() {
        return "persistent".equals(worker);
    }
}
