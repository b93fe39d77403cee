package dev.warmpool.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs of the machine (root, a tool, an engine): on a workstation without it the
 * test is skipped; under CI ({@code CI=true}), where .ci/run installs or provides it, it fails,
 * so that a skipped test never passes for proof there.
 */
public final class Ci {
    private Ci() {}

    public static boolean on() {
        return "true".equals(System.getenv("CI"));
    }

    /** Skips outside CI when {@code here} is false (saying {@code missing}); fails under CI, saying {@code ciGives}. */
    public static void require(boolean here, String missing, String ciGives) {
        if (!on()) {
            Assumptions.assumeTrue(here, missing);
        }
        Assertions.assertTrue(here, missing + ": " + ciGives);
    }
}
