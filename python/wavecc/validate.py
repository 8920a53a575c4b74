"""Validation against ns-3: the grid of cases, the committed references, the comparison.

ns-3 runs one case in minutes (about 0.15 simulated seconds per wall second at 1 Gb/s),
so its outputs are made once, with `wavecc validate ns3 --regenerate`, and committed
under `validation/ns3/reference/<case>/` (timeseries.csv, summary.json, command.txt);
runs with further ns-3 seeds (`--ns3-seeds N`) go to
`validation/ns3/extra-seeds/<case>/<seed>/`, and ns-3's side of a comparison is the mean
over every seed committed for the case.
Without `--regenerate`, `wavecc validate ns3` runs wavecc on the same cases and compares
its average goodput and mean RTT with the references, writing comparison.csv and one
overlay figure per case.

The ns-3 side is `validation/ns3/dumbbell.cc`, built by `validation/ns3/build.sh` against
Debian's ns-3 3.37 packages (`apt-get install libns3-dev`); both live in the repository,
not in the installed package, so they are looked up from the working directory.
"""

from __future__ import annotations

import csv
import dataclasses
import fnmatch
import json
import math
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import outdir
from ._core import ConfigError
from .atomic import atomic_directory
from .config import Config, check_stack, resolve

# wavecc's algorithm names and ns-3 3.37's (`dumbbell --cca`). Westwood+ is TcpWestwood
# with ProtocolType=WestwoodPlus in 3.37; the program takes TcpWestwoodPlus for it.
ALGORITHMS = (
    ("newreno", "TcpNewReno"),
    ("cubic", "TcpCubic"),
    ("highspeed", "TcpHighSpeed"),
    ("bbr", "TcpBbr"),
    ("vegas", "TcpVegas"),
    ("scalable", "TcpScalable"),
    ("yeah", "TcpYeah"),
    ("westwood", "TcpWestwoodPlus"),
)

# Settings every case shares, on both sides (wavecc's `tcp` table; the ns-3 program
# hard-codes the same values).
TCP = {
    "mss_bytes": 1400,
    "min_rto_s": 1.0,
    "initial_cwnd_segments": 10,
    "sack": True,
    "timestamps": True,
    "ack_every_segments": 2,
    "snd_buf_bytes": 6_553_600,
    "rcv_buf_bytes": 6_553_600,
}
# The sender's link to the bottleneck router, both ways (the ns-3 program's `access`;
# 0 s). Its rate decides how a burst reaches a full bottleneck queue: at ten times the
# bottleneck's rate most of it is dropped, a few segments at a time.
ACCESS_RATE_BPS = 10e9
INTERVAL_S = 0.1
SEED = 1
TOLERANCE = 0.10
# A row outside TOLERANCE whose difference has a Welch p-value at least this large is
# within what the spread over seeds (the random loss process) explains.
SIGNIFICANCE = 0.05


# The TCP stacks a comparison runs wavecc in by default (`tcp.stack`; the core holds
# each stack's switches, `wavecc.stacks()`): its own, Linux's, and ns-3 3.37's, the
# references' (docs/validation.md says what each switch changes and why).
STACKS = ("linux", "ns3-3.37")


def stacks(names: Iterable[str] | None) -> list[str]:
    """The stacks named, each checked by the core (its ConfigError names the valid
    ones); STACKS for None."""
    return list(STACKS) if names is None else [check_stack(name) for name in names]


# What `wavecc validate ns3 --out DIR` writes, under outdir's rules: it replaces only
# an earlier comparison, with --force. One from before the marker is not recognised
# (outdir could not tell which of its files wavecc wrote): it is refused, as a
# user's directory is.
COMPARISON = outdir.Kind("comparison with ns-3", resumable=False, legacy=lambda directory: False)

