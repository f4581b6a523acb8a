#!/usr/bin/env python3
"""Whole-process start-up figures for slurmlet's programs, through their launchers (packaging/bin).

  bench/startup.py [--runs 10] [--tree DIR ...] [--jdk PATH ...]

For each JVM (the default java and every /usr/lib/jvm/temurin-25*, or those --jdk names), with and
without the launcher's start-up caches (SLURMLET_NO_CDS=1), and for each source tree (--tree, this
one by default):

- `ctl --version`: spawn to exit;
- `ctl slurm show` against a running leader over its unix socket: spawn to exit (the leader is
  started once by this script, from the first tree, and serves every ctl);
- the agent's time to ready: spawn of packaging/bin/slurmlet-agent (a leader, node role off, on a
  state folder made by its first start) until /q/health/ready answers 200; its RSS then.

Whole-process medians of N runs, with the CPU time (user + system) of the ctl runs beside. The runs
are interleaved (one of each configuration per round), so that a machine that gets busier or calmer
during the run weighs on every configuration alike: compare ratios within one run.

The caches are made first, as a package's postinst would (SLURMLET_WARM=1, timed), in a folder of
this script's own (SLURMLET_CACHE_DIR), so no other cache is used or disturbed. A tree whose
launcher predates SLURMLET_WARM makes them as it did: by a first run of each program.

Build first: flock /tmp/slurmlet-build.lock ./mvnw -o -B -q package -DskipTests -pl shared-model,agent,ctl
"""
import argparse, glob, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    """The RSS of the java under pid (the launcher execs it, so it is the same process)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Config:
    def __init__(self, tree, jdk_name, java, caches, cache_dir):
        self.tree, self.java, self.caches = tree, java, caches
        self.name = f"{jdk_name}, {'launcher caches' if caches else 'no caches'}" + (
            f" [{os.path.basename(tree)}]" if tree != ROOT else "")
        self.env = dict(os.environ, SLURMLET_JAVA=java, SLURMLET_CACHE_DIR=cache_dir)
        for k in ("SLURMLET_NO_CDS", "SLURMLET_WARM", "JAVA_TOOL_OPTIONS", "SLURMLET_CTL_JVM_OPTS", "SLURMLET_AGENT_JVM_OPTS"):
            self.env.pop(k, None)
        if not caches:
            self.env["SLURMLET_NO_CDS"] = "1"
        self.ctl = os.path.join(tree, "packaging/bin/ctl")
        self.agent = os.path.join(tree, "packaging/bin/slurmlet-agent")
        self.version, self.show, self.version_cpu, self.show_cpu, self.ready, self.rss = [], [], [], [], [], []


def agent_env(env, state, port):
    return dict(env, SLURMLET_STATE_DIR=state, QUARKUS_HTTP_PORT=str(port), SLURMLET_NODE_ENABLED="false",
                SLURMLET_LEADER_AGENT_HOST="127.0.0.1", SLURMLET_LEADER_AGENT_PORT="0",
                QUARKUS_HTTP_DOMAIN_SOCKET=os.path.join(state, "leader.sock"),
                QUARKUS_CONFIG_LOCATIONS=os.path.join(state, "agent.yaml"))


def start_agent(config, state):
    """Starts the agent; answers the process, the seconds from spawn to ready and its HTTP port."""
    port = free_port()
    t0 = time.perf_counter()
    p = subprocess.Popen([config.agent], env=agent_env(config.env, state, port),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/q/health/ready", timeout=1) as r:
                if r.status == 200:
                    return p, time.perf_counter() - t0, port
        except OSError:
            pass
        if p.poll() is not None:
            sys.exit(f"the agent ({config.name}) exited with {p.returncode}")
        if time.perf_counter() - t0 > 120:
            stop(p)
            sys.exit(f"the agent ({config.name}) was not ready within 120 s")
        time.sleep(0.005)


def stop(p):
    p.terminate()
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def timed(cmd, env):
    """Runs cmd; answers wall and CPU (user + system) seconds."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    took = time.perf_counter() - t0
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed ({status}): {err.decode()[-500:]}")
    return took, usage.ru_utime + usage.ru_stime


def warm(config, scratch):
    """Makes the launcher's caches of both programs; answers the seconds it took."""
    if not config.caches:
        return None
    launcher = os.path.join(config.tree, "packaging/bin/slurmlet-java")
    t0 = time.perf_counter()
    if "SLURMLET_WARM" in open(launcher).read():
        for program in (config.ctl, config.agent):
            subprocess.run([program], env=dict(config.env, SLURMLET_WARM="1"), check=True, capture_output=True)
    else:
        # An older launcher: a first ctl trains (JDK 25+) or dumps at exit; a first agent dumps at exit.
        subprocess.run([config.ctl, "--version"], env=config.env, capture_output=True)
        p, _, _ = start_agent(config, tempfile.mkdtemp(prefix="state-", dir=scratch))
        stop(p)
        time.sleep(30)
    return time.perf_counter() - t0


