"""Markdown renderings of reproduction tables, for docs/reproduction.md:

    python -m wavecc.reproduce.markdown ROOT [ID ...]

prints, per experiment under ROOT (ROOT/<ID>/tables/*.csv), each table as a
Markdown table: the cell's keys, published, ours (with its 95% interval when there
are repetitions) and the difference (percent, or percentage points for cells that
are themselves percentages).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

KEYS = ["scenario", "setting", "per_byte", "cca", "metric"]


def table_markdown(frame: pd.DataFrame) -> str:
    """One long-form table as Markdown; key columns that never vary are left out."""
    keys = [
        k for k in KEYS if k in frame.columns and frame[k].nunique(dropna=False) > 1
    ]
    head = [*keys, "unit", "published", "ours", "difference"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for _, row in frame.iterrows():
        cells = [_value(row[k]) for k in keys]
        cells += [
            _value(row["unit"]),
            _value(row["published"]),
            _ours(row),
            _percent(row["difference_pct"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def experiment_markdown(directory: Path) -> str:
    parts = []
    for path in sorted((directory / "tables").glob("*.csv")):
        parts.append(f"**{path.stem}**\n\n" + table_markdown(pd.read_csv(path)))
    return "\n\n".join(parts)


def _value(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return (
            f"{value:g}" if abs(value) < 1e-3 or abs(value) >= 1e5 else f"{value:.4g}"
        )
    return str(value)


def _ours(row: pd.Series) -> str:
    ours = _value(row["ours"])
    ci = row.get("ours_ci")
    if ours != "-" and isinstance(ci, float) and not math.isnan(ci):
        return f"{ours} ± {ci:.2g}"
    return ours


def _percent(value: object) -> str:
    return (
        "-" if not isinstance(value, float) or math.isnan(value) else f"{value:+.0f}%"
    )


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    ids = argv[1:] or sorted(p.name for p in root.iterdir() if (p / "tables").is_dir())
    for experiment in ids:
        print(f"### {experiment}\n\n{experiment_markdown(root / experiment)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