REFERENCE_FILES = ("timeseries.csv", "summary.json", "command.txt")
INSTALL_HINT = "install it with `apt-get install libns3-dev g++ pkg-config` (Debian 12: ns-3 3.37)"
NS3_MODULES = (
    "ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point", "ns3-applications",
    "ns3-traffic-control",
)  # fmt: skip


class Ns3Missing(RuntimeError):
    """ns-3 (or the tools to build against it) is not installed."""


class Ns3Failed(RuntimeError):
    """Building the ns-3 program, or one of its runs, failed."""


@dataclass(frozen=True)
class Case:
    name: str
    cca: str  # wavecc's name
    ns3_cca: str  # the ns-3 program's --cca
    rate_bps: float
    delay_s: float
    buffer_bytes: int
    per_byte: float
    duration_s: float
    seed: int = SEED
    interval_s: float = INTERVAL_S

    def shortened(self, duration_s: float | None) -> Case:
        """The same case with another duration (for the tests); itself for None."""
        return self if duration_s is None else dataclasses.replace(self, duration_s=duration_s)

    def settings(self) -> dict[str, Any]:
        """What a reference's summary.json must say for it to belong to this case."""
        return {
            "cca": self.ns3_cca,
            "rate_bps": self.rate_bps,
            "delay_s": self.delay_s,
            "buffer_bytes": self.buffer_bytes,
            "per_byte": self.per_byte,
            "duration_s": self.duration_s,
            "interval_s": self.interval_s,
            "seed": self.seed,
        }


def _grid() -> tuple[Case, ...]:
    """The validation grid: every algorithm at 1 Gb/s, 10 ms one way, 2.5 MB of buffer and
    per-byte loss 0, 1e-8 and 1e-7, for 20 s; and at 100 Mb/s, 25 ms, 0.3 MB, no loss."""
    cases = []
    for cca, ns3_cca in ALGORITHMS:
        for loss, label in ((0.0, "0"), (1e-8, "1e-8"), (1e-7, "1e-7")):
            cases.append(Case(f"{cca}-1g-{label}", cca, ns3_cca, 1e9, 0.010, 2_500_000, loss, 20.0))
        cases.append(Case(f"{cca}-100m-0", cca, ns3_cca, 1e8, 0.025, 300_000, 0.0, 20.0))
    return tuple(cases)


CASES = _grid()


def select(names: Iterable[str] | None) -> list[Case]:
    """The cases named, in grid order; each name may be a shell pattern (`cubic-*`,
    `*-100m-0`). All of them for None."""
    chosen = match_names(names, [c.name for c in CASES], "validation case", "cubic-*")
    return [c for c in CASES if c.name in chosen]


def match_names(names: Iterable[str] | None, valid: Sequence[str], what: str, example: str) -> list[str]:
    """The names of `valid` that `names` select (each a name or a shell pattern such
    as `example`), in `valid`'s order; all of them for None. A name that selects
    nothing is a ConfigError listing the valid ones."""
    if names is None:
        return list(valid)
    names = list(names)
    if not names:
        raise ConfigError(f"no {what} named ({what}s: {', '.join(valid)})")
    chosen = set()
    for name in names:
        matched = {v for v in valid if fnmatch.fnmatchcase(v, name)}
        if not matched:
            raise ConfigError(
                f"unknown {what} '{name}' ({what}s: {', '.join(valid)}; "
                f"shell patterns such as '{example}' work too)"
            )
        chosen |= matched
    return [v for v in valid if v in chosen]


# ----------------------------------------------------------------------- wavecc --


