package dev.warmpool.runtime.local;

import dev.warmpool.store.PrivateFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The agents of one install as its state dir notes them ({@code agents/<processor id>}: the pid
 * and the start time of the agent's process), so that {@code stop} finds them whatever the
 * environment it runs in (the Redis port the agents' command lines name is a setting that
 * {@code stop} may not be given), and never stops another install's: a note holds only while a
 * live process has that pid, that start time and that processor on its command line.
 */
public final class AgentNotes {
    static final String DIR = "agents";

    private AgentNotes() {}

    /** Notes the agent of {@code processorId} (started now, or found again by a manager that started again). */
    public static void note(Path stateDir, String processorId, ProcessHandle agent) {
        try {
            Path dir = PrivateFiles.secureDir(stateDir.resolve(DIR));
            PrivateFiles.write(
                    dir.resolve(processorId),
                    agent.pid() + " " + startMillis(agent).orElse(""));
        } catch (IOException | RuntimeException e) {
            // without its note, stop does not find this agent: say so, but the agent serves all the same
            Logger.getLogger(AgentNotes.class)
                    .warnf("cannot note agent %s in %s: %s", processorId, stateDir, e.getMessage());
        }
    }

    /** Its agent has ended. */
    static void forget(Path stateDir, String processorId) {
        stateDir.resolve(DIR).resolve(processorId).toFile().delete();
    }

    /**
     * A manager that starts finds the agents its install left by their command line: each gets a
     * note (those of an older manager had none), and notes of agents that are gone are dropped.
     */
    static void sync(Path stateDir, Collection<ProcessHandle> found) {
        live(stateDir);
        found.forEach(h -> LocalRuntime.arg(h, LocalRuntime.PROCESSOR).ifPresent(id -> note(stateDir, id, h)));
    }

    /** The noted agents that run; a note that no live agent answers to is dropped. */
    public static List<Agent> live(Path stateDir) {
        Path dir = stateDir.resolve(DIR);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> notes = Files.list(dir)) {
            return notes.flatMap(note -> {
                        String processorId = note.getFileName().toString();
                        Optional<Agent> agent = read(note).flatMap(n -> find(processorId, n));
                        if (agent.isEmpty()) {
                            note.toFile().delete();
                        }
                        return agent.stream();
                    })
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** A noted agent that runs: its processor and its process. */
    public record Agent(String processorId, ProcessHandle process) {}

    private static Optional<String[]> read(Path note) {
        try {
            return Optional.of(Files.readString(note).trim().split(" ", -1));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<Agent> find(String processorId, String[] note) {
        try {
            String started = note.length > 1 ? note[1] : "";
            return ProcessHandle.of(Long.parseLong(note[0]))
                    .filter(h -> started.isEmpty()
                            || startMillis(h).map(s -> s.equals(started)).orElse(false))
                    .filter(h -> LocalRuntime.arguments(h).contains(LocalRuntime.PROCESSOR + processorId))
                    .map(h -> new Agent(processorId, h));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** When the process started (ms since the epoch, as the JDK reads /proc): with the pid, it names one process. */
    public static Optional<String> startMillis(ProcessHandle h) {
        return h.info().startInstant().map(i -> Long.toString(i.toEpochMilli()));
    }
}
