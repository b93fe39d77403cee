package dev.warmpool.auth;

/**
 * How the dashboard's browser authenticates: the token in an HttpOnly, SameSite=Strict cookie set
 * by {@code /ui?token=...} or the login form. A request that changes something and carries only
 * the cookie must also send {@link #HEADER} (the page's own script does; a form or link on
 * another site cannot set a header), so the cookie alone never changes anything.
 */
public final class UiSession {
    public static final String COOKIE = "warmpool_token";
    public static final String HEADER = "X-Warmpool-UI";

    private UiSession() {
    }
}
