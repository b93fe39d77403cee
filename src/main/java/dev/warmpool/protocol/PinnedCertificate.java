package dev.warmpool.protocol;

import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The one certificate a Redis must present before anything, a password above all, is sent to it:
 * the run command's own redis-server has a key that only the manager's user can read, so a server
 * that took its port after a crash (another user, a job) fails the TLS handshake and learns nothing.
 * Pinned exactly, not through a CA: no other certificate is accepted, whatever signed it, and the
 * host name is not checked (containers reach the same server at the docker gateway's address).
 */
public final class PinnedCertificate {
    /**
     * The agent's environment variable naming the PEM file of the certificate its Redis must
     * present; set by the runtime when the manager's Redis is its own (a {@code rediss://} URL).
     */
    public static final String ENV = "WARMPOOL_REDIS_CERT_FILE";

    private final X509Certificate certificate;

    private PinnedCertificate(X509Certificate certificate) {
        this.certificate = certificate;
    }

    /** The first certificate in {@code pem} (a {@code -----BEGIN CERTIFICATE-----} block). */
    public static PinnedCertificate fromPem(String pem) {
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            return new PinnedCertificate((X509Certificate)
                    factory.generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))));
        } catch (CertificateException e) {
            throw new IllegalArgumentException("not a PEM certificate: " + e.getMessage(), e);
        }
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** Sockets that complete a TLS handshake only with the holder of this certificate's key. */
    public SSLSocketFactory socketFactory() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new Exactly(certificate)}, null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no TLS in this Java runtime: " + e.getMessage(), e);
        }
    }

    /** Trusts the pinned certificate as the server's own and nothing else; never a client. */
    private static final class Exactly extends X509ExtendedTrustManager {
        private final X509Certificate pinned;

        Exactly(X509Certificate pinned) {
            this.pinned = pinned;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            if (chain == null || chain.length == 0 || !chain[0].equals(pinned)) {
                throw new CertificateException("the Redis presented another certificate than the one this install"
                        + " made for its own redis-server: it is not that server, nothing was sent to it");
            }
            // no expiry check: the pin is exact, and a date would only stop a working install one day
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a client trust manager only");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            checkClientTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            checkClientTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[] {pinned};
        }
    }
}
