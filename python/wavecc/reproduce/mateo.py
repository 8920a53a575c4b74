"""The Mateo study (Jimenez Mateo, Fiandrino and Widmer): a single flow behind three kinds of
blockage (one 13 s building, two 4 s buildings, six 0.25 s obstacles) with the default
settings, an RLC buffer of 7 MB, and 7 MB with a 200 ms minimum RTO; the
throughput-RTT 2-sigma ellipses of NewReno, Scalable, CUBIC, Vegas, Westwood+ and YeAH;
the handover street (three APs, lampposts, a truck) for CUBIC and YeAH; and the ten-UE,
four-AP application mix with and without UE0. The study publishes figures only, so
the tables carry ours alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import analysis, figures
from .core import (
    TABLE_KEYS,
    Case,
    Experiment,
    Runs,
    attach_published,
    cell,
    every_run,
    goodput_rtt_tables,
    metric_cells,
    overlay,
    quick_cut,
    scenario,
    with_flows,
)

ALGORITHMS = ["newreno", "scalable", "cubic", "vegas", "westwood", "yeah"]
BLOCKAGES = {
    "mateo-building13": "one 13 s building",
    "mateo-buildings4": "two 4 s buildings",
    "mateo-obstacles": "six 0.25 s obstacles",
}
RLC_7MB = 7_340_032
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "rlc 7 MB": {"radio.rlc_buffer_bytes": RLC_7MB},
    "rlc 7 MB + rto 200 ms": {"radio.rlc_buffer_bytes": RLC_7MB, "tcp.min_rto_s": 0.2},
}
CONFIG_SLUGS = {
    "default": "default",
    "rlc 7 MB": "rlc7",
    "rlc 7 MB + rto 200 ms": "rlc7-rto200",
}
BY = TABLE_KEYS


# --- blockage -------------------------------------------------------------------------------


def blockage_cases(quick: bool) -> list[Case]:
    return [
        Case(
            f"{sc}-{CONFIG_SLUGS[name]}",
            scenario(sc, values, quick_s=quick_cut(quick)),
            {"cca": ALGORITHMS},
            {"scenario": sc, "setting": name},
        )
        for sc in BLOCKAGES
        for name, values in CONFIGS.items()
    ]


def blockage_tables(runs: Runs) -> dict:
    return goodput_rtt_tables(runs, "004", BY)


def blockage_figures(runs: Runs, directory: Path) -> list[Path]:
    """Per setting, the ellipses of per-interval (RTT, goodput) points per algorithm
    and blockage type; per blockage, CUBIC's time series in the three settings."""
    paths = []
    for name, slug in CONFIG_SLUGS.items():
        frames = []
        for case in runs.rows(setting=name)["case"].unique():
            samples = analysis.interval_samples(runs.sets[case])
            samples["scenario"] = runs.rows(case=case)["scenario"].iloc[0]
            frames.append(samples)
        if not frames:
            continue
        import pandas as pd

        samples = pd.concat(frames, ignore_index=True).dropna(subset=["rtt_mean_ms"])
        table = analysis.ellipses(
            samples, x="rtt_mean_ms", y="goodput_mbps", by=("cca", "scenario")
        )
        paths += figures.save(
            figures.ellipse_plot(table, scenario="scenario"),
            directory / f"ellipses-{slug}",
        )
    for sc, words in BLOCKAGES.items():
        results = every_run(
            [runs.first(scenario=sc, setting=name, cca="cubic") for name in CONFIGS]
        )
        if results:
            fig = figures.time_series(
                overlay(results),
                title=f"{words}: CUBIC, default / 7 MB / 7 MB + 200 ms RTO",
            )
            paths += figures.save(fig, directory / f"{sc}-cubic-settings")
    return paths


# The Mateo study ran ns3-mmwave of 2018-2019: ns3-3.29 is the nearest stack.
STACK = "ns3-3.29"

BLOCKAGE = Experiment(
    stack=STACK,
    id="mateo-blockage",
    seed="004",
    title="Three blockage types x default / RLC 7 MB / RLC 7 MB + 200 ms min RTO x six algorithms",
    outputs="throughput, RTT; throughput-RTT 2-sigma ellipses; CUBIC time series per setting",
    cases=blockage_cases,
    tables=blockage_tables,
    figures=blockage_figures,
)


# --- handover --------------------------------------------------------------------------------


def handover_cases(quick: bool) -> list[Case]:
    base = scenario("mateo-handover", quick_s=quick_cut(quick))
    return [
        Case(
            "handover",
            base,
            {"cca": ["cubic", "yeah"]},
            {"scenario": "mateo-handover", "setting": "default"},
        )
    ]


