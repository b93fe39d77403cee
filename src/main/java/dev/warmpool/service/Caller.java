package dev.warmpool.service;

import dev.warmpool.auth.Roles;
import java.util.Set;

/** Who asks: the name a job or sweep records as {@code submittedBy}, and the roles and groups it acts in. */
public record Caller(String name, Set<String> roles) {
    public Caller {
        roles = Set.copyOf(roles);
    }

    public boolean admin() {
        return roles.contains(Roles.ADMIN);
    }

    /** Whether this caller may cancel what {@code submittedBy} submitted: its own, or anything as an admin. */
    public boolean mayCancel(String submittedBy) {
        return admin() || name.equals(submittedBy);
    }
}
