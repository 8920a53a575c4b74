"""Worker processes for sweeps: one fresh process per run, so that a run which raises,
panics, aborts or is killed (for memory, say) fails alone and the next run starts clean.

Each worker is forked from a forkserver that has already imported wavecc (so starting
one costs a fork, not an interpreter and its imports). Workers ignore Ctrl-C (the main
process decides what an interrupt stops, and kills them) and die with the main process
even when it is killed with SIGKILL: on Linux the kernel kills the forkserver when the
main process dies and each worker when the forkserver dies (PR_SET_PDEATHSIG, see
`wavecc._forkserver`); and each worker watches a pipe that only the main process holds
open, which also covers a main process that died before the worker was set up.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import re
import resource
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from ._core import ConfigError

# The name `ps -o comm` and /proc/<pid>/comm show for a worker.
WORKER_NAME = "wavecc-worker"

# Imported once by the forkserver, so that workers start with them loaded.
_PRELOAD = ["wavecc._forkserver"]

_NO_ANSWER = object()


class RunFailed(RuntimeError):
    """A run that stopped in its worker process (an abort, the memory cap, a kill)."""


@dataclass(frozen=True)
class WorkerRaised:
    """The call raised in the worker: any exception, including the core's panics (pyo3's
    PanicException, which is not an Exception)."""

    error: str
    traceback: str


@dataclass(frozen=True)
class WorkerDied:
    """The worker ended without an answer: killed by a signal (an abort, the OOM killer,
    a user's kill) or exited early."""

    exitcode: int
    wall_time_s: float

    @property
    def error(self) -> str:
        if self.exitcode < 0:
            try:
                name = signal.Signals(-self.exitcode).name
            except ValueError:
                name = f"signal {-self.exitcode}"
            return f"worker killed by {name}"
        return f"worker exited with code {self.exitcode} before reporting"


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(size: int | str, name: str) -> int:
    """A memory size in bytes: a whole number of bytes, or a number with K, M, G or T
    (powers of 1024, as `ulimit` and `free` count memory): `2G`, `512M`, `1.5G`."""
    if isinstance(size, int) and not isinstance(size, bool) and size > 0:
        return size
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([KMGT]?)(?:i?B)?\s*", str(size), re.IGNORECASE)
    value = float(match[1]) * _UNITS[match[2].upper()] if match else 0
    if value < 1:
        raise ConfigError(f"{name}: expected a size such as 2G or 512M, not {size!r}")
    return int(value)


def format_size(size: int) -> str:
    """Bytes as the largest unit that keeps a number of at least 1: 2147483648 -> 2G."""
    unit = max((u for u, n in _UNITS.items() if size >= n), key=_UNITS.get, default="")
    return f"{size / _UNITS[unit]:.4g}{unit}"


def describe_exception(error: BaseException) -> str:
    """`Type: message`, or the type alone when there is no message (a MemoryError)."""
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def run_in_workers(
    function: Callable[[Any], Any],
    items: Iterable[Any],
    jobs: int,
    on_done: Callable[[Any, Any], None],
    *,
    max_memory: int | None = None,
) -> None:
    """Calls `function(item)` for each item, each in a fresh worker process, at most
    `jobs` at a time, and `on_done(item, answer)` in this process as each ends, where
    `answer` is what the call returned, a `WorkerRaised` or a `WorkerDied`.

    `max_memory` caps each worker's address space (bytes). `function`, the items and
    the answers cross process boundaries, so they must pickle. Whatever ends this call
    early (an exception from `on_done`, Ctrl-C, SIGTERM) kills the running workers first.
    """
    context = _context()
    pending = collections.deque(items)
    running: dict[Connection, _Worker] = {}
    try:
        while pending or running:
            while pending and len(running) < jobs:
                worker = _Worker.start(context, function, pending.popleft(), max_memory)
                running[worker.answers] = worker
            for ready in wait(list(running)):
                worker = running.pop(ready)
                on_done(worker.item, worker.finish())
    finally:
        for worker in running.values():
            worker.kill()


def _context() -> multiprocessing.context.BaseContext:
    # forkserver: workers do not inherit the caller's threads (pyarrow's, rich's).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)  # no effect once the forkserver runs
    return context


@dataclass
class _Worker:
    """A running worker, seen from the main process: `answers` delivers its one
    message (or end of file if it dies); `lifeline` is the pipe end whose closing, when
    this process ends, makes the worker end too."""

    item: Any
    process: multiprocessing.process.BaseProcess
    answers: Connection
    lifeline: Connection
    started: float

    @classmethod
    def start(cls, context, function, item, max_memory: int | None) -> _Worker:
        answers, answer_end = context.Pipe(duplex=False)
        lifeline_end, lifeline = context.Pipe(duplex=False)
        process = context.Process(
            target=_worker_main,
            args=(function, item, answer_end, lifeline_end, max_memory),
            daemon=True,
        )
        started = time.perf_counter()
        process.start()
        # The worker's ends: kept only by the worker, so its death reads as end of file.
        answer_end.close()
        lifeline_end.close()
        return cls(item, process, answers, lifeline, started)

    def finish(self) -> Any:
        """The answer of a worker whose pipe became readable (it answered or died)."""
        try:
            answer = self.answers.recv()
        except (EOFError, OSError):  # died before or while answering
            answer = _NO_ANSWER
        self.process.join()
        if answer is _NO_ANSWER:
            answer = WorkerDied(self.process.exitcode, time.perf_counter() - self.started)
        self._close()
        return answer

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self._close()

    def _close(self) -> None:
        self.answers.close()
        self.lifeline.close()
        self.process.close()


def _worker_main(
    function: Callable[[Any], Any],
    item: Any,
    answers: Connection,
    lifeline: Connection,
    max_memory: int | None,
) -> None:
    """A worker's life: set itself up, make the call, send the answer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    _die_with_main_process(lifeline)
    _prctl(_PR_SET_NAME, WORKER_NAME.encode())
    if max_memory is not None:
        _cap_growth(max_memory)
    try:
        answer = function(item)
    except BaseException as e:  # noqa: BLE001 - the boundary that isolates a run
        answer = WorkerRaised(describe_exception(e), traceback.format_exc())
    answers.send(answer)
    answers.close()


def _cap_growth(max_memory: int) -> None:
    """Lets this process's address space grow by at most `max_memory` bytes from here:
    the cap is on what the run adds, not on the Python and libraries the worker
    already holds (about 0.4 GB of address space)."""
    try:
        with open("/proc/self/statm") as statm:
            held = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # no /proc: cap the whole process
        held = 0
    limit = held + max_memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _die_with_main_process(lifeline: Connection) -> None:
    """Kills this worker when the main process ends: its end of `lifeline` is the only
    writer, and nothing is ever sent, so a read returns only at its death. The read
    also returns at once if the main process died before the worker got here."""

    def watch() -> None:
        try:
            lifeline.recv_bytes()
        except (EOFError, OSError):
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()


def die_with_parent() -> None:
    """Asks Linux to SIGKILL this process when its parent dies; elsewhere a no-op."""
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15  # what `ps -o comm` and /proc/<pid>/comm show


def _prctl(option: int, value: int | bytes) -> None:
    """Linux's prctl(2); nothing happens where there is none."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass
