package io.slurmlet.agent.store;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The leader's key and the create revision this agent's win gave it; {@code lost} is told when a
 * write finds it changed. Every write of a store that takes part in an election compares the key
 * with it in the same transaction, so a leader that lost the key writes nothing, however late it
 * runs; one whose lease ran out by its own count ({@code leads} false), or that stands by, does not
 * even send the write. A store with no election has no fence (null), and its writes compare only the
 * document's version.
 */
record EtcdFence(ByteSequence key, long revision, Consumer<String> lost, BooleanSupplier leads) {

    /** The fence's revision while this agent takes part in an election it has not won. */
    static final long STANDING_BY = -1;

    /** The fence of an agent that takes part in the election of {@code key} and has not won it: it writes nothing. */
    static EtcdFence standingBy(ByteSequence key, Consumer<String> lost) {
        return new EtcdFence(key, STANDING_BY, lost, () -> false);
    }

    Cmp held() {
        return new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision));
    }

    /**
     * A transaction's comparisons: {@code unchanged}, and where this agent leads by an election, the
     * leader's key still its own. An agent that stands by writes nothing.
     */
    static Txn guarded(Txn txn, Cmp unchanged, EtcdFence f) throws StorageException {
        if (f != null && f.revision() == STANDING_BY) {
            throw new StorageException(
                    "this agent stands by (another leads the cluster, or none yet), so it writes nothing to the store",
                    null);
        }
        if (f != null && !f.leads().getAsBoolean()) {
            throw new StorageException(
                    "this agent's lease as the leader ran out (not renewed in time), so it writes nothing to the store",
                    null);
        }
        return f == null ? txn.If(unchanged) : txn.If(unchanged, f.held());
    }

    /** What a refused transaction reads back to tell a changed document from a lost election: the leader's key. */
    static Op[] leaderKey(EtcdFence f, Op... before) {
        Op[] ops = Arrays.copyOf(before, before.length + (f == null ? 0 : 1));
        if (f != null) {
            ops[before.length] =
                    Op.get(f.key(), GetOption.builder().withKeysOnly(true).build());
        }
        return ops;
    }

    /** A transaction refused because the leader's key is no longer the one this agent put: it does not lead, and says so. */
    static void refuseUnfenced(EtcdFence f, TxnResponse r, String what) throws StorageException {
        if (f == null) {
            return;
        }
        GetResponse leader = r.getGetResponses().get(r.getGetResponses().size() - 1);
        if (leader.getKvs().isEmpty() || leader.getKvs().get(0).getCreateRevision() != f.revision()) {
            String why = "the leader's key %s is no longer the one this agent's election put (revision %d)"
                    .formatted(f.key().toString(StandardCharsets.UTF_8), f.revision());
            f.lost().accept(why);
            throw new StorageException(
                    "cannot %s: this agent does not lead the cluster any more (%s), so it writes nothing"
                            .formatted(what, why),
                    null);
        }
    }
}
