package dev.warmpool.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The atomic transitions, one Lua file each under {@code lua/}, with {@code lib.lua} in front.
 * Plain Java, so that the agent (which has no Quarkus) runs the very same scripts.
 */
public enum Script {
    POOL_PUT, POOL_DELETE, POOL_GC, SUBMIT, SUBMIT_BATCH, CANCEL, REGISTER, HEARTBEAT, START, FINISH, DEREGISTER,
    SPAWN, SPAWN_GANG, RETIRE, LOST, SNAPSHOT, LIST_JOBS, REPORT, SWEEP_PUT, SWEEP_GET, SWEEP_LIST, SWEEP_CANCEL;

    private final String source;
    private final String sha;

    Script() {
        this.source = read("lib") + "\n" + read(name().toLowerCase());
        this.sha = sha1(source);
    }

    public String source() {
        return source;
    }

    /** The SHA1 that EVALSHA takes. */
    public String sha() {
        return sha;
    }

    /** KEYS and ARGV of a call on the pool of {@code type}: numkeys 1, the pool key, the prefix, then args. */
    public List<String> keysAndArgs(String type, List<String> args) {
        List<String> call = new ArrayList<>(args.size() + 3);
        call.add("1");
        call.add(KeySchema.pool(type));
        call.add(KeySchema.prefix(type));
        call.addAll(args);
        return call;
    }

    private static String read(String name) {
        String path = "lua/" + name + ".lua";
        try (InputStream in = Script.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
