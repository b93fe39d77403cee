package dev.warmpool.api;

import dev.warmpool.service.Caller;
import io.quarkus.security.identity.SecurityIdentity;

/** The caller of a request, as the services know it. */
final class RequestCaller {
    private RequestCaller() {}

    static Caller of(SecurityIdentity identity) {
        return new Caller(identity.getPrincipal().getName(), identity.getRoles());
    }
}
