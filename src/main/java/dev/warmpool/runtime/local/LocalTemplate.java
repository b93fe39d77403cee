package dev.warmpool.runtime.local;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.runtime.ResourceLimits;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What of a pool's {@code template} the local runtime honours: its {@code resources.limits} (the
 * room's cgroup or rlimits). Its processors are processes of this machine, so an image, a pod's
 * settings or a container's env would be ignored; they are refused at PUT instead, naming the field.
 * The image {@value #PLACEHOLDER} names no image: a local pool's template may carry it, as the
 * template's schema asks for an image.
 */
public final class LocalTemplate {
    /** The image a local pool's template may name: none. */
    public static final String PLACEHOLDER = "local";

    private LocalTemplate() {}

    /** What the local runtime cannot honour in {@code t}; {@code docker}: whether this manager also runs containers. */
    public static Optional<ResourceLimits.Problem> problem(PodTemplate t, boolean docker) {
        if (t == null) {
            return Optional.empty();
        }
        String elsewhere = docker
                ? "set \"runtime\": \"docker\" to run the pool's processors as containers of it"
                : "run the pool on the docker runtime (\"runtime\": \"docker\", on a manager with"
                        + " warmpool.runtime.docker.host set or warmpool.runtime.type=docker)";
        if (t.image() != null && !PLACEHOLDER.equals(t.image())) {
            return Optional.of(new ResourceLimits.Problem(
                    "template.image",
                    "The pool runs on the local runtime, whose processors are processes of this machine: the image '"
                            + t.image() + "' would not be used. To run in it, " + elsewhere
                            + "; for a local pool leave the template out, or give only its resources.limits"
                            + " (with \"image\": \"" + PLACEHOLDER + "\")."));
        }
        Map<String, Object> ignored = new LinkedHashMap<>();
        ignored.put("agent", t.agent());
        ignored.put("env", t.env());
        ignored.put("nodeSelector", t.nodeSelector());
        ignored.put("tolerations", t.tolerations());
        ignored.put("serviceAccountName", t.serviceAccountName());
        ignored.put("volumes", t.volumes());
        ignored.put("volumeMounts", t.volumeMounts());
        ignored.put("securityContext", t.securityContext());
        ignored.put("automountServiceAccountToken", t.automountServiceAccountToken());
        ignored.put(
                "resources.requests",
                t.resources() == null
                                || t.resources().getRequests() == null
                                || t.resources().getRequests().isEmpty()
                        ? null
                        : t.resources().getRequests());
        return ignored.entrySet().stream()
                .filter(e -> e.getValue() != null)
                .findFirst()
                .map(e -> new ResourceLimits.Problem(
                        "template." + e.getKey(),
                        "The pool runs on the local runtime, which honours only 'template.resources.limits' of a"
                                + " template: 'template." + e.getKey() + "' would be ignored. Leave it out"
                                + (e.getKey().equals("env") ? " (the pool's own 'env' reaches its jobs)" : "")
                                + ", or " + elsewhere + "."));
    }
}