def wavecc_config(case: Case, stack: str = "linux", seed: int | None = None) -> Config:
    """The built-in dumbbell-1g with the case's settings: one bulk flow over ns-3's
    topology (a 10 Gb/s, 0 s access link in front of the bottleneck), in the TCP
    `stack`, with another seed if given."""
    seed = case.seed if seed is None else seed
    config = resolve("dumbbell-1g", cca=case.cca, seed=seed, stack=stack)
    config["name"] = f"validate-{case.name}"
    config["duration_s"] = case.duration_s
    path = config.setdefault("path", {})
    path["rate_bps"] = case.rate_bps
    path["one_way_delay_s"] = case.delay_s
    path["buffer_bytes"] = case.buffer_bytes
    path.setdefault("loss", {})["per_byte"] = case.per_byte
    for flow in config["flows"]:
        flow["access_rate_bps"] = ACCESS_RATE_BPS
    config["tcp"].update(TCP)
    trace = config.setdefault("trace", {})
    trace["interval_s"] = case.interval_s
    trace["events"] = False
    return config


# ------------------------------------------------------------------------ ns-3 --


def find_ns3_dir(start: Path | None = None) -> Path:
    """validation/ns3 of the repository holding `start` (the working directory)."""
    return find_in_repository(Path("validation", "ns3"), "dumbbell.cc", "--ns3-dir", start)


def find_in_repository(directory: Path, member: str, option: str, start: Path | None = None) -> Path:
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


def ns3_runs(cases: Sequence[Case], ns3_dir: Path, ns3_seeds: int, missing_only: bool) -> list[Case]:
    """The ns-3 runs that regenerating makes: each case with each seed 1..ns3_seeds,
    or with `missing_only` those of them without a current committed output."""
    runs = [dataclasses.replace(c, seed=seed) for c in cases for seed in range(SEED, SEED + ns3_seeds)]
    return [run for run in runs if not (missing_only and _has_current_reference(run, ns3_dir))]


def reference_dir(case: Case, ns3_dir: Path) -> Path:
    """Where the ns-3 run of a case (with its seed) is kept: `reference/<case>/` for
    the case's own seed, `extra-seeds/<case>/<seed>/` for the others."""
    if case.seed == SEED:
        return ns3_dir / "reference" / case.name
    return ns3_dir / "extra-seeds" / case.name / str(case.seed)


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
                failures.append(f"{case.name} seed {case.seed}: {_last_line(proc.stderr) or proc.returncode}")
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
    dpkg = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "libns3-dev"], capture_output=True, text=True
    ) if shutil.which("dpkg-query") else None
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


# ------------------------------------------------------------------ comparison --


@dataclass(frozen=True)
class Reference:
    summary: dict[str, Any]
    timeseries: list[dict[str, float]]


class StaleReference(ValueError):
    """A reference made with other settings than its case has now."""


def load_references(case: Case, ns3_dir: Path) -> list[Reference]:
    """The committed ns-3 outputs of a case: its own seed's first (none: an empty
    list), then every further seed under `extra-seeds/<case>/`. Raises StaleReference
    when one's settings are not the case's."""
    first = load_reference(case, ns3_dir)
    if first is None:
        return []
    extra = ns3_dir / "extra-seeds" / case.name
    seeds = sorted(int(d.name) for d in extra.iterdir() if d.name.isdigit()) if extra.is_dir() else []
    more = [load_reference(dataclasses.replace(case, seed=seed), ns3_dir) for seed in seeds]
    return [first, *(r for r in more if r is not None)]


def _has_current_reference(case: Case, ns3_dir: Path) -> bool:
    try:
        return load_reference(case, ns3_dir) is not None
    except StaleReference:
        return False


