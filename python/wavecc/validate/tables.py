"""The comparison as text: the Markdown table docs/validation.md carries, and its cells."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .stats import Row


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
            cells += [
                goodput,
                pct_cell(r.goodput_rel_diff),
                md_cell(r.mean_rtt_wavecc_ms, ".2f"),
                pct_cell(r.mean_rtt_rel_diff),
                "yes" if r.within else "no",
            ]
            if seeds > 1:
                cells.append("yes" if r.ns3_in_seed_range else "no")
            if tested:
                cells.append(
                    f"{md_cell(r.goodput_p_value, '.2f')}, {md_cell(r.rtt_p_value, '.2f')}"
                )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def md_cell(value: float, spec: str) -> str:
    """A number for a Markdown table, '-' when it is missing (NaN or infinite)."""
    return "-" if not math.isfinite(value) else format(value, spec)


def pct_cell(x: float) -> str:
    """A relative difference as a signed percentage, '-' when it is missing."""
    return "-" if not math.isfinite(x) else f"{x * 100:+.1f}%"
