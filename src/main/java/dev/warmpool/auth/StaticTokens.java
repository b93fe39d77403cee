package dev.warmpool.auth;

import dev.warmpool.config.AuthConfig;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.store.PrivateFiles;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The static tokens in force: the configured tokens file, or the one the run command made. The
 * file is re-read when it changes (checked every few seconds), so a token is added or revoked by
 * editing the file (a Kubernetes Secret update) without a restart.
 */
@ApplicationScoped
public class StaticTokens {
    private static final Logger LOG = Logger.getLogger(StaticTokens.class);
    /** The name of the token the run command makes. */
    static final String FIRST_ADMIN = "admin";

    private final WarmpoolConfig config;
    private volatile TokenFile tokens = TokenFile.of(List.of());
    private volatile Path file;
    private volatile FileTime loadedAt;

    public StaticTokens(WarmpoolConfig config) {
        this.config = config;
    }

    /** Loads the tokens at start-up, making the first admin token when nothing else is configured. */
    public void init() {
        AuthConfig auth = config.auth();
        if (!auth.enabled()) {
            return;
        }
        if (auth.tokensFile().isPresent()) {
            Path file = auth.tokensFile().get();
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException(
                        "warmpool.auth.tokens-file=" + file + " is not a file: make it (one line "
                                + "per token: <name> <roles> <sha256-hex>) or leave the setting out");
            }
            use(file);
        } else if (auth.jwt().issuer().isEmpty()) {
            use(firstAdminToken(config.runtime().local().stateDir()));
        }
        // else JWTs only
    }

    /** Takes the tokens of {@code tokensFile} (re-read when it changes, see {@link #reloadIfChanged}). */
    void use(Path tokensFile) {
        file = tokensFile;
        reload();
        LOG.infof("%d API token(s) from %s", tokens.size(), tokensFile.toAbsolutePath());
    }

    public Optional<TokenFile.Entry> match(String token) {
        return tokens.match(token);
    }

    public Optional<TokenFile.Entry> matchHash(byte[] hash) {
        return tokens.matchHash(hash);
    }

    /** A changed file takes effect within seconds; a broken one is refused and the tokens in force stay. */
    @Scheduled(every = "${warmpool.auth.reload-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void reloadIfChanged() {
        Path f = file;
        if (f == null) {
            return;
        }
        try {
            if (!Files.getLastModifiedTime(f).equals(loadedAt)) {
                reload();
                LOG.infof("API tokens re-read from %s: %d token(s)", f, tokens.size());
            }
        } catch (IOException | IllegalArgumentException e) {
            LOG.errorf("API tokens file %s not re-read (the tokens in force stay): %s", f, e.getMessage());
        }
    }

    private void reload() {
        try {
            FileTime at = Files.getLastModifiedTime(file);
            tokens = TokenFile.parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
            loadedAt = at;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the API tokens file " + file, e);
        }
    }

    /**
     * With no tokens file and no issuer configured, the first start makes an admin token, as
     * Jupyter does: the token itself goes to {@code <state dir>/token} (mode 0600, for the user and
     * the Python client), only its hash to {@code <state dir>/tokens}, which later starts read.
     */
    static Path firstAdminToken(Path stateDir) {
        Path hashes = stateDir.resolve("tokens");
        Path plain = stateDir.resolve("token");
        try {
            PrivateFiles.secureDir(stateDir);
            if (!Files.exists(hashes)) {
                byte[] random = new byte[32];
                new SecureRandom().nextBytes(random);
                String token = "wp_" + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
                writePrivate(plain, token + "\n");
                writePrivate(
                        hashes,
                        "# made by warmpool at its first start; the token is in " + plain.getFileName() + "\n"
                                + TokenFile.line(FIRST_ADMIN, Roles.ADMIN, token) + "\n");
                LOG.warnf(
                        "made an admin API token: it is in %s (send it as 'Authorization: Bearer <token>')",
                        plain.toAbsolutePath());
            } else if (Files.exists(plain)) {
                LOG.infof("the admin API token is in %s", plain.toAbsolutePath());
            }
            return hashes;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the first API token under " + stateDir, e);
        }
    }

    private static void writePrivate(Path path, String text) throws IOException {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
