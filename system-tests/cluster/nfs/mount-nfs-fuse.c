/*
 * mount-nfs-fuse: an NFSv3 client as a FUSE 3 filesystem on libnfs, for test nodes whose kernel has no
 * NFS client. Installed (bound read-only) as /sbin/mount.nfs inside a node, it makes
 * `mount -t nfs SERVER:/EXPORT DIR` and systemd mount units with Type=nfs work there; the data goes
 * over NFS to the server. Test infrastructure (system-tests/cluster/nfs), not product code.
 *
 *   mount.nfs SERVER:/EXPORT MOUNTPOINT [-o OPTIONS] [-fnsvrwh]
 *
 * The calling convention of a mount helper: mount(8) runs `/sbin/mount.nfs what where -o opts`.
 * It connects and mounts the export first (an unreachable server or export fails the mount, exit 32),
 * then mounts the FUSE filesystem and forks into the background: when it returns, the mount is in
 * /proc/mounts (type fuse.nfs, source SERVER:/EXPORT) and usable. `umount DIR` (root) or
 * `fusermount3 -u DIR` ends it; so does SIGTERM to the daemon (it unmounts first).
 *
 * Every request runs with the caller's uid, gid and (up to 16) supplementary groups as its AUTH_UNIX
 * credential, so a file a user writes carries that uid on the server, and the server checks
 * permissions as that user. The kernel checks them too (default_permissions); other users see the
 * mount (allow_other). NFSv3 only: libnfs's NFSv4 maps owners to names (nobody here).
 *
 * Options (-o, comma-separated): ro, rw, nosuid, suid, nodev, dev, noexec, exec, sync, async,
 * noatime, atime are passed to the kernel mount; vers=3 / nfsvers=3 (anything else fails);
 * timeo=N (tenths of a second a request may take before it fails with EIO; default 600) or hard
 * (wait forever); debug (stay in the foreground, FUSE and libnfs debug on stderr). Everything else
 * (defaults, _netdev, nofail, x-systemd.*, proto=tcp, ...) is ignored.
 * Flags: -f fake (do nothing), -v verbose, -r/-w read-only/read-write, -n and -s ignored, -h help.
 *
 * Semantics worth knowing: one NFS connection, requests served one at a time (libnfs 4 is not
 * thread-safe); attributes and names are cached by the kernel for 1 s, file data is dropped at each
 * open (close-to-open, as NFS); a write to a file opened O_APPEND goes to the server's current end;
 * close flushes (COMMIT) what was written. No locks (flock/fcntl stay local to the node).
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <getopt.h>
#include <limits.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/types.h>
#include <syslog.h>
#include <unistd.h>

#define PROG "mount.nfs (fuse)"
#define EX_USAGE_MOUNT 1  /* mount(8) helper exit codes */
#define EX_FAIL_MOUNT 32
#define MAX_AUX_GIDS 16   /* AUTH_UNIX's limit */

static struct nfs_context *nfs;
static char machine[65] = "localhost";
static int verbose;

/* The credential currently set on the context. */
static struct {
    int valid;
    uid_t uid;
    gid_t gid;
    int ngroups;
    gid_t groups[MAX_AUX_GIDS];
} cred;

struct handle {
    struct nfsfh *fh;
    int append;
    int dirty;
};

static void logmsg(int prio, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsyslog(prio, fmt, ap);
    va_end(ap);
}

/* libnfs returns -errno. A request that timed out or was cancelled comes back as -EINTR, an RPC
 * failure as -EFAULT: both are an I/O error to the caller (as on a soft NFS mount). */
static int err(int rc) {
    if (rc >= 0) return 0;
    if (rc < -4095 || rc == -EINTR || rc == -EFAULT) return -EIO;
    return rc;
}

