package dev.warmpool.runtime.docker;

import java.util.Collection;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The uids a docker processor's jobs may run as ({@code warmpool.runtime.docker.job-uids}), and
 * the choice of one for a new container: the lowest that no live container of this install holds.
 * Every container's jobs run as a uid of their own (a pool's {@code securityContext.runAsUser}
 * aside), because the host's kernel counts some things per uid across containers (the user
 * keyring, {@code RLIMIT_NPROC}) and a uid no image owns files of can write only the
 * world-writable dirs the room wipes. The default, {@code 0x70000000} and the 65536 above it, is
 * a block systemd leaves unused (its dynamic users and containers take other ranges), so no
 * host or image user holds one.
 */
public record JobUids(long first, long last) {
    /** {@value #DEFAULT_RANGE}: 0x70000000 and the 65535 after it. */
    public static final String DEFAULT_RANGE = "1879048192-1879113727";

    public static final JobUids DEFAULT = parse(DEFAULT_RANGE);

    public JobUids {
        if (first < 1 || last < first || last >= 4_294_967_295L) {
            throw new IllegalArgumentException("warmpool.runtime.docker.job-uids=" + first + "-" + last
                    + " is not a range of uids: give FIRST-LAST with 1 <= FIRST <= LAST < 4294967295, e.g. "
                    + DEFAULT_RANGE);
        }
    }

    /** {@code FIRST-LAST}, both included. */
    public static JobUids parse(String range) {
        String[] ends = range.trim().split("-", -1);
        try {
            if (ends.length == 2) {
                return new JobUids(Long.parseLong(ends[0].trim()), Long.parseLong(ends[1].trim()));
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("warmpool.runtime.docker.job-uids=" + range
                + " is not a range of uids: give FIRST-LAST, e.g. " + DEFAULT_RANGE);
    }

    /** The lowest uid of the range that is not {@code taken}; empty when every one is. */
    public OptionalLong free(Collection<Long> taken) {
        Set<Long> held = Set.copyOf(taken);
        for (long uid = first; uid <= last; uid++) {
            if (!held.contains(uid)) {
                return OptionalLong.of(uid);
            }
        }
        return OptionalLong.empty();
    }

    @Override
    public String toString() {
        return first + "-" + last;
    }
}
