"""The D-TCP paper (Kanagarathinam et al.): the small-building, large-building and high-speed
mmWave walks with D-TCP, BBR, BIC, CUBIC and NewReno; the LTE-A-like wired bottleneck
(1 and 5 Mb/s, 40 ms RTT, packet loss 0.01 / 1e-4 / 1e-6) with D-TCP, CUBIC and Reno
(the paper's CLTCP is not modelled); five staggered D-TCP flows (intra-fairness) and
D-TCP, CUBIC, Reno, Westwood+ and Tahoe sharing 5 Mb/s (inter-fairness), with Jain's
index."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from .. import analysis, figures
from ..result import Result
from .core import (
    TABLE_KEYS,
    Case,
    Experiment,
    Finding,
    Runs,
    Tables,
    attach_published,
    cell,
    every_run,
    goodput_rtt_tables,
    ours,
    overlay,
    quick_cut,
    scenario,
    with_flows,
)

MMWAVE = {
    "dtcp-small-building": "small building",
    "dtcp-large-building": "large building",
    "dtcp-highspeed": "high speed",
}
MMWAVE_ALGORITHMS = ["dtcp", "bbr", "bic", "cubic", "newreno"]
BOTTLENECK_ALGORITHMS = ["dtcp", "cubic", "reno"]
LOSSES = [0.01, 1e-4, 1e-6]
RATES = [1e6, 5e6]
# How the D-TCP paper's Fig. 13 names the bottleneck (published.csv's scenario column).
BOTTLENECK_LABEL = "lte-a bottleneck 5 Mb/s, 40 ms"
INTER = ["dtcp", "cubic", "reno", "westwood", "tahoe"]
# Jain's index is taken once every flow runs: over the last this many seconds.
FAIRNESS_WINDOW_S = 20.0
# The intra-fairness case again over drop-tail buffers around the paper's 100 packets.
# The path is wired and loss-free, so every seed gives the same run: the buffer, not the
# seed, shows how robust one run's index is.
INTRA_BUFFERS = list(range(80, 121, 5))
INTRA = "intra (5 x D-TCP)"
INTRA_BUFFERS_SETTING = f"{INTRA}, buffer {INTRA_BUFFERS[0]}-{INTRA_BUFFERS[-1]} packets"
# The paper's bar for intra-fairness.
FAIR_JAIN = 0.95
BY = TABLE_KEYS


def mmwave_cases(quick: bool) -> list[Case]:
    return [
        Case(
            sc,
            scenario(sc, quick_s=quick_cut(quick)),
            {"cca": MMWAVE_ALGORITHMS},
            {"scenario": sc, "setting": words},
        )
        for sc, words in MMWAVE.items()
    ]


def mmwave_tables(runs: Runs) -> dict:
    return goodput_rtt_tables(runs, "003", BY)


def mmwave_figures(runs: Runs, directory: Path) -> list[Path]:
    paths = []
    for sc, words in MMWAVE.items():
        results = every_run([runs.first(scenario=sc, cca=c) for c in MMWAVE_ALGORITHMS])
        if results:
            paths += figures.save(
                figures.time_series(overlay(results), title=f"D-TCP, {words}"),
                directory / sc,
            )
    rows = runs.rows()
    if not rows.empty:
        paths += figures.save(
            figures.bars(
                rows,
                "goodput_mbps",
                x="setting",
                xlabel="scenario",
                ylabel="average goodput (Mb/s)",
            ),
            directory / "goodput",
        )
    return paths


# The D-TCP paper ran ns3-mmwave and ns-3 LTE-A of 2019-2020: ns3-3.29 is the nearest stack.
STACK = "ns3-3.29"

MMWAVE_EXPERIMENT = Experiment(
    stack=STACK,
    id="dtcp-mmwave",
    seed="003",
    title="D-TCP in mmWave: small building, large building, high speed; D-TCP, BBR, BIC, CUBIC, NewReno",
    outputs="throughput, RTT; time series per scenario, goodput bars",
    cases=mmwave_cases,
    tables=mmwave_tables,
    figures=mmwave_figures,
)


def bottleneck_cases(quick: bool) -> list[Case]:
    base = scenario("dtcp-bottleneck", quick_s=quick_cut(quick))
    return [
        Case(
            "bottleneck",
            base,
            {"cca": BOTTLENECK_ALGORITHMS, "path.rate_bps": RATES, "path.loss.per_packet": LOSSES},
            {"scenario": "dtcp-bottleneck", "setting": "lte-a bottleneck"},
            wired=True,
        )
    ]


def bottleneck_tables(runs: Runs) -> dict:
    """Goodput per rate, loss and algorithm (kb/s), and Fig. 13's "maximum goodput":
    at 5 Mb/s the best of the three loss conditions' average goodputs."""
    frame = runs.rows()
    rows = []
    for (rate, loss, cca), group in frame.groupby(
        ["path.rate_bps", "path.loss.per_packet", "cca"], sort=False
    ):
        rows.append(
            cell(
                "goodput",
                "avg_goodput",
                "kb/s",
                list(group["goodput_mbps"] * 1e3),
                scenario="dtcp-bottleneck",
                setting=f"{cast(float, rate) / 1e6:g} Mb/s, packet loss {loss:g}",
                per_byte=0.0,
                cca=cca,
            )
        )
    best = []
    at5 = frame[frame["path.rate_bps"] == 5e6]
    for cca, group in at5.groupby("cca", sort=False):
        means = group.groupby("path.loss.per_packet")["goodput_mbps"].mean() * 1e3
        best.append(
            cell(
                "max_goodput",
                "max_goodput",
                "kb/s",
                float(means.max()),
                scenario=BOTTLENECK_LABEL,
                setting="max goodput",
                cca=cca,
            )
        )
    return {
        "goodput": attach_published(rows, "003", (), ["scenario", "setting", "cca", "metric"]),
        "max_goodput": attach_published(
            best, "003", ("text (Fig. 13)",), ["scenario", "cca", "metric"]
        ),
    }


