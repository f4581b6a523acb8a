package io.slurmlet.agent.leader;

/**
 * The token a new machine's agent presents once, to be given its own credential. Made at the
 * leader's first start ({@code join.token} in the state directory, root-only).
 */
public record JoinToken(TokenFile file) {
}
