"""`wavecc kernel`: build, load, unload and list the papers' algorithms as Linux eBPF
congestion control (see docs/kernel.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .. import kernel
from . import EXIT_ERROR


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
        print(f"use it per socket: setsockopt TCP_CONGESTION {loaded.name} (iperf3 -C {loaded.name})")

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
