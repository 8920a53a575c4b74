"""`wavecc sweep`: run a scenario over a grid of values and seeds into a result store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._core import ConfigError
from . import stack_help
from .progress import SweepProgress

_SWEEP_FILE_KEYS = ("scenario", "seeds", "jobs", "cluster", "max_memory", "out", "grid", "set")


def add_parser(commands: argparse._SubParsersAction) -> None:
    sweep = commands.add_parser(
        "sweep",
        help="run a scenario over a grid of values and seeds into a result store",
        description="Runs SCENARIO at every combination of the --grid values, each with "
        "--seeds seeds, in parallel, into DIR (runs/<key>/ per run and summary.parquet). "
        "Runs already in DIR are skipped; failed runs are retried.",
    )
    sweep.add_argument(
        "scenario", nargs="?", metavar="SCENARIO", help="a TOML file or a built-in scenario id"
    )
    sweep.add_argument(
        "--file",
        type=Path,
        metavar="SWEEP.toml",
        help="a sweep file: scenario, seeds, jobs, out, a [grid] table of lists, a [set] table",
    )
    sweep.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="a swept key and its values (repeatable), e.g. --grid cca=cubic,newreno "
        "--grid path.loss.per_byte=0,1e-7; 'cca' sets every flow's algorithm",
    )
    sweep.add_argument(
        "--seeds", type=int, metavar="N", help="seeds per point: the scenario's seed + 0..N-1"
    )
    sweep.add_argument(
        "--jobs", type=int, metavar="N", help="worker processes (default: all cores)"
    )
    sweep.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on a Dask distributed scheduler instead of local processes, e.g. "
        "tcp://host:8786 (needs pip install 'wavecc[cluster]'; the workers need wavecc)",
    )
    sweep.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a base config value (repeatable), as for 'wavecc run'",
    )
    sweep.add_argument("--stack", metavar="NAME", help=stack_help())
    sweep.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="cap each run's worker process at SIZE of memory, e.g. 2G or 512M; a run "
        "estimated to need more is refused before it starts",
    )
    sweep.add_argument("--out", type=Path, metavar="DIR", help="the result store directory")
    sweep.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import tomllib

    from .. import sweeps as sweeping
    from ..config import apply_overrides, load_scenario

    spec: dict = {}
    here = Path(".")
    if args.file is not None:
        try:
            spec = tomllib.loads(args.file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{args.file}: invalid TOML: {e}") from None
        unknown = sorted(set(spec) - set(_SWEEP_FILE_KEYS))
        if unknown:
            raise ConfigError(
                f"{args.file}: unknown key '{unknown[0]}', expected one of "
                f"{', '.join(_SWEEP_FILE_KEYS)}"
            )
        here = args.file.parent

    scenario = args.scenario
    if scenario is None and "scenario" in spec:
        scenario = str(spec["scenario"])
        # A scenario file named in a sweep file is relative to the sweep file.
        if (here / scenario).is_file():
            scenario = str(here / scenario)
    if scenario is None:
        raise ConfigError("sweep: missing SCENARIO (give one, or --file with 'scenario = ...')")

    grid: dict = {}
    for key, values in sweeping.flatten(spec.get("grid", {})).items():
        if not isinstance(values, list):
            raise ConfigError(f"{args.file}: grid key '{key}' must be a list of values")
        grid[key] = values
    for text in args.grid:
        key, values = sweeping.parse_grid_arg(text)
        grid[key] = values

    seeds = args.seeds if args.seeds is not None else spec.get("seeds", 1)
    cluster = args.cluster if args.cluster is not None else spec.get("cluster")
    if args.jobs is not None and args.cluster is not None:
        raise ConfigError("give either --jobs (local processes) or --cluster (a Dask scheduler)")
    # A --cluster on the command line wins over the sweep file's jobs, and --jobs over
    # its cluster.
    jobs = args.jobs if args.jobs is not None else (None if args.cluster else spec.get("jobs"))
    if args.jobs is not None:
        cluster = None
    out = args.out
    if out is None and "out" in spec:
        out = here / str(spec["out"])
    if out is None:
        raise ConfigError("sweep: missing --out DIR (the result store)")

    base = load_scenario(scenario)
    base = sweeping.apply_values(base, sweeping.flatten(spec.get("set", {})))
    base = apply_overrides(base, args.set)

    max_memory = args.max_memory if args.max_memory is not None else spec.get("max_memory")
    if max_memory is not None:
        max_memory = sweeping.parse_size(max_memory, "--max-memory")

    with SweepProgress(sys.stdout.isatty(), out) as progress:
        results = sweeping.sweep(
            base,
            grid,
            seeds=seeds,
            jobs=jobs,
            out=out,
            progress=progress,
            cluster=cluster,
            stack=args.stack,
            max_memory=max_memory,
        )
    _print_sweep_summary(results.summary, list(grid))
    failed = results.failed
    print(f"wrote {out}: summary.parquet and {len(results.summary) - len(failed)} run(s) in runs/")
    if failed:
        print(f"{len(failed)} run(s) failed (retried on the next invocation):")
        for run in failed:
            values = " ".join(f"{k}={v}" for k, v in run["values"].items())
            print(f"  {run['key']}  {values} seed={run['seed']}: {run['error']}")
        return 1
    return 0


def _print_sweep_summary(summary, swept: list[str]) -> None:
    """The summary table: swept values, seed, status and the flow metrics."""
    from ..store import FLOW_METRICS

    metrics = [c for c in summary.columns if c.rsplit("_f", 1)[0] in FLOW_METRICS]
    columns = [c for c in [*swept, "seed", "status", *metrics, "key"] if c in summary.columns]
    if summary.empty:
        print("(no runs)")
        return
    table = summary[columns].copy()
    for column in swept:  # swept values as written (1e+08), not with two decimals
        table[column] = table[column].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}", na_rep="-"))
