#!/usr/bin/env python3
"""The leader with many agents: N simulated agents on the real agents' channel (TLS), timed.

  bench/leader_load.py [--agents 1000] [--concurrency 200] [--xmx 1g] [--store etcd] [--no-digest] [--no-spread]
                       [--reconnect-rate N] [--home DIR] [--json FILE] [--keep] [--writes N] [--until PHASE]
  bench/leader_load.py --smoke          20 agents, short waits: CI's bench/smoke

A leader on this machine (node role off, as bench/node_agent.py's `polls` starts it, through the
packaged launcher), then N agents g00000… in this one process, each speaking the agent's own
protocol (agent/…/node/LeaderLink.java, PlanPoller.java, StatusPoster.java) from its own loopback
address (127.1.x.y: the leader holds at most 32 connections per address, and Linux routes all of
127/8 to lo), each phase timed:

  join     POST /v1/join with one join token (a token serves every machine that joins while it
           lives), CONCURRENCY at a time, each on a connection of its own, as an agent joins;
  facts    PUT /v1/agent/facts (the same hardware on all: 8 × NVIDIA H200), CONCURRENCY at a time;
           then every agent long-polls its plan (GET /v1/agent/plan?after=REV&wait=30) for good,
           and puts its status (PUT /v1/agent/status) after each plan on a second connection, as
           the agent's status poster does; until no plan came for 3 s;
  enable   `ctl slurm set enabled=true controller=g00000 all_nodes=true`: from ctl's start to each
           agent's receipt of a plan whose slurm.conf names the cluster;
  change   `ctl slurm set slurm_conf.MaxJobCount=20000`, which changes every machine's slurm.conf:
           from ctl's start to each agent's receipt of a plan that holds it; with each delivery the
           leader's own account from its log (leader_written_*: each answer written to its machine's
           connection, from when the planning began);
  writes   (--writes N) N settings writes through the admin API on the leader's unix socket, as
           `ctl slurm set` sends them (PATCH with If-Match), each waited for at every agent, then N
           lends and unlends of one node (POST and DELETE /v1/slurm/lent/NODE, as `ctl slurm lend`
           and `unlend`): each timed from its send to its answer (ctl's own start not in it);
  restart  the leader stopped (SIGTERM, as systemctl restart) and started again on the same state:
           each agent finds its poll's connection lost and connects again at a random moment of the
           window the leader's last plan answer gave (Slurmlet-Reconnect-Window: the machines joined at
           slurmlet.leader.reconnect-rate a second), then between the backoff (1 s doubling to 10 s) and
           the window (--no-spread: the backoff and a second of jitter, as an earlier build's agents), puts its status as soon as the leader answers (as PlanPoller does after a leader was
           away) and polls with the revision and digest of the plan it holds: timed from the stop
           to each agent's status taken; no plan should be sent again (plans_sent_again).

Every second, throughout, the leader's RSS, CPU seconds, open files and whether /q/health/ready
answers 200 within 2 s; at each phase's end its garbage collections (jstat). The leader's output
is kept in STATE/leader.log (the state folder is kept when a run fails, or with --keep).

Each simulated agent holds two connections, as the real one does (its HTTP client keeps the status
connection beside the held poll): for more than 4,064 agents slurmlet.leader.agent-connections
(8192 by default before issue 17, 24,576 since) is set to what they need, and said. This process raises its open-file limit to what both ends
need (the leader inherits it; the systemd unit gives the real one LimitNOFILE=65536); where the hard
limit is lower and cannot be raised, each agent holds its poll's connection alone and opens one for
each facts call, its status going on the poll's connection between two polls (--one-connection),
and says so.

Build first: ./mvnw -B -q package -DskipTests; or name a build with --home (an installed slurmlet,
or packaging/target/root/usr/lib/slurmlet copied aside, so a tree that is being rebuilt is not measured).
"""
import argparse, asyncio, atexit, hashlib, json, os, random, re, resource, shutil, signal, ssl, statistics, subprocess, sys, tempfile, threading, time
import http.client, socket, urllib.error, urllib.request

from startup import ROOT, free_port

# The programs as the packages run them: through their launchers (this tree's packaging/bin, or --home's bin).
BIN = os.path.join(ROOT, "packaging/bin")
UNIT = os.path.join(ROOT, "packaging/systemd/slurmlet-agent.service")

POLL_WAIT = 30            # s a plan poll is held, as the agent's slurmlet.node.poll-wait
CALL = 30                 # s any other call may take, as LeaderLink's CALL (a poll: POLL_WAIT + CALL)
CONNECT = 10              # s to connect, as LeaderLink's CONNECT
# slurmlet.leader.agent-connections: 24,576 by default now, 8192 before (a build named with --home may be
# older): the tool sets it whenever more than the older default is needed.
DEFAULT_CONNECTIONS = 8192
CONNECTIONS_PER_AGENT = 2   # the held poll, and the status connection the agent's client keeps
QUIET = 3.0               # s without a new plan anywhere: the leader has settled

FACTS = {"address": "", "cpus": 224, "boards": 1, "sockets": 2, "cores_per_socket": 56, "threads_per_core": 2,
         "memory_mib": 2063000, "gpus": [{"model": "NVIDIA H200", "count": 8}], "os": "debian 12",
         "slurm_version": "22.05.8"}
STEPS = ["facts", "packages", "munge", "storage", "users", "slurm", "pam", "containers", "nodestates"]
REVISION = re.compile(rb'"revision"\s*:\s*(\d+)')


class LeaderGone(Exception):
    """The leader exited, or its log says it is broken: the run stops there."""


class Tally(dict):
    """Counts by name: polls answered 200 / 204 / otherwise, calls failed, bytes of plans."""

    def add(self, key, n=1):
        self[key] = self.get(key, 0) + n