/* Send the next requests as the process that made this FUSE request. */
static void as_caller(void) {
    struct fuse_context *c = fuse_get_context();
    gid_t groups[MAX_AUX_GIDS];
    int n = 0;

    if (c->uid != 0 || c->gid != 0) {
        gid_t all[NGROUPS_MAX];
        int k = fuse_getgroups(NGROUPS_MAX, all); /* from /proc/PID/task/TID/status */
        if (k > 0) {
            if (k > NGROUPS_MAX) k = NGROUPS_MAX;
            for (int i = 0; i < k && n < MAX_AUX_GIDS; i++)
                if (all[i] != c->gid) groups[n++] = all[i];
        }
    }
    if (cred.valid && cred.uid == c->uid && cred.gid == c->gid && cred.ngroups == n
        && memcmp(cred.groups, groups, n * sizeof(gid_t)) == 0)
        return;
    uint32_t g32[MAX_AUX_GIDS];
    for (int i = 0; i < n; i++) g32[i] = groups[i];
    struct AUTH *auth = libnfs_authunix_create(machine, c->uid, c->gid, n, g32);
    if (auth == NULL) {
        logmsg(LOG_ERR, "cannot make an AUTH_UNIX credential for uid %u", (unsigned) c->uid);
        cred.valid = 0;
        return;
    }
    nfs_set_auth(nfs, auth); /* frees the previous one */
    cred.valid = 1;
    cred.uid = c->uid;
    cred.gid = c->gid;
    cred.ngroups = n;
    memcpy(cred.groups, groups, n * sizeof(gid_t));
}

static void to_stat(const struct nfs_stat_64 *s, struct stat *st) {
    memset(st, 0, sizeof(*st));
    st->st_ino = s->nfs_ino;
    st->st_mode = s->nfs_mode;
    st->st_nlink = s->nfs_nlink;
    st->st_uid = s->nfs_uid;
    st->st_gid = s->nfs_gid;
    st->st_rdev = s->nfs_rdev;
    st->st_size = s->nfs_size;
    st->st_blksize = s->nfs_blksize;
    st->st_blocks = s->nfs_blocks;
    st->st_atim.tv_sec = s->nfs_atime;
    st->st_atim.tv_nsec = s->nfs_atime_nsec;
    st->st_mtim.tv_sec = s->nfs_mtime;
    st->st_mtim.tv_nsec = s->nfs_mtime_nsec;
    st->st_ctim.tv_sec = s->nfs_ctime;
    st->st_ctim.tv_nsec = s->nfs_ctime_nsec;
}

static struct handle *H(struct fuse_file_info *fi) { return (struct handle *) (uintptr_t) fi->fh; }

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    (void) conn;
    cfg->use_ino = 1;
    cfg->readdir_ino = 1;
    cfg->entry_timeout = 1.0;
    cfg->attr_timeout = 1.0;
    cfg->negative_timeout = 0;
    return NULL;
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    struct nfs_stat_64 s;
    int rc;
    as_caller();
    if (fi != NULL && H(fi) != NULL)
        rc = nfs_fstat64(nfs, H(fi)->fh, &s);
    else
        rc = nfs_lstat64(nfs, path, &s);
    if (rc < 0) return err(rc);
    to_stat(&s, st);
    return 0;
}

static int op_readlink(const char *path, char *buf, size_t size) {
    char *target = NULL;
    as_caller();
    int rc = nfs_readlink2(nfs, path, &target);
    if (rc < 0) return err(rc);
    snprintf(buf, size, "%s", target);
    free(target);
    return 0;
}

static int op_mknod(const char *path, mode_t mode, dev_t dev) {
    as_caller();
    if (S_ISREG(mode)) {
        struct nfsfh *fh;
        int rc = nfs_create(nfs, path, O_WRONLY | O_EXCL, mode & 07777, &fh);
        if (rc < 0) return err(rc);
        nfs_close(nfs, fh);
        return 0;
    }
    return err(nfs_mknod(nfs, path, mode, dev));
}

static int op_mkdir(const char *path, mode_t mode) {
    as_caller();
    return err(nfs_mkdir2(nfs, path, mode & 07777));
}

static int op_unlink(const char *path) {
    as_caller();
    return err(nfs_unlink(nfs, path));
}

static int op_rmdir(const char *path) {
    as_caller();
    return err(nfs_rmdir(nfs, path));
}

static int op_symlink(const char *target, const char *linkpath) {
    as_caller();
    return err(nfs_symlink(nfs, target, linkpath));
}

