package io.slurmlet.agent.store;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The store's watchers and the one etcd watch of every key under the prefix they hear from, in
 * revision order, on a thread of the store's own ({@link Watchers}). A watch that lost its place (its
 * revision compacted away) starts again from now and tells them every key, so a typed view reads
 * everything again rather than miss a change. It keeps the revision of the last change the watchers
 * were handed and of the last one the store made, so that a watcher is not told of a change made
 * before it began.
 */
final class EtcdWatch {

    /** The store's log: an operator reads what the store said, whichever of its parts said it. */
    private static final Logger LOG = Logger.getLogger(EtcdStore.class);

    private final EtcdClient etcd;
    private final Watchers watchers = new Watchers();
    /** Guards the etcd watch and {@link #heard}. */
    private final Object watching = new Object();

    private Watch.Watcher watcher;
    /** The revision of the last change the watchers were handed; the next watch starts after it. */
    private long heard;
    /** The revision of the last change this store made; guarded by {@link #watching}. */
    private long written;

    private volatile boolean closed;

    /** @param heard etcd's revision when the store was opened; 0 where etcd did not answer then */
    EtcdWatch(EtcdClient etcd, long heard) {
        this.etcd = etcd;
        this.heard = heard;
    }

    /** Notes {@code revision} as a change this store made (a watch begun after it is not told of it). */
    void made(long revision) {
        synchronized (watching) {
            written = Math.max(written, revision);
        }
    }

    /** {@link Store#watch}: the etcd watch begins with the first watcher. */
    Runnable watch(Consumer<String> listener) {
        synchronized (watching) {
            // A change this store made before the watch began may reach etcd's watch after it: not told.
            Runnable end = watchers.add(listener, Math.max(heard, written));
            if (watcher == null && !closed) {
                if (heard == 0) { // opened while etcd did not answer: the watch starts from now
                    try {
                        heard = etcd.reach(etcd.timeout()).getHeader().getRevision();
                    } catch (StorageException e) {
                        throw new IllegalStateException(e.getMessage(), e);
                    }
                }
                startWatch(heard + 1);
            }
            return end;
        }
    }

    /** One etcd watch of every key under the prefix, from {@code revision}. */
    private void startWatch(long revision) {
        watcher = etcd.watches()
                .watch(
                        etcd.bytes(""),
                        WatchOption.builder()
                                .isPrefix(true)
                                .withRevision(revision)
                                .build(),
                        Watch.listener(this::heard, this::lost));
    }

    private void heard(WatchResponse response) {
        for (WatchEvent event : response.getEvents()) {
            // A put's or a delete's own revision (etcd sets a deleted key's mod revision to its deletion's).
            long revision = event.getKeyValue().getModRevision();
            String key = etcd.keyOf(event.getKeyValue());
            synchronized (watching) {
                heard = Math.max(heard, revision);
            }
            if (Keys.valid(key)) {
                watchers.tell(key, revision);
            }
        }
    }

    /**
     * The watch ended on an error jetcd does not resume from itself (its revision compacted away, or
     * the watch cancelled): a new one from now, and every key told once, as any might have changed.
     */
    private void lost(Throwable error) {
        if (closed) {
            return;
        }
        LOG.warnf(
                "the watch of etcd %s%s ended (%s): watching again, and every key read again",
                etcd.endpoints(), etcd.prefix(), error.getMessage());
        watchers.later(() -> {
            try {
                GetResponse keys = etcd.await(
                                () -> etcd.kv()
                                        .get(
                                                etcd.bytes(""),
                                                GetOption.builder()
                                                        .isPrefix(true)
                                                        .withKeysOnly(true)
                                                        .build()),
                                "list every key")
                        .answer();
                synchronized (watching) {
                    if (closed) {
                        return;
                    }
                    watcher.close();
                    heard = keys.getHeader().getRevision();
                    startWatch(heard + 1);
                }
                for (KeyValue v : keys.getKvs()) {
                    String key = etcd.keyOf(v);
                    if (Keys.valid(key)) {
                        watchers.tell(key);
                    }
                }
            } catch (StorageException e) {
                LOG.errorf(
                        "cannot watch etcd %s%s again: %s; trying again in 1 s",
                        etcd.endpoints(), etcd.prefix(), e.getMessage());
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException stop) {
                    return;
                }
                lost(e);
            }
        });
    }

    /** Ends the etcd watch, and the watchers' thread once it has handed on what it holds. */
    void close() {
        synchronized (watching) {
            closed = true;
            if (watcher != null) {
                watcher.close();
            }
        }
        watchers.close();
    }
}