class Conn:
    """One kept-alive HTTP/1.1 connection over TLS to the agents' channel, from one agent's own address."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.body = None  # the last answer's body, where the call asked to keep it
        self.window = 0   # the reconnection window the last answer gave (Slurmlet-Reconnect-Window), s

    @classmethod
    async def open(cls, run, addr):
        reader, writer = await asyncio.wait_for(asyncio.open_connection(
            "127.0.0.1", run.agent_port, ssl=run.tls, server_hostname="127.0.0.1", local_addr=(addr, 0)), CONNECT)
        return cls(reader, writer)

    def close(self):
        self.writer.close()

    async def call(self, method, path, token, body=None, timeout=CALL, markers=lambda: (), last=False, keep=False):
        """(status, the body's first 256 bytes, the markers found in it, its size); the body itself is dropped.
        markers() is asked when the answer comes: a poll held since before a phase began looks for that phase's.
        last: the connection's only call, which the leader is asked to close after it (else the TLS close
        here would wait up to 30 s for the leader's, holding a file at both ends). keep: the body is kept in self.body."""
        head = f"{method} {path} HTTP/1.1\r\nHost: leader\r\nAuthorization: Bearer {token}\r\n"
        if last:
            head += "Connection: close\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + (body or b""))
        # asyncio.timeout, not wait_for: no task of its own for each call (the tool's CPU is taken from the leader's).
        async with asyncio.timeout(timeout):
            return await self._answer(markers, keep)

    async def _answer(self, markers, keep):
        # The status line and the headers read at once (the leader's answers hold a few short headers).
        lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower().split("\r\n")
        status = int(lines[0].split()[1])
        length, chunked, close = None, False, False
        for line in lines[1:-2]:
            name, _, value = line.partition(":")
            name, value = name.strip(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value
            elif name == "connection":
                close = value == "close"
            elif name == "slurmlet-reconnect-window" and value.isdigit():
                self.window = min(600, int(value))
        # A plan is as big as slurm.conf: read in pieces and dropped, looking for the markers across them.
        markers = markers()
        first, found, size, tail, kept = b"", set(), 0, b"", []
        longest = max((len(m) for m in markers), default=1)

        def take(piece):
            nonlocal first, size, tail
            size += len(piece)
            if keep:
                kept.append(piece)
            if len(first) < 256:
                first += piece[:256 - len(first)]
            window = tail + piece
            found.update(m for m in markers if m in window)
            tail = window[-(longest - 1):] if longest > 1 else b""

        if chunked:
            while (n := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)) > 0:
                take(await self.reader.readexactly(n))
                await self.reader.readexactly(2)
            while await self.reader.readuntil(b"\r\n") != b"\r\n":
                pass
        else:
            left = length or 0
            while left > 0:
                piece = await self.reader.read(min(left, 1 << 16))
                if not piece:
                    raise asyncio.IncompleteReadError(b"", left)
                take(piece)
                left -= len(piece)
        if close:
            self.close()
        self.body = b"".join(kept) if keep else None
        return status, first, found, size, close


# What a lost connection looks like from here: each counted by its kind.
LOST = (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, IndexError)


class Agent:
    """One simulated machine: its name, address, credential, the plan revision it holds and when it first saw each marker."""

    def __init__(self, i):
        self.name = f"g{i:05d}"
        n = i + 1  # 127.1.0.1, 127.1.0.2, …: one address of its own
        self.addr = f"127.{1 + n // 65536}.{n // 256 % 256}.{n % 256}"
        self.credential = None
        self.joined = self.reported = None  # how long its join, its facts report took
        self.revision = 0
        self.digest = None    # the sha256 of the plan held, as the leader made its JSON (PlanDigest)
        self.lost = False     # its poll's connection was lost: its status goes first once the leader answers
        self.window = 0       # the reconnection window the leader gave last, s
        self.back = None      # when its status was taken after the leader's restart
        self.seen = {}
        self.poll = None      # the connection its plan polls use
        self.side = None      # the one its facts and status go on, kept alive
        self.due = asyncio.Event()
        self.tasks = []

    def report(self):
        """A NodeReport as an agent posts it after a pass that changed nothing (model: shared-model's api/NodeReport)."""
        return (b'{"node":"' + self.name.encode() + b'","plan_revision":' + str(self.revision).encode()
                + b',"steps":' + Agent.steps() + b',"slurm_nodes":[],"observed":{"munge":null,"storage":null,"pam":null,"jobs":[]}}')

    _steps = (None, b"")

    @staticmethod
    def steps():
        """Every step's status at this second, the same for every agent: made once a second, not once a report
        (the tool shares the leader's CPUs; what it spends is taken from the leader)."""
        now = int(time.time())
        if Agent._steps[0] != now:
            at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
            Agent._steps = (now, json.dumps([{"step": s, "state": "unchanged", "detail": "simulated by bench/leader_load.py", "at": at,
                                               "last_error": "", "last_error_at": ""} for s in STEPS], separators=(",", ":")).encode())
        return Agent._steps[1]


class Run:
    """The simulated agents, what they counted, and the markers each delivery phase waits for."""

    def __init__(self, args, state, agent_port, leader, sampler):
        self.args, self.state, self.agent_port, self.leader, self.sampler = args, state, agent_port, leader, sampler
        self.tls = ssl.create_default_context(cafile=leader_ca(state, agent_port, args.ctl))
        self.tally = Tally()
        self.markers = ()
        self.first = {}          # marker → how many agents have seen it
        self.sizes = {}          # marker → sizes of the plans that held it
        self.last_plan = time.monotonic()
        self.stopping = False
        self.restarted = None    # when the leader was stopped to be started again
        self.ports = None        # the leader's (http, agents' channel) ports, to start it again on them

    def kind(self, e):
        return type(e).__name__

    def broken(self):
        """Why the leader cannot be measured further (it exited, or its log says it is broken); None while it can."""
        if self.leader.poll() is not None:
            return f"the leader exited with {self.leader.returncode}"
        return f"the leader's log says, in {self.sampler.broken}" if self.sampler.broken else None

    def alive(self):
        if self.broken():
            raise LeaderGone(self.broken())

    async def side_call(self, agent, method, path, body):
        """A call on the agent's kept side connection; one the leader closed meanwhile (idle for 150 s) is opened again.
        With one connection per agent (--one-connection), each such call has a connection of its own, closed after it."""
        if self.args.one_connection:
            conn = await Conn.open(self, agent.addr)
            try:
                return (await conn.call(method, path, agent.credential, body, last=True))[0]
            finally:
                conn.close()
        for attempt in (1, 2):
            fresh = agent.side is None
            if fresh:
                agent.side = await Conn.open(self, agent.addr)
            try:
                status, _, _, _, closed = await agent.side.call(method, path, agent.credential, body)
                if closed:
                    agent.side = None
                return status
            except LOST:
                agent.side.close()
                agent.side = None
                if fresh or attempt == 2:
                    raise
                self.tally.add("side connections opened again")

    async def retried(self, what, gate, until, call):
        """call() (→ its status) until it answers 200, again after a failure as PlanPoller does (1 s, doubling to 10 s,
        with jitter), each try CONCURRENCY-gated; a 4xx is final. The time from the first try (not from the wait for
        the gate); None when not taken."""
        t0, backoff = None, 1.0
        while True:
            async with gate:
                if self.broken():
                    self.tally.add(f"{what} given up")
                    return None
                t0 = t0 or time.monotonic()
                try:
                    status = await call()
                    if status == 200:
                        return time.monotonic() - t0
                    self.tally.add(f"{what} answered {status}")
                    if 400 <= status < 500:
                        return None
                except LOST as e:
                    self.tally.add(f"{what} failed: {self.kind(e)}")
            if time.monotonic() + backoff > until or self.broken():
                self.tally.add(f"{what} given up")
                return None
            await asyncio.sleep(backoff + random.random() * min(1.0, backoff))
            backoff = min(10.0, backoff * 2)

    async def join(self, agent, token, gate, until):
        async def once():
            conn = await Conn.open(self, agent.addr)
            try:
                status, first, _, size, _ = await conn.call("POST", "/v1/join", token, json.dumps({"node": agent.name}).encode(),
                                                            last=True)
            finally:
                conn.close()
            if status == 200:
                agent.credential = json.loads(first[:size])["credential"]
            return status
        agent.joined = await self.retried("join", gate, until, once)

    async def facts(self, agent, gate, until):
        agent.reported = await self.retried("facts", gate, until, lambda: self.side_call(
            agent, "PUT", "/v1/agent/facts", json.dumps(dict(FACTS, address=agent.addr)).encode()))
        if agent.reported is not None:
            # From now on, as the agent's poller and status poster do.
            # With one connection an agent's status goes on its poll's connection between two polls (see polls).
            agent.tasks = [asyncio.create_task(self.polls(agent))] + ([] if self.args.one_connection
                                                                        else [asyncio.create_task(self.statuses(agent))])

    async def polls(self, agent):
        """PlanPoller: long-polls with the revision held; a new plan is 'applied' at once and its status posted."""
        backoff = 1.0
        while not self.stopping:
            try:
                if agent.poll is None:
                    agent.poll = await Conn.open(self, agent.addr)
                if agent.lost:
                    # The leader was away (restarted, perhaps): it learns at once how this machine stands.
                    said, _, _, _, closed = await agent.poll.call("PUT", "/v1/agent/status", agent.credential, agent.report())
                    self.tally.add(f"status answered {said}")
                    if closed:
                        agent.poll = None
                        continue
                    if said == 200:
                        agent.lost = False
                        if self.restarted and agent.back is None:
                            agent.back = time.monotonic()
                digest = f"&digest={agent.digest}" if agent.digest and not self.args.no_digest else ""
                conn = agent.poll
                status, first, found, size, closed = await conn.call(
                    "GET", f"/v1/agent/plan?after={agent.revision}&wait={POLL_WAIT}{digest}", agent.credential,
                    timeout=POLL_WAIT + CALL, markers=lambda: self.markers, keep=True)
                if closed:
                    agent.poll = None
                if status in (200, 204) and not self.args.no_spread:
                    agent.window = conn.window
                if status == 200:
                    now = time.monotonic()
                    self.last_plan = now
                    self.tally.add("polls answered 200")
                    self.tally.add("plan bytes", size)
                    agent.revision = int(REVISION.search(first).group(1))
                    # {"revision":N,"plan":PLAN}: the digest of PLAN's bytes, as the agent's PlanDigest makes it.
                    agent.digest = hashlib.sha256(conn.body[conn.body.index(b',"plan":') + 8:-1]).hexdigest()
                    for m in found:
                        if m not in agent.seen:
                            agent.seen[m] = now
                            self.first[m] = self.first.get(m, 0) + 1
                            self.sizes.setdefault(m, []).append(size)
                    if self.args.one_connection and not closed:
                        # No second connection (the open-file limit): the status on this one before the next poll,
                        # as an agent's HTTP client would reuse an idle connection, rather than a TLS handshake each.
                        said, _, _, _, closed = await agent.poll.call("PUT", "/v1/agent/status", agent.credential, agent.report())
                        self.tally.add(f"status answered {said}")
                        if closed:
                            agent.poll = None
                    else:
                        agent.due.set()
                elif status == 204:
                    self.tally.add("polls answered 204")
                else:
                    self.tally.add(f"polls answered {status}")
                    await asyncio.sleep(backoff + random.random())
                    backoff = min(10.0, backoff * 2)
                    continue
                backoff = 1.0
            except LOST as e:
                if self.stopping:
                    return
                self.tally.add(f"polls failed: {self.kind(e)}")
                first = not agent.lost
                agent.lost = True
                if agent.poll:
                    agent.poll.close()
                    agent.poll = None
                # PlanPoller.wait: the first call after the leader was lost at a random moment of its window, then
                # each at a random moment between the backoff and the window (the backoff and up to a second more
                # where the window is shorter).
                await asyncio.sleep(random.random() * max(backoff, agent.window) if first
                                    else random.uniform(backoff, max(agent.window, backoff + min(1.0, backoff))))
                backoff = min(10.0, backoff * 2)

    async def statuses(self, agent):
        """StatusPoster: the latest report, sent again after 1 s, then longer waits with jitter, until it is taken."""
        wait = 1.0
        while not self.stopping:
            await agent.due.wait()
            agent.due.clear()
            try:
                status = await self.side_call(agent, "PUT", "/v1/agent/status", agent.report())
                self.tally.add(f"status answered {status}")
                if status == 200:
                    wait = 1.0
                    continue
            except LOST as e:
                if self.stopping:
                    return
                self.tally.add(f"status failed: {self.kind(e)}")
            await asyncio.sleep(wait + random.random() * wait)
            wait = min(10.0, wait * 2)
            agent.due.set()


# Lines of the leader's log after which the run stops: it is out of memory, or one of its threads died
# (the planner's, and no plan is published again), and what follows would measure a broken leader.
BROKEN = re.compile(r"OutOfMemoryError|Exception in thread")


class Sampler(threading.Thread):
    """Every second: the leader's RSS, CPU seconds, open files, and /q/health/ready (200 within 2 s), by phase;
    and whether its log has said it is broken (BROKEN)."""

    def __init__(self, pid, http_port, log):
        super().__init__(daemon=True)
        self.pid, self.url = pid, f"http://127.0.0.1:{http_port}/q/health/ready"
        self.phase, self.samples, self.stopped = "start", [], threading.Event()
        self.hz = os.sysconf("SC_CLK_TCK")
        self.log, self.read, self.broken = log, 0, None
        self.between = False  # the leader is being restarted

    def look_at_log(self):
        with open(self.log, "rb") as f:
            f.seek(self.read)
            new = f.read()
        # Whole lines only: the rest is read again next time.
        self.read += new.rfind(b"\n") + 1
        for line in new[:new.rfind(b"\n") + 1].decode(errors="replace").splitlines():
            if self.broken is None and BROKEN.search(line):
                self.broken = f"{self.phase}: {line.strip()[:300]}"

    def proc(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{self.pid}/status") as f:
            rss = int(re.search(r"^VmRSS:\s+(\d+)", f.read(), re.M).group(1))
        return rss, (int(fields[11]) + int(fields[12])) / self.hz, len(os.listdir(f"/proc/{self.pid}/fd"))

    def run(self):
        next_at = time.monotonic()
        while not self.stopped.is_set():
            try:
                rss, cpu, fds = self.proc()
                self.look_at_log()
            except (OSError, AttributeError):
                if self.between:  # stopped to be started again: no sample until the new one runs
                    self.stopped.wait(0.2)
                    continue
                return  # the leader is gone
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=2) as r:
                    health = r.status
            except urllib.error.HTTPError as e:
                health = e.code
            except OSError:
                health = None
            self.samples.append({"t": t0, "phase": self.phase, "rss_kib": rss, "cpu_s": cpu, "fds": fds,
                                 "ready": health, "ready_ms": round((time.monotonic() - t0) * 1000)})
            next_at = max(next_at + 1, time.monotonic())
            self.stopped.wait(next_at - time.monotonic())

    def summary(self, phase=None):
        s = [x for x in self.samples if phase is None or x["phase"] == phase]
        if not s:
            return {}
        ok = [x for x in s if x["ready"] == 200]
        return {"samples": len(s), "rss_mib_peak": round(max(x["rss_kib"] for x in s) / 1024),
                "rss_mib_median": round(statistics.median(x["rss_kib"] for x in s) / 1024),
                "fds_peak": max(x["fds"] for x in s), "fds_median": round(statistics.median(x["fds"] for x in s)),
                "ready_not_200_in_2s": len(s) - len(ok),
                "ready_ms_median": statistics.median(x["ready_ms"] for x in ok) if ok else None,
                "ready_ms_max": max(x["ready_ms"] for x in ok) if ok else None}


def spread(values):
    """p50, p90, p99, max in ms of durations in seconds."""
    if not values:
        return {}
    v = sorted(values)
    at = lambda q: v[min(len(v) - 1, int(q * len(v)))]
    return {"p50_ms": round(at(0.50) * 1000), "p90_ms": round(at(0.90) * 1000), "p99_ms": round(at(0.99) * 1000),
            "max_ms": round(v[-1] * 1000)}


def heap_of(cmdline, java):
    """The JVM options the launcher gave the leader, and the heap they make (the same java asked for MaxHeapSize)."""
    opts = [a for a in cmdline if a.startswith("-X") and not a.startswith("-Xlog") and not a.startswith("-XX:SharedArchiveFile")]
    flags = subprocess.run([java, *opts, "-XX:+PrintFlagsFinal", "-version"], capture_output=True, text=True).stdout
    m = re.search(r"\bMaxHeapSize\s*=\s*(\d+)", flags)
    return opts, int(m.group(1)) // (1 << 20) if m else None


def jstat(pid):
    """The leader's heap and collections so far (jstat -gc), or None where there is no jstat."""
    try:
        out = subprocess.run(["jstat", "-gc", str(pid)], capture_output=True, text=True, timeout=30).stdout.split("\n")
        row = dict(zip(out[0].split(), out[1].split()))
        return {"old_used_mib": round(float(row["OU"]) / 1024), "old_capacity_mib": round(float(row["OC"]) / 1024),
                "young_gcs": int(row["YGC"]), "full_gcs": int(row["FGC"]), "gc_s": float(row["GCT"])}
    except (OSError, subprocess.SubprocessError, IndexError, KeyError, ValueError):
        return None


def open_files_limit(want):
    """Raises this process's open-file limit to want (the hard one too where it may), which the leader inherits."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
            return want
        except (ValueError, OSError):
            want = hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def phase(run, record, name, body):
    """Runs body() as the phase name: its wall time, the leader's CPU over it and its samples go into record."""
    sampler, leader = run.sampler, run.leader
    sampler.phase = name
    cpu0, t0, tally0 = sampler.proc()[1], time.monotonic(), dict(run.tally)
    me0 = resource.getrusage(resource.RUSAGE_SELF)
    out = {"phase": name}  # body fills it as it goes: a phase the leader did not live through still says how far it got
    try:
        await body(t0, out)
    finally:
        out["wall_s"] = round(time.monotonic() - t0, 2)
        try:
            # A leader started again in the phase: its CPU from its start (the stopped one's last seconds are not counted).
            out["leader_cpu_s"] = round(sampler.proc()[1] - (cpu0 if run.leader is leader else 0), 1)
        except (OSError, AttributeError):
            out["leader_cpu_s"] = None
        leader = run.leader
        me = resource.getrusage(resource.RUSAGE_SELF)
        out["tool_cpu_s"] = round(me.ru_utime + me.ru_stime - me0.ru_utime - me0.ru_stime, 1)
        out["counts"] = {k: v - tally0.get(k, 0) for k, v in run.tally.items() if v != tally0.get(k, 0)}
        out["leader"] = sampler.summary(name)
        out["gc"] = jstat(leader.pid) if leader.poll() is None else None
        record.append(out)
        print(f"leader_load: {name}: {out['wall_s']} s", file=sys.stderr, flush=True)
    return out


async def settle(run, limit):
    """Until no plan came for QUIET seconds (the leader has published what it had), or limit seconds."""
    t0 = time.monotonic()
    while time.monotonic() - max(run.last_plan, t0) < QUIET and time.monotonic() - t0 < limit:
        run.alive()
        await asyncio.sleep(0.1)


async def everywhere(run, marker, agents, until):
    """Until agents agents have had a plan holding marker, or until (monotonic) is past; says whether they all had."""
    while run.first.get(marker, 0) < agents and time.monotonic() < until:
        run.alive()
        await asyncio.sleep(0.05)
    return run.first.get(marker, 0) >= agents


async def delivery(run, agents, marker, ctl_args, limit, out):
    """ctl's set, then each agent's receipt of a plan holding marker, timed from ctl's start, into out."""
    run.markers = run.markers + (marker,)
    log = os.path.join(run.state, "leader.log")
    log_from = os.path.getsize(log)
    t0 = time.monotonic()
    ctl = await asyncio.create_subprocess_exec(run.args.ctl, "--leader", "unix:" + os.path.join(run.state, "leader.sock"), "slurm", "set",
                                               *ctl_args, "-o", "json", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = await ctl.communicate()
    ctl_s = time.monotonic() - t0
    if ctl.returncode != 0:
        raise RuntimeError(f"ctl slurm set {' '.join(ctl_args)} failed ({ctl.returncode}): {err.decode().strip()}")
    try:
        await everywhere(run, marker, len(agents), t0 + limit)
    finally:
        got = [a.seen[marker] - t0 for a in agents if marker in a.seen]
        sizes = run.sizes.get(marker, [])
        after = spread([g - ctl_s for g in got])  # from ctl's exit: the leader's part, without ctl's own start
        out.update({"ctl_s": round(ctl_s, 2), "done": len(got), "of": len(agents),
                    "plan_kib_median": round(statistics.median(sizes) / 1024) if sizes else None, **spread(got),
                    "after_ctl_p50_ms": after.get("p50_ms"), "after_ctl_p99_ms": after.get("p99_ms"),
                    "after_ctl_max_ms": after.get("max_ms")})
    await settle(run, limit)
    out.update(written(log, log_from))


class Admin(http.client.HTTPConnection):
    """The leader's admin API on its unix socket, as ctl calls it: one kept-alive connection."""

    def __init__(self, path):
        super().__init__("localhost", timeout=120)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)

    def timed(self, method, path, body=None, headers=None):
        """(status, the answer's ETag, seconds from the request's send to its whole answer)."""
        t0 = time.monotonic()
        self.request(method, path, body=json.dumps(body).encode() if body is not None else None,
                     headers=dict({"Content-Type": "application/json"} if body is not None else {}, **(headers or {})))
        answer = self.getresponse()
        answer.read()
        return answer.status, answer.getheader("ETag"), time.monotonic() - t0


async def writes(run, agents, count, limit, out):
    """count settings writes (PATCH /v1/slurm/settings, as `ctl slurm set` sends it: If-Match the revision read), each
    waited for at every agent before the next; then count lends and unlends of one node (POST and DELETE
    /v1/slurm/lent/NODE, as `ctl slurm lend` and `unlend`). Each timed from its send to its answer: the write
    acknowledged, in the store (durable) and reviewed, which is what the store changes; ctl's own start is not in it."""
    loop = asyncio.get_running_loop()
    admin = Admin(os.path.join(run.state, "leader.sock"))
    call = lambda *a, **k: loop.run_in_executor(None, lambda: admin.timed(*a, **k))
    status, etag, _ = await call("GET", "/v1/slurm/settings")
    if status != 200:
        raise RuntimeError(f"GET /v1/slurm/settings answered {status}")
    took, refused, late = {"set": [], "lend": [], "unlend": []}, Tally(), 0
    for i in range(count):
        marker = f"MaxJobCount={30001 + i}".encode()
        run.markers = run.markers + (marker,)
        status, etag, s = await call("PATCH", "/v1/slurm/settings", {"slurm_conf": {"MaxJobCount": str(30001 + i)}},
                                     {"If-Match": etag})
        took["set"].append(s)
        if status != 200:
            refused.add(f"set {status}")
            status, etag, _ = await call("GET", "/v1/slurm/settings")
            continue
        late += not await everywhere(run, marker, len(agents), time.monotonic() + limit)
    node = agents[-1].name  # not the controller
    for i in range(count):
        for what, method in (("lend", "POST"), ("unlend", "DELETE")):
            status, _, s = await call(method, f"/v1/slurm/lent/{node}")
            took[what].append(s)
            if status not in (200, 204):
                refused.add(f"{what} {status}")
    admin.close()
    for what, values in took.items():
        if values:
            out[f"{what}_ms_median"] = round(statistics.median(values) * 1000, 1)
            out[f"{what}_ms_max"] = round(max(values) * 1000, 1)
    out.update({"writes": count, "refused": refused, "not_everywhere_in_time": late, "done": count - late, "of": count})
    await settle(run, limit)


# The leader's own account of a publish (Wave): when each answer a publish woke was written to its connection.
WRITTEN = re.compile(r"the new plans of (\d+) waiting machines? written to their connections (\d+) ms \(p50\), (\d+) ms \(p99\), "
                     r"(\d+) ms \(the last\)")


def written(log, offset):
    """The leader's figures for the largest publish logged since offset: how long after its planning began the answers
    to the waiting polls were written to their connections (the leader's side of a delivery, without the agents' own
    reading; an older build logs none)."""
    with open(log, "rb") as f:
        f.seek(offset)
        found = [tuple(map(int, m.groups())) for m in WRITTEN.finditer(f.read().decode("utf-8", "replace"))]
    if not found:
        return {}
    n, p50, p99, last = max(found)
    return {"leader_written": n, "leader_written_p50_ms": p50, "leader_written_p99_ms": p99, "leader_written_max_ms": last}


async def restart(run, agents, limit, t0, out):
    """The leader stopped as systemctl restart stops it, and started again on the same state and ports; then each
    agent's status taken by it (timed from the stop), and how many plans it sent again (none: each agent said which it holds)."""
    loop = asyncio.get_running_loop()
    sent = run.tally.get("polls answered 200", 0)
    run.restarted, run.sampler.between = t0, True
    old = run.leader
    old.terminate()
    await loop.run_in_executor(None, old.wait, 120)
    out["stopped_s"] = round(time.monotonic() - t0, 2)
    new = await loop.run_in_executor(None, lambda: start_leader(run.args, run.state, run.ports)[0])
    new.etcd = old.etcd
    run.leader, run.sampler.pid, run.sampler.between = new, new.pid, False
    out["ready_s"] = round(time.monotonic() - t0, 2)
    try:
        while any(a.back is None for a in agents) and time.monotonic() - t0 < limit:
            run.alive()
            await asyncio.sleep(0.1)
        await settle(run, limit)
    finally:
        back = [a.back - t0 for a in agents if a.back is not None]
        out.update({"done": len(back), "of": len(agents), **spread(back)})
        out["plans_sent_again"] = run.tally.get("polls answered 200", 0) - sent
        out["window_s"] = max((a.window for a in agents), default=0)  # the reconnection window the agents held


async def load(args, run, record):
    # SIGINT or SIGTERM stops the run where it is, and what was measured is still printed.
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, asyncio.current_task().cancel)
    agents = [Agent(i) for i in range(args.agents)]
    gate = asyncio.Semaphore(args.concurrency)
    made = subprocess.run([args.ctl, "--leader", "unix:" + os.path.join(run.state, "leader.sock"), "slurm", "join-token", "-o", "json"],
                          check=True, capture_output=True, text=True)
    token = json.loads(made.stdout)["token"]

    async def joins(t0, out):
        try:
            await asyncio.gather(*(run.join(a, token, gate, t0 + args.phase_timeout) for a in agents))
        finally:
            done = [a.joined for a in agents if a.joined is not None]
            out.update({"done": len(done), "of": len(agents), **spread(done)})
        run.alive()

    async def facts(t0, out):
        joined = [a for a in agents if a.credential]
        try:
            await asyncio.gather(*(run.facts(a, gate, t0 + args.phase_timeout) for a in joined))
            await settle(run, args.phase_timeout)
        finally:
            done = [a.reported for a in joined if a.reported is not None]
            out.update({"done": len(done), "of": len(joined), **spread(done)})
            out["holding_a_plan"] = sum(1 for a in joined if a.revision > 0)
            out["settled_s"] = round(time.monotonic() - t0, 2)

    try:
        await phase(run, record, "join", joins)
        if args.until == "join":
            return
        await phase(run, record, "facts", facts)
        if args.until == "facts":
            return
        live = [a for a in agents if a.tasks]
        if not any(a.name == "g00000" for a in live):
            raise RuntimeError("g00000, the controller, did not join: nothing to set")
        # all_nodes rather than nodes=<every name>: one line for any N (10,000 names would be 70 KB of the settings' 1 MiB).
        await phase(run, record, "enable", lambda t0, out: delivery(
            run, live, b"ClusterName=", ["enabled=true", "controller=g00000", "all_nodes=true"]
            + (["shared.path=/shared", "shared.server=g00000"] if args.shared else []), args.phase_timeout, out))
        if args.until == "enable":
            return
        await phase(run, record, "change", lambda t0, out: delivery(
            run, live, b"MaxJobCount=20000", ["slurm_conf.MaxJobCount=20000"], args.phase_timeout, out))
        if args.until == "change":
            return
        if args.writes:
            await phase(run, record, "writes", lambda t0, out: writes(run, live, args.writes, args.phase_timeout, out))
        if args.until == "writes":
            return
        await phase(run, record, "restart", lambda t0, out: restart(run, live, args.phase_timeout, t0, out))
    finally:
        run.stopping = True
        for a in agents:
            for t in a.tasks:
                t.cancel()
            for c in (a.poll, a.side):
                if c:
                    c.close()
        await asyncio.sleep(0.5)


