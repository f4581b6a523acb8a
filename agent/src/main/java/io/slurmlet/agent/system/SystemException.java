package io.slurmlet.agent.system;

/** A machine refused what a step asked of it; the message names the command and what it printed. */
public class SystemException extends Exception {

    public SystemException(String message) {
        super(message);
    }

    public SystemException(String message, Throwable cause) {
        super(message, cause);
    }
}
