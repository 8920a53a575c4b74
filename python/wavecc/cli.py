"""The `wavecc` command line: run a scenario, list the built-ins, benchmark the core.

Every failure the user can cause (a bad scenario, a missing file, a bad override or
argument, an unwritable output directory) is reported as one line,
`wavecc: error: <message>`, on stderr with exit code 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import wavecc

from . import _core, bench
from ._core import ConfigError
from .table import Column, Table

EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """Usage errors are reported like any other error: one line, no usage dump."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_ERROR, _error_line(message))


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ConfigError, OSError, bench.CaseFailed) as e:
        sys.stderr.write(_error_line(_describe(e)))
        return EXIT_ERROR


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="wavecc", description=wavecc.__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"wavecc {wavecc.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run a scenario and save its results")
    # Optional only so that `wavecc run --cca list` needs no scenario; _run checks it.
    run.add_argument(
        "scenario", nargs="?", metavar="SCENARIO", help="a TOML file or a built-in scenario id"
    )
    run.add_argument(
        "--cca", metavar="NAME", help="congestion control for every flow ('list' to list them)"
    )
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value (repeatable), e.g. --set path.rate_bps=1e8 "
        "--set flows.0.cca=newreno",
    )
    run.add_argument("--seed", type=int, help="random seed")
    run.add_argument(
        "--out", type=Path, metavar="DIR", help="output directory (default: out/<scenario name>)"
    )
    run.add_argument("--no-figure", action="store_true", help="do not draw figure.png")
    run.set_defaults(handler=_run)

    scenarios = commands.add_parser("scenarios", help="list or show the built-in scenarios")
    actions = scenarios.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the built-in scenarios")
    listing.set_defaults(handler=_scenarios_list)
    show = actions.add_parser("show", help="print a built-in scenario's TOML")
    show.add_argument("id", metavar="ID")
    show.set_defaults(handler=_scenarios_show)

    bench_ = commands.add_parser("bench", help="measure simulation speed and memory")
    bench_.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    all_cases = ", ".join(case.name for case in bench.CASES)
    bench_.add_argument("--cases", metavar="NAME,...", help=f"cases to run (default: {all_cases})")
    # Shortens every case; for the test suite, which cannot afford 60 s runs.
    bench_.add_argument("--duration", type=float, help=argparse.SUPPRESS)
    bench_.set_defaults(handler=_bench)
    return parser


def _run(args: argparse.Namespace) -> int:
    if args.cca == "list":
        _print_pairs(_core.algorithms())
        return 0
    if args.scenario is None:
        raise ConfigError(
            "run: missing SCENARIO (a TOML file, or a built-in id from 'wavecc scenarios list')"
        )
    result = wavecc.run(args.scenario, cca=args.cca, seed=args.seed, overrides=args.set)
    out = args.out if args.out is not None else _default_out(result.name)
    result.save(out, figure=not args.no_figure)
    _print_summary(result.summary)
    print(f"wrote {out}: {', '.join(sorted(p.name for p in out.iterdir()))}")
    return 0


def _default_out(name: str) -> Path:
    """out/<name>. A name that is not a single plain path component would put the
    result elsewhere, or even replace out/ itself, so it is refused."""
    if name in ("", ".", "..") or Path(name).name != name:
        raise ConfigError(f"scenario name {name!r} is not a directory name; give --out DIR")
    return Path("out") / name


_FLOW_TABLE = Table(
    [
        Column("flow", 4),
        Column("cca", 8),
        Column("goodput Mb/s", 12, ".2f"),
        Column("mean RTT ms", 11, ".2f"),
        Column("p95 RTT ms", 10, ".2f"),
        Column("retrans", 8, "d"),
        Column("RTOs", 5, "d"),
    ]
)


def _print_summary(summary: dict) -> None:
    wall = summary["wall_time_s"]
    sim = summary["sim_time_s"]
    speed = f" ({sim / wall:.1f} simulated s per wall s)" if wall > 0 else ""
    events = f"{summary['events']:,} events"
    print(f"{summary['name']}: {sim:g} s simulated in {wall:.2f} s{speed}, {events}")
    print(_FLOW_TABLE.header())
    for flow in summary["flows"]:
        print(
            _FLOW_TABLE.row(
                [
                    flow["flow"],
                    flow["cca"],
                    flow["goodput_mbps"],
                    flow["mean_rtt_ms"],
                    flow["p95_rtt_ms"],
                    flow["retransmitted_segments"],
                    flow["rto_events"],
                ]
            )
        )


def _scenarios_list(args: argparse.Namespace) -> int:
    _print_pairs(_core.builtin_scenarios())
    return 0


def _scenarios_show(args: argparse.Namespace) -> int:
    print(_core.builtin_scenario(args.id), end="")
    return 0


_BENCH_TABLE = Table(
    [
        Column("case", 28),
        Column("sim s", 7, ".1f"),
        Column("wall s", 8, ".2f"),
        Column("sim s/wall s", 12, ".2f"),
        Column("events/s", 12, ",.0f"),
        Column("peak MB", 8, ".1f"),
    ]
)


def _bench(args: argparse.Namespace) -> int:
    names = None if args.cases is None else [n.strip() for n in args.cases.split(",") if n.strip()]
    cases = bench.select(names)
    if args.json:
        results = [bench.measure(case, args.duration).as_dict() for case in cases]
        print(json.dumps(results, indent=2))
        return 0
    # Rows are printed as the cases finish: the whole benchmark takes minutes.
    print(_BENCH_TABLE.header(), flush=True)
    for case in cases:
        m = bench.measure(case, args.duration)
        row = [m.case, m.sim_time_s, m.wall_time_s, m.sim_per_wall, m.events_per_s, m.peak_rss_mb]
        print(_BENCH_TABLE.row(row), flush=True)
    return 0


def _print_pairs(pairs: Sequence[tuple[str, str]]) -> None:
    """Prints (name, description) pairs as two aligned columns."""
    width = max((len(name) for name, _ in pairs), default=0)
    for name, description in pairs:
        print(f"{name:<{width}}  {description}")


def _describe(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    return str(error)


def _error_line(message: str) -> str:
    """Collapses a message onto one line: callers rely on exactly one line of error."""
    return f"wavecc: error: {' '.join(message.split())}\n"
