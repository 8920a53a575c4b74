"""One module per `wavecc` command. Each defines `add_parser(commands)`, which adds its
subcommand to the top-level parser and sets the `handler` that `wavecc.cli.main` calls
with the parsed arguments; a handler returns the exit code.

This module holds what several commands share."""

from __future__ import annotations

import math
from collections.abc import Sequence

EXIT_ERROR = 2


def case_names(text: str | None) -> list[str] | None:
    """`--cases a,b` as a list of names; None (every case) when the option is absent."""
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


def stack_help() -> str:
    """The help of `--stack NAME` on the commands that run scenarios."""
    from ..config import stacks

    return (f"the TCP stack to behave like: {', '.join(stacks())} (default: the scenario's "
            "tcp.stack, else linux); keys the scenario or --set give still win")  # fmt: skip


def finite(value: object) -> object:
    """NaN (a missing number) as None, which the tables print as '-'."""
    return None if isinstance(value, float) and math.isnan(value) else value


def print_pairs(pairs: Sequence[tuple[str, str]]) -> None:
    """Prints (name, description) pairs as two aligned columns."""
    width = max((len(name) for name, _ in pairs), default=0)
    for name, description in pairs:
        print(f"{name:<{width}}  {description}")
