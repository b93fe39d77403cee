package dev.warmpool.agent.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A processor's room is kept when the host's /tmp changed only in what it links: the
 * listing's two parts, what hides and what links, as bwrap's arguments say them.
 */
@Tag("unit")
class HostTmpPartsTests {
    static final String HOST = HostTmp.HOST_TMP;

    static List<String> listing(String... extra) {
        List<String> out = new ArrayList<>(List.of("--ro-bind", "/tmp", HOST));
        out.addAll(List.of(extra));
        return out;
    }

    /**
     * An entry removed between the listing and the look at it is not shown: it was taken for a
     * socket and hidden with a mount bwrap could not make (`Can't create file at ...: Read-only file
     * system`), which failed the job or the room's start on a host whose /tmp is busy.
     */
    @Test
    void anEntryThatIsGoneIsNotShownAndEachKindIsShownAsItIs(@TempDir Path tmp) throws Exception {
        assertEquals(HostTmp.Shown.NOT_SHOWN, HostTmp.shownAs(tmp.resolve("gone-since-the-listing"), null));
        assertEquals(HostTmp.Shown.LINKED, HostTmp.shownAs(Files.createDirectory(tmp.resolve("checkout")), null));
        assertEquals(HostTmp.Shown.LINKED, HostTmp.shownAs(Files.writeString(tmp.resolve("script.sh"), "x"), null));
        assertEquals(
                HostTmp.Shown.NOT_SHOWN,
                HostTmp.shownAs(Files.createSymbolicLink(tmp.resolve("link"), Path.of("/etc")), null));
        Path agents = Files.createDirectory(tmp.resolve(HostTmp.AGENT_DIRS + "4242"));
        assertEquals(HostTmp.Shown.HIDDEN_DIR, HostTmp.shownAs(agents, null), "an agents' dir, even empty");
        Path other = Files.createDirectory(tmp.resolve(HostTmp.AGENT_DIRS + "p1x"));
        assertEquals(
                HostTmp.Shown.NOT_SHOWN, HostTmp.shownAs(other, null), "an empty leftover: no mount point to lose");
        Files.writeString(other.resolve("job"), "x");
        assertEquals(HostTmp.Shown.HIDDEN_DIR, HostTmp.shownAs(other, null));
        assertEquals(HostTmp.Shown.HIDDEN_DIR, HostTmp.shownAs(tmp.resolve("checkout"), "checkout"), "the own entry");
        Path socket = tmp.resolve("s");
        try (var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            assertEquals(HostTmp.Shown.HIDDEN_FILE, HostTmp.shownAs(socket, null));
        }
    }

    @Test
    void linksAreToldApartFromWhatHides() {
        HostTmp.Parts p = HostTmp.Parts.of(listing(
                "--tmpfs",
                HOST + "/warmpool-0",
                "--ro-bind",
                "/dev/null",
                HOST + "/sock",
                "--symlink",
                HOST + "/a",
                "/tmp/a",
                "--symlink",
                HOST + "/b",
                "/tmp/b"));
        assertEquals(
                List.of(
                        "--ro-bind\0/tmp\0" + HOST,
                        "--tmpfs\0" + HOST + "/warmpool-0",
                        "--ro-bind\0/dev/null\0" + HOST + "/sock"),
                p.hiding());
        assertEquals(Map.of("/tmp/a", HOST + "/a", "/tmp/b", HOST + "/b"), p.links());
    }

    @Test
    void aNewLinkKeepsWhatHidesButANewSocketOrAgentDirDoesNot() {
        HostTmp.Parts was = HostTmp.Parts.of(listing("--symlink", HOST + "/a", "/tmp/a"));
        assertEquals(
                was.hiding(),
                HostTmp.Parts.of(listing("--symlink", HOST + "/b", "/tmp/b")).hiding());
        assertNotEquals(
                was.hiding(),
                HostTmp.Parts.of(listing("--ro-bind", "/dev/null", HOST + "/s", "--symlink", HOST + "/a", "/tmp/a"))
                        .hiding());
        assertNotEquals(
                was.hiding(),
                HostTmp.Parts.of(listing("--tmpfs", HOST + "/warmpool-7", "--symlink", HOST + "/a", "/tmp/a"))
                        .hiding());
    }
}
