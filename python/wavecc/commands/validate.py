"""`wavecc validate ns3`: compare wavecc with ns-3 on the validation grid."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from .. import _core, outdir, validate, validate_mmwave, validate_rankings
from .._core import ConfigError
from ..config import check_minimum, check_stack, to_json
from ..table import Column, Table
from ..validate import kernel
from . import case_names, finite


def add_parser(commands: argparse._SubParsersAction) -> None:
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
        "--force",
        action="store_true",
        help="replace an earlier comparison in --out (never a directory holding files wavecc "
        "did not write)",
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
    ns3.add_argument(
        "--stack",
        metavar="NAME,...",
        help="the TCP stacks to run wavecc in (tcp.stack; default: "
        f"{','.join(validate.STACKS)}): linux, its defaults, and ns3-3.37, ns-3 3.37's TCP",
    )
    ns3.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="N",
        help="run wavecc with seeds 1..N and compare their mean (default: 1, ns-3's seed)",
    )
    ns3.add_argument(
        "--ns3-seeds",
        type=int,
        default=1,
        metavar="N",
        help="with --regenerate: run ns-3 with seeds 1..N (seeds after the first go to "
        "validation/ns3/extra-seeds/; comparisons use the mean of all committed seeds)",
    )
    ns3.add_argument(
        "--missing-only",
        action="store_true",
        help="with --regenerate: run ns-3 only for the seeds without a committed, current output",
    )
    ns3.add_argument("--no-figures", action="store_true", help="do not draw the overlay figures")
    # Shortens every case; for the test suite, which compares against short references.
    ns3.add_argument("--duration", type=float, help=argparse.SUPPRESS)
    ns3.set_defaults(handler=handle_ns3)
    _add_ns3mmwave(peers)
    _add_kernel(peers)


def _add_ns3mmwave(peers: argparse._SubParsersAction) -> None:
    mmwave = peers.add_parser(
        "ns3-mmwave",
        help="compare with ns3-mmwave on the FB-TCP paper's scripts (fbtcp-1..4)",
        description="Runs wavecc's fbtcp-N scenarios on the cases of the committed ns3-mmwave "
        "references (validation/ns3mmwave/reference/) and compares them; never runs ns3-mmwave.",
    )
    mmwave.add_argument(
        "--cases",
        metavar="NAME,...",
        help="cases to run, or shell patterns such as 's2-*' (default: every case of the "
        "references; the references' summary.json fields name them)",
    )
    mmwave.add_argument(
        "--stack",
        metavar="NAME",
        help=f"the TCP stack to run wavecc in (tcp.stack; default: {validate_mmwave.DEFAULT_STACK}: "
        f"{validate_mmwave.PREFERRED_STACK}, ns3-mmwave's TCP, where the core has it, else linux)",
    )
    mmwave.add_argument(
        "--seeds",
        type=int,
        metavar="N",
        help="run wavecc with seeds 1..N (default: one run per reference, its RngRun as the seed)",
    )
    mmwave.add_argument(
        "--start-phases",
        type=int,
        default=1,
        metavar="N",
        help="start each wavecc seed N times, spread evenly over one 22 ms round trip from the "
        "scripts' start (default: 1, the scripts' start): the loss-free ramp before the first "
        "blockage is the same for every seed, so one start samples one phase of it (the table "
        "says so)",
    )
    mmwave.add_argument(
        "--duration",
        type=float,
        metavar="S",
        help="run wavecc for S simulated seconds instead of the references' (the table says so)",
    )
    mmwave.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a config value of every wavecc run (repeatable, as wavecc run --set; "
        "the table says so), e.g. --set path.one_way_delay_s=0.00995",
    )
    mmwave.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="where the comparison goes (default: out/validate-ns3-mmwave)",
    )
    mmwave.add_argument(
        "--force",
        action="store_true",
        help="replace an earlier comparison in --out (never a directory holding files wavecc "
        "did not write)",
    )
    mmwave.add_argument(
        "--reference-dir",
        type=Path,
        metavar="DIR",
        help="the references (default: validation/ns3mmwave/reference, found from the working "
        "directory up)",
    )
    mmwave.add_argument("--no-figures", action="store_true", help="do not draw the overlay figures")
    mmwave.set_defaults(handler=handle_ns3mmwave)


def _add_kernel(peers: argparse._SubParsersAction) -> None:
    parser = peers.add_parser(
        "kernel",
        help="compare wavecc's Linux stack with the Linux kernel's TCP, emulated (root)",
        description="Runs the kernel's reno, cubic and bbr across wavecc's link emulator and "
        "wavecc's linux stack on the same links, several runs each, and compares goodput, "
        "mean RTT and retransmissions: dumbbells, and urban's radio link as its exported "
        "trace ('*-urban'). Needs root and the emulator (see 'wavecc emulate').",
    )
    parser.add_argument(
        "--cases",
        metavar="NAME,...",
        help="cases to run, or shell patterns such as 'cubic-*' (default: all "
        f"{len(kernel.CASES)}: {kernel.CASES[0].name}, ..., {kernel.CASES[-1].name})",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=kernel.RUNS,
        metavar="N",
        help=f"runs per case on each side, seeds 1..N (default: {kernel.RUNS})",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=kernel.DURATION_S,
        metavar="S",
        help=f"seconds per run (default: {kernel.DURATION_S:g})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="where the comparison goes (default: out/validate-kernel)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace an earlier comparison in --out (never a directory holding files wavecc "
        "did not write)",
    )
    parser.add_argument("--no-figures", action="store_true", help="do not draw the overlay figures")
    parser.set_defaults(handler=handle_kernel)


_KERNEL_TABLE = Table(
    [
        Column("case", 16),
        Column("runs", 4),
        Column("kernel Mb/s", 11, ".1f"),
        Column("wavecc", 7, ".1f"),
        Column("diff", 7, "+.1%"),
        Column("srtt ms", 7, ".2f"),
        Column("wavecc", 7, ".2f"),
        Column("diff", 7, "+.1%"),
        Column("retrans", 7, ".0f"),
        Column("wavecc", 7, ".0f"),
        Column("within", 6),
        Column("load", 5, ".2f"),
    ]
)


def handle_kernel(args: argparse.Namespace) -> int:
    cases = kernel.select(case_names(args.cases))
    check_minimum("--runs", args.runs, 1)
    check_minimum("--duration", args.duration, kernel.INTERVAL_S, note=" s")
    kernel.check_can_run()
    out = args.out if args.out is not None else Path("out") / "validate-kernel"
    outdir.check(out, kernel.COMPARISON, force=args.force)  # before anything is said
    print(
        f"the kernel ({os.uname().release}) against wavecc's linux stack: means over "
        f"{args.runs} run(s) of {args.duration:g} s; srtt is the mean of the 100 ms readings",
        flush=True,
    )
    print(_KERNEL_TABLE.header(), flush=True)

    def case_done(row: kernel.Row) -> None:
        values: list[object] = [row.case, len(row.kernel)]
        for metric in ("goodput_mbps", "mean_srtt_ms"):
            values += [row.mean("kernel", metric), row.mean("wavecc", metric), row.diff(metric)]
        values += [
            row.mean("kernel", "retransmitted"),
            row.mean("wavecc", "retransmitted"),
            "yes" if row.agrees else "no",
            row.mean("kernel", "load_average"),
        ]
        print(_KERNEL_TABLE.row([finite(v) for v in values]), flush=True)

    comparison = kernel.compare(
        cases,
        out,
        runs=args.runs,
        duration_s=args.duration,
        figures=not args.no_figures,
        force=args.force,
        on_case=case_done,
    )
    rows = comparison.rows
    agree = sum(row.agrees for row in rows)
    noise = sum(row.beyond_spread is False for row in rows)
    print(
        f"{agree} of {len(rows)} cases within 10% on goodput and mean RTT; of the others, "
        f"{noise} differ by no more than the spread over runs explains "
        f"(Welch p >= {validate.SIGNIFICANCE})"
    )
    traces = ", traces/" if any(case.trace_of is not None for case in cases) else ""
    print(
        f"wrote {out}: comparison.csv, comparison.md, runs.csv, runs/{traces}"
        + ("" if args.no_figures else " and one figure per case")
    )
    return 0


_REGENERATED_TABLE = Table(
    [
        Column("case", 18),
        Column("seed", 4),
        Column("goodput Mb/s", 12, ".2f"),
        Column("mean RTT ms", 11, ".2f"),
        Column("wall s", 8, ".1f"),
        Column("sim s/wall s", 12, ".3f"),
    ]
)


def _comparison_table(stacks: Sequence[str]) -> Table:
    """ns-3's averages, then wavecc's in each stack with the differences."""
    columns = [Column("case", 18), Column("ns-3 Mb/s", 9, ".1f"), Column("RTT ms", 7, ".2f")]
    for stack in stacks:
        columns += [
            Column(f"{stack} Mb/s", 10, ".1f"),
            Column("diff", 8, "+.1%"),
            Column("RTT ms", 7, ".2f"),
            Column("diff", 7, "+.1%"),
            Column("within", 6),
        ]
    return Table(columns)


def handle_ns3(args: argparse.Namespace) -> int:
    names = case_names(args.cases)
    cases = validate.select(names)
    check_minimum("--jobs", args.jobs, 1)
    check_minimum("--seeds", args.seeds, 1)
    check_minimum("--ns3-seeds", args.ns3_seeds, 1)
    if args.ns3_seeds > 1 and not args.regenerate:
        raise ConfigError(
            "--ns3-seeds applies only with --regenerate (comparisons use every committed seed)"
        )
    if args.missing_only and not args.regenerate:
        raise ConfigError("--missing-only applies only with --regenerate")
    chosen = validate.stacks(case_names(args.stack))
    if args.duration is not None:
        if args.regenerate:
            raise ConfigError("--duration cannot be used with --regenerate")
        check_minimum("--duration", args.duration, 0, exclusive=True)
        cases = [case.shortened(args.duration) for case in cases]
    ns3_dir = args.ns3_dir if args.ns3_dir is not None else validate.find_ns3_dir()
    if args.regenerate:
        return _regenerate(cases, ns3_dir, args.jobs, args.ns3_seeds, args.missing_only)

    out = args.out if args.out is not None else Path("out") / "validate-ns3"
    outdir.check(out, validate.COMPARISON, force=args.force)  # before anything is said
    table = _comparison_table(chosen)
    print(table.header(), flush=True)

    def case_done(rows: list[validate.Row]) -> None:
        values = [rows[0].case, rows[0].goodput_ns3_mbps, rows[0].mean_rtt_ns3_ms]
        for r in rows:
            values += [
                r.goodput_wavecc_mbps,
                r.goodput_rel_diff,
                r.mean_rtt_wavecc_ms,
                r.mean_rtt_rel_diff,
                "yes" if r.within else "no",
            ]
        print(table.row([finite(v) for v in values]), flush=True)

    comparison = validate.compare(
        cases,
        ns3_dir,
        out,
        stacks=chosen,
        seeds=args.seeds,
        figures=not args.no_figures,
        on_case=case_done,
        force=args.force,
    )
    for stack in chosen:
        rows = [r for r in comparison.rows if r.stack == stack]
        within = sum(r.within for r in rows)
        line = f"{stack} stack: {within} of {len(rows)} compared cases within 10% on goodput and mean RTT"
        tested = [r for r in rows if r.off_beyond_noise is not None]
        if tested:
            noise = sum(not r.off_beyond_noise for r in tested)
            line += (
                f"; of the {len(tested)} others with seeds on both sides, {noise} differ by no more "
                f"than the spread over seeds explains (Welch p >= {validate.SIGNIFICANCE})"
            )
        print(line)
    if comparison.missing:
        missing = comparison.missing
        print(f"missing ns-3 references ({len(missing)}): {', '.join(missing)}")
    for stale in comparison.stale:
        print(f"stale ns-3 reference, not compared: {stale}")
    print(
        f"wrote {out}: comparison.csv, comparison.md"
        + ("" if args.no_figures else " and one figure per case")
    )
    return 0


def _regenerate(
    cases: Sequence[validate.Case], ns3_dir: Path, jobs: int, ns3_seeds: int, missing_only: bool
) -> int:
    runs = len(validate.ns3_runs(cases, ns3_dir, ns3_seeds, missing_only))
    print(
        f"building {ns3_dir / 'dumbbell.cc'} and running ns-3 {runs} time(s) ({len(cases)} case(s) x "
        f"{ns3_seeds} seed(s){', only those not yet run' if missing_only else ''}), {jobs} at a time",
        flush=True,
    )
    print(_REGENERATED_TABLE.header(), flush=True)

    def row(r: validate.Regenerated) -> None:
        values = [r.case, r.seed, r.goodput_mbps, r.mean_rtt_ms, r.wall_time_s, r.sim_per_wall]
        print(_REGENERATED_TABLE.row([finite(v) for v in values]), flush=True)

    validate.regenerate(
        cases, ns3_dir, jobs=jobs, ns3_seeds=ns3_seeds, missing_only=missing_only, on_done=row
    )
    print(f"wrote {ns3_dir / 'reference'}: {', '.join(case.name for case in cases)}")
    return 0


_MMWAVE_TABLE = Table(
    [
        Column("case", 22),
        Column("runs", 5),
        Column("goodput", 8, ".1f"),
        Column("wavecc", 8, ".1f"),
        Column("diff", 7, "+.1%"),
        Column("srtt ms", 7, ".2f"),
        Column("wavecc", 7, ".2f"),
        Column("diff", 7, "+.1%"),
        Column("SINR dB", 7, ".2f"),
        Column("wavecc", 7, ".2f"),
        Column("diff", 6, "+.2f"),
        Column("stalled", 7),
        Column("wavecc", 7),
    ]
)
# The quantities the terminal shows, in _MMWAVE_TABLE's order.
_MMWAVE_SHOWN = (
    "goodput",
    "mean RTT, srtt time-weighted",
    "DL SINR, time average of 100 ms TB means",
)
_MMWAVE_STALLS = validate_mmwave.STALLS


def _stall_count(values: tuple[float, ...]) -> str:
    """A side's runs stalled for good of those that could tell, as 'k/n' ('-' for none)."""
    stalled, known = validate_mmwave.stall_count(values)
    return f"{stalled}/{known}" if known else "-"


