#!/bin/bash
# One-shot GPU check for slurmlet's gres.conf / slurm.conf Gres= rules against Debian's real slurmd
# 22.05 (bookworm), 24.11 (trixie), 26.05 (forky), each in a chroot unpacked from dev/gpu-check/roots/.
# Run from the repo root:  OUT=/some/dir bash dev/gpu-check/run.sh   (needs root; everything it
# prints also goes to $OUT/gpu-check.txt). Never stops on one failure: each command shows its rc.
set -Eeuo pipefail
trap 'echo "gpu-check/run.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUITES="bookworm trixie forky"
BASE=/tmp/gpucheck            # the chroots: /tmp/gpucheck/<suite>
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${PATH:-}"
export LC_ALL=C

# ---------------------------------------------------------------- one suite, in its own mount namespace
if [ "${1:-}" = --suite ]; then
    suite=$2 R=$BASE/$2 T=$3
    . "$HERE/lib.sh"
    MOUNTS=()
    cleanup() { local i; for ((i=${#MOUNTS[@]}-1; i>=0; i--)); do umount -l "${MOUNTS[$i]}" 2>/dev/null; done; }
    trap cleanup EXIT
    for d in proc sys dev; do
        if [ "$d" = dev ] && [ "$FAKE" = 1 ]; then
            # rehearsal without a GPU: a /dev of its own with a fake nvidia0, so 22.05 does not wait for it
            mount -t tmpfs -o mode=755 gpucheck-dev "$R/dev" && MOUNTS+=("$R/dev")
            for n in null zero full random urandom tty; do touch "$R/dev/$n"; mount --bind "/dev/$n" "$R/dev/$n"; done
            touch "$R/dev/nvidia0" "$R/dev/nvidiactl"
            echo "(FAKE mode: $R/dev is a tmpfs with empty files nvidia0 and nvidiactl, not the machine's /dev)"
            continue
        fi
        if mount --rbind "/$d" "$R/$d"; then mount --make-rslave "$R/$d" 2>/dev/null; MOUNTS+=("$R/$d")
        else echo "!! mount --rbind /$d $R/$d failed"; fi
    done
    if [ "$FAKE" = 1 ]; then
        # rehearsal without a GPU: what the NVIDIA driver shows for one H200, on tmpfs over this namespace's view only
        if mount -t tmpfs gpucheck-proc-driver "$R/proc/driver" && mount -t tmpfs gpucheck-pci-drivers "$R/sys/bus/pci/drivers"; then
            mkdir -p "$R/proc/driver/nvidia/gpus/0000:18:00.0" "$R/sys/bus/pci/drivers/nvidia/0000:18:00.0"
            printf 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 0\nGPU UUID: \t GPU-00000000-0000-0000-0000-000000000000\nBus Location: \t 0000:18:00.0\nDevice Minor: \t 0\n' \
                > "$R/proc/driver/nvidia/gpus/0000:18:00.0/information"
            echo "0-$(( $(nproc) - 1 ))" > "$R/sys/bus/pci/drivers/nvidia/0000:18:00.0/local_cpulist"
            echo "(FAKE mode: tmpfs over the chroot's /proc/driver and /sys/bus/pci/drivers with one fake 'NVIDIA H200' at 0000:18:00.0, minor 0)"
        fi
    fi
    suite_checks "$suite" "$R" "$T"
    exit 0
fi

# ---------------------------------------------------------------- the whole check
if [ "$(id -u)" != 0 ]; then
    if sudo -n true 2>/dev/null; then exec sudo -n env OUT="${OUT:-}" bash "$0" "$@"; fi
    echo "!! not root and no passwordless sudo: the chroot part will fail"
fi
OUT=${OUT:-/tmp/gpucheck-out}
mkdir -p "$OUT"
REPORT=$OUT/gpu-check.txt
: > "$REPORT"
exec > >(tee -a "$REPORT") 2>&1
T0=$(date +%s)
. "$HERE/lib.sh"
TMPD=$(mktemp -d /tmp/gpucheck-tmp.XXXXXX)
export TMPD T0

sec "a. machine"
x 10 5 date -u
x 10 5 uname -a
x 10 30 cat /etc/os-release
x 10 5 nproc
x 10 5 id
x 10 40 bash -c 'ls -l /dev/nvidia* /dev/nvidia-caps 2>&1'
x 10 10 cat /proc/driver/nvidia/version
x 10 20 ls -l /proc/driver/nvidia/gpus/
for f in /proc/driver/nvidia/gpus/*/information; do [ -e "$f" ] && x 10 40 cat -A "$f"; done
x 10 5 cat /sys/module/nvidia/version
x 10 20 bash -c 'ls -ld /usr/local/nvidia /usr/local/nvidia/* 2>&1; findmnt -T /usr/local/nvidia 2>&1'
x 10 10 bash -c 'ldconfig -p | grep -iE "nvidia-ml|libcuda\.so"'
x 10 10 bash -c 'ls /sys/bus/pci/drivers/nvidia/ 2>&1; for d in /sys/bus/pci/drivers/nvidia/0000*; do echo "$d: local_cpulist=$(cat $d/local_cpulist 2>&1) numa_node=$(cat $d/numa_node 2>&1)"; done'
x 10 5 bash -c 'stat -fc %T /sys/fs/cgroup; command -v xz zstd gzip unshare chroot'

sec "b. nvidia-smi"
NVSMI=$(command -v nvidia-smi || true)
for c in /usr/local/nvidia/bin/nvidia-smi /usr/bin/nvidia-smi; do [ -z "$NVSMI" ] && [ -x "$c" ] && NVSMI=$c; done
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
    [ -d "$d" ] && case ":${LD_LIBRARY_PATH:-}:" in *":$d:"*) ;; *) export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d";; esac
done
echo "nvidia-smi: ${NVSMI:-(none found)}   LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
FAKE=0
if [ -n "$NVSMI" ]; then
    # exactly the agent's query (NvidiaSmi.QUERY), kept byte for byte
    echo "\$ $NVSMI --query-gpu=name --format=csv,noheader"
    timeout 30 "$NVSMI" --query-gpu=name --format=csv,noheader > "$TMPD/names" 2> "$TMPD/names.err"; QRC=$?
    cat "$TMPD/names" "$TMPD/names.err" | head -n 40; echo "[rc=$QRC]"
    x 10 30 bash -c "od -c '$TMPD/names' | head -n 20"
    x 30 40 "$NVSMI" --query-gpu=index,name,pci.bus_id,uuid,memory.total --format=csv
    x 30 60 bash -c "'$NVSMI' -q | grep -iE 'minor|product name|product brand|bus id|MIG mode|Persistence|Driver Version|CUDA Version|Addressing Mode|Fabric|Virtualization'"
    x 30 40 "$NVSMI" topo -m
    x 30 20 "$NVSMI" -L
    x 30 40 "$NVSMI"
else
    QRC=127
fi
# the agent's NvidiaSmi.read: status 0 and none of its failure sentences, else no GPUs
if [ "$QRC" = 0 ] && ! grep -qE 'NVIDIA-SMI has failed|No devices were found|Unable to determine the device handle' "$TMPD/names"; then
    cp "$TMPD/names" "$TMPD/gpus.csv"
else
    FAKE=1
    printf 'NVIDIA H200\n' > "$TMPD/gpus.csv"
    echo "!! NO USABLE nvidia-smi OUTPUT (rc=$QRC): configs below use a FAKE GPU list: 'NVIDIA H200' x1 (rehearsal mode)"
fi
parse_gpus "$TMPD/gpus.csv" > "$TMPD/gpus.tsv"   # model<TAB>count<TAB>slurmType, first-seen order
echo "GPUs as slurmlet counts them (model | count | slurmType):"
sed 's/\t/ | /g; s/^/  /' "$TMPD/gpus.tsv"

sec "c. container tooling"
x 5 5 bash -c 'command -v nvidia-container-cli enroot nvidia-ctk nvidia-container-runtime nvidia-container-toolkit docker podman'
if command -v nvidia-container-cli >/dev/null; then
    x 30 10 nvidia-container-cli --version
    x 30 60 nvidia-container-cli info
    x 30 80 nvidia-container-cli list
fi
command -v nvidia-ctk >/dev/null && x 30 10 nvidia-ctk --version
command -v enroot >/dev/null && x 30 10 enroot version
x 5 20 ls -la /etc/nvidia-container-runtime
x 5 20 bash -c 'cat /etc/nvidia-container-runtime/config.toml 2>&1 | grep -v "^#" | grep -v "^$"'
x 20 20 bash -c 'dpkg -l 2>/dev/null | grep -iE "nvidia|cuda" | cut -c1-150'

sec "d. Slurm versions in chroots (slurmlet's rules: $(cut -f3 "$TMPD/gpus.tsv" | tr '\n' ' '))"
NVML=${NVML_LIB:-$(find_nvml)}   # NVML_LIB: an override, for rehearsals
echo "host libnvidia-ml for the chroots: ${NVML:-(none found)}"
[ -n "$NVML" ] && ls -l "$NVML" "$(readlink -f "$NVML")"
HOST=$(uname -n | cut -d. -f1)
echo "node name (short hostname): $HOST"
export HOST FAKE NVML OUT
rm -f "$TMPD/summary"
for s in $SUITES; do
    echo; echo "======================================== $s"
    R=$BASE/$s
    if [ $(( $(date +%s) - T0 )) -gt 200 ]; then echo "SKIPPED: over 200 s already"; continue; fi
    rm -rf "$R"; mkdir -p "$R"
    if command -v xz >/dev/null; then x 120 10 tar -C "$R" -xJf "$HERE/roots/$s.tar.xz"
    else x 120 10 python3 -c 'import sys,tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$HERE/roots/$s.tar.xz" "$R"; fi
    echo "slurmd package: $(cat "$R/etc/slurm-version" 2>&1); GPU plugins: $(cd "$R/usr/lib/x86_64-linux-gnu/slurm-wlm" && ls gpu_*.so | tr '\n' ' ')"
    if [ -n "$NVML" ]; then
        cp -L "$NVML" "$R/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" && ln -sf libnvidia-ml.so.1 "$R/usr/lib/x86_64-linux-gnu/libnvidia-ml.so"
    fi
    printf '127.0.0.1 localhost %s\n' "$HOST" > "$R/etc/hosts"
    if command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
        unshare -m --propagation private bash "$HERE/run.sh" --suite "$s" "$TMPD"
    else
        echo "(no unshare -m here: mounting in this namespace, rslave, unmounted by the trap)"
        bash "$HERE/run.sh" --suite "$s" "$TMPD"
    fi
    echo "[$s done, $(( $(date +%s) - T0 )) s since start]"
done

sec "e. summary"
if [ "$FAKE" = 1 ]; then echo "!! FAKE GPU LIST (no nvidia-smi): the comparison below is a rehearsal, not a finding"; fi
echo "nvidia-smi names (exact, between |): $(sed 's/.*/|&|/' "$TMPD/gpus.csv" | tr '\n' ' ')"
echo "slurmlet expects: $(awk -F'\t' '{printf "gpu:%s:%s ", $3, $2}' "$TMPD/gpus.tsv")(total $(awk -F'\t' '{n+=$2} END{print n+0}' "$TMPD/gpus.tsv"))"
printf '%-9s %-22s %-4s %-45s %-6s %s\n' suite variant rc "types slurmd -G reports" count verdict
cat "$TMPD/summary" 2>/dev/null
echo "total time: $(( $(date +%s) - T0 )) s; report: $REPORT ($(wc -c < "$REPORT") bytes so far)"
rm -rf "$TMPD"
