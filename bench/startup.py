#!/usr/bin/env python3
"""Whole-process figures for slurmlet's programs, as medians of N runs measured in one go.

  bench/startup.py [--runs 5]

- the leader's start time: spawn of packaging/bin/slurmlet-agent until /q/health/ready answers 200;
- its RSS once ready (VmRSS of the java process);
- `ctl slurm show` against that running leader, over its unix socket, spawn to exit.

Each JVM this machine has (the default java, and Temurin 25 when present) is measured with and
without the launcher's start-up caches (AppCDS built with the program on JDK 17; a self-made
class-data archive for the agent and an AOT cache for ctl on JDK 25), all in the same run, so their
ratios hold even on a busy machine. Build first: ./mvnw -B -q package -DskipTests.
"""
import argparse, glob, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENT = os.path.join(ROOT, "packaging/bin/slurmlet-agent")
CTL = os.path.join(ROOT, "packaging/bin/ctl")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start_agent(java, state, extra):
    port = free_port()
    env = dict(os.environ, SLURMLET_JAVA=java, **extra, SLURMLET_STATE_DIR=state, QUARKUS_HTTP_PORT=str(port),
               SLURMLET_NODE_ENABLED="false", SLURMLET_LEADER_AGENT_HOST="127.0.0.1", SLURMLET_LEADER_AGENT_PORT="0",
               QUARKUS_HTTP_DOMAIN_SOCKET=os.path.join(state, "leader.sock"),
               QUARKUS_CONFIG_LOCATIONS=os.path.join(state, "agent.yaml"))
    t0 = time.perf_counter()
    p = subprocess.Popen([AGENT], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/q/health/ready", timeout=1) as r:
                if r.status == 200:
                    return p, time.perf_counter() - t0
        except OSError:
            pass
        if p.poll() is not None:
            sys.exit(f"the agent exited with {p.returncode}")
        time.sleep(0.005)


def stop(p):
    p.terminate()
    p.wait(timeout=30)


def measure(java, runs, extra):
    starts, rss, shows = [], [], []
    with tempfile.TemporaryDirectory(prefix="slurmlet-bench-") as tmp:
        state = os.path.join(tmp, "state")
        os.makedirs(state, mode=0o700)
        for _ in range(runs):
            p, took = start_agent(java, state, extra)
            time.sleep(0.5)  # let start-up threads settle before reading RSS
            starts.append(took)
            rss.append(rss_kib(p.pid))
            stop(p)
        p, _ = start_agent(java, state, extra)
        try:
            env = dict(os.environ, SLURMLET_JAVA=java, **extra, SLURMLET_LEADER="unix:" + os.path.join(state, "leader.sock"))
            # Warm the page cache, and let a first run make the launcher's caches.
            subprocess.run([CTL, "slurm", "show"], env=env, check=True, capture_output=True)
            time.sleep(5)
            for _ in range(runs):
                t0 = time.perf_counter()
                subprocess.run([CTL, "slurm", "show"], env=env, check=True, capture_output=True)
                shows.append(time.perf_counter() - t0)
        finally:
            stop(p)
    return statistics.median(starts), statistics.median(rss), statistics.median(shows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    jdks = [(os.path.realpath(shutil.which("java")).split("/")[4], shutil.which("java"))]
    jdks += [(os.path.basename(d), os.path.join(d, "bin/java")) for d in sorted(glob.glob("/usr/lib/jvm/temurin-25*"))]
    javas = []
    for name, java in jdks:
        javas.append((name + ", no caches", java, {"SLURMLET_NO_CDS": "1"}))
        javas.append((name + ", launcher caches", java, {}))
    print(f"medians of {args.runs} runs; machine: {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"{'JVM':50} {'leader start to ready':>22} {'leader RSS':>12} {'ctl slurm show':>15}")
    results = []
    for name, java, extra in javas:
        # A first start of the agent makes its class-data archive (on exit) where the JVM does that.
        if not extra:
            with tempfile.TemporaryDirectory(prefix="slurmlet-bench-") as tmp:
                p, _ = start_agent(java, tmp, extra)
                stop(p)
        start, rss, show = measure(java, args.runs, extra)
        results.append((name, start, rss, show))
        print(f"{name:50} {start * 1000:19.0f} ms {rss / 1024:9.0f} MiB {show * 1000:12.0f} ms", flush=True)
    if len(results) > 1:
        base = results[0]
        for name, start, rss, show in results[1:]:
            print(f"ratio {name} / {base[0]}: start {start / base[1]:.2f}, RSS {rss / base[2]:.2f}, show {show / base[3]:.2f}")


if __name__ == "__main__":
    main()
