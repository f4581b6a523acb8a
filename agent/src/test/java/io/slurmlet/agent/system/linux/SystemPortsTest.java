package io.slurmlet.agent.system.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The systemctl and apt ports: the exact commands they run, and how they read the answers. */
class SystemPortsTest {

    @Test
    void systemctlQueriesReadTheExitStatus() throws Exception {
        FakeCommands commands = new FakeCommands()
                .answer(List.of("systemctl", "is-enabled", "--quiet", "munge"), Commands.Result.ok(""))
                .answer(List.of("systemctl", "is-active", "--quiet", "munge"), new Commands.Result(3, "", ""))
                .answerPrefix(
                        List.of("systemctl", "show"),
                        Commands.Result.ok("Id=munge.service\nActiveState=inactive\nSubState=dead\n"));
        SystemdServices services = new SystemdServices(commands);
        assertTrue(services.isEnabled("munge"));
        assertFalse(services.isActive("munge"));
    }

    @Test
    void aDaemonsInvocationIsSystemdsInvocationID() throws Exception {
        List<String> show = List.of("systemctl", "show", "--property=InvocationID", "--value", "slurmd");
        FakeCommands commands =
                new FakeCommands().answer(show, Commands.Result.ok("8f0c8d4bd5b64a3c9d6e2f1a0b9c8d7e\n"));
        assertEquals("8f0c8d4bd5b64a3c9d6e2f1a0b9c8d7e", new SystemdServices(commands).invocation("slurmd"));
        commands.answer(show, Commands.Result.ok("\n"));
        assertEquals("", new SystemdServices(commands).invocation("slurmd"), "never run since boot");
        commands.answer(show, Commands.Result.ok("yesterday\n"));
        io.slurmlet.agent.system.SystemException e = assertThrows(
                io.slurmlet.agent.system.SystemException.class,
                () -> new SystemdServices(commands).invocation("slurmd"));
        assertTrue(e.getMessage().contains("InvocationID yesterday"), e.getMessage());
    }

    @Test
    void aFailedStartSaysWhatSystemctlPrinted() {
        FakeCommands commands = new FakeCommands()
                .answer(
                        List.of("systemctl", "start", "slurmd"),
                        new Commands.Result(
                                1,
                                "",
                                "Job for slurmd.service failed because the control process exited with error code."))
                .answer(List.of("systemctl", "reset-failed", "slurmd"), Commands.Result.ok(""));
        CommandFailed e = assertThrows(CommandFailed.class, () -> new SystemdServices(commands).start("slurmd"));
        assertTrue(
                e.getMessage().contains("systemctl start slurmd")
                        && e.getMessage().contains("exited with status 1")
                        && e.getMessage().contains("Job for slurmd.service failed"),
                e.getMessage());
    }

    @Test
    void aptInstallsOnlyWhatDpkgDoesNotHave() throws Exception {
        FakeCommands commands = new FakeCommands()
                .answer(
                        List.of(
                                "dpkg-query",
                                "-W",
                                "-f=${Package} ${db:Status-Status}\\n",
                                "munge",
                                "slurmd",
                                "slurm-client"),
                        new Commands.Result(
                                1,
                                "munge installed\nslurm-client config-files\n",
                                "dpkg-query: no packages found matching slurmd"))
                .answer(
                        List.of(
                                "env",
                                "DEBIAN_FRONTEND=noninteractive",
                                "apt-get",
                                "install",
                                "-y",
                                "-q",
                                "--no-install-recommends",
                                "-o",
                                "Dpkg::Options::=--force-confold",
                                "slurmd",
                                "slurm-client"),
                        Commands.Result.ok(""));
        AptPackages apt = new AptPackages(commands);
        List<String> missing = apt.missing(List.of("munge", "slurmd", "slurm-client"));
        assertEquals(List.of("slurmd", "slurm-client"), missing, "removed but configured is not installed");
        apt.install(missing);
        assertEquals(2, commands.log().size());
        assertEquals(List.of(), apt.missing(List.of()));
    }

