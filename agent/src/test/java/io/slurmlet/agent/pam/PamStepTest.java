package io.slurmlet.agent.pam;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.PamPlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.plan.UsersPlan;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PamStepTest {

    static final String DEBIAN_SSHD = """
            # PAM configuration for the Secure Shell service
            @include common-auth
            account    required     pam_nologin.so
            @include common-account
            session [success=ok ignore=ignore module_unknown=ignore default=bad]        pam_selinux.so close
            session    required     pam_loginuid.so
            @include common-session
            session    required     pam_limits.so
            @include common-password
            """;
    static final String COMMON_SESSION = """
            session	[default=1]			pam_permit.so
            session	requisite			pam_deny.so
            session	required			pam_permit.so
            session	required	pam_unix.so
            session	optional	pam_systemd.so
            """;
    static final String RHEL_SSHD = """
            #%PAM-1.0
            auth       substack     password-auth
            account    required     pam_sepermit.so
            account    required     pam_nologin.so
            account    include      password-auth
            password   include      password-auth
            session    required     pam_loginuid.so
            session    include      password-auth
            """;
    static final String CONF = "ProctrackType=proctrack/cgroup\nPrologFlags=Contain\n";

    final FakeFiles files = new FakeFiles();
    final FakeServices services = new FakeServices().running("slurmd");
    final PamStep step =
            new PamStep(files, services, Path.of("/"), Path.of("/var/lib/slurmlet"), Optional.of("hpc-admins"));

    static NodePlan plan(Set<Role> roles, List<io.slurmlet.model.users.Account> users) {
        return NodePlan.of("n1", roles)
                .withSlurm(Map.of("/etc/slurm/slurm.conf", CONF), List.of("slurmd"))
                .withUsers(users == null ? UsersPlan.LEAVE : new UsersPlan.Keep(users, "/home"))
                .withPam(PamPlan.of(roles, users != null));
    }

    void debianMachine() {
        files.put(
                Path.of("/etc/pam.d/sshd"), DEBIAN_SSHD.getBytes(StandardCharsets.UTF_8), "rw-r--r--", "root", "root");
        files.put(
                Path.of("/etc/pam.d/common-session"),
                COMMON_SESSION.getBytes(StandardCharsets.UTF_8),
                "rw-r--r--",
                "root",
                "root");
        files.put(Path.of("/usr/lib/security/pam_slurm_adopt.so"), new byte[] {1}, "rw-r--r--", "root", "root");
        files.put(Path.of("/etc/slurm/slurm.conf"), CONF.getBytes(StandardCharsets.UTF_8), "rw-r--r--", "root", "root");
    }

    String sshd() {
        return new String(files.stat(Path.of("/etc/pam.d/sshd")).orElseThrow().content(), StandardCharsets.UTF_8);
    }

    @Test
    void aComputeNodeGetsPamSlurmAdoptLastInTheAccountStackWithoutPamSystemdAndTheOriginalComesBackByteForByte() {
        debianMachine();
        Outcome o = step.apply(plan(Set.of(Role.COMPUTE), List.of()));
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        String s = sshd();
        int account = s.indexOf("@include common-account");
        int access = s.indexOf("account    sufficient   pam_access.so accessfile=/etc/security/access-slurmlet.conf");
        int adopt = s.indexOf(
                "account    required     /usr/lib/security/pam_slurm_adopt.so action_adopt_failure=deny action_generic_failure=deny");
        assertTrue(account >= 0 && account < access && access < adopt, s);
        assertFalse(s.contains("pam_systemd.so"), s);
        assertFalse(s.contains("@include common-session\n"), s);
        assertTrue(s.contains("session\trequired\tpam_unix.so"), s);
        assertEquals(
                "# Written by slurmlet: who gets into this Slurm node by ssh without a job of theirs here.\n"
                        + "+:root:ALL\n+:(hpc-admins):ALL\n-:ALL:ALL\n",
                new String(
                        files.stat(Path.of("/etc/security/access-slurmlet.conf"))
                                .orElseThrow()
                                .content(),
                        StandardCharsets.UTF_8));

        files.log.clear();
        assertEquals(
                Outcome.Kind.UNCHANGED,
                step.apply(plan(Set.of(Role.COMPUTE), List.of())).kind());
        assertTrue(files.log.isEmpty());

        assertEquals(
                Outcome.changed("pam", "put back /etc/pam.d/sshd as it was before slurmlet"),
                step.apply(plan(Set.of(Role.COMPUTE), null)));
        assertArrayEquals(
                DEBIAN_SSHD.getBytes(StandardCharsets.UTF_8),
                files.stat(Path.of("/etc/pam.d/sshd")).orElseThrow().content());
        assertTrue(files.stat(Path.of("/var/lib/slurmlet/pam/sshd.orig")).isEmpty());
    }

    @Test
    void neverOnTheControllerAndNotBeforeSlurmdRunsWithPrologFlagsContain() {
        debianMachine();
        assertEquals(
                Outcome.Kind.UNCHANGED,
                step.apply(plan(Set.of(Role.COMPUTE, Role.CONTROLLER), List.of()))
                        .kind());
        assertEquals(DEBIAN_SSHD, sshd());
        PamStep stopped =
                new PamStep(files, new FakeServices(), Path.of("/"), Path.of("/var/lib/slurmlet"), Optional.empty());
        Outcome waits = stopped.apply(plan(Set.of(Role.COMPUTE), List.of()));
        assertEquals(
                "pam_slurm_adopt waits for slurmd to run with PrologFlags=Contain and proctrack/cgroup",
                waits.detail());
        assertEquals(DEBIAN_SSHD, sshd());
    }

    @Test
    void rhelsPasswordAuthSessionIsInlinedWithoutPamSystemd() {
        String rendered = PamStep.render(
                RHEL_SSHD,
                "/usr/lib64/security/pam_slurm_adopt.so",
                f -> List.of("-session   optional      pam_systemd.so", "session    required      pam_unix.so"));
        assertTrue(
                rendered.indexOf("account    include      password-auth") < rendered.indexOf("pam_slurm_adopt.so"),
                rendered);
        assertFalse(rendered.contains("pam_systemd.so"), rendered);
        assertFalse(rendered.contains("session    include      password-auth"), rendered);
        assertTrue(rendered.contains("session    required      pam_unix.so"), rendered);
    }

    @Test
    void withoutTheModuleItSaysWhatToInstall() {
        debianMachine();
        files.delete(Path.of("/usr/lib/security/pam_slurm_adopt.so"));
        Outcome o = step.apply(plan(Set.of(Role.COMPUTE), List.of()));
        assertTrue(
                o.failed() && o.detail().endsWith("install libpam-slurm-adopt (Debian) or slurm-pam_slurm (EPEL)"),
                o.detail());
        assertEquals(DEBIAN_SSHD, sshd());
    }

    @Test
    void anAdminGroupThatCouldAddAnAccessRuleChangesNothing() {
        debianMachine();
        PamStep hostile = new PamStep(
                files, services, Path.of("/"), Path.of("/var/lib/slurmlet"), Optional.of("admins):ALL\n+:ALL:(x"));
        Outcome o = hostile.apply(plan(Set.of(Role.COMPUTE), List.of()));
        assertTrue(
                o.failed()
                        && o.detail()
                                .startsWith(
                                        "slurmlet.node.admin-group \"admins):ALL\\u000a+:ALL:(x\" is not a group name"),
                o.detail());
        assertEquals(DEBIAN_SSHD, sshd());
    }

    @Test
    void aRenderedFileWhoseOriginalIsGoneIsNotRenderedAgain() {
        debianMachine();
        step.apply(plan(Set.of(Role.COMPUTE), List.of()));
        files.delete(Path.of("/var/lib/slurmlet/pam/sshd.orig"));
        String rendered = sshd();
        Outcome o = step.apply(plan(Set.of(Role.COMPUTE), List.of()));
        assertTrue(
                o.failed()
                        && o.detail()
                                .startsWith("/etc/pam.d/sshd already holds slurmlet's lines but the original kept in"),
                o.detail());
        assertEquals(rendered, sshd());
    }
}
