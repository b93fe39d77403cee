package dev.warmpool.pool;

import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * Names of job types, jobs and processors. A type is a DNS label of at most 40 characters, so
 * that it fits into Kubernetes names and labels; a job id carries its type ({@code <type>.<suffix>})
 * so that every key of the job lives in its pool's hash slot.
 */
public final class Ids {
    public static final Pattern TYPE = Pattern.compile("[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?");
    private static final Pattern JOB_ID = Pattern.compile("(" + TYPE.pattern() + ")\\.[0-9a-z]{10,32}(-[0-9]{1,5})?");
    private static final String ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {}

    public static boolean validType(String type) {
        return type != null && TYPE.matcher(type).matches();
    }

    /** A new job id: the type, then 10 characters of time (so ids sort by age) and 8 random ones. */
    public static String newJobId(String type, long nowMillis) {
        StringBuilder b = new StringBuilder(type.length() + 19).append(type).append('.');
        for (int shift = 45; shift >= 0; shift -= 5) {
            b.append(ALPHABET.charAt((int) (nowMillis >>> shift) & 31));
        }
        return b.append(random(8)).toString();
    }

    /** When {@link #newJobId} made {@code jobId} (ms), or -1 for an id it did not make. */
    public static long millisOfJob(String jobId) {
        int dot = jobId == null ? -1 : jobId.indexOf('.');
        if (dot < 0 || jobId.length() < dot + 11) {
            return -1;
        }
        long ms = 0;
        for (int i = dot + 1; i <= dot + 10; i++) {
            int v = ALPHABET.indexOf(jobId.charAt(i));
            if (v < 0) {
                return -1;
            }
            ms = (ms << 5) | v;
        }
        return ms;
    }

    /** The id of a sweep's trial: the sweep's id and the trial's index. */
    public static String trialId(String sweepId, int index) {
        return sweepId + "-" + index;
    }

    /** The sweep a trial's id names ({@link #trialId}), or null for a job that is no trial. */
    public static String sweepOfTrial(String jobId) {
        int dash = jobId == null ? -1 : jobId.lastIndexOf('-');
        return dash > jobId.lastIndexOf('.') && dash > 0 ? jobId.substring(0, dash) : null;
    }

    /** The type a job id (or a sweep id, which has the same shape) belongs to, or null when it is not a job id at all. */
    public static String typeOfJob(String jobId) {
        if (jobId == null || jobId.length() > 80) {
            return null;
        }
        var m = JOB_ID.matcher(jobId);
        return m.matches() ? m.group(1) : null;
    }

    /** The job type of a sweep id, or null: a trial's id (the sweep's id, '-', its index) is a job id, not a sweep's. */
    public static String typeOfSweep(String sweepId) {
        String type = typeOfJob(sweepId);
        return type != null && sweepId.lastIndexOf('-') < sweepId.indexOf('.') ? type : null;
    }

    public static String newProcessorId() {
        return "p" + random(9);
    }

    private static String random(int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(RANDOM.nextInt(32)));
        }
        return b.toString();
    }
}
