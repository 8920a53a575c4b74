"""The analysis formulas against hand-computed values, and their invariants."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wavecc import analysis

# --- confidence intervals ---------------------------------------------------------------


@pytest.mark.parametrize(
    "n, quantile",
    # Printed t tables, two-sided 95%: df 1, 2, 3, 9, 29.
    [(2, 12.706), (3, 4.303), (4, 3.182), (10, 2.262), (30, 2.045)],
)
def test_t_quantiles_match_the_printed_table(n, quantile):
    assert analysis.t_quantile(0.95, n) == pytest.approx(quantile, abs=1e-3)


def test_confidence_interval_by_hand():
    # 1, 2, 3, 4: mean 2.5, s = sqrt(5/3) = 1.29099, t(0.975, 3) = 3.18245
    # half-width = 3.18245 * 1.29099 / 2 = 2.05426
    ci = analysis.confidence_interval([1, 2, 3, 4])
    assert ci.mean == 2.5 and ci.n == 4
    assert ci.half_width == pytest.approx(2.054260, abs=1e-5)
    assert ci.low == pytest.approx(0.445740, abs=1e-5)
    # 90%: t(0.95, 3) = 2.353363
    assert analysis.confidence_interval([1, 2, 3, 4], 0.90).half_width == pytest.approx(
        2.353363 * math.sqrt(5 / 3) / 2, rel=1e-5
    )


def test_confidence_interval_edge_cases():
    assert math.isnan(analysis.confidence_interval([7.0]).half_width)
    assert analysis.confidence_interval([7.0]).mean == 7.0
    assert analysis.confidence_interval([5, 5, 5]).half_width == 0
    # Failed runs (NaN) are left out.
    assert analysis.confidence_interval([1, float("nan"), 3]).n == 2
    assert analysis.confidence_interval([]).n == 0


def summary_frame() -> pd.DataFrame:
    rows = []
    goodput = {
        ("a", 0): [10, 12, 14],
        ("a", 1e-7): [5, 5, 8],
        ("b", 0): [20, 20, 20],
        ("b", 1e-7): [4, 6, 5],
    }
    rtt = {"a": 30.0, "b": 40.0}
    for (cca, loss), values in goodput.items():
        for seed, value in enumerate(values, start=1):
            rows.append(
                {
                    "cca": cca,
                    "path.loss.per_byte": loss,
                    "seed": seed,
                    "key": f"{cca}{loss}{seed}",
                    "status": "ok",
                    "goodput_mbps": float(value),
                    "mean_rtt_ms": rtt[cca] + seed,
                }
            )
    return pd.DataFrame(rows)


def test_mean_ci_groups_over_seeds_and_skips_failures():
    summary = summary_frame()
    summary.loc[len(summary)] = {
        "cca": "a",
        "path.loss.per_byte": 0,
        "seed": 4,
        "key": "x",
        "status": "failed",
        "goodput_mbps": 1000.0,
        "mean_rtt_ms": 0.0,
    }
    table = analysis.mean_ci(summary, ["cca", "path.loss.per_byte"], ["goodput_mbps"])
    assert list(table["cca"]) == ["a", "a", "b", "b"]
    first = table.iloc[0]
    assert first["goodput_mbps_mean"] == 12 and first["goodput_mbps_n"] == 3
    # s = 2, t(0.975, 2) = 4.302653: half-width 4.302653 * 2 / sqrt(3)
    assert first["goodput_mbps_ci"] == pytest.approx(4.302653 * 2 / math.sqrt(3), rel=1e-6)
    assert table.iloc[2]["goodput_mbps_ci"] == 0
    with pytest.raises(KeyError, match="nope"):
        analysis.mean_ci(summary, ["nope"], ["goodput_mbps"])


@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30))
def test_the_interval_contains_the_mean_and_narrows_with_confidence(values):
    wide = analysis.confidence_interval(values, 0.99)
    narrow = analysis.confidence_interval(values, 0.5)
    assert wide.low <= wide.mean <= wide.high
    assert narrow.half_width <= wide.half_width + 1e-9


# --- CDFs -------------------------------------------------------------------------------


def test_ecdf_by_hand():
    cdf = analysis.ecdf([3.0, 1.0, float("nan"), 2.0, 2.0])
    assert list(cdf["x"]) == [1.0, 2.0, 2.0, 3.0]
    assert list(cdf["p"]) == [0.25, 0.5, 0.75, 1.0]
    assert analysis.ecdf([]).empty


@given(st.lists(st.floats(-1e9, 1e9), min_size=1, max_size=50))
def test_ecdf_is_a_monotone_step_to_one(values):
    cdf = analysis.ecdf(values)
    assert np.all(np.diff(cdf["x"]) >= 0) and np.all(np.diff(cdf["p"]) > 0)
    assert cdf["p"].iloc[-1] == 1.0
    # p(x) is the fraction of values <= x at the last occurrence of each x.
    last = cdf.drop_duplicates("x", keep="last")
    for x, p in zip(last["x"], last["p"], strict=True):
        assert p == pytest.approx(sum(v <= x for v in values) / len(values))


def test_cdfs_pool_per_algorithm():
    samples = pd.DataFrame({"cca": ["a", "b", "a", "a"], "goodput_mbps": [3.0, 9.0, 1.0, 2.0]})
    cdfs = analysis.cdfs(samples, "goodput_mbps")
    assert list(cdfs) == ["a", "b"]
    assert list(cdfs["a"]["x"]) == [1.0, 2.0, 3.0]


# --- percentage improvement -------------------------------------------------------------


def test_improvement_table_in_the_seeds_layout():
    summary = summary_frame()
    table = analysis.improvement_table(summary, "a", "goodput_mbps")
    # a's means: 12 (loss 0), 6 (1e-7); b's: 20, 5.
    assert list(table.index) == ["b"] and list(table.columns) == [0, 1e-7]
    assert table.loc["b", 0] == pytest.approx((12 - 20) / 20 * 100)  # -40 %
    assert table.loc["b", 1e-7] == pytest.approx((6 - 5) / 5 * 100)  # +20 %
    # RTT: lower is better, so a positive number means `a` had the lower RTT.
    # a's mean RTT 32, b's 42: (42 - 32) / 42 * 100.
    rtt = analysis.improvement_table(summary, "a", "mean_rtt_ms")
    assert rtt.loc["b", 0] == pytest.approx((42 - 32) / 42 * 100)
    forced = analysis.improvement_table(summary, "a", "mean_rtt_ms", lower_better=False)
    assert forced.loc["b", 0] == pytest.approx((32 - 42) / 42 * 100)
    with pytest.raises(KeyError, match="'c'"):
        analysis.improvement_table(summary, "c", "goodput_mbps")


def test_improvement_rows_follow_the_sweep_order():
    summary = pd.concat([summary_frame(), summary_frame().assign(cca=lambda f: f["cca"] + "2")])
    table = analysis.improvement_table(summary, "b", "goodput_mbps")
    assert list(table.index) == ["a", "a2", "b2"]
    assert table.loc["b2"].tolist() == [0.0, 0.0]


# --- Jain's index -------------------------------------------------------------------------


def test_jain_by_hand():
    assert analysis.jain([5, 5, 5, 5]) == 1.0
    assert analysis.jain([1, 0, 0, 0]) == 0.25
    # (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42
    assert analysis.jain([1, 2, 3]) == pytest.approx(36 / 42)
    assert math.isnan(analysis.jain([0, 0])) and math.isnan(analysis.jain([]))
    with pytest.raises(ValueError):
        analysis.jain([1, -1])


@given(
    st.lists(st.floats(0, 1e12), min_size=1, max_size=40).filter(
        lambda v: any(x > 1e-150 for x in v)
    )
)
def test_jain_is_between_one_over_n_and_one(values):
    index = analysis.jain(values)
    assert 1 / len(values) - 1e-12 <= index <= 1 + 1e-12


@given(st.lists(st.floats(1e-3, 1e6), min_size=1, max_size=20), st.floats(1e-3, 1e3))
def test_jain_does_not_depend_on_the_unit(values, scale):
    assert analysis.jain([v * scale for v in values]) == pytest.approx(analysis.jain(values))


def test_jain_of_a_sweep_summary():
    summary = pd.DataFrame({"goodput_mbps_f0": [10.0, 30.0], "goodput_mbps_f1": [10.0, 10.0]})
    assert list(analysis.jain_of_summary(summary)) == [1.0, pytest.approx(1600 / 2000)]
    assert list(analysis.jain_of_summary(pd.DataFrame({"goodput_mbps": [3.0]}))) == [1.0]


# --- ellipses -----------------------------------------------------------------------------


def test_ellipse_of_a_square_is_a_circle_of_radius_two_sigma():
    # Corners of a 2 x 2 square: mean (1, 1); ML covariance diag(1, 1) (n, not n - 1,
    # in the denominator: the unbiased one would be 4/3).
    e = analysis.fit_ellipse([0, 2, 0, 2], [0, 0, 2, 2])
    assert e.center == (1.0, 1.0)
    np.testing.assert_allclose(e.covariance, np.eye(2))
    assert e.semi_axes == pytest.approx((2.0, 2.0))


def test_ellipse_of_correlated_samples_by_hand():
    # (0, 0), (2, 2), (1, 0), (1, 2): mean (1, 1),
    # ML covariance [[0.5, 0.5], [0.5, 1.0]].
    e = analysis.fit_ellipse([0, 2, 1, 1], [0, 2, 0, 2])
    np.testing.assert_allclose(e.covariance, [[0.5, 0.5], [0.5, 1.0]])
    # Eigenvalues of [[.5, .5], [.5, 1]]: 0.75 +- sqrt(0.0625 + 0.25) = 0.75 +- 0.559017
    assert e.semi_axes == pytest.approx(
        (2 * math.sqrt(1.309017), 2 * math.sqrt(0.190983)), rel=1e-5
    )
    # Major axis: eigenvector (0.5, 1.309017 - 0.5): atan2(0.809017, 0.5) = 58.2825 deg
    assert e.angle_deg == pytest.approx(58.2825, abs=1e-3)


def test_a_horizontal_spread_has_angle_zero_and_uncorrelated_axes():
    e = analysis.fit_ellipse([0, 4, 0, 4], [1, 1, 2, 2])
    assert e.angle_deg == pytest.approx(0.0, abs=1e-9)
    assert e.semi_axes == pytest.approx((4.0, 1.0))  # 2 * sqrt(4), 2 * sqrt(0.25)


@given(
    st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=3, max_size=30),
    st.floats(0.5, 3),
)
def test_every_contour_point_is_k_mahalanobis_units_away(points, k):
    x, y = zip(*points, strict=True)
    e = analysis.fit_ellipse(x, y, k)
    if e.semi_axes[1] < 1e-3 * max(e.semi_axes[0], 1e-9) or e.semi_axes[1] < 1e-6:
        return  # degenerate (collinear) samples have no inverse covariance
    inverse = np.linalg.inv(e.covariance)
    d = e.contour(37) - np.array(e.center)
    distances = np.sqrt(np.einsum("ij,jk,ik->i", d, inverse, d))
    np.testing.assert_allclose(distances, k, rtol=1e-6)


def test_ellipses_per_algorithm_and_scenario():
    summary = summary_frame()
    table = analysis.ellipses(summary, by=["cca", "path.loss.per_byte"])
    assert len(table) == 4 and list(table.columns[:2]) == ["cca", "path.loss.per_byte"]
    first = table.iloc[0]  # a, 0: goodput 10, 12, 14; RTT 31, 32, 33
    assert (first["x"], first["y"]) == (32.0, 12.0)
    # Perfectly correlated: ML variances 2/3 and 8/3, the major semi-axis
    # 2 * sqrt(2/3 + 8/3), along (1, 2).
    assert first["major"] == pytest.approx(2 * math.sqrt(10 / 3))
    assert first["minor"] == pytest.approx(0, abs=1e-6)
    assert first["angle_deg"] == pytest.approx(math.degrees(math.atan2(2, 1)))


def test_the_modules_are_reachable_from_the_package():
    import subprocess
    import sys

    code = "import wavecc; print(wavecc.analysis.jain([2, 2]), wavecc.figures.color('bbr'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["1.0", "#ff7f0e"], done.stderr
