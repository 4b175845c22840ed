#!/usr/bin/env python3
"""Tests of scripts/strata-autotune under PoCL (the times mean nothing; the
plumbing is the test), on the three pipelines of tiny_pipelines_generator.

  local  2 batches x 3 pipelines x K=4 on this machine, benchmarks pinned to a
         fake list of two GPUs (CUDA_VISIBLE_DEVICES checked, never shared by
         two benchmarks at once); log, retrain, weights, plots and summary.
  kill   the loop killed with SIGKILL --kills times at seeded random points
         (timed kills, and kills at the commit, log-append, weights and
         retrain points, a torn log line among them); after each kill the log
         parses, holds no measurement twice and nothing uncommitted, and once
         a rerun has started every measurement finished before it is in the
         log; at the end every finished measurement is in it exactly once.
  slurm  the local test's run through a single-node Slurm cluster (munged,
         slurmctld, slurmd) started here on localhost from a minimal
         configuration in a temporary folder, stopped at the end, the loop
         killed once while batch 1's benchmark array is queued (the rerun
         waits for that array instead of submitting it again); exit 77
         (skipped) with the reason when the cluster cannot be started.

usage: autotune_test.py local|kill|slurm --source-dir DIR --build-dir DIR --generator BIN --work DIR
                        [--kills N] [--seed N]
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def committed(out):
    """{key: measure.json} of every committed measurement of the run in out."""
    result = {}
    for m in sorted(Path(out).glob("batches/[0-9][0-9][0-9]/*/s[0-9][0-9]/measure.json")):
        try:
            value = read_json(m)
        except ValueError as e:
            fail(f"{m}: a torn measurement file ({e})")
        key = f"{int(m.parent.parent.parent.name)}/{m.parent.parent.name}/{int(m.parent.name[1:])}"
        result[key] = value
    return result


def log_keys(out, allow_torn_tail):
    """The keys of the log's records; fails on an unparsable line, a duplicate, or a torn last line
    unless allowed (a kill mid-append leaves one until the rerun cuts it)."""
    path = Path(out) / "profile.jsonl"
    if not path.exists():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines[-1] != b"":
        if not allow_torn_tail:
            fail(f"{path}: a torn last line ({len(lines[-1])} bytes without a newline)")
    lines = lines[:-1]
    keys = []
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
            keys.append(record["autotune"]["key"])
            record["times"]["median_ms"], record["stages"], record["featurized_for"]["name"]
        except (ValueError, KeyError, TypeError) as e:
            fail(f"{path}:{number}: not a whole record ({e}): {line[:200]!r}")
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        fail(f"{path}: measurements logged more than once: {sorted(duplicates)}")
    return keys


def check_consistent(out, allow_torn_tail, must_hold=()):
    """Invariants that hold at any moment: the log holds only committed measurements, each once;
    every file the loop commits is whole."""
    keys = log_keys(out, allow_torn_tail)
    done = committed(out)
    for k in keys:
        if k not in done or done[k].get("status") != "ok":
            fail(f"the log holds {k}, which has no committed successful measurement")
    missing = [k for k in must_hold if k not in keys]
    if missing:
        fail(f"measurements finished before the rerun started are missing from the log: {missing}")
    for pattern in ("config.json", "gpu-spec.json", "weights.json", "batches/*/plan.json", "batches/*/retrain.json",
                    "batches/*/*/s*/job.json", "batches/*/*/s*/compile.json"):
        for f in Path(out).glob(pattern):
            try:
                read_json(f)
            except ValueError as e:
                fail(f"{f}: torn ({e})")
    return keys, done


def check_complete(out, pipelines, k, batches):
    keys, done = check_consistent(out, allow_torn_tail=False)
    expected = {f"{b}/{p}/{s}" for b in range(1, batches + 1) for p in pipelines for s in range(k)}
    if set(done) != expected:
        fail(f"measurements: expected {sorted(expected)}, found {sorted(done)}")
    ok = {key for key, m in done.items() if m["status"] == "ok"}
    if set(keys) != ok:
        fail(f"the log should hold exactly the {len(ok)} successful measurements, it holds {len(keys)}: "
             f"missing {sorted(ok - set(keys))}")
    for b in range(1, batches + 1):
        for p in pipelines:
            if not any(f"{b}/{p}/{s}" in ok for s in range(k)):
                fail(f"batch {b}: no schedule of {p} was measured: "
                     f"{[done[f'{b}/{p}/{s}'] for s in range(k)]}")
    failures = {key: m["status"] for key, m in done.items() if m["status"] != "ok"}
    if len(failures) > len(expected) // 4:
        fail(f"too many failed measurements: {failures}")
    for b in range(1, batches + 1):
        r = read_json(Path(out) / f"batches/{b:03d}/retrain.json")
        if r["status"] != "accepted":  # --force-weights: the plumbing of new weights is exercised
            fail(f"batch {b}: strata-retrain did not give weights: {r}")
    plan2 = read_json(Path(out) / "batches/002/plan.json")
    if plan2["weights"] is None or plan2["weights_id"] != read_json(Path(out) / "batches/001/retrain.json")["weights"]:
        fail(f"batch 2 did not search with the weights batch 1's retrain accepted: {plan2}")
    header = (Path(read_json(Path(out) / "batches/002" / pipelines[0] / "s00/compile.json")["attempt"]) /
              "pipeline.schedule.h").read_text()
    if "by the learned model" not in header or "batches/002/weights.json" not in header:
        fail("batch 2's schedules do not name the batch's weights:\n" + header[:1500])
    for f in ("summary.txt", "best-per-batch.png", "predicted-vs-measured.png", "weights.json"):
        if not (Path(out) / f).exists():
            fail(f"no {f} in {out}")
    print(f"ok: {len(ok)} measurements logged once each, {len(failures)} failed ({failures or 'none'}); "
          f"both retrains gave weights; plots written", flush=True)
    return done


def autotune_command(a, out, pipelines, k, extra=(), batches=2):
    return [str(Path(a.source_dir) / "scripts/strata-autotune"), "--target", "opencl", "--build-dir", a.build_dir,
            "--out", str(out), "--batches", str(batches), "-k", str(k), "--jobs", "2", "--samples", "3", "--warmups", "1",
            "--compile-timeout", "180", "--bench-timeout", "180", "--retrain-args", "--epochs 30",
            "--force-weights", "--progress", "plain"] + list(extra) + [f"{a.generator}:{p}" for p in pipelines]


PIPELINES = ["tiny_blur", "tiny_chain", "tiny_row_sum"]


def test_local(a):
    out = Path(a.work) / "run"
    shutil.rmtree(a.work, ignore_errors=True)
    Path(a.work).mkdir(parents=True)
    start = time.monotonic()
    r = subprocess.run(autotune_command(a, out, PIPELINES, 4, ["--gpus", "7,3"]), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    print(r.stdout, flush=True)
    if r.returncode != 0:
        fail(f"strata-autotune exited with {r.returncode}")
    done = check_complete(out, PIPELINES, 4, 2)
    # Pinning: each benchmark saw one GPU of the list, and two running at once never shared one.
    runs = [m for m in done.values() if m.get("started")]
    seen = {m["visible_devices"] for m in runs}
    if not seen <= {"7", "3"} or len(seen) != 2:
        fail(f"benchmarks ran with CUDA_VISIBLE_DEVICES {seen}, expected both of 7 and 3")
    for x in runs:
        for y in runs:
            if x is not y and x["visible_devices"] == y["visible_devices"] and \
                    x["started"] < y["ended"] and y["started"] < x["ended"]:
                fail(f"two benchmarks on GPU {x['visible_devices']} at once")
    overlapping = any(x is not y and x["started"] < y["ended"] and y["started"] < x["ended"] for x in runs for y in runs)
    print(f"ok: benchmarks pinned to GPUs {sorted(seen)}, one at a time per GPU"
          f"{', two at once' if overlapping else ''}; {time.monotonic() - start:.0f} s", flush=True)
    # A rerun of a finished run does nothing and keeps the log as it is.
    before = (out / "profile.jsonl").read_bytes()
    r = subprocess.run(autotune_command(a, out, PIPELINES, 4, ["--gpus", "7,3"]), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0 or (out / "profile.jsonl").read_bytes() != before:
        fail(f"a rerun of the finished run changed it (exit {r.returncode}):\n{r.stdout}")
    print("ok: a rerun of the finished run leaves it as it is")


# Where the kill test's loop kills itself (scripts/strata-autotune's crash_point): mid-append of a
# log line (torn), right after an append, a worker before renaming its result, any atomic write
# between its temporary file and the rename, between the weights' copy and their rename, after
# the retrain before its marker.
CRASH_POINTS = ["log-append-torn", "log-append", "measure-commit", "compile-commit", "commit-write",
                "weights-replace", "retrain-done"]


def processes_of(out):
    """Processes whose command line names the run folder: the loop, its workers, compiles, benchmarks."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if str(out).encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            pass
    return found


