"""`wavecc validate kernel`: wavecc's Linux stack against the Linux kernel's own TCP on
the same link, the kernel's side emulated (`wavecc emulate`, docs/emulation.md).

A case is an algorithm (the kernel's name and wavecc's) and a link, given as settings
that both sides apply to the same base scenario: the emulator runs the kernel across
the scenario's path with them (`wavecc emulate SCENARIO --set ...`), the simulator runs
the scenario with them (`wavecc run SCENARIO --set ...`). A trace case's link is a
radio scenario's exported trace (`wavecc trace export`, written once per comparison
into its output), which both sides read as `path.trace`.

The kernel is not deterministic (scheduling, timers, the machine's load) and the
simulator's random loss depends on its seed, so each side runs several times (runs
1..N, the run number as the seed) and a case compares the means, with the spread over
runs and Welch's test of the two sides' runs.
"""

from __future__ import annotations

import csv
import math
import os
import statistics
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import emulate, outdir, traces
from ..atomic import atomic_directory
from ..result import Result
from .cases import match_names
from .stats import SIGNIFICANCE, TOLERANCE, rel_diff, welch_p
from .tables import md_cell, pct_cell

BASE_SCENARIO = "dumbbell-1g"
# The kernel's algorithms and wavecc's names for them (Linux's reno is NewReno).
ALGORITHMS = (("reno", "newreno"), ("cubic", "cubic"), ("bbr", "bbr"))
RTT_S = 0.020
# What the base scenario sets unlike the kernel, aligned to the kernel on both sides:
# the kernel's MSS over the emulator's 1500-byte MTU with timestamps (dumbbell-1g says
# 1400), and Linux's minimum retransmission timeout (dumbbell-1g says RFC 6298's 1 s).
ALIGNED = (("tcp.mss_bytes", 1448), ("tcp.min_rto_s", 0.2))
DURATION_S = 20.0
RUNS = 3
INTERVAL_S = emulate.INTERVAL_S

COMPARISON = outdir.Kind(
    "comparison with the kernel", resumable=False, legacy=lambda directory: False
)


@dataclass(frozen=True)
class Case:
    """One algorithm on one link: `settings` (config key, value) apply on both sides."""

    name: str
    kernel_cca: str
    cca: str
    settings: tuple[tuple[str, Any], ...]
    scenario: str = BASE_SCENARIO
    # The radio scenario whose exported trace is the link (`with_trace` sets it).
    trace_of: str | None = None

    def with_trace(self, path: Path) -> Case:
        """The case with `path` (the trace of `trace_of`) as its link on both sides."""
        return replace(self, settings=(*self.settings, ("path.trace", str(path))))

    def overrides(self) -> list[str]:
        """The settings as `--set` overrides, the aligned ones included."""
        return [f"{key}={value!r}" for key, value in (*self.settings, *ALIGNED)]


def dumbbell(rate_bps: float, per_packet: float) -> tuple[tuple[str, Any], ...]:
    """A dumbbell at `rate_bps` with a 20 ms RTT, a buffer of one bandwidth-delay
    product and i.i.d. per-packet loss of the data."""
    return (
        ("path.rate_bps", rate_bps),
        ("path.one_way_delay_s", RTT_S / 2),
        ("path.buffer_bytes", round(rate_bps * RTT_S / 8)),
        ("path.loss.per_packet", per_packet),
        ("path.loss.per_byte", 0.0),
    )


# The radio scenario of the trace cases, and its flow: the urban study's server, 1400-byte
# writes at 1 Gb/s, which keeps the emulated link at a rate its selftest certifies
# (docs/emulation.md) where urban's trace offers 2.3 Gb/s on average.
TRACE_SCENARIO = "urban"
TRACE_BASE = "trace-bottleneck"
# The kernel's socket memory in the emulator's namespaces (tcp_wmem and tcp_rmem of up
# to 64 MiB), aligned on wavecc's side as the MSS is: in urban's blockage the kernel's
# window grows past urban's 6.5 MB buffers until the 20 MiB RLC buffer overflows. A
# dumbbell case's window stays below 3 MB, where the buffers do not bind.
KERNEL_SOCKET_BYTES = 64 * 2**20
URBAN_SETTINGS = (
    ("flows.0.app", "rate"),
    ("flows.0.rate_bps", 1e9),
    ("flows.0.write_bytes", 1400),
    ("tcp.snd_buf_bytes", KERNEL_SOCKET_BYTES),
    ("tcp.rcv_buf_bytes", KERNEL_SOCKET_BYTES),
)


