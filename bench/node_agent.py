#!/usr/bin/env python3
"""Figures of the node agent and the agents' channel, medians of N measured in one go.

  bench/node_agent.py polls [--polls 10000]
      A leader on this machine (node role off): its RSS once ready and after serving POLLS plan
      polls over TLS from one joined machine, half answered at once with the plan (after=0), half
      held and answered empty (wait=0); polls a second.
  bench/node_agent.py cluster [--runs 10] [--idle 60] [--passes 30]
      On the local cluster (dev/cluster up; SLURMLET_CLUSTER_DIR as dev/cluster's), on n1: the
      agent's start (systemctl restart → /q/health/ready answers, → its first pass logged), its RSS
      after start, the CPU it uses over IDLE idle seconds, and the duration of a no-op reconcile
      pass (resync and poll every second for the measure, then put back).

  bench/node_agent.py lending [--runs 10]
      On the local cluster, n1 taken back first (no hooks configured): from the start of
      `ctl slurm lend n1` on n0 to n1 idle in Slurm, and to a job that waited for n1 starting there;
      and from the start of `ctl slurm unlend n1` (no job on it) to the leader's record saying the
      platform's again.

Build first: ./mvnw -B -q package -DskipTests.
"""
import argparse, http.client, json, os, re, shutil, ssl, statistics, subprocess, sys, tempfile, time, urllib.request

from startup import ROOT, free_port

CLUSTER = os.path.join(ROOT, "dev/cluster")
# The programs as the packages run them: through their launchers (packaging/bin).
AGENT = os.path.join(ROOT, "packaging/bin/slurmlet-agent")
CTL = os.path.join(ROOT, "packaging/bin/ctl")


def rss_kib(status_text):
    """VmRSS in KiB from the text of a /proc/PID/status (read here, or inside a container)."""
    m = re.search(r"^VmRSS:\s+(\d+)", status_text, re.M)
    return int(m.group(1)) if m else 0


