"""The `wavecc` command line: a dispatcher over one module per command
(`wavecc.commands.run`, `scenarios`, `bench`, `validate`, `sweep`, `reproduce`,
`report`, `kernel`, `emulate`, `trace`).

Every failure the user can cause (a bad scenario, a missing file, a bad override or
argument, an unwritable output directory) is reported as one line,
`wavecc: error: <message>`, on stderr with exit code 2, and nothing is written. A
Python algorithm that fails in a run (`wavecc.AlgorithmError`) prints its own
traceback first, then that line.

Ctrl-C (SIGINT) and SIGTERM stop any command within a second: the code in progress
unwinds (output directories are written whole or not at all, a sweep kills its workers
and keeps its complete runs), then one line, `wavecc: interrupted` or
`wavecc: terminated`, and exit code 130 or 143 (128 + the signal's number).
"""

from __future__ import annotations

import argparse
import signal
import sys
import traceback
from collections.abc import Sequence

import wavecc

from . import bench, emulate, validate
from ._core import AlgorithmError, ConfigError
from .commands import EXIT_ERROR, kernel, report, reproduce, run, scenarios, sweep, trace
from .commands import bench as bench_command
from .commands import emulate as emulate_command
from .commands import validate as validate_command
from .workers import RunFailed

# The commands in the order `wavecc --help` lists them.
COMMANDS = (
    run,
    scenarios,
    bench_command,
    validate_command,
    sweep,
    reproduce,
    report,
    kernel,
    emulate_command,
    trace,
)


EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt for SIGINT, so that the
    same cleanup runs (finally blocks, context managers). A BaseException, so that code
    which handles failed runs (`except Exception`) does not swallow it."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


class _Parser(argparse.ArgumentParser):
    """Usage errors are reported like any other error: one line, no usage dump."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_ERROR, _error_line(message))


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return _dispatch(argv)
    except KeyboardInterrupt:
        sys.stderr.write("wavecc: interrupted\n")
        return EXIT_INTERRUPTED
    except Terminated:
        sys.stderr.write("wavecc: terminated\n")
        return EXIT_TERMINATED


def _dispatch(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # What follows `--` is a command to run (`wavecc emulate ... -- COMMAND ...`), which
    # argparse cannot take after an optional positional argument.
    tail = argv[argv.index("--") + 1 :] if "--" in argv else None
    args = _parser().parse_args(argv if tail is None else argv[: argv.index("--")])
    if tail is not None:
        if "run_command" not in args:
            sys.stderr.write(_error_line(f"{args.command} takes no '-- COMMAND'"))
            return EXIT_ERROR
        args.run_command = tail
    try:
        return args.handler(args)
    except AlgorithmError as e:
        # The traceback of the algorithm's own code, then the one error line.
        if e.__cause__ is not None:
            sys.stderr.write("".join(traceback.format_exception(e.__cause__)))
        sys.stderr.write(_error_line(str(e)))
        return EXIT_ERROR
    except (
        ConfigError,
        OSError,
        RunFailed,
        bench.CaseFailed,
        validate.Ns3Missing,
        validate.Ns3Failed,
        emulate.EmulationFailed,
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
