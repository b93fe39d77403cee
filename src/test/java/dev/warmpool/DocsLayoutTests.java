package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md's "Code layout" names every package of src/main/java/dev/warmpool, and no
 * package that is not there: a package added or moved without its line fails here.
 */
@Tag("unit")
class DocsLayoutTests {
    static final Path ROOT = Path.of("src/main/java/dev/warmpool");

    /** The layout block: from the tree's root line to the next top-level source folder. */
    static String layout() throws IOException {
        String doc = Files.readString(Path.of("docs/architecture.md"));
        int from = doc.indexOf("src/main/java/dev/warmpool/\n");
        int to = doc.indexOf("\nsrc/main/c/", from);
        assertTrue(from >= 0 && to > from, "docs/architecture.md has a code layout from src/main/java/dev/warmpool/");
        return doc.substring(from, to);
    }

    /** The packages under the root, as {@code a} and {@code a/b}. */
    static Set<String> packages() throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> dirs = Files.walk(ROOT, 2)) {
            dirs.filter(Files::isDirectory)
                    .filter(d -> !d.equals(ROOT))
                    .forEach(d -> out.add(ROOT.relativize(d).toString()));
        }
        return out;
    }

    /**
     * What the layout gets wrong against {@code packages}: a top-level package is a line {@code
     * "  name/ "}; a sub-package {@code a/b} is named {@code "b/"} in its parent's entry.
     */
    static List<String> problems(String layout, Set<String> packages) {
        List<String> out = new ArrayList<>();
        Set<String> named = new TreeSet<>();
        Matcher top = Pattern.compile("(?m)^  ([a-z]+)/ ").matcher(layout);
        while (top.find()) {
            named.add(top.group(1));
        }
        Set<String> topLevel = new TreeSet<>();
        packages.stream().filter(p -> !p.contains("/")).forEach(topLevel::add);
        if (!topLevel.equals(named)) {
            out.add("top-level packages " + topLevel + ", the layout lists " + named);
        }
        for (String p : packages) {
            int slash = p.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String parent = p.substring(0, slash);
            String child = p.substring(slash + 1);
            Matcher entry = Pattern.compile("(?ms)^  " + parent + "/ (.*?)(?=^  [a-z]+/ |\\z)")
                    .matcher(layout);
            if (!entry.find() || !entry.group(1).contains(child + "/")) {
                out.add("the line of " + parent + "/ does not name its package " + child + "/ (" + p + ")");
            }
        }
        return out;
    }

    @Test
    void everyPackageHasItsLineAndEveryLineItsPackage() throws IOException {
        assertEquals(List.of(), problems(layout(), packages()), "docs/architecture.md's code layout");
    }

    @Test
    void aSubPackageLeftOutOrAPackageThatIsGoneIsFound() throws IOException {
        String layout = layout();
        Set<String> packages = packages();
        assertTrue(packages.contains("runtime/docker"));
        List<String> withoutDocker = problems(layout.replace("docker/ (containers", "(containers"), packages);
        assertEquals(1, withoutDocker.size(), withoutDocker.toString());
        assertTrue(withoutDocker.get(0).contains("runtime/docker"), withoutDocker.toString());
        Set<String> fewer = new TreeSet<>(packages);
        fewer.remove("ui");
        assertEquals(1, problems(layout, fewer).size(), "a listed package that is not in the tree");
    }
}
