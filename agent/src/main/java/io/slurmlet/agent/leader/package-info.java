/**
 * The leader role: the state it keeps in the store (settings, inventory, accounts, container files,
 * the cluster's secrets), the reports agents post, and {@link PlanPublisher}, the one controller loop
 * that plans every machine again when anything it plans from changes and publishes the plans that
 * differ. {@link SettingsAdmission} holds the rules that refuse a change of the settings that would
 * hurt jobs, judged under the settings store's lock for a write and alike for a dry run.
 * {@link LeaderState} and {@link LeaderStartup} open that state, on the leader only; the
 * planner and the published plans are in {@code leader.plan}, lending in {@code leader.lending}. This
 * package and those below it use neither the REST API, nor the node role, nor any reconcile step:
 * a preview runs the steps' pure diffs only (ArchitectureTest).
 */
package io.slurmlet.agent.leader;
