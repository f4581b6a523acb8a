package io.slurmlet.agent.containers;

import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.model.plan.Artifact;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fetches a pinned file into a cache folder and hands it over only once its bytes have the size and
 * the digest the table pins: a source that sends a byte more than the size is cut there, one that
 * sends fewer is refused, each before the digest is computed; a file whose digest differs is deleted,
 * and the failure names both digests. A file already in the cache is checked again, not trusted.
 */
public interface Fetcher {

    /**
     * The most a machine takes of any file, whatever a plan pins: the bound of a file whose size the
     * plan does not pin (a table written before sizes, a leader older than them), and a sanity bound
     * for those it does. enroot's, pyxis's and nvidia-container-cli's files are a few MB.
     */
    long CEILING = 1L << 30;

    /** The file of {@code artifact}, its digest checked. */
    Path fetch(Artifact artifact) throws IOException;

    /**
     * The leader this machine follows, for the files it holds: the bytes it serves at a path of its
     * agents' channel ({@link ArtifactTable#LEADER_FILES}).
     */
    @FunctionalInterface
    interface FromLeader {
        InputStream open(String path, Duration timeout) throws IOException, InterruptedException;
    }

    /**
     * Into {@code cache} (root's, 0700), each file's pinned size and never more than {@code ceiling}
     * ({@link #CEILING} on a machine): a file the plan names on the leader's agents' channel from
     * whichever leader this machine follows ({@code leader}: the address in the plan is the one of the
     * leader that planned, which may have handed over since), any other over HTTP(S) from the mirror.
     */
    static Fetcher of(Path cache, long ceiling, Duration timeout, FromLeader leader) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        return artifact -> {
            AtomicFile.ensurePrivateDirectory(cache);
            Path file = cache.resolve(artifact.sha256() + "-" + artifact.file());
            if (Files.isRegularFile(file)
                    && (artifact.bytes() == null || Files.size(file) == artifact.bytes())
                    && sha256(file).equals(artifact.sha256())) {
                return file;
            }
            String path = URI.create(artifact.url()).getRawPath();
            boolean fromLeader = path.startsWith(ArtifactTable.LEADER_FILES);
            String from = fromLeader ? "the leader" : artifact.url();
            if (artifact.bytes() != null && artifact.bytes() > ceiling) {
                throw new IOException(
                        ("%s: the leader's plan pins %d bytes, more than the %d this machine takes of any file: nothing "
                                        + "fetched (give the table the file's own size, as stat -c %%s prints it)")
                                .formatted(artifact.file(), artifact.bytes(), ceiling));
            }
            Path part = Files.createTempFile(cache, ".fetch-", ".part");
            try {
                copy(
                        fromLeader ? () -> leader.open(path, timeout) : () -> open(client, artifact, timeout),
                        artifact,
                        fromLeader,
                        part,
                        ceiling,
                        timeout);
                String got = sha256(part);
                if (!got.equals(artifact.sha256())) {
                    throw new IOException(
                            ("%s from %s has sha256 %s, and the leader's table pins %s: refused, nothing installed "
                                            + "(%s serves another file than the table names: put the right one there, or the table's digest "
                                            + "right)")
                                    .formatted(
                                            artifact.file(),
                                            from,
                                            got,
                                            artifact.sha256(),
                                            fromLeader ? "the leader" : "the mirror"));
                }
                Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return file;
            } finally {
                Files.deleteIfExists(part);
            }
        };
    }

    /** Opens a file's bytes; a refusal or an unreachable source is an IOException that says so. */
    @FunctionalInterface
    interface Opener {
        InputStream open() throws IOException, InterruptedException;
    }

    /** The mirror's answer to a GET of the artifact's URL, within {@code timeout}. */
    private static InputStream open(HttpClient client, Artifact artifact, Duration timeout)
            throws IOException, InterruptedException {
        HttpResponse<InputStream> response;
        try {
            response = client.sendAsync(
                            HttpRequest.newBuilder(URI.create(artifact.url()))
                                    .timeout(timeout)
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofInputStream())
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException(
                    "%s did not answer within %d s: nothing installed".formatted(artifact.url(), timeout.toSeconds()),
                    e);
        } catch (ExecutionException e) {
            throw new IOException(
                    "cannot fetch %s (%s): nothing installed".formatted(artifact.url(), e.getCause()), e.getCause());
        }
        if (response.statusCode() != 200) {
            response.body().close();
            throw new IOException(
                    "%s answered HTTP %d: nothing installed".formatted(artifact.url(), response.statusCode()));
        }
        return response.body();
    }

    /**
     * The bytes {@code opener} gives into {@code part}, within {@code timeout} for the whole transfer
     * (not only the answer's headers: a source that stops sending mid-file must not hold the agent's
     * pass for ever; the stream is closed under the reader then), and exactly the size the artifact
     * pins: never a byte read past the first one over it (or over {@code ceiling} where it pins none).
     */
    private static void copy(
            Opener opener, Artifact artifact, boolean fromLeader, Path part, long ceiling, Duration timeout)
            throws IOException {
        String from = fromLeader ? "the leader" : artifact.url();
        String serves = fromLeader ? "the leader" : "the mirror";
        long most = artifact.bytes() == null ? ceiling : artifact.bytes();
        long deadline = System.nanoTime() + timeout.toNanos();
        InputStream in;
        try {
            in = opener.open();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while fetching from " + from, e);
        }
        AtomicBoolean late = new AtomicBoolean();
        Timer watchdog = new Timer("slurmlet-fetch-deadline", true);
        watchdog.schedule(
                new TimerTask() {
                    @Override
                    public void run() {
                        late.set(true);
                        try {
                            in.close();
                        } catch (IOException e) {
                            // closing is all that is asked: the reader sees the stream end
                        }
                    }
                },
                Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        try (in;
                OutputStream out = Files.newOutputStream(part)) {
            byte[] buffer = new byte[64 * 1024];
            long total = 0;
            // Never asked for more than one byte past the most taken: a source that sends on is read no further.
            for (int n; (n = in.read(buffer, 0, (int) Math.min(buffer.length, most + 1 - total))) > 0; ) {
                total += n;
                if (total > most) {
                    throw new IOException(
                            artifact.bytes() == null
                                    ? "%s sends over %d bytes, more than this machine takes of any file: nothing installed"
                                            .formatted(from, most)
                                    : ("%s from %s sends more than the %d bytes the leader's table pins: cut at byte %d, refused, nothing "
                                                    + "installed (%s serves another file than the table names: put the right one there, or the table's "
                                                    + "bytes right)")
                                            .formatted(artifact.file(), from, most, total, serves));
                }
                out.write(buffer, 0, n);
            }
            if (artifact.bytes() != null && total < most && !late.get()) {
                throw new IOException(
                        ("%s from %s is %d bytes, and the leader's table pins %d: refused, nothing installed (%s serves "
                                        + "another file than the table names, or sent it short: put the right one there, or the table's bytes right)")
                                .formatted(artifact.file(), from, total, most, serves));
            }
        } catch (IOException e) {
            if (late.get()) {
                throw new IOException(
                        "%s did not send the file within %d s: nothing installed".formatted(from, timeout.toSeconds()),
                        e);
            }
            throw e;
        } finally {
            watchdog.cancel();
        }
        if (late.get()) {
            throw new IOException(
                    "%s did not send the file within %d s: nothing installed".formatted(from, timeout.toSeconds()));
        }
    }

    static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
