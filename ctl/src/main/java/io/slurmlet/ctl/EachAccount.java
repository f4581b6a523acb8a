package io.slurmlet.ctl;

import io.slurmlet.model.users.Account;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * What {@code disable}, {@code enable} and {@code remove} share: one request per account named, a
 * line for each; an account the leader refuses (one it does not have) is said on stderr and the
 * rest still go; exit 1 if any was refused. A failure that is not about one account (the leader
 * unreachable, a wrong token) stops the command. With {@code -o json}, each answer is one line of
 * JSON on stdout, refusals too, and the sentences go to stderr.
 */
final class EachAccount {

    /** What became of one account: a sentence, and whether it is what was asked. */
    record Said(String line, boolean done) {
        static Said done(String line) {
            return new Said(line, true);
        }

        static Said failed(String line) {
            return new Said(line, false);
        }
    }

    private EachAccount() {}

    /**
     * @param request the request for one login
     * @param say     what to print of the account the leader answered
     */
    static int apply(
            Session session,
            List<String> logins,
            BiFunction<Leader, String, Leader.Answer<Account>> request,
            Function<Account, Said> say) {
        PrintWriter out = session.out();
        PrintWriter err = session.err();
        boolean failed = false;
        try (Leader leader = session.connect()) {
            for (String login : new LinkedHashSet<>(logins)) {
                try {
                    Leader.Answer<Account> answer = request.apply(leader, login);
                    Said said = say.apply(answer.value());
                    if (session.json()) {
                        session.printJson(answer.body());
                    }
                    (said.done() && !session.json() ? out : err).println(said.line());
                    failed |= !said.done();
                } catch (Refused r) {
                    if (session.json() && r.responseBody() != null) {
                        session.printJson(r.responseBody().strip());
                    }
                    err.println(r.getMessage());
                    r.details().forEach(d -> err.println("  " + d));
                    failed = true;
                }
                out.flush();
                err.flush();
            }
        }
        return failed ? 1 : 0;
    }
}