def wait_gone(out, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not processes_of(out):
            return True
        time.sleep(0.1)
    return False


def test_kill(a):
    out = Path(a.work) / "run"
    shutil.rmtree(a.work, ignore_errors=True)
    Path(a.work).mkdir(parents=True)
    pipelines, k = PIPELINES[:2], 2
    rng = random.Random(a.seed)
    kills, runs, batches, start = 0, 0, 2, time.monotonic()
    kinds, points = {}, []
    while True:
        before = committed(out) if out.exists() else {}
        finished_before = [key for key, m in before.items() if m.get("status") == "ok"]
        env = dict(os.environ)
        finale = kills >= a.kills
        if not finale:
            if runs % 2 == 0:
                # Every other run kills itself the first time it gets to a crash point (each point in
                # turn, in a seeded order; a kill at 60 s if it never gets there).
                if not points:
                    points = rng.sample(CRASH_POINTS, len(CRASH_POINTS))
                point = points.pop()
                env["STRATA_AUTOTUNE_CRASH"] = point
                kind, delay = point, 60.0
            else:
                kind, delay = "timed", rng.uniform(0.3, 4.0)
        log_path = Path(a.work) / f"run-{runs}.log"
        with open(log_path, "w") as log:
            proc = subprocess.Popen(autotune_command(a, out, pipelines, k, batches=batches), stdout=log, stderr=subprocess.STDOUT,
                                    env=env, start_new_session=True)
            try:
                status = proc.wait(timeout=None if finale else delay)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)  # the loop alone; its workers die with it
                status = proc.wait()
                kind = "timed" if kind == "timed" else f"timed (before {kind})"
        runs += 1
        if not wait_gone(out, 20):
            fail(f"processes of the killed loop outlived it by 20 s: {processes_of(out)}")
        text = log_path.read_text()
        started = "log holds" in text  # the rerun reached its start: the log then held what was finished
        if finale:
            if status != 0:
                fail(f"the last run exited with {status}:\n{text}")
            print(text[-3000:])
            break
        if status == -signal.SIGKILL:
            kills += 1
            kinds[kind] = kinds.get(kind, 0) + 1
        elif status != 0:
            fail(f"run {runs} exited with {status}:\n{text}")
        else:
            # The run finished before the kill: extend it by a batch (and try its crash point again).
            if kind in CRASH_POINTS:
                points.append(kind)
            batches += 1
            print(f"run {runs} finished before its kill; extending the run to {batches} batches", flush=True)
        if out.exists():
            keys, done = check_consistent(out, allow_torn_tail=True, must_hold=finished_before if started else ())
            print(f"kill {kills} ({kind}): log {len(keys)} records, {len(done)} measurements committed; "
                  f"checks pass", flush=True)
    check_complete(out, pipelines, k, batches)
    print(f"ok: {kills} SIGKILLs ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}), {runs} runs, "
          f"{time.monotonic() - start:.0f} s", flush=True)
    if kills < 20:
        fail("fewer than 20 kills")
    missed = [p for p in CRASH_POINTS if p not in kinds]
    if missed:
        fail(f"the loop never got to the crash points {missed}")