static int op_rename(const char *from, const char *to, unsigned int flags) {
    if (flags != 0) return -EINVAL; /* RENAME_NOREPLACE / RENAME_EXCHANGE: not in NFSv3 */
    as_caller();
    return err(nfs_rename(nfs, from, to));
}

static int op_link(const char *from, const char *to) {
    as_caller();
    return err(nfs_link(nfs, from, to));
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
    as_caller();
    if (fi != NULL && H(fi) != NULL) return err(nfs_fchmod(nfs, H(fi)->fh, mode & 07777));
    return err(nfs_lchmod(nfs, path, mode & 07777));
}

static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
    as_caller();
    /* (uid_t) -1 / (gid_t) -1: leave it (libnfs sends no value for -1) */
    if (fi != NULL && H(fi) != NULL) return err(nfs_fchown(nfs, H(fi)->fh, (int) uid, (int) gid));
    return err(nfs_lchown(nfs, path, (int) uid, (int) gid));
}

static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    as_caller();
    if (fi != NULL && H(fi) != NULL) {
        H(fi)->dirty = 1;
        return err(nfs_ftruncate(nfs, H(fi)->fh, size));
    }
    return err(nfs_truncate(nfs, path, size));
}

static int new_handle(struct fuse_file_info *fi, struct nfsfh *fh) {
    struct handle *h = calloc(1, sizeof(*h));
    if (h == NULL) {
        nfs_close(nfs, fh);
        return -ENOMEM;
    }
    h->fh = fh;
    h->append = (fi->flags & O_APPEND) != 0;
    fi->fh = (uint64_t) (uintptr_t) h;
    return 0;
}

static int open_flags(int flags) { return flags & (O_ACCMODE | O_TRUNC | O_SYNC | O_DSYNC); }

static int op_open(const char *path, struct fuse_file_info *fi) {
    struct nfsfh *fh;
    as_caller();
    int rc = nfs_open(nfs, path, open_flags(fi->flags), &fh);
    if (rc < 0) return err(rc);
    return new_handle(fi, fh);
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
    struct nfsfh *fh;
    as_caller();
    int rc = nfs_create(nfs, path, open_flags(fi->flags) | (fi->flags & O_EXCL), mode & 07777, &fh);
    if (rc < 0) return err(rc);
    return new_handle(fi, fh);
}

static int op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
    (void) path;
    struct handle *h = H(fi);
    uint64_t max = nfs_get_readmax(nfs);
    size_t done = 0;
    as_caller();
    if (max == 0) max = 65536;
    while (done < size) {
        size_t want = size - done < max ? size - done : max;
        int rc = nfs_pread(nfs, h->fh, off + done, want, buf + done);
        if (rc < 0) return done > 0 ? (int) done : err(rc);
        if (rc == 0) break; /* end of file */
        done += rc;
    }
    return (int) done;
}

static int op_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi) {
    (void) path;
    struct handle *h = H(fi);
    uint64_t max = nfs_get_writemax(nfs);
    size_t done = 0;
    as_caller();
    if (max == 0) max = 65536;
    if (h->append) {
        /* The kernel's idea of the end may be stale: another node may have appended. */
        struct nfs_stat_64 s;
        int rc = nfs_fstat64(nfs, h->fh, &s);
        if (rc < 0) return err(rc);
        off = (off_t) s.nfs_size;
    }
    h->dirty = 1;
    while (done < size) {
        size_t want = size - done < max ? size - done : max;
        int rc = nfs_pwrite(nfs, h->fh, off + done, want, (char *) buf + done);
        if (rc < 0) return done > 0 ? (int) done : err(rc);
        if (rc == 0) return done > 0 ? (int) done : -EIO;
        done += rc;
    }
    return (int) done;
}

