package dev.warmpool.protocol;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which environment variables a job may set, shared by the manager (which refuses a job that sets
 * one it may not, with 400) and the agent (which drops any that reach it all the same). A job's
 * env may set only the names its pool lists in {@code jobEnv}, and never a name that makes the
 * loader, the shell or an interpreter run code of the submitter's choosing inside the pool's
 * fixed command, nor warmpool's own.
 */
public final class EnvNames {
    /**
     * Interpreter and shell hooks: each one runs code, or chooses which code runs, at start
     * ({@code HOME} too: Python loads the user site under it, shells their rc files).
     */
    static final Set<String> HOOKS = Set.of(
            "PATH",
            "BASH_ENV",
            "ENV",
            "SHELLOPTS",
            "BASHOPTS",
            "PS4",
            "PROMPT_COMMAND",
            "IFS",
            "CDPATH",
            "GLOBIGNORE",
            "HOME",
            "SHELL",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "PYTHONHOME",
            "PYTHONINSPECT",
            "PYTHONUSERBASE",
            "PYTHONBREAKPOINT",
            "PYTHONEXECUTABLE",
            "PYTHONWARNINGS",
            "PERL5OPT",
            "PERL5LIB",
            "PERLLIB",
            "PERL5DB",
            "RUBYOPT",
            "RUBYLIB",
            "NODE_OPTIONS",
            "NODE_PATH",
            "JAVA_TOOL_OPTIONS",
            "JDK_JAVA_OPTIONS",
            "_JAVA_OPTIONS",
            "JAVA_OPTIONS",
            "CLASSPATH",
            "GCONV_PATH",
            "HOSTALIASES",
            "RESOLV_HOST_CONF",
            "NLSPATH",
            "R_PROFILE",
            "R_PROFILE_USER",
            "R_ENVIRON",
            "R_ENVIRON_USER",
            "JULIA_LOAD_PATH",
            "LUA_PATH",
            "LUA_CPATH",
            "GIT_SSH_COMMAND",
            "GIT_EXEC_PATH");
    /** Prefixes of the dynamic loaders (Linux, macOS) and of warmpool's own variables. */
    static final List<String> PREFIXES = List.of("LD_", "DYLD_", "WARMPOOL_");

    private EnvNames() {}

    /** A name that no job may set, whatever its pool lists. */
    public static boolean forbidden(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        return HOOKS.contains(upper) || PREFIXES.stream().anyMatch(upper::startsWith);
    }

    /** True when {@code name} is one the pool's {@code jobEnv} lists, exactly or by a {@code PREFIX_*} pattern. */
    public static boolean allowed(String name, List<String> jobEnv) {
        if (jobEnv == null || forbidden(name)) {
            return false;
        }
        for (String p : jobEnv) {
            if (p.endsWith("*") ? name.startsWith(p.substring(0, p.length() - 1)) : name.equals(p)) {
                return true;
            }
        }
        return false;
    }
}