def load_reference(case: Case, ns3_dir: Path) -> Reference | None:
    """The committed ns-3 output of a case with its seed; None if there is none.
    Raises StaleReference when its settings are not the case's."""
    directory = reference_dir(case, ns3_dir)
    if not (directory / "summary.json").is_file():
        return None
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    differ = [
        f"{key} {summary.get(key)!r} instead of {value!r}"
        for key, value in case.settings().items()
        if not _same(summary.get(key), value)
    ]
    if differ:
        raise StaleReference(
            f"{case.name} (seed {case.seed}): the reference was made with {', '.join(differ)}"
        )
    with open(directory / "timeseries.csv", newline="", encoding="utf-8") as f:
        rows = [{k: _float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return Reference(summary, rows)


def _same(a: Any, b: Any) -> bool:
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        return isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)
    return a == b


def _float(text: str | None) -> float:
    return float(text) if text not in (None, "") else math.nan


@dataclass(frozen=True)
class Row:
    """One case in one stack: wavecc's averages (the mean over its seeds) beside
    ns-3's (the mean over its seeds), the range over wavecc's seeds, and each side's
    per-seed values for the significance of the difference."""

    case: str
    cca: str
    goodput_wavecc_mbps: float
    goodput_ns3_mbps: float
    mean_rtt_wavecc_ms: float
    mean_rtt_ns3_ms: float
    stack: str = "linux"
    seeds: int = 1
    goodput_min_mbps: float = math.nan
    goodput_max_mbps: float = math.nan
    ns3_seeds: int = 1
    # Per seed, wavecc's and ns-3's: (goodput Mb/s, mean RTT ms).
    per_seed_wavecc: tuple[tuple[float, float], ...] = ()
    per_seed_ns3: tuple[tuple[float, float], ...] = ()

    @property
    def goodput_rel_diff(self) -> float:
        return rel_diff(self.goodput_wavecc_mbps, self.goodput_ns3_mbps)

    @property
    def mean_rtt_rel_diff(self) -> float:
        return rel_diff(self.mean_rtt_wavecc_ms, self.mean_rtt_ns3_ms)

    @property
    def goodput_within(self) -> bool:
        return abs(self.goodput_rel_diff) <= TOLERANCE

    @property
    def rtt_within(self) -> bool:
        return abs(self.mean_rtt_rel_diff) <= TOLERANCE

    @property
    def within(self) -> bool:
        return self.goodput_within and self.rtt_within

    @property
    def ns3_in_seed_range(self) -> bool:
        """ns-3's goodput (its mean over its seeds) lies within wavecc's range over
        its seeds (the loss process alone spreads the 1e-8 rows)."""
        return self.goodput_min_mbps <= self.goodput_ns3_mbps <= self.goodput_max_mbps

    @property
    def goodput_p_value(self) -> float:
        """Welch's two-sided t-test of wavecc's seeds against ns-3's, goodput."""
        return welch_p([g for g, _ in self.per_seed_wavecc], [g for g, _ in self.per_seed_ns3])

    @property
    def rtt_p_value(self) -> float:
        """Welch's two-sided t-test of wavecc's seeds against ns-3's, mean RTT."""
        return welch_p([r for _, r in self.per_seed_wavecc], [r for _, r in self.per_seed_ns3])

    @property
    def off_beyond_noise(self) -> bool | None:
        """For a row outside 10 %: whether a metric that is off by more than 10 %
        differs beyond what the spread over seeds explains (Welch p < SIGNIFICANCE).
        None for a row within 10 %, or without two seeds on each side."""
        if self.within:
            return None
        p_values = [p for p, ok in ((self.goodput_p_value, self.goodput_within),
                                    (self.rtt_p_value, self.rtt_within)) if not ok]  # fmt: skip
        if any(math.isnan(p) for p in p_values):
            return None
        return any(p < SIGNIFICANCE for p in p_values)

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "cca": self.cca,
            "stack": self.stack,
            "seeds": self.seeds,
            "ns3_seeds": self.ns3_seeds,
            "goodput_wavecc_mbps": self.goodput_wavecc_mbps,
            "goodput_wavecc_min_mbps": self.goodput_min_mbps,
            "goodput_wavecc_max_mbps": self.goodput_max_mbps,
            "goodput_ns3_mbps": self.goodput_ns3_mbps,
            "goodput_rel_diff": self.goodput_rel_diff,
            "mean_rtt_wavecc_ms": self.mean_rtt_wavecc_ms,
            "mean_rtt_ns3_ms": self.mean_rtt_ns3_ms,
            "mean_rtt_rel_diff": self.mean_rtt_rel_diff,
            "goodput_within_10pct": self.goodput_within,
            "rtt_within_10pct": self.rtt_within,
            "within_10pct": self.within,
            "ns3_in_seed_range": self.ns3_in_seed_range,
            "goodput_p_value": self.goodput_p_value,
            "rtt_p_value": self.rtt_p_value,
            "off_beyond_noise": self.off_beyond_noise,
        }


