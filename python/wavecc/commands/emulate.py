"""`wavecc emulate`: real kernels over a scenario's link (see docs/emulation.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import emulate, outdir
from .._core import ConfigError
from ..config import resolve
from ..table import Column, Table
from . import default_out, print_flows


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "emulate",
        help="run the kernel's TCP over a scenario's link, emulated (root)",
        description="Runs the scenario's TCP flow (bulk or at a rate) with the kernel's "
        "congestion control between two network namespaces joined by wavecc's link "
        "emulator, and writes the same result files as 'wavecc run'. A radio scenario's "
        "link is its trace, exported as 'wavecc trace export' does (flows[0]'s UE). "
        "--selftest measures the emulator's accuracy instead.",
    )
    parser.add_argument(
        "scenario",
        nargs="?",
        metavar="SCENARIO",
        help="a TOML file or a built-in id with one flow",
    )
    parser.add_argument(
        "--cca",
        metavar="KERNEL_CCA",
        help="the kernel's congestion control (see "
        "net.ipv4.tcp_available_congestion_control), e.g. cubic, reno, bbr",
    )
    parser.add_argument(
        "--duration",
        type=float,
        metavar="S",
        help="seconds to run (default: the scenario's duration_s)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value (repeatable), as for 'wavecc run'",
    )
    parser.add_argument("--seed", type=int, help="seed of the random loss")
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="a wavecc link trace (docs/traces.md) to use instead of the scenario's path "
        "(a radio scenario's default: its own, exported for the run)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output directory (default: out/<scenario name>-emulated)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an earlier run in the output directory"
    )
    parser.add_argument("--no-figure", action="store_true", help="do not draw figure.png")
    parser.add_argument(
        "--selftest",
        action="store_true",
        help="measure the emulator: delivered rate, delay error and loss at "
        "100 Mb/s, 500 Mb/s, 1 Gb/s and a 125 us slot trace",
    )
    parser.epilog = (
        "-- COMMAND ...: run COMMAND in the sender namespace instead of the "
        "scenario's flow ($WAVECC_RECEIVER_ADDR is the receiver, $WAVECC_RECEIVER_NS its "
        "namespace); each TCP connection it opens is a flow"
    )
    parser.set_defaults(handler=handle, run_command=[])


def handle(args: argparse.Namespace) -> int:
    if args.selftest:
        return _selftest()
    if args.scenario is None or args.cca is None:
        raise ConfigError("emulate: give SCENARIO and --cca KERNEL_CCA (or --selftest)")
    if args.out is not None:
        out = args.out
    else:
        config = resolve(args.scenario, seed=args.seed, overrides=args.set)
        out = default_out(f"{config.get('name', 'unnamed')}-emulated")
    # Refused before the run rather than after it; `save` checks again.
    outdir.check(out, outdir.RUN, force=args.force)
    options = {
        "duration_s": args.duration,
        "seed": args.seed,
        "overrides": args.set,
        "trace": args.trace,
    }
    if args.run_command:
        result = emulate.emulate_command(args.scenario, args.cca, args.run_command, **options)
    else:
        result = emulate.emulate(args.scenario, args.cca, **options)
    result.save(out, figure=not args.no_figure, force=args.force)
    _print_flows(result.summary)
    print(f"wrote {out}: {', '.join(sorted(p.name for p in out.iterdir()))}")
    return 0


def _print_flows(summary: dict) -> None:
    emulated = summary["emulated"]
    print(
        f"{summary['name']}: {summary['sim_time_s']:g} s emulated on Linux "
        f"{emulated['kernel']} (load average {emulated['load_average']:.2f})"
    )
    print(f"link: {_link(emulated)}")
    print_flows(summary["flows"])


def _link(emulated: dict) -> str:
    """What the kernel's flow ran over: the scenario's path, a trace file, or a radio
    scenario's own trace, exported for the run."""
    exported = emulated.get("trace_exported")
    if exported is not None:
        return (
            f"{exported['scenario']}'s trace, exported for the run (UE {exported['ue']}, "
            f"seed {exported['seed']}): {exported['slots']} slots of "
            f"{exported['slot_s'] * 1e3:g} ms, mean {exported['mean_rate_mbps']:.1f} Mb/s"
        )
    if "trace" in emulated:
        return f"the trace {emulated['trace']}"
    return "the scenario's path"


_SELFTEST = Table(
    [
        Column("case", 20),
        Column("rate Mb/s", 9, ".1f"),
        Column("offered", 8, ".1f"),
        Column("expected", 8, ".1f"),
        Column("delivered", 9, ".1f"),
        Column("delay err p50 ms", 16, ".3f"),
        Column("p99 ms", 7, ".3f"),
        Column("loss", 6, ".4f"),
        Column("measured", 8, ".4f"),
    ]
)


def _selftest() -> int:
    rows = emulate.selftest()
    print(f"load average {rows[0]['load_average']:.2f}" if rows else "no cases")
    print(_SELFTEST.header())
    for row in rows:
        print(
            _SELFTEST.row(
                [
                    row["case"],
                    row["configured_rate_mbps"],
                    row["offered_rate_mbps"],
                    row["expected_rate_mbps"],
                    row["delivered_rate_mbps"],
                    row["delay_error_median_ms"],
                    row["delay_error_p99_ms"],
                    row["configured_loss"],
                    row["measured_loss"],
                ]
            )
        )
    return 0
