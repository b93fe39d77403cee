package dev.warmpool.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.Optional;

/** The way to a Docker (or Podman) engine: a client for its address, and where its containers reach the host. */
public final class DockerEngine {
    private DockerEngine() {}

    /** A client for {@code host} (unix:// or tcp://), with the JDK-only transport. */
    public static DockerClient client(String host) {
        DefaultDockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder()
                .withDockerHost(host)
                .build();
        ZerodepDockerHttpClient http = new ZerodepDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost())
                .sslConfig(config.getSSLConfig())
                .connectionTimeout(Duration.ofSeconds(5))
                .responseTimeout(Duration.ofSeconds(60))
                .build();
        return DockerClientImpl.getInstance(config, http);
    }

    /**
     * The gateway address of {@code network}: where its containers reach the host. Docker's default
     * bridge often lists no gateway in its IPAM config; its bridge interface (docker0) has it.
     */
    public static String gateway(DockerClient docker, String network) {
        var n = docker.inspectNetworkCmd().withNetworkId(network).exec();
        Optional<String> listed = n.getIpam().getConfig().stream()
                .map(c -> c.getGateway())
                .filter(g -> g != null && !g.isBlank() && !g.contains(":"))
                .findFirst();
        Optional<String> bridge = Optional.ofNullable(n.getOptions())
                .map(o -> o.get("com.docker.network.bridge.name"))
                .or(() -> "bridge".equals(n.getName()) ? Optional.of("docker0") : Optional.empty())
                .flatMap(DockerEngine::ipv4Of);
        return listed.or(() -> bridge)
                .orElseThrow(
                        () -> new IllegalStateException(
                                "docker network " + network
                                        + " shows no IPv4 gateway: set warmpool.runtime.docker.redis-url to a Redis its containers reach"));
    }

    private static Optional<String> ipv4Of(String interfaceName) {
        try {
            NetworkInterface nic = NetworkInterface.getByName(interfaceName);
            return nic == null
                    ? Optional.empty()
                    : nic.inetAddresses()
                            .filter(a -> a instanceof Inet4Address)
                            .map(InetAddress::getHostAddress)
                            .findFirst();
        } catch (SocketException e) {
            return Optional.empty();
        }
    }
}
