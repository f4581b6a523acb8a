package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * A file a plan wants on its machine, whole: its content, mode, owner and group, and whether it holds
 * a secret (a password in slurmdbd.conf): a secret's content is never shown in a preview, a log, an
 * outcome or an error.
 *
 * @param path    absolute, as {@code /etc/slurm/slurm.conf}
 * @param content the file's text
 * @param mode    octal, as {@code 0644}
 * @param owner   the user that owns it, by name
 * @param group   its group, by name
 * @param secret  whether its content must never be shown
 */
@JsonSerialize(using = ManagedFile.Json.class)
public record ManagedFile(
        @JsonProperty("path") String path,
        @JsonProperty("content") String content,
        @JsonProperty("mode") String mode,
        @JsonProperty("owner") String owner,
        @JsonProperty("group") String group,
        @JsonProperty("secret") boolean secret) {

    private static final Pattern MODE = Pattern.compile("0[0-7]{3}");
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_-]{0,31}");
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._+-]+)+");

    public ManagedFile {
        if (path == null
                || !PATH.matcher(path).matches()
                || path.contains("/../")
                || path.endsWith("/..")
                || path.contains("/./")) {
            throw new IllegalArgumentException("a managed file's path is absolute and plain, not " + path);
        }
        if (content == null) {
            throw new IllegalArgumentException(path + ": a managed file has content");
        }
        if (mode == null || !MODE.matcher(mode).matches()) {
            throw new IllegalArgumentException(path + ": a mode is octal, as 0644, not " + mode);
        }
        if (owner == null
                || !NAME.matcher(owner).matches()
                || group == null
                || !NAME.matcher(group).matches()) {
            throw new IllegalArgumentException(
                    path + ": an owner and a group are user and group names, not " + owner + ":" + group);
        }
    }

    /** A configuration file anyone may read, owned by root: what Slurm's own files are. */
    public static ManagedFile config(String path, String content) {
        return new ManagedFile(path, content, "0644", "root", "root", false);
    }

    /** The mode as {@code ls -l} spells its permissions, as {@code rw-r--r--}. */
    @JsonIgnore
    public String permissions() {
        StringBuilder s = new StringBuilder();
        for (int i = 1; i < 4; i++) {
            int bits = mode.charAt(i) - '0';
            s.append((bits & 4) != 0 ? 'r' : '-')
                    .append((bits & 2) != 0 ? 'w' : '-')
                    .append((bits & 1) != 0 ? 'x' : '-');
        }
        return s.toString();
    }

    /**
     * The JSON of a file, its fields in their order: the content of one that holds no secret is
     * written through {@link SharedText} (the same text in 10,000 plans is escaped once); a secret's is
     * never kept beyond its own writing.
     */
    static final class Json extends StdSerializer<ManagedFile> {
        public Json() {
            super(ManagedFile.class);
        }

        @Override
        public void serialize(ManagedFile f, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeStartObject();
            gen.writeStringField("path", f.path());
            gen.writeFieldName("content");
            if (f.secret()) {
                gen.writeString(f.content());
            } else {
                SharedText.write(gen, f.content());
            }
            gen.writeStringField("mode", f.mode());
            gen.writeStringField("owner", f.owner());
            gen.writeStringField("group", f.group());
            gen.writeBooleanField("secret", f.secret());
            gen.writeEndObject();
        }
    }

    @Override
    public String toString() {
        return "ManagedFile[%s %s %s:%s%s]"
                .formatted(path, mode, owner, group, secret ? " secret" : ", " + content.length() + " chars");
    }
}
