"""Markdown renderings of reproduction tables, for docs/reproduction.md:

    python -m wavecc.reproduce.markdown ROOT [ID ...]

prints, per experiment under ROOT (ROOT/<ID>/tables/*.csv), each table as a
Markdown table: the cell's keys, published, ours (with its 95% interval when there
are repetitions) and the difference (percent, or percentage points for cells that
are themselves percentages), then, per TCP stack, the share of cells with a published
number that are within 10% and within 25% of it.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

KEYS = ["stack", "scenario", "setting", "per_byte", "cca", "metric"]


def table_markdown(frame: pd.DataFrame) -> str:
    """One long-form table as Markdown; key columns that never vary are left out."""
    keys = [k for k in KEYS if k in frame.columns and frame[k].nunique(dropna=False) > 1]
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


def agreement(frame: pd.DataFrame) -> dict[str, tuple[int, int, int]]:
    """Per stack: (cells with a published number and ours, within 10%, within 25%)."""
    compared = frame.dropna(subset=["difference_pct"])
    stacks = (
        compared.groupby("stack", sort=False) if "stack" in frame.columns else [("-", compared)]
    )
    return {
        str(stack): (
            len(g),
            int((g["difference_pct"].abs() <= 10).sum()),
            int((g["difference_pct"].abs() <= 25).sum()),
        )
        for stack, g in stacks
    }


def agreement_line(frame: pd.DataFrame) -> str:
    shares = [
        f"{stack} {w10}/{n} within 10%, {w25}/{n} within 25%"
        for stack, (n, w10, w25) in agreement(frame).items()
        if n
    ]
    return "Cells with a published number: " + "; ".join(shares) + "." if shares else ""


def experiment_markdown(directory: Path) -> str:
    parts = []
    for path in sorted((directory / "tables").glob("*.csv")):
        frame = pd.read_csv(path)
        parts.append(
            f"**{path.stem}**\n\n{table_markdown(frame)}\n\n{agreement_line(frame)}".rstrip()
        )
    return "\n\n".join(parts)


def _value(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1e-3 or abs(value) >= 1e5 else f"{value:.4g}"
    return str(value)


def _ours(row: pd.Series) -> str:
    ours = _value(row["ours"])
    ci = row.get("ours_ci")
    if ours != "-" and isinstance(ci, float) and not math.isnan(ci):
        return f"{ours} ± {ci:.2g}"
    return ours


def _percent(value: object) -> str:
    return "-" if not isinstance(value, float) or math.isnan(value) else f"{value:+.0f}%"


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    ids = argv[1:] or sorted(p.name for p in root.iterdir() if (p / "tables").is_dir())
    for experiment in ids:
        print(f"### {experiment}\n\n{experiment_markdown(root / experiment)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
