"""Analysis of sweep results: means with confidence intervals over seeds, CDFs of
per-interval samples, percentage-improvement tables in the papers' layout, Jain's
fairness index and the throughput-RTT 2-sigma ellipses of the Mateo study.

Every function takes plain DataFrames (a sweep's `summary`, or per-interval samples
from `interval_samples`) and returns DataFrames or small dataclasses, so the figures
and the HTML report draw exactly what is computed here.

    rs = wavecc.ResultSet.open("out/sweep")
    analysis.mean_ci(rs.summary, by=["cca", "path.loss.per_byte"], metrics=["goodput_mbps"])
    analysis.improvement_table(rs.summary, "bbr", "goodput_mbps")
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from .sweeps import ResultSet

# The grid key of the papers' error-rate axis and of the algorithm.
LOSS = "path.loss.per_byte"
CCA = "cca"


# --- means and confidence intervals ---------------------------------------------------


def t_quantile(confidence: float, n: int) -> float:
    """The two-sided Student-t quantile for `n` samples (n - 1 degrees of freedom): the
    half-width of the interval is this times s / sqrt(n). NaN for fewer than 2 samples."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    if n < 2:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.5 + confidence / 2, n - 1))


@dataclass(frozen=True)
class Interval:
    """A mean and its confidence interval: mean - half_width .. mean + half_width."""

    mean: float
    half_width: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


def confidence_interval(values: Iterable[float], confidence: float = 0.95) -> Interval:
    """The mean of `values` with its t-distribution confidence interval: half-width
    t(1 - (1 - confidence) / 2, n - 1) * s / sqrt(n), s the sample standard deviation
    (n - 1 in the denominator). NaN values (failed runs) are left out; with one value
    the half-width is NaN, with none the mean is too."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return Interval(math.nan, math.nan, 0)
    mean = float(x.mean())
    if n < 2:
        return Interval(mean, math.nan, n)
    half = t_quantile(confidence, n) * float(x.std(ddof=1)) / math.sqrt(n)
    return Interval(mean, half, n)


def mean_ci(
    summary: pd.DataFrame,
    by: Sequence[str],
    metrics: Sequence[str],
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per group of `by` (e.g. algorithm and error rate), with for each metric
    `<metric>_mean`, `<metric>_ci` (the half-width) and `<metric>_n`, averaging over the
    rows of the group (the seeds). Failed runs count as missing. Groups keep the
    order in which they first appear."""
    by = list(by)
    missing = [c for c in [*by, *metrics] if c not in summary.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in the summary; it has {list(summary.columns)}")
    frame = summary
    if "status" in frame.columns:
        frame = frame[frame["status"] == "ok"]
    rows = []
    for values, group in frame.groupby(by, sort=False, dropna=False):
        values = values if isinstance(values, tuple) else (values,)
        row = dict(zip(by, values, strict=True))
        for metric in metrics:
            interval = confidence_interval(group[metric], confidence)
            row[f"{metric}_mean"] = interval.mean
            row[f"{metric}_ci"] = interval.half_width
            row[f"{metric}_n"] = interval.n
        rows.append(row)
    columns = [*by, *(f"{m}_{s}" for m in metrics for s in ("mean", "ci", "n"))]
    return pd.DataFrame(rows, columns=columns)


# --- CDFs -------------------------------------------------------------------------------


def ecdf(values: Iterable[float]) -> pd.DataFrame:
    """The empirical CDF of `values`: columns `x` (sorted values) and `p`, the fraction of
    values <= x (i / n for the i-th smallest, so the last is 1). NaN is left out."""
    x = np.sort(np.asarray(list(values), dtype=float))
    x = x[~np.isnan(x)]
    n = len(x)
    return pd.DataFrame({"x": x, "p": np.arange(1, n + 1) / n if n else np.array([])})


def interval_samples(
    rs: ResultSet, columns: Sequence[str] = ("goodput_mbps", "rtt_mean_ms")
) -> pd.DataFrame:
    """The per-interval trace samples of every complete run of a sweep, one row per
    flow and interval: the swept values, `seed`, `key`, `flow`, `t_s` and `columns`.
    An interval with no RTT sample has a NaN `rtt_mean_ms`."""
    summary = rs.summary
    swept = _swept(summary)
    frames = []
    for _, row in summary.iterrows():
        if row.get("status", "ok") != "ok":
            continue
        flows = rs.load(row["key"]).flows
        frame = flows[["t_s", "flow", *columns]].copy()
        for column in reversed([*swept, "seed", "key"]):
            frame.insert(0, column, row[column])
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=[*swept, "seed", "key", "t_s", "flow", *columns])
    return pd.concat(frames, ignore_index=True)


