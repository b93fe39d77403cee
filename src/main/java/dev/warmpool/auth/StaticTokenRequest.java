package dev.warmpool.auth;

import io.quarkus.security.identity.request.BaseAuthenticationRequest;

/** A bearer token to look up in the static tokens file. Its text is never logged or shown. */
public final class StaticTokenRequest extends BaseAuthenticationRequest {
    private final String token;

    public StaticTokenRequest(String token) {
        this.token = token;
    }

    String token() {
        return token;
    }

    @Override
    public String toString() {
        return "StaticTokenRequest[token hidden]";
    }
}
