"""The urban study (Poorzare and Calveras Auge, urban deployment): the urban scenario with
RLC buffers of 20 MiB ("unlimited"), 2.5 MiB (100% BDP) and 0.25 MiB (10% BDP), MSS
14000 and a remote server; NewReno, CUBIC, HighSpeed and BBR with the UDP-saturated
reference; throughput and RTT bars, HighSpeed vs BBR over time with the NLoS
stretches shaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import figures
from .core import (
    LOSS_BASED,
    TABLE_KEYS,
    Case,
    Experiment,
    Finding,
    Runs,
    Tables,
    every_run,
    goodput_rtt_bars,
    goodput_rtt_tables,
    ours,
    overlay,
    quick_cut,
    scenario,
    split_udp,
    udp,
    udp_saturated_table,
)

ALGORITHMS = ["newreno", "cubic", "highspeed", "bbr"]
SETTINGS: dict[str, dict[str, Any]] = {
    "rlc 20 MiB": {"radio.rlc_buffer_bytes": 20_971_520},
    "rlc 2.5 MiB (100% BDP)": {"radio.rlc_buffer_bytes": 2_621_440},
    "rlc 0.25 MiB (10% BDP)": {"radio.rlc_buffer_bytes": 262_144},
    # The urban study: MSS 14000 with MTU 15000 and 14000-byte writes ("datagrams").
    "mss 14000, rlc 2.5 MiB": {
        "radio.rlc_buffer_bytes": 2_621_440,
        "tcp.mss_bytes": 14_000,
        "path.mtu_bytes": 15_000,
        "flows.0.write_bytes": 14_000,
    },
    # The urban study: a server 40 ms away with an 8 MiB RLC buffer.
    "remote server": {"radio.rlc_buffer_bytes": 8_388_608, "path.one_way_delay_s": 0.040},
}
SLUGS = {
    name: slug
    for name, slug in zip(
        SETTINGS, ["rlc20", "rlc2.5", "rlc0.25", "mss14000", "remote"], strict=True
    )
}


def cases(quick: bool) -> list[Case]:
    out = []
    for name, values in SETTINGS.items():
        base = scenario("urban", values, quick_s=quick_cut(quick))
        labels = {"scenario": "urban", "setting": name}
        out.append(Case(SLUGS[name], base, {"cca": ALGORITHMS}, labels))
        out.append(Case(f"{SLUGS[name]}-udp", udp(base), {}, {**labels, "cca": "udp"}))
    return out


def tables(runs: Runs) -> dict:
    tcp, saturated = split_udp(runs, runs.rows())
    match = ["scenario", "setting", "cca", "metric"]
    return {
        **goodput_rtt_tables(tcp, "002", TABLE_KEYS, match=match),
        "udp_saturated": udp_saturated_table(saturated, "002", TABLE_KEYS, match),
    }


def draw(runs: Runs, directory: Path) -> list[Path]:
    rows = runs.rows()
    tcp = rows[rows["cca"] != "udp"]
    paths = []
    if not tcp.empty:
        paths += goodput_rtt_bars(tcp, directory / "urban", x="setting", xlabel="setting")
    for name, slug in SLUGS.items():
        pair = every_run([runs.first(setting=name, cca=c) for c in ("highspeed", "bbr")])
        if pair:
            fig = figures.time_series(
                overlay(pair),
                udp=runs.first(setting=name, cca="udp"),
                title=f"urban, {name}: HighSpeed vs BBR",
            )
            paths += figures.save(fig, directory / f"{slug}-highspeed-vs-bbr")
    return paths


def _bbr_wins_small_buffer(tables: Tables) -> tuple[bool, str]:
    t = tables["urban"]["throughput"].query("setting == 'rlc 0.25 MiB (10% BDP)'")
    goodput = {c: ours(t, cca=c) for c in [*LOSS_BASED, "bbr"]}
    holds = all(goodput["bbr"] > goodput[c] for c in LOSS_BASED)
    return holds, ", ".join(
        f"{c} {v:.0f}" for c, v in goodput.items()
    ) + " Mb/s with the 0.25 MiB RLC buffer"


def _remote_server_costs(tables: Tables) -> tuple[bool, str]:
    t = tables["urban"]["throughput"]
    change = {
        c: ours(t, cca=c, setting="remote server") / ours(t, cca=c, setting="rlc 20 MiB") - 1
        for c in [*LOSS_BASED, "bbr"]
    }
    return all(v < 0 for v in change.values()), ", ".join(
        f"{c} {v:+.0%}" for c, v in change.items()
    ) + (" remote (40 ms, 8 MiB) vs edge (20 MiB)")


def _mss_helps_loss_based_only(tables: Tables) -> tuple[bool, str]:
    t = tables["urban"]["throughput"]
    change = {
        c: ours(t, cca=c, setting="mss 14000, rlc 2.5 MiB")
        / ours(t, cca=c, setting="rlc 2.5 MiB (100% BDP)")
        - 1
        for c in [*LOSS_BASED, "bbr"]
    }
    holds = all(change[c] > 0 for c in LOSS_BASED) and change["bbr"] <= 0.02
    return holds, ", ".join(
        f"{c} {v:+.0%}" for c, v in change.items()
    ) + " with MSS 14000 (2.5 MiB)"


# The urban study ran ns3-mmwave (the FB-TCP paper's authors, the same era): ns3-3.29.
STACK = "ns3-3.29"

EXPERIMENT = Experiment(
    stack=STACK,
    id="urban",
    seed="002",
    title="Urban deployment: RLC 20/2.5/0.25 MiB, MSS 14000, remote server",
    outputs="throughput, RTT, UDP saturated; bars and HighSpeed vs BBR time series with NLoS shaded",
    cases=cases,
    tables=tables,
    figures=draw,
    findings=(
        Finding(
            "bbr-small-buffer",
            "With the 10% BDP buffer BBR beats every loss-based algorithm",
            ("urban",),
            _bbr_wins_small_buffer,
        ),
        Finding(
            "remote-server",
            "Every algorithm loses goodput with the remote server",
            ("urban",),
            _remote_server_costs,
        ),
        Finding(
            "mss-14000",
            "Loss-based algorithms gain from MSS 14000 and BBR does not",
            ("urban",),
            _mss_helps_loss_based_only,
        ),
    ),
)

EXPERIMENTS = [EXPERIMENT]
