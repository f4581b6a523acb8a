package io.slurmlet.ctl;

import java.io.FileNotFoundException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/** Says in a few words why an I/O operation failed, from the exception and its causes. */
final class IoErrors {

    private IoErrors() {}

    static String describe(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
            if (t instanceof NoSuchFileException || t instanceof FileNotFoundException || m.contains("no such file")) {
                return "no such file";
            }
            if (t instanceof AccessDeniedException || m.contains("permission denied")) {
                return "permission denied";
            }
            if (m.contains("connection refused")) {
                return "connection refused";
            }
            if (t instanceof UnknownHostException) {
                return "unknown host";
            }
            if (t instanceof NoRouteToHostException || m.contains("no route to host")) {
                return "no route to host";
            }
            if (m.contains("network is unreachable")) {
                return "network is unreachable";
            }
            if (m.contains("connection reset")) {
                return "the connection was reset";
            }
            if (t instanceof SSLException) {
                return "TLS failed: " + tls(t);
            }
            if (t.getClass().getName().equals("io.netty.channel.ConnectTimeoutException")) {
                return "no connection within the time allowed";
            }
            if (t instanceof TimeoutException) {
                return "no answer within the time allowed";
            }
            if (t.getClass().getName().equals("io.vertx.core.http.HttpClosedException")) {
                return "the connection closed before an answer came (is it slurmlet's leader? does it take "
                        + "https:// rather than http://, or the other way round?)";
            }
            if (t instanceof ConnectException && t.getCause() == null) {
                return t.getMessage() == null ? "cannot connect" : t.getMessage();
            }
        }
        String m = error.getMessage();
        return m == null || m.isBlank() ? error.getClass().getSimpleName() : m;
    }

    /** The innermost TLS failure, which says what went wrong (the outer ones only that it did). */
    private static String tls(Throwable error) {
        Throwable inner = error;
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SSLException
                    || t.getClass().getName().startsWith("java.security.cert")
                    || t.getClass().getName().startsWith("sun.security")) {
                inner = t;
            }
        }
        String m = inner.getMessage() == null ? inner.getClass().getSimpleName() : inner.getMessage();
        if (m.startsWith("not an SSL/TLS record")) {
            return "the other side does not speak TLS (does it take http:// rather than https://?)";
        }
        if (m.contains("unable to find valid certification path")) {
            return "this machine does not trust the leader's certificate (add its CA to Java's trust store)";
        }
        return m.length() > 200 ? m.substring(0, 200) + "…" : m;
    }
}
