package dev.warmpool.auth;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.common.MapBackedConfigSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Hands {@code warmpool.auth.jwt.*} to smallrye-jwt as its {@code mp.jwt.*} settings, only when
 * an issuer is set: smallrye-jwt refuses to start on an empty issuer or key location, and a
 * user should need to know one set of names. Explicit {@code mp.jwt.*} settings win (a lower ordinal).
 */
public class JwtSettings implements ConfigSourceFactory {
    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        String issuer = value(context, "warmpool.auth.jwt.issuer");
        if (issuer == null) {
            return List.of();
        }
        Map<String, String> out = new HashMap<>();
        out.put("mp.jwt.verify.issuer", issuer);
        String jwks = value(context, "warmpool.auth.jwt.jwks-url");
        out.put(
                "mp.jwt.verify.publickey.location",
                jwks != null ? jwks : issuer.replaceAll("/+$", "") + "/openid/v1/jwks"); // the Kubernetes API server's
        String audience = value(context, "warmpool.auth.jwt.audience");
        if (audience != null) {
            out.put("mp.jwt.verify.audiences", audience);
        }
        String claim = value(context, "warmpool.auth.jwt.roles-claim");
        out.put("smallrye.jwt.path.groups", claim != null ? claim : "groups");
        return List.of(new MapBackedConfigSource("warmpool.auth.jwt", out, 200) {});
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue v = context.getValue(name);
        return v == null || v.getValue() == null || v.getValue().isBlank() ? null : v.getValue();
    }
}
