"""The algorithms' rankings of `wavecc validate ns3-mmwave`: groups, orders, swaps."""

from __future__ import annotations

import math

import pytest

from wavecc import validate
from wavecc.validate_rankings import group_of, markdown, rankings


def test_a_group_is_the_cases_that_differ_only_in_their_algorithm():
    assert group_of("s2-cubic-0", "cubic") == "s2-*-0"
    assert group_of("s1-newreno-0-rlc262144", "newreno") == "s1-*-0-rlc262144"


def test_the_same_order_has_no_swaps_and_a_lone_algorithm_no_ranking():
    ranked = rankings(
        [
            ("s1-cubic-0", "cubic", [500.0], [510.0, 530.0]),
            ("s1-newreno-0", "newreno", [450.0], [440.0, 460.0]),
            ("s1-fbtcp-0", "fbtcp", [700.0, 720.0], [690.0, 700.0]),
            ("s1-cubic-1e-7", "cubic", [70.0], [80.0]),
        ]
    )
    assert len(ranked) == 1, "the 1e-7 group has one algorithm"
    (only,) = ranked
    assert only.group == "s1-*-0"
    assert only.reference == only.wavecc == ("fbtcp", "cubic", "newreno")
    assert only.swaps == ()
    assert "none: the same order" in markdown(ranked)


def test_a_swap_carries_each_sides_gap_and_test():
    reference_a, reference_b = [545.0, 547.0], [526.0, 549.0]
    wavecc_a, wavecc_b = [540.0, 546.0, 541.0], [550.0, 548.0, 552.0]
    (ranked,) = rankings(
        [
            ("s2-cubic-0", "cubic", reference_a, wavecc_a),
            ("s2-highspeed-0", "highspeed", reference_b, wavecc_b),
        ]
    )
    assert ranked.reference == ("cubic", "highspeed") and ranked.wavecc == ("highspeed", "cubic")
    (swap,) = ranked.swaps
    assert (swap.above, swap.below) == ("cubic", "highspeed")
    assert swap.reference_gap == pytest.approx(546.0 / 537.5 - 1)
    assert swap.wavecc_gap == pytest.approx((1627.0 / 3) / 550.0 - 1)
    assert swap.reference_p == validate.welch_p(reference_a, reference_b)
    assert swap.wavecc_p == validate.welch_p(wavecc_a, wavecc_b) < 0.05
    assert "cubic over highspeed: ns3-mmwave +1.6% (p 0.59), wavecc -1.4% (p 0.03)" in (
        markdown([ranked])
    )


def test_a_side_with_one_run_has_no_test():
    (ranked,) = rankings(
        [
            ("s4-cubic-0", "cubic", [544.2], [550.6, 551.0]),
            ("s4-fbtcp-0", "fbtcp", [534.1], [554.5, 556.0]),
        ]
    )
    (swap,) = ranked.swaps
    assert math.isnan(swap.reference_p) and math.isfinite(swap.wavecc_p)
    assert "ns3-mmwave +1.9% (no test: one run)" in markdown([ranked])
