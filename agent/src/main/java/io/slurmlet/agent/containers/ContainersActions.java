package io.slurmlet.agent.containers;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.plan.Artifact;
import java.util.List;

/** The containers step's actions: what {@link ContainersDiff} finds to do and {@link ContainersStep} does. */
final class ContainersActions {

    private ContainersActions() {}

    /** One thing the containers step does. */
    sealed interface ContainersAction extends Action
            permits MakeFolders, WriteFile, RemoveFile, CheckArtifacts, InstallEnroot, InstallNvidiaCli, BuildPyxis {}

    /** The folders of {@link #FOLDERS} that are missing or not root's 0755 ones, made so (install -d). */
    record MakeFolders(List<String> folders) implements ContainersAction {
        public String will() {
            return "make " + String.join(", ", folders) + " (root's, 0755)";
        }

        public String did() {
            return "made " + String.join(", ", folders);
        }
    }

    record WriteFile(String path, ContainersDiff.Kept file, boolean exists) implements ContainersAction {
        public String will() {
            return (exists ? "rewrite " : "write ") + path;
        }

        public String did() {
            return (exists ? "rewrote " : "wrote ") + path;
        }
    }

    record RemoveFile(String path) implements ContainersAction {
        public String will() {
            return "remove " + path;
        }

        public String did() {
            return "removed " + path;
        }
    }

    /**
     * Every file the pass installs or builds from, fetched and checked against its digest before the
     * first of them is installed: one that differs (pyxis's source, say) leaves enroot uninstalled too.
     */
    record CheckArtifacts(List<Artifact> artifacts) implements ContainersAction {
        public String will() {
            return "fetch and check " + listed(artifacts) + " before installing any";
        }

        public String did() {
            return "checked "
                    + String.join(", ", artifacts.stream().map(Artifact::file).toList());
        }
    }

    /** enroot's packages, fetched, checked against their digests, installed together. */
    record InstallEnroot(List<Artifact> packages, String was) implements ContainersAction {
        public String will() {
            return "install enroot %s (%s)%s"
                    .formatted(packages.get(0).version(), listed(packages), was.isEmpty() ? "" : ", over " + was);
        }

        public String did() {
            return "installed enroot %s (%s)".formatted(packages.get(0).version(), listed(packages));
        }
    }

    /**
     * nvidia-container-cli's packages (the CLI and its library), fetched, checked, installed together:
     * on a GPU machine enroot's hook runs it to give a container the job's GPUs.
     */
    record InstallNvidiaCli(List<Artifact> packages, String was) implements ContainersAction {
        public String will() {
            return "install nvidia-container-cli %s (%s)%s"
                    .formatted(packages.get(0).version(), listed(packages), was.isEmpty() ? "" : ", over " + was);
        }

        public String did() {
            return "installed nvidia-container-cli %s (%s)"
                    .formatted(packages.get(0).version(), listed(packages));
        }
    }

    /** pyxis's source, fetched, checked, built against this machine's Slurm and installed where plugstack.conf names it. */
    record BuildPyxis(Artifact source, String slurm, String why) implements ContainersAction {
        public String will() {
            return "build pyxis %s for Slurm %s (%s) and install it at %s: %s"
                    .formatted(source.version(), slurm, listed(List.of(source)), ContainerFacts.PYXIS_PLUGIN, why);
        }

        public String did() {
            return "built pyxis %s for Slurm %s into %s"
                    .formatted(source.version(), slurm, ContainerFacts.PYXIS_PLUGIN);
        }
    }

    private static String listed(List<Artifact> artifacts) {
        return String.join(
                ", ",
                artifacts.stream()
                        .map(a -> a.file() + " sha256 " + a.shortDigest())
                        .toList());
    }
}