def start_leader(args, state, ports=None):
    """The leader, ready; ports (http, agents' channel): a restart on the state and ports of the one before (its log
    appended to, its store as it was)."""
    again = ports is not None
    port, agent_port = ports or (free_port(), free_port())
    env = dict(os.environ, SLURMLET_STATE_DIR=state, QUARKUS_HTTP_PORT=str(port),
               QUARKUS_HTTP_DOMAIN_SOCKET=os.path.join(state, "leader.sock"),
               QUARKUS_CONFIG_LOCATIONS=os.path.join(state, "agent.yaml"), SLURMLET_NODE_ENABLED="false",
               SLURMLET_LEADER_AGENT_HOST="127.0.0.1", SLURMLET_LEADER_AGENT_PORT=str(agent_port))
    notes = []
    etcd = None
    if args.store == "etcd" and not again:
        etcd, yaml, said = start_etcd(args, state)
        with open(os.path.join(state, "agent.yaml"), "w") as f:
            f.write(yaml)
        notes.append(said)
    wanted = args.agents * (1 if args.one_connection else CONNECTIONS_PER_AGENT) + 64
    if wanted > DEFAULT_CONNECTIONS:
        env["SLURMLET_LEADER_AGENT_CONNECTIONS"] = str(wanted)
        notes.append(f"slurmlet.leader.agent-connections set to {wanted} "
                     f"(SLURMLET_LEADER_AGENT_CONNECTIONS): {1 if args.one_connection else CONNECTIONS_PER_AGENT} per agent")
    if args.reconnect_rate:
        env["SLURMLET_LEADER_RECONNECT_RATE"] = str(args.reconnect_rate)
        notes.append(f"slurmlet.leader.reconnect-rate set to {args.reconnect_rate}")
    if args.xmx:
        env["SLURMLET_AGENT_JVM_OPTS"] = (env.get("SLURMLET_AGENT_JVM_OPTS", "") + " -Xmx" + args.xmx).strip()
        notes.append(f"the leader's heap set with SLURMLET_AGENT_JVM_OPTS=-Xmx{args.xmx}")
    log = open(os.path.join(state, "leader.log"), "ab" if again else "wb")
    p = subprocess.Popen([args.agent], env=env, stdout=log, stderr=subprocess.STDOUT)
    p.etcd = etcd
    if etcd:  # ended with this tool whatever way it ends (the leader's own end is awaited in main)
        atexit.register(lambda: etcd.poll() is None and (etcd.terminate(), etcd.wait(timeout=30)))
    t0 = time.monotonic()
    while True:
        if p.poll() is not None:
            sys.exit(f"leader_load.py: the leader exited with {p.returncode} before it was ready: see {state}/leader.log")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/q/health/ready", timeout=1):
                break
        except OSError:
            if time.monotonic() - t0 > 120:
                sys.exit(f"leader_load.py: the leader was not ready in 120 s: see {state}/leader.log")
            time.sleep(0.05)
    return p, port, agent_port, notes


