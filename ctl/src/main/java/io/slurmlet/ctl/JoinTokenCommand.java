package io.slurmlet.ctl;

import io.slurmlet.model.api.JoinInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** {@code ctl slurm join-token}: the line that joins a new machine to the cluster. */
@Command(name = "join-token", mixinStandardHelpOptions = true,
        description = {"Prints the line that joins a new machine's agent to this cluster.",
                "It holds the join token: show it only to whoever installs machines."})
public class JoinTokenCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        try (Leader leader = session.connect()) {
            Leader.Answer<JoinInfo> answer = leader.joinToken();
            if (session.json()) {
                session.printJson(answer.body());
                return 0;
            }
            PrintWriter out = session.out();
            out.println(answer.value().command());
            out.flush();
            return 0;
        }
    }
}
