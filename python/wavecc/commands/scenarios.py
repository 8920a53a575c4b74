"""`wavecc scenarios`: list or show the built-in scenarios."""

from __future__ import annotations

import argparse

from .. import _core
from . import print_pairs


def add_parser(commands: argparse._SubParsersAction) -> None:
    scenarios = commands.add_parser("scenarios", help="list or show the built-in scenarios")
    actions = scenarios.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the built-in scenarios")
    listing.set_defaults(handler=handle_list)
    show = actions.add_parser("show", help="print a built-in scenario's TOML")
    show.add_argument("id", metavar="ID")
    show.set_defaults(handler=handle_show)


def handle_list(args: argparse.Namespace) -> int:
    print_pairs(_core.builtin_scenarios())
    return 0


def handle_show(args: argparse.Namespace) -> int:
    print(_core.builtin_scenario(args.id), end="")
    return 0
