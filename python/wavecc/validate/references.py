"""The committed ns-3 references: where each case's runs are kept, and loading them
(refusing one made with other settings than its case has now)."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cases import SEED, Case

REFERENCE_FILES = ("timeseries.csv", "summary.json", "command.txt")


def reference_dir(case: Case, ns3_dir: Path) -> Path:
    """Where the ns-3 run of a case (with its seed) is kept: `reference/<case>/` for
    the case's own seed, `extra-seeds/<case>/<seed>/` for the others."""
    if case.seed == SEED:
        return ns3_dir / "reference" / case.name
    return ns3_dir / "extra-seeds" / case.name / str(case.seed)


@dataclass(frozen=True)
class Reference:
    summary: dict[str, Any]
    timeseries: list[dict[str, float]]


class StaleReference(ValueError):
    """A reference made with other settings than its case has now."""


def load_references(case: Case, ns3_dir: Path) -> list[Reference]:
    """The committed ns-3 outputs of a case: its own seed's first (none: an empty
    list), then every further seed under `extra-seeds/<case>/`. Raises StaleReference
    when one's settings are not the case's."""
    first = load_reference(case, ns3_dir)
    if first is None:
        return []
    extra = ns3_dir / "extra-seeds" / case.name
    seeds = (
        sorted(int(d.name) for d in extra.iterdir() if d.name.isdigit()) if extra.is_dir() else []
    )
    more = [load_reference(dataclasses.replace(case, seed=seed), ns3_dir) for seed in seeds]
    return [first, *(r for r in more if r is not None)]


def has_current_reference(case: Case, ns3_dir: Path) -> bool:
    """Whether the case, with its seed, has a committed reference made with its
    current settings (regenerating with --missing-only skips those)."""
    try:
        return load_reference(case, ns3_dir) is not None
    except StaleReference:
        return False


def load_reference(case: Case, ns3_dir: Path) -> Reference | None:
    """The committed ns-3 output of a case with its seed; None if there is none.
    Raises StaleReference when its settings are not the case's."""
    directory = reference_dir(case, ns3_dir)
    if not (directory / "summary.json").is_file():
        return None
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    differ = [
        f"{key} {summary.get(key)!r} instead of {value!r}"
        for key, value in case.settings().items()
        if not _same(summary.get(key), value)
    ]
    if differ:
        raise StaleReference(
            f"{case.name} (seed {case.seed}): the reference was made with {', '.join(differ)}"
        )
    with open(directory / "timeseries.csv", newline="", encoding="utf-8") as f:
        rows = [{k: _float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return Reference(summary, rows)


def _same(a: Any, b: Any) -> bool:
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        return isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)
    return a == b


def _float(text: str | None) -> float:
    return float(text) if text not in (None, "") else math.nan