def median_ms(xs):
    return f"{statistics.median(xs) * 1000:,.0f} ms" if xs else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--tree", action="append", help="a source tree to measure (default: this one)")
    ap.add_argument("--jdk", action="append", help="a java to measure (default: java on PATH and Temurin 25)")
    args = ap.parse_args()
    trees = [os.path.abspath(t) for t in (args.tree or [ROOT])]
    javas = args.jdk or [os.path.realpath(shutil.which("java"))] + sorted(glob.glob("/usr/lib/jvm/temurin-25*/bin/java"))

    def jdk_name(java):
        release = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(java))), "release")
        fields = dict(line.strip().split("=", 1) for line in open(release) if "=" in line)
        return fields.get("IMPLEMENTOR", '"?"').strip('"') + " " + fields.get("JAVA_RUNTIME_VERSION", '"?"').strip('"')

    scratch = tempfile.mkdtemp(prefix="slurmlet-bench-")
    cache_dir = os.path.join(scratch, "cache")
    configs = [Config(tree, jdk_name(java), java, caches, cache_dir)
               for tree in trees for java in javas for caches in (False, True)]
    started = time.strftime("%Y-%m-%d %H:%M")
    load0 = os.getloadavg()
    print(f"{started}; {os.cpu_count()} CPUs; load {load0[0]:.2f}; medians of {args.runs}", flush=True)
    leader = None
    try:
        for c in configs:
            took = warm(c, scratch)
            if took is not None:
                print(f"caches made for {c.name} in {took:.1f} s", flush=True)
        # The leader every ctl asks: the first tree's agent on the default JVM, with its caches.
        leader_config = next(c for c in configs if c.caches)
        leader_state = tempfile.mkdtemp(prefix="leader-", dir=scratch)
        leader, _, leader_port = start_agent(leader_config, leader_state)
        sock = "unix:" + os.path.join(leader_state, "leader.sock")
        # A leader that has run a while: its answer compiled, so that ctl's own time is measured.
        token = open(os.path.join(leader_state, "admin.token")).read().strip()
        for _ in range(500):
            request = urllib.request.Request(f"http://127.0.0.1:{leader_port}/v1/slurm/settings",
                                             headers={"Authorization": "Bearer " + token})
            with urllib.request.urlopen(request, timeout=5) as answer:
                answer.read()
        states = {id(c): tempfile.mkdtemp(prefix="state-", dir=scratch) for c in configs}
        for c in configs:  # each agent's first start makes its state (CA, tokens): not measured
            p, _, _ = start_agent(c, states[id(c)])
            stop(p)
        for c in configs:  # page cache and file system warm for every configuration
            subprocess.run([c.ctl, "slurm", "show"], env=dict(c.env, SLURMLET_LEADER=sock), check=True, capture_output=True)
        for _ in range(args.runs):
            for c in configs:
                wall, cpu = timed([c.ctl, "--version"], c.env)
                c.version.append(wall)
                c.version_cpu.append(cpu)
                wall, cpu = timed([c.ctl, "slurm", "show"], dict(c.env, SLURMLET_LEADER=sock))
                c.show.append(wall)
                c.show_cpu.append(cpu)
                p, took, _ = start_agent(c, states[id(c)])
                time.sleep(0.5)  # start-up threads settle before the RSS is read
                c.ready.append(took)
                c.rss.append(rss_kib(p.pid))
                stop(p)
    finally:
        if leader:
            stop(leader)
        shutil.rmtree(scratch, ignore_errors=True)
    load1 = os.getloadavg()
    print(f"done {time.strftime('%H:%M')}; load {load1[0]:.2f}\n")
    print("| JVM | `ctl --version` | `ctl slurm show` | agent start → ready | agent RSS |")
    print("|---|---:|---:|---:|---:|")
    for c in configs:
        print(f"| {c.name} | {median_ms(c.version)} (CPU {median_ms(c.version_cpu)}) "
              f"| {median_ms(c.show)} (CPU {median_ms(c.show_cpu)}) | {median_ms(c.ready)} "
              f"| {statistics.median(c.rss) / 1024:,.0f} MiB |")
    print()
    r = lambda a, b: statistics.median(a) / statistics.median(b)
    print("Ratios in this run: --version, show, ready (RSS)")
    for c in configs:  # the caches against none, same JVM and tree
        base = next(b for b in configs if b.java == c.java and b.tree == c.tree and not b.caches)
        if c is not base:
            print(f"  {c.name} / no caches: {r(c.version, base.version):.2f}, {r(c.show, base.show):.2f}, "
                  f"{r(c.ready, base.ready):.2f} ({r(c.rss, base.rss):.2f})")
    for c in configs:  # each configuration of a later tree against the same of the first
        base = next(b for b in configs if b.java == c.java and b.caches == c.caches)
        if c is not base:
            print(f"  {c.name} / [{os.path.basename(base.tree)}]: {r(c.version, base.version):.2f}, "
                  f"{r(c.show, base.show):.2f}, {r(c.ready, base.ready):.2f} ({r(c.rss, base.rss):.2f})")
    first = configs[0]
    for c in configs:  # every JVM against the first, per tree
        base = next(b for b in configs if b.tree == c.tree and b.java == first.java and b.caches == first.caches)
        if c.java != first.java:
            print(f"  {c.name} / {base.name}: {r(c.version, base.version):.2f}, {r(c.show, base.show):.2f}, "
                  f"{r(c.ready, base.ready):.2f} ({r(c.rss, base.rss):.2f})")

if __name__ == "__main__":
    main()
