/**
 * The leader's REST API and its agents' channel: the admin resources under {@code /v1} that ctl
 * calls (settings, machines, nodes, lending, users, container files, join tokens, status), the admin
 * token's filter, the mappers that answer every error as JSON with a sentence to act on, and
 * {@link AgentChannel}, the TLS port where machines join, report their facts and long-poll their
 * plans. A standby hands every admin request to the agent that leads ({@link StandbyForwarder}). It is
 * the outermost package: it may use any other, and neither role nor any package they share may use
 * it (ArchitectureTest).
 */
package io.slurmlet.agent.api;
