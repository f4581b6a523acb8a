package io.slurmlet.systemtests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for the processes a test starts, taken below the kernel's ephemeral range: a port the
 * kernel hands out for port 0 is soon handed out again to some client's outgoing connection, and
 * the process started on it then fails with "address already in use". Below the range only a
 * listener can take it.
 */
final class LoopbackPorts {

    private LoopbackPorts() {}

    static int free() throws IOException {
        int[] ephemeral = ephemeralRange();
        int low = 10_000;
        int high = Math.max(low + 1_000, ephemeral[0]);
        for (int tries = 0; tries < 200; tries++) {
            int port = ThreadLocalRandom.current().nextInt(low, high);
            if (port >= ephemeral[0] && port <= ephemeral[1]) {
                continue;
            }
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // someone's; try another
            }
        }
        throw new IOException("no free loopback port in " + low + "-" + high + " after 200 tries");
    }

    private static int[] ephemeralRange() {
        try {
            String[] range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim()
                    .split("\\s+");
            return new int[] {Integer.parseInt(range[0]), Integer.parseInt(range[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32768, 60999};
        }
    }
}
