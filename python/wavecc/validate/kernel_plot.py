"""One figure per kernel case: the kernel's runs and wavecc's on the same axes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..result import Result
from .kernel import Case, Row
from .tables import pct_cell

# Side -> (colour, label); each run is one line, the first labelled.
_SIDES = {"kernel": ("C3", "Linux kernel"), "wavecc": ("C0", "wavecc, linux stack")}
_PANELS = (
    ("goodput (Mb/s)", "goodput_mbps"),
    ("srtt (ms)", "srtt_ms"),
    ("cwnd (segments)", "cwnd_segments"),
)


def overlay(
    case: Case, row: Row, kernel: Sequence[Result], wavecc: Sequence[Result], path: Path
) -> None:
    """Goodput, smoothed RTT and cwnd every 100 ms, every run of both sides."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(_PANELS), 1, sharex=True)
    for side, results in (("kernel", kernel), ("wavecc", wavecc)):
        colour, label = _SIDES[side]
        for k, result in enumerate(results):
            flows = result.flows
            for ax, (_, column) in zip(axes, _PANELS, strict=True):
                ax.plot(
                    flows["t_s"],
                    flows[column],
                    color=colour,
                    linewidth=1.0,
                    alpha=0.7,
                    label=f"{label} ({len(results)} runs)" if k == 0 else None,
                )
    for ax, (title, _) in zip(axes, _PANELS, strict=True):
        ax.set_ylabel(title)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[-1].set_xlabel("time (s)")
    axes[0].legend(loc="lower center", bbox_to_anchor=(0.5, 1.02), ncols=2, frameon=False)
    fig.suptitle(
        f"{case.name}: kernel {case.kernel_cca} / wavecc {case.cca}\n{settings_line(case)}\n"
        f"goodput {row.mean('kernel', 'goodput_mbps'):.1f} / "
        f"{row.mean('wavecc', 'goodput_mbps'):.1f} Mb/s "
        f"({pct_cell(row.diff('goodput_mbps'))}), mean srtt "
        f"{row.mean('kernel', 'mean_srtt_ms'):.2f} / {row.mean('wavecc', 'mean_srtt_ms'):.2f} ms "
        f"({pct_cell(row.diff('mean_srtt_ms'))}), means over runs",
        fontsize=10,
    )
    fig.savefig(path, dpi=100)


def settings_line(case: Case) -> str:
    """The case's settings for the title, each by its last key."""
    return ", ".join(
        f"{key.rsplit('.', 1)[-1]} {_shown(key, value)}" for key, value in case.settings
    )


def _shown(key: str, value: object) -> str:
    """A setting for the title: numbers short (5e+08), a trace by its file's name (the
    comparison's runs read it from a staging directory whose path says nothing),
    anything else as it is."""
    if key == "path.trace":
        return Path(str(value)).name
    return format(value, "g") if isinstance(value, int | float) else str(value)