def leader_ca(state, agent_port, ctl):
    """The cluster's CA: in the state folder with the file store; on etcd (where it is sealed) fetched as a new machine
    fetches it (GET /v1/join/ca) and kept only if its pin is the one `ctl slurm join-token` prints."""
    kept = os.path.join(state, "pki/ca.crt")
    if os.path.exists(kept):
        return kept
    loose = ssl.create_default_context()
    loose.check_hostname, loose.verify_mode = False, ssl.CERT_NONE
    t0 = time.monotonic()
    while True:  # on etcd the agents' channel opens once this agent is elected, after ready
        try:
            with urllib.request.urlopen(f"https://127.0.0.1:{agent_port}/v1/join/ca", timeout=10, context=loose) as r:
                pem = r.read()
            break
        except OSError as e:
            if time.monotonic() - t0 > 60:
                sys.exit(f"leader_load.py: the leader's agents' channel did not answer in 60 s: {e}; see {state}/leader.log")
            time.sleep(0.2)
    fetched = os.path.join(state, "ca.crt")
    with open(fetched, "wb") as f:
        f.write(pem)
    key = subprocess.run(["openssl", "x509", "-in", fetched, "-pubkey", "-noout"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key, check=True, capture_output=True).stdout
    said = subprocess.run([ctl, "--leader", "unix:" + os.path.join(state, "leader.sock"), "slurm", "join-token", "-o", "json"],
                          check=True, capture_output=True, text=True).stdout
    if "sha256:" + hashlib.sha256(der).hexdigest() not in said:
        sys.exit(f"leader_load.py: the CA at /v1/join/ca is not the one `ctl slurm join-token` pins: {said}")
    return fetched


def start_etcd(args, state):
    """One etcd member on loopback (plain http, its data in the state folder, on the file store's disk),
    and the leader's agent.yaml that keeps its store there: what StoreBenchmark measures, at scale."""
    etcd = shutil.which("etcd") or sys.exit("leader_load.py: --store etcd needs etcd (apt-get install etcd-server)")
    version = subprocess.run([etcd, "--version"], capture_output=True, text=True).stdout.split("\n")[0].split()[-1]
    client, peer = free_port(), free_port()
    data = os.path.join(state, "etcd")
    log = open(os.path.join(state, "etcd.log"), "wb")
    p = subprocess.Popen([etcd, "--name", "m0", "--data-dir", data, "--listen-client-urls", f"http://127.0.0.1:{client}",
                          "--advertise-client-urls", f"http://127.0.0.1:{client}", "--listen-peer-urls", f"http://127.0.0.1:{peer}",
                          "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}", "--initial-cluster", f"m0=http://127.0.0.1:{peer}",
                          "--quota-backend-bytes", str(8 << 30), "--log-level", "warn"], stdout=log, stderr=subprocess.STDOUT)
    t0 = time.monotonic()
    while True:
        if p.poll() is not None:
            sys.exit(f"leader_load.py: etcd exited with {p.returncode}: see {state}/etcd.log")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{client}/health", timeout=1) as r:
                if b'"true"' in r.read():
                    break
        except OSError:
            pass
        if time.monotonic() - t0 > 60:
            sys.exit(f"leader_load.py: etcd was not healthy in 60 s: see {state}/etcd.log")
        time.sleep(0.1)
    key = os.path.join(state, "secrets.key")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(os.urandom(32).hex())
    yaml = (f"slurmlet:\n  leader:\n    store:\n      kind: etcd\n      etcd:\n"
            f"        endpoints: [http://127.0.0.1:{client}]\n        insecure-plaintext: true\n        secrets-key-file: {key}\n")
    return p, yaml, (f"the leader's store: etcd {version}, one member on loopback (plain http, its data in the state folder, "
                     f"quota 8 GiB)")


def log_findings(state, upto):
    """What the leader's log says went wrong before it was stopped (its first upto bytes): counts, and the first lines of each kind."""
    try:
        with open(os.path.join(state, "leader.log"), "rb") as f:
            lines = f.read(upto).decode(errors="replace").splitlines()
    except OSError:
        return {}
    pick = lambda word: [l.strip() for l in lines if word in l]
    return {"OutOfMemoryError": pick("OutOfMemoryError")[:5], "ERROR": pick(" ERROR ")[:10], "errors": len(pick(" ERROR ")),
            "dead_threads": pick("Exception in thread")[:5], "WARN": len(pick(" WARN ")), "warn_first": pick(" WARN ")[:5]}


def measured(args):
    """Which build is measured: this tree's commit (and whether its code differs from it) and when the agent was built."""
    tree = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h"], capture_output=True, text=True).stdout.strip()
    if subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "agent", "shared-model", "ctl"],
                      capture_output=True, text=True).stdout:
        tree += " with uncommitted changes to agent/, shared-model/ or ctl/"
    app = os.path.join(os.path.abspath(args.home), "lib/agent") if args.home else os.path.join(ROOT, "agent/target/quarkus-app")
    built = time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(os.path.join(app, "quarkus-run.jar"))))
    return f"{args.home} (built {built}; this tree: {tree})" if args.home else f"{tree} (built {built})"


