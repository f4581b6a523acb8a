package io.slurmlet.agent.store;

import org.jboss.logging.Logger;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * A store's watchers, and the one thread that hands them each change's key in the order the store
 * tells them: a slow watcher delays other watchers, never a writer. A watcher hears the changes told
 * after it began watching, and none told after its watch ended.
 */
final class Watchers {

    private static final Logger LOG = Logger.getLogger(Watchers.class);

    private final List<Consumer<String>> watchers = new CopyOnWriteArrayList<>();
    private final ExecutorService delivery = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "slurmlet-store-watch");
        t.setDaemon(true);
        return t;
    });

    /** Adds {@code listener}; returns what ends its watch. */
    Runnable add(Consumer<String> listener) {
        watchers.add(listener);
        return () -> watchers.remove(listener);
    }

    /** Hands {@code key} to the watchers there are now, after every key told before it. */
    void tell(String key) {
        List<Consumer<String>> now = List.copyOf(watchers);
        delivery.execute(() -> {
            for (Consumer<String> w : now) {
                try {
                    w.accept(key);
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
