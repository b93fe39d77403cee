package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A processor's room is kept when the host's /tmp changed only in what it links: the
 * listing's two parts, what hides and what links, as bwrap's arguments say them.
 */
@Tag("unit")
class HostTmpPartsTests {
    static final String HOST = HostTmp.HOST_TMP;

    static List<String> listing(String... extra) {
        List<String> out = new java.util.ArrayList<>(List.of("--ro-bind", "/tmp", HOST));
        out.addAll(List.of(extra));
        return out;
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
