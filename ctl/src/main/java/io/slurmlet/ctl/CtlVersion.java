package io.slurmlet.ctl;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** {@code ctl --version}: the version Maven built, from {@code version.properties}. */
public final class CtlVersion implements CommandLine.IVersionProvider {

    private static final String VERSION = load();

    public static String version() {
        return VERSION;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"ctl " + VERSION};
    }

    private static String load() {
        try (InputStream in = CtlVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
