package dev.warmpool.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The sh script that starts one job in a {@link ResidentRoom}, sourced by the room's launcher in
 * a subshell of its own: into the job's dir, the job's environment and nothing else, then {@code
 * unshare} into a new PID, mount (its own /proc) and IPC namespace, as the jobs' user, where a sh
 * is the namespace's init and the job its child ({@code "$@"; exit $?}: not {@code exec}, or the
 * job would be an init, which ignores its own signals; not {@code &}, or it would ignore SIGINT).
 */
final class LaunchScript {
    private LaunchScript() {}

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * {@code uid}/{@code gid}: the jobs' user when it is another than the agent's (then the
     * launcher is root); null for the agent's own, in a user namespace of the job's own when the
     * agent is not root (the launcher then shares the job's uid, and only namespaces keep them apart).
     */
    static String of(
            List<String> command,
            Map<String, String> env,
            String cwd,
            String unshare,
            String sh,
            Integer uid,
            Integer gid,
            boolean agentIsRoot) {
        StringBuilder s = new StringBuilder();
        s.append("cd -- ").append(quote(cwd)).append(" || exit 126\n");
        List<String> exec = new ArrayList<>();
        exec.add("exec");
        if (env.keySet().stream().allMatch(k -> NAME.matcher(k).matches())) {
            s.append("unset OLDPWD PWD\n"); // sh's own: the job's environment is exactly its own
            env.forEach((k, v) ->
                    s.append("export ").append(k).append('=').append(quote(v)).append('\n'));
        } else {
            // a name sh cannot export: env(1) sets them, from scratch
            exec.addAll(List.of("env", "-i"));
            env.forEach((k, v) -> exec.add(k + "=" + v));
        }
        exec.addAll(List.of(unshare, "--pid", "--fork", "--kill-child", "--mount-proc", "--ipc"));
        if (uid != null) {
            exec.addAll(List.of("--setgid", Integer.toString(gid), "--setuid", Integer.toString(uid)));
        } else if (!agentIsRoot) {
            exec.addAll(List.of("--user", "--map-current-user"));
        }
        // a sh exports PWD at its start: not the job's unless its env has it
        exec.addAll(List.of("--", sh, "-c", (env.containsKey("PWD") ? "" : "unset PWD; ") + "\"$@\"; exit $?", "sh"));
        exec.addAll(command);
        for (int i = 0; i < exec.size(); i++) {
            s.append(i == 0 ? exec.get(i) : quote(exec.get(i))).append(i + 1 < exec.size() ? " " : "\n");
        }
        return s.toString();
    }

    /** {@code text} as one sh word, taken literally. */
    static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
