package io.slurmlet.agent;

import io.slurmlet.model.facts.NodeFacts;

/** Facts of the machines the tests plan and render for, to change what a test is about. */
public final class TestFacts {

    private TestFacts() {}

    /** A machine of 8 cores on one socket, one thread each, 32 000 MiB: the tests' usual one. */
    public static NodeFacts.Builder eightCores(String name) {
        return NodeFacts.builder(name)
                .cpus(8)
                .sockets(1)
                .coresPerSocket(8)
                .threadsPerCore(1)
                .memoryMiB(32_000);
    }

    /** A machine of 4 cores on one socket, two threads each (8 CPUs); its memory is the test's. */
    public static NodeFacts.Builder fourCoresTwoThreads(String name) {
        return NodeFacts.builder(name).cpus(8).sockets(1).coresPerSocket(4).threadsPerCore(2);
    }
}
