"""The `wavecc` command line: run a scenario, list the built-ins, benchmark the core,
validate against ns-3.

Every failure the user can cause (a bad scenario, a missing file, a bad override or
argument, an unwritable output directory) is reported as one line,
`wavecc: error: <message>`, on stderr with exit code 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import wavecc

from . import _core, bench, validate
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
    except (
        ConfigError,
        OSError,
        bench.CaseFailed,
        validate.Ns3Missing,
        validate.Ns3Failed,
    ) as e:
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

    validate_ = commands.add_parser("validate", help="compare wavecc with a peer simulator")
    peers = validate_.add_subparsers(dest="peer", required=True, metavar="PEER")
    ns3 = peers.add_parser(
        "ns3",
        help="compare with ns-3 3.37 on the validation grid",
        description="Runs wavecc on the validation grid and compares it with the committed "
        "ns-3 references (validation/ns3/reference/); --regenerate remakes those with ns-3.",
    )
    ns3.add_argument(
        "--cases",
        metavar="NAME,...",
        help="cases to run, or shell patterns such as 'cubic-*' (default: all "
        f"{len(validate.CASES)}: {validate.CASES[0].name}, ..., {validate.CASES[-1].name})",
    )
    ns3.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="where the comparison goes (default: out/validate-ns3)",
    )
    ns3.add_argument(
        "--regenerate",
        action="store_true",
        help="build the ns-3 program and rerun ns-3 for the cases into validation/ns3/reference/ "
        "(minutes per 1 Gb/s case)",
    )
    ns3.add_argument(
        "--jobs", type=int, default=2, metavar="N", help="parallel ns-3 runs (default: 2)"
    )
    ns3.add_argument(
        "--ns3-dir",
        type=Path,
        metavar="DIR",
        help="the validation/ns3 directory (default: found from the working directory up)",
    )
    ns3.add_argument("--no-figures", action="store_true", help="do not draw the overlay figures")
    # Shortens every case; for the test suite, which compares against short references.
    ns3.add_argument("--duration", type=float, help=argparse.SUPPRESS)
    ns3.set_defaults(handler=_validate_ns3)
    _add_sweep_parser(commands)
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


def _case_names(text: str | None) -> list[str] | None:
    """`--cases a,b` as a list of names; None (every case) when the option is absent."""
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


def _bench(args: argparse.Namespace) -> int:
    names = _case_names(args.cases)
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


_REGENERATED_TABLE = Table(
    [
        Column("case", 18),
        Column("goodput Mb/s", 12, ".2f"),
        Column("mean RTT ms", 11, ".2f"),
        Column("wall s", 8, ".1f"),
        Column("sim s/wall s", 12, ".3f"),
    ]
)

_COMPARISON_TABLE = Table(
    [
        Column("case", 18),
        Column("goodput wavecc", 14, ".2f"),
        Column("ns-3", 8, ".2f"),
        Column("diff", 8, "+.1%"),
        Column("RTT ms wavecc", 13, ".2f"),
        Column("ns-3", 8, ".2f"),
        Column("diff", 8, "+.1%"),
        Column("within 10%", 10),
    ]
)


def _validate_ns3(args: argparse.Namespace) -> int:
    names = _case_names(args.cases)
    cases = validate.select(names)
    if args.jobs < 1:
        raise ConfigError(f"--jobs must be at least 1, not {args.jobs}")
    if args.duration is not None:
        if args.regenerate:
            raise ConfigError("--duration cannot be used with --regenerate")
        if not args.duration > 0:
            raise ConfigError(f"--duration must be positive, not {args.duration}")
        cases = [case.shortened(args.duration) for case in cases]
    ns3_dir = args.ns3_dir if args.ns3_dir is not None else validate.find_ns3_dir()
    if args.regenerate:
        return _regenerate(cases, ns3_dir, args.jobs)

    out = args.out if args.out is not None else Path("out") / "validate-ns3"
    print(_COMPARISON_TABLE.header(), flush=True)

    def row(r: validate.Row) -> None:
        within = "yes" if r.goodput_within and r.rtt_within else "no"
        values = [
            r.case, r.goodput_wavecc_mbps, r.goodput_ns3_mbps, r.goodput_rel_diff,
            r.mean_rtt_wavecc_ms, r.mean_rtt_ns3_ms, r.mean_rtt_rel_diff, within,
        ]  # fmt: skip
        print(_COMPARISON_TABLE.row([_finite(v) for v in values]), flush=True)

    comparison = validate.compare(cases, ns3_dir, out, figures=not args.no_figures, on_row=row)
    within = sum(r.goodput_within and r.rtt_within for r in comparison.rows)
    print(f"{within} of {len(comparison.rows)} compared cases within 10% on goodput and mean RTT")
    if comparison.missing:
        missing = comparison.missing
        print(f"missing ns-3 references ({len(missing)}): {', '.join(missing)}")
    for stale in comparison.stale:
        print(f"stale ns-3 reference, not compared: {stale}")
    print(f"wrote {out}: comparison.csv" + ("" if args.no_figures else " and one figure per case"))
    return 0


def _regenerate(cases: Sequence[validate.Case], ns3_dir: Path, jobs: int) -> int:
    print(f"building {ns3_dir / 'dumbbell.cc'} and running ns-3 on {len(cases)} case(s), "
          f"{jobs} at a time", flush=True)  # fmt: skip
    print(_REGENERATED_TABLE.header(), flush=True)

    def row(r: validate.Regenerated) -> None:
        values = [r.case, r.goodput_mbps, r.mean_rtt_ms, r.wall_time_s, r.sim_per_wall]
        print(_REGENERATED_TABLE.row([_finite(v) for v in values]), flush=True)

    validate.regenerate(cases, ns3_dir, jobs=jobs, on_done=row)
    print(f"wrote {ns3_dir / 'reference'}: {', '.join(case.name for case in cases)}")
    return 0


def _finite(value: object) -> object:
    """NaN (a missing number) as None, which the tables print as '-'."""
    return None if isinstance(value, float) and math.isnan(value) else value


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


# --- wavecc sweep -----------------------------------------------------------------------

_SWEEP_FILE_KEYS = ("scenario", "seeds", "jobs", "out", "grid", "set")


def _add_sweep_parser(commands: argparse._SubParsersAction) -> None:
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
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a base config value (repeatable), as for 'wavecc run'",
    )
    sweep.add_argument("--out", type=Path, metavar="DIR", help="the result store directory")
    sweep.set_defaults(handler=_sweep)


def _sweep(args: argparse.Namespace) -> int:
    import importlib
    import tomllib

    # The module, not the function of the same name that `from . import sweep` may give.
    sweeping = importlib.import_module("wavecc.sweep")
    from .config import apply_overrides, load_scenario

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
    jobs = args.jobs if args.jobs is not None else spec.get("jobs")
    out = args.out
    if out is None and "out" in spec:
        out = here / str(spec["out"])
    if out is None:
        raise ConfigError("sweep: missing --out DIR (the result store)")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 0):
        raise ConfigError(f"--jobs must be at least 1 (or 0: in this process), not {jobs}")

    base = load_scenario(scenario)
    base = sweeping.apply_values(base, sweeping.flatten(spec.get("set", {})))
    base = apply_overrides(base, args.set)

    with _SweepProgress(sys.stdout.isatty(), out) as progress:
        results = sweeping.sweep(base, grid, seeds=seeds, jobs=jobs, out=out, progress=progress)
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


class _SweepProgress:
    """A rich progress bar on a terminal; one line per finished run otherwise."""

    def __init__(self, tty: bool, out: Path):
        self.tty = tty
        self.out = out
        self.bar = None
        self.task = None

    def __enter__(self) -> _SweepProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, p) -> None:  # p: wavecc.sweep.Progress
        if p.point is None:
            self._start(p)
        elif self.tty:
            self.bar.update(self.task, completed=p.done + p.failed, failed=p.failed,
                            remaining=p.remaining, done=p.done)  # fmt: skip
        else:
            took = "" if p.wall_time_s is None or p.wall_time_s != p.wall_time_s else (
                f" in {p.wall_time_s:.2f} s"
            )
            error = f": {' '.join(str(p.error).split())}" if p.error else ""
            print(f"[{p.done + p.failed}/{p.total}] {p.status} {p.point.label()} "
                  f"({p.point.key}){took}{error}", flush=True)  # fmt: skip

    def _start(self, p) -> None:
        skipped = f", {p.skipped} already in {self.out}" if p.skipped else ""
        print(f"sweep: {p.total} run(s){skipped}", flush=True)
        if not self.tty:
            return
        from rich.progress import (
            BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
            TimeRemainingColumn,
        )  # fmt: skip

        self.bar = Progress(
            TextColumn("runs"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[done]} ok, {task.fields[failed]} failed, "
                       "{task.fields[remaining]} remaining"),  # fmt: skip
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self.bar.start()
        self.task = self.bar.add_task(
            "sweep", total=p.total, completed=p.done, done=p.done, failed=0, remaining=p.remaining
        )


def _print_sweep_summary(summary, swept: list[str]) -> None:
    """The summary table: swept values, seed, status and the flow metrics."""
    from .store import FLOW_METRICS

    metrics = [c for c in summary.columns if c.rsplit("_f", 1)[0] in FLOW_METRICS]
    columns = [c for c in [*swept, "seed", "status", *metrics, "key"] if c in summary.columns]
    if summary.empty:
        print("(no runs)")
        return
    table = summary[columns].copy()
    for column in swept:  # swept values as written (1e+08), not with two decimals
        table[column] = table[column].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}", na_rep="-"))
