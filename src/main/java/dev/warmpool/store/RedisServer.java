package dev.warmpool.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;

/**
 * Starts a redis-server of warmpool's own: the one on PATH, else the binary that
 * {@code com.github.codemonstur:embedded-redis} ships. Used by the run command when no Redis is
 * configured, and by the tests, which each run get a fresh one on a free port.
 */
public final class RedisServer {
    private final Process process;
    private final int port;
    /** The key and certificate it proves itself with; null: plain TCP (the tests' throw-away servers). */
    private final RedisTls tls;

    private RedisServer(Process process, int port, RedisTls tls) {
        this.process = process;
        this.port = port;
        this.tls = tls;
    }

    public int port() {
        return port;
    }

    /** {@code rediss://} when it speaks TLS only (the run command's own), else {@code redis://}. */
    public String url() {
        return (tls == null ? "redis" : "rediss") + "://127.0.0.1:" + port;
    }

    public Optional<RedisTls> tls() {
        return Optional.ofNullable(tls);
    }

    public Optional<Process> process() {
        return Optional.ofNullable(process);
    }

    /** A throw-away server on a free port: nothing on disk, stopped with {@link #stop()}. */
    public static RedisServer ephemeral() {
        return ephemeral(new String[0]);
    }

    /** A throw-away server with more options, e.g. {@code --requirepass pw}. */
    public static RedisServer ephemeral(String... options) {
        return ephemeralOn(freePort(), options);
    }

