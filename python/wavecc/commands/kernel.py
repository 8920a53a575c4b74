"""`wavecc kernel`: build, load, unload and list the papers' algorithms as Linux eBPF
congestion control (see docs/kernel.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .. import kernel, kernel_twins
from .._core import ConfigError
from ..config import check_minimum
from . import EXIT_ERROR, case_names


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "kernel", help="build and load the papers' algorithms as Linux eBPF congestion control"
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = actions.add_parser("build", help="compile the five BPF programs for this kernel")
    _out_option(build)
    build.set_defaults(handler=handle_build)
    load = actions.add_parser("load", help="build and register one algorithm (root)")
    load.add_argument("name", metavar="NAME", help=f"one of {', '.join(kernel.ALGORITHMS)}")
    _out_option(load)
    load.set_defaults(handler=handle_load)
    unload = actions.add_parser("unload", help="unregister one algorithm (root)")
    unload.add_argument("name", metavar="NAME")
    unload.set_defaults(handler=handle_unload)
    listing = actions.add_parser("list", help="the wavecc algorithms registered now (root)")
    listing.set_defaults(handler=handle_list)
    twins = actions.add_parser(
        "twins",
        help="goodput of each algorithm in floating point against its fixed-point twin "
        "(the kernel program's arithmetic)",
    )
    twins.add_argument(
        "--duration",
        type=float,
        default=60.0,
        metavar="S",
        help="simulated seconds per run (default 60)",
    )
    twins.add_argument(
        "--seeds", default="1,2,3", metavar="A,B,...", help="random seeds (default 1,2,3)"
    )
    twins.add_argument(
        "--scenarios",
        default=None,
        metavar="A,B,...",
        help=f"scenarios (default {','.join(kernel_twins.SCENARIOS)})",
    )
    twins.add_argument(
        "--cca",
        default=None,
        metavar="A,B,...",
        help=f"algorithms (default {','.join(kernel_twins.ALGORITHMS)})",
    )
    twins.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value in every run (repeatable), e.g. path.loss.per_byte=1e-7",
    )
    twins.add_argument(
        "--float-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value in the floating-point runs only "
        "(repeatable), e.g. flows.0.cc.n_update=eq12-printed",
    )
    twins.set_defaults(handler=handle_twins)


def _out_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"build directory (default {kernel.default_build_dir()})",
    )


def handle_build(args: argparse.Namespace) -> int:
    return _reporting(lambda: _print_objects(kernel.build(args.out or kernel.default_build_dir())))


def handle_load(args: argparse.Namespace) -> int:
    def load() -> None:
        loaded = kernel.load(args.name, args.out or kernel.default_build_dir())
        print(f"loaded {_summary(loaded)}")
        print(
            f"use it per socket: setsockopt TCP_CONGESTION {loaded.name} (iperf3 -C {loaded.name})"
        )

    return _reporting(load)


def handle_unload(args: argparse.Namespace) -> int:
    def unload() -> None:
        kernel.unload(args.name)
        print(f"unloaded {kernel.canonical_name(args.name)}")

    return _reporting(unload)


def handle_list(args: argparse.Namespace) -> int:
    def listing() -> None:
        loaded = {entry.name: entry for entry in kernel.loaded()}
        for name in kernel.ALGORITHMS:
            print(_summary(loaded[name]) if name in loaded else f"{name}  not loaded")

    return _reporting(listing)


def handle_twins(args: argparse.Namespace) -> int:
    problem, seeds = _twins_problem(args)
    if problem:
        sys.stderr.write(f"wavecc: error: {problem}\n")
        return EXIT_ERROR
    scenarios = case_names(args.scenarios) or list(kernel_twins.SCENARIOS)
    algorithms = case_names(args.cca) or list(kernel_twins.ALGORITHMS)

    def progress(done: int, total: int, what: str) -> None:
        sys.stderr.write(f"[{done + 1}/{total}] {what}\n")

    try:
        results = kernel_twins.compare(
            args.duration, seeds, scenarios, algorithms, args.set, args.float_set, progress
        )
    except ConfigError as e:
        sys.stderr.write(f"wavecc: error: {e}\n")
        return EXIT_ERROR
    print(kernel_twins.markdown(results))
    outside = [f"{c.cca} on {c.scenario}" for c in results if not c.agrees]
    limit = f"{kernel_twins.TOLERANCE_PCT:g} %"
    print(
        f"\nwithin {limit}: {len(results) - len(outside)} of {len(results)}"
        + (f"; outside: {', '.join(outside)}" if outside else "")
    )
    return 0


def _twins_problem(args: argparse.Namespace) -> tuple[str | None, list[int]]:
    """What is wrong with `kernel twins`' options (None if nothing), and the seeds."""
    try:
        check_minimum("--duration", args.duration, 0, exclusive=True)
    except ConfigError as e:
        return str(e), []
    try:
        seeds = [int(s) for s in case_names(args.seeds) or []]
    except ValueError:
        return f"--seeds {args.seeds}: must be integers separated by commas, e.g. 1,2,3", []
    if not seeds:
        return "--seeds: give at least one seed, e.g. 1,2,3", []
    unknown = [c for c in case_names(args.cca) or [] if c not in kernel_twins.ALGORITHMS]
    if unknown:
        return f"--cca {unknown[0]}: valid: {', '.join(kernel_twins.ALGORITHMS)}", []
    return None, seeds


def _summary(loaded: kernel.Loaded) -> str:
    return (
        f"{loaded.name}  struct_ops id {loaded.map_id}, {loaded.programs} programs, "
        f"{loaded.verified_insns} instructions verified, {loaded.xlated_insns} loaded"
    )


def _print_objects(objects: list[Path]) -> None:
    for obj in objects:
        print(obj)


def _reporting(action: Callable[[], None]) -> int:
    """Runs `action`; a KernelError is one error line, then its log (if any)."""
    try:
        action()
    except kernel.KernelError as e:
        sys.stderr.write(f"wavecc: error: {' '.join(str(e).split())}\n")
        if e.detail:
            sys.stderr.write(e.detail.rstrip() + "\n")
        return EXIT_ERROR
    return 0
