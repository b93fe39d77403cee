package dev.warmpool.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Whoever takes a Redis's port while it is down (another user, a job): it accepts every
 * connection, answers {@code +OK} to whatever arrives, and records all it was sent, as plain TCP or
 * as a TLS server with a key and certificate of its own.
 */
public final class Impostor implements AutoCloseable {
    private final ServerSocket server;
    private final ByteArrayOutputStream heard = new ByteArrayOutputStream();
    private volatile int connections;

    private Impostor(ServerSocket server) {
        this.server = server;
        Thread t = new Thread(this::serve, "impostor-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    /** A plain TCP impostor on 127.0.0.1:{@code port}. */
    public static Impostor plain(int port) throws IOException {
        return new Impostor(new ServerSocket(port, 50, InetAddress.getLoopbackAddress()));
    }

    /** A TLS impostor on 127.0.0.1:{@code port} that presents {@code cert} (PEM) with {@code key} (PKCS#8 PEM). */
    public static Impostor tls(int port, Path key, Path cert) throws Exception {
        PrivateKey k =
                KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der(Files.readString(key))));
        Certificate c = CertificateFactory.getInstance("X.509").generateCertificate(Files.newInputStream(cert));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("impostor", k, new char[0], new Certificate[] {c});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return new Impostor(
                ctx.getServerSocketFactory().createServerSocket(port, 50, InetAddress.getLoopbackAddress()));
    }

    private static byte[] der(String pem) {
        return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
    }

    /** Everything any client sent it so far (for TLS: what arrived inside a finished handshake). */
    public String heard() {
        synchronized (heard) {
            return heard.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** How many connections it accepted. */
    public int connections() {
        return connections;
    }

    private void serve() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                connections++;
                Thread t = new Thread(() -> talk(s), "impostor-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void talk(Socket s) {
        try (s;
                InputStream in = s.getInputStream()) {
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (heard) {
                    heard.write(buf, 0, n);
                }
                s.getOutputStream().write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException e) {
            // the client gave up (a failed handshake): what it sent before is recorded
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
