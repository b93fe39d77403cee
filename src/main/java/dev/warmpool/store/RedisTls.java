package dev.warmpool.store;

import dev.warmpool.protocol.PinnedCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The TLS key and certificate of the run command's own redis-server, made at its first start in
 * its private data dir (PEM, 0600) and kept: the manager, its agents and its containers pin the
 * certificate, so whoever takes the port after a crash cannot prove to be that server, and no
 * password goes to it (clients send AUTH only after the handshake).
 */
public record RedisTls(Path key, Path certificate) {
    static final String KEY_FILE = "redis.key";
    public static final String CERT_FILE = "redis.crt";

    /** The key and certificate in {@code dir}, made now with the JDK's keytool (else openssl) if missing. */
    public static RedisTls ensure(Path dir) {
        Path abs = PrivateFiles.secureDir(dir).toAbsolutePath();
        RedisTls tls = new RedisTls(abs.resolve(KEY_FILE), abs.resolve(CERT_FILE));
        if (Files.isRegularFile(tls.key) && Files.isRegularFile(tls.certificate)) {
            return tls;
        }
        try {
            Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
            if (Files.isExecutable(keytool)) {
                withKeytool(keytool, tls);
            } else {
                withOpenssl(tls);
            }
            return tls;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the TLS key of warmpool's own Redis in " + abs, e);
        }
    }

    /** The certificate as PEM text, as an agent's file carries it. */
    public String certificatePem() {
        try {
            return Files.readString(certificate);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + certificate, e);
        }
    }

    public PinnedCertificate pinned() {
        return PinnedCertificate.fromPem(certificatePem());
    }

    /**
     * RSA, not EC: the jlink'd runtime that docker processors' agents use may lack the EC provider,
     * and RSA signatures verify in java.base. Valid for a century: the pin, not a date, is the check.
     */
    private static void withKeytool(Path keytool, RedisTls tls) throws IOException {
        Path store = Files.createTempFile(tls.key.getParent(), "redis", ".p12");
        Files.delete(store); // keytool makes it; an empty file is no keystore
        String pass = HexFormat.of().formatHex(random16());
        try {
            ProcessBuilder pb = new ProcessBuilder(
                    keytool.toString(),
                    "-genkeypair",
                    "-noprompt",
                    "-alias",
                    "redis",
                    "-keyalg",
                    "RSA",
                    "-keysize",
                    "2048",
                    "-validity",
                    "36500",
                    "-dname",
                    "CN=warmpool-redis",
                    "-ext",
                    "SAN=ip:127.0.0.1,dns:localhost",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    store.toString(),
                    // from the environment, never the command line, which ps shows
                    "-storepass:env",
                    "WP_STOREPASS");
            pb.environment().put("WP_STOREPASS", pass);
            run(pb);
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                ks.load(in, pass.toCharArray());
            }
            byte[] key = ks.getKey("redis", pass.toCharArray()).getEncoded();
            byte[] cert = ks.getCertificate("redis").getEncoded();
            PrivateFiles.write(tls.key, pem("PRIVATE KEY", key));
            PrivateFiles.write(tls.certificate, pem("CERTIFICATE", cert));
        } catch (GeneralSecurityException e) {
            throw new IOException("keytool's keystore: " + e.getMessage(), e);
        } finally {
            Files.deleteIfExists(store);
        }
    }

    private static void withOpenssl(RedisTls tls) throws IOException {
        run(new ProcessBuilder(
                "/bin/sh",
                "-c",
                "umask 077 && exec openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=warmpool-redis"
                        + " -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout \"$0\" -out \"$1\"",
                tls.key.toString(),
                tls.certificate.toString()));
    }

    private static void run(ProcessBuilder pb) throws IOException {
        List<String> cmd = pb.command();
        Process p = pb.redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(cmd.get(0) + " failed: " + out.strip());
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making the key", e);
        }
    }

    private static byte[] random16() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return b;
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