def polls(n):
    state = tempfile.mkdtemp(prefix="slurmlet-bench-")
    port, agent_port = free_port(), free_port()
    env = dict(os.environ, SLURMLET_STATE_DIR=state, QUARKUS_HTTP_PORT=str(port),
               QUARKUS_HTTP_DOMAIN_SOCKET=os.path.join(state, "leader.sock"),
               QUARKUS_CONFIG_LOCATIONS=os.path.join(state, "agent.yaml"), SLURMLET_NODE_ENABLED="false",
               SLURMLET_LEADER_AGENT_HOST="127.0.0.1", SLURMLET_LEADER_AGENT_PORT=str(agent_port))
    p = subprocess.Popen([AGENT], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def ready():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/q/health/ready", timeout=1):
                    return True
            except OSError:
                return p.poll() is not None and sys.exit(f"node_agent.py: the leader ended ({p.returncode}) before it was ready")
        until("the leader ready", ready, seconds=60)
        time.sleep(2)
        rss_ready = rss_kib(open(f"/proc/{p.pid}/status").read())
        ctx = ssl.create_default_context(cafile=os.path.join(state, "pki/ca.crt"))
        conn = http.client.HTTPSConnection("127.0.0.1", agent_port, context=ctx)
        made = subprocess.run([CTL, "--leader", "unix:" + os.path.join(state, "leader.sock"), "slurm", "join-token", "-o", "json"],
                              check=True, capture_output=True, text=True)
        token = json.loads(made.stdout)["token"]
        conn.request("POST", "/v1/join", body=json.dumps({"node": "poller"}),
                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        credential = json.loads(conn.getresponse().read())["credential"]
        auth = {"Authorization": "Bearer " + credential, "Content-Type": "application/json"}
        facts = {"cpus": 64, "sockets": 2, "cores_per_socket": 16, "threads_per_core": 2, "memory_mib": 515000,
                 "gpus": [{"model": "NVIDIA H200", "count": 8}], "os": "debian 12", "slurm_version": "22.05.8"}
        conn.request("PUT", "/v1/agent/facts", body=json.dumps(facts), headers=auth)
        conn.getresponse().read()
        subprocess.run([CTL, "--leader", "unix:" + os.path.join(state, "leader.sock"), "slurm", "set", "enabled=true",
                        "controller=poller", "nodes=poller", "lent=poller"], check=True, stdout=subprocess.DEVNULL)
        conn.request("GET", "/v1/agent/plan?after=0", headers=auth)
        r = conn.getresponse()
        plan = json.loads(r.read())
        rev, size = plan["revision"], len(json.dumps(plan))
        t0 = time.perf_counter()
        for i in range(n):
            path = "/v1/agent/plan?after=0" if i % 2 == 0 else f"/v1/agent/plan?after={rev}&wait=0"
            conn.request("GET", path, headers=auth)
            r = conn.getresponse()
            r.read()
            if r.status not in (200, 204):
                sys.exit(f"poll {i} answered {r.status}")
        elapsed = time.perf_counter() - t0
        time.sleep(2)
        rss_after = rss_kib(open(f"/proc/{p.pid}/status").read())
        print(f"leader RSS once ready: {rss_ready / 1024:.0f} MiB")
        print(f"leader RSS after {n} polls: {rss_after / 1024:.0f} MiB ({(rss_after - rss_ready) / 1024:+.0f} MiB)")
        print(f"{n} polls in {elapsed:.1f} s: {n / elapsed:.0f} polls/s on one connection; a plan is {size} bytes of JSON")
    finally:
        p.terminate()
        p.wait(timeout=30)
        shutil.rmtree(state, ignore_errors=True)


def until(what, done, seconds=120, step=0.05):
    """Waits for done() to be true; ends the tool saying what it waited for if that takes over `seconds`."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            sys.exit(f"node_agent.py: {what}: not within {seconds} s")
        time.sleep(step)


def on(node, *cmd, check=True):
    r = subprocess.run([CLUSTER, "exec", node, *cmd], capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"{node}: {' '.join(cmd)} failed: {r.stderr}")
    return r.stdout


READY = "exec 3<>/dev/tcp/127.0.0.1/7817 && printf 'GET /q/health/ready HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3"


def main_pid(node):
    return on(node, "systemctl", "show", "-p", "MainPID", "--value", "slurmlet-agent").strip()


def cluster(runs, idle, noop_passes=30):
    starts, passes, rss = [], [], []
    for _ in range(runs):
        since = on("n1", "date", "+%Y-%m-%d %H:%M:%S.%N").strip()
        t0 = time.perf_counter()
        on("n1", "systemctl", "restart", "slurmlet-agent")
        until("n1's agent ready (200) after its restart", lambda: "200" in on("n1", "bash", "-c", READY, check=False), step=0.02)
        ready = time.perf_counter() - t0
        until("n1's agent's first pass done after its restart", lambda: "pass 1 of plan" in on(
            "n1", "journalctl", "-u", "slurmlet-agent", "--since", since[:19], "--no-pager", "-o", "cat"))
        first = time.perf_counter() - t0
        starts.append(ready)
        passes.append(first)
        time.sleep(3)
        rss.append(rss_kib(on("n1", "cat", f"/proc/{main_pid('n1')}/status")))
    print(f"n1 agent, medians of {runs}: restart → ready {statistics.median(starts) * 1000:.0f} ms, "
          f"→ first pass done {statistics.median(passes) * 1000:.0f} ms; RSS 3 s after start {statistics.median(rss) / 1024:.0f} MiB")

    pid = main_pid("n1")
    hz = os.sysconf("SC_CLK_TCK")
    def ticks():
        fields = on("n1", "cat", f"/proc/{pid}/stat").rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    before = ticks()
    time.sleep(idle)
    used = (ticks() - before) / hz
    print(f"n1 agent idle {idle} s: {used:.2f} CPU-seconds ({100 * used / idle:.2f} % of one CPU); "
          f"RSS then {rss_kib(on('n1', 'cat', f'/proc/{pid}/status')) / 1024:.0f} MiB")

    dropin = "/etc/systemd/system/slurmlet-agent.service.d/bench.conf"
    on("n1", "mkdir", "-p", os.path.dirname(dropin))
    on("n1", "sh", "-c", f"printf '[Service]\\nEnvironment=SLURMLET_NODE_RESYNC=1s\\nEnvironment=SLURMLET_NODE_POLL_WAIT=1s\\n"
                         f"Environment=QUARKUS_LOG_CATEGORY__IO_SLURMLET_AGENT_NODE__LEVEL=DEBUG\\n' > {dropin}")
    try:
        on("n1", "systemctl", "daemon-reload")
        since = on("n1", "date", "+%Y-%m-%d %H:%M:%S").strip()
        on("n1", "systemctl", "restart", "slurmlet-agent")
        durations = []
        deadline = time.monotonic() + 60 + 2 * noop_passes
        while len(durations) < noop_passes:
            if time.monotonic() > deadline:
                sys.exit(f"node_agent.py: n1 made {len(durations)} of {noop_passes} no-op passes in time; its last lines:\n"
                         + "\n".join(log.splitlines()[-5:]))
            time.sleep(2)
            log = on("n1", "journalctl", "-u", "slurmlet-agent", "--since", since, "--no-pager", "-o", "cat")
            durations = [int(m) for m in re.findall(r"pass \d+ of plan \d+ in (\d+) ms: nothing to change", log)][1:]
        print(f"no-op reconcile pass on n1 (packages, munge, slurm), median of {len(durations)}: "
              f"{statistics.median(durations)} ms (min {min(durations)}, max {max(durations)})")
    finally:
        on("n1", "rm", "-f", dropin)
        on("n1", "rmdir", "--ignore-fail-on-non-empty", os.path.dirname(dropin))
        on("n1", "systemctl", "daemon-reload")
        on("n1", "systemctl", "restart", "slurmlet-agent")


# The admin API's lend, without ctl's own start (a JVM): what a script or the platform calling the API sees.
API_LEND = r"""exec 3<>/dev/tcp/127.0.0.1/7817
printf 'POST /v1/slurm/lent/n1 HTTP/1.0\r\nAuthorization: Bearer %s\r\nContent-Length: 0\r\n\r\n' "$(cat /var/lib/slurmlet/admin.token)" >&3
cat <&3 >/dev/null"""

LEND = r"""
t0=$(date +%s.%N)
LEND_COMMAND
until case "$(sinfo -h -N -n n1 -o %T)" in idle|allocated|mixed) true;; *) false;; esac; do
    [ "$(( $(date +%s) - ${t0%.*} ))" -lt 120 ] || {
        echo "n1 not idle, allocated or mixed in Slurm 120 s after the lend: $(sinfo -h -N -n n1 -o '%T %E')" >&2; exit 1; }
    sleep 0.005
