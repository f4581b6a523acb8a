#!/bin/bash
# Builds dev/gpu-check/roots/<suite>.tar.xz: the smallest root that runs Debian's slurmd of a suite
# (slurmd, its whole plugin dir, hwloc's plugins, the ldd closure of all of them, dash as /bin/sh,
# a minimal /etc). Reads the cached full roots READ ONLY (through a read-only bind mount inside a
# private mount namespace). Run here, not on the device:  bash dev/gpu-check/build-roots.sh
set -Eeuo pipefail
trap 'echo "gpu-check/build-roots.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=/var/cache/slurmlet-test/roots
WORK=/tmp/gpucheck-build
DEBS=$WORK/debs
mkdir -p "$HERE/roots"

# suite  cached-root  extra-plugin-dir (from the contrib .deb, or -)
SUITES="bookworm:bookworm-0f17347b5f6a:$DEBS/x-22.05.8
trixie:trixie-f8b0dbb66823:$DEBS/x-24.11.5
forky:forky-e40e90421c58:-"

build_one() {
    suite=$1 src=$CACHE/$2 extra=$3
    ro=$WORK/ro-$suite out=$WORK/min-$suite
    rm -rf "$out"; mkdir -p "$ro" "$out"
    # Inside a private mount namespace: the cached root, read-only, with the contrib plugins on its /tmp.
    unshare -m --propagation private bash -eu -c '
        src=$1 ro=$2 extra=$3 out=$4
        mount --bind -o ro "$src" "$ro"
        mount -o remount,bind,ro "$ro"
        mount -t tmpfs tmpfs "$ro/tmp"
        mount -t proc proc "$ro/proc"
        mount --bind /dev "$ro/dev"
        if [ "$extra" != - ]; then mkdir -p "$ro/tmp/extra"; cp "$extra"/usr/lib/x86_64-linux-gnu/slurm-wlm/*.so "$ro/tmp/extra/"; fi
        cat > "$ro/tmp/closure.sh" <<"EOF"
set -u
P=/usr/lib/x86_64-linux-gnu/slurm-wlm
files="/usr/sbin/slurmd-wlm /usr/bin/dash $(ls $P/*.so) $(ls /usr/lib/x86_64-linux-gnu/hwloc/*.so 2>/dev/null) $(ls /tmp/extra/*.so 2>/dev/null)"
for f in $files; do
    case $f in /tmp/extra/*) ;; *) echo "FILE $f $(readlink -f $f)";; esac
    ldd $f 2>&1 | while read -r a b c rest; do
        case "$b $c" in
            "=> not"*) echo "MISSING $f $a" ;;
            "=> /"*) echo "LIB $c $(readlink -f $c)" ;;
        esac
        case $a in /*) echo "LIB $a $(readlink -f $a)" ;; esac
    done
done
EOF
        chroot "$ro" /bin/bash /tmp/closure.sh > "$out.list"
    ' _ "$src" "$ro" "$extra" "$out"
    rmdir "$ro" 2>/dev/null || true
    grep MISSING "$out.list" | sort -u | sed "s/^/  [$suite] /" || true
    cd "$out"
    mkdir -p usr/bin usr/sbin usr/lib/x86_64-linux-gnu usr/lib64 etc/slurm proc sys dev run tmp var/spool var/log root
    chmod 1777 tmp
    ln -s usr/bin bin; ln -s usr/sbin sbin; ln -s usr/lib lib; ln -s usr/lib64 lib64; ln -s /run var/run
    grep -E '^(FILE|LIB) ' "$out.list" | sort -u | while read -r kind path real; do
        mkdir -p "$out$(dirname "$real")"
        [ -e "$out$real" ] || cp -p "$src$real" "$out$real"
        # the name it was looked up by (as /lib/x86_64-linux-gnu/libc.so.6) where it differs from the file
        p=$(echo "$path" | sed -e 's#^/lib64/#/usr/lib64/#' -e 's#^/lib/#/usr/lib/#' -e 's#^/bin/#/usr/bin/#' -e 's#^/sbin/#/usr/sbin/#')
        if [ "$p" != "$real" ] && [ ! -e "$out$p" ] && [ ! -L "$out$p" ]; then
            mkdir -p "$out$(dirname "$p")"; ln -s "$real" "$out$p"
        fi
    done
    # the whole plugin dir (symlinks and all) and the contrib GPU plugin
    cp -a "$src/usr/lib/x86_64-linux-gnu/slurm-wlm/." usr/lib/x86_64-linux-gnu/slurm-wlm/
    if [ "$extra" != - ]; then cp -p "$extra"/usr/lib/x86_64-linux-gnu/slurm-wlm/*.so usr/lib/x86_64-linux-gnu/slurm-wlm/; fi
    # glibc's compatibility libraries: the host's NVIDIA driver libraries (libnvidia-ml, which the
    # contrib gpu/nvml plugin opens) still link libpthread.so.0 and libdl.so.2, and no ldd of
    # Slurm's own files names them (the device run of 2026-12-04 lacked them: nvml never loaded).
    for l in libpthread.so.0 libdl.so.2 librt.so.1 libm.so.6 libutil.so.1 libresolv.so.2; do
        [ -e "usr/lib/x86_64-linux-gnu/$l" ] || cp -pL "$src/usr/lib/x86_64-linux-gnu/$l" usr/lib/x86_64-linux-gnu/
    done
    ln -sf slurmd-wlm usr/sbin/slurmd
    ln -sf dash usr/bin/sh
    cat > etc/passwd <<EOF
root:x:0:0:root:/root:/bin/sh
slurm:x:64030:64030::/nonexistent:/usr/sbin/nologin
munge:x:64031:64031::/nonexistent:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
    cat > etc/group <<EOF
root:x:0:
slurm:x:64030:
munge:x:64031:
nogroup:x:65534:
EOF
    printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nservices: files\n' > etc/nsswitch.conf
    printf '127.0.0.1 localhost\n' > etc/hosts
    cp -p "$src/etc/os-release" etc/os-release 2>/dev/null || cp -p "$src/usr/lib/os-release" etc/os-release
    cp -p "$src/etc/debian_version" etc/
    awk '/^Package: slurmd$/{p=1} p&&/^Version/{print $2; exit}' "$src/var/lib/dpkg/status" > etc/slurm-version
    cd "$WORK"
    tar -C "$out" --numeric-owner -cf - . | xz -T2 -6 > "$HERE/roots/$suite.tar.xz"
    echo "$suite: $(du -sh "$out" | cut -f1) unpacked, $(du -h "$HERE/roots/$suite.tar.xz" | cut -f1) as tar.xz, slurmd $(cat "$out/etc/slurm-version")"
}

echo "$SUITES" | while IFS=: read -r s r e; do build_one "$s" "$r" "$e"; done
