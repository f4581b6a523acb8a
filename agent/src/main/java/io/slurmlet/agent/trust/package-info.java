/**
 * Who may talk to whom: the cluster's CA and the leader's certificate ({@link Pki}), a standby's own
 * credential ({@link StandbyCredential}), the join tokens
 * ({@link JoinTokens}), each joined machine's credential, of which only the sha256 is kept
 * ({@link AgentCredentials}), the admin token's file ({@link TokenFile}), where the agents' channel
 * listens ({@link LeaderChannel}), and the leader role as the rest of the agent sees it
 * ({@link LeaderRole}). Secrets are kept root-only and never logged. Both roles use it; it uses store
 * and system, and neither role nor the API (ArchitectureTest).
 */
package io.slurmlet.agent.trust;
