"""The figures of docs/algorithms.md: each seed algorithm's cwnd on `urban` next to
CUBIC's, with the NLoS intervals shaded.

Two columns: `urban` as built (no random loss, the 1 Gb/s server, 20 MiB RLC buffer)
and the same with the papers' per-byte random loss of 1e-7 at the PGW. Three rows: cwnd,
smoothed RTT, and the algorithm's own state from the cc trace (FB-TCP: CSI and
maxCwnd; RTTV / MSS-CCA / MRVHS: F; D-TCP: N and the SINR it reads).

    python scripts/algorithm_figures.py [OUT_DIR]      # default docs/algorithms

Prints each run's goodput, for the table in docs/algorithms.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import wavecc

ALGORITHMS = {
    "fbtcp": "FB-TCP",
    "rttv": "RTTV-CCA",
    "mss": "MSS-CCA",
    "mrvhs": "MRVHS-CCA",
    "dtcp": "D-TCP",
}
CASES = {"urban": [], "urban, per-byte loss 1e-7": ["path.loss.per_byte=1e-7"]}


def run(cca: str, overrides: list[str]) -> wavecc.Result:
    r = wavecc.run(wavecc.load_scenario("urban"), cca=cca, overrides=overrides)
    f = r.summary["flows"][0]
    print(
        f"{cca:7s} {overrides!s:28s} goodput {f['goodput_mbps']:7.1f} Mb/s, "
        f"mean RTT {f['mean_rtt_ms']:6.1f} ms, {f['rto_events']} RTOs"
    )
    return r


def cc_var(r: wavecc.Result, name: str):
    rows = r.cc[r.cc["var"] == name]
    return rows["t_s"], rows["value"]


def shade(ax, r: wavecc.Result) -> None:
    for start, end in r.summary["ues"][0]["nlos_intervals_s"]:
        ax.axvspan(start, end, color="0.85", linewidth=0, zorder=0)


def state_panel(ax, cca: str, r: wavecc.Result) -> None:
    if cca == "fbtcp":
        ax.plot(*cc_var(r, "csi"), color="C0", linewidth=0.8)
        ax.set_ylabel("CSI = baseRtt / minRtt")
        ax.set_ylim(0, 1.05)
    elif cca == "dtcp":
        ax.semilogy(*cc_var(r, "n"), color="C0", linewidth=0.8)
        ax.set_ylabel("N (segments per RTT)")
        t, sinr = cc_var(r, "sinr_db")
        twin = ax.twinx()
        twin.plot(t, sinr, color="C2", linewidth=0.8)
        twin.set_ylabel("SINR hint (dB)", color="C2")
    else:
        t, f = cc_var(r, "f")
        ax.plot(t, f, color="C0", linewidth=0.8)
        ax.set_ylabel("F (segments per RTT)")
        if not (f > 0).any():
            ax.text(
                0.5,
                0.5,
                "never in congestion avoidance (no loss):\nF not computed",
                transform=ax.transAxes,
                ha="center",
                va="center",
                bbox={"facecolor": "white", "edgecolor": "none"},
            )


def figure(cca: str, runs: dict, cubic: dict, path: Path) -> None:
    fig = Figure(figsize=(12, 8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(3, len(CASES), sharex=True)
    for col, case in enumerate(CASES):
        r, c = runs[case], cubic[case]
        cw, rtt, state = axes[:, col]
        for ax in axes[:, col]:
            shade(ax, r)
        g, gc = (
            r.summary["flows"][0]["goodput_mbps"],
            c.summary["flows"][0]["goodput_mbps"],
        )
        cw.plot(
            c.flows["t_s"],
            c.flows["cwnd_segments"],
            color="C1",
            linewidth=1,
            label=f"CUBIC ({gc:.0f} Mb/s)",
        )
        cw.plot(
            r.flows["t_s"],
            r.flows["cwnd_segments"],
            color="C0",
            linewidth=1,
            label=f"{ALGORITHMS[cca]} ({g:.0f} Mb/s)",
        )
        if cca == "fbtcp":
            cw.plot(
                *cc_var(r, "max_cwnd"),
                color="C0",
                linestyle="--",
                linewidth=0.8,
                label="FB-TCP maxCwnd",
            )
        cw.set_title(case)
        cw.set_ylabel("cwnd (segments)")
        cw.legend(loc="upper right", fontsize=8)
        rtt.plot(
            c.flows["t_s"],
            c.flows["srtt_ms"].where(c.flows["srtt_ms"] > 0),
            color="C1",
            linewidth=0.8,
        )
        rtt.plot(
            r.flows["t_s"],
            r.flows["srtt_ms"].where(r.flows["srtt_ms"] > 0),
            color="C0",
            linewidth=0.8,
        )
        rtt.set_ylabel("srtt (ms)")
        state_panel(state, cca, r)
        state.set_xlabel("time (s); grey: NLoS")
    fig.suptitle(f"{ALGORITHMS[cca]} and CUBIC on urban (one 1 Gb/s flow)")
    fig.savefig(path, dpi=90)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/algorithms")
    out.mkdir(parents=True, exist_ok=True)
    cubic = {case: run("cubic", o) for case, o in CASES.items()}
    for cca in ALGORITHMS:
        runs = {case: run(cca, o) for case, o in CASES.items()}
        figure(cca, runs, cubic, out / f"{cca}.png")
        print("wrote", out / f"{cca}.png")


if __name__ == "__main__":
    main()