def _grid() -> tuple[Case, ...]:
    cases = []
    for kernel_cca, cca in ALGORITHMS:
        for rate_bps, rate in ((1e8, "100m"), (5e8, "500m")):
            for per_packet, loss in ((0.0, "0"), (1e-4, "1e-4")):
                name = f"{kernel_cca}-{rate}-{loss}"
                cases.append(Case(name, kernel_cca, cca, dumbbell(rate_bps, per_packet)))
    for kernel_cca, cca in ALGORITHMS:
        name = f"{kernel_cca}-{TRACE_SCENARIO}"
        cases.append(Case(name, kernel_cca, cca, URBAN_SETTINGS, TRACE_BASE, TRACE_SCENARIO))
    return tuple(cases)


CASES = _grid()


def select(names: Iterable[str] | None) -> list[Case]:
    """The cases named (names or shell patterns such as `cubic-*`), in grid order; all
    of them for None."""
    chosen = match_names(names, [c.name for c in CASES], "kernel case", "cubic-*")
    return [c for c in CASES if c.name in chosen]


@dataclass(frozen=True)
class Run:
    """What one run gave: goodput, the mean of its 100 ms srtt readings, the
    retransmitted segments, and the machine's load average (None for the simulator)."""

    goodput_mbps: float
    mean_srtt_ms: float
    retransmitted: int
    load_average: float | None = None


def measure(result: Result) -> Run:
    """A run's numbers, read the same way on both sides. The kernel reports its
    smoothed RTT every 100 ms, not its samples, so the RTT of both sides is the mean
    of the srtt readings (the simulator's `mean_rtt_ms` averages every sample)."""
    flow = result.summary["flows"][0]
    srtt = result.flows["srtt_ms"].dropna()
    srtt = srtt[srtt > 0]
    load = result.summary.get("emulated", {}).get("load_average")
    return Run(
        goodput_mbps=float(flow["goodput_mbps"]),
        mean_srtt_ms=float(srtt.mean()) if len(srtt) else math.nan,
        retransmitted=int(flow["retransmitted_segments"]),
        load_average=load,
    )


