"""The algorithms' ranking by goodput on each side of `wavecc validate ns3-mmwave`.

A ranking compares the TCP cases that differ only in their algorithm (same script,
error rate, RLC buffer and simulated time). Two algorithms whose means are close
can swap on either side by chance alone, so each pair ranked in another order comes
with its gap and Welch's test of that gap over each side's own runs: a swap is a
disagreement only where a side's runs separate the pair."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import validate

GOODPUT = "goodput"


@dataclass(frozen=True)
class Side:
    """One side's goodput runs of each algorithm in a group."""

    runs: dict[str, tuple[float, ...]]

    def mean(self, algorithm: str) -> float:
        values = self.runs[algorithm]
        return sum(values) / len(values)

    def order(self) -> tuple[str, ...]:
        """The algorithms, best first (ties by name, so that the order is stable)."""
        return tuple(sorted(self.runs, key=lambda a: (-self.mean(a), a)))

    def gap(self, first: str, second: str) -> float:
        """How far `first` is above `second`, relative to `second`."""
        return validate.rel_diff(self.mean(first), self.mean(second))

    def p_value(self, first: str, second: str) -> float:
        """Welch's p that the two share a mean; NaN with fewer than two runs of either."""
        return validate.welch_p(self.runs[first], self.runs[second])


@dataclass(frozen=True)
class Swap:
    """A pair the two sides rank in opposite orders; `above` is the reference's better."""

    above: str
    below: str
    reference_gap: float
    reference_p: float
    wavecc_gap: float  # negative: wavecc puts `below` above
    wavecc_p: float


@dataclass(frozen=True)
class Ranking:
    group: str  # the cases' name with the algorithm as '*'
    reference: tuple[str, ...]
    wavecc: tuple[str, ...]
    swaps: tuple[Swap, ...]


def group_of(case: str, algorithm: str) -> str:
    """`s2-cubic-0` -> `s2-*-0`."""
    return case.replace(f"-{algorithm}-", "-*-", 1)


def rankings(
    goodputs: Iterable[tuple[str, str, Sequence[float], Sequence[float]]],
) -> list[Ranking]:
    """The ranking of each group of two algorithms or more, from (case, algorithm,
    ns3-mmwave's goodputs, wavecc's goodputs) per TCP case."""
    groups: dict[str, tuple[dict, dict]] = {}
    for case, algorithm, theirs, ours in goodputs:
        sides = groups.setdefault(group_of(case, algorithm), ({}, {}))
        sides[0][algorithm] = tuple(theirs)
        sides[1][algorithm] = tuple(ours)
    result = []
    for group, (reference_runs, wavecc_runs) in sorted(groups.items()):
        if len(reference_runs) < 2:
            continue
        reference, mine = Side(reference_runs), Side(wavecc_runs)
        order = reference.order()
        swaps = tuple(
            Swap(
                above,
                below,
                reference.gap(above, below),
                reference.p_value(above, below),
                mine.gap(above, below),
                mine.p_value(above, below),
            )
            for above, below in itertools.combinations(order, 2)
            if mine.mean(below) > mine.mean(above)
        )
        result.append(Ranking(group, order, mine.order(), swaps))
    return result


def _swap_cell(swap: Swap) -> str:
    def side(gap: float, p: float, runs: str) -> str:
        test = f"p {p:.2f}" if math.isfinite(p) else f"no test: {runs}"
        return f"{validate.pct_cell(gap)} ({test})"

    return (
        f"{swap.above} over {swap.below}: ns3-mmwave "
        f"{side(swap.reference_gap, swap.reference_p, 'one run')}, wavecc "
        f"{side(swap.wavecc_gap, swap.wavecc_p, 'one seed')}"
    )


def swaps_text(ranking: Ranking) -> str:
    """The pairs in another order, or that there are none."""
    return "; ".join(_swap_cell(s) for s in ranking.swaps) or "none: the same order"


def markdown(ranked: Sequence[Ranking], by: str = "mean goodput") -> str:
    """The rankings (`by` what they rank on) as a Markdown table; empty without any."""
    if not ranked:
        return ""
    lines = [
        f"Rankings by {by}, best first; each pair in another order with its gap "
        "and Welch's p over the side's runs.",
        "",
        "| cases | ns3-mmwave | wavecc | pairs in another order |",
        "| --- | --- | --- | --- |",
    ]
    for r in ranked:
        lines.append(
            f"| `{r.group}` | {', '.join(r.reference)} | {', '.join(r.wavecc)} | {swaps_text(r)} |"
        )
    return "\n".join(lines) + "\n"
