"""Figures: they draw what they are given (non-blank PNG and SVG), the same colour per
algorithm everywhere, NLoS shading and the UDP line when present, radio traces."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.patches import Polygon, Rectangle

from wavecc import analysis, figures


@pytest.fixture(scope="module")
def summary() -> pd.DataFrame:
    rows = []
    for cca, base in (("cubic", 900.0), ("bbr", 800.0), ("newreno", 600.0)):
        for loss, factor in ((0.0, 1.0), (1e-8, 0.6), (1e-7, 0.2)):
            for seed in (1, 2, 3):
                rows.append(
                    {
                        "cca": cca,
                        "path.loss.per_byte": loss,
                        "seed": seed,
                        "status": "ok",
                        "goodput_mbps": base * factor + seed,
                        "mean_rtt_ms": 20 + 5 * factor + seed / 10,
                    }
                )
    return pd.DataFrame(rows)


def test_colours_are_fixed_per_algorithm_name():
    assert figures.color("cubic") == figures.color("CUBIC") == "#1f77b4"
    assert len(set(figures.COLORS.values())) == len(figures.COLORS)
    # Unknown names get a stable colour of their own.
    assert figures.color("my-new-cca") == figures.color("my-new-cca")


def test_save_writes_png_and_svg_that_are_not_blank(tmp_path, summary):
    fig = figures.bars(summary, "goodput_mbps", ylabel="goodput (Mb/s)")
    png, svg = figures.save(fig, tmp_path / "bars.png")
    assert (png.name, svg.name) == ("bars.png", "bars.svg")
    assert not figures.is_blank(png)
    assert svg.read_text().lstrip().startswith(("<?xml", "<svg"))
    assert "goodput (Mb/s)" in svg.read_text()  # text stays text in the SVG


def test_bars_use_the_algorithm_colours_and_the_t_intervals(summary):
    fig = figures.bars(summary, "goodput_mbps")
    ax = fig.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(bars) == 9
    colours = [to_hex(b.get_facecolor()) for b in bars]
    assert colours[:3] == [figures.color("cubic")] * 3
    assert colours[3:6] == [figures.color("bbr")] * 3
    # cubic at loss 0: 901, 902, 903: mean 902.
    assert bars[0].get_height() == pytest.approx(902)
    # The error bar spans mean +- t(0.975, 2) * 1 / sqrt(3).
    half = analysis.t_quantile(0.95, 3) / np.sqrt(3)
    segments = [c for c in ax.collections if c.get_segments()]
    first = segments[0].get_segments()[0]
    assert first[:, 1].min() == pytest.approx(902 - half) and first[:, 1].max() == pytest.approx(
        902 + half
    )
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1e-08", "1e-07"]


def test_cdf_plot_draws_one_step_per_algorithm(tmp_path):
    samples = pd.DataFrame({"cca": ["cubic"] * 3 + ["bbr"] * 2, "v": [1.0, 2.0, 3.0, 5.0, 4.0]})
    fig = figures.cdf_plot(analysis.cdfs(samples, "v"), xlabel="goodput (Mb/s)")
    lines = fig.axes[0].get_lines()
    assert [to_hex(line.get_color()) for line in lines] == [
        figures.color("cubic"),
        figures.color("bbr"),
    ]
    assert list(lines[0].get_ydata()) == [0.0, 1 / 3, 2 / 3, 1.0]
    assert not figures.is_blank(figures.save(fig, tmp_path / "cdf", formats=("png",))[0])


def test_ellipse_plot_draws_each_contour(summary):
    table = analysis.ellipses(summary, by=["cca", "path.loss.per_byte"])
    fig = figures.ellipse_plot(table, scenario="path.loss.per_byte")
    ax = fig.axes[0]
    polygons = [p for p in ax.patches if isinstance(p, Polygon)]
    assert len(polygons) == 9
    assert to_hex(polygons[0].get_edgecolor()) == figures.color("cubic")
    np.testing.assert_allclose(polygons[0].get_xy(), table["ellipse"][0].contour())
    assert ax.xaxis_inverted()  # lower RTT to the right, as in the Mateo study


def test_time_series_shades_nlos_and_dashes_the_udp_line(dumbbell):
    result = copy.copy(dumbbell)
    summary = dict(
        dumbbell.summary,
        ues=[
            {"ue": 0, "nlos_intervals_s": [[0.5, 0.8], [0.7, 1.0]]},
            {"ue": 1, "nlos_intervals_s": [[1.5, 1.6]]},
        ],
    )
    object.__setattr__(result, "summary", summary)
    assert figures.nlos_intervals(summary) == [(0.5, 1.0), (1.5, 1.6)]
    fig = figures.time_series(result, udp=950.0)
    goodput, rtt, cwnd = fig.axes
    shaded = [p for p in goodput.patches if isinstance(p, Rectangle)]
    assert len(shaded) == 2
    dashed = [line for line in goodput.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and list(dashed[0].get_ydata()) == [950.0, 950.0]
    flow_line = goodput.get_lines()[0]
    assert to_hex(flow_line.get_color()) == figures.color("cubic")
    labels = [t.get_text() for t in goodput.get_legend().get_texts()]
    assert labels == ["cubic", "UDP saturated", "NLoS"]


def test_time_series_without_ues_or_udp(dumbbell):
    fig = figures.time_series(dumbbell)
    goodput = fig.axes[0]
    assert not [p for p in goodput.patches if isinstance(p, Rectangle)]
    assert [t.get_text() for t in goodput.get_legend().get_texts()] == ["cubic"]


def test_radio_traces_from_ues_and_rlc(tmp_path):
    t = np.arange(0, 2, 0.1)
    ues = pd.concat(
        [
            pd.DataFrame(
                {
                    "time_s": t,
                    "ue": ue,
                    "sinr_db": 20 - 10 * ue + np.sin(t),
                    "mcs": 20,
                    "los": t < 1,
                    "cell": 0,
                }
            )
            for ue in (0, 1)
        ]
    )
    rlc = pd.concat(
        [pd.DataFrame({"time_s": t, "ue": ue, "bytes": 1e6 * t, "drops": 0}) for ue in (0, 1)]
    )
    fig = figures.radio_traces(ues, rlc, nlos=[(1.0, 2.0)])
    sinr, occupancy = fig.axes
    assert sinr.get_ylabel() == "SINR (dB)" and occupancy.get_ylabel() == "RLC buffer (MB)"
    assert len(occupancy.get_lines()) == 2
    assert max(occupancy.get_lines()[0].get_ydata()) == pytest.approx(1.9)
    assert not figures.is_blank(figures.save(fig, tmp_path / "radio", formats=("png",))[0])
    # Only one of them, or none.
    assert len(figures.radio_traces(ues).axes) == 1
    assert len(figures.radio_traces(None, rlc).axes) == 1
    assert not figures.radio_traces().axes[0].axison


def test_is_blank_tells_a_uniform_image(tmp_path):
    from matplotlib.image import imsave

    imsave(tmp_path / "white.png", np.ones((10, 10, 3)))
    assert figures.is_blank(tmp_path / "white.png")


RADIO = {
    "duration_s": 30,
    "radio": {
        "gnbs": [{"position": [0.0, 0.0, 15.0]}],
        "obstacles": [
            {"class": "building", "x": [2, 10], "y": [67, 74], "z": [0, 30]},
            {"class": "tree", "x": [15, 16], "y": [70, 71], "z": [0, 8]},
        ],
        "ues": [
            {
                "position": [0.0, 68.0, 1.5],
                "legs": [{"at_s": 1, "velocity": [1.5, 0, 0]}, {"at_s": 11, "velocity": [0, 0, 0]}],
            },
            {"position": [5.0, 5.0, 1.5], "waypoints": [{"to": [5.0, 50.0, 1.5], "speed_mps": 2}]},
        ],
    },
}


def test_ue_paths_follow_legs_and_waypoints():
    walk, waypoints = figures.ue_paths(RADIO)
    # Still until 1 s, 1.5 m/s for 10 s, then stopped until the end.
    np.testing.assert_allclose(walk, [[0, 68], [15, 68], [15, 68]])
    np.testing.assert_allclose(waypoints, [[5, 5], [5, 50]])
    assert figures.ue_paths({"duration_s": 5}) == []


def test_scenario_map_draws_obstacles_gnbs_and_paths(tmp_path):
    fig = figures.scenario_map(RADIO)
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert [(b.get_x(), b.get_y(), b.get_width(), b.get_height()) for b in boxes] == [
        (2, 67, 8, 7),
        (15, 70, 1, 1),
    ]
    assert to_hex(boxes[1].get_facecolor()) == figures.OBSTACLE_COLORS["tree"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["building", "tree", "gNB", "UE 0 path", "UE 1 path"]
    # With a trace, the path is where the UE went.
    trace = pd.DataFrame({"ue": [0, 0, 0], "x_m": [0.0, 1.0, 2.0], "y_m": [68.0, 68.0, 68.5]})
    traced = figures.scenario_map(RADIO, trace).axes[0].get_lines()
    assert list(traced[1].get_xdata()) == [0.0, 1.0, 2.0]
    assert not figures.is_blank(figures.save(fig, tmp_path / "map", formats=("png",))[0])
    assert not figures.scenario_map({"path": {}}).axes[0].axison
