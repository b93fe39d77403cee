package dev.warmpool.runtime.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.Supplier;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;

/**
 * Every Kubernetes API call goes through here, so fault tolerance sits in one place: a timeout,
 * retries with backoff on what may pass (429, 5xx, no answer), and a circuit breaker so that an
 * API server in trouble is not hammered by every reconcile pass. A 4xx other than 429 is the
 * caller's mistake and fails at once.
 */
@ApplicationScoped
public class KubernetesCalls {

    /** A failure worth retrying. */
    public static class TransientKubernetesError extends RuntimeException {
        TransientKubernetesError(String what, KubernetesClientException cause) {
            super(what + " failed: " + cause.getMessage(), cause);
        }
    }

    @Timeout(10_000)
    @Retry(maxRetries = 4, delay = 200, jitter = 100, retryOn = TransientKubernetesError.class)
    @CircuitBreaker(
            requestVolumeThreshold = 10,
            failureRatio = 0.8,
            delay = 10_000,
            failOn = TransientKubernetesError.class)
    public <T> T call(String what, Supplier<T> operation) {
        try {
            return operation.get();
        } catch (KubernetesClientException e) {
            if (isTransient(e)) {
                throw new TransientKubernetesError(what, e);
            }
            throw e;
        }
    }

    static boolean isTransient(KubernetesClientException e) {
        int code = e.getCode();
        return code == 0 || code == 429 || code >= 500;
    }
}
