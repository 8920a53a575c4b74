"""`wavecc scenarios`: list or show the built-in scenarios, or print the config's JSON Schema."""

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
    schema = actions.add_parser(
        "schema",
        help="print the JSON Schema of a scenario config (for editors; docs/config.md is made from it)",
    )
    schema.set_defaults(handler=handle_schema)


def handle_list(args: argparse.Namespace) -> int:
    print_pairs(_core.builtin_scenarios())
    return 0


def handle_show(args: argparse.Namespace) -> int:
    print(_core.builtin_scenario(args.id), end="")
    return 0


def handle_schema(args: argparse.Namespace) -> int:
    print(_core.config_schema())
    return 0
