/**
 * Jobs in containers (enroot and pyxis) on a Slurm machine: {@link ArtifactTable}, the pinned
 * files and the mirror they come from; {@link Fetcher}, which hands a file over only once its size and
 * digest are the table's; {@link ContainersDiff}, the step's pure half (its actions in
 * {@link ContainersActions}, its files' texts in {@link ContainersTexts}); {@link ContainersStep},
 * which acts on it; and {@link ContainersPreview}, what a dry run says of it, from the step's report or
 * the machine's facts. The leader plans from the table, the node role runs the step. It uses reconcile
 * and system, and neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.containers;