COLUMNS = (
    "case", "cca", "stack", "seeds", "ns3_seeds", "goodput_wavecc_mbps", "goodput_wavecc_min_mbps",
    "goodput_wavecc_max_mbps", "goodput_ns3_mbps", "goodput_rel_diff", "mean_rtt_wavecc_ms",
    "mean_rtt_ns3_ms", "mean_rtt_rel_diff", "goodput_within_10pct", "rtt_within_10pct",
    "within_10pct", "ns3_in_seed_range", "goodput_p_value", "rtt_p_value", "off_beyond_noise",
)  # fmt: skip


def welch_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of Welch's t-test that samples a and b share a mean; NaN
    when either has fewer than two finite values. Equal samples without spread on
    both sides give 1 (no difference) or 0 (different constants)."""
    a = [x for x in a if math.isfinite(x)]
    b = [x for x in b if math.isfinite(x)]
    if len(a) < 2 or len(b) < 2:
        return math.nan
    if len(set(a)) == 1 and len(set(b)) == 1:
        return 1.0 if a[0] == b[0] else 0.0
    from scipy.stats import ttest_ind

    return float(ttest_ind(a, b, equal_var=False).pvalue)


def rel_diff(wavecc: float, ns3: float) -> float:
    """(wavecc - ns-3) / ns-3; NaN when either is missing or ns-3's is 0."""
    if not (math.isfinite(wavecc) and math.isfinite(ns3)) or ns3 == 0:
        return math.nan
    return (wavecc - ns3) / ns3


@dataclass(frozen=True)
class Comparison:
    rows: list[Row]
    missing: list[str]
    stale: list[str]


