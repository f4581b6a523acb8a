package io.slurmlet.agent.store;

import java.io.IOException;

/** A leader's state file could not be written: the change it held was not stored. */
public final class StorageException extends IOException {

    public StorageException(String message, IOException cause) {
        super(message, cause);
    }
}
