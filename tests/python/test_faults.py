"""Faults: commands stop when asked (SIGINT, SIGTERM) with one line and exit 130/143,
leaving nothing partial; a sweep survives a run whose worker dies, kills its workers
when stopped and leaves no process behind even when its main process is killed; a
memory cap fails the oversized run alone.

The commands run in their own session, so that every process they start (the
forkserver, the workers) can be found and counted through /proc. Runs are 100 Mb/s
dumbbells: a short one takes a few tenths of a wall second, and one of 1e5 or 1e6
simulated seconds (the longest the engine takes; with a trace interval that keeps its
trace within the cap) runs until it is stopped."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

FAST = ["--set", "path.rate_bps=1e8"]
# A trace interval that lets a 1e5 s run pass the cap on trace rows.
SPARSE = ["--set", "trace.interval_s=1"]
# Nine short runs and one that runs until it is stopped.
DURATIONS = "duration_s=0.2,0.21,0.22,0.23,0.24,0.25,0.26,0.27,0.28,1e5"
SIGNAL_LINES = {
    signal.SIGINT: (130, "wavecc: interrupted\n"),
    signal.SIGTERM: (143, "wavecc: terminated\n"),
}

# Python keeps SIGINT ignored in a child that inherits it ignored (a background job);
# the command is started with the usual Ctrl-C behaviour, as a terminal gives it.
LAUNCH = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from wavecc.cli import main; sys.exit(main(sys.argv[1:]))"
)


def start(*args: str | Path, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCH, *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def session(sid: int) -> dict[int, str]:
    """The live processes (not zombies, which are dead) of a session: pid -> name."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        state, _ppid, _pgrp, session_id = stat[stat.rindex(")") + 2 :].split()[:4]
        if int(session_id) == sid and state != "Z":
            found[int(entry.name)] = name
    return found


def workers(sid: int) -> list[int]:
    return [pid for pid, name in session(sid).items() if name == "wavecc-worker"]


def abort_workers(sid: int, what: str) -> None:
    """Aborts the session's workers once there is one. The one left running the long
    run is meant; a worker whose last run just finished can still be seen beside it
    (two were, once, on CI), and it has no run to fail, so the summary's one failed
    run names the aborted one."""
    for pid in wait_for(lambda: workers(sid), 30, what):
        os.kill(pid, signal.SIGABRT)


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def main_started(pid: int) -> bool:
    """True once the command's main() runs: it has installed its SIGTERM handler."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(status.split("SigCgt:")[1].split()[0], 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


@pytest.fixture
def processes():
    """Kills whatever a test leaves running, whatever happens to the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for child in started:
        for pid in session(child.pid):
            os.kill(pid, signal.SIGKILL)
        child.communicate()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_run_stops_within_a_second_of_a_signal(tmp_path, processes, signum):
    out = tmp_path / "result"
    child = start(
        "run",
        "dumbbell-1g",
        *FAST,
        "--set",
        "duration_s=1e6",
        "--set",
        "trace.interval_s=10",
        "--out",
        out,
        cwd=tmp_path,
    )
    processes.append(child)
    wait_for(lambda: main_started(child.pid), 30, "the command to start")
    time.sleep(0.5)  # into the core's run
    sent = time.monotonic()
    child.send_signal(signum)
    stdout, stderr = child.communicate(timeout=30)
    took = time.monotonic() - sent
    code, line = SIGNAL_LINES[signum]
    assert (child.returncode, stderr) == (code, line)
    assert took < 1.0, f"stopped {took:.2f} s after the signal"
    assert stdout == ""
    assert not out.exists() and list(tmp_path.iterdir()) == []


def sweep_args(out: Path, grid: str, jobs: int = 2) -> list[str]:
    return [
        "sweep",
        "dumbbell-1g",
        *FAST,
        *SPARSE,
        "--grid",
        grid,
        "--jobs",
        str(jobs),
        "--out",
        str(out),
    ]


def read_until(child: subprocess.Popen[str], finished_runs: int) -> list[str]:
    """The progress lines up to the one that reports `finished_runs` runs."""
    lines = []
    for line in child.stdout:
        lines.append(line)
        if line.startswith(f"[{finished_runs}/"):
            return lines
    raise AssertionError(f"the sweep ended early: {''.join(lines)}")


def test_a_run_whose_worker_aborts_fails_alone_and_is_retried_alone(tmp_path, processes):
    out = tmp_path / "store"
    child = start(*sweep_args(out, DURATIONS), cwd=tmp_path)
    processes.append(child)
    read_until(child, 9)
    # Nine runs are done: the only worker left runs the long point. Abort it.
    abort_workers(child.pid, "the long run's worker")
    stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == 1, stderr
    assert "1 run(s) failed" in stdout and "worker killed by SIGABRT" in stdout
    summary = pd.read_parquet(out / "summary.parquet")
    assert sorted(summary["status"]) == ["failed"] + ["ok"] * 9
    failed = summary[summary["status"] == "failed"].iloc[0]
    assert failed["duration_s"] == 1e5 and failed["error"] == "worker killed by SIGABRT"
    record = json.loads((out / "runs" / f"{failed['key']}.failed.json").read_text())
    assert record["error"] == "worker killed by SIGABRT" and record["values"] == {"duration_s": 1e5}
    complete = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir() if p.is_dir()}
    assert len(complete) == 9

    # The next invocation runs the failed point, and only it (aborted again here).
    again = start(*sweep_args(out, DURATIONS), cwd=tmp_path)
    processes.append(again)
    assert again.stdout.readline() == f"sweep: 10 run(s), 9 already in {out}\n"
    abort_workers(again.pid, "the retried run's worker")
    stdout, _ = again.communicate(timeout=60)
    progress = [line for line in stdout.splitlines() if line.startswith("[")]
    assert len(progress) == 1 and failed["key"] in progress[0]
    assert {
        p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir() if p.is_dir()
    } == complete


