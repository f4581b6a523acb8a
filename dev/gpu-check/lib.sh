# Functions of dev/gpu-check/run.sh (sourced).

sec() { echo; echo "################################ $* (t=$(( $(date +%s) - T0 ))s)"; }

# x TIMEOUT MAXLINES CMD...: show the command, its output (at most MAXLINES lines of 300 chars), rc and time.
x() {
    local t=$1 n=$2 s e rc lines f
    shift 2
    f=$(mktemp "$TMPD/x.XXXXXX")
    echo "\$ $*"
    s=$(date +%s%N)
    rc=0
    timeout -k 5 "$t" "$@" > "$f" 2>&1 < /dev/null || rc=$?
    e=$(( ($(date +%s%N) - s) / 1000000 ))
    head -n "$n" "$f" | cut -c1-300
    lines=$(wc -l < "$f")
    if [ "$lines" -gt "$n" ]; then echo "... ($lines lines, first $n shown)"; fi
    if [ "$rc" = 124 ]; then echo "!! TIMED OUT after $t s"; fi
    echo "[rc=$rc, ${e} ms]"
    LAST_OUT=$f LAST_RC=$rc
    return 0
}

# slurmlet's NodeFacts.Gpus.slurmType(): strip, lower case, runs outside [a-z0-9_.-] become "_".
slurm_type() {
    printf '%s' "$1" | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//' | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9_.-]+/_/g'
}

# slurmlet's NvidiaSmi.parse: one name a line, stripped, empty lines skipped, counted per model in
# first-seen order. Prints model<TAB>count<TAB>slurmType.
parse_gpus() {
    local line name i found
    local -a models=() counts=()
    while IFS= read -r line || [ -n "$line" ]; do
        name=$(printf '%s' "$line" | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//')
        [ -z "$name" ] && continue
        found=0
        for i in "${!models[@]}"; do
            if [ "${models[$i]}" = "$name" ]; then counts[$i]=$(( counts[$i] + 1 )); found=1; fi
        done
        [ $found = 0 ] && { models+=("$name"); counts+=(1); }
    done < "$1"
    for i in "${!models[@]}"; do
        printf '%s\t%s\t%s\n' "${models[$i]}" "${counts[$i]}" "$(slurm_type "${models[$i]}")"
    done
}

# The host's libnvidia-ml.so.1 (the driver's), or nothing.
find_nvml() {
    local c
    _nvml_ok() { [ -e "$1" ] && ! LC_ALL=C file -L "$1" 2>/dev/null | grep -q 'ELF 32'; }
    for c in $(ldconfig -p 2>/dev/null | awk '/libnvidia-ml\.so\.1 .*x86-64/ {print $NF}') \
             /usr/local/nvidia/lib64/libnvidia-ml.so.1 /usr/local/nvidia/lib/libnvidia-ml.so.1 \
             /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1 /lib/x86_64-linux-gnu/libnvidia-ml.so.1; do
        _nvml_ok "$c" && { echo "$c"; return; }
    done
    for c in $(timeout 20 find /usr/local/nvidia /usr/lib /usr/lib64 /opt -name 'libnvidia-ml.so.1' 2>/dev/null || true); do
        _nvml_ok "$c" && { echo "$c"; return; }
    done
    for c in $(timeout 20 find / -xdev -name 'libnvidia-ml.so*' 2>/dev/null | sort -r || true); do
        _nvml_ok "$c" && { echo "$c"; return; }
    done
}

# slurmlet's Slurm2205.deviceFiles(first, count)
device_files() { if [ "$2" = 1 ]; then echo "/dev/nvidia$1"; else echo "/dev/nvidia[$1-$(( $1 + $2 - 1 ))]"; fi; }

# write_confs ROOT DIR SUITE VARIANT: slurm.conf + gres.conf into ROOT/DIR.
# VARIANT: slurmlet (the generator's own lines for the suite's Slurm) | nvml (AutoDetect=nvml) |
#          nvidia (AutoDetect=nvidia, no type) | nvidia+type (AutoDetect=nvidia Name=gpu Type=T)
write_confs() {
    local R=$1 D=$2 suite=$3 v=$4 first=0 model count type gres
    mkdir -p "$R$D"
    gres=$(awk -F'\t' '{printf "%sgpu:%s:%s", (NR>1?",":""), $3, $2}' "$TMPD/gpus.tsv")
    cat > "$R$D/slurm.conf" <<EOF
# .gpucheck: Slurm of $suite, variant $v
ClusterName=gpucheck
SlurmctldHost=$HOST
AuthType=auth/none
CredType=cred/none
SlurmUser=slurm
SlurmdUser=root
SlurmdSpoolDir=/tmp/slurmd
SlurmdPidFile=/tmp/slurmd.pid
StateSaveLocation=/tmp/slurmctld
PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
GresTypes=gpu
NodeName=$HOST $HW Gres=$gres State=UNKNOWN
PartitionName=gpucheck Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
    # auth/none: slurmd -G of 24.11+ creates an auth credential at start, which auth/munge cannot without munged
    # CgroupPlugin=disabled (24.11+): keep slurmd -G away from this machine's cgroup setup
    case $suite in bookworm) : ;; *) echo "CgroupPlugin=disabled" > "$R$D/cgroup.conf" ;; esac
    : > "$R$D/gres.conf"
    case "$suite/$v" in
        bookworm/slurmlet)
            while IFS=$'\t' read -r model count type; do
                echo "NodeName=$HOST Name=gpu Type=$type File=$(device_files $first $count)" >> "$R$D/gres.conf"
                first=$(( first + count ))
            done < "$TMPD/gpus.tsv" ;;
        trixie/slurmlet|*/nvidia)
            echo "NodeName=$HOST AutoDetect=nvidia" >> "$R$D/gres.conf" ;;
        forky/slurmlet|*/nvidia+type)
            while IFS=$'\t' read -r model count type; do
                echo "NodeName=$HOST AutoDetect=nvidia Name=gpu Type=$type" >> "$R$D/gres.conf"
            done < "$TMPD/gpus.tsv" ;;
        */nvml)
            echo "NodeName=$HOST AutoDetect=nvml" >> "$R$D/gres.conf" ;;
    esac
}

