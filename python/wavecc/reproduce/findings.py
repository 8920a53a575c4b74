"""The papers' qualitative findings, checked against reproduction tables.

Each finding reads the long-form tables one or more experiments wrote
(`DIR/<experiment>/tables/*.csv`) and says whether it holds, with the numbers that
decide it. `wavecc reproduce` checks the findings of the experiment it ran;
`evaluate(root)` checks all of them over a directory of reproductions. Tables with
a `stack` column are checked once per stack they all hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

Tables = Mapping[str, Mapping[str, pd.DataFrame]]  # experiment -> table name -> table
LOSS_BASED = ["newreno", "cubic", "highspeed"]


@dataclass(frozen=True)
class Finding:
    id: str
    text: str
    experiments: tuple[str, ...]
    check: Callable[[Tables], tuple[bool, str]]


@dataclass(frozen=True)
class Verdict:
    finding: Finding
    holds: bool | None  # None: the experiment's tables are not there
    evidence: str
    stack: str | None = None  # the TCP stack of the tables checked (None: tables without one)


def _ours(table: pd.DataFrame, **where: object) -> float:
    rows = table
    for column, value in where.items():
        rows = rows[rows[column] == value]
    if rows.empty:
        raise KeyError(f"no row with {where}")
    return float(rows["ours"].iloc[0])


def _bdp(tables: Tables) -> pd.DataFrame:
    return tables["thesis-benchmarks"]["table3.3"].query("setting == 'bdp (2.5 MB)'")


def _collapse_at_high_loss(tables: Tables) -> tuple[bool, str]:
    t = _bdp(tables)
    kept = {
        c: _ours(t, cca=c, per_byte=1e-7) / _ours(t, cca=c, per_byte=0.0)
        for c in ("newreno", "cubic", "bbr")
    }
    holds = kept["newreno"] < 0.2 and kept["cubic"] < 0.2 and kept["bbr"] > 0.5
    return holds, ", ".join(
        f"{c} keeps {v:.0%}" for c, v in kept.items()
    ) + " of its loss-free goodput (2.5 MB)"


def _highspeed_best_at_1e8(tables: Tables) -> tuple[bool, str]:
    t = _bdp(tables)
    goodput = {c: _ours(t, cca=c, per_byte=1e-8) for c in LOSS_BASED}
    best = max(goodput, key=goodput.__getitem__)
    return best == "highspeed", ", ".join(
        f"{c} {v:.0f}" for c, v in goodput.items()
    ) + " Mb/s at 1e-8 (2.5 MB)"


def _bbr_wins_small_buffer(tables: Tables) -> tuple[bool, str]:
    t = tables["urban"]["throughput"].query("setting == 'rlc 0.25 MiB (10% BDP)'")
    goodput = {c: _ours(t, cca=c) for c in [*LOSS_BASED, "bbr"]}
    holds = all(goodput["bbr"] > goodput[c] for c in LOSS_BASED)
    return holds, ", ".join(
        f"{c} {v:.0f}" for c, v in goodput.items()
    ) + " Mb/s with the 0.25 MiB RLC buffer"


def _remote_server_costs(tables: Tables) -> tuple[bool, str]:
    t = tables["urban"]["throughput"]
    change = {
        c: _ours(t, cca=c, setting="remote server") / _ours(t, cca=c, setting="rlc 20 MiB") - 1
        for c in [*LOSS_BASED, "bbr"]
    }
    return all(v < 0 for v in change.values()), ", ".join(
        f"{c} {v:+.0%}" for c, v in change.items()
    ) + (" remote (40 ms, 8 MiB) vs edge (20 MiB)")


def _mss_helps_loss_based_only(tables: Tables) -> tuple[bool, str]:
    t = tables["urban"]["throughput"]
    change = {
        c: _ours(t, cca=c, setting="mss 14000, rlc 2.5 MiB")
        / _ours(t, cca=c, setting="rlc 2.5 MiB (100% BDP)")
        - 1
        for c in [*LOSS_BASED, "bbr"]
    }
    holds = all(change[c] > 0 for c in LOSS_BASED) and change["bbr"] <= 0.02
    return holds, ", ".join(
        f"{c} {v:+.0%}" for c, v in change.items()
    ) + " with MSS 14000 (2.5 MiB)"


def _fbtcp_near_udp(tables: Tables) -> tuple[bool, str]:
    t = tables["fbtcp"]["throughput"]
    udp = tables["fbtcp"]["udp_saturated"]
    worst = (1.0, "")
    for scenario in sorted(set(t["scenario"])):
        line = _ours(udp, scenario=scenario)
        # The paper's four error rates; scenario 4's extra 1e-6 and 1e-5 are a study of their own.
        rows = t[(t["scenario"] == scenario) & (t["cca"] == "fbtcp") & (t["per_byte"] <= 1e-7)]
        for _, row in rows.iterrows():
            ratio = row["ours"] / line
            if ratio < worst[0]:
                worst = (ratio, f"{scenario} at {row['per_byte']:g}")
    return worst[0] >= 0.85, f"FB-TCP's lowest share of the UDP line: {worst[0]:.0%} ({worst[1]})"


def _rtt_family_wins_at_1e7(tables: Tables) -> tuple[bool, str]:
    cells = []
    for experiment, table, name in (
        ("thesis-rttv", "table4.1", "rttv"),
        ("thesis-mss", "table5.2", "mss"),
        ("thesis-mrvhs", "table6.1", "mrvhs"),
    ):
        t = tables[experiment][table]
        for base in ("newreno", "cubic"):
            cells.append((f"{name} vs {base}", _ours(t, cca=f"{name} vs {base}", per_byte=1e-7)))
    # "By a wide margin": at least double the baseline's goodput.
    return all(v >= 100 for _, v in cells), ", ".join(
        f"{k} {v:+.0f}%" for k, v in cells
    ) + " at 1e-7"


def _dtcp_beats_reno(tables: Tables) -> tuple[bool, str]:
    t = tables["dtcp-bottleneck"]["goodput"]
    setting = "5 Mb/s, packet loss 0.01"
    dtcp, reno = (
        _ours(t, setting=setting, cca="dtcp"),
        _ours(t, setting=setting, cca="reno"),
    )
    return dtcp > reno, f"D-TCP {dtcp:.0f} kb/s, Reno {reno:.0f} kb/s ({setting})"


def _dtcp_fair(tables: Tables) -> tuple[bool, str]:
    t = tables["dtcp-fairness"]["fairness"].query("metric == 'jain_index' and cca == 'dtcp'")
    jain = float(t["ours"].iloc[0])
    return (
        jain > 0.95,
        f"Jain's index of five D-TCP flows over the last 20 s: {jain:.2f}",
    )


FINDINGS = [
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
    Finding(
        "fbtcp-udp-line",
        "FB-TCP is within 15% of the UDP line in fbtcp-1..4 at every error rate",
        ("fbtcp",),
        _fbtcp_near_udp,
    ),
    Finding(
        "rtt-family-1e-7",
        "RTTV, MSS-CCA and MRVHS beat NewReno and CUBIC at 1e-7 by a wide margin",
        ("thesis-rttv", "thesis-mss", "thesis-mrvhs"),
        _rtt_family_wins_at_1e7,
    ),
    Finding(
        "dtcp-lossy",
        "D-TCP beats Reno on the lossy bottleneck",
        ("dtcp-bottleneck",),
        _dtcp_beats_reno,
    ),
    Finding(
        "dtcp-fairness",
        "Jain's index of five D-TCP flows exceeds 0.95",
        ("dtcp-fairness",),
        _dtcp_fair,
    ),
]


def read_tables(where: Mapping[str, Path], experiments: tuple[str, ...]) -> Tables | None:
    """The tables of `experiments` (`where[id]/tables/*.csv`), or None if any
    experiment has not been run."""
    tables = {}
    for experiment in experiments:
        directory = where[experiment] / "tables"
        if not directory.is_dir():
            return None
        tables[experiment] = {p.stem: pd.read_csv(p) for p in sorted(directory.glob("*.csv"))}
    return tables


def evaluate(
    root: str | Path, only: str | None = None, located: Mapping[str, Path] | None = None
) -> list[Verdict]:
    """Every finding (or those of experiment `only`) checked over the reproductions in
    `root` (one directory per experiment id; `located` maps ids to other places); a
    finding whose experiments are not there gets `holds = None`."""
    root = Path(root)
    where = {e: Path((located or {}).get(e, root / e)) for f in FINDINGS for e in f.experiments}
    verdicts = []
    for finding in FINDINGS:
        if only is not None and only not in finding.experiments:
            continue
        tables = read_tables(where, finding.experiments)
        if tables is None:
            missing = [e for e in finding.experiments if not (where[e] / "tables").is_dir()]
            verdicts.append(Verdict(finding, None, f"not run here: {', '.join(missing)}"))
            continue
        for stack in table_stacks(tables):
            holds, evidence = finding.check(in_stack(tables, stack))
            verdicts.append(Verdict(finding, bool(holds), evidence, stack))
    return verdicts


def table_stacks(tables: Tables) -> list[str | None]:
    """The stacks every table has rows of, in the order the first table lists them;
    [None] when the tables name no stack (reproductions older than stacks)."""
    frames = [t for by_name in tables.values() for t in by_name.values()]
    if not frames or any("stack" not in t.columns for t in frames):
        return [None]
    common = set.intersection(*(set(t["stack"].dropna()) for t in frames))
    return [s for s in dict.fromkeys(frames[0]["stack"]) if s in common]


def in_stack(tables: Tables, stack: str | None) -> Tables:
    """The tables' rows of `stack` (all rows for None)."""
    if stack is None:
        return tables
    return {
        e: {name: t[t["stack"] == stack] for name, t in by_name.items()}
        for e, by_name in tables.items()
    }


def describe(verdicts: list[Verdict]) -> str:
    word = {True: "holds", False: "DOES NOT HOLD", None: "not checked"}
    return "\n".join(
        f"[{word[v.holds]}]{f' ({v.stack})' if v.stack else ''} {v.finding.text}: {v.evidence}"
        for v in verdicts
    )
