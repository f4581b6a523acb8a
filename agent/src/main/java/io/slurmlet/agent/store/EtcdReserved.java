package io.slurmlet.agent.store;

import static io.slurmlet.agent.store.EtcdFence.guarded;
import static io.slurmlet.agent.store.EtcdFence.leaderKey;
import static io.slurmlet.agent.store.EtcdFence.refuseUnfenced;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.slurmlet.agent.store.EtcdClient.Tried;
import io.slurmlet.agent.store.Store.Versioned;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The store's own keys beside the state in etcd ({@code _secrets}, say): a name starting with
 * {@code _}, which no watcher or listing of the state sees ({@link Keys}). They are read and written
 * as the documents are, a write compared with the mod revision read and fenced as every write is, and
 * {@link EtcdStore} offers them to the leader's secrets and to the move into etcd.
 */
final class EtcdReserved {

    private final EtcdClient etcd;

    EtcdReserved(EtcdClient etcd) {
        this.etcd = etcd;
    }

    Optional<byte[]> get(String name) throws StorageException {
        return versioned(name).map(Versioned::value);
    }

    Optional<Versioned> versioned(String name) throws StorageException {
        GetResponse r = etcd.await(() -> etcd.kv().get(etcd.bytes(reservedName(name))), "read " + etcd.where(name))
                .answer();
        return r.getKvs().stream()
                .findFirst()
                .map(v -> new Versioned(v.getValue().getBytes(), v.getModRevision()));
    }

    boolean replace(String name, long expected, byte[] value, EtcdFence f) throws StorageException {
        ByteSequence k = etcd.bytes(reservedName(name));
        Tried<TxnResponse> tried = etcd.await(
                () -> guarded(etcd.kv().txn(), new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(expected)), f)
                        .Then(Op.put(k, ByteSequence.from(value), PutOption.DEFAULT))
                        .Else(leaderKey(f, Op.get(k, GetOption.DEFAULT)))
                        .commit(),
                "write " + etcd.where(name));
        TxnResponse r = tried.answer();
        if (r.isSucceeded()) {
            return true;
        }
        refuseUnfenced(f, r, "write " + etcd.where(name));
        List<KeyValue> now = r.getGetResponses().get(0).getKvs();
        return tried.tries() > 1
                && !now.isEmpty()
                && Arrays.equals(now.get(0).getValue().getBytes(), value);
    }

    boolean create(String name, byte[] value, EtcdFence f) throws StorageException {
        ByteSequence k = etcd.bytes(reservedName(name));
        // Made again after a try that timed out: if that one put it, this one finds it there (read back by the caller).
        TxnResponse r = etcd.await(
                        () -> guarded(etcd.kv().txn(), EtcdDocuments.unchanged(k, Store.ABSENT), f)
                                .Then(Op.put(k, ByteSequence.from(value), PutOption.DEFAULT))
                                .Else(leaderKey(f))
                                .commit(),
                        "write " + etcd.where(name))
                .answer();
        if (!r.isSucceeded()) {
            refuseUnfenced(f, r, "write " + etcd.where(name));
        }
        return r.isSucceeded();
    }

    private static String reservedName(String name) {
        if (!name.matches("_[a-z]+")) {
            throw new IllegalArgumentException("not one of the store's own keys: " + name);
        }
        return name;
    }
}
