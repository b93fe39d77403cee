package dev.warmpool.config;

import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Who may call: tokens, JWTs, dashboard sessions ({@code warmpool.auth.*}); a group of {@link WarmpoolConfig}. */
public interface AuthConfig {
    /**
     * Whether callers must show a token. Off only on purpose: the manager then binds to
     * 127.0.0.1 alone and says so loudly at every start, since anyone who reaches the port
     * could otherwise run any program as the manager's user; and it then answers only connections
     * of the manager's own uid (or root's), never a job's (docs/security.md, "Off.").
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * Static API tokens: lines of {@code <name> <roles> <sha256-hex>} (see
     * docs/security.md); re-read when it changes. With neither this nor a JWT issuer set, the manager
     * makes one admin token at first start in the state dir ({@code .warmpool/token}).
     */
    Optional<Path> tokensFile();

    /** How soon an edited tokens file takes effect: it is checked this often. */
    @WithDefault("5s")
    Duration reloadInterval();

    Jwt jwt();

    /**
     * How long a dashboard session lasts after its login: 12 h, a working day. The cookie holds a
     * random session value, never the token; the session itself sits in Redis (so every
     * replica knows it) and ends with a logout, this expiry, or its token's removal.
     */
    @WithDefault("12h")
    Duration uiSessionTtl();

    /**
     * Who reads a job's details (its config and args values, its logs and log tail):
     * {@code submitter} (the default) is its submitter, the members of its tenant's group (a
     * caller whose roles or groups name the job's tenant) and admins, since a job that prints a
     * secret would otherwise show it to every viewer; {@code everyone} is every caller who may
     * see the job. Env values stay its submitter's and admins' either way.
     */
    @WithDefault("submitter")
    JobDetails jobDetails();

    /** The readers of a job's details: see {@link #jobDetails()}. */
    enum JobDetails {
        SUBMITTER,
        EVERYONE
    }

    /** Whether /q/metrics answers without a token (a Prometheus in the same trust zone); off by default. */
    @WithDefault("false")
    boolean publicMetrics();

    /** OIDC/JWT bearer tokens, e.g. Kubernetes service-account tokens or Knative Eventing's OIDC tokens. */
    interface Jwt {
        /** The issuer ({@code iss}) every JWT must name; JWTs are not accepted while it is unset. */
        Optional<String> issuer();

        /** The audience ({@code aud}) a JWT must name; any when unset. */
        Optional<String> audience();

        /** Where the issuer's keys are: a JWKS URL (or file); the issuer's {@code /openid/v1/jwks}-style endpoint. */
        Optional<String> jwksUrl();

        /** The claim that carries the caller's roles or groups: {@code groups}; {@code sub} for service accounts. */
        @WithDefault("groups")
        String rolesClaim();
    }
}
