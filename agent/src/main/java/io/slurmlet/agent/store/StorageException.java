package io.slurmlet.agent.store;

import java.io.IOException;

/** The leader's state could not be read or written (a file, etcd): a change it held was not stored. */
public final class StorageException extends IOException {

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
