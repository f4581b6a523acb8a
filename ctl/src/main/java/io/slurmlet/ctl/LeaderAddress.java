package io.slurmlet.ctl;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Where the leader's REST API listens: {@code http://HOST:PORT}, {@code https://HOST:PORT} or its
 * unix domain socket, {@code unix:/run/slurmlet/leader.sock}. {@link #toString()} gives it back as
 * typed, and every message about the leader names it that way.
 *
 * @param scheme how to reach it
 * @param host   the host name or address (TCP only; an IPv6 address without brackets)
 * @param port   the TCP port (TCP only)
 * @param socket the socket's path (unix only)
 */
public record LeaderAddress(Scheme scheme, String host, int port, Path socket) {

    /** The leader agent's TCP port when an address names none. */
    public static final int DEFAULT_PORT = 7817;

    private static final String FORMS = "write http://HOST:PORT, https://HOST:PORT or unix:/path/to.sock";

    /** How ctl reaches the leader. */
    public enum Scheme {
        HTTP,
        HTTPS,
        UNIX
    }

    public static LeaderAddress unix(Path socket) {
        return new LeaderAddress(Scheme.UNIX, "", 0, socket);
    }

    /** Whether this is the leader's unix socket, over which no token is sent. */
    public boolean isSocket() {
        return scheme == Scheme.UNIX;
    }

    /**
     * Reads an address as a person types it.
     *
     * @throws IllegalArgumentException naming the value and the forms ctl takes
     */
    public static LeaderAddress parse(String text) {
        String t = text.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("the leader's address is empty: " + FORMS);
        }
        String lower = t.toLowerCase(Locale.ROOT);
        if (lower.startsWith("unix:")) {
            // unix:/run/x.sock, and the URI form unix:///run/x.sock that Docker users type.
            String path = t.substring("unix:".length());
            if (path.startsWith("//")) {
                path = path.substring(2);
            }
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException(
                        "'%s' names no absolute socket path: write unix:/run/slurmlet/leader.sock".formatted(t));
            }
            return unix(Path.of(path).normalize());
        }
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            return tcp(t);
        }
        if (t.matches("[A-Za-z0-9_.-]+(:[0-9]+)?")) {
            throw new IllegalArgumentException("'%s' is not an address ctl takes: %s; did you mean http://%s?"
                    .formatted(t, FORMS, t.contains(":") ? t : t + ":" + DEFAULT_PORT));
        }
        throw new IllegalArgumentException("'%s' is not an address ctl takes: %s".formatted(t, FORMS));
    }

    private static LeaderAddress tcp(String t) {
        URI uri;
        try {
            uri = new URI(t);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'%s' is not a URL: %s; %s".formatted(t, e.getReason(), FORMS));
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("'%s' names no host: %s".formatted(t, FORMS));
        }
        if (uri.getRawUserInfo() != null
                || uri.getRawQuery() != null
                || uri.getRawFragment() != null
                || !(uri.getRawPath() == null
                        || uri.getRawPath().isEmpty()
                        || uri.getRawPath().equals("/"))) {
            throw new IllegalArgumentException("'%s' has more than a host and a port: %s".formatted(t, FORMS));
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        Scheme scheme = uri.getScheme().equalsIgnoreCase("https") ? Scheme.HTTPS : Scheme.HTTP;
        return new LeaderAddress(scheme, host, uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(), null);
    }

    @Override
    public String toString() {
        if (isSocket()) {
            return "unix:" + socket;
        }
        String h = host.contains(":") ? "[" + host + "]" : host;
        return scheme.name().toLowerCase(Locale.ROOT) + "://" + h + ":" + port;
    }

    /** Lets picocli read {@code --leader}; a bad value is bad usage (exit 2). */
    public static final class Converter implements CommandLine.ITypeConverter<LeaderAddress> {
        @Override
        public LeaderAddress convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