def handle_ns3mmwave(args: argparse.Namespace) -> int:
    if args.seeds is not None:
        check_minimum("--seeds", args.seeds, 1)
    check_minimum("--start-phases", args.start_phases, 1)
    if args.duration is not None:
        check_minimum("--duration", args.duration, 0, exclusive=True)
    stack = check_stack(args.stack) if args.stack is not None else validate_mmwave.DEFAULT_STACK
    reference_dir = args.reference_dir or validate_mmwave.find_reference_dir()
    if not reference_dir.is_dir():
        raise ConfigError(f"--reference-dir {reference_dir}: not a directory")
    cases = validate_mmwave.select(
        validate_mmwave.load_references(reference_dir), case_names(args.cases)
    )
    for case in cases:  # a bad override is refused before anything runs
        _core.validate(
            to_json(validate_mmwave.wavecc_config(case, stack, 1, args.duration, args.set))
        )
    out = args.out if args.out is not None else Path("out") / "validate-ns3-mmwave"
    outdir.check(out, validate_mmwave.COMPARISON, force=args.force)  # before anything is said
    print(
        f"wavecc in the {stack} stack against ns3-mmwave ({reference_dir}); goodput Mb/s, "
        "srtt time-weighted, DL SINR time average",
        flush=True,
    )
    print(_MMWAVE_TABLE.header(), flush=True)

    def case_done(case: validate_mmwave.Case, rows: list[validate_mmwave.Row]) -> None:
        by_name = {row.quantity: row for row in rows}
        goodput, stalls = by_name[_MMWAVE_SHOWN[0]], by_name[_MMWAVE_STALLS]
        values: list[object] = [case.name, f"{len(goodput.ns3mmwave)}/{len(goodput.wavecc)}"]
        for name in _MMWAVE_SHOWN:
            row = by_name[name]
            values += [row.ns3mmwave_mean, row.wavecc_mean, row.difference]
        values += [_stall_count(stalls.ns3mmwave), _stall_count(stalls.wavecc)]
        print(_MMWAVE_TABLE.row([finite(v) for v in values]), flush=True)

    comparison = validate_mmwave.compare(
        cases,
        out,
        stack=stack,
        seeds=args.seeds,
        duration_s=args.duration,
        figures=not args.no_figures,
        force=args.force,
        on_case=case_done,
        overrides=args.set,
        start_phases=args.start_phases,
    )
    for ranking in comparison.rankings:
        print(f"ranking {ranking.group}: {validate_rankings.swaps_text(ranking)}")
    for ranking in comparison.flowing_rankings:
        print(
            f"ranking {ranking.group}, runs that did not stall: "
            f"{validate_rankings.swaps_text(ranking)}"
        )
    print(validate_mmwave.stalls_paragraph(comparison.rows).strip() or "no run could tell a stall")
    print(
        f"wrote {out}: comparison.csv, comparison.md"
        + ("" if args.no_figures else " and one figure per case")
    )
    return 0
