package dev.warmpool.pool;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.Pattern;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * How a processor of the pool runs on Kubernetes: the training image and what the pod needs.
 * The Kubernetes types are fabric8's, so they read and mean exactly what they do in a pod spec.
 *
 * <p>{@code agent}: {@code init-container} (the default) copies a self-contained agent into a
 * shared volume and starts the main container under it, so any image works;
 * {@code built-in} starts {@code warmpool-agent} from the image's PATH.
 *
 * <p>A processor's pod gets no Kubernetes API token unless {@code automountServiceAccountToken}
 * is true: a job has no business with the API server unless its pool says so.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PodTemplate(
        @NotEmpty(message = "must name the container image, e.g. \"pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\"")
        String image,

        @Pattern(regexp = "init-container|built-in", message = "must be init-container or built-in")
        String agent,

        Map<String, String> env,
        ResourceRequirements resources,
        Map<String, String> nodeSelector,
        List<Toleration> tolerations,
        String serviceAccountName,
        List<Volume> volumes,
        List<VolumeMount> volumeMounts,
        SecurityContext securityContext,
        Boolean automountServiceAccountToken) {

    /** The template with {@code env} in place of its own. */
    public PodTemplate withEnv(Map<String, String> env) {
        return new PodTemplate(
                image,
                agent,
                env,
                resources,
                nodeSelector,
                tolerations,
                serviceAccountName,
                volumes,
                volumeMounts,
                securityContext,
                automountServiceAccountToken);
    }

    public static final String INIT_CONTAINER = "init-container";
    public static final String BUILT_IN = "built-in";

    /** Whether the pod asks for host access: a hostPath volume or a privileged container. */
    public boolean hostAccess() {
        boolean hostPath = volumes != null && volumes.stream().anyMatch(v -> v.getHostPath() != null);
        boolean privileged = securityContext != null && Boolean.TRUE.equals(securityContext.getPrivileged());
        return hostPath || privileged;
    }

    public String agentMode() {
        return agent == null ? INIT_CONTAINER : agent;
    }

    /**
     * Reads a template with Jackson's own deserializer for it, made at the first template read
     * rather than with the deserializer of the object that holds it: Jackson resolves a bean's
     * property types eagerly, and fabric8's Volume alone reaches hundreds of classes, so every
     * first read of a pool spec (the manager's start, its first reconcile pass) paid for them
     * even on the local runtime, where no pool has a template.
     */
    public static final class OnFirstUse extends StdDeserializer<PodTemplate> {
        public OnFirstUse() {
            super(PodTemplate.class);
        }

        @Override
        public PodTemplate deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return ctxt.readValue(p, PodTemplate.class);
        }
    }
}
