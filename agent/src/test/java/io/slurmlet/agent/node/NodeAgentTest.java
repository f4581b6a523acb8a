package io.slurmlet.agent.node;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

class NodeAgentTest {

    @Test
    void aPassWithAFailedStepIsTriedAgainSoonThenLessOftenUpToTheResync() {
        Duration resync = Duration.ofSeconds(60);
        assertEquals(resync, NodeAgent.nextPassIn(0, resync));
        assertEquals(Duration.ofSeconds(5), NodeAgent.nextPassIn(1, resync));
        assertEquals(Duration.ofSeconds(10), NodeAgent.nextPassIn(2, resync));
        assertEquals(Duration.ofSeconds(40), NodeAgent.nextPassIn(4, resync));
        assertEquals(resync, NodeAgent.nextPassIn(5, resync));
        assertEquals(resync, NodeAgent.nextPassIn(50, resync));
    }
}
