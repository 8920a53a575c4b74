"""Worker processes for sweeps, so that a run which raises, panics, aborts or is killed
(for memory, say) fails alone: its worker is replaced by a fresh one and the other runs
go on. A worker that answered takes the next run (a fresh process per run would cost
a fork, an exit and the first use of pandas and pyarrow every time).

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


class RunFailed(RuntimeError):
    """A run that stopped in its worker process (an abort, the memory cap, a kill)."""


class UnguardedMain(RuntimeError):
    """A worker, importing the script that started it (as multiprocessing does, so that
    the script's classes and functions exist there), was asked to start workers again:
    the script starts its sweep when imported, not only when run."""

    def __init__(self) -> None:
        super().__init__(
            "every worker imports the script that started the runs, and that script starts "
            'them again when imported: put the call under `if __name__ == "__main__":`'
        )


# The exit code of a worker that stopped as `UnguardedMain` describes, so that the main
# process can tell that cause from a run's failure.
_UNGUARDED_MAIN_EXIT = 86


@dataclass(frozen=True)
class WorkerRaised:
    """The call raised in the worker: any exception, including the core's panics (pyo3's
    PanicException, which is not an Exception)."""

    error: str
    traceback: str


@dataclass(frozen=True)
class WorkerDied:
    """The worker ended without an answer: killed by a signal (an abort, the OOM killer,
    a user's kill) or exited early. `stderr` is what it wrote there during the run (the
    core's message before an abort, say), which would otherwise garble the terminal."""

    exitcode: int
    wall_time_s: float
    stderr: str = ""

    @property
    def error(self) -> str:
        if self.exitcode < 0:
            try:
                name = signal.Signals(-self.exitcode).name
            except ValueError:
                name = f"signal {-self.exitcode}"
            cause = f"worker killed by {name}"
        else:
            cause = f"worker exited with code {self.exitcode} before reporting"
        first_line = next((line for line in self.stderr.splitlines() if line.strip()), "")
        return f"{cause}: {first_line.strip()}" if first_line else cause


# How much of a run's stderr a failure record keeps: its first lines say what happened.
_STDERR_KEPT = 4096

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
    unit = max((u for u, n in _UNITS.items() if size >= n), key=_UNITS.__getitem__, default="")
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
    """Calls `function(item)` for each item in worker processes, at most `jobs` at a
    time, and `on_done(item, answer)` in this process as each ends, where `answer` is
    what the call returned, a `WorkerRaised` or a `WorkerDied`.

    A worker takes the next item when it has answered; one that raised or died is
    replaced by a fresh one, so a failed run never touches the next; one that has
    nothing left to do ends. `max_memory` caps what each call may add to its worker's
    address space (bytes). `function`, the items and the answers cross process
    boundaries, so they must pickle. What a worker writes to stderr serves only to
    explain its death (`WorkerDied.stderr`). Whatever ends this call early (an
    exception from `on_done`, Ctrl-C, SIGTERM, `UnguardedMain` when the calling
    script has no main guard) kills the workers first.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # Inside a worker that is still importing the main script: end it quietly and
        # let the main process say why (see `UnguardedMain`).
        os._exit(_UNGUARDED_MAIN_EXIT)
    context = _context()
    pending = collections.deque(items)
    idle: list[_Worker] = []
    busy: dict[Connection, _Worker] = {}
    try:
        while pending or busy:
            while pending and len(busy) < jobs:
                worker = idle.pop() if idle else _Worker.start(context, function, max_memory)
                worker.assign(pending.popleft())
                busy[worker.connection] = worker
            watched: dict[Any, _Worker] = {
                **busy,
                **{w.errors: w for w in busy.values() if not w.errors.closed},
            }
            for ready in wait(list(watched)):
                worker = watched[ready]
                if ready is worker.errors:
                    if not ready.closed:  # (closed if its worker ended in this round)
                        worker.read_errors()
                    continue
                item, answer = worker.item, worker.answer()
                if isinstance(answer, WorkerDied) and answer.exitcode == _UNGUARDED_MAIN_EXIT:
                    raise UnguardedMain()
                del busy[worker.connection]
                if pending and not isinstance(answer, (WorkerRaised, WorkerDied)):
                    idle.append(worker)
                else:  # failed (replaced if needed), or nothing left for it to do
                    worker.kill()
                on_done(item, answer)
    finally:
        for worker in [*idle, *busy.values()]:
            worker.kill()


def _context() -> multiprocessing.context.BaseContext:
    # forkserver: workers do not inherit the caller's threads (pyarrow's, rich's).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)  # no effect once the forkserver runs
    return context


@dataclass
class _Worker:
    """A worker, seen from the main process: `connection` takes its items and brings
    its answers (or end of file if it dies); `errors` brings what it writes to stderr;
    `lifeline` is the pipe end whose closing, when this process ends, makes the worker
    end too."""

    process: multiprocessing.process.BaseProcess
    connection: Connection
    errors: Connection
    lifeline: Connection
    item: Any = None
    started: float = 0.0
    stderr: bytes = b""

    @classmethod
    def start(cls, context, function, max_memory: int | None) -> _Worker:
        connection, worker_end = context.Pipe()
        errors, errors_end = context.Pipe(duplex=False)
        lifeline_end, lifeline = context.Pipe(duplex=False)
        process = context.Process(
            target=_worker_main,
            args=(function, worker_end, errors_end, lifeline_end, max_memory),
            daemon=True,
        )
        process.start()
        # The worker's ends: kept only by the worker, so its death reads as end of file.
        for end in (worker_end, errors_end, lifeline_end):
            end.close()
        return cls(process, connection, errors, lifeline)

    def assign(self, item: Any) -> None:
        self.item = item
        self.started = time.perf_counter()
        self.stderr = b""
        self.connection.send(item)

    def answer(self) -> Any:
        """The answer of a worker whose connection became readable: it answered or died."""
        try:
            return self.connection.recv()
        except (EOFError, OSError):  # died before or while answering
            self.process.join()
            while not self.errors.closed:
                self.read_errors()
            wall_s = time.perf_counter() - self.started
            exitcode = self.process.exitcode
            assert exitcode is not None  # joined above
            return WorkerDied(exitcode, wall_s, self.stderr.decode(errors="replace"))

    def read_errors(self) -> None:
        """Reads what stderr has (it is readable), keeping the start of it, where the
        cause is; at end of file the pipe is closed."""
        data = os.read(self.errors.fileno(), 65536)
        self.stderr += data[: max(0, _STDERR_KEPT - len(self.stderr))]
        if not data:
            self.errors.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        for end in (self.connection, self.errors, self.lifeline):
            end.close()
        self.process.close()


def _worker_main(
    function: Callable[[Any], Any],
    connection: Connection,
    errors: Connection,
    lifeline: Connection,
    max_memory: int | None,
) -> None:
    """A worker's life: set itself up, then answer each item it is sent until it is
    killed. A call that raises is answered with the error (and the worker retired)."""
    os.dup2(errors.fileno(), 2)
    errors.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    _die_with_main_process(lifeline)
    _prctl(_PR_SET_NAME, WORKER_NAME.encode())
    while True:
        item = connection.recv()
        if max_memory is not None:
            _cap_growth(max_memory)
        try:
            answer = function(item)
        except BaseException as e:  # noqa: BLE001 - the boundary that isolates a run
            answer = WorkerRaised(describe_exception(e), traceback.format_exc())
        connection.send(answer)


def _cap_growth(max_memory: int) -> None:
    """Lets this process's address space grow by at most `max_memory` bytes from here:
    the cap is on what the next call adds, not on the Python and libraries the worker
    already holds (about 0.4 GB of address space). Only the soft limit is set, so that
    the next call can raise it again."""
    try:
        with open("/proc/self/statm") as statm:
            held = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # no /proc: cap the whole process
        held = 0
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = held + max_memory
    resource.setrlimit(
        resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard)
    )


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
