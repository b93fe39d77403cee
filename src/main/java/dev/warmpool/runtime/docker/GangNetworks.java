package dev.warmpool.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.Network;
import dev.warmpool.runtime.Labels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * One user-defined bridge network per gang, as a headless Service is on Kubernetes: each member's
 * container joins it with its processor id as its alias, so the gang's members (and no other
 * container) reach each other by the names {@code WARMPOOL_MEMBER_ADDR} and the frameworks'
 * variables give. A member stays on the runtime's own network too (where it reaches Redis).
 * The network carries the gang's labels and goes when the gang's last container has gone.
 */
final class GangNetworks {
    private static final Logger LOG = Logger.getLogger(GangNetworks.class);

    private final DockerClient docker;
    private final String instance;
    /** Whether a gang network of this warmpool may exist (true at start: an earlier manager's may). */
    private volatile boolean some = true;

    GangNetworks(DockerClient docker, String instance) {
        this.docker = docker;
        this.instance = instance;
    }

    /** The gang's network, made when it is not there yet. */
    void ensure(String type, String network, String gang) {
        some = true;
        try {
            docker.inspectNetworkCmd().withNetworkId(network).exec();
            return;
        } catch (NotFoundException e) {
            // made below
        }
        Map<String, String> labels = new HashMap<>();
        labels.put(Labels.MANAGED_BY, Labels.MANAGER);
        labels.put(ContainerFactory.INSTANCE, instance);
        labels.put(Labels.POOL, type);
        labels.put(Labels.GANG, gang);
        docker.createNetworkCmd()
                .withName(network)
                .withDriver("bridge")
                .withCheckDuplicate(true)
                .withLabels(labels)
                .exec();
        LOG.infof("created network %s for gang %s of pool %s", network, gang, type);
    }

    /** Joins a created (not yet started) container to its gang's network, known there as {@code alias}. */
    void join(String containerId, String network, String alias) {
        docker.connectToNetworkCmd()
                .withContainerId(containerId)
                .withNetworkId(network)
                .withContainerNetwork(new ContainerNetwork().withAliases(List.of(alias)))
                .exec();
    }

    /** Removes this warmpool's gang networks whose gang has no container left ({@code gangs}: those that have one). */
    void collect(Set<String> gangs) {
        if (!some && gangs.isEmpty()) {
            return;
        }
        List<Network> networks = docker.listNetworksCmd()
                .withFilter("label", List.of(ContainerFactory.INSTANCE + "=" + instance))
                .exec();
        int left = 0;
        for (Network n : networks) {
            String gang = n.getLabels() == null ? null : n.getLabels().get(Labels.GANG);
            if (gang == null || gangs.contains(gang)) {
                left++;
                continue;
            }
            remove(n);
        }
        some = left > 0 || !gangs.isEmpty();
    }

    /** The pool is gone: its gangs' networks go (its containers went first). */
    void poolRemoved(String type) {
        docker.listNetworksCmd()
                .withFilter("label", List.of(ContainerFactory.INSTANCE + "=" + instance, Labels.POOL + "=" + type))
                .exec()
                .forEach(this::remove);
    }

    private void remove(Network n) {
        try {
            docker.removeNetworkCmd(n.getId()).exec();
            LOG.infof("removed network %s (its gang has ended)", n.getName());
        } catch (NotFoundException e) {
            // gone already
        } catch (RuntimeException e) {
            // a member still being stopped: the next pass tries again
            LOG.debugf("network %s not removed yet: %s", n.getName(), e.getMessage());
        }
    }
}
