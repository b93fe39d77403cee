package dev.warmpool.pool;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Timestamps as the API shows them: ISO-8601 UTC with milliseconds, always. */
public final class Timestamps {
    private static final DateTimeFormatter ISO =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Timestamps() {}

    public static String iso(long epochMillis) {
        return epochMillis <= 0 ? null : ISO.format(Instant.ofEpochMilli(epochMillis));
    }

    public static String iso(String epochMillis) {
        return epochMillis == null || epochMillis.isEmpty() ? null : iso(Long.parseLong(epochMillis));
    }
}
