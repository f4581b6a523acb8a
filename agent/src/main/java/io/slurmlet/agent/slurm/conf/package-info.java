/**
 * Slurm's files (slurm.conf, cgroup.conf, gres.conf, plugstack.conf) from the settings and the nodes'
 * facts, written for the controller's release: {@link SlurmConfig} picks the generator, from
 * {@link Slurm2205} up, each newer one overriding only what its release changed. Pure: no I/O, and
 * the same input gives the same bytes, so a render again is never taken for a change.
 * {@link NodeLines} gives alike machines one host-list line, {@link MemoryClasses} each class of
 * memory a hidden partition, {@link KnownKeys} and {@link PluginNames} refuse what the release or the
 * controller lacks, and {@link ConfText} writes no line Slurm would read as more than was meant. It
 * uses only Slurm's host lists and releases from the slurm package, and neither role nor the API
 * (ArchitectureTest).
 */
package io.slurmlet.agent.slurm.conf;