@dataclass(frozen=True)
class Row:
    """One case: the kernel's runs and wavecc's, compared by their means."""

    case: str
    kernel: tuple[Run, ...]
    wavecc: tuple[Run, ...]

    def values(self, side: str, metric: str) -> list[float]:
        return [float(getattr(run, metric)) for run in getattr(self, side)]

    def mean(self, side: str, metric: str) -> float:
        values = self.values(side, metric)
        return statistics.fmean(values) if values else math.nan

    def spread(self, side: str, metric: str) -> float:
        """The standard deviation over runs (NaN for a single run)."""
        values = self.values(side, metric)
        return statistics.stdev(values) if len(values) > 1 else math.nan

    def diff(self, metric: str) -> float:
        """(wavecc - kernel) / kernel of the means."""
        return rel_diff(self.mean("wavecc", metric), self.mean("kernel", metric))

    def p_value(self, metric: str) -> float:
        """Welch's two-sided t-test of wavecc's runs against the kernel's. Runs
        without loss are deterministic in the simulator (no spread), which SciPy warns
        about; the p-value is still the test's."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return welch_p(self.values("wavecc", metric), self.values("kernel", metric))

    def within(self, metric: str) -> bool:
        return abs(self.diff(metric)) <= TOLERANCE

    @property
    def agrees(self) -> bool:
        """Goodput and mean RTT both within 10 %."""
        return self.within("goodput_mbps") and self.within("mean_srtt_ms")

    @property
    def beyond_spread(self) -> bool | None:
        """For a case outside 10 %: whether a metric off by more than 10 % differs
        beyond the spread over runs (Welch p < SIGNIFICANCE); None within 10 % or
        without two runs a side."""
        if self.agrees:
            return None
        p_values = [self.p_value(m) for m in _COMPARED if not self.within(m)]
        if any(math.isnan(p) for p in p_values):
            return None
        return any(p < SIGNIFICANCE for p in p_values)

    def as_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {"case": self.case, "runs": len(self.kernel)}
        for metric, label in _METRICS:
            for side in ("kernel", "wavecc"):
                row[f"{label}_{side}"] = self.mean(side, metric)
                row[f"{label}_{side}_sd"] = self.spread(side, metric)
            row[f"{label}_rel_diff"] = self.diff(metric)
            row[f"{label}_p_value"] = self.p_value(metric)
        row["within_10pct"] = self.agrees
        row["beyond_spread"] = self.beyond_spread
        row["load_average"] = self.mean("kernel", "load_average")
        return row


_COMPARED = ("goodput_mbps", "mean_srtt_ms")
_METRICS = (
    ("goodput_mbps", "goodput_mbps"),
    ("mean_srtt_ms", "mean_rtt_ms"),
    ("retransmitted", "retransmitted"),
)
COLUMNS = tuple(Row("", (), ()).as_dict())
RUN_COLUMNS = ("case", "side", "run", "goodput_mbps", "mean_rtt_ms", "retransmitted", "load")


def run_kernel(case: Case, run: int, duration_s: float) -> Result:
    """The kernel's algorithm across the emulated link; `run` seeds the link's loss."""
    return emulate.emulate(
        case.scenario, case.kernel_cca, duration_s, seed=run, overrides=case.overrides()
    )


def run_wavecc(case: Case, run: int, duration_s: float) -> Result:
    """wavecc's Linux stack on the same link, `run` as the seed."""
    import wavecc

    overrides = [
        *case.overrides(),
        f"duration_s={duration_s!r}",
        f"trace.interval_s={INTERVAL_S!r}",
        "trace.events=false",
    ]
    return wavecc.run(case.scenario, cca=case.cca, seed=run, overrides=overrides, stack="linux")


@dataclass(frozen=True)
class Comparison:
    rows: list[Row]


def compare(
    cases: Sequence[Case],
    out: Path,
    *,
    runs: int = RUNS,
    duration_s: float = DURATION_S,
    figures: bool = True,
    force: bool = False,
    on_case: Callable[[Row], None] | None = None,
) -> Comparison:
    """Runs each case `runs` times on each side and writes out/comparison.csv (a row
    per case), out/runs.csv (a row per run), out/comparison.md, out/<case>.png,
    every run's result files in out/runs/<case>/<side>-<run>/ and the trace cases'
    exported traces in out/traces/<scenario>.csv.
    Needs root and the emulator (`emulate.EmulationFailed` otherwise, before anything
    runs); `out` follows outdir's rules (`outdir.OutputRefused`)."""
    out = Path(out)
    check_can_run()
    outdir.remove_stale(out.parent)
    outdir.check(out, COMPARISON, force=force)
    rows: list[Row] = []
    with atomic_directory(out, discard=outdir.discard) as staging:
        exported: dict[str, Path] = {}
        for case in cases:
            trace = None
            if case.trace_of is not None:
                if case.trace_of not in exported:
                    exported[case.trace_of] = _export(case.trace_of, duration_s, staging)
                trace = exported[case.trace_of]
                case = case.with_trace(trace)
            kernel = [run_kernel(case, k, duration_s) for k in range(1, runs + 1)]
            wavecc = [run_wavecc(case, k, duration_s) for k in range(1, runs + 1)]
            row = Row(case.name, tuple(map(measure, kernel)), tuple(map(measure, wavecc)))
            rows.append(row)
            saved = {"kernel": kernel, "wavecc": wavecc}
            kept = None if trace is None else out.resolve() / trace.relative_to(staging)
            _save_runs(staging / "runs" / case.name, saved, kept)
            if figures:
                from .kernel_plot import overlay

                overlay(case, row, kernel, wavecc, staging / f"{case.name}.png")
            if on_case is not None:
                on_case(row)
        _write_csv(staging / "comparison.csv", COLUMNS, [row.as_dict() for row in rows])
        _write_csv(staging / "runs.csv", RUN_COLUMNS, list(_run_rows(rows)))
        (staging / "comparison.md").write_text(markdown(rows), encoding="utf-8")
        outdir.mark(staging, COMPARISON, os.listdir(staging))
    return Comparison(rows)