def handover_tables(runs: Runs) -> dict:
    rows = metric_cells(runs, "handover", "avg_throughput", "goodput_mbps", "Mb/s", by=BY)
    rows += metric_cells(runs, "handover", "avg_rtt", "mean_rtt_ms", "ms", by=BY)
    for (cca, setting), group in runs.rows().groupby(["cca", "setting"], sort=False):
        counts = [runs.load(row).summary["ues"][0]["handovers"] for _, row in group.iterrows()]
        rows.append(
            cell(
                "handover",
                "handovers",
                "count",
                counts,
                scenario="mateo-handover",
                setting=setting,
                per_byte=0.0,
                cca=cca,
            )
        )
    return {"handover": attach_published(rows, "004", (), BY)}


def handover_figures(runs: Runs, directory: Path) -> list[Path]:
    paths = []
    results = every_run([runs.first(cca=c) for c in ("cubic", "yeah")])
    if results:
        paths += figures.save(
            figures.time_series(overlay(results), title="handover street: CUBIC and YeAH"),
            directory / "handover-throughput",
        )
        first = results[0]
        paths += figures.save(
            figures.radio_traces(first.ues, nlos=figures.nlos_intervals(first.summary)),
            directory / "handover-sinr",
        )
    return paths


HANDOVER = Experiment(
    stack=STACK,
    id="mateo-handover",
    seed="004",
    title="Handover street: three APs 20 m apart, lampposts, a truck; CUBIC and YeAH",
    outputs="throughput, RTT, handovers; throughput and SINR (serving cell) over time",
    cases=handover_cases,
    tables=handover_tables,
    figures=handover_figures,
)


# --- multi-user ------------------------------------------------------------------------------


def multiuser_cases(quick: bool) -> list[Case]:
    base = scenario("mateo-multiuser", quick_s=quick_cut(quick))
    without = with_flows(base, [f for f in base["flows"] if f.get("ue", 0) != 0])
    return [
        Case(
            "with-ue0",
            base,
            {"cca": ["cubic", "yeah"]},
            {"scenario": "mateo-multiuser", "setting": "with UE0"},
        ),
        Case(
            "without-ue0",
            without,
            {"cca": ["cubic", "yeah"]},
            {"scenario": "mateo-multiuser", "setting": "without UE0"},
        ),
    ]


def multiuser_tables(runs: Runs) -> dict:
    """The Mateo study's Figs. 5 and 6: transport blocks each AP sent (retransmissions
    included) and packets each UE received (application bytes / 1400-byte writes)."""
    per_ap, per_ue = [], []
    for (setting, cca), group in runs.rows().groupby(["setting", "cca"], sort=False):
        summaries = [runs.load(row).summary for _, row in group.iterrows()]
        keys = {
            "scenario": "mateo-multiuser",
            "setting": setting,
            "per_byte": 0.0,
            "cca": cca,
        }
        for ap in range(len(summaries[0]["cells"])):
            blocks = [s["cells"][ap]["transport_blocks"] for s in summaries]
            per_ap.append(
                cell(
                    "packets_per_ap",
                    f"ap{ap + 1}_transport_blocks",
                    "TBs",
                    blocks,
                    **keys,
                )
            )
        ues = sorted({f.get("ue", 0) for f in runs.load(group.iloc[0]).config["flows"]})
        for ue in ues:
            received = [
                sum(
                    f["bytes_delivered"]
                    for f, c in zip(s["flows"], _flow_ues(runs, group), strict=True)
                    if c == ue
                )
                / 1400
                for s in summaries
            ]
            per_ue.append(
                cell(
                    "packets_per_ue",
                    f"ue{ue}_packets_received",
                    "packets",
                    received,
                    **keys,
                )
            )
    return {
        "packets_per_ap": attach_published(per_ap, "004", (), BY),
        "packets_per_ue": attach_published(per_ue, "004", (), BY),
    }


def _flow_ues(runs: Runs, group) -> list[int]:
    return [f.get("ue", 0) for f in runs.load(group.iloc[0]).config["flows"]]


def multiuser_figures(runs: Runs, directory: Path) -> list[Path]:
    paths = []
    first = runs.first(setting="with UE0", cca="cubic")
    if first is not None:
        paths += figures.save(figures.radio_traces(first.ues), directory / "multiuser-sinr-rlc")
    return paths


MULTIUSER = Experiment(
    stack=STACK,
    id="mateo-multiuser",
    seed="004",
    title="Ten UEs, four APs, Table I's applications, with and without UE0; CUBIC and YeAH",
    outputs="packets transmitted per AP, packets received per UE; SINR and RLC occupancy",
    cases=multiuser_cases,
    tables=multiuser_tables,
    figures=multiuser_figures,
)

EXPERIMENTS = [BLOCKAGE, HANDOVER, MULTIUSER]
