package io.slurmlet.ctl;

import java.util.List;

/**
 * The leader refused this one request and changed nothing: a 400 (its problems as details), or a
 * 404 for an account it does not have. A command that works through several accounts reports it
 * and goes on with the next; anything else (an unreachable leader, a wrong token) stops it.
 */
public final class Refused extends CtlException {

    Refused(String message, List<String> details, String responseBody) {
        super(message, details, responseBody, null);
    }
}
