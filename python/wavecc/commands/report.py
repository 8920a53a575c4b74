"""`wavecc report DIR`: one self-contained HTML page from a sweep's result store."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="write DIR/report.html from a sweep's result store",
        description="Reads the result store DIR written by 'wavecc sweep' and writes "
        "DIR/report.html: one self-contained page (figures embedded, tables, the configs "
        "used, versions) that opens in a browser without a server.",
    )
    report.add_argument("directory", type=Path, metavar="DIR", help="a sweep's result store")
    report.add_argument(
        "--out", type=Path, metavar="FILE", help="where to write (default: DIR/report.html)"
    )
    report.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from ..report import write_report

    path = write_report(args.directory, args.out)
    print(f"wrote {path}")
    return 0
