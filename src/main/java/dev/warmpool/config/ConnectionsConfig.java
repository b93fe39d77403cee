package dev.warmpool.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * What one client can hold of the manager: connections, how long they may sit quiet, how many
 * event streams a caller keeps open. Without bounds, ~20,800 idle connections without a token
 * used every file handle (every call timed out, reconcile passes failed with "Too many open
 * files"); each bound below keeps the manager answering and its own work going under that load.
 * A group of {@link WarmpoolConfig} ({@code warmpool.connections.*}).
 */
public interface ConnectionsConfig {
    /**
     * The most open HTTP connections (it sets {@code quarkus.http.limits.max-connections});
     * past it a new connection is closed at once. 4096: far more than the pages, notebooks and
     * pipelines of a team, and under half of a server's usual open-file limit (ulimit -n), so
     * Redis connections, agents' pipes and files always find a handle. Lower it where
     * {@code ulimit -n} is small (macOS: 256 by default).
     */
    @WithDefault("4096")
    @jakarta.validation.constraints.Positive
    int max();

    /**
     * How long a connection may send and receive nothing before it is closed: a client that
     * connects and sends no request (or a request head too slowly: each byte restarts the
     * clock, bounded by {@link #maxHeaderBytes}) is gone after this. 30 s (it was Quarkus's
     * 30 min): longer than any ordinary call takes (Redis calls time out after 10 s), and a
     * keep-alive client simply reconnects after it.
     */
    @WithDefault("30s")
    Duration idleTimeout();

    /**
     * How long a connection may be quiet while it carries what is meant to be quiet, once its
     * caller is known: an event stream, {@code logs?follow=true}, a {@code ?wait=}. 30 min,
     * so a quiet job or sweep is followed to its end; {@link #idleTimeout} applies again when
     * the response ends.
     */
    @WithDefault("30m")
    Duration streamIdleTimeout();

    /**
     * The largest request head (request line and headers together), in bytes; a larger one is
     * answered 431. 16 KiB: a bearer JWT and a browser's cookies fit many times over, and a
     * client trickling a head byte by byte is cut off after this many bytes at the latest.
     */
    @WithDefault("16384")
    @jakarta.validation.constraints.Min(4096)
    int maxHeaderBytes();

    /**
     * Event streams ({@code /jobs/{id}/events}, {@code /sweeps/{id}/events}, {@code /ui/events},
     * {@code /jobs/{id}/logs?follow=true}) one caller may hold open on a manager replica;
     * past it a new one is answered 429. 32: a few dashboard tabs and a notebook following a
     * sweep's trials fit, one token holding thousands of streams does not.
     */
    @WithDefault("32")
    @jakarta.validation.constraints.Positive
    int streamsPerCaller();
}