def _export(scenario: str, duration_s: float, staging: Path) -> Path:
    """`scenario`'s link trace for runs of `duration_s` (`wavecc trace export SCENARIO
    --duration S`), written into the comparison as traces/<scenario>.csv."""
    path = staging / "traces" / f"{scenario}.csv"
    path.parent.mkdir(exist_ok=True)
    traces.write(traces.export(scenario, duration_s=duration_s), path)
    return path


def _save_runs(directory: Path, runs: dict[str, list[Result]], trace: Path | None) -> None:
    """Every run's result files (as `wavecc run` writes them, without the figure) in
    directory/<side>-<run>, so that a difference can be traced to its time series; a
    trace case's runs name `trace`, the comparison's copy of their trace."""
    for side, results in runs.items():
        for k, result in enumerate(results, start=1):
            if trace is not None:
                result = _trace_named(result, trace)
            result.save(directory / f"{side}-{k}", figure=False)


def _trace_named(result: Result, trace: Path) -> Result:
    """The run with its link trace named `trace`: the runs read it from the
    comparison's staging directory, which becomes `out` only at the end, so the path
    they ran with would name nothing once the comparison is written."""
    config = {**result.config, "path": {**result.config["path"], "trace": str(trace)}}
    summary = result.summary
    if "trace" in summary.get("emulated", {}):
        summary = {**summary, "emulated": {**summary["emulated"], "trace": str(trace)}}
    return replace(result, config=config, summary=summary)


def check_can_run() -> None:
    """Root, namespaces and the emulator binary, or `EmulationFailed` saying which."""
    emulate._check_can_emulate()  # the check `wavecc emulate` makes, before any run
    emulate.find_binary()


def _run_rows(rows: Sequence[Row]) -> Iterable[dict[str, Any]]:
    for row in rows:
        for side in ("kernel", "wavecc"):
            for k, run in enumerate(getattr(row, side), start=1):
                yield {
                    "case": row.case,
                    "side": side,
                    "run": k,
                    "goodput_mbps": run.goodput_mbps,
                    "mean_rtt_ms": run.mean_srtt_ms,
                    "retransmitted": run.retransmitted,
                    "load": run.load_average,
                }


def _write_csv(path: Path, columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def markdown(rows: Sequence[Row]) -> str:
    """The comparison as the Markdown table docs/validation.md carries: per case the
    means over runs with their standard deviation, and wavecc's difference."""
    header = [
        "case",
        "runs",
        "kernel goodput",
        "wavecc goodput",
        "diff",
        "kernel RTT",
        "wavecc RTT",
        "diff",
        "kernel retrans",
        "wavecc retrans",
        "within 10 %",
        "Welch p (goodput, RTT)",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for row in rows:
        cells = [f"`{row.case}`", str(len(row.kernel))]
        for metric, spec in (("goodput_mbps", ".1f"), ("mean_srtt_ms", ".2f")):
            cells += [
                _mean_sd(row, "kernel", metric, spec),
                _mean_sd(row, "wavecc", metric, spec),
                pct_cell(row.diff(metric)),
            ]
        cells += [
            _mean_sd(row, "kernel", "retransmitted", ".0f"),
            _mean_sd(row, "wavecc", "retransmitted", ".0f"),
            "yes" if row.agrees else "no",
            f"{md_cell(row.p_value('goodput_mbps'), '.2f')}, "
            f"{md_cell(row.p_value('mean_srtt_ms'), '.2f')}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _mean_sd(row: Row, side: str, metric: str, spec: str) -> str:
    mean, sd = row.mean(side, metric), row.spread(side, metric)
    text = md_cell(mean, spec)
    return text if not math.isfinite(sd) else f"{text} ± {format(sd, spec)}"
