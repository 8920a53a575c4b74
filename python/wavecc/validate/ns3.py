"""ns-3's side: finding, building and running `validation/ns3/dumbbell.cc` to make the
committed references (`wavecc validate ns3 --regenerate`)."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .._core import ConfigError
from ..atomic import atomic_directory
from .cases import SEED, Case
from .references import has_current_reference, reference_dir

INSTALL_HINT = "install it with `apt-get install libns3-dev g++ pkg-config` (Debian 12: ns-3 3.37)"
NS3_MODULES = (
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-point-to-point",
    "ns3-applications",
    "ns3-traffic-control",
)


class Ns3Missing(RuntimeError):
    """ns-3 (or the tools to build against it) is not installed."""


class Ns3Failed(RuntimeError):
    """Building the ns-3 program, or one of its runs, failed."""


def find_ns3_dir(start: Path | None = None) -> Path:
    """validation/ns3 of the repository holding `start` (the working directory)."""
    return find_in_repository(Path("validation", "ns3"), "dumbbell.cc", "--ns3-dir", start)


def find_in_repository(
    directory: Path, member: str, option: str, start: Path | None = None
) -> Path:
    """`directory` (relative to the repository's root) holding `member`, in the
    repository holding `start` (the working directory); a ConfigError naming `option`
    (which gives the directory) when there is none."""
    start = (start or Path.cwd()).resolve()
    for root in (start, *start.parents):
        if (root / directory / member).exists():
            return root / directory
    raise ConfigError(
        f"cannot find {directory / member} in {start} or above it; run from the "
        f"wavecc repository or give {option}"
    )


def check_ns3() -> str:
    """ns-3's version, or Ns3Missing saying how to install it."""
    for tool in ("pkg-config", "g++"):
        if shutil.which(tool) is None:
            raise Ns3Missing(f"ns-3 cannot be built here: {tool} is not installed; {INSTALL_HINT}")
    found = subprocess.run(["pkg-config", "--exists", *NS3_MODULES], capture_output=True)
    if found.returncode != 0:
        raise Ns3Missing(
            f"ns-3 is not installed (pkg-config finds no {', '.join(NS3_MODULES)}); {INSTALL_HINT}"
        )
    version = subprocess.run(
        ["pkg-config", "--modversion", "ns3-core"], capture_output=True, text=True, check=True
    )
    return version.stdout.strip()


def build(ns3_dir: Path) -> Path:
    """Builds the ns-3 program with build.sh and returns its path."""
    check_ns3()
    binary = ns3_dir / "build" / "dumbbell"
    proc = subprocess.run(
        ["bash", str(ns3_dir / "build.sh"), str(binary)], capture_output=True, text=True
    )
    if proc.returncode == 2:
        raise Ns3Missing(_last_line(proc.stderr) or f"ns-3 is not installed; {INSTALL_HINT}")
    if proc.returncode != 0:
        raise Ns3Failed(f"building {ns3_dir / 'dumbbell.cc'} failed: {_last_line(proc.stderr)}")
    return binary


def ns3_arguments(case: Case, out: str | os.PathLike[str]) -> list[str]:
    """The ns-3 program's arguments for a case (numbers as Python's repr, which
    round-trips, so the program reads exactly the case's values)."""
    return [
        f"--cca={case.ns3_cca}",
        f"--rate_bps={case.rate_bps!r}",
        f"--delay_s={case.delay_s!r}",
        f"--buffer_bytes={case.buffer_bytes}",
        f"--per_byte={case.per_byte!r}",
        f"--duration_s={case.duration_s!r}",
        f"--interval_s={case.interval_s!r}",
        f"--seed={case.seed}",
        f"--out={out}",
    ]


@dataclass(frozen=True)
class Regenerated:
    case: str
    seed: int
    goodput_mbps: float
    mean_rtt_ms: float | None
    wall_time_s: float
    sim_per_wall: float


def ns3_runs(
    cases: Sequence[Case], ns3_dir: Path, ns3_seeds: int, missing_only: bool
) -> list[Case]:
    """The ns-3 runs that regenerating makes: each case with each seed 1..ns3_seeds,
    or with `missing_only` those of them without a current committed output."""
    runs = [
        dataclasses.replace(c, seed=seed) for c in cases for seed in range(SEED, SEED + ns3_seeds)
    ]
    return [run for run in runs if not (missing_only and has_current_reference(run, ns3_dir))]


def regenerate(
    cases: Sequence[Case],
    ns3_dir: Path,
    *,
    jobs: int = 2,
    ns3_seeds: int = 1,
    missing_only: bool = False,
    on_done: Callable[[Regenerated], None] | None = None,
) -> list[Regenerated]:
    """Builds the ns-3 program and runs it for each case and each seed 1..ns3_seeds,
    `jobs` at a time, into [`reference_dir`]; with `missing_only`, only the runs
    without a current committed output (adding seeds costs no rerun of the others).
    A run's directory is replaced only when the run succeeds. Raises Ns3Failed
    naming the failed runs after all have run."""
    binary = build(ns3_dir)
    provenance = _provenance()
    root = ns3_dir.parent.parent
    runs = ns3_runs(cases, ns3_dir, ns3_seeds, missing_only)
    # The longest first (the 1 Gb/s cases), so that the workers finish close together.
    order = sorted(runs, key=lambda c: -c.rate_bps * c.duration_s)
    failures: list[str] = []
    done: list[Regenerated] = []
    seeds_flag = (f" --ns3-seeds {ns3_seeds}" if ns3_seeds > 1 else "") + (
        " --missing-only" if missing_only else ""
    )

    def one(case: Case) -> None:
        target = reference_dir(case, ns3_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_directory(target) as staging:
            start = time.monotonic()
            proc = subprocess.run(
                [str(binary), *ns3_arguments(case, staging)], capture_output=True, text=True
            )
            if proc.returncode != 0:
                failures.append(
                    f"{case.name} seed {case.seed}: {_last_line(proc.stderr) or proc.returncode}"
                )
                raise Ns3Failed(case.name)
            command = " ".join(
                shlex.quote(part)
                for part in (_relative(binary, root), *ns3_arguments(case, _relative(target, root)))
            )
            (staging / "command.txt").write_text(
                f"# ns-3 reference for case {case.name}, seed {case.seed}, made by "
                f"`wavecc validate ns3 --regenerate --cases {case.name}{seeds_flag}` "
                "from the repository root\n"
                f"# {provenance}\n"
                f"# {time.monotonic() - start:.1f} s of wall time\n"
                f"{command}\n",
                encoding="utf-8",
            )
        summary = json.loads((target / "summary.json").read_text())
        result = Regenerated(
            case.name,
            case.seed,
            summary["goodput_mbps"],
            summary["mean_rtt_ms"],
            summary["wall_time_s"],
            summary["sim_s_per_wall_s"],
        )
        done.append(result)
        if on_done is not None:
            on_done(result)

    def guarded(case: Case) -> None:
        try:
            one(case)
        except Ns3Failed:
            pass

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(guarded, order))
    if failures:
        raise Ns3Failed(f"ns-3 failed on {len(failures)} case(s): {'; '.join(failures)}")
    return done


def _provenance() -> str:
    """Which ns-3 and compiler made a reference."""
    parts = [f"ns-3 {check_ns3()}"]
    dpkg = (
        subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "libns3-dev"], capture_output=True, text=True
        )
        if shutil.which("dpkg-query")
        else None
    )
    if dpkg is not None and dpkg.returncode == 0 and dpkg.stdout.strip():
        parts.append(f"Debian package libns3-dev {dpkg.stdout.strip()}")
    gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True)
    if gxx.returncode == 0 and gxx.stdout:
        parts.append(gxx.stdout.splitlines()[0])
    return "; ".join(parts)


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""
