"""`wavecc bench`: measure simulation speed and memory."""

from __future__ import annotations

import argparse
import json

from .. import bench
from ..table import Column, Table
from . import case_names


def add_parser(commands: argparse._SubParsersAction) -> None:
    bench_ = commands.add_parser("bench", help="measure simulation speed and memory")
    bench_.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    all_cases = ", ".join(case.name for case in bench.CASES)
    scaling = ", ".join(case.name for case in bench.SCALING)
    bench_.add_argument(
        "--cases",
        metavar="NAME,...",
        help=f"cases to run (default: {all_cases}); also {scaling}, or `scaling` for all"
        " of these (the city grid with 10 to 1000 UEs)",
    )
    bench_.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="runs per case; the run of median wall time is reported, with the range"
        " of all runs (default: 3)",
    )
    # Shortens every case; for the test suite, which cannot afford 60 s runs.
    bench_.add_argument("--duration", type=float, help=argparse.SUPPRESS)
    bench_.set_defaults(handler=handle)


_BENCH_TABLE = Table(
    [
        Column("case", 28),
        Column("sim s", 7, ".1f"),
        Column("wall s", 8, ".2f"),
        Column("sim s/wall s", 12, ".2f"),
        Column("min-max", 13),
        Column("events/s", 12, ",.0f"),
        Column("peak MB", 8, ".1f"),
    ]
)


def handle(args: argparse.Namespace) -> int:
    cases = bench.select(case_names(args.cases))
    bench.check_runs(args.repeat)  # before the table's header is printed
    if args.json:
        results = [bench.measure_repeated(case, args.repeat, args.duration) for case in cases]
        print(json.dumps([r.as_dict() for r in results], indent=2))
        return 0
    # Rows are printed as the cases finish: the whole benchmark takes minutes.
    print(_BENCH_TABLE.header(), flush=True)
    for case in cases:
        r = bench.measure_repeated(case, args.repeat, args.duration)
        m, spread = r.median, f"{r.slowest:.0f}-{r.fastest:.0f}"
        row = [m.case, m.sim_time_s, m.wall_time_s, m.sim_per_wall, spread, m.events_per_s]
        row.append(r.peak_rss_mb)
        print(_BENCH_TABLE.row(row), flush=True)
    return 0
