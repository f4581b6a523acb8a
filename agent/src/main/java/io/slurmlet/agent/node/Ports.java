package io.slurmlet.agent.node;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.HostFiles;
import io.slurmlet.agent.system.Packages;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.Users;
import io.slurmlet.agent.system.linux.DnfPackages;
import io.slurmlet.agent.system.linux.LinuxCommands;
import io.slurmlet.agent.system.linux.LinuxFiles;
import io.slurmlet.agent.system.linux.LinuxHostFiles;
import io.slurmlet.agent.system.linux.LinuxUsers;
import io.slurmlet.agent.system.linux.SystemdServices;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The ports a machine's steps act through ({@link NodeWiring}); tests make them of fakes. */
record Ports(Commands commands, Files files, HostFiles hostFiles, Services services, Users users, Packages packages) {

    /** This machine's, for the node role ({@link NodeAgent}): systemctl, dpkg or rpm, the real file system. */
    @Singleton
    static class Linux {

        @Produces
        @Singleton
        Ports ports() {
            Commands commands = new LinuxCommands();
            return new Ports(
                    commands,
                    new LinuxFiles(),
                    new LinuxHostFiles(),
                    new SystemdServices(commands),
                    new LinuxUsers(commands),
                    DnfPackages.forMachine(commands));
        }
    }
}
