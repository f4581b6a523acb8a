/**
 * The leader's durable state behind one interface, {@link Store}: documents by key, each written
 * with the version it was read at (compare-and-put), durable before the write returns and then told
 * to every watcher. {@link FileStore} keeps it as files in the state directory (one leader);
 * {@link EtcdStore} keeps it in etcd, where {@link EtcdElection} elects the leader and
 * {@link Leadership} says whether this agent may act as it. {@link Document} and {@link Folder} are
 * the documents and collections the leader keeps there; {@link StoreMove} moves a file store into
 * etcd, once. It uses config, system and trust's file names, and neither role nor the API
 * (ArchitectureTest).
 */
package io.slurmlet.agent.store;
