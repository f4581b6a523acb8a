package io.slurmlet.model.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.List;

/**
 * What a change of the settings would do, answered by a dry run ({@code ?dry_run=true}) instead of
 * storing it: people fear changes they cannot see first. Per machine, every file that would change
 * as a unified diff, and every daemon that would be started, reconfigured or restarted, decided by
 * the same code the agents' steps act on. Each machine is taken to hold what its current plan
 * says. The cluster's munge key is never in it.
 *
 * @param revision the settings' current revision, which a dry run leaves as it is; send it as
 *                 If-Match to make exactly this change
 * @param changed  whether the settings would differ from the current ones at all
 * @param settings the settings as they would be
 * @param nodes    every machine on which something would change, by name; a machine with nothing
 *                 to change is left out, so empty means no machine would change
 * @param problems what would keep the cluster from running as the new settings say (version skew,
 *                 a Slurm slurmlet cannot write for); settings with problems of their own are
 *                 refused with 400, as a real write is
 * @param notes    what the leader would wait for or assume with the new settings
 */
public record SettingsPreview(
        @JsonProperty("revision") long revision,
        @JsonProperty("changed") boolean changed,
        @JsonProperty("settings") SlurmSettings settings,
        @JsonProperty("nodes") List<NodeChange> nodes,
        @JsonProperty("problems") List<Problem> problems,
        @JsonProperty("notes") List<String> notes) {

    public SettingsPreview {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        problems = problems == null ? List.of() : List.copyOf(problems);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /**
     * One machine.
     *
     * @param node        its name
     * @param rolesBefore what it runs now: {@code slurmctld}, {@code slurmd}, both, or none
     * @param rolesAfter  what it would run; a role it loses leaves its daemon and files as they are
     * @param files       each file that would be written there
     * @param daemons     each daemon that would be acted on there, in the order the agent acts
     * @param actions     what else its steps would do, each a sentence: the shared storage mounted,
     *                    unmounted, exported or no longer; sshd's PAM stack; the accounts' users
     */
    public record NodeChange(
            @JsonProperty("node") String node,
            @JsonProperty("roles_before") List<String> rolesBefore,
            @JsonProperty("roles_after") List<String> rolesAfter,
            @JsonProperty("files") List<FileChange> files,
            @JsonProperty("daemons") List<DaemonChange> daemons,
            @JsonProperty("actions") List<String> actions) {

        public NodeChange {
            rolesBefore = rolesBefore == null ? List.of() : List.copyOf(rolesBefore);
            rolesAfter = rolesAfter == null ? List.of() : List.copyOf(rolesAfter);
            files = files == null ? List.of() : List.copyOf(files);
            daemons = daemons == null ? List.of() : List.copyOf(daemons);
            actions = actions == null ? List.of() : List.copyOf(actions);
        }

        /** A machine whose files and daemons alone change. */
        public NodeChange(
                String node,
                List<String> rolesBefore,
                List<String> rolesAfter,
                List<FileChange> files,
                List<DaemonChange> daemons) {
            this(node, rolesBefore, rolesAfter, files, daemons, List.of());
        }
    }

    /** How a file would change. slurmlet never removes a file: a machine leaving Slurm keeps its own. */
    public enum Change {
        /** The file is not there now. */
        @JsonProperty("created")
        CREATED,
        /** The file is there with other content. */
        @JsonProperty("changed")
        CHANGED
    }

    /**
     * One file.
     *
     * @param path   where, as {@code /etc/slurm/slurm.conf}
     * @param change created or changed
     * @param diff   the change as a unified diff with 3 lines of context ({@code --- a/etc/slurm/slurm.conf},
     *               {@code +++ b/etc/slurm/slurm.conf}; a created file's from {@code /dev/null}); null for a
     *               secret, the munge key, whose content is never shown
     */
    public record FileChange(
            @JsonProperty("path") String path,
            @JsonProperty("change") Change change,
            @JsonProperty("diff") String diff) {}

    /** What a daemon would be made to do. */
    public enum Action {
        /** It does not run there yet: enabled and started. */
        @JsonProperty("start")
        START,
        /** It takes the change while it runs: {@code scontrol reconfigure}, issued once by the controller's agent. */
        @JsonProperty("reconfigure")
        RECONFIGURE,
        /** The change is one it reads only at start: restarted; running jobs are kept. */
        @JsonProperty("restart")
        RESTART,
        /** It runs for a role the machine no longer has: stopped and disabled, once no job needs it. */
        @JsonProperty("stop")
        STOP
    }

    /**
     * One daemon.
     *
     * @param unit   its systemd unit, as {@code slurmd}
     * @param action start, reconfigure, restart or stop
     * @param why    the reason, naming the file or keys that call for it
     */
    public record DaemonChange(
            @JsonProperty("unit") String unit,
            @JsonProperty("action") Action action,
            @JsonProperty("why") String why) {}
}
