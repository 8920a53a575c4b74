"""One case's comparison row, and the statistics behind it: relative differences, the
tolerance, Welch's test over the seeds."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

TOLERANCE = 0.10
# A row outside TOLERANCE whose difference has a Welch p-value at least this large is
# within what the spread over seeds (the random loss process) explains.
SIGNIFICANCE = 0.05


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
        p_values = [
            p
            for p, ok in (
                (self.goodput_p_value, self.goodput_within),
                (self.rtt_p_value, self.rtt_within),
            )
            if not ok
        ]
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
    "case",
    "cca",
    "stack",
    "seeds",
    "ns3_seeds",
    "goodput_wavecc_mbps",
    "goodput_wavecc_min_mbps",
    "goodput_wavecc_max_mbps",
    "goodput_ns3_mbps",
    "goodput_rel_diff",
    "mean_rtt_wavecc_ms",
    "mean_rtt_ns3_ms",
    "mean_rtt_rel_diff",
    "goodput_within_10pct",
    "rtt_within_10pct",
    "within_10pct",
    "ns3_in_seed_range",
    "goodput_p_value",
    "rtt_p_value",
    "off_beyond_noise",
)


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

    with warnings.catch_warnings():
        if len(set(a)) == 1 or len(set(b)) == 1:
            # A side without spread is exact (a count that never varies, say), not a
            # loss of precision; scipy warns about it all the same.
            warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        return float(ttest_ind(a, b, equal_var=False).pvalue)


def rel_diff(wavecc: float, ns3: float) -> float:
    """(wavecc - ns-3) / ns-3; NaN when either is missing or ns-3's is 0."""
    if not (math.isfinite(wavecc) and math.isfinite(ns3)) or ns3 == 0:
        return math.nan
    return (wavecc - ns3) / ns3


def number(value: Any) -> float:
    """A JSON number as a float; None (missing) as NaN."""
    return math.nan if value is None else float(value)
