"""The papers' qualitative findings, checked against reproduction tables.

Each experiment declares its paper's findings beside it (`Experiment.findings`); a
finding reads the long-form tables one or more experiments wrote
(`DIR/<experiment>/tables/*.csv`) and says whether it holds, with the numbers that
decide it. `wavecc reproduce` checks the findings of the experiment it ran;
`evaluate(root)` checks all of them over a directory of reproductions. Tables with
a `stack` column are checked once per stack they all hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import EXPERIMENTS
from .core import Finding, Tables

# Every experiment's findings, in the order of the experiments.
FINDINGS = [f for experiment in EXPERIMENTS.values() for f in experiment.findings]


@dataclass(frozen=True)
class Verdict:
    finding: Finding
    holds: bool | None  # None: the experiment's tables are not there
    evidence: str
    stack: str | None = None  # the TCP stack of the tables checked (None: tables without one)


def read_tables(where: Mapping[str, Path], experiments: tuple[str, ...]) -> Tables | None:
    """The tables of `experiments` (`where[id]/tables/*.csv`), or None if any
    experiment has not been run."""
    tables = {}
    for experiment in experiments:
        directory = where[experiment] / "tables"
        if not directory.is_dir():
            return None
        tables[experiment] = {p.stem: pd.read_csv(p) for p in sorted(directory.glob("*.csv"))}
    return tables


def evaluate(
    root: str | Path, only: str | None = None, located: Mapping[str, Path] | None = None
) -> list[Verdict]:
    """Every finding (or those of experiment `only`) checked over the reproductions in
    `root` (one directory per experiment id; `located` maps ids to other places); a
    finding whose experiments are not there gets `holds = None`."""
    root = Path(root)
    where = {e: Path((located or {}).get(e, root / e)) for f in FINDINGS for e in f.experiments}
    verdicts = []
    for finding in FINDINGS:
        if only is not None and only not in finding.experiments:
            continue
        tables = read_tables(where, finding.experiments)
        if tables is None:
            missing = [e for e in finding.experiments if not (where[e] / "tables").is_dir()]
            verdicts.append(Verdict(finding, None, f"not run here: {', '.join(missing)}"))
            continue
        for stack in table_stacks(tables):
            holds, evidence = finding.check(in_stack(tables, stack))
            verdicts.append(Verdict(finding, bool(holds), evidence, stack))
    return verdicts


def table_stacks(tables: Tables) -> list[str | None]:
    """The stacks every table has rows of, in the order the first table lists them;
    [None] when the tables name no stack (reproductions older than stacks)."""
    frames = [t for by_name in tables.values() for t in by_name.values()]
    if not frames or any("stack" not in t.columns for t in frames):
        return [None]
    common = set.intersection(*(set(t["stack"].dropna()) for t in frames))
    return [s for s in dict.fromkeys(frames[0]["stack"]) if s in common]


def in_stack(tables: Tables, stack: str | None) -> Tables:
    """The tables' rows of `stack` (all rows for None)."""
    if stack is None:
        return tables
    return {
        e: {name: t[t["stack"] == stack] for name, t in by_name.items()}
        for e, by_name in tables.items()
    }


def describe(verdicts: list[Verdict]) -> str:
    word = {True: "holds", False: "DOES NOT HOLD", None: "not checked"}
    return "\n".join(
        f"[{word[v.holds]}]{f' ({v.stack})' if v.stack else ''} {v.finding.text}: {v.evidence}"
        for v in verdicts
    )
