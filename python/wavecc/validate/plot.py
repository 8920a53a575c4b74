"""One figure per case: ns-3's and wavecc's time series on the same axes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cases import Case
from .references import Reference
from .stats import Row
from .tables import pct_cell


def overlay(
    case: Case, results: dict[str, Any], reference: Reference, rows: Sequence[Row], path: Path
) -> None:
    """Goodput, cwnd, RTT (interval mean) and bottleneck queue over time: ns-3 and
    wavecc in each stack (its first seed) on the same axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 10), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(4, 1, sharex=True)
    ns3 = {key: [r.get(key, math.nan) for r in reference.timeseries] for key in _NS3_COLUMNS}
    ns3_label = f"ns-3 {reference.summary.get('ns3_version', '')}".strip()
    keys = (
        ("goodput (Mb/s)", "goodput_mbps", "goodput_mbps", 1.0),
        ("cwnd (segments)", "cwnd_segments", "cwnd_segments", 1.0),
        ("RTT (ms, interval mean)", "rtt_mean_ms", "rtt_mean_ms", 1.0),
        ("bottleneck queue (kB)", "bytes", "queue_bytes", 1e-3),
    )
    colours = {"linux": "C0", "ns3-3.37": "C2"}
    for ax, (label, mine, theirs, scale) in zip(axes, keys, strict=True):
        for i, (name, result) in enumerate(results.items()):
            frame = result.flows if mine != "bytes" else _bottleneck(result)
            ax.plot(
                frame["t_s"],
                frame[mine] * scale,
                color=colours.get(name, f"C{i + 4}"),
                linewidth=1.2,
                label=f"wavecc, {name} stack",
            )
        ax.plot(
            ns3["t_s"],
            [v * scale for v in ns3[theirs]],
            color="C3",
            linewidth=1.0,
            alpha=0.85,
            label=ns3_label,
        )
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[-1].set_xlabel("time (s)")
    axes[0].legend(loc="lower center", bbox_to_anchor=(0.5, 1.02), ncols=3, frameon=False)
    summary = "; ".join(
        f"{r.stack}: goodput {r.goodput_wavecc_mbps:.1f} ({pct_cell(r.goodput_rel_diff)}), "
        f"RTT {r.mean_rtt_wavecc_ms:.2f} ms ({pct_cell(r.mean_rtt_rel_diff)})"
        for r in rows
    )
    first = rows[0]
    fig.suptitle(
        f"{case.name}: {case.cca} / {case.ns3_cca}, {case.rate_bps / 1e6:g} Mb/s, "
        f"{case.delay_s * 1e3:g} ms one way, {case.buffer_bytes / 1e6:g} MB buffer, "
        f"per-byte loss {case.per_byte:g}\n"
        f"ns-3{f' (mean of {first.ns3_seeds} seeds; curves: seed 1)' if first.ns3_seeds > 1 else ''}: "
        f"goodput {first.goodput_ns3_mbps:.1f} Mb/s, mean RTT {first.mean_rtt_ns3_ms:.2f} ms\n"
        f"wavecc {summary}"
    )
    fig.savefig(path, dpi=100)


def _bottleneck(result: Any) -> Any:
    return result.queues[result.queues["queue"] == "bottleneck"]


_NS3_COLUMNS = ("t_s", "goodput_mbps", "cwnd_segments", "rtt_mean_ms", "queue_bytes")
