"""`wavecc scenarios`: list, show, draw or generate scenarios, or print the config's JSON
Schema."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from .. import _core, city
from .._core import ConfigError
from ..atomic import atomic_file
from ..config import builtin_text
from . import print_pairs

MAP_FORMATS = (".png", ".svg")


def add_parser(commands: argparse._SubParsersAction) -> None:
    scenarios = commands.add_parser("scenarios", help="list or show the built-in scenarios")
    actions = scenarios.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the built-in scenarios")
    listing.set_defaults(handler=handle_list)
    show = actions.add_parser(
        "show", help="print a built-in scenario's TOML (city-<N>ue too), or draw its map"
    )
    show.add_argument("id", metavar="ID")
    show.add_argument(
        "--map",
        action="store_true",
        help="draw the plan view (obstacles, gNBs, UE paths) instead of printing the TOML",
    )
    show.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="where --map writes, .png or .svg, a new file (default: ID-map.png)",
    )
    show.set_defaults(handler=handle_show)
    generate = actions.add_parser(
        "generate", help="write the TOML of a generated scenario family (city)"
    )
    generate.add_argument("family", choices=("city",), help="the family: city")
    generate.add_argument(
        "--ues", type=int, required=True, metavar="N", help=f"UEs, 1 to {city.MAX_UES}"
    )
    generate.add_argument(
        "--duration", type=float, default=60.0, metavar="S", help="run length (default: 60 s)"
    )
    generate.add_argument(
        "--out", type=Path, metavar="FILE", help="a new file to write (default: standard output)"
    )
    generate.set_defaults(handler=handle_generate)
    schema = actions.add_parser(
        "schema",
        help="print the JSON Schema of a scenario config (for editors; docs/config.md is made from it)",
    )
    schema.set_defaults(handler=handle_schema)


def handle_list(args: argparse.Namespace) -> int:
    print_pairs(_core.builtin_scenarios())
    return 0


def handle_show(args: argparse.Namespace) -> int:
    text = builtin_text(args.id)
    if not args.map:
        if args.out is not None:
            raise ConfigError("--out is for --map; the TOML goes to standard output")
        print(text, end="")
        return 0
    out = args.out if args.out is not None else Path(f"{args.id}-map.png")
    if out.suffix.lower() not in MAP_FORMATS:
        raise ConfigError(f"--out {out}: must end in {' or '.join(MAP_FORMATS)}")
    _check_new(out)
    from .. import figures  # matplotlib only when drawing

    fig = figures.scenario_map(tomllib.loads(text))
    with atomic_file(out) as tmp:
        fig.savefig(tmp, format=out.suffix.lower()[1:])
    print(out)
    return 0


def handle_generate(args: argparse.Namespace) -> int:
    if not 1 <= args.ues <= city.MAX_UES:
        raise ConfigError(f"--ues must be 1 to {city.MAX_UES}, not {args.ues}")
    if not 0 < args.duration <= 1e6:
        raise ConfigError(f"--duration must be > 0 and at most 1e6 s, not {args.duration:g}")
    text = city.generate(args.ues, args.duration)
    if args.out is None:
        print(text, end="")
        return 0
    _check_new(args.out)
    with atomic_file(args.out) as tmp:
        tmp.write_text(text)
    print(args.out)
    return 0


def _check_new(out: Path) -> None:
    """wavecc never overwrites a file it did not write: these outputs go to new files."""
    if out.exists() or out.is_symlink():
        raise FileExistsError(f"{out} exists; not replaced, choose a new file name")


def handle_schema(args: argparse.Namespace) -> int:
    print(_core.config_schema())
    return 0
