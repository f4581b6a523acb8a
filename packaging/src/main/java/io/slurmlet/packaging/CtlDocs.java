package io.slurmlet.packaging;

import io.slurmlet.ctl.CtlCommand;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * What the packages ship about ctl, made from its picocli model at build time so that it never
 * drifts from the commands: a man page (AsciiDoc, which asciidoctor turns into roff) per command
 * and subcommand, and the bash completion script.
 *
 * <p>Only the model is built: ctl's constructors take what Quarkus injects (Vert.x), which the
 * model does not need, so they get nulls here and nothing is started.
 */
public final class CtlDocs {

    private CtlDocs() {}

    /** {@code CtlDocs ADOC_DIR COMPLETION_FILE}. */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: CtlDocs ADOC_DIR COMPLETION_FILE");
        }
        CommandLine ctl = new CommandLine(CtlCommand.class, new ModelOnly());
        Path adoc = Path.of(args[0]);
        Files.createDirectories(adoc);
        int status = ManPageGenerator.generateManPage(adoc.toFile(), null, new boolean[0], true, ctl.getCommandSpec());
        if (status != 0) {
            throw new IllegalStateException("picocli's man page generator exited with " + status);
        }
        Path completion = Path.of(args[1]);
        Files.createDirectories(completion.getParent());
        // Sourced by bash-completion, never run: no #! line.
        String script = AutoComplete.bash("ctl", ctl).replaceFirst("\\A#![^\n]*\n", "");
        Files.writeString(completion, script, StandardCharsets.UTF_8);
    }

    /** Makes each command with its no-argument constructor, else its first one given nulls. */
    static final class ModelOnly implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            try {
                return CommandLine.defaultFactory().create(cls);
            } catch (Exception noDefault) {
                Constructor<?> c = cls.getDeclaredConstructors()[0];
                c.setAccessible(true);
                Object[] nulls = new Object[c.getParameterCount()];
                Class<?>[] types = c.getParameterTypes();
                for (int i = 0; i < types.length; i++) {
                    nulls[i] = types[i].isPrimitive() ? defaultOf(types[i]) : null;
                }
                return cls.cast(c.newInstance(nulls));
            }
        }

        private static Object defaultOf(Class<?> primitive) {
            return primitive == boolean.class ? false : primitive == char.class ? '\0' : (Object) 0;
        }
    }
}