def bottleneck_figures(runs: Runs, directory: Path) -> list[Path]:
    paths = []
    for rate in RATES:
        rows = runs.rows(**{"path.rate_bps": rate})
        if not rows.empty:
            fig = figures.bars(
                rows,
                "goodput_mbps",
                x="path.loss.per_packet",
                xlabel="packet loss ratio",
                ylabel="average goodput (Mb/s)",
            )
            paths += figures.save(fig, directory / f"goodput-{rate / 1e6:g}mbps")
    return paths


def _dtcp_beats_reno(tables: Tables) -> tuple[bool, str]:
    t = tables["dtcp-bottleneck"]["goodput"]
    setting = "5 Mb/s, packet loss 0.01"
    dtcp, reno = (
        ours(t, setting=setting, cca="dtcp"),
        ours(t, setting=setting, cca="reno"),
    )
    return dtcp > reno, f"D-TCP {dtcp:.0f} kb/s, Reno {reno:.0f} kb/s ({setting})"


BOTTLENECK = Experiment(
    stack=STACK,
    id="dtcp-bottleneck",
    seed="003",
    title="LTE-A-like bottleneck: 1 and 5 Mb/s, 40 ms RTT, packet loss 0.01 / 1e-4 / 1e-6",
    outputs="goodput per cell, Fig. 13's maximum goodput; bars",
    cases=bottleneck_cases,
    tables=bottleneck_tables,
    figures=bottleneck_figures,
    findings=(
        Finding(
            "dtcp-lossy",
            "D-TCP beats Reno on the lossy bottleneck",
            ("dtcp-bottleneck",),
            _dtcp_beats_reno,
        ),
    ),
)


def fairness_cases(quick: bool) -> list[Case]:
    base = scenario("dtcp-fairness", quick_s=quick_cut(quick, 50.0))
    inter = with_flows(
        base, [{**f, "cca": cca} for f, cca in zip(base["flows"], INTER, strict=True)]
    )
    return [
        Case(
            "intra",
            base,
            {},
            {"scenario": "dtcp-fairness", "setting": INTRA, "cca": "dtcp"},
            wired=True,
        ),
        Case(
            "intra-buffers",
            base,
            {"path.buffer_packets": INTRA_BUFFERS},
            {"scenario": "dtcp-fairness", "setting": INTRA_BUFFERS_SETTING, "cca": "dtcp"},
            wired=True,
        ),
        Case(
            "inter",
            inter,
            {},
            {
                "scenario": "dtcp-fairness",
                "setting": "inter (" + ", ".join(INTER) + ")",
                "cca": "mixed",
            },
            wired=True,
        ),
    ]


