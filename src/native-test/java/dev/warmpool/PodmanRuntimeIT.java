package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * DockerRuntimeIT again, against Podman's Docker-compatible API ({@code podman system service})
 * when podman is installed; skipped when it is not. The service is started here on a socket of
 * its own, with runc (Debian's crun refuses this host's cgroups) and explicit ulimits (Podman's
 * default nofile/nproc limits are above what this host lets a container set), and stopped after.
 * The base image is copied over from Docker (docker save | load) rather than made again.
 */
class PodmanRuntimeIT extends DockerRuntimeIT {
    Process service;
    Path dir;
    final String keeper = "wp-podman-it-" + Long.toHexString(System.nanoTime());

    @Override
    String name() {
        return "podman-runtime-it";
    }

    static final String CATATONIT = "/usr/libexec/podman/catatonit";

    @Override
    String engine() throws Exception {
        // catatonit: the init Podman runs as a container's PID 1 (warmpool asks for one, as with docker)
        boolean installed =
                new ProcessBuilder("sh", "-c", "command -v podman && command -v runc && test -x " + CATATONIT)
                                .start()
                                .waitFor()
                        == 0;
        Ci.require(installed, "podman, runc and catatonit are not all installed", ".ci/run installs them");
        dir = Files.createTempDirectory("podman-it");
        Path conf = dir.resolve("containers.conf");
        Files.writeString(
                conf,
                "[containers]\ndefault_ulimits = [\"nofile=" + limit("-Hn") + ":" + limit("-Hn") + "\", "
                        + "\"nproc=32768:32768\"]\n[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\n"
                        + "events_logger = \"file\"\n");
        Path socket = dir.resolve("podman.sock");
        ProcessBuilder pb = new ProcessBuilder("podman", "system", "service", "--time=0", "unix://" + socket)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        Path.of("target", "podman-service.log").toAbsolutePath().toFile()));
        pb.environment().put("CONTAINERS_CONF", conf.toString());
        service = pb.start();
        String host = "unix://" + socket;
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(socket));
        this.host = host;
        // the images the tests use, from Docker's store; Podman's bridge (podman0) exists only while a
        // container is on it, and Redis listens on its gateway: one container stays for the tests' time
        copy(IMAGE);
        Result kept = run("docker", "run", "-d", "--name", keeper, IMAGE, "sleep", "infinity");
        assertEquals(0, kept.exit(), "podman runs a container: " + kept.out());
        return host;
    }

    @Override
    void image(String image, String... packages) throws Exception {
        copy(image);
    }

    private void copy(String image) throws Exception {
        if (run("docker", "image", "inspect", image).exit() == 0) {
            return;
        }
        Process p = new ProcessBuilder(
                        "sh",
                        "-c",
                        "docker -H unix:///var/run/docker.sock save \"$0\" | docker -H \"$1\" load",
                        image,
                        host)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "docker save " + image + " | podman load: " + out);
    }

    private static String limit(String flag) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "ulimit " + flag).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        p.waitFor();
        return out.equals("unlimited") ? "1048576" : out;
    }

    @Override
    void finish() throws Exception {
        if (host != null) {
            run("docker", "rm", "-f", keeper);
        }
        if (service != null) {
            service.destroy();
            if (!service.waitFor(20, TimeUnit.SECONDS)) {
                service.destroyForcibly();
            }
        }
    }
}
