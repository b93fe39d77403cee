package dev.warmpool.config;

import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilderCustomizer;

/**
 * Lets the keys under {@code warmpool.pools} through SmallRye's check of the {@code warmpool}
 * mapping: they are read by name into each pool's spec ({@link ConfigPools}), which refuses a key
 * the spec lacks itself, naming it. Found by the ServiceLoader (META-INF/services).
 */
public class PoolKeys implements SmallRyeConfigBuilderCustomizer {
    @Override
    public void configBuilder(SmallRyeConfigBuilder builder) {
        builder.withMappingIgnore(ConfigPools.PREFIX + "**");
    }
}
