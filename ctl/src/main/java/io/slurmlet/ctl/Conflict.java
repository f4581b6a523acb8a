package io.slurmlet.ctl;

import java.util.List;

/** The leader answered 409: the settings changed since ctl read them. */
public final class Conflict extends CtlException {

    private final Long currentRevision;

    Conflict(String message, Long currentRevision, String responseBody) {
        super(message, List.of(), responseBody, null);
        this.currentRevision = currentRevision;
    }

    /** The leader's revision now, when it said; null otherwise. */
    public Long currentRevision() {
        return currentRevision;
    }
}
