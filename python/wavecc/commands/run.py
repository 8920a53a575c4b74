"""`wavecc run`: run one scenario and save its results."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import wavecc

from .. import _core, outdir
from .._core import ConfigError
from ..config import TRANSPORTS, resolve
from ..workers import parse_size
from . import default_out, print_flows, print_pairs, stack_help
from .progress import RunProgress


def add_parser(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("run", help="run a scenario and save its results")
    # Optional only so that `wavecc run --cca list` needs no scenario; handle checks it.
    run.add_argument(
        "scenario", nargs="?", metavar="SCENARIO", help="a TOML file or a built-in scenario id"
    )
    run.add_argument(
        "--cca",
        metavar="NAME",
        help="congestion control for every flow: a name, or a Python class as module:Class "
        "('list' to list the built-ins)",
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
    run.add_argument("--stack", metavar="NAME", help=stack_help())
    run.add_argument(
        "--transport",
        choices=TRANSPORTS,
        help="'udp' replaces every flow by UDP CBR at its application rate (rate_bps): "
        "the UDP-saturated reference",
    )
    run.add_argument(
        "--out", type=Path, metavar="DIR", help="output directory (default: out/<scenario name>)"
    )
    run.add_argument(
        "--force",
        action="store_true",
        help="replace an earlier run in the output directory (never a directory holding "
        "files wavecc did not write)",
    )
    run.add_argument("--no-figure", action="store_true", help="do not draw figure.png")
    run.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="run in a worker process capped at SIZE of memory, e.g. 2G or 512M; a run "
        "estimated to need more is refused before it starts",
    )
    run.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.cca == "list":
        print_pairs(_core.algorithms())
        return 0
    if args.scenario is None:
        raise ConfigError(
            "run: missing SCENARIO (a TOML file, or a built-in id from 'wavecc scenarios list')"
        )
    out = args.out if args.out is not None else default_out(_scenario_name(args))
    # Refused before the run rather than after it; `save` checks again.
    outdir.check(out, outdir.RUN, force=args.force)
    max_memory = parse_size(args.max_memory, "--max-memory") if args.max_memory else None
    # A capped run goes to a worker process, which reports no progress.
    with RunProgress(sys.stdout.isatty() and max_memory is None) as progress:
        result = wavecc.run(
            args.scenario,
            cca=args.cca,
            seed=args.seed,
            overrides=args.set,
            transport=args.transport,
            stack=args.stack,
            progress=progress.callback,
            max_memory=max_memory,
        )
    result.save(out, figure=not args.no_figure, force=args.force)
    _print_summary(result.summary)
    print(f"wrote {out}: {', '.join(sorted(p.name for p in out.iterdir()))}")
    return 0


def _scenario_name(args: argparse.Namespace) -> str:
    """The name the run will have (the core's default is "unnamed")."""
    config = resolve(
        args.scenario,
        cca=args.cca,
        seed=args.seed,
        overrides=args.set,
        transport=args.transport,
        stack=args.stack,
    )
    return str(config.get("name", "unnamed"))


def _print_summary(summary: dict) -> None:
    wall = summary["wall_time_s"]
    sim = summary["sim_time_s"]
    speed = f" ({sim / wall:.1f} simulated s per wall s)" if wall > 0 else ""
    events = f"{summary['events']:,} events"
    print(f"{summary['name']}: {sim:g} s simulated in {wall:.2f} s{speed}, {events}")
    print_flows(summary["flows"])