    @Test
    void dnfInstallsOnlyWhatRpmDoesNotHave() throws Exception {
        FakeCommands commands = new FakeCommands()
                .answer(
                        List.of("rpm", "-q", "--qf", "%{NAME}\\n", "munge", "slurm-slurmd", "slurm"),
                        new Commands.Result(1, "munge\npackage slurm-slurmd is not installed\nslurm\n", ""))
                .answer(
                        List.of("dnf", "install", "-y", "-q", "--setopt=install_weak_deps=False", "slurm-slurmd"),
                        Commands.Result.ok(""));
        DnfPackages dnf = new DnfPackages(commands);
        List<String> missing = dnf.missing(List.of("munge", "slurm-slurmd", "slurm"));
        assertEquals(List.of("slurm-slurmd"), missing);
        dnf.install(missing);
        assertEquals(2, commands.log().size());
    }

    @Test
    void aFailedDnfInstallSaysWhatDnfPrinted() {
        FakeCommands commands = new FakeCommands()
                .answer(
                        List.of("dnf", "install", "-y", "-q", "--setopt=install_weak_deps=False", "slurm-slurmd"),
                        new Commands.Result(1, "", "Error: Unable to find a match: slurm-slurmd"));
        CommandFailed e =
                assertThrows(CommandFailed.class, () -> new DnfPackages(commands).install(List.of("slurm-slurmd")));
        assertTrue(e.getMessage().contains("Unable to find a match: slurm-slurmd"), e.getMessage());
    }

    @Test
    void unitStatesAreReadInOneQueryAndMatchedByTheirIdNotTheirPlace() throws Exception {
        List<String> show = List.of(
                "systemctl",
                "show",
                "--property=Id,ActiveState,SubState,Result,NRestarts",
                "munge",
                "slurmd",
                "slurmctld");
        FakeCommands commands = new FakeCommands().answer(show, Commands.Result.ok("""
                Id=slurmd.service
                ActiveState=activating
                SubState=auto-restart
                Result=signal

                Id=munge.service
                ActiveState=active
                SubState=running
                Result=success
                NRestarts=2

                Id=slurmctld.service
                ActiveState=failed
                SubState=failed
                Result=exit-code
                NRestarts=[not set]
                """));
        var states = new SystemdServices(commands).states(List.of("munge", "slurmd", "slurmctld"));
        assertEquals(
                new io.slurmlet.agent.system.Services.UnitState("active", "running", "success", 2),
                states.get("munge"),
                "twice started again by its own Restart=");
        assertEquals(0, states.get("slurmctld").restarts(), "a systemd without NRestarts: none known");
        assertTrue(states.get("munge").up());
        var slurmd = states.get("slurmd");
        assertTrue(
                !slurmd.up() && !slurmd.crashed() && slurmd.restarting(),
                "waiting for its own Restart=: down, and systemd's to start");
        assertTrue(states.get("slurmctld").crashed());
        assertEquals("failed (exit-code)", states.get("slurmctld").said());
        assertTrue(
                new io.slurmlet.agent.system.Services.UnitState("deactivating", "stop-sigterm", "success").up(),
                "a restart on its way");
        var stopped = new io.slurmlet.agent.system.Services.UnitState("inactive", "dead", "success");
        assertTrue(!stopped.up() && !stopped.crashed(), "someone stopped it");
    }

    @Test
    void aStartOrRestartSlurmletDecidesResetsTheStartLimitFirst() throws Exception {
        FakeCommands commands = new FakeCommands().answerPrefix(List.of("systemctl"), Commands.Result.ok(""));
        new SystemdServices(commands).restart("slurmctld");
        assertEquals(
                List.of(
                        List.of("systemctl", "reset-failed", "slurmctld"),
                        List.of("systemctl", "restart", "slurmctld")),
                commands.log());
    }
}
