"""The machinery shared by every reproduction: an experiment is a list of cases (one
sweep each: a base config, a grid, labels that place its runs in the source paper's
tables), a function that turns the runs into tables, and one that draws the paper's
figures. Every case runs in each TCP stack asked for (by default the stack nearest to
the paper's simulator, then Linux's), and every table row names its `stack`.

Tables are written in long form, one row per cell, with the paper's published value
(from `published.csv`, transcribed once from the five source papers: docs/reproduction.md,
"The published numbers", says what it holds and where each number comes from) next to
ours and the difference.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from .. import analysis
from ..atomic import atomic_file
from ..config import Config, load_scenario, with_transport
from ..result import Result
from ..sweeps import ResultSet, apply_values, sweep

# Simulated seconds per wall second per worker process, overheads included, that turn
# an experiment's simulated seconds into the run time `--list` shows. mmWave: the full
# thesis-benchmarks reproduction (14,400 simulated s of 1 Gb/s flows in 173 s on 2
# processes, 2026-11-22). Wired: `wavecc bench`'s 1 Gb/s dumbbell; slower links run
# faster, so wired estimates err long.
MMWAVE_SIM_S_PER_S = 40.0
WIRED_SIM_S_PER_S = 90.0

# The long-form table's columns, in order.
TABLE_COLUMNS = [
    "table",
    "stack",
    "scenario",
    "setting",
    "per_byte",
    "cca",
    "metric",
    "unit",
    "published",
    "ours",
    "ours_ci",
    "n",
    "difference",
    "difference_pct",
]


@dataclass(frozen=True)
class Case:
    """One sweep: `config` run at every point of `grid` (dotted keys, `cca` for every
    flow's algorithm) times the experiment's repetitions. `labels` become columns of
    the combined summary (e.g. scenario and setting) so tables can find the runs."""

    name: str
    config: Config
    grid: Mapping[str, Sequence[Any]]
    labels: Mapping[str, Any]
    wired: bool = False

    def simulated_s(self, seeds: int) -> float:
        points = math.prod(len(v) for v in self.grid.values()) if self.grid else 1
        return points * seeds * float(self.config.get("duration_s", 60.0))


@dataclass(frozen=True)
class Runs:
    """An experiment's finished sweeps in one TCP stack: the combined summary (every
    case's rows with its labels, a `stack` and a `case` column) and each case's
    ResultSet for its traces."""

    summary: pd.DataFrame
    sets: dict[str, ResultSet]
    quick: bool

    def load(self, row: Mapping[str, Any] | pd.Series) -> Result:
        """The Result of one row of `summary`."""
        return self.sets[row["case"]].load(row["key"])

    def rows(self, **where: Any) -> pd.DataFrame:
        """The summary rows whose columns equal the given values (successful runs)."""
        frame = self.summary
        if "status" in frame.columns:
            frame = frame[frame["status"] == "ok"]
        for column, value in where.items():
            frame = frame[frame[column] == value]
        return frame

    def first(self, **where: Any) -> Result | None:
        """The first run matching `where` (its lowest seed), or None."""
        rows = self.rows(**where)
        return None if rows.empty else self.load(rows.sort_values("seed").iloc[0])


# Every experiment's tables by experiment id, then by table name: what findings read.
Tables = Mapping[str, Mapping[str, pd.DataFrame]]


@dataclass(frozen=True)
class Finding:
    """A qualitative finding of a source paper: `check(tables)` reads the tables of
    `experiments` and says whether it holds, with the numbers that decide it."""

    id: str
    text: str
    experiments: tuple[str, ...]
    check: Callable[[Tables], tuple[bool, str]]


@dataclass(frozen=True)
class Experiment:
    """A reproduction: `cases(quick)` gives the sweeps, `tables(runs)` the long-form
    table rows by table name (without the published columns, which are attached
    here), `figures(runs, directory)` draws the paper's figures; both read the runs of
    one stack at a time. `findings` are the paper's findings checked once this
    experiment (and every other one each names) has run."""

    id: str
    # The paper's number under which it was first filed (000 to 004): its rows of
    # published.csv (that file's `seed` column) and the `seed` of reproduction.json.
    seed: str
    title: str
    outputs: str
    cases: Callable[[bool], list[Case]]
    tables: Callable[[Runs], dict[str, pd.DataFrame]]
    figures: Callable[[Runs, Path], list[Path]]
    # The TCP stack (`tcp.stack`) nearest to the simulator the paper ran.
    stack: str
    repetitions: int = 3
    notes: str = ""
    # Published rows of these (seed, table) pairs are matched into the tables.
    published_tables: Sequence[str] = field(default_factory=tuple)
    findings: Sequence[Finding] = ()

    def seeds(self, quick: bool) -> int:
        return 1 if quick else self.repetitions

    def stacks(self, chosen: str | None = None) -> list[str]:
        """The stacks a reproduction runs in: `chosen`, or the paper's own and Linux's."""
        if chosen is not None:
            return [chosen]
        return list(dict.fromkeys([self.stack, LINUX]))

    def expected_wall_s(self, quick: bool, jobs: int) -> float:
        """Estimated wall time from the simulated seconds and the measured speeds."""
        total = 0.0
        for case in self.cases(quick):
            speed = WIRED_SIM_S_PER_S if case.wired else MMWAVE_SIM_S_PER_S
            total += case.simulated_s(self.seeds(quick)) / speed
        return total * len(self.stacks()) / max(jobs, 1)


# --- building cases ----------------------------------------------------------------------


# Quick runs are cut to this many seconds unless an experiment needs longer; the
# columns that place a run in a paper's table.
QUICK_S = 10.0
LINUX = "linux"
TABLE_KEYS = ["scenario", "setting", "per_byte", "cca"]
# The loss-based algorithms the findings compare with BBR and the papers' proposals.
LOSS_BASED = ["newreno", "cubic", "highspeed"]


def quick_cut(quick: bool, seconds: float = QUICK_S) -> float | None:
    """The `quick_s` of `scenario`: `seconds` for a --quick run, none for a full one."""
    return seconds if quick else None


def scenario(
    scenario_id: str,
    values: Mapping[str, Any] | None = None,
    *,
    quick_s: float | None = None,
) -> Config:
    """A built-in scenario with `values` (dotted keys) applied (the papers' built-ins
    carry the calibrated radio, docs/validation.md); with `quick_s` its duration is cut
    to at most that many seconds."""
    config = apply_values(load_scenario(scenario_id), dict(values or {}))
    if quick_s is not None:
        config["duration_s"] = min(float(config.get("duration_s", 60.0)), quick_s)
    return config


def udp(config: Config) -> Config:
    """The papers' UDP-saturated reference: the same applications over UDP."""
    return with_transport(config, "udp")


def with_flows(config: Config, flows: Sequence[Mapping[str, Any]]) -> Config:
    """A copy of `config` with its flows replaced."""
    result = copy.deepcopy(config)
    result["flows"] = [dict(f) for f in flows]
    return result


# --- running -------------------------------------------------------------------------------


def run_experiment(
    experiment: Experiment,
    out: Path,
    *,
    quick: bool,
    jobs: int | None,
    cluster: Any,
    progress: Callable[[str, Any], None] | None,
    stacks: Sequence[str],
) -> dict[str, Runs]:
    """Runs every case in every stack of `stacks` into `out/runs/<stack>/<case>`
    (resumable stores) and combines each stack's."""
    runs = {}
    for stack in stacks:
        frames, sets = [], {}
        for case, run_stack in (
            part for whole in experiment.cases(quick) for part in stack_parts(whole, stack)
        ):
            name = store_name(stack, case.name)
            report = (lambda p, name=name: progress(name, p)) if progress else None
            rs = sweep(
                case.config,
                dict(case.grid),
                seeds=experiment.seeds(quick),
                jobs=jobs,
                out=out / "runs" / name,
                progress=report,
                cluster=cluster,
                stack=run_stack,
            )
            frames.append(_labelled(rs.summary, case, stack))
            sets[case.name] = rs
        summary = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        runs[stack] = Runs(summary=summary, sets=sets, quick=quick)
    return runs


# Algorithms a stack does not have, and the stack their cells run in instead. ns-3 3.29
# had no BBR (`TcpBbr` came to ns-3 later), so a paper that ran ns3-mmwave on 3.29 ran
# a later ns-3's BBR: its BBR cells run in `ns3-3.37`, ns-3's `TcpBbr` on its own
# socket (docs/reproduction.md, "BBR in the `ns3-3.29` experiments").
BORROWED = {"ns3-3.29": {"bbr": "ns3-3.37"}}


def stack_parts(case: Case, stack: str) -> list[tuple[Case, str]]:
    """`case` split by the stack its algorithms run in when the reproduction's stack is
    `stack` (see BORROWED): each part with that stack, a borrowed part named
    `<case>@<stack>` so that its runs are stored apart."""
    borrowed = BORROWED.get(stack, {})
    algorithms = list(case.grid.get("cca", []))
    homes = {cca: borrowed.get(cca, stack) for cca in algorithms}
    if all(home == stack for home in homes.values()):
        return [(case, stack)]
    parts = []
    for home in dict.fromkeys(homes.values()):
        grid = {**case.grid, "cca": [cca for cca in algorithms if homes[cca] == home]}
        name = case.name if home == stack else f"{case.name}@{home}"
        parts.append((replace(case, name=name, grid=grid), home))
    return parts


def store_name(stack: str, case: str) -> str:
    """Where a case's runs in `stack` are kept, under the reproduction's `runs/`."""
    return f"{stack}/{case}"


def _labelled(summary: pd.DataFrame, case: Case, stack: str) -> pd.DataFrame:
    """A sweep's summary with the columns that place its rows: stack, case, the case's
    labels and the error rate."""
    frame = summary.copy()
    if "per_byte" not in case.labels:
        swept = "path.loss.per_byte" in frame.columns
        loss = case.config.get("path", {}).get("loss", {}).get("per_byte", 0.0)
        frame["per_byte"] = frame["path.loss.per_byte"] if swept else float(loss)
    frame.insert(0, "stack", stack)
    frame.insert(1, "case", case.name)
    for i, (column, value) in enumerate(case.labels.items()):
        frame.insert(2 + i, column, value)
    return frame


def stack_tables(experiment: Experiment, runs: Mapping[str, Runs]) -> dict[str, pd.DataFrame]:
    """The experiment's tables for each stack, one above the other, each row naming
    its stack."""
    parts: dict[str, list[pd.DataFrame]] = {}
    for stack, stack_runs in runs.items():
        for name, frame in experiment.tables(stack_runs).items():
            parts.setdefault(name, []).append(frame.assign(stack=stack)[TABLE_COLUMNS])
    return {name: pd.concat(frames, ignore_index=True) for name, frames in parts.items()}


# --- tables --------------------------------------------------------------------------------


def cell(
    table: str, metric: str, unit: str, values: Sequence[float] | float, **keys: Any
) -> dict[str, Any]:
    """One table row: our mean over repetitions (`values`) with its 95% interval."""
    if isinstance(values, (int, float)):
        values = [values]
    interval = analysis.confidence_interval(list(values))
    return {
        "table": table,
        "metric": metric,
        "unit": unit,
        "ours": interval.mean,
        "ours_ci": interval.half_width,
        "n": interval.n,
        **keys,
    }


def metric_cells(
    runs: Runs,
    table: str,
    metric: str,
    column: str,
    unit: str,
    *,
    by: Sequence[str],
    scale: float = 1.0,
) -> list[dict[str, Any]]:
    """A cell per group of `by` (e.g. scenario, setting, per_byte, cca) of the summary
    column `column` (a flow metric) averaged over repetitions."""
    return _grouped_cells(
        runs.rows(), by, lambda group: list(group[column] * scale), table, metric, unit
    )


def trace_mean_cells(
    runs: Runs,
    table: str,
    metric: str,
    column: str,
    unit: str,
    *,
    by: Sequence[str],
    where: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """A cell per group of `by` of the time average of a flow trace column (e.g. cwnd)
    of each run, averaged over repetitions (the FB-TCP paper's Table 8: average cwnd)."""

    def means(group: pd.DataFrame) -> list[float]:
        return [float(runs.load(row).flows[column].mean()) for _, row in group.iterrows()]

    return _grouped_cells(runs.rows(**dict(where or {})), by, means, table, metric, unit)


def _grouped_cells(
    frame: pd.DataFrame,
    by: Sequence[str],
    values: Callable[[pd.DataFrame], list[float]],
    table: str,
    metric: str,
    unit: str,
) -> list[dict[str, Any]]:
    rows = []
    for keys, group in frame.groupby(list(by), sort=False, dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        rows.append(
            cell(
                table,
                metric,
                unit,
                values(group),
                **{k: _plain(v) for k, v in zip(by, keys, strict=True)},
            )
        )
    return rows


def goodput_rtt_tables(
    runs: Runs,
    paper: str,
    by: Sequence[str],
    *,
    match: Sequence[str] | None = None,
    rtt_published_in: Sequence[str] = (),
) -> dict[str, pd.DataFrame]:
    """The usual pair: average throughput and average RTT per group of `by`, with the
    values the paper published for them, found by `match` (default `by`) among all its
    tables for throughput and among `rtt_published_in` (default all) for RTT."""
    match = by if match is None else match
    return {
        "throughput": attach_published(
            metric_cells(runs, "throughput", "avg_throughput", "goodput_mbps", "Mb/s", by=by),
            paper,
            (),
            match,
        ),
        "rtt": attach_published(
            metric_cells(runs, "rtt", "avg_rtt", "mean_rtt_ms", "ms", by=by),
            paper,
            rtt_published_in,
            match,
        ),
    }


def split_udp(runs: Runs, rows: pd.DataFrame) -> tuple[Runs, Runs]:
    """`rows` (of `runs`) as the TCP runs and the UDP-saturated ones."""
    is_udp = rows["cca"] == "udp"
    return Runs(rows[~is_udp], runs.sets, runs.quick), Runs(rows[is_udp], runs.sets, runs.quick)


def udp_saturated_table(
    runs: Runs, paper: str, by: Sequence[str], match: Sequence[str]
) -> pd.DataFrame:
    """The UDP-saturated goodput per group of `by`, against the line the paper gives in
    its text."""
    cells = metric_cells(
        runs, "udp_saturated", "saturated_throughput", "goodput_mbps", "Mb/s", by=by
    )
    return attach_published(cells, paper, ("text",), match)


def improvement_cells(
    runs: Runs,
    table: str,
    algorithm: str,
    metric: str,
    column: str,
    *,
    where: Mapping[str, Any],
    keys: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """The thesis's improvement tables: `algorithm` over each baseline, per error rate, in
    percent (`analysis.improvement_table`), one cell per baseline and error rate."""
    frame = runs.rows(**where)
    table_frame = analysis.improvement_table(
        frame, algorithm, column, lower_better=metric.startswith("latency")
    )
    rows = []
    for baseline, row in table_frame.iterrows():
        for per_byte, value in row.items():
            rows.append(
                cell(
                    table,
                    metric,
                    "%",
                    float(value),
                    cca=f"{algorithm} vs {baseline}",
                    per_byte=_plain(per_byte),
                    **keys,
                )
            )
    return rows


@cache
def published() -> pd.DataFrame:
    """The papers' published numbers (one row per value)."""
    with resources.files(__package__).joinpath("published.csv").open(encoding="utf-8") as f:
        frame = pd.read_csv(f, dtype={"seed": str, "table": str, "value": str})
    frame["per_byte"] = pd.to_numeric(frame["per_byte"], errors="coerce")
    return frame


def attach_published(
    rows: list[dict[str, Any]], paper: str, tables: Sequence[str], match: Sequence[str]
) -> pd.DataFrame:
    """The rows as a long-form DataFrame with the published value of each cell found
    by `match` columns among the paper's `tables`, and the difference where both are
    numbers. Published cells we have no run for are kept (ours NaN), so a table always
    shows everything the paper published."""
    frame = pd.DataFrame(rows)
    if "published" not in frame.columns:
        frame["published"] = None
    for column in TABLE_COLUMNS:
        if column not in frame.columns:
            frame[column] = (
                math.nan
                if column not in ("table", "stack", "scenario", "setting", "cca", "metric", "unit")
                else ""
            )
    pub = published()
    pub = pub[(pub["seed"] == paper) & pub["table"].isin(tables)]
    if not pub.empty and not frame.empty:
        lookup = {_key(r, match): r["value"] for _, r in pub.iterrows()}
        metrics = set(frame["metric"])
        given = frame["published"] if "published" in frame.columns else [None] * len(frame)
        frame["published"] = [
            p
            if isinstance(p, str) or (p is not None and not pd.isna(p))
            else lookup.pop(_key(r, match), None)
            for p, (_, r) in zip(given, frame.iterrows(), strict=True)
        ]
        missing = [
            {
                "table": frame["table"].iloc[0],
                "scenario": r["scenario"],
                "setting": r["setting"],
                "per_byte": r["per_byte"],
                "cca": r["cca"],
                "metric": r["metric"],
                "unit": r["unit"],
                "published": r["value"],
            }
            for _, r in pub.iterrows()
            if _key(r, match) in lookup and r["metric"] in metrics
        ]
        if missing:
            frame = pd.concat([frame, pd.DataFrame(missing)], ignore_index=True)
    numeric = pd.to_numeric(frame["published"], errors="coerce")
    frame["difference"] = frame["ours"] - numeric
    frame["difference_pct"] = frame["difference"] / numeric.abs() * 100.0
    return frame[TABLE_COLUMNS]


def _key(row: Mapping[str, Any] | pd.Series, match: Sequence[str]) -> tuple:
    return tuple(_norm(row.get(c)) for c in match)


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 15)
    if value is None:
        return None
    return value


def _plain(value: Any) -> Any:
    """numpy scalars as Python values, for clean CSVs and comparisons."""
    return value.item() if hasattr(value, "item") else value


def ours(table: pd.DataFrame, **where: object) -> float:
    """Our value in the first row of a written table whose columns equal `where`
    (for findings)."""
    rows = table
    for column, value in where.items():
        rows = rows[rows[column] == value]
    if rows.empty:
        raise KeyError(f"no row with {where}")
    return float(rows["ours"].iloc[0])


def write_tables(tables: Mapping[str, pd.DataFrame], directory: Path) -> list[Path]:
    """Each table as `directory/NAME.csv`."""
    paths = []
    for name, frame in tables.items():
        path = directory / f"{name}.csv"
        with atomic_file(path) as tmp:
            frame.to_csv(tmp, index=False)
        paths.append(path)
    return paths


# --- figures ------------------------------------------------------------------------------


def every_run(results: Sequence[Result | None]) -> list[Result] | None:
    """The runs a figure needs, or None when any of them is missing (not yet run)."""
    found = [r for r in results if r is not None]
    return found if len(found) == len(results) else None


def overlay(results: Sequence[Result]) -> Result:
    """One Result whose flows are the flows of `results` side by side (renumbered), for
    time series of several algorithms on one figure; the first run's radio summary
    (its NLoS stretches) is kept."""
    flows, summaries = [], []
    for i, r in enumerate(results):
        frame = r.flows.copy()
        base = sum(len(x.summary["flows"]) for x in results[:i])
        frame["flow"] = frame["flow"] + base
        flows.append(frame)
        summaries += [{**f, "flow": f["flow"] + base} for f in r.summary["flows"]]
    first = results[0]
    summary = {**first.summary, "flows": summaries}
    return Result(
        summary=summary,
        config=first.config,
        flows=pd.concat(flows, ignore_index=True),
        queues=first.queues,
        cc=first.cc,
        events=first.events,
        ues=first.ues,
        radio_events=first.radio_events,
    )


def goodput_rtt_bars(
    rows: pd.DataFrame,
    stem: Path,
    *,
    x: str = "per_byte",
    xlabel: str | None = None,
    rtt: str = "RTT",
) -> list[Path]:
    """The papers' pair of bar charts: average throughput and average `rtt` (their word
    for it: RTT or latency) per algorithm at each value of `x`, as `stem`-throughput
    and `stem`-<rtt>."""
    from .. import figures

    paths = []
    for metric, label, suffix in (
        ("goodput_mbps", "average throughput (Mb/s)", "throughput"),
        ("mean_rtt_ms", f"average {rtt} (ms)", rtt.lower()),
    ):
        fig = figures.bars(rows, metric, x=x, xlabel=xlabel, ylabel=label)
        paths += figures.save(fig, stem.with_name(f"{stem.name}-{suffix}"))
    return paths