def cdfs(samples: pd.DataFrame, column: str, by: str = CCA) -> dict[str, pd.DataFrame]:
    """The ECDF of `column` for each value of `by` (e.g. per-interval goodput per
    algorithm, named as shown), pooling every run and interval of that value."""
    return {str(value): ecdf(group[column]) for value, group in samples.groupby(by, sort=False)}


# --- percentage improvement -------------------------------------------------------------


def lower_is_better(metric: str) -> bool:
    """RTTs, delays, retransmissions and RTOs improve downwards; goodput upwards."""
    return any(word in metric for word in ("rtt", "delay", "latency", "retrans", "rto"))


def improvement_table(
    summary: pd.DataFrame,
    algorithm: str,
    metric: str,
    *,
    columns: str = LOSS,
    cca: str = CCA,
    lower_better: bool | None = None,
) -> pd.DataFrame:
    """The papers' percentage-improvement table of `algorithm` over every other algorithm
    in `summary` (the thesis, Tables 4.1 and 5.1-5.6): rows are the baselines, columns
    the values of `columns` (the error rate), cells the improvement in percent of the
    means over seeds.

    Higher-is-better metrics (goodput): 100 * (A - B) / B. Lower-is-better metrics (RTT;
    `lower_better`, by default guessed from the name): 100 * (B - A) / B, so a positive
    number always means `algorithm` did better, as in the papers' latency tables. Other
    swept keys are averaged over: filter the summary first for one table per buffer."""
    lower = lower_is_better(metric) if lower_better is None else lower_better
    means = mean_ci(summary, [cca, columns], [metric]).pivot(
        index=cca, columns=columns, values=f"{metric}_mean"
    )
    if algorithm not in means.index:
        raise KeyError(f"no runs of {algorithm!r} in the summary; it has {list(means.index)}")
    ours = means.loc[algorithm]
    baselines = means.drop(index=algorithm)
    if lower:
        table = (baselines - ours) / baselines * 100.0
    else:
        table = (ours - baselines) / baselines * 100.0
    order = [a for a in dict.fromkeys(summary[cca]) if a != algorithm]
    table = table.loc[order]
    table.index.name = "baseline"
    table.columns.name = columns
    return table


# --- fairness -----------------------------------------------------------------------------


