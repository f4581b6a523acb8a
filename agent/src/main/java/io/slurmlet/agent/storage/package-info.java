/**
 * The storage step: the cluster's shared storage on this machine as the plan says: the site's NFS
 * export mounted by a systemd mount unit, a node of the cluster exporting it to the others, or a path
 * the site mounts itself, which the step only checks. {@link StorageDiff} is its pure half, which the
 * leader's preview and lending run too; {@link StorageStep} observes and acts, and removes a mount no
 * longer wanted only once no job runs here. It uses reconcile, system and the local jobs from slurm,
 * and neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.storage;
