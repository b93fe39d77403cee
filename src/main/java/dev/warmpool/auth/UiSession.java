package dev.warmpool.auth;

/**
 * How the dashboard's browser authenticates: a random session value (never the token itself, see
 * {@link UiSessions}) in an HttpOnly, SameSite=Strict cookie set by {@code /ui?token=...} or the
 * login form, Secure when the request came over HTTPS. A request that changes something and carries only
 * the cookie must also send {@link #HEADER} (the page's own script does; a form or link on
 * another site cannot set a header), so the cookie alone never changes anything.
 */
public final class UiSession {
    public static final String COOKIE = "warmpool_token";
    public static final String HEADER = "X-Warmpool-UI";

    private UiSession() {}
}
