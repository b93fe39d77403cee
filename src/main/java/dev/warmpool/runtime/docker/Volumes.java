package dev.warmpool.runtime.docker;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import dev.warmpool.pool.PodTemplate;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A pod template's volumes as Docker mounts them: {@code emptyDir} a tmpfs (see
 * {@link ContainerFactory}), {@code persistentVolumeClaim} the Docker named volume of its
 * {@code claimName} (made by Docker at the first mount, kept when the pool goes: data that
 * outlives processors, as a claim does), {@code hostPath} a bind mount of the host's path, only
 * where {@code warmpool.policy.allow-host-access} allows it. Any other kind is refused.
 */
final class Volumes {
    /** What Docker takes for a volume's name. */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.-]+");

    private Volumes() {}

    /** The named-volume and host-path mounts of {@code t}, read-only where the mount says so. */
    static List<Bind> binds(PodTemplate t, boolean allowHostAccess) {
        List<Bind> out = new ArrayList<>();
        if (t.volumes() == null || t.volumeMounts() == null) {
            return out;
        }
        for (VolumeMount m : t.volumeMounts()) {
            var v = t.volumes().stream()
                    .filter(x -> x.getName().equals(m.getName()))
                    .findFirst()
                    .orElse(null);
            if (v == null) {
                continue;
            }
            boolean ro = Boolean.TRUE.equals(m.getReadOnly());
            String source = null;
            if (v.getPersistentVolumeClaim() != null) {
                source = v.getPersistentVolumeClaim().getClaimName();
                ro |= Boolean.TRUE.equals(v.getPersistentVolumeClaim().getReadOnly());
            } else if (v.getHostPath() != null) {
                if (!allowHostAccess) {
                    throw new IllegalArgumentException(
                            "volume '" + v.getName()
                                    + "' is a hostPath, which this warmpool does not allow (warmpool.policy.allow-host-access)");
                }
                source = v.getHostPath().getPath();
            }
            if (source != null) {
                out.add(new Bind(source, new Volume(m.getMountPath()), ro ? AccessMode.ro : AccessMode.rw));
            }
        }
        return out;
    }

    /** Why {@code t}'s volumes cannot run on docker, if they cannot. */
    static Optional<String> unsupported(PodTemplate t) {
        if (t.volumes() == null) {
            return Optional.empty();
        }
        for (var v : t.volumes()) {
            if (v.getPersistentVolumeClaim() != null) {
                String claim = v.getPersistentVolumeClaim().getClaimName();
                if (claim == null || !NAME.matcher(claim).matches()) {
                    return Optional.of("volume '" + v.getName() + "': persistentVolumeClaim.claimName names the "
                            + "Docker volume to mount, e.g. \"datasets\" (letters, digits, '_', '.', '-')");
                }
            } else if (v.getHostPath() != null) {
                String path = v.getHostPath().getPath();
                if (path == null || !path.startsWith("/")) {
                    return Optional.of("volume '" + v.getName() + "': hostPath.path must be an absolute path");
                }
            } else if (v.getEmptyDir() == null) {
                return Optional.of("volume '" + v.getName() + "' is neither an emptyDir (a tmpfs), a "
                        + "persistentVolumeClaim (the Docker named volume its claimName names) nor a hostPath: "
                        + "those are the volumes a pool has on the docker runtime");
            }
        }
        if (t.volumeMounts() != null) {
            for (VolumeMount m : t.volumeMounts()) {
                if (m.getSubPath() != null || m.getSubPathExpr() != null) {
                    return Optional.of(
                            "volumeMount '" + m.getName() + "': subPath is not supported on the docker runtime");
                }
                if (m.getMountPath() == null || !m.getMountPath().startsWith("/")) {
                    return Optional.of("volumeMount '" + m.getName() + "': mountPath must be an absolute path");
                }
            }
        }
        return Optional.empty();
    }
}
