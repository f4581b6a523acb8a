package io.slurmlet.ctl;

import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.settings.SlurmSettings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code ctl training-run} (hidden): what the launcher's training run of ctl does, so that its
 * start-up cache (class-data archive or AOT cache) holds the whole path of a command that asks the
 * leader, reply and JSON included, on a machine with no leader too: {@code ctl slurm show} against
 * a leader of its own, in this process, on a unix socket in a fresh folder. Prints what
 * {@code slurm show} prints; exits as it does.
 */
@Command(
        name = "training-run",
        hidden = true,
        description = "What the launcher's training run does: 'slurm show' against a stand-in leader of its own.")
public class TrainingRunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CtlCommand ctl = (CtlCommand) spec.root().userObject();
        Path dir = Files.createTempDirectory(
                "ctl-training-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path socket = dir.resolve("leader.sock");
        String document = Leader.JSON.writeValueAsString(new SettingsDocument(1, SlurmSettings.DEFAULTS));
        HttpServer server = ctl.vertx().createHttpServer().requestHandler(request -> {
            if (request.path().equals(Leader.SETTINGS)) {
                request.response()
                        .putHeader("Content-Type", "application/json")
                        .putHeader("ETag", "\"1\"")
                        .end(document);
            } else {
                request.response()
                        .setStatusCode(404)
                        .putHeader("Content-Type", "application/json")
                        .end("{\"error\":\"" + Leader.NO_SUCH_RESOURCE + "\"}");
            }
        });
        try {
            server.listen(SocketAddress.domainSocketAddress(socket.toString()))
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            return spec.root().commandLine().execute("slurm", "show", "--leader", "unix:" + socket);
        } finally {
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            Files.deleteIfExists(socket);
            Files.deleteIfExists(dir);
        }
    }
}
