package io.slurmlet.agent.store;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * A store's watchers, and the one thread that hands them each change's key in the order the store
 * tells them: a slow watcher delays other watchers, never a writer. A watcher hears the changes told
 * after it began watching, and none told after its watch ended.
 */
final class Watchers {

    private static final Logger LOG = Logger.getLogger(Watchers.class);

    /** A listener and the revision of the last change made before it began: it hears only later ones. */
    private record Watcher(Consumer<String> listener, long after) {}

    private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
    private final ExecutorService delivery = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "slurmlet-store-watch");
        t.setDaemon(true);
        return t;
    });

    /** Adds {@code listener}; returns what ends its watch. */
    Runnable add(Consumer<String> listener) {
        return add(listener, Long.MIN_VALUE);
    }

    /**
     * Adds {@code listener}, to hear the changes of revisions above {@code after} (a store whose
     * changes reach it late, etcd's watch, may tell one made before the watch began).
     */
    Runnable add(Consumer<String> listener, long after) {
        Watcher w = new Watcher(listener, after);
        watchers.add(w);
        return () -> watchers.remove(w);
    }

    /** Hands {@code key} to the watchers there are now, after every key told before it. */
    void tell(String key) {
        tell(key, Long.MAX_VALUE);
    }

    /** {@link #tell(String)} for the change of {@code revision}: a watcher that began after it does not hear it. */
    void tell(String key, long revision) {
        List<Watcher> now = List.copyOf(watchers);
        delivery.execute(() -> {
            for (Watcher w : now) {
                if (revision <= w.after()) {
                    continue;
                }
                try {
                    w.listener().accept(key);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "a watcher of the leader's state failed on %s: %s", key, e.getMessage());
                }
            }
        });
    }

    /** Runs {@code task} on the watchers' thread, after every key told before it. */
    void later(Runnable task) {
        delivery.execute(task);
    }

    void close() {
        delivery.shutdown();
    }
}
