package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.ui.UiResource;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a newcomer follows in README.md and docs/*.md leads somewhere: every relative link names a
 * file that exists (and a heading, when it names one), every dashboard page named ({@code /ui...})
 * is a route of the dashboard, and no example is pinned to one host and port.
 */
@Tag("unit")
class DocsLinksTests {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    /** A dashboard path as the docs name it: {@code /ui}, {@code /ui/jobs/{id}}; not a folder such as resources/ui/. */
    private static final Pattern UI_PATH = Pattern.compile("(?<![\\w./-])/ui(/[A-Za-z0-9_{}<>.-]+)*/?");

    static List<java.nio.file.Path> docs() throws IOException {
        List<java.nio.file.Path> out = new ArrayList<>();
        out.add(java.nio.file.Path.of("README.md"));
        try (Stream<java.nio.file.Path> s = Files.list(java.nio.file.Path.of("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    @Test
    void everyRelativeLinkInTheDocsNamesAFileAndHeadingThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (java.nio.file.Path doc : docs()) {
            Matcher m = LINK.matcher(Files.readString(doc));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                links++;
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                java.nio.file.Path to =
                        file.isEmpty() ? doc : doc.resolveSibling(file).normalize();
                if (!Files.exists(to)) {
                    broken.add(doc + ": " + target + " (no file " + to + ")");
                } else if (anchor != null
                        && to.toString().endsWith(".md")
                        && !headings(to).contains(anchor)) {
                    broken.add(doc + ": " + target + " (no heading #" + anchor + " in " + to + ")");
                }
            }
        }
        assertTrue(links > 20, "the docs' relative links were found: " + links);
        assertEquals(List.of(), broken);
    }

    @Test
    void everyDashboardPageTheDocsNameIsARouteOfTheDashboard() throws IOException {
        List<Pattern> routes = uiRoutes();
        List<String> unknown = new ArrayList<>();
        int named = 0;
        for (java.nio.file.Path doc : docs()) {
            Matcher m = UI_PATH.matcher(Files.readString(doc));
            while (m.find()) {
                named++;
                String path = m.group().replaceAll("/$", "");
                if (routes.stream().noneMatch(r -> r.matcher(path).matches())) {
                    unknown.add(doc + ": " + m.group());
                }
            }
        }
        assertTrue(named > 5, "the docs' dashboard paths were found: " + named);
        assertEquals(List.of(), unknown, "dashboard paths named in the docs that no GET of UiResource answers");
    }

    @Test
    void noExampleIsPinnedToLocalhost8080() throws IOException {
        List<String> pinned = new ArrayList<>();
        for (java.nio.file.Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                // where the README says how to set $WARMPOOL_URL is the one place the address is written
                if (line.matches(".*(localhost|127\\.0\\.0\\.1):8080/.*")
                        || line.contains("curl") && line.contains(":8080")) {
                    pinned.add(doc + ":" + (i + 1) + ": " + line);
                }
            }
        }
        assertEquals(List.of(), pinned, "examples use $WARMPOOL_URL");
    }

    /** GitHub's anchors for a file's headings: lower case, punctuation dropped, spaces as hyphens. */
    static Set<String> headings(java.nio.file.Path doc) throws IOException {
        return Files.readAllLines(doc).stream()
                .filter(l -> l.startsWith("#"))
                .map(l -> l.replaceFirst("^#+\\s*", "")
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "")
                        .replace(' ', '-'))
                .collect(Collectors.toSet());
    }

    /** UiResource's GET routes as patterns: {@code /ui/jobs/{id}} matches a named id and the docs' {id}. */
    static List<Pattern> uiRoutes() {
        String base = UiResource.class.getAnnotation(Path.class).value();
        List<Pattern> out = new ArrayList<>();
        for (Method m : UiResource.class.getMethods()) {
            if (m.isAnnotationPresent(GET.class)) {
                Path p = m.getAnnotation(Path.class);
                String route = base + (p == null ? "" : p.value());
                out.add(Pattern.compile(Pattern.quote(route)
                        .replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q")
                        .replace("\\Q\\E", "")));
            }
        }
        assertTrue(out.size() >= 4, "UiResource's routes: " + out);
        return out;
    }
}
