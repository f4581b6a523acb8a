package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeaderAddressTest {

    @ParameterizedTest
    @CsvSource({
        "http://head1:7817,         http://head1:7817",
        "http://head1,              http://head1:7817",
        "http://head1:7817/,        http://head1:7817",
        "HTTPS://head1.example:443, https://head1.example:443",
        "http://[::1]:9000,         http://[::1]:9000",
        "unix:/run/slurmlet/leader.sock,   unix:/run/slurmlet/leader.sock",
        "unix:///run/slurmlet/leader.sock, unix:/run/slurmlet/leader.sock",
    })
    void readsWhatPeopleType(String typed, String shown) {
        assertEquals(shown, LeaderAddress.parse(typed).toString());
    }

    @Test
    void tellsTcpFromTheSocket() {
        LeaderAddress tcp = LeaderAddress.parse("https://10.0.0.1:7817");
        assertFalse(tcp.isSocket());
        assertEquals(LeaderAddress.Scheme.HTTPS, tcp.scheme());
        assertEquals("10.0.0.1", tcp.host());
        assertEquals(7817, tcp.port());
        LeaderAddress unix = LeaderAddress.parse("unix:/tmp/x.sock");
        assertTrue(unix.isSocket());
        assertEquals(Path.of("/tmp/x.sock"), unix.socket());
        assertEquals("::1", LeaderAddress.parse("http://[::1]").host());
    }

    @Test
    void aBareHostIsRefusedWithTheUrlItMeant() {
        var e = assertThrows(IllegalArgumentException.class, () -> LeaderAddress.parse("head1:7817"));
        assertTrue(e.getMessage().contains("did you mean http://head1:7817?"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LeaderAddress.parse("head1"));
        assertTrue(e.getMessage().contains("did you mean http://head1:7817?"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "unix:run/leader.sock       | names no absolute socket path",
                "http://head1:7817/v1       | has more than a host and a port",
                "http://admin@head1:7817    | has more than a host and a port",
                "ftp://head1                | is not an address ctl takes",
                "http://                    | is not a URL",
                "http://:7817               | names no host",
            })
    void refusesWhatItCannotUseSayingWhy(String typed, String why) {
        var e = assertThrows(IllegalArgumentException.class, () -> LeaderAddress.parse(typed));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void anEmptyAddressIsRefused() {
        var e = assertThrows(IllegalArgumentException.class, () -> LeaderAddress.parse("  "));
        assertTrue(
                e.getMessage().contains("http://HOST:PORT, https://HOST:PORT or unix:/path/to.sock"), e.getMessage());
    }
}
