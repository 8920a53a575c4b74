"""`wavecc trace export|import`: link traces out of a scenario and into one
(docs/traces.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import traces
from .._core import ConfigError
from .progress import RunProgress

# The core's largest time (`scenario::validate::MAX_TIME_S`).
MAX_DELAY_S = 1e6


def add_parser(commands: argparse._SubParsersAction) -> None:
    trace = commands.add_parser(
        "trace", help="export a scenario's path as a link trace, or import a measured trace"
    )
    actions = trace.add_subparsers(dest="action", required=True, metavar="ACTION")
    _add_export(actions)
    _add_import(actions)


def _add_export(actions: argparse._SubParsersAction) -> None:
    export = actions.add_parser(
        "export",
        help="write what a scenario's path offers as a link trace (mmWave: measured by a "
        "UDP-saturated run)",
    )
    export.add_argument("scenario", metavar="SCENARIO", help="a TOML file or a built-in id")
    export.add_argument("--out", type=Path, required=True, metavar="FILE", help="trace file")
    export.add_argument(
        "--format",
        choices=traces.FORMATS,
        default="wavecc",
        help="wavecc (everything) or mahimahi (delivery opportunities only)",
    )
    export.add_argument(
        "--duration", type=float, metavar="S", help="length of the measured run (mmWave)"
    )
    export.add_argument("--seed", type=int, help="random seed")
    export.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a value"
    )
    _add_force(export)
    export.set_defaults(handler=_export)


def _add_import(actions: argparse._SubParsersAction) -> None:
    imp = actions.add_parser("import", help="turn a measured throughput trace into a link trace")
    imp.add_argument(
        "format",
        choices=traces.IMPORT_FORMATS,
        metavar="FORMAT",
        help=f"one of {', '.join(traces.IMPORT_FORMATS)}",
    )
    imp.add_argument("file", type=Path, metavar="FILE", help="the measured trace")
    imp.add_argument("--out", type=Path, required=True, metavar="TRACE", help="trace file")
    imp.add_argument("--run", type=int, metavar="N", help="the Lumos5G run (run_num) to take")
    imp.add_argument(
        "--slot-s",
        type=float,
        default=traces.DEFAULT_IMPORT_SLOT_S,
        metavar="S",
        help="slot of the trace a per-second rate is shaped into (default 0.001)",
    )
    imp.add_argument(
        "--one-way-delay-s",
        type=float,
        default=traces.DEFAULT_ONE_WAY_DELAY_S,
        metavar="S",
        help="one-way delay of each direction (default 0.01)",
    )
    imp.add_argument(
        "--buffer-bytes",
        type=int,
        default=traces.DEFAULT_BUFFER_BYTES,
        metavar="N",
        help="drop-tail buffer, 0 for unbounded (default 2500000)",
    )
    _add_force(imp)
    imp.set_defaults(handler=_import)


def _add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a wavecc trace at --out (never a file wavecc did not write)",
    )


def _export(args: argparse.Namespace) -> int:
    if args.duration is not None and not args.duration > 0:
        raise ConfigError(f"--duration must be > 0 s, not {args.duration:g}")
    # Refused before a long measuring run rather than after it; `write` checks again.
    traces.check_target(args.out, force=args.force)
    progress = RunProgress(sys.stdout.isatty())
    with progress:
        trace = traces.export(
            args.scenario,
            duration_s=args.duration,
            seed=args.seed,
            overrides=args.set,
            progress=progress.callback,
        )
    traces.write(trace, args.out, args.format, force=args.force)
    _report(trace, args.out)
    return 0


def _import(args: argparse.Namespace) -> int:
    if not 0 <= args.one_way_delay_s <= MAX_DELAY_S:
        raise ConfigError(
            f"--one-way-delay-s must be in [0, {MAX_DELAY_S:g}] s, not {args.one_way_delay_s:g}"
        )
    if args.buffer_bytes < 0:
        raise ConfigError(f"--buffer-bytes must be >= 0 (0: unbounded), not {args.buffer_bytes}")
    traces.check_target(args.out, force=args.force)
    defaults = traces.PathDefaults(args.one_way_delay_s, args.buffer_bytes, args.slot_s)
    trace = traces.import_trace(args.format, args.file, run=args.run, defaults=defaults)
    traces.write(trace, args.out, "wavecc", force=args.force)
    _report(trace, args.out)
    return 0


def _report(trace: traces.Trace, out: Path) -> None:
    print(
        f"wrote {out}: {len(trace.bytes)} slots of {trace.slot_s * 1e3:g} ms "
        f"({trace.duration_s:g} s, looping), mean {trace.mean_rate_bps / 1e6:.2f} Mb/s"
    )
