"""The thesis (Abdulmajid, UPM 2025): the urban walk-stop-drive scenario with four RLC
buffer / server settings and four per-byte error rates. Tables 3.3 and 3.4 (five
benchmarks), 4.1 (RTTV-CCA), 5.1-5.6 (MSS-CCA) and 6.1-6.2 (MRVHS-CCA): the
proposals' percentage improvements over the benchmarks, and their CDF figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .. import analysis, figures
from .core import (
    LOSS_BASED,
    Case,
    Experiment,
    Finding,
    Runs,
    Tables,
    attach_published,
    goodput_rtt_bars,
    improvement_cells,
    metric_cells,
    ours,
    quick_cut,
    scenario,
)

BENCHMARKS = ["newreno", "highspeed", "cubic", "bbr", "fbtcp"]
RATES = [0.0, 1e-9, 1e-8, 1e-7]
SCENARIO = "thesis urban"
# The thesis' settings (its table headings) as config values; MB read as MiB like the
# source papers' ns-3 code, the remote server 40 ms away with a 10 MB RLC buffer.
SETTINGS: dict[str, dict[str, Any]] = {
    "small (0.25 MB)": {"radio.rlc_buffer_bytes": 262_144},
    "bdp (2.5 MB)": {"radio.rlc_buffer_bytes": 2_621_440},
    "large (20 MB)": {"radio.rlc_buffer_bytes": 20_971_520},
    "remote server": {
        "radio.rlc_buffer_bytes": 10_485_760,
        "path.one_way_delay_s": 0.040,
    },
}
MATCH = ["setting", "per_byte", "cca", "metric"]


def _cases(algorithms: list[str], settings: list[str]):
    def cases(quick: bool) -> list[Case]:
        return [
            Case(
                _slug(name),
                scenario("urban", SETTINGS[name], quick_s=quick_cut(quick)),
                {"cca": algorithms, "path.loss.per_byte": RATES},
                {"scenario": SCENARIO, "setting": name},
            )
            for name in settings
        ]

    return cases


def benchmark_tables(runs: Runs) -> dict:
    by = ["scenario", "setting", "per_byte", "cca"]
    return {
        "table3.3": attach_published(
            metric_cells(runs, "table3.3", "avg_throughput", "goodput_mbps", "Mb/s", by=by),
            "001",
            ("3.3",),
            MATCH,
        ),
        "table3.4": attach_published(
            metric_cells(runs, "table3.4", "avg_latency", "mean_rtt_ms", "ms", by=by),
            "001",
            ("3.4",),
            MATCH,
        ),
    }


def _improvement_tables(algorithm: str, layout: dict[str, tuple[str, str]]):
    """Tables named by the thesis, each (setting, metric) of `algorithm` over the benchmarks."""

    def tables(runs: Runs) -> dict:
        out = {}
        for name, (setting, metric) in layout.items():
            column = "goodput_mbps" if metric == "throughput_improvement" else "mean_rtt_ms"
            rows = improvement_cells(
                runs,
                name,
                algorithm,
                metric,
                column,
                where={"setting": setting},
                keys={"scenario": SCENARIO, "setting": setting},
            )
            out[name] = attach_published(rows, "001", (name.removeprefix("table"),), MATCH)
        return out

    return tables


def draw(runs: Runs, directory: Path) -> list[Path]:
    """Bars of throughput and latency per setting, and CDFs of per-interval goodput and
    RTT per algorithm at each error rate (the thesis' CDF figures)."""
    paths = []
    for case, rs in runs.sets.items():
        rows = runs.rows(case=case)
        if rows.empty:
            continue
        paths += goodput_rtt_bars(rows, directory / case, rtt="latency")
        samples = analysis.interval_samples(rs)
        for rate in RATES:
            at = samples[samples["path.loss.per_byte"] == rate]
            if at.empty:
                continue
            for column, label in (
                ("goodput_mbps", "goodput (Mb/s)"),
                ("rtt_mean_ms", "RTT (ms)"),
            ):
                fig = figures.cdf_plot(
                    analysis.cdfs(at.dropna(subset=[column]), column),
                    xlabel=label,
                    title=f"{case}, per-byte error {rate:g}",
                )
                paths += figures.save(fig, directory / f"{case}-cdf-{column}-{rate:g}")
    return paths


def _slug(setting: str) -> str:
    """A directory name for a setting: its first word ("small", "bdp", "remote")."""
    return setting.split(" ")[0]


def _bdp(tables: Tables) -> pd.DataFrame:
    return tables["thesis-benchmarks"]["table3.3"].query("setting == 'bdp (2.5 MB)'")


def _collapse_at_high_loss(tables: Tables) -> tuple[bool, str]:
    t = _bdp(tables)
    kept = {
        c: ours(t, cca=c, per_byte=1e-7) / ours(t, cca=c, per_byte=0.0)
        for c in ("newreno", "cubic", "bbr")
    }
    holds = kept["newreno"] < 0.2 and kept["cubic"] < 0.2 and kept["bbr"] > 0.5
    return holds, ", ".join(
        f"{c} keeps {v:.0%}" for c, v in kept.items()
    ) + " of its loss-free goodput (2.5 MB)"


def _highspeed_best_at_1e8(tables: Tables) -> tuple[bool, str]:
    t = _bdp(tables)
    goodput = {c: ours(t, cca=c, per_byte=1e-8) for c in LOSS_BASED}
    best = max(goodput, key=goodput.__getitem__)
    return best == "highspeed", ", ".join(
        f"{c} {v:.0f}" for c, v in goodput.items()
    ) + " Mb/s at 1e-8 (2.5 MB)"


def _rtt_family_wins_at_1e7(tables: Tables) -> tuple[bool, str]:
    cells = []
    for experiment, table, name in (
        ("thesis-rttv", "table4.1", "rttv"),
        ("thesis-mss", "table5.2", "mss"),
        ("thesis-mrvhs", "table6.1", "mrvhs"),
    ):
        t = tables[experiment][table]
        for base in ("newreno", "cubic"):
            cells.append((f"{name} vs {base}", ours(t, cca=f"{name} vs {base}", per_byte=1e-7)))
    # "By a wide margin": at least double the baseline's goodput.
    return all(v >= 100 for _, v in cells), ", ".join(
        f"{k} {v:+.0f}%" for k, v in cells
    ) + " at 1e-7"


# The thesis ran ns-3.35, whose TCP is 3.37's (docs/reproduction.md, "How the runs are
# set up").
STACK = "ns3-3.37"

BENCHMARK = Experiment(
    stack=STACK,
    id="thesis-benchmarks",
    seed="001",
    title="Thesis Tables 3.3/3.4: five benchmarks x buffers 0.25/2.5/20 MB + remote server x four error rates",
    outputs="table3.3 (throughput), table3.4 (latency); bars and CDFs",
    cases=_cases(BENCHMARKS, list(SETTINGS)),
    tables=benchmark_tables,
    figures=draw,
    findings=(
        Finding(
            "high-loss-collapse",
            "At per-byte loss 1e-7 NewReno and CUBIC keep less than 20% of their "
            "loss-free goodput while BBR keeps more than half",
            ("thesis-benchmarks",),
            _collapse_at_high_loss,
        ),
        Finding(
            "highspeed-best-1e-8",
            "Among loss-based algorithms HighSpeed is best at 1e-8",
            ("thesis-benchmarks",),
            _highspeed_best_at_1e8,
        ),
    ),
)

RTTV = Experiment(
    stack=STACK,
    id="thesis-rttv",
    seed="001",
    title="Thesis Table 4.1: RTTV-CCA's throughput improvement over the benchmarks (2.5 MB)",
    outputs="table4.1; bars and CDFs",
    cases=_cases(["rttv", *BENCHMARKS], ["bdp (2.5 MB)"]),
    tables=_improvement_tables("rttv", {"table4.1": ("bdp (2.5 MB)", "throughput_improvement")}),
    figures=draw,
)

MSS = Experiment(
    stack=STACK,
    id="thesis-mss",
    seed="001",
    title="Thesis Tables 5.1-5.6: MSS-CCA's throughput and latency improvements (0.25, 2.5, 20 MB)",
    outputs="table5.1-5.3 (throughput), table5.4-5.6 (latency); bars and CDFs",
    cases=_cases(["mss", *BENCHMARKS], ["small (0.25 MB)", "bdp (2.5 MB)", "large (20 MB)"]),
    tables=_improvement_tables(
        "mss",
        {
            "table5.1": ("small (0.25 MB)", "throughput_improvement"),
            "table5.2": ("bdp (2.5 MB)", "throughput_improvement"),
            "table5.3": ("large (20 MB)", "throughput_improvement"),
            "table5.4": ("small (0.25 MB)", "latency_improvement"),
            "table5.5": ("bdp (2.5 MB)", "latency_improvement"),
            "table5.6": ("large (20 MB)", "latency_improvement"),
        },
    ),
    figures=draw,
)

MRVHS = Experiment(
    stack=STACK,
    id="thesis-mrvhs",
    seed="001",
    title="Thesis Tables 6.1/6.2: MRVHS-CCA's improvements with the remote server",
    outputs="table6.1 (throughput), table6.2 (latency); bars and CDFs",
    cases=_cases(["mrvhs", *BENCHMARKS], ["remote server"]),
    tables=_improvement_tables(
        "mrvhs",
        {
            "table6.1": ("remote server", "throughput_improvement"),
            "table6.2": ("remote server", "latency_improvement"),
        },
    ),
    figures=draw,
    findings=(
        Finding(
            "rtt-family-1e-7",
            "RTTV, MSS-CCA and MRVHS beat NewReno and CUBIC at 1e-7 by a wide margin",
            ("thesis-rttv", "thesis-mss", "thesis-mrvhs"),
            _rtt_family_wins_at_1e7,
        ),
    ),
)

EXPERIMENTS = [BENCHMARK, RTTV, MSS, MRVHS]
