package io.slurmlet.agent.store;

import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.model.settings.TemporaryFiles;
import java.util.regex.Pattern;

/**
 * The keys of the leader's state, the same in every store: a document ({@code settings.json}) or a
 * member of a collection ({@code inventory/gpu001}). A key never names anything outside the state: no
 * path out of the state directory in the file store, no key outside slurmlet's prefix in etcd.
 */
final class Keys {

    static final Pattern DOCUMENT = Pattern.compile("[a-z][a-z0-9_-]*(\\.[a-z]+)?");
    static final Pattern FOLDER = Pattern.compile("[a-z][a-z0-9_-]*");
    /** A member of a collection: a node's name as Slurm takes it (letters, digits, _ . -, not starting with . or -). */
    static final Pattern MEMBER = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
    /** A member's temporary file ({@link AtomicFile}'s name: the target's, the mark, 12 hex digits), never a member. */
    static final Pattern LEFTOVER = Pattern.compile("(" + MEMBER.pattern() + ")" + TemporaryFiles.SUFFIX);

    private Keys() {}

    /** Whether {@code key} is a document's or a collection member's key. */
    static boolean valid(String key) {
        int slash = key.indexOf('/');
        return slash < 0
                ? DOCUMENT.matcher(key).matches()
                : FOLDER.matcher(key.substring(0, slash)).matches() && member(key.substring(slash + 1));
    }

    /** Whether {@code name} is a collection member's name (and not a temporary file's). */
    static boolean member(String name) {
        return MEMBER.matcher(name).matches() && !LEFTOVER.matcher(name).matches();
    }

    static String checked(String key) {
        if (!valid(key)) {
            throw new IllegalArgumentException("not a key of the leader's state: " + key);
        }
        return key;
    }

    static String checkedFolder(String folder) {
        if (!FOLDER.matcher(folder).matches()) {
            throw new IllegalArgumentException("not a collection of the leader's state: " + folder);
        }
        return folder;
    }
}
