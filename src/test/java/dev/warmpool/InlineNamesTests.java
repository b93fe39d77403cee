package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No class names another by its fully qualified name in code ({@code java.util.List<dev.warmpool.pool.Job>}): its
 * imports say what it depends on. The one exception is a name two types share in the file (an import or a type of
 * its own beside another package's), where one of them must be written in full. Comments and strings may name
 * anything. ArchUnit reads bytecode, where every name is qualified, so this reads the sources.
 */
@Tag("unit")
class InlineNamesTests {
    private static final List<Path> TREES = List.of(
            Path.of("src/main/java"),
            Path.of("src/test/java"),
            Path.of("src/native-test/java"),
            Path.of("src/bench/java"));
    private static final Pattern QUALIFIED = Pattern.compile(
            "(?<![\\w.@\"])((?:java|javax|jakarta|dev|io|com|org)\\.(?:[a-z_][a-z0-9_]*\\.)+)([A-Z][A-Za-z0-9_]*)");
    private static final Pattern IMPORT =
            Pattern.compile("^import (?!static )([\\w.]+)\\.([A-Z]\\w*);", Pattern.MULTILINE);
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");

    @Test
    void codeNamesOtherClassesByTheirImports() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path tree : TREES) {
            try (Stream<Path> files = Files.walk(tree)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    found.addAll(qualified(f.toString(), Files.readString(f)));
                }
            }
        }
        assertEquals(List.of(), found, "import these (or say why two types share a name)");
    }

    /** The check finds what it is for, and leaves comments, strings, imports and shared names alone. */
    @Test
    void theCheckSeesCodeOnly() {
        String source = String.join(
                "\n",
                "package dev.warmpool.x;",
                "import java.util.List;",
                "import jakarta.ws.rs.Path;",
                "/** see {@link java.util.Map} */",
                "class A {",
                "  // java.util.Set here is a comment",
                "  String s = \"java.util.Queue\";",
                "  java.util.Deque<String> d;",
                "  java.nio.file.Path shared;",
                "}");
        List<String> found = qualified("A.java", source);
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).contains("java.util.Deque"), found.toString());
    }

    static List<String> qualified(String file, String source) {
        String code = codeOnly(source);
        Set<String> shared = new HashSet<>();
        Matcher imports = IMPORT.matcher(code);
        while (imports.find()) {
            shared.add(imports.group(2));
        }
        Matcher declared = DECLARED.matcher(code);
        while (declared.find()) {
            shared.add(declared.group(1));
        }
        List<String> out = new ArrayList<>();
        Matcher m = QUALIFIED.matcher(code);
        while (m.find()) {
            int lineStart = code.lastIndexOf('\n', m.start()) + 1;
            String line = code.substring(lineStart, Math.max(lineStart, code.indexOf('\n', m.start())));
            if (line.startsWith("import ") || line.startsWith("package ")) {
                continue;
            }
            if (shared.contains(m.group(2))) {
                continue; // the name is taken in this file by another type: one of them is written in full
            }
            int line1 = 1
                    + (int) code.substring(0, m.start())
                            .chars()
                            .filter(c -> c == '\n')
                            .count();
            out.add(file + ":" + line1 + " " + m.group(1) + m.group(2));
        }
        return out;
    }

    /** {@code source} with its comments and string and char literals blanked out (line breaks kept). */
    static String codeOnly(String source) {
        StringBuilder out = new StringBuilder(source);
        int n = source.length();
        int i = 0;
        while (i < n) {
            char c = source.charAt(i);
            int end;
            if (source.startsWith("//", i)) {
                end = source.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end + 3;
            } else if (c == '"' || c == '\'') {
                end = i + 1;
                while (end < n && source.charAt(end) != c) {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 1);
            } else {
                i++;
                continue;
            }
            for (int k = i; k < end; k++) {
                if (out.charAt(k) != '\n') {
                    out.setCharAt(k, ' ');
                }
            }
            i = end;
        }
        return out.toString();
    }
}