    /** A throw-away server on {@code port}. */
    public static RedisServer ephemeralOn(int port, String... options) {
        List<String> cmd = new ArrayList<>(List.of(
                binary().toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no"));
        cmd.addAll(List.of(options));
        return launch(cmd, port, null, null);
    }

    /**
     * The server of a local installation: on {@code port}, with its data (AOF on) in {@code dir}, in
     * its own session so that it outlives the manager, as the agents do. Found again on the next
     * start only when it is the one this install started (see {@link #ours}).
     */
    public static RedisServer persistent(int port, Path dir) {
        return persistent(port, dir, null);
    }

    /**
     * As {@link #persistent(int, Path)}, asking clients for {@code password} when not null: it goes
     * to redis-server in a 0600 config file, not on its command line, which {@code ps} shows. The
     * server runs with umask 077, so its AOF, log and pid file are the user's alone.
     *
     * @throws IllegalStateException when something else answers on {@code port}: a server another
     *     user (or another install) started is never adopted, it could run any pool command it likes
     */
    public static RedisServer persistent(int port, Path dir, String password) {
        return persistent(port, dir, password, List.of());
    }

    /**
     * As {@link #persistent(int, Path, String)}, listening on {@code alsoBind} besides 127.0.0.1
     * (the docker bridge's gateway, where containers reach it). A server already running gets the
     * same addresses with CONFIG SET bind, so one started for the local runtime serves containers too.
     */
    public static RedisServer persistent(int port, Path dir, String password, List<String> alsoBind) {
        return persistent(port, dir, password, alsoBind, null);
    }

    /**
     * As {@link #persistent(int, Path, String, List)}, speaking TLS only when {@code tls} is not
     * null: no plain port ({@code --port 0}), its TLS port {@code port}, with the key and
     * certificate of {@code tls}. Whatever answers on the port without that certificate is refused
     * before any password is sent to it.
     */
    public static RedisServer persistent(int port, Path dir, String password, List<String> alsoBind, RedisTls tls) {
        PrivateFiles.secureDir(dir);
        Path pidFile = dir.toAbsolutePath().resolve(PID_FILE);
        Answer answer = answer(port, tls);
        if (answer == Answer.STRANGER) {
            if (answer(port, null) == Answer.REDIS && ours(port, pidFile).isEmpty()) {
                throw new IllegalStateException("port " + port + " answers with the redis-server this install started"
                        + " without TLS (an older warmpool's): stop that install first (the older version's 'stop'"
                        + " command, which ends its agents too), then start this one, which starts it again with TLS");
            }
            throw notOurs(port, "it did not present the certificate in " + tls.certificate());
        }
        if (answer == Answer.REDIS) {
            ours(port, pidFile).ifPresent(why -> {
                throw notOurs(port, why);
            });
            if (!alsoBind.isEmpty()) {
                bind(port, password, alsoBind, tls);
            }
            return new RedisServer(null, port, tls);
        }
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            cmd.add("/usr/bin/setsid");
        }
        // umask 077 for all that redis-server writes (AOF, RDB, log, pid file); exec keeps its pid
        cmd.addAll(List.of(
                "/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\"", binary(dir).toString()));
        try {
            if (password != null) {
                Path conf = dir.toAbsolutePath().resolve("redis.conf");
                writePrivate(
                        conf,
                        "# written by warmpool: the password its manager and agents use\nrequirepass " + password
                                + "\n");
                cmd.add(conf.toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (tls == null) {
            cmd.addAll(List.of("--port", Integer.toString(port)));
        } else {
            // no plain port at all: a client that reaches it has checked its certificate first
            cmd.addAll(List.of(
                    "--port",
                    "0",
                    "--tls-port",
                    Integer.toString(port),
                    "--tls-cert-file",
                    tls.certificate().toString(),
                    "--tls-key-file",
                    tls.key().toString(),
                    "--tls-auth-clients",
                    "no"));
        }
        cmd.add("--bind");
        cmd.add("127.0.0.1");
        cmd.addAll(alsoBind);
        cmd.addAll(List.of(
                "--dir",
                dir.toAbsolutePath().toString(),
                "--appendonly",
                "yes",
                "--save",
                "",
                "--logfile",
                dir.toAbsolutePath().resolve("redis.log").toString(),
                "--pidfile",
                pidFile.toString(),
                "--daemonize",
                "no"));
        return launch(cmd, port, dir.resolve("redis.out"), tls);
    }

    private static IllegalStateException notOurs(int port, String why) {
        return new IllegalStateException("port " + port + " already answers, but not with the redis-server this"
                + " install started (" + why + "): warmpool will not use a Redis it did not start. Stop that"
                + " server, or give this install another port (warmpool.redis.embedded-port)");
    }

    /** The pid file of an install's own redis-server, in its private data dir. */
    public static final String PID_FILE = "redis.pid";

    /**
     * Empty when the server listening on {@code port} is the one whose pid {@code pidFile} holds,
     * runs as this user and holds that listening socket; else why not. On a system without
     * {@code /proc} the pid file and the process's user are all it checks.
     */
    static Optional<String> ours(int port, Path pidFile) {
        long pid;
        try {
            pid = Long.parseLong(Files.readString(pidFile).trim());
        } catch (IOException | NumberFormatException e) {
            return Optional.of("no pid file " + pidFile + " of a server it started");
        }
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty()) {
            return Optional.of("the server it started, pid " + pid + ", is gone");
        }
        String me = System.getProperty("user.name");
        Optional<String> user = h.get().info().user();
        if (user.isPresent() && !user.get().equals(me)) {
            return Optional.of("pid " + pid + " runs as " + user.get() + ", not " + me);
        }
        Path tcp = Path.of("/proc/net/tcp");
        if (!Files.isReadable(tcp)) {
            return Optional.empty();
        }
        Optional<String> inode = listeningInode(tcp, port);
        if (inode.isEmpty()) {
            return Optional.of("no listening socket on 127.0.0.1:" + port + " in " + tcp);
        }
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            String socket = "socket:[" + inode.get() + "]";
            boolean holds = fds.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().equals(socket);
                } catch (IOException e) {
                    return false;
                }
            });
            return holds
                    ? Optional.empty()
                    : Optional.of("the listener on port " + port + " is not held by pid " + pid);
        } catch (IOException e) {
            return Optional.of("cannot read the sockets of pid " + pid + ": " + e.getMessage());
        }
    }

    /** The inode of the socket listening on 127.0.0.1:{@code port} (state 0A), from {@code /proc/net/tcp}. */
    static Optional<String> listeningInode(Path tcp, int port) {
        String local = String.format("0100007F:%04X", port);
        try (Stream<String> lines = Files.lines(tcp)) {
            return lines.skip(1)
                    .map(String::trim)
                    .map(l -> l.split("\\s+"))
                    .filter(f -> f.length > 9 && f[1].equals(local) && f[3].equals("0A"))
                    .map(f -> f[9])
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static RedisServer launch(List<String> cmd, int port, Path out, RedisTls tls) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            if (out != null) {
                pb.redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
            } else {
                pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
            }
            Process p = pb.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (answer(port, tls) != Answer.REDIS) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    throw new IllegalStateException("redis-server did not start on port " + port + ": " + cmd
                            + (out == null ? "" : " (its output, in " + out.toAbsolutePath() + ", says why)"));
                }
                Thread.onSpinWait();
                p.waitFor(Duration.ofMillis(20).toMillis(), TimeUnit.MILLISECONDS);
            }
            return new RedisServer(p, port, tls);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start redis-server: " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@code text} to a file only this user may read (made so before anything is in it). */
    public static void writePrivate(Path file, String text) throws IOException {
        PrivateFiles.write(file, text);
    }

    public void stop() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** CONFIG SET bind 127.0.0.1 and {@code alsoBind} on the server at 127.0.0.1:{@code port}. */
    static void bind(int port, String password, List<String> alsoBind) {
        bind(port, password, alsoBind, null);
    }

    /** As {@link #bind(int, String, List)}, through a handshake with {@code tls}'s certificate when given. */
    static void bind(int port, String password, List<String> alsoBind, RedisTls tls) {
        List<List<String>> commands = new ArrayList<>();
        if (password != null) {
            commands.add(List.of("AUTH", password));
        }
        commands.add(List.of("CONFIG", "SET", "bind", "127.0.0.1 " + String.join(" ", alsoBind)));
        try (Socket s = open(port, tls, 5000)) {
            var in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            for (List<String> c : commands) {
                StringBuilder resp = new StringBuilder("*" + c.size() + "\r\n");
                c.forEach(a -> resp.append("$")
                        .append(a.getBytes(StandardCharsets.UTF_8).length)
                        .append("\r\n")
                        .append(a)
                        .append("\r\n"));
                s.getOutputStream().write(resp.toString().getBytes(StandardCharsets.UTF_8));
                String reply = in.readLine();
                if (reply == null || !reply.startsWith("+OK")) {
                    throw new IllegalStateException("the Redis on port " + port + " refused " + c.get(0) + " (" + reply
                            + "): it cannot listen on " + alsoBind + " for containers");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when a Redis answers PING on 127.0.0.1:port (asking for a password counts as an answer). */
    public static boolean ping(int port) {
        return answer(port, null) == Answer.REDIS;
    }

    /** Who answers on a port: nobody, a Redis (that proved it holds the key of {@code tls}), or something else. */
    enum Answer {
        NOBODY,
        REDIS,
        STRANGER
    }

    /**
     * Who answers on 127.0.0.1:{@code port}. With {@code tls}, a server that cannot finish the
     * handshake with its certificate is a stranger, and is told nothing: the PING that follows goes
     * inside the handshaken connection. Without, whatever does not answer PING counts as nobody
     * (as before: redis-server then fails to bind and says so).
     */
    static Answer answer(int port, RedisTls tls) {
        Socket s;
        try {
            s = new Socket();
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException e) {
            return Answer.NOBODY;
        }
        try (Socket conn = tls == null ? s : handshake(s, port, tls)) {
            conn.setSoTimeout(1000);
            conn.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] buf = new byte[7];
            int n = conn.getInputStream().read(buf);
            String reply = n < 5 ? "" : new String(buf, 0, n, StandardCharsets.US_ASCII);
            return reply.startsWith("+PONG") || reply.startsWith("-NOAUT")
                    ? Answer.REDIS
                    : tls == null ? Answer.NOBODY : Answer.STRANGER;
        } catch (IOException e) {
            closeQuietly(s);
            return tls == null ? Answer.NOBODY : Answer.STRANGER;
        }
    }

    /** A connection to 127.0.0.1:{@code port}, through a finished handshake with {@code tls}'s certificate if given. */
    static Socket open(int port, RedisTls tls, int timeoutMillis) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            return tls == null ? s : handshake(s, port, tls);
        } catch (IOException e) {
            closeQuietly(s);
            throw e;
        }
    }

    private static Socket handshake(Socket plain, int port, RedisTls tls) throws IOException {
        plain.setSoTimeout(2000);
        SSLSocket ssl = (SSLSocket) tls.pinned().socketFactory().createSocket(plain, "127.0.0.1", port, true);
        ssl.startHandshake();
        return ssl;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing what failed: nothing more to do
        }
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** redis-server from PATH, else the one embedded-redis ships, unpacked into the temp dir (tests). */
    public static Path binary() {
        return binary(Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * redis-server from PATH, else the one embedded-redis ships for this platform, unpacked into
     * {@code privateDir} and checked against the jar's copy (its SHA-256) before each start:
     * never run from a shared path such as {@code /tmp}, where another user could plant one.
     */
    static Path binary(Path privateDir) {
        Optional<Path> onPath = Stream.of(
                        System.getenv().getOrDefault("PATH", "").split(":"))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, "redis-server"))
                .filter(Files::isExecutable)
                .findFirst();
        return onPath.orElseGet(() -> unpackEmbedded(privateDir));
    }

    private static Path unpackEmbedded(Path dir) {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String name = os.contains("mac")
                ? (arch.contains("aarch64")
                        ? "redis-server-6.2.6-v5-darwin-arm64"
                        : "redis-server-6.2.6-v5-darwin-amd64")
                : arch.contains("aarch64") ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        Path target = dir.toAbsolutePath().resolve("warmpool-" + name);
        try (InputStream in = RedisServer.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no redis-server on PATH and none embedded for " + os + "/" + arch
                        + "; install redis-server or set quarkus.redis.hosts");
            }
            byte[] shipped = in.readAllBytes();
            if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)
                    && Arrays.equals(sha256(shipped), sha256(Files.readAllBytes(target)))) {
                return target;
            }
            Path tmp = Files.createTempFile(target.getParent(), "warmpool-redis", ".tmp");
            Files.write(tmp, shipped);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
