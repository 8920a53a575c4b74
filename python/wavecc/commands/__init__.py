"""One module per `wavecc` command. Each defines `add_parser(commands)`, which adds its
subcommand to the top-level parser and sets the `handler` that `wavecc.cli.main` calls
with the parsed arguments; a handler returns the exit code.

This module holds what several commands share."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from .._core import ConfigError
from ..table import Column, Table

EXIT_ERROR = 2


def case_names(text: str | None) -> list[str] | None:
    """`--cases a,b` as a list of names; None (every case) when the option is absent."""
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


def stack_help() -> str:
    """The help of `--stack NAME` on the commands that run scenarios."""
    from ..config import stacks

    return (
        f"the TCP stack to behave like: {', '.join(stacks())} (default: the scenario's "
        "tcp.stack, else linux); keys the scenario or --set give still win"
    )


def finite(value: object) -> object:
    """NaN (a missing number) as None, which the tables print as '-'."""
    return None if isinstance(value, float) and math.isnan(value) else value


def print_pairs(pairs: Sequence[tuple[str, str]]) -> None:
    """Prints (name, description) pairs as two aligned columns."""
    width = max((len(name) for name, _ in pairs), default=0)
    for name, description in pairs:
        print(f"{name:<{width}}  {description}")


def default_out(name: str) -> Path:
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


def print_flows(flows: Sequence[dict]) -> None:
    """A run's flows as `wavecc run` and `wavecc emulate` print them: one row each."""
    print(_FLOW_TABLE.header())
    for flow in flows:
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
