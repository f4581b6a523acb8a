/**
 * What a machine is: {@link FactsCollector} finds its CPUs, memory, GPUs, OS and Slurm version
 * through the ports ({@code slurmd -C}, {@code nvidia-smi}, {@code /proc}, {@code /sys},
 * {@code /etc/os-release}), each source with a deadline, a fallback and a parser of its own.
 * {@link FactsDiff} is the facts step's pure half: the facts the leader holds against the machine's
 * now; the step that reports them is the node role's. It uses system, reconcile and the slurm and
 * containers packages, and neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.facts;
