package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@link Services} through systemctl. Queries read systemctl's exit status (is-enabled and
 * is-active exit 0 only when so); changes fail with the command and what it printed.
 */
public final class SystemdServices implements Services {

    static final Duration QUERY = Duration.ofSeconds(10);
    /** A daemon's start can wait on its own start-up (slurmctld reading its state): give it time. */
    static final Duration CHANGE = Duration.ofSeconds(120);

    private final Commands commands;

    public SystemdServices(Commands commands) {
        this.commands = commands;
    }

    @Override
    public boolean isEnabled(String unit) throws SystemException {
        return commands.run(List.of("systemctl", "is-enabled", "--quiet", unit), QUERY).succeeded();
    }

    @Override
    public boolean isActive(String unit) throws SystemException {
        return commands.run(List.of("systemctl", "is-active", "--quiet", unit), QUERY).succeeded();
    }

    /** How {@code systemctl show --timestamp=us+utc} prints a time: {@code Tue 2026-12-01 15:54:01.123456 UTC}. */
    static final DateTimeFormatter US_UTC = DateTimeFormatter.ofPattern("EEE yyyy-MM-dd HH:mm:ss.SSSSSS 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    @Override
    public Optional<Instant> activeSince(String unit) throws SystemException {
        String shown = commands.runChecked(List.of("systemctl", "show", "--property=ActiveEnterTimestamp", "--timestamp=us+utc",
                "--value", unit), QUERY).stdout().strip();
        return parseTimestamp(unit, shown);
    }

    static Optional<Instant> parseTimestamp(String unit, String shown) throws SystemException {
        if (shown.isEmpty() || shown.equals("n/a")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.from(US_UTC.parse(shown)));
        } catch (DateTimeParseException e) {
            throw new SystemException("systemctl show %s printed ActiveEnterTimestamp %s, not a time as %s"
                    .formatted(unit, shown, "Tue 2026-12-01 15:54:01.123456 UTC"));
        }
    }

    @Override
    public void enable(String unit) throws SystemException {
        commands.runChecked(List.of("systemctl", "enable", unit), CHANGE);
    }

    @Override
    public void start(String unit) throws SystemException {
        commands.runChecked(List.of("systemctl", "start", unit), CHANGE);
    }

    @Override
    public void restart(String unit) throws SystemException {
        commands.runChecked(List.of("systemctl", "restart", unit), CHANGE);
    }

    @Override
    public void stop(String unit) throws SystemException {
        commands.runChecked(List.of("systemctl", "stop", unit), CHANGE);
    }

    @Override
    public void reload() throws SystemException {
        commands.runChecked(List.of("systemctl", "daemon-reload"), CHANGE);
    }
}
