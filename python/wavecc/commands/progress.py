"""What the commands show while they work: a rich progress bar on a terminal, plain
lines (or nothing) otherwise. Each reporter is a context manager that stops its bar."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Self


class _Bar:
    """A rich bar, made when first needed and stopped on exit."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def _start(self, bar: Any, **task: Any) -> None:
        self.bar = bar
        self.task = bar.add_task(**task)
        bar.start()


class RunProgress(_Bar):
    """One run: simulated time of the duration, wall time, time left, shown once the run
    has taken more than `DELAY_S` (short runs print as before). Off a terminal
    `callback` is None and the core reports nothing."""

    DELAY_S = 1.0

    def __init__(self, tty: bool):
        super().__init__()
        self.callback = self._update if tty else None
        self.started = time.monotonic()

    def _update(self, sim_time_s: float, duration_s: float) -> None:
        wall_s = time.monotonic() - self.started
        shown = {"completed": sim_time_s, "wall": f"{wall_s:.0f} s"}
        if self.bar is not None:
            self.bar.update(self.task, **shown)
        elif wall_s >= self.DELAY_S:
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            bar = Progress(
                TextColumn("simulated"),
                BarColumn(),
                TextColumn("{task.completed:.1f} of {task.total:g} s, wall {task.fields[wall]},"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                transient=True,
            )
            self._start(bar, description="run", total=duration_s, **shown)


class SweepProgress(_Bar):
    """A sweep's runs (`wavecc.sweeps.Progress` reports): a bar of finished, failed and
    remaining runs on a terminal; one line per finished run otherwise."""

    def __init__(self, tty: bool, out: Path):
        super().__init__()
        self.tty = tty
        self.out = out

    def __call__(self, p: Any) -> None:
        if p.point is None:
            self._begin(p)
        elif self.tty:
            self.bar.update(
                self.task,
                completed=p.done + p.failed,
                failed=p.failed,
                remaining=p.remaining,
                done=p.done,
            )
        else:
            took = (
                ""
                if p.wall_time_s is None or p.wall_time_s != p.wall_time_s
                else (f" in {p.wall_time_s:.2f} s")
            )
            error = f": {' '.join(str(p.error).split())}" if p.error else ""
            print(
                f"[{p.done + p.failed}/{p.total}] {p.status} {p.point.label()} "
                f"({p.point.key}){took}{error}",
                flush=True,
            )

    def _begin(self, p: Any) -> None:
        skipped = f", {p.skipped} already in {self.out}" if p.skipped else ""
        print(f"sweep: {p.total} run(s){skipped}", flush=True)
        if not self.tty:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        bar = Progress(
            TextColumn("runs"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "{task.fields[done]} ok, {task.fields[failed]} failed, "
                "{task.fields[remaining]} remaining"
            ),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self._start(
            bar,
            description="sweep",
            total=p.total,
            completed=p.done,
            done=p.done,
            failed=0,
            remaining=p.remaining,
        )