static int op_statfs(const char *path, struct statvfs *sv) {
    struct nfs_statvfs_64 s;
    as_caller();
    int rc = nfs_statvfs64(nfs, path, &s);
    if (rc < 0) return err(rc);
    memset(sv, 0, sizeof(*sv));
    sv->f_bsize = s.f_bsize;
    sv->f_frsize = s.f_frsize ? s.f_frsize : s.f_bsize;
    sv->f_blocks = s.f_blocks;
    sv->f_bfree = s.f_bfree;
    sv->f_bavail = s.f_bavail;
    sv->f_files = s.f_files;
    sv->f_ffree = s.f_ffree;
    sv->f_favail = s.f_favail;
    sv->f_fsid = s.f_fsid;
    sv->f_namemax = s.f_namemax ? s.f_namemax : 255;
    return 0;
}

static int op_flush(const char *path, struct fuse_file_info *fi) {
    (void) path;
    struct handle *h = H(fi);
    if (h == NULL || !h->dirty) return 0;
    as_caller();
    h->dirty = 0;
    return err(nfs_fsync(nfs, h->fh));
}

static int op_release(const char *path, struct fuse_file_info *fi) {
    (void) path;
    struct handle *h = H(fi);
    if (h == NULL) return 0;
    nfs_close(nfs, h->fh);
    free(h);
    fi->fh = 0;
    return 0;
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void) path;
    (void) datasync;
    as_caller();
    H(fi)->dirty = 0;
    return err(nfs_fsync(nfs, H(fi)->fh));
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
    (void) off;
    (void) fi;
    (void) flags;
    struct nfsdir *dir;
    struct nfsdirent *e;
    int dot = 0, dotdot = 0;
    as_caller();
    int rc = nfs_opendir(nfs, path, &dir); /* the whole directory, with attributes */
    if (rc < 0) return err(rc);
    while ((e = nfs_readdir(nfs, dir)) != NULL) {
        struct stat st;
        memset(&st, 0, sizeof(st));
        st.st_ino = e->inode;
        switch (e->type) { /* only the type matters here (the kernel asks getattr for the rest) */
        case NF3REG: st.st_mode = S_IFREG; break;
        case NF3DIR: st.st_mode = S_IFDIR; break;
        case NF3BLK: st.st_mode = S_IFBLK; break;
        case NF3CHR: st.st_mode = S_IFCHR; break;
        case NF3LNK: st.st_mode = S_IFLNK; break;
        case NF3SOCK: st.st_mode = S_IFSOCK; break;
        case NF3FIFO: st.st_mode = S_IFIFO; break;
        default: st.st_mode = 0;
        }
        if (strcmp(e->name, ".") == 0) dot = 1;
        if (strcmp(e->name, "..") == 0) dotdot = 1;
        if (filler(buf, e->name, &st, 0, 0) != 0) break;
    }
    nfs_closedir(nfs, dir);
    if (!dot) filler(buf, ".", NULL, 0, 0);
    if (!dotdot) filler(buf, "..", NULL, 0, 0);
    return 0;
}

static int op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
    (void) fi;
    as_caller();
    if (tv == NULL || (tv[0].tv_nsec == UTIME_NOW && tv[1].tv_nsec == UTIME_NOW))
        return err(nfs_lutimes(nfs, path, NULL)); /* the server's time, as utimes(NULL) */
    struct timeval t[2];
    struct nfs_stat_64 s;
    int have_stat = 0;
    for (int i = 0; i < 2; i++) {
        if (tv[i].tv_nsec == UTIME_OMIT) {
            if (!have_stat) {
                int rc = nfs_lstat64(nfs, path, &s);
                if (rc < 0) return err(rc);
                have_stat = 1;
            }
            t[i].tv_sec = i == 0 ? s.nfs_atime : s.nfs_mtime;
            t[i].tv_usec = (i == 0 ? s.nfs_atime_nsec : s.nfs_mtime_nsec) / 1000;
        } else if (tv[i].tv_nsec == UTIME_NOW) {
            gettimeofday(&t[i], NULL);
        } else {
            t[i].tv_sec = tv[i].tv_sec;
            t[i].tv_usec = tv[i].tv_nsec / 1000;
        }
    }
    return err(nfs_lutimes(nfs, path, t));
}

