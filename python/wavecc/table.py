"""Plain-text tables for the command line.

Column widths are fixed up front rather than fitted to the rows, so that a long
command (`wavecc bench`) can print each row as soon as it has it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Column:
    header: str
    width: int
    # A format spec for numbers, e.g. ".1f" or ",.0f"; text is left-aligned as is.
    spec: str = ""

    @property
    def size(self) -> int:
        return max(self.width, len(self.header))


class Table:
    def __init__(self, columns: Sequence[Column]):
        self.columns = tuple(columns)

    def header(self) -> str:
        return self._line(column.header for column in self.columns)

    def row(self, values: Sequence[Any]) -> str:
        return self._line(
            _cell(value, column.spec) for value, column in zip(values, self.columns, strict=True)
        )

    def _line(self, cells: Any) -> str:
        parts = []
        for text, column in zip(cells, self.columns, strict=True):
            align = "<" if column.spec == "" else ">"
            parts.append(f"{text:{align}{column.size}}")
        return "  ".join(parts).rstrip()


def _cell(value: Any, spec: str) -> str:
    """Missing numbers (None: the core's NaN, e.g. the RTT of a flow with no samples)
    print as '-'."""
    if value is None:
        return "-"
    return format(value, spec) if spec else str(value)