def jain(values: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2) of non-negative allocations: 1 when
    all are equal, 1/n when one flow has everything. NaN when all are zero (or there
    are none); negative values are an error."""
    x = np.asarray(list(values), dtype=float)
    if np.any(x < 0):
        raise ValueError("Jain's index needs non-negative values")
    square_sum = float(np.sum(x * x))
    if len(x) == 0 or square_sum == 0:
        return math.nan
    return float(np.sum(x)) ** 2 / (len(x) * square_sum)


def jain_of_summary(summary: pd.DataFrame, metric: str = "goodput_mbps") -> pd.Series:
    """Jain's index over the flows of each run of a sweep summary, from its per-flow
    columns `<metric>_f0`, `<metric>_f1`, ... (1 for single-flow runs)."""
    flow_columns = [
        c for c in summary.columns if c.startswith(f"{metric}_f") and c[len(metric) + 2 :].isdigit()
    ]
    if not flow_columns:
        return pd.Series(1.0, index=summary.index, name="jain")
    return summary[flow_columns].apply(lambda row: jain(row.dropna()), axis=1).rename("jain")


# --- throughput-RTT ellipses -------------------------------------------------------------


@dataclass(frozen=True)
class Ellipse:
    """The k-sigma contour of a 2D Gaussian: the points at Mahalanobis distance `k`
    from `center`. `semi_axes` are (major, minor) = k * sqrt(eigenvalues of the
    covariance); `angle_deg` is the major axis' direction, counter-clockwise from the
    x axis, in (-90, 90]."""

    center: tuple[float, float]
    covariance: np.ndarray
    semi_axes: tuple[float, float]
    angle_deg: float
    k: float
    n: int

    def contour(self, points: int = 181) -> np.ndarray:
        """`points` (x, y) points around the contour, first = last."""
        theta = np.linspace(0.0, 2.0 * np.pi, points)
        a, b = self.semi_axes
        phi = math.radians(self.angle_deg)
        x = a * np.cos(theta) * math.cos(phi) - b * np.sin(theta) * math.sin(phi)
        y = a * np.cos(theta) * math.sin(phi) + b * np.sin(theta) * math.cos(phi)
        return np.column_stack([x + self.center[0], y + self.center[1]])


def fit_ellipse(x: Iterable[float], y: Iterable[float], k: float = 2.0) -> Ellipse:
    """The Mateo study's ellipse: the maximum-likelihood 2D Gaussian of the (x, y) samples
    (mean, and covariance with n in the denominator, not n - 1) and its k-sigma contour
    (k = 2 by default). Pairs with a NaN are left out."""
    xy = np.column_stack([np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)])
    xy = xy[~np.isnan(xy).any(axis=1)]
    n = len(xy)
    if n == 0:
        raise ValueError("no (x, y) samples to fit an ellipse to")
    center = xy.mean(axis=0)
    d = xy - center
    covariance = d.T @ d / n
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)  # ascending
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    major = eigenvectors[:, 1]
    angle = math.degrees(math.atan2(major[1], major[0]))
    if angle <= -90:
        angle += 180
    elif angle > 90:
        angle -= 180
    semi = (k * math.sqrt(eigenvalues[1]), k * math.sqrt(eigenvalues[0]))
    return Ellipse((float(center[0]), float(center[1])), covariance, semi, angle, k, n)


def ellipses(
    samples: pd.DataFrame,
    *,
    x: str = "mean_rtt_ms",
    y: str = "goodput_mbps",
    by: Sequence[str] = (CCA,),
    k: float = 2.0,
) -> pd.DataFrame:
    """One `fit_ellipse` per group of `by` (the Mateo study: per algorithm and scenario): by
    default over a sweep summary's per-run averages (one point per seed), or pass
    `interval_samples` with x="rtt_mean_ms" for per-interval points. Returns the groups'
    values, `n`, `x`, `y` (the center), `major`, `minor`, `angle_deg` and `ellipse`."""
    frame = samples
    if "status" in frame.columns:
        frame = frame[frame["status"] == "ok"]
    rows = []
    for values, group in frame.groupby(list(by), sort=False):
        values = values if isinstance(values, tuple) else (values,)
        e = fit_ellipse(group[x], group[y], k)
        rows.append(
            {
                **dict(zip(by, values, strict=True)),
                "n": e.n,
                "x": e.center[0],
                "y": e.center[1],
                "major": e.semi_axes[0],
                "minor": e.semi_axes[1],
                "angle_deg": e.angle_deg,
                "ellipse": e,
            }
        )
    return pd.DataFrame(rows)


def _swept(summary: pd.DataFrame) -> list[str]:
    columns = list(summary.columns)
    return columns[: columns.index("seed")] if "seed" in columns else []
