package dev.warmpool.protocol;

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

    // read and hashed on first use, not all 22 at class initialisation: an agent uses six of
    // them, and hashing them all (each with lib.lua in front) took about 20 ms of its start
    private volatile String source;
    private volatile String sha;

    public String source() {
        String s = source;
        if (s == null) {
            s = read("lib") + "\n" + read(name().toLowerCase());
            source = s; // a race only computes the same text twice
        }
        return s;
    }

    /** The SHA1 that EVALSHA takes. */
    public String sha() {
        String h = sha;
        if (h == null) {
            h = sha1(source());
            sha = h;
        }
        return h;
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