def test_a_panicking_or_raising_worker_is_recorded_with_its_error():
    """The boundary itself: a worker whose call raises any exception (pyo3's
    PanicException is a BaseException) answers with the error, not by dying."""
    from wavecc.workers import WorkerRaised, run_in_workers

    answers = []
    run_in_workers(_raise_base_exception, [1, 2], 2, lambda item, a: answers.append((item, a)))
    assert sorted(item for item, _ in answers) == [1, 2]
    for item, answer in answers:
        assert isinstance(answer, WorkerRaised)
        assert answer.error == f"GeneratorExit: stopped {item}"
        assert "_raise_base_exception" in answer.traceback


def _raise_base_exception(item: int) -> None:
    raise GeneratorExit(f"stopped {item}")


def test_a_worker_is_reused_until_it_fails_then_replaced():
    from wavecc.workers import WorkerDied, WorkerRaised, run_in_workers

    answers = []
    items = ["pid", "pid", "abort", "pid", "raise", "pid", "pid"]
    run_in_workers(_pid_or_fail, items, 1, lambda item, a: answers.append(a))
    first, same, aborted, second, raised, third, again = answers
    assert first == same and isinstance(first, int)
    assert isinstance(aborted, WorkerDied) and aborted.exitcode == -signal.SIGABRT
    assert aborted.error == "worker killed by SIGABRT: about to abort"
    assert second not in (first, None) and isinstance(raised, WorkerRaised)
    assert third not in (first, second) and again == third


def _pid_or_fail(item: str) -> int:
    if item == "abort":
        os.write(2, b"about to abort\n")
        os.abort()
    if item == "raise":
        raise RuntimeError("failed")
    return os.getpid()


SWEEP_CALL = 'wavecc.sweep("dumbbell-1g", grid={"duration_s": [0.01, 0.02]}, jobs=2, out="store")'
UNGUARDED_SCRIPT = f"import wavecc\n{SWEEP_CALL}\nprint('swept')\n"
GUARDED_SCRIPT = (
    f"import wavecc\nif __name__ == '__main__':\n    {SWEEP_CALL}\n    print('swept')\n"
)


def run_script(directory: Path, text: str) -> subprocess.CompletedProcess[str]:
    (directory / "script.py").write_text(text)
    return subprocess.run(
        [sys.executable, "script.py"], cwd=directory, capture_output=True, text=True, timeout=60
    )


def test_a_script_without_a_main_guard_is_told_to_add_one(tmp_path):
    """Workers import the script that started them, so a sweep at a script's top level
    would start again in each: one error naming the guard, instead of every run failing
    with multiprocessing's tracebacks from each worker."""
    (tmp_path / "unguarded").mkdir()
    done = run_script(tmp_path / "unguarded", UNGUARDED_SCRIPT)
    assert done.returncode == 1 and "swept" not in done.stdout
    assert done.stderr.count("Traceback") == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("wavecc.workers.UnguardedMain: ")
    assert 'put the call under `if __name__ == "__main__":`' in last
    (tmp_path / "guarded").mkdir()
    done = run_script(tmp_path / "guarded", GUARDED_SCRIPT)
    assert (done.returncode, done.stdout) == (0, "swept\n"), done.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_sweep_kills_its_workers_and_keeps_complete_runs(tmp_path, processes, signum):
    out = tmp_path / "store"
    child = start(*sweep_args(out, "duration_s=0.2,0.21,1e5,1.00001e5"), cwd=tmp_path)
    processes.append(child)
    read_until(child, 2)
    wait_for(lambda: len(workers(child.pid)) == 2, 30, "two long runs")
    sent = time.monotonic()
    child.send_signal(signum)
    wait_for(lambda: not session(child.pid), 2, "every process of the sweep to end")
    assert time.monotonic() - sent < 2
    _, stderr = child.communicate(timeout=10)
    assert (child.returncode, stderr) == SIGNAL_LINES[signum]
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert len(runs) == 2 and all((out / "runs" / r / "summary.json").is_file() for r in runs)


def test_killing_a_sweeps_main_process_ends_its_workers(tmp_path, processes):
    out = tmp_path / "store"
    child = start(*sweep_args(out, "duration_s=1e5,1.00001e5"), cwd=tmp_path)
    processes.append(child)
    wait_for(lambda: len(workers(child.pid)) == 2, 60, "two workers")
    os.kill(child.pid, signal.SIGKILL)
    wait_for(lambda: not session(child.pid), 2, "every process of the sweep to end")