def compare(
    cases: Sequence[Case],
    ns3_dir: Path,
    out: Path,
    *,
    stacks: Sequence[str] = ("linux",),
    seeds: int = 1,
    figures: bool = True,
    on_case: Callable[[list[Row]], None] | None = None,
    force: bool = False,
) -> Comparison:
    """Runs wavecc on every case that has a reference, in each TCP stack and with
    `seeds` (at least 1) seeds from the case's, and compares the mean with ns-3's;
    writes out/comparison.csv (a row per case and stack), out/comparison.md (the
    table docs/validation.md carries) and out/<case>.png. Cases without a reference
    are listed as missing, references made with other settings as stale; if no case
    has a usable reference, nothing is written and ConfigError says why.

    `out` follows outdir's rules, checked before anything runs: it must be new, empty
    or, with `force`, an earlier comparison holding only what wavecc wrote
    (`outdir.OutputRefused` otherwise)."""
    import wavecc

    out = Path(out)
    outdir.remove_stale(out.parent)
    outdir.check(out, COMPARISON, force=force)

    references: list[tuple[Case, list[Reference]]] = []
    missing: list[str] = []
    stale: list[str] = []
    for case in cases:
        try:
            found = load_references(case, ns3_dir)
        except StaleReference as e:
            stale.append(str(e))
            continue
        if not found:
            missing.append(case.name)
        else:
            references.append((case, found))
    if not references:
        what = "; ".join(stale) if stale else ", ".join(missing)
        raise ConfigError(
            f"no usable ns-3 reference in {ns3_dir / 'reference'} for the selected cases ({what}); "
            "make them with `wavecc validate ns3 --regenerate`"
        )

    rows: list[Row] = []
    with atomic_directory(out, discard=outdir.discard) as staging:
        for case, found in references:
            case_rows, first_runs = [], {}
            for stack in stacks:
                runs = [
                    wavecc.run(wavecc_config(case, stack, seed=case.seed + i))
                    for i in range(seeds)
                ]
                first_runs[stack] = runs[0]
                case_rows.append(_row(case, stack, runs, found))
            rows += case_rows
            if figures:
                overlay(case, first_runs, found[0], case_rows, staging / f"{case.name}.png")
            if on_case is not None:
                on_case(case_rows)
        with open(staging / "comparison.csv", "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            for row in rows:
                writer.writerow(row.as_dict())
        (staging / "comparison.md").write_text(markdown(rows, stacks), encoding="utf-8")
        outdir.mark(staging, COMPARISON, os.listdir(staging))
    return Comparison(rows, missing, stale)


def _row(case: Case, stack: str, runs: Sequence[Any], references: Sequence[Reference]) -> Row:
    """The mean over wavecc's runs (seeds) of one case and stack, beside the mean
    over ns-3's runs (seeds)."""
    flows = [run.summary["flows"][0] for run in runs]
    goodputs = [number(flow["goodput_mbps"]) for flow in flows]
    rtts = [number(flow["mean_rtt_ms"]) for flow in flows]

    def ns3_mean(key: str) -> float:
        return sum(number(r.summary.get(key)) for r in references) / len(references)

    return Row(
        case=case.name,
        cca=case.cca,
        goodput_wavecc_mbps=sum(goodputs) / len(goodputs),
        goodput_ns3_mbps=ns3_mean("goodput_mbps"),
        mean_rtt_wavecc_ms=sum(rtts) / len(rtts),
        mean_rtt_ns3_ms=ns3_mean("mean_rtt_ms"),
        stack=stack,
        seeds=len(runs),
        goodput_min_mbps=min(goodputs),
        goodput_max_mbps=max(goodputs),
        ns3_seeds=len(references),
        per_seed_wavecc=tuple(zip(goodputs, rtts)),
        per_seed_ns3=tuple(
            (number(r.summary.get("goodput_mbps")), number(r.summary.get("mean_rtt_ms"))) for r in references
        ),
    )


def markdown(rows: Sequence[Row], stacks: Sequence[str]) -> str:
    """The comparison as a Markdown table, one line per case, a column group per
    stack (goodput in Mb/s and mean RTT in ms, each with its difference from ns-3)."""
    by_case: dict[str, dict[str, Row]] = {}
    for row in rows:
        by_case.setdefault(row.case, {})[row.stack] = row
    seeds = max((row.seeds for row in rows), default=1)
    tested = seeds > 1 and max((row.ns3_seeds for row in rows), default=1) > 1
    header = ["case", "ns-3 goodput", "ns-3 RTT"]
    for stack in stacks:
        header += [f"{stack} goodput", "diff", f"{stack} RTT", "diff", "within 10 %"]
        if seeds > 1:
            header.append("ns-3 in seeds' range")
        if tested:
            header.append("Welch p (goodput, RTT)")
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for case, per_stack in by_case.items():
        first = next(iter(per_stack.values()))
        ns3_goodput = md_cell(first.goodput_ns3_mbps, ".1f")
        if first.ns3_seeds > 1:
            ns3_goodput += f" ({first.ns3_seeds} seeds)"
        cells = [f"`{case}`", ns3_goodput, md_cell(first.mean_rtt_ns3_ms, ".2f")]
        for stack in stacks:
            r = per_stack.get(stack)
            if r is None:
                cells += ["-"] * (5 + (seeds > 1) + tested)
                continue
            goodput = md_cell(r.goodput_wavecc_mbps, ".1f")
            if r.seeds > 1:
                goodput += f" ({r.goodput_min_mbps:.0f}-{r.goodput_max_mbps:.0f})"
            cells += [goodput, pct_cell(r.goodput_rel_diff), md_cell(r.mean_rtt_wavecc_ms, ".2f"),
                      pct_cell(r.mean_rtt_rel_diff), "yes" if r.within else "no"]  # fmt: skip
            if seeds > 1:
                cells.append("yes" if r.ns3_in_seed_range else "no")
            if tested:
                cells.append(f"{md_cell(r.goodput_p_value, '.2f')}, {md_cell(r.rtt_p_value, '.2f')}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def md_cell(value: float, spec: str) -> str:
    """A number for a Markdown table, '-' when it is missing (NaN or infinite)."""
    return "-" if not math.isfinite(value) else format(value, spec)


def number(value: Any) -> float:
    """A JSON number as a float; None (missing) as NaN."""
    return math.nan if value is None else float(value)


def overlay(
    case: Case, results: dict[str, Any], reference: Reference, rows: Sequence[Row], path: Path
) -> None:
    """Goodput, cwnd, RTT (interval mean) and bottleneck queue over time: ns-3 and
    wavecc in each stack (its first seed) on the same axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 10), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(4, 1, sharex=True)
    ns3 = {key: [r.get(key, math.nan) for r in reference.timeseries] for key in _NS3_COLUMNS}
    ns3_label = f"ns-3 {reference.summary.get('ns3_version', '')}".strip()
    keys = (("goodput (Mb/s)", "goodput_mbps", "goodput_mbps", 1.0),
            ("cwnd (segments)", "cwnd_segments", "cwnd_segments", 1.0),
            ("RTT (ms, interval mean)", "rtt_mean_ms", "rtt_mean_ms", 1.0),
            ("bottleneck queue (kB)", "bytes", "queue_bytes", 1e-3))  # fmt: skip
    colours = {"linux": "C0", "ns3-3.37": "C2"}
    for ax, (label, mine, theirs, scale) in zip(axes, keys):
        for i, (name, result) in enumerate(results.items()):
            frame = result.flows if mine != "bytes" else _bottleneck(result)
            ax.plot(frame["t_s"], frame[mine] * scale, color=colours.get(name, f"C{i + 4}"),
                    linewidth=1.2, label=f"wavecc, {name} stack")  # fmt: skip
        ax.plot(ns3["t_s"], [v * scale for v in ns3[theirs]], color="C3", linewidth=1.0,
                alpha=0.85, label=ns3_label)  # fmt: skip
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[-1].set_xlabel("time (s)")
    axes[0].legend(loc="lower center", bbox_to_anchor=(0.5, 1.02), ncols=3, frameon=False)
    summary = "; ".join(
        f"{r.stack}: goodput {r.goodput_wavecc_mbps:.1f} ({pct_cell(r.goodput_rel_diff)}), "
        f"RTT {r.mean_rtt_wavecc_ms:.2f} ms ({pct_cell(r.mean_rtt_rel_diff)})"
        for r in rows
    )
    first = rows[0]
    fig.suptitle(
        f"{case.name}: {case.cca} / {case.ns3_cca}, {case.rate_bps / 1e6:g} Mb/s, "
        f"{case.delay_s * 1e3:g} ms one way, {case.buffer_bytes / 1e6:g} MB buffer, "
        f"per-byte loss {case.per_byte:g}\n"
        f"ns-3{f' (mean of {first.ns3_seeds} seeds; curves: seed 1)' if first.ns3_seeds > 1 else ''}: "
        f"goodput {first.goodput_ns3_mbps:.1f} Mb/s, mean RTT {first.mean_rtt_ns3_ms:.2f} ms\n"
        f"wavecc {summary}"
    )
    fig.savefig(path, dpi=100)


def _bottleneck(result: Any) -> Any:
    return result.queues[result.queues["queue"] == "bottleneck"]


_NS3_COLUMNS = ("t_s", "goodput_mbps", "cwnd_segments", "rtt_mean_ms", "queue_bytes")


def pct_cell(x: float) -> str:
    """A relative difference as a signed percentage, '-' when it is missing."""
    return "-" if not math.isfinite(x) else f"{x * 100:+.1f}%"
