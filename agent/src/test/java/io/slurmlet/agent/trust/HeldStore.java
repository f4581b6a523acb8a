package io.slurmlet.agent.trust;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.store.StorageException;
import io.slurmlet.agent.store.Store;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A store whose writes (puts and deletes) of one key can be held, as a slow etcd holds them: the
 * writer waits inside the store until the test lets it go. Everything else goes to the store it wraps.
 */
final class HeldStore implements Store {

    /** How long a held write waits at most, so that a failing test cannot hang the build. */
    private static final Duration LONGEST_HOLD = Duration.ofSeconds(60);

    private final Store store;
    private volatile Hold hold;

    HeldStore(Store store) {
        this.store = store;
    }

    /** A write of {@code key} held from now until {@link Hold#close}. */
    final class Hold implements AutoCloseable {
        private final String key;
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        private Hold(String key) {
            this.key = key;
        }

        /** Waits until a writer is inside the store, holding whatever locks it took before writing. */
        void awaitWriter() throws InterruptedException {
            assertTrue(entered.await(10, TimeUnit.SECONDS), "no write of " + key + " reached the store");
        }

        /** Lets the held write go on. */
        @Override
        public void close() {
            hold = null;
            released.countDown();
        }

        private void held(String written) {
            if (!written.equals(key)) {
                return;
            }
            entered.countDown();
            try {
                released.await(LONGEST_HOLD.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    Hold hold(String key) {
        Hold h = new Hold(key);
        hold = h;
        return h;
    }

    private void maybeHeld(String key) {
        Hold h = hold;
        if (h != null) {
            h.held(key);
        }
    }

    @Override
    public Optional<Versioned> get(String key) throws StorageException {
        return store.get(key);
    }

    @Override
    public OptionalLong put(String key, byte[] value, long expected) throws StorageException {
        maybeHeld(key);
        return store.put(key, value, expected);
    }

    @Override
    public Map<String, Versioned> list(String folder) throws StorageException {
        return store.list(folder);
    }

    @Override
    public boolean delete(String key, long expected) throws StorageException {
        maybeHeld(key);
        return store.delete(key, expected);
    }

    @Override
    public Runnable watch(Consumer<String> listener) {
        return store.watch(listener);
    }

    @Override
    public String where(String key) {
        return store.where(key);
    }
}