def test_max_memory_fails_the_oversized_runs_alone(tmp_path, cli):
    out = tmp_path / "store"
    # Estimated 50, 100 and 170 MB (the trace grows as the interval shrinks). The
    # middle one passes the estimate but outgrows the cap in its worker.
    grid = "trace.interval_s=0.01,5e-6,2e-6"
    done = cli(
        "sweep",
        "dumbbell-1g",
        *FAST,
        "--set",
        "duration_s=0.5",
        "--grid",
        grid,
        "--jobs",
        "2",
        "--max-memory",
        "120M",
        "--out",
        out,
    )
    assert done.returncode == 1, done.stderr
    summary = pd.read_parquet(out / "summary.parquet").set_index("trace.interval_s")
    assert list(summary["status"]) == ["ok", "failed", "failed"]
    # Where the cap is met decides how: a MemoryError in Python, or the core's abort
    # (whose message the worker wrote to its stderr).
    grew = summary.loc[5e-6, "error"]
    assert grew == "MemoryError" or (
        grew.startswith("worker killed by SIGABRT: memory allocation of ")
        and grew.endswith("(it may have reached the memory cap, max_memory 120M)")
    ), grew
    assert done.stderr == ""
    refused = summary.loc[2e-6, "error"]
    assert refused.startswith("refused before it started: the core estimates it needs ")
    assert refused.endswith(" of memory, more than max_memory 120M")


def test_run_max_memory_refuses_or_stops_an_oversized_run(tmp_path, cli):
    done = cli(
        "run",
        "dumbbell-1g",
        *FAST,
        "--set",
        "duration_s=0.5",
        "--set",
        "trace.interval_s=2e-6",
        "--max-memory",
        "120M",
        "--out",
        tmp_path / "r",
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("wavecc: error: the core estimates this run needs ")
    assert "more than max_memory 120M" in done.stderr
    assert not (tmp_path / "r").exists()

    # Within the estimate, but beyond the cap once it runs: one line, nothing written.
    grew = cli(
        "run",
        "dumbbell-1g",
        *FAST,
        "--set",
        "duration_s=0.5",
        "--set",
        "trace.interval_s=5e-6",
        "--max-memory",
        "120M",
        "--out",
        tmp_path / "r",
    )
    assert grew.returncode == 2 and grew.stderr.count("\n") == 1, grew.stderr
    assert grew.stderr.startswith("wavecc: error: the run failed within max_memory 120M: ")
    assert not (tmp_path / "r").exists()

    capped = cli(
        "run",
        "dumbbell-1g",
        *FAST,
        "--set",
        "duration_s=0.5",
        "--max-memory",
        "1G",
        "--no-figure",
        "--out",
        tmp_path / "ok",
    )
    assert capped.returncode == 0, capped.stderr
    assert (tmp_path / "ok" / "summary.json").is_file()


@pytest.mark.parametrize("size", ["lots", "0", "1.5.2G", "2X"])
def test_a_bad_max_memory_is_one_line_and_exit_2(tmp_path, cli, size):
    done = cli(
        "sweep", "dumbbell-1g", "--grid", "cca=cubic", "--max-memory", size, "--out", tmp_path / "s"
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("wavecc: error: --max-memory: expected a size such as 2G")
    assert not (tmp_path / "s").exists()


def test_run_reports_progress_and_a_raising_callback_stops_it():
    import wavecc

    class Enough(Exception):
        pass

    seen = []

    def progress(sim_time_s: float, duration_s: float) -> None:
        seen.append((sim_time_s, duration_s))
        if len(seen) == 3:
            raise Enough

    started = time.monotonic()
    with pytest.raises(Enough):
        wavecc.run(
            "dumbbell-1g",
            overrides=["path.rate_bps=1e8", "duration_s=1e6", "trace.interval_s=10"],
            progress=progress,
        )
    assert time.monotonic() - started < 10
    assert [d for _, d in seen] == [1e6] * 3
    assert 0 < seen[0][0] < seen[1][0] < seen[2][0] < 1e6


def test_run_shows_a_progress_bar_on_a_terminal(tmp_path, processes):
    import pty

    terminal, child_end = pty.openpty()
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            LAUNCH,
            "run",
            "dumbbell-1g",
            *FAST,
            "--set",
            "duration_s=1e6",
            "--set",
            "trace.interval_s=10",
            "--out",
            str(tmp_path / "r"),
        ],
        stdout=child_end,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    processes.append(child)
    os.close(child_end)
    shown = b""
    deadline = time.monotonic() + 60
    while b"of 1e+06 s, wall" not in shown:  # shown after a second of running
        assert time.monotonic() < deadline, shown
        if select.select([terminal], [], [], 1)[0]:
            shown += os.read(terminal, 4096)
    assert b"simulated" in shown and b"ETA" in shown
    child.send_signal(signal.SIGINT)
    assert child.wait(timeout=30) == 130
    os.close(terminal)