done
t1=$(date +%s.%N)
echo "$t0 $t1"
"""

UNLEND = r"""
t0=$(date +%s.%N)
ctl slurm unlend n1 >/dev/null
# The leader keeps each node's lending in a document of its own (file store: lending/NODE); back
# with the platform is phase PLATFORM there, or no document at all.
until [ ! -e /var/lib/slurmlet/lending/n1 ] || tr -d ' \n' </var/lib/slurmlet/lending/n1 | grep -q '"phase":"PLATFORM"'; do
    [ "$(( $(date +%s) - ${t0%.*} ))" -lt 120 ] || {
        echo "n1 not back with the platform 120 s after the unlend: $(cat /var/lib/slurmlet/lending/n1)" >&2; exit 1; }
    sleep 0.005
done
t1=$(date +%s.%N)
echo "$t0 $t1"
"""


def lending(runs):
    on("n0", "ctl", "slurm", "unlend", "n1")
    time.sleep(3)
    idle, started, back, api, api_started = [], [], [], [], []
    for i in range(2 * runs):
        by_api = i % 2 == 1
        job = on("n0", "sbatch", "--parsable", "-w", "n1", "-o", "/dev/null", "--wrap",
                 "date +%s.%N > /tmp/bench-start-$SLURM_JOB_ID").strip()
        time.sleep(1)
        t0, t1 = map(float, on("n0", "bash", "-c", LEND.replace(
            "LEND_COMMAND", API_LEND if by_api else "ctl slurm lend n1 >/dev/null")).split())
        until(f"job {job} started on n1", lambda: on("n1", "cat", f"/tmp/bench-start-{job}", check=False).strip() != "", step=0.1)
        t2 = float(on("n1", "cat", f"/tmp/bench-start-{job}").strip())
        if by_api:
            api.append(t1 - t0)
            api_started.append(t2 - t0)
        else:
            idle.append(t1 - t0)
            started.append(t2 - t0)
        until(f"job {job} ended", lambda: not on("n0", "squeue", "-h", "-j", job, "-o", "%T", check=False).strip(), step=0.1)
        t0, t1 = map(float, on("n0", "bash", "-c", UNLEND).split())
        back.append(t1 - t0)
        time.sleep(1)
    print(f"lend n1, medians of {runs}: ctl start → n1 idle in Slurm {statistics.median(idle) * 1000:.0f} ms "
          f"(min {min(idle) * 1000:.0f}, max {max(idle) * 1000:.0f}); → the waiting job started "
          f"{statistics.median(started) * 1000:.0f} ms (min {min(started) * 1000:.0f}, max {max(started) * 1000:.0f})")
    print(f"lend n1 by the admin API (no ctl start), median of {runs}: call → n1 idle in Slurm "
          f"{statistics.median(api) * 1000:.0f} ms (min {min(api) * 1000:.0f}, max {max(api) * 1000:.0f}); → the waiting job "
          f"started {statistics.median(api_started) * 1000:.0f} ms")
    print(f"unlend n1 with no job, median of {2 * runs}: ctl start → the platform's again {statistics.median(back) * 1000:.0f} ms "
          f"(min {min(back) * 1000:.0f}, max {max(back) * 1000:.0f})")
    on("n0", "ctl", "slurm", "lend", "n1")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["polls", "cluster", "lending"])
    ap.add_argument("--polls", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--idle", type=int, default=60)
    ap.add_argument("--passes", type=int, default=30, help="no-op passes timed (cluster)")
    a = ap.parse_args()
    {"polls": lambda: polls(a.polls), "cluster": lambda: cluster(a.runs, a.idle, a.passes), "lending": lambda: lending(a.runs)}[a.what]()
