"""Figures of a run.

Figures are drawn on a bare `Figure` with the Agg canvas rather than through pyplot, so
plotting never touches pyplot's global state or needs a display, and is safe in worker
processes and threads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

if TYPE_CHECKING:
    from .result import Result


def time_series(result: Result, path: Path) -> None:
    """Three stacked panels sharing the time axis: goodput (Mb/s), cwnd (segments) and
    RTT (ms: the mean of the samples in each interval, solid, and srtt, dashed), one
    colour per flow, labelled with the flow index and its algorithm. The legend sits
    above the panels, where it cannot hide a line."""
    fig = Figure(figsize=(10, 8.5), layout="constrained")
    FigureCanvasAgg(fig)
    goodput, cwnd, rtt = fig.subplots(3, 1, sharex=True)
    cca = {flow["flow"]: flow["cca"] for flow in result.summary["flows"]}

    handles = []
    for i, (flow, rows) in enumerate(result.flows.groupby("flow", sort=True)):
        style = {"color": f"C{i % 10}", "linewidth": 1.2}
        label = f"flow {flow} ({cca.get(flow, '?')})"
        handles += goodput.plot(rows["t_s"], rows["goodput_mbps"], label=label, **style)
        cwnd.plot(rows["t_s"], rows["cwnd_segments"], **style)
        rtt.plot(rows["t_s"], rows["rtt_mean_ms"], **style)
        # The core reports srtt as 0 until the first RTT sample: that is no RTT of 0 ms.
        srtt = rows["srtt_ms"].where(rows["srtt_ms"] > 0)
        rtt.plot(rows["t_s"], srtt, linestyle="--", alpha=0.7, **style)

    goodput.set_ylabel("goodput (Mb/s)")
    cwnd.set_ylabel("cwnd (segments)")
    rtt.set_ylabel("RTT (ms)")
    rtt.set_xlabel("time (s)")
    for ax in (goodput, cwnd, rtt):
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    if result.flows.empty:
        goodput.text(0.5, 0.5, "no samples", transform=goodput.transAxes, ha="center")
    else:
        handles += [
            Line2D([], [], color="grey", label="RTT: interval mean"),
            Line2D([], [], color="grey", linestyle="--", label="RTT: srtt"),
        ]
        goodput.legend(
            handles=handles,
            loc="lower center",
            bbox_to_anchor=(0.5, 1.02),
            ncols=min(len(handles), 4),
            fontsize="small",
            frameon=False,
        )
    flows = f"{len(cca)} flow" + ("" if len(cca) == 1 else "s")
    fig.suptitle(f"{result.name}: {flows}, {result.summary['sim_time_s']:g} s simulated")
    fig.savefig(path, dpi=120)
