package dev.warmpool;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Dependencies point one way, held by a test rather than by memory (docs/architecture.md, "Code layout"). */
@Tag("unit")
class ArchitectureTests {
    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.warmpool");

    @Test
    void theAgentNeedsOnlyItselfAndTheProtocol() {
        // the agent jar holds agent/** and protocol/** alone: anything else would be missing in a processor
        classes()
                .that()
                .resideInAPackage("dev.warmpool.agent..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "dev.warmpool.agent..",
                        "dev.warmpool.protocol..",
                        "java..",
                        "redis.clients..",
                        "com.google.gson..")
                .check(MAIN);
    }

    /**
     * The agent's parts see only those below them: the loop (agent), its persistent workers
     * (agent.worker), the job's room (agent.room), and what all of them use (agent.io: the log,
     * JSON, an output tail). A room that called back into the loop would be a cycle no one designed.
     */
    @Test
    void theAgentsPartsLayerOneWay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("loop")
                .definedBy("dev.warmpool.agent")
                .layer("worker")
                .definedBy("dev.warmpool.agent.worker..")
                .layer("room")
                .definedBy("dev.warmpool.agent.room..")
                .layer("io")
                .definedBy("dev.warmpool.agent.io..")
                .whereLayer("loop")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("worker")
                .mayOnlyBeAccessedByLayers("loop")
                .whereLayer("room")
                .mayOnlyBeAccessedByLayers("loop", "worker")
                .check(MAIN);
    }

    @Test
    void theProtocolIsPlainJavaThatBothSidesShare() {
        classes()
                .that()
                .resideInAPackage("dev.warmpool.protocol..")
                .should()
                .onlyDependOnClassesThat()
                // javax.net.ssl: the JDK's own TLS (java.base), with which both sides pin the Redis certificate
                .resideInAnyPackage("dev.warmpool.protocol..", "java..", "javax.net.ssl..")
                .check(MAIN);
    }

    @Test
    void servicesKnowNeitherHttpNorEventsNorTheReconciler() {
        noClasses()
                .that()
                .resideInAPackage("dev.warmpool.service..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.warmpool.api..",
                        "dev.warmpool.events..",
                        "dev.warmpool.reconcile..",
                        "jakarta.ws.rs..",
                        "org.jboss.resteasy..")
                .check(MAIN);
    }

    @Test
    void theDomainIsPureOfStorageRuntimesAndTheFramework() {
        noClasses()
                .that()
                .resideInAnyPackage("dev.warmpool.pool..", "dev.warmpool.policy..", "dev.warmpool.sweep..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.warmpool.store..",
                        "dev.warmpool.runtime..",
                        "dev.warmpool.service..",
                        "dev.warmpool.api..",
                        "io.quarkus..",
                        "io.smallrye.mutiny..",
                        "io.vertx..")
                .check(MAIN);
    }

    @Test
    void entryPointsReachTheReconcilerOnlyThroughItsPort() {
        noClasses()
                .that()
                .resideInAnyPackage("dev.warmpool.api..", "dev.warmpool.events..", "dev.warmpool.ui..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.warmpool.reconcile..")
                .check(MAIN);
    }

    @Test
    void onlyTheRuntimeLayerSeesARuntimesImplementation() {
        // the producer, Runtimes and `stop` (runtime/) pick and call them; config names their defaults
        noClasses()
                .that()
                .resideOutsideOfPackages("dev.warmpool.runtime..", "dev.warmpool.config..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.warmpool.runtime.local..",
                        "dev.warmpool.runtime.docker..",
                        "dev.warmpool.runtime.kubernetes..")
                .check(MAIN);
    }

    @Test
    void runtimeImplementationsDoNotSeeEachOther() {
        List<String> impls = List.of("local", "docker", "kubernetes");
        for (String impl : impls) {
            noClasses()
                    .that()
                    .resideInAPackage("dev.warmpool.runtime." + impl + "..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(impls.stream()
                            .filter(other -> !other.equals(impl))
                            .map(other -> "dev.warmpool.runtime." + other + "..")
                            .toArray(String[]::new))
                    .check(MAIN);
        }
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching("dev.warmpool.(*)..").should().beFreeOfCycles().check(MAIN);
    }
}
