package io.slurmlet.systemtests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The packaged ctl ({@code packaging/bin/ctl}) run as an admin runs it, with its output captured. */
final class Ctl {

    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Map<String, String> env;

    Ctl(Map<String, String> env) {
        this.env = env;
    }

    Run run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(AgentProcess.CTL.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("SLURMLET_LEADER");
        pb.environment().remove("SLURMLET_TOKEN_FILE");
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("ctl " + String.join(" ", args) + " did not end");
        }
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }
}
