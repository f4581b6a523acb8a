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
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.slurmlet.agent.store.EtcdClient.Tried;
import io.slurmlet.agent.store.Store.Versioned;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * The state's documents in etcd, as {@link EtcdStore} reads and writes them: a document's version
 * its key's mod revision, a write a transaction that compares it with the one it was read at (a key
 * that held nothing: its create revision 0) and, with a fence, the leader's key ({@link EtcdFence}).
 * A collection is listed by its key prefix in pages, all read at one revision. Each change made is
 * told to {@code made}, so that a watch begun after it is not told of it.
 */
final class EtcdDocuments {

    /** Members read in one request of a listing: 10,000 machines' facts are not one message. */
    static final int PAGE = 500;

    private final EtcdClient etcd;
    private final LongConsumer made;

    EtcdDocuments(EtcdClient etcd, LongConsumer made) {
        this.etcd = etcd;
        this.made = made;
    }

    Optional<Versioned> get(String key) throws StorageException {
        GetResponse r = etcd.await(() -> etcd.kv().get(etcd.bytes(Keys.checked(key))), "read " + etcd.where(key))
                .answer();
        return r.getKvs().stream()
                .findFirst()
                .map(v -> new Versioned(v.getValue().getBytes(), v.getModRevision()));
    }

    OptionalLong put(String key, byte[] value, long expected, EtcdFence f) throws StorageException {
        ByteSequence k = etcd.bytes(Keys.checked(key));
        Tried<TxnResponse> tried = etcd.await(
                () -> guarded(etcd.kv().txn(), unchanged(k, expected), f)
                        .Then(Op.put(k, ByteSequence.from(value), PutOption.DEFAULT))
                        .Else(leaderKey(f, Op.get(k, GetOption.DEFAULT)))
                        .commit(),
                "write " + etcd.where(key));
        TxnResponse r = tried.answer();
        if (!r.isSucceeded()) {
            refuseUnfenced(f, r, "write " + etcd.where(key));
            // A try that timed out may have been made all the same, and this one then found the key changed: by it.
            List<KeyValue> now = r.getGetResponses().get(0).getKvs();
            if (tried.tries() > 1
                    && !now.isEmpty()
                    && Arrays.equals(now.get(0).getValue().getBytes(), value)
                    && now.get(0).getModRevision() > expected) {
                return made(now.get(0).getModRevision());
            }
        }
        // The transaction's revision is the one its put made: the key's mod revision from now on.
        return r.isSucceeded() ? made(r.getHeader().getRevision()) : OptionalLong.empty();
    }

    boolean delete(String key, long expected, EtcdFence f) throws StorageException {
        ByteSequence k = etcd.bytes(Keys.checked(key));
        // Made again after a try that timed out: if that one removed it, this one finds nothing, as below.
        TxnResponse r = etcd.await(
                        () -> guarded(etcd.kv().txn(), unchanged(k, expected), f)
                                .Then(Op.delete(k, DeleteOption.DEFAULT))
                                .Else(leaderKey(f, Op.get(k, GetOption.DEFAULT)))
                                .commit(),
                        "remove " + etcd.where(key))
                .answer();
        if (!r.isSucceeded()) {
            refuseUnfenced(f, r, "remove " + etcd.where(key));
        }
        if (r.isSucceeded()) {
            made(r.getHeader().getRevision());
        }
        // Not removed: true still when there was nothing to remove, as the file store says.
        return r.isSucceeded() || r.getGetResponses().get(0).getKvs().isEmpty();
    }

    /** The key still at the version read: its mod revision, or for a key that held nothing no create revision. */
    static Cmp unchanged(ByteSequence key, long expected) {
        return expected == Store.ABSENT
                ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(expected));
    }

    Map<String, Versioned> list(String folder) throws StorageException {
        String start = Keys.checkedFolder(folder) + "/";
        // The keys after "folder/" and before "folder0" ('0' follows '/'): the collection's members, no other folder's.
        ByteSequence end = etcd.bytes(folder + "0");
        Map<String, Versioned> members = new TreeMap<>();
        long revision = 0;
        ByteSequence from = etcd.bytes(start);
        while (true) {
            GetOption.Builder page = GetOption.builder()
                    .withRange(end)
                    .withLimit(PAGE)
                    .withSortField(GetOption.SortTarget.KEY)
                    .withSortOrder(GetOption.SortOrder.ASCEND);
            if (revision != 0) {
                page.withRevision(revision); // every page of one listing read at the first page's revision
            }
            ByteSequence pageFrom = from;
            GetResponse r = etcd.await(() -> etcd.kv().get(pageFrom, page.build()), "list " + etcd.where(folder))
                    .answer();
            if (revision == 0) {
                revision = r.getHeader().getRevision();
            }
            String last = null;
            for (KeyValue v : r.getKvs()) {
                last = etcd.keyOf(v);
                if (Keys.member(last.substring(start.length()))) {
                    members.put(last, new Versioned(v.getValue().getBytes(), v.getModRevision()));
                }
            }
            if (!r.isMore() || last == null) {
                return members;
            }
            from = etcd.bytes(last + "\0");
        }
    }

    /** Tells {@link #made} of {@code revision}, a change this store made; returns it. */
    private OptionalLong made(long revision) {
        made.accept(revision);
        return OptionalLong.of(revision);
    }
}