# --- a single-node Slurm cluster on localhost ----------------------------------------------------

def skip(reason):
    print(f"SKIP: {reason}", flush=True)
    sys.exit(SKIP)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SlurmCluster:
    def __init__(self, folder):
        self.dir = Path(folder)
        self.procs = []

    def start(self):
        for tool in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol"):
            path = shutil.which(tool) or (f"/usr/sbin/{tool}" if Path(f"/usr/sbin/{tool}").exists() else None)
            if not path:
                skip(f"{tool} is not installed (Debian packages slurm-wlm and munge; scripts/setup installs them)")
        if os.geteuid() != 0:
            skip("slurmd must run as root to start jobs as the submitting user, and this test is not root")
        d = self.dir
        for sub in ("munge", "state", "spool", "log"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(d / "munge", 0o700)
        key = d / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        self.socket = d / "munge" / "munge.socket"
        munged = shutil.which("munged") or "/usr/sbin/munged"
        r = subprocess.run([munged, "--force", f"--key-file={key}", f"--socket={self.socket}",
                            f"--pid-file={d / 'munge' / 'munged.pid'}", f"--log-file={d / 'log' / 'munged.log'}",
                            f"--seed-file={d / 'munge' / 'munged.seed'}"], capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"munged did not start: {r.stderr.strip()}")
        self.munged_pid = int((d / "munge" / "munged.pid").read_text())
        host = socket.gethostname().split(".")[0]
        cpus = os.cpu_count() or 1
        conf = d / "slurm.conf"
        conf.write_text(f"""ClusterName=strata-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.socket}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d / 'state'}
SlurmdSpoolDir={d / 'spool'}
SlurmctldPidFile={d / 'slurmctld.pid'}
SlurmdPidFile={d / 'slurmd.pid'}
SlurmctldLogFile={d / 'log' / 'slurmctld.log'}
SlurmdLogFile={d / 'log' / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SchedulerType=sched/backfill
GresTypes=gpu
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
""")
        # Two fake GPUs: device files Slurm can hand out (it sets CUDA_VISIBLE_DEVICES from their index).
        (d / "gres.conf").write_text(f"NodeName={host} Name=gpu File=/dev/null\nNodeName={host} Name=gpu File=/dev/zero\n")
        os.environ["SLURM_CONF"] = str(conf)
        self.env = dict(os.environ)
        for daemon in ("slurmctld", "slurmd"):
            binary = shutil.which(daemon) or f"/usr/sbin/{daemon}"
            log = open(d / "log" / f"{daemon}.out", "w")
            self.procs.append(subprocess.Popen([binary, "-D", "-f", str(conf)] + (["-i"] if daemon == "slurmctld" else []),
                                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for p in self.procs:
                if p.poll() is not None:
                    self.stop()
                    skip(f"a Slurm daemon exited ({p.args[0]}, status {p.returncode}): {self.logs()}")
            r = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True)
            if r.returncode == 0 and r.stdout.strip() in ("idle", "mix", "alloc"):
                return
            time.sleep(1)
        state = subprocess.run(["sinfo"], capture_output=True, text=True).stdout
        self.stop()
        skip(f"the Slurm node did not become idle within 60 s ({state.strip()}): {self.logs()}")

    def logs(self):
        text = ""
        for f in sorted((self.dir / "log").glob("*")):
            text += f"\n--- {f.name}\n" + "\n".join(f.read_text(errors="replace").splitlines()[-15:])
        return text

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if getattr(self, "munged_pid", None):
            try:
                os.kill(self.munged_pid, signal.SIGTERM)
            except OSError:
                pass


def test_slurm(a):
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # The daemons' files in a short temporary path (socket paths have a length limit).
    cluster = SlurmCluster(tempfile.mkdtemp(prefix="strata-slurm-"))
    cluster.start()
    try:
        out = work / "run"
        start = time.monotonic()
        command = autotune_command(a, out, PIPELINES, 4, ["--slurm", "--slurm-gres", "gpu:1"])
        # Killed once while batch 1's benchmark array runs: the rerun waits for that array, then goes on.
        with open(work / "killed.log", "w") as log:
            proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 300
            while not (out / "batches/001/slurm-bench-0.jobid").exists() and proc.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.2)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        print((work / "killed.log").read_text() + "(killed)", flush=True)
        check_consistent(out, allow_torn_tail=True)
        r = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(r.stdout, flush=True)
        if r.returncode != 0:
            fail(f"strata-autotune --slurm exited with {r.returncode}{cluster.logs()}")
        if not (out / "batches/001/slurm-bench-0.jobid").exists():
            fail("the first run was not killed while batch 1's benchmark array was queued")
        if "waiting for Slurm job" not in r.stdout and "slurm-bench-1" not in str(sorted(out.glob("batches/001/*"))):
            print("note: the benchmark array had left the queue before the rerun looked", flush=True)
        done = check_complete(out, PIPELINES, 4, 2)
        jobs = sorted(out.glob("batches/*/slurm-*.jobid"))
        if len(jobs) < 4:
            fail(f"expected a compile and a benchmark array per batch, found {[j.name for j in jobs]}")
        if len(list(out.glob("batches/001/slurm-bench-*.jobid"))) != 1:
            fail("batch 1's benchmarks were submitted again after the restart instead of waited for")
        devices = {m.get("visible_devices") for m in done.values() if m.get("started")}
        if not devices <= {"0", "1"} or not devices:
            fail(f"Slurm's gres gave the benchmarks CUDA_VISIBLE_DEVICES {devices}, expected 0 or 1")
        print(f"ok: {len(jobs)} Slurm job arrays; benchmarks given GPUs {sorted(devices)} by --gres; "
              f"{time.monotonic() - start:.0f} s", flush=True)
    finally:
        cluster.stop()
        shutil.rmtree(cluster.dir, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["local", "kill", "slurm"])
    p.add_argument("--source-dir", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--generator", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--kills", type=int, default=24)
    p.add_argument("--seed", type=int, default=13)
    a = p.parse_args()
    {"local": test_local, "kill": test_kill, "slurm": test_slurm}[a.mode](a)


if __name__ == "__main__":
    main()