def _jain_of_last_window(result: Result) -> float:
    """Jain's index of the flows' mean goodputs over the run's last FAIRNESS_WINDOW_S."""
    end = result.flows["t_s"].max()
    window = result.flows[result.flows["t_s"] > end - FAIRNESS_WINDOW_S]
    return analysis.jain(window.groupby("flow")["goodput_mbps"].mean())


def _buffer_spread_cells(indices: list[float], keys: dict) -> list[dict]:
    """The intra-fairness index over the buffer range: its least value and the share of
    buffer sizes (runs) whose index clears the paper's bar."""
    return [
        cell("fairness", "jain_index_min", "", min(indices), cca="dtcp", **keys),
        cell(
            "fairness",
            f"share_jain_above_{FAIR_JAIN}",
            "%",
            100.0 * sum(j > FAIR_JAIN for j in indices) / len(indices),
            cca="dtcp",
            **keys,
        ),
    ]


def fairness_tables(runs: Runs) -> dict:
    rows = []
    for (setting, cca), group in runs.rows().groupby(["setting", "cca"], sort=False):
        results = [runs.load(row) for _, row in group.iterrows()]
        keys = {"scenario": "dtcp-fairness", "setting": setting, "per_byte": 0.0}
        indices = [_jain_of_last_window(r) for r in results]
        rows.append(cell("fairness", "jain_index", "", indices, cca=cca, **keys))
        if setting == INTRA_BUFFERS_SETTING:
            rows += _buffer_spread_cells(indices, keys)
            continue
        for flow in results[0].summary["flows"]:
            values = [r.summary["flows"][flow["flow"]]["goodput_mbps"] * 1e3 for r in results]
            rows.append(
                cell(
                    "fairness",
                    f"flow{flow['flow']}_goodput",
                    "kb/s",
                    values,
                    cca=flow["cca"],
                    **keys,
                )
            )
    return {"fairness": attach_published(rows, "003", (), BY)}


def fairness_figures(runs: Runs, directory: Path) -> list[Path]:
    paths = []
    for case in ("intra", "inter"):
        first = runs.first(case=case)
        if first is not None:
            paths += figures.save(
                figures.time_series(first, title=f"D-TCP {case}-fairness, 5 Mb/s"),
                directory / f"fairness-{case}",
            )
    return paths


def _dtcp_fair(tables: Tables) -> tuple[bool, str]:
    t = tables["dtcp-fairness"]["fairness"].set_index(["setting", "metric"])["ours"]
    jain = float(t[(INTRA, "jain_index")])
    detail = f"Jain's index of five D-TCP flows over the last 20 s: {jain:.2f}"
    spread = (INTRA_BUFFERS_SETTING, "jain_index_min")
    if spread in t.index:
        detail += (
            f" (buffers {INTRA_BUFFERS[0]}-{INTRA_BUFFERS[-1]} packets: least"
            f" {t[spread]:.2f}, above {FAIR_JAIN} in"
            f" {t[(INTRA_BUFFERS_SETTING, f'share_jain_above_{FAIR_JAIN}')]:.0f}%)"
        )
    return jain > FAIR_JAIN, detail


FAIRNESS = Experiment(
    stack=STACK,
    id="dtcp-fairness",
    seed="003",
    title="Fairness on 5 Mb/s: five staggered D-TCP flows; D-TCP, CUBIC, Reno, Westwood+, Tahoe",
    outputs="Jain's index over the last 20 s, also over drop-tail buffers of 80-120 packets,"
    " goodput per flow; time series",
    cases=fairness_cases,
    tables=fairness_tables,
    figures=fairness_figures,
    findings=(
        Finding(
            "dtcp-fairness",
            "Jain's index of five D-TCP flows exceeds 0.95",
            ("dtcp-fairness",),
            _dtcp_fair,
        ),
    ),
)

EXPERIMENTS = [MMWAVE_EXPERIMENT, BOTTLENECK, FAIRNESS]
