package io.slurmlet.agent.store;

import java.util.Optional;

/**
 * Whether this agent may act as the leader now: write the leader's state, run the site's hooks,
 * publish plans. With the file store there is one leader, which always may
 * ({@link #SOLE}); with etcd, the leader-eligible agents elect one by an etcd lease
 * ({@link EtcdElection}), and the others stand by.
 */
public interface Leadership {

    /** Whether this agent leads now: checked right before anything is done as the leader. */
    boolean leads();

    /**
     * Who leads now, as the election's record says ({@code n1 at https://n1:7818}); empty when this
     * agent does, or when no one does.
     */
    Optional<String> leader();

    /** Throws, naming why, when this agent does not lead now: before a hook runs, say. */
    default void check(String what) {
        if (!leads()) {
            throw new NotLeading("this agent does not lead the cluster any more, so it does not " + what
                    + leader().map(l -> "; the leader is " + l).orElse(""));
        }
    }

    /** The one leader of a file store: always leads. */
    Leadership SOLE = new Leadership() {
        @Override
        public boolean leads() {
            return true;
        }

        @Override
        public Optional<String> leader() {
            return Optional.empty();
        }
    };

    /** This agent does not lead: what it was about to do as the leader is not done. */
    final class NotLeading extends RuntimeException {
        public NotLeading(String message) {
            super(message);
        }
    }
}
