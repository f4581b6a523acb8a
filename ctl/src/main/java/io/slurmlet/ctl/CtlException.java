package io.slurmlet.ctl;

import java.util.List;

/**
 * A command that was refused or failed (exit 1): the message is for a person, one sentence that
 * says what happened and what to do; {@link #details()} are printed one per line under it (the
 * leader's problems with a refused change). Printed without a stack trace unless {@code -e}.
 */
public class CtlException extends RuntimeException {

    private final List<String> details;
    private final String responseBody;

    public CtlException(String message) {
        this(message, List.of(), null, null);
    }

    public CtlException(String message, Throwable cause) {
        this(message, List.of(), null, cause);
    }

    /**
     * @param details      lines printed under the message, each on its own
     * @param responseBody the leader's JSON answer, printed as is with {@code -o json}; null if none
     */
    public CtlException(String message, List<String> details, String responseBody, Throwable cause) {
        super(message, cause);
        this.details = List.copyOf(details);
        this.responseBody = responseBody;
    }

    public List<String> details() {
        return details;
    }

    /** The leader's answer that this reports, for {@code -o json}; null when there was none. */
    public String responseBody() {
        return responseBody;
    }
}
