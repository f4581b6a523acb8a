package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.users.Account;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A machine's plan as its JSON is read, of any format an agent still reads (2 to
 * {@link NodePlan#FORMAT}): the format checked, and the keys of formats 2 and 3 put into their
 * sections. A plan of a later format than this agent's, of an older leader's, or mixing the two is
 * refused with the reason, and never applied.
 */
public record NodePlanAsRead(
        @JsonProperty("format") Integer format,
        @JsonProperty("node") String node,
        @JsonProperty("roles") Set<Role> roles,
        @JsonProperty("packages") List<String> packages,
        @JsonProperty("munge_key") MungeKey mungeKey,
        @JsonProperty("munge_rotation") Long mungeRotation,
        @JsonProperty("munge_switch_at") String mungeSwitchAt,
        @JsonProperty("slurm_jwks") SlurmAuthKeys slurmKeys,
        @JsonProperty("storage") StoragePlan storage,
        @JsonProperty("linux_users") UsersPlan users,
        @JsonProperty("slurm") SlurmPlan slurm,
        @JsonProperty("pam") PamPlan pam,
        @JsonProperty("containers") ContainersPlan containers,
        @JsonProperty("node_states") Map<String, NodeWish> nodeStates,
        @JsonProperty("problems") List<Problem> problems,
        @JsonProperty("planned_from") NodeFacts plannedFrom,
        // Formats 2 and 3: the same, not in sections.
        @JsonProperty("slurm_files") List<ManagedFile> slurmFiles,
        @JsonProperty("services") List<String> services,
        @JsonProperty("users") List<Account> accounts,
        @JsonProperty("home_root") String homeRoot,
        @JsonProperty("pam_adopt") Boolean pamAdopt,
        // Older still: refused.
        @JsonProperty("shared") Object legacyShared,
        @JsonProperty("files") Object legacyFiles) {

    /** The plan this JSON says; an {@link IllegalArgumentException} saying why where it is refused. */
    NodePlan plan() {
        SlurmPlan slurm = this.slurm;
        UsersPlan users = this.users;
        PamPlan pam = this.pam;
        MungeKey mungeKey = this.mungeKey;
        if (format != null && format > NodePlan.FORMAT) {
            throw new IllegalArgumentException(
                    ("this plan is of format %d, which this agent's slurmlet (format %d) cannot read: upgrade "
                                    + "slurmlet on this machine; it is left as it is until then")
                            .formatted(format, NodePlan.FORMAT));
        }
        if (format == null || legacyFiles != null || legacyShared != null && storage == null) {
            // An older leader's plan has neither section: read as none, a mount under running jobs would
            // be removed and pam_slurm_adopt taken out of sshd. Never applied.
            throw new IllegalArgumentException(
                    "this plan comes from an older slurmlet on the leader (it has no format, no pam_adopt, "
                            + "or says shared, not storage): upgrade slurmlet on the leader; this machine is left as it is until then");
        }
        if (format < 4) {
            if (pamAdopt == null && slurm == null && users == null && pam == null) {
                throw new IllegalArgumentException(
                        "this plan comes from an older slurmlet on the leader (it has no pam_adopt): upgrade "
                                + "slurmlet on the leader; this machine is left as it is until then");
            }
            if (pamAdopt == null
                    || slurm != null
                    || users != null
                    || pam != null
                    || containers != null
                    || slurmKeys != null) {
                throw new IllegalArgumentException(
                        ("a plan of format %d has pam_adopt and no slurm, linux_users or pam section: this "
                                        + "one is neither, and is not applied")
                                .formatted(format));
            }
            slurm = new SlurmPlan(slurmFiles, services);
            users = accounts == null ? UsersPlan.LEAVE : new UsersPlan.Keep(accounts, homeRoot);
            pam = pamAdopt ? PamPlan.ADOPT : PamPlan.OFF;
        } else {
            List<String> flat = new ArrayList<>();
            if (slurmFiles != null) flat.add("slurm_files");
            if (services != null) flat.add("services");
            if (accounts != null) flat.add("users");
            if (homeRoot != null) flat.add("home_root");
            if (pamAdopt != null) flat.add("pam_adopt");
            if (storage == null) flat.add("no storage");
            if (users == null) flat.add("no linux_users");
            if (slurm == null) flat.add("no slurm");
            if (pam == null) flat.add("no pam");
            if (format >= 6 && containers == null) flat.add("no containers");
            if (format < 6 && containers != null) flat.add("containers (a section of format 6)");
            if (format < 8 && slurmKeys != null) flat.add("slurm_jwks (a key of format 8)");
            if (!flat.isEmpty()) {
                // A section left out would be read as none: Slurm's daemons stopped, sshd's stack changed. Never
                // applied.
                throw new IllegalArgumentException(
                        "a plan of format %d has each section and nothing of an older format's; this one has %s, and is not applied"
                                .formatted(format, String.join(", ", flat)));
            }
        }
        if (mungeKey != null && (mungeRotation != null || mungeSwitchAt != null)) {
            try {
                mungeKey = mungeKey.rotated(
                        mungeRotation == null ? 0 : mungeRotation,
                        Optional.ofNullable(mungeSwitchAt).map(Instant::parse));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "the plan's munge_switch_at is not a time (as 2026-12-07T10:00:00Z)", null);
            }
        }
        return new NodePlan(
                node,
                roles == null ? Set.of() : roles,
                packages == null ? List.of() : packages,
                Optional.ofNullable(mungeKey),
                Optional.ofNullable(slurmKeys),
                storage,
                users,
                slurm,
                pam,
                containers,
                nodeStates,
                problems == null ? List.of() : problems,
                Optional.ofNullable(plannedFrom));
    }
}