static const struct fuse_operations ops = {
    .init = op_init,
    .getattr = op_getattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .chmod = op_chmod,
    .chown = op_chown,
    .truncate = op_truncate,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .statfs = op_statfs,
    .flush = op_flush,
    .release = op_release,
    .fsync = op_fsync,
    .readdir = op_readdir,
    .create = op_create,
    .utimens = op_utimens,
};

/* ------------------------------------------------------------------ arguments */

static void usage(FILE *f) {
    fprintf(f, "usage: mount.nfs SERVER:/EXPORT MOUNTPOINT [-o OPTIONS] [-fnsvrwh]\n"
               "  an NFSv3 client on FUSE and libnfs (test nodes without a kernel NFS client)\n"
               "  options: ro rw nosuid suid nodev dev noexec exec sync async noatime atime\n"
               "           vers=3 nfsvers=3 timeo=DECISECONDS hard debug; others are ignored\n");
}

static void append_opt(char *dst, size_t size, const char *opt) {
    size_t len = strlen(dst);
    snprintf(dst + len, size - len, "%s%s", len ? "," : "", opt);
}

int main(int argc, char **argv) {
    char kernel_opts[1024] = "";
    int fake = 0, debug = 0, readonly = 0, timeout_ms = 60000, c;
    static const char *pass[] = {"ro", "rw", "nosuid", "suid", "nodev", "dev", "noexec", "exec",
                                 "sync", "async", "noatime", "atime", NULL};

    openlog("mount.nfs-fuse", LOG_PID, LOG_DAEMON);
    while ((c = getopt(argc, argv, "o:fnsvrwhVt:N:")) != -1) {
        switch (c) {
        case 'o': {
            char *opts = strdup(optarg), *save = NULL;
            for (char *o = strtok_r(opts, ",", &save); o != NULL; o = strtok_r(NULL, ",", &save)) {
                int passed = 0;
                for (int i = 0; pass[i] != NULL; i++)
                    if (strcmp(o, pass[i]) == 0) {
                        append_opt(kernel_opts, sizeof(kernel_opts), o);
                        passed = 1;
                    }
                if (passed) {
                    if (strcmp(o, "ro") == 0) readonly = 1;
                    if (strcmp(o, "rw") == 0) readonly = 0;
                } else if (strncmp(o, "vers=", 5) == 0 || strncmp(o, "nfsvers=", 8) == 0) {
                    const char *v = strchr(o, '=') + 1;
                    if (strcmp(v, "3") != 0) {
                        fprintf(stderr, PROG ": only NFSv3 is supported (%s)\n", o);
                        return EX_USAGE_MOUNT;
                    }
                } else if (strncmp(o, "timeo=", 6) == 0) {
                    timeout_ms = atoi(o + 6) * 100;
                    if (timeout_ms <= 0) {
                        fprintf(stderr, PROG ": bad %s\n", o);
                        return EX_USAGE_MOUNT;
                    }
                } else if (strcmp(o, "hard") == 0) {
                    timeout_ms = 0;
                } else if (strcmp(o, "debug") == 0) {
                    debug = 1;
                } else if (verbose) {
                    fprintf(stderr, PROG ": ignoring option %s\n", o);
                }
            }
            free(opts);
            break;
        }
        case 'f': fake = 1; break;
        case 'v': verbose = 1; break;
        case 'r': readonly = 1; append_opt(kernel_opts, sizeof(kernel_opts), "ro"); break;
        case 'w': readonly = 0; append_opt(kernel_opts, sizeof(kernel_opts), "rw"); break;
        case 'n': case 's': case 't': break;
        case 'N':
            fprintf(stderr, PROG ": -N (namespaces) is not supported\n");
            return EX_USAGE_MOUNT;
        case 'h': usage(stdout); return 0;
        case 'V': printf("mount.nfs (fuse, libnfs, NFSv3)\n"); return 0;
        default: usage(stderr); return EX_USAGE_MOUNT;
        }
    }
    if (argc - optind != 2) {
        usage(stderr);
        return EX_USAGE_MOUNT;
    }
    const char *source = argv[optind];
    char mountpoint[PATH_MAX];
    if (realpath(argv[optind + 1], mountpoint) == NULL) {
        fprintf(stderr, PROG ": %s: %s\n", argv[optind + 1], strerror(errno));
        return EX_FAIL_MOUNT;
    }
    /* SERVER:/EXPORT, SERVER possibly [IPv6] */
    char server[256], export[PATH_MAX];
    const char *colon = source[0] == '[' ? strstr(source, "]:") : strchr(source, ':');
    if (colon != NULL && source[0] == '[') colon++;
    if (colon == NULL || colon[1] != '/' || colon == source
        || (size_t) (colon - source) >= sizeof(server) || strchr(source, ',') != NULL) {
        fprintf(stderr, PROG ": %s: not SERVER:/EXPORT\n", source);
        return EX_USAGE_MOUNT;
    }
    if (source[0] == '[')
        snprintf(server, sizeof(server), "%.*s", (int) (colon - source - 2), source + 1);
    else
        snprintf(server, sizeof(server), "%.*s", (int) (colon - source), source);
    snprintf(export, sizeof(export), "%s", colon + 1);
    if (fake) return 0;
    if (gethostname(machine, sizeof(machine) - 1) != 0) strcpy(machine, "localhost");

    nfs = nfs_init_context();
    if (nfs == NULL) {
        fprintf(stderr, PROG ": cannot make an NFS context\n");
        return EX_FAIL_MOUNT;
    }
    nfs_set_version(nfs, NFS_V3);
    nfs_set_dircache(nfs, 0); /* another node may change a directory at any time */
    nfs_umask(nfs, 0);        /* modes come from the kernel with the caller's umask applied */
    if (timeout_ms > 0) nfs_set_timeout(nfs, timeout_ms);
    if (debug) nfs_set_debug(nfs, 2);
    if (nfs_mount(nfs, server, export) != 0) {
        fprintf(stderr, PROG ": mounting %s:%s failed: %s\n", server, export, nfs_get_error(nfs));
        nfs_destroy_context(nfs);
        return EX_FAIL_MOUNT;
    }

    char fsname[PATH_MAX + 300], fuse_opts[PATH_MAX + 1500];
    snprintf(fsname, sizeof(fsname), "fsname=%s,subtype=nfs,allow_other,default_permissions", source);
    snprintf(fuse_opts, sizeof(fuse_opts), "%s%s%s", fsname, kernel_opts[0] ? "," : "", kernel_opts);
    char *fargv[] = {argv[0], "-o", fuse_opts, debug ? "-d" : NULL, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(debug ? 4 : 3, fargv);
    struct fuse *fuse = fuse_new(&args, &ops, sizeof(ops), NULL);
    if (fuse == NULL) {
        fprintf(stderr, PROG ": fuse_new failed (options %s)\n", fuse_opts);
        return EX_FAIL_MOUNT;
    }
    if (fuse_mount(fuse, mountpoint) != 0) {
        fprintf(stderr, PROG ": mounting FUSE on %s failed (is /dev/fuse there?)\n", mountpoint);
        fuse_destroy(fuse);
        return EX_FAIL_MOUNT;
    }
    if (verbose) fprintf(stderr, PROG ": %s mounted on %s%s\n", source, mountpoint, readonly ? " (ro)" : "");
    /* The parent returns (exit 0) once the child runs; the kernel holds requests until it serves. */
    if (fuse_daemonize(debug) != 0) {
        fuse_unmount(fuse);
        fuse_destroy(fuse);
        return EX_FAIL_MOUNT;
    }
    logmsg(LOG_INFO, "serving %s on %s", source, mountpoint);
    struct fuse_session *se = fuse_get_session(fuse);
    int rc = 0;
    if (fuse_set_signal_handlers(se) != 0) rc = 1;
    if (rc == 0) {
        rc = fuse_loop(fuse); /* single-threaded: one libnfs context */
        fuse_remove_signal_handlers(se);
    }
    fuse_unmount(fuse);
    fuse_destroy(fuse);
    nfs_destroy_context(nfs);
    logmsg(LOG_INFO, "%s on %s ended", source, mountpoint);
    return rc == 0 ? 0 : 1;
}
