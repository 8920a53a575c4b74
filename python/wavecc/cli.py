"""The `wavecc` command line: a dispatcher over one module per command
(`wavecc.commands.run`, `scenarios`, `bench`, `validate`, `sweep`, `reproduce`,
`report`).

Every failure the user can cause (a bad scenario, a missing file, a bad override or
argument, an unwritable output directory) is reported as one line,
`wavecc: error: <message>`, on stderr with exit code 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import wavecc

from . import bench, validate
from ._core import ConfigError
from .commands import EXIT_ERROR
from .commands import bench as bench_command
from .commands import kernel, report, reproduce, run, scenarios, sweep
from .commands import validate as validate_command

# The commands in the order `wavecc --help` lists them.
COMMANDS = (run, scenarios, bench_command, validate_command, sweep, reproduce, report, kernel)


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
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def _describe(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    return str(error)


def _error_line(message: str) -> str:
    """Collapses a message onto one line: callers rely on exactly one line of error."""
    return f"wavecc: error: {' '.join(message.split())}\n"