def table(result):
    print(f"\n{result['agents']:,} agents, concurrency {result['concurrency']}, {result['date']}, {os.cpu_count()} CPUs, "
          f"load {result['load_before']} → {result.get('load_after')}, tree {result['tree']}; "
          f"leader heap {result['leader_heap_mib']} MiB ({' '.join(result['leader_jvm_options'])}), "
          f"open files {result['leader_open_files']}")
    for n in result["notes"]:
        print(f"  {n}")
    print(f"\n| phase | wall | done | p50 | p90 | p99 | max | leader CPU | tool CPU | RSS peak (median) | fds peak | ready ≠ 200 | GC |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in result["phases"]:
        lead, gc = p.get("leader", {}), p.get("gc") or {}
        ms = lambda k: f"{p[k]:,} ms" if k in p else ""
        print(f"| {p['phase']} | {p['wall_s']:.1f} s | {p.get('done', '')}/{p.get('of', '')} | {ms('p50_ms')} | {ms('p90_ms')} "
              f"| {ms('p99_ms')} | {ms('max_ms')} | {'—' if p['leader_cpu_s'] is None else p['leader_cpu_s']} s | {p['tool_cpu_s']} s "
              f"| {lead.get('rss_mib_peak', '?')} ({lead.get('rss_mib_median', '?')}) MiB | {lead.get('fds_peak', '?')} "
              f"| {lead.get('ready_not_200_in_2s', '?')}/{lead.get('samples', '?')} "
              f"| {gc.get('gc_s', '?')} s, {gc.get('full_gcs', '?')} full |")
    for p in result["phases"]:
        extra = {k: p[k] for k in ("ctl_s", "after_ctl_p50_ms", "after_ctl_p99_ms", "after_ctl_max_ms", "leader_written",
                                   "leader_written_p50_ms", "leader_written_p99_ms", "leader_written_max_ms", "plan_kib_median",
                                   "holding_a_plan", "settled_s", "stopped_s", "ready_s", "plans_sent_again", "set_ms_median",
                                   "set_ms_max", "lend_ms_median", "lend_ms_max", "unlend_ms_median", "unlend_ms_max", "refused",
                                   "not_everywhere_in_time") if k in p}
        said = "; ".join(json.dumps(d)[1:-1] for d in (extra, p["counts"]) if d)
        if said:
            print(f"  {p['phase']}: {said}")
    if result.get("error"):
        print(f"\nstopped: {result['error']}")
    f = result["leader_log"]
    said = list(dict.fromkeys(f.get("dead_threads", []) + f.get("OutOfMemoryError", []) + f.get("ERROR", [])))[:3]
    if said:
        print(f"leader's log ({f['errors']} ERROR lines; a thread that died, then the first errors):", *said, sep="\n  ")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=200, help="joins and facts reports in flight at once")
    ap.add_argument("--xmx", help="the leader's heap, as 1g (SLURMLET_AGENT_JVM_OPTS=-Xmx…); the launcher's own: 256 MiB")
    ap.add_argument("--phase-timeout", type=float, default=600, help="seconds a phase may wait for every agent")
    ap.add_argument("--json", help="write every figure there")
    ap.add_argument("--keep", action="store_true", help="keep the leader's state folder (kept anyway when a run fails)")
    ap.add_argument("--one-connection", action="store_true",
                    help="each agent holds only its poll's connection (its status goes on it between two polls), and opens "
                         "one for each facts call")
    ap.add_argument("--home", help="an installed slurmlet (its bin/ and lib/, as /usr/lib/slurmlet) instead of this tree's build")
    ap.add_argument("--smoke", action="store_true", help="20 agents, short waits (CI)")
    ap.add_argument("--writes", type=int, default=0,
                    help="after change: this many settings writes through the admin API, each waited for at every agent, "
                         "then as many lends and unlends of one node, each timed (the store's part of a write)")
    ap.add_argument("--shared", action="store_true",
                    help="enable with shared storage (shared.path=/shared, shared.server=g00000): every other agent mounts "
                         "what the controller's machine exports")
    ap.add_argument("--until", choices=["join", "facts", "enable", "change", "writes", "restart"], default="restart",
                    help="the last phase to run (the phases run in this order)")
    ap.add_argument("--no-digest", action="store_true",
                    help="agents poll without the digest of the plan they hold, as an earlier build's do: a restarted leader "
                         "sends each its plan again")
    ap.add_argument("--no-spread", action="store_true",
                    help="agents reconnect after the backoff alone (1 s doubling, a second of jitter), not over the window "
                         "the leader gives, as an earlier build's do")
    ap.add_argument("--reconnect-rate", type=int,
                    help="slurmlet.leader.reconnect-rate: machines a second the leader takes back (the window it gives)")
    ap.add_argument("--store", choices=["file", "etcd"], default="file",
                    help="the leader's store: its state folder's files (the default), or one etcd member started here")
    args = ap.parse_args()
    bin_dir = os.path.join(os.path.abspath(args.home), "bin") if args.home else BIN
    args.agent, args.ctl = os.path.join(bin_dir, "slurmlet-agent"), os.path.join(bin_dir, "ctl")
    # The launchers' start-up caches made now, as a package's postinst does, so that no training run
    # starts in the background during the measure (nothing is done where they exist).
    for program in (args.agent, args.ctl):
        subprocess.run([program], env=dict(os.environ, SLURMLET_WARM="1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if args.smoke:
        args.agents, args.concurrency, args.phase_timeout = 20, 20, 60
        args.writes = args.writes or 3

    # Both ends hold every connection: this process and the leader (which inherits the limit) each need one file per connection.
    limit = open_files_limit(max(65536, args.agents * CONNECTIONS_PER_AGENT + 4096))
    auto_one = not args.one_connection and limit < args.agents * CONNECTIONS_PER_AGENT + 1024
    args.one_connection = args.one_connection or auto_one
    state = tempfile.mkdtemp(prefix="slurmlet-leader-load-")
    leader, http_port, agent_port, notes = start_leader(args, state)
    cmdline = open(f"/proc/{leader.pid}/cmdline").read().split("\0")
    options, heap = heap_of(cmdline, cmdline[0])
    files = re.search(r"^Max open files\s+(\d+)", open(f"/proc/{leader.pid}/limits").read(), re.M).group(1)
    unit = re.search(r"^LimitNOFILE=(\S+)", open(UNIT).read(), re.M)
    notes.append(f"open files: this tool {limit}, the leader {files} (inherited); the systemd unit's LimitNOFILE="
                 f"{unit.group(1) if unit else 'unset'}")
    if args.no_spread:
        notes.append("agents reconnect after the backoff alone (--no-spread), not over the leader's window, as an earlier build's do")
    if args.no_digest:
        notes.append("agents poll without the digest of the plan they hold (--no-digest), as an earlier build's do")
    if args.one_connection:
        notes.append("one connection per agent (its poll's, which also takes its status between two polls), a new one for each "
                     "facts call"
                     + (f": {args.agents} agents × 2 would not fit the open-file limit ({limit}), which could not be raised"
                        if auto_one else ""))
    result = {"agents": args.agents, "store": args.store, "digest": not args.no_digest, "spread": not args.no_spread, "concurrency": args.concurrency, "one_connection": args.one_connection,
              "date": time.strftime("%Y-%m-%d %H:%M"), "tree": measured(args), "load_before": round(os.getloadavg()[0], 2),
              "leader_jvm_options": options, "leader_heap_mib": heap, "leader_open_files": int(files), "notes": notes,
              "state": state, "phases": []}
    sampler = Sampler(leader.pid, http_port, os.path.join(state, "leader.log"))
    sampler.start()
    failed = True
    run = Run(args, state, agent_port, leader, sampler)
    run.ports = (http_port, agent_port)
    try:
        asyncio.run(load(args, run, result["phases"]))
        failed = (run.leader.poll() is not None or any(p.get("done", 0) < p.get("of", 0) for p in result["phases"])
                  or not args.no_digest and any(p.get("plans_sent_again") for p in result["phases"]))
    except (LeaderGone, RuntimeError) as e:
        result["error"] = str(e)
    except asyncio.CancelledError:
        result["error"] = f"stopped by a signal, in the phase {sampler.phase}"
    finally:
        leader = run.leader  # the one started again, after a restart
        sampler.stopped.set()
        sampler.join(5)
        result["leader_overall"] = sampler.summary()
        result["leader_exit"] = leader.poll()
        result["load_after"] = round(os.getloadavg()[0], 2)
        logged = os.path.getsize(os.path.join(state, "leader.log"))  # what it said before we stop it
        if leader.poll() is None:
            leader.terminate()
            try:
                leader.wait(timeout=30)
            except subprocess.TimeoutExpired:
                leader.kill()
        if leader.etcd and leader.etcd.poll() is None:
            leader.etcd.terminate()
            leader.etcd.wait(timeout=30)
        result["leader_log"] = log_findings(state, logged)
        result["samples"] = sampler.samples
        table(result)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1)
        if failed or args.keep:
            print(f"\nthe leader's state and log are kept in {state} (leader.log)")
        else:
            shutil.rmtree(state, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
