package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.AtomicFile;
import io.slurmlet.agent.system.Files;
import java.io.IOException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.Optional;

/**
 * {@link Files} on this machine: atomic writes through {@link AtomicFile}, with the owner and group
 * set on the temporary file before it is renamed into place, so the file never exists with the
 * wrong owner or mode.
 */
public final class LinuxFiles implements Files {

    @Override
    public Optional<Stat> stat(Path path) throws IOException {
        try {
            PosixFileAttributes a =
                    java.nio.file.Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            byte[] content = java.nio.file.Files.readAllBytes(path);
            return Optional.of(new Stat(
                    content,
                    PosixFilePermissions.toString(a.permissions()),
                    a.owner().getName(),
                    a.group().getName()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public void write(Path path, byte[] content, String mode, String owner, String group) throws IOException {
        UserPrincipalLookupService users = path.getFileSystem().getUserPrincipalLookupService();
        var user = users.lookupPrincipalByName(owner);
        GroupPrincipal grp = users.lookupPrincipalByGroupName(group);
        java.nio.file.Files.createDirectories(path.toAbsolutePath().getParent());
        AtomicFile.write(path, content, PosixFilePermissions.fromString(mode), temp -> {
            PosixFileAttributeView view = java.nio.file.Files.getFileAttributeView(temp, PosixFileAttributeView.class);
            view.setOwner(user);
            view.setGroup(grp);
        });
    }

    @Override
    public void delete(Path path) throws IOException {
        if (java.nio.file.Files.deleteIfExists(path)) {
            AtomicFile.syncDirectory(path.toAbsolutePath().getParent());
        }
    }
}
