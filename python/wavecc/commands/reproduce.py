"""`wavecc reproduce ID [--quick] --out DIR`: one of the papers' experiments, its tables
next to the published numbers and its figures; `wavecc reproduce --list` lists them."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import outdir
from .._core import ConfigError
from . import print_pairs, stack_help
from .progress import SweepProgress


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "reproduce",
        help="reproduce one of the papers' experiments: tables beside the published values, figures",
        description="Runs experiment ID's grid (resumable: runs already in DIR are skipped) "
        "and writes DIR/tables/NAME.csv (one row per cell: published, ours, difference), "
        "DIR/figures/ and DIR/reproduction.json.",
    )
    parser.add_argument("id", nargs="?", metavar="ID", help="the experiment (see --list)")
    parser.add_argument("--list", action="store_true", help="list the experiments and exit")
    parser.add_argument(
        "--findings",
        type=Path,
        metavar="ROOT",
        help="check the papers' findings over the reproductions in ROOT (ROOT/<ID>/) and exit",
    )
    parser.add_argument(
        "--quick", action="store_true", help="one seed and short runs: a smoke test"
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="where the runs, tables and figures go"
    )
    parser.add_argument("--stack", metavar="NAME", help=stack_help())
    parser.add_argument(
        "--jobs", type=int, metavar="N", help="worker processes (default: all cores)"
    )
    parser.add_argument(
        "--cluster", metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://host:8786"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from .. import reproduce
    from ..reproduce import findings

    if args.list:
        jobs = args.jobs or os.cpu_count() or 1
        print(f"experiment: seed, what; estimated wall time on {jobs} core(s), full / --quick")
        print_pairs([(e.id, _listing(e, jobs)) for e in reproduce.EXPERIMENTS.values()])
        return 0
    if args.findings is not None:
        print(findings.describe(findings.evaluate(args.findings)))
        return 0
    if args.id is None:
        raise ConfigError("reproduce: missing ID (see wavecc reproduce --list)")
    if args.out is None:
        raise ConfigError("reproduce: missing --out DIR")
    if args.jobs is not None and args.cluster is not None:
        raise ConfigError("give either --jobs (local processes) or --cluster (a Dask scheduler)")
    experiment = reproduce.get(args.id)
    outdir.check(args.out, outdir.reproduction(experiment.id))  # before anything is said
    print(
        f"{experiment.id} (seed {experiment.seed}): {experiment.title}"
        f"{' [quick]' if args.quick else ''}",
        flush=True,
    )
    bars: dict[str, SweepProgress] = {}

    def progress(case: str, p) -> None:
        if case not in bars:
            for bar in bars.values():
                bar.__exit__(None, None, None)
            print(f"case {case}:", flush=True)
            bars[case] = SweepProgress(sys.stdout.isatty(), args.out / "runs" / case)
        bars[case](p)

    try:
        done = reproduce.run(
            args.id,
            args.out,
            quick=args.quick,
            jobs=args.jobs,
            cluster=args.cluster,
            progress=progress,
            stack=args.stack,
        )
    finally:
        for bar in bars.values():
            bar.__exit__(None, None, None)
    for name, path in done.tables.items():
        print(f"table {name}: {path}")
    print(f"{len(done.figures)} figure file(s) in {args.out / 'figures'}")
    print(f"wall time {done.wall_time_s:.1f} s")
    # Findings that need other experiments look for them next to this one.
    verdicts = findings.evaluate(
        args.out.parent, only=experiment.id, located={experiment.id: args.out}
    )
    if verdicts:
        print("the papers' findings:")
        print(findings.describe(verdicts))
    failed = done.summary.get("status")
    failures = int((failed == "failed").sum()) if failed is not None else 0
    if failures:
        print(
            f"{failures} run(s) failed (retried on the next invocation); see the stores in {args.out / 'runs'}"
        )
        return 1
    return 0


def _listing(experiment, jobs: int) -> str:
    full = _minutes(experiment.expected_wall_s(False, jobs))
    quick = _minutes(experiment.expected_wall_s(True, jobs))
    return f"seed {experiment.seed}: {experiment.title}; ~{full} / ~{quick}"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
