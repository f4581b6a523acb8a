package io.slurmlet.agent.system;

import java.util.List;

/** The machine's package manager: which of some packages are missing, and installing them. */
public interface Packages {

    /** The packages of {@code names} that are not installed, in the order given. */
    List<String> missing(List<String> names) throws SystemException;

    /** Installs {@code names} (and what they need), without asking. */
    void install(List<String> names) throws SystemException;
}
