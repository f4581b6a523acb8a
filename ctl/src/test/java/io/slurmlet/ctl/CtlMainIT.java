package io.slurmlet.ctl;

import io.quarkus.test.junit.main.QuarkusMainIntegrationTest;

/** The checks of {@link CtlMainTest}, run against the packaged program (java -jar quarkus-run.jar). */
@QuarkusMainIntegrationTest
class CtlMainIT extends CtlMainTest {}
