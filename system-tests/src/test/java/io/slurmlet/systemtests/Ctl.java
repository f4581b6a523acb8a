package io.slurmlet.systemtests;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** ctl as the DEB installs it ({@link Installed}) run as an admin runs it, with its output captured. */
final class Ctl {

    private final Map<String, String> env = new HashMap<>();

    Ctl(Map<String, String> env) {
        // Only what the test gives: not the leader or token of whoever runs the tests.
        this.env.put("SLURMLET_LEADER", null);
        this.env.put("SLURMLET_TOKEN_FILE", null);
        this.env.putAll(env);
    }

    Proc.Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(AgentProcess.CTL.toString());
        command.addAll(List.of(args));
        return Proc.run(command, env, 60);
    }
}