# The types and count in slurmd -G's "Gres Name=gpu ..." lines of file $1: "types<TAB>count".
gres_seen() {
    local types n
    grep -E 'Gres Name=gpu ' "$1" > "$1.gres" || true
    types=$(awk '{ t="(none)"; for (i=1;i<=NF;i++) if ($i ~ /^Type=/) t=substr($i,6); print t }' "$1.gres" | sort -u | paste -sd, -)
    n=$(awk '{ for (i=1;i<=NF;i++) if ($i ~ /^Count=/) n+=substr($i,7) } END { print n+0 }' "$1.gres")
    printf '%s\t%s\n' "${types:-(no Gres line)}" "$n"
}

suite_checks() {
    local suite=$1 R=$2 v D seen types n etypes en verdict variants
    TMPD=$3
    cd /
    x 20 5 chroot "$R" /usr/sbin/slurmd -V
    x 60 10 chroot "$R" /usr/sbin/slurmd -C
    HW=$(grep -m1 '^NodeName=' "$LAST_OUT" | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|RealMemory)=' | paste -sd' ' -)
    [ -z "$HW" ] && HW="CPUs=$(nproc)" && echo "(slurmd -C gave no NodeName line: using $HW)"
    x 10 20 chroot "$R" /bin/sh -c 'echo /dev/nvidia*; for f in /proc/driver/nvidia/gpus/*/information; do echo "== $f"; while read -r l; do echo "$l"; done < "$f"; done'
    x 10 10 chroot "$R" /lib64/ld-linux-x86-64.so.2 --list /usr/lib/x86_64-linux-gnu/slurm-wlm/gpu_nvml.so
    case $suite in
        bookworm) variants="slurmlet nvml" ;;
        trixie) variants="slurmlet nvml nvidia+type" ;;
        forky) variants="slurmlet nvidia nvml" ;;
    esac
    etypes=$(cut -f3 "$TMPD/gpus.tsv" | sort -u | paste -sd, -)
    en=$(awk -F'\t' '{n+=$2} END{print n+0}' "$TMPD/gpus.tsv")
    for v in $variants; do
        echo; echo "---------------- $suite, variant $v"
        if [ $(( $(date +%s) - T0 )) -gt 215 ] && [ "$v" != slurmlet ]; then
            echo "SKIPPED: over 215 s"; printf '%-9s %-22s %-4s %-45s %-6s %s\n' "$suite" "$v" - - - "skipped (time)" >> "$TMPD/summary"; continue
        fi
        D=/etc/slurm-$v
        write_confs "$R" "$D" "$suite" "$v"
        echo "## $D/slurm.conf"; cat "$R$D/slurm.conf"
        echo "## $D/gres.conf"; cat "$R$D/gres.conf"
        [ -e "$R$D/cgroup.conf" ] && { echo "## $D/cgroup.conf"; cat "$R$D/cgroup.conf"; }
        rm -rf "$R/tmp/slurmd"; mkdir -p "$R/tmp/slurmd"
        x 60 60 chroot "$R" /usr/sbin/slurmd -G -f "$D/slurm.conf"
        seen=$(gres_seen "$LAST_OUT")
        types=${seen%%$'\t'*} n=${seen##*$'\t'}
        if [ "$types" = "$etypes" ] && [ "$n" = "$en" ]; then verdict="SAME as slurmlet"
        else verdict="DIFFERS (slurmlet: $etypes x$en)"; fi
        [ "$FAKE" = 1 ] && verdict="$verdict [fake GPU]"
        printf '%-9s %-22s %-4s %-45s %-6s %s\n' "$suite" "$v" "$LAST_RC" "$types" "$n" "$verdict" >> "$TMPD/summary"
        # a verbose run: what the GPU plugin detected and what slurmd made of it (whole log in $OUT)
        L="$OUT/slurmd-G-vvv-$suite-$v.log"
        x 60 0 bash -c "chroot '$R' /usr/sbin/slurmd -G -vvv -f '$D/slurm.conf' > '$L' 2>&1"
        echo "(whole log: $L, $(wc -l < "$L") lines; shown without plugin-rack lines)"
        grep -vE '_plugrack_foreach|Log file re-opened|serializer/' "$L" | head -n 100 | cut -c1-250
    done
}
