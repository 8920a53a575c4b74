"""The committed `--quick` reproductions (`reproductions/quick/` in the repository):
each experiment's tables and manifest (`ID/tables/NAME.csv`, `ID/reproduction.json`; no
runs, no figures) and `findings.json`, the papers' findings over them.

    python -m wavecc.reproduce.quick write reproductions/quick --jobs 2 [ID ...]
    python -m wavecc.reproduce.quick check reproductions/quick --jobs 2 [ID ...]

`write` regenerates them from the installed model. `check` regenerates them into a
temporary directory and names every file, table row and finding that differs from the
committed ones (exit 1), so that outputs older than the model are caught. The model
writes the same bytes every time; each experiment's wall time is printed, never stored.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from . import EXPERIMENTS, findings
from . import run as run_reproduction

MANIFEST = "reproduction.json"
FINDINGS = "findings.json"
# The columns that name a table row in messages.
ROW_KEYS = ["stack", "scenario", "setting", "per_byte", "cca", "metric"]
# Differing rows listed per table; the rest are counted.
SHOWN_ROWS = 10


def _say(line: str) -> None:
    print(line, flush=True)


def generate(
    root: Path, ids: Sequence[str], jobs: int | None, log: Callable[[str], None] = _say
) -> dict[str, float]:
    """Runs the `--quick` reproduction of each experiment of `ids` (without figures) in
    a scratch directory, puts its tables and manifest in `root/ID/` in place of the
    previous ones, then writes `root/findings.json`. Returns the wall times."""
    walls = {}
    for experiment in ids:
        with tempfile.TemporaryDirectory(prefix="wavecc-quick-") as scratch:
            out = Path(scratch) / experiment
            done = run_reproduction(experiment, out, quick=True, jobs=jobs, figures=False)
            _replace_outputs(out, root / experiment)
        walls[experiment] = done.wall_time_s
        log(f"{experiment}: {len(done.summary)} runs, wall time {done.wall_time_s:.1f} s")
    write_findings(root)
    return walls


def _replace_outputs(scratch: Path, target: Path) -> None:
    """Replaces the tables and manifest in `target` (and nothing else) with `scratch`'s."""
    (target / "tables").mkdir(parents=True, exist_ok=True)
    for old in (target / "tables").glob("*.csv"):
        old.unlink()
    for table in (scratch / "tables").glob("*.csv"):
        shutil.copyfile(table, target / "tables" / table.name)
    shutil.copyfile(scratch / MANIFEST, target / MANIFEST)


def write_findings(root: Path) -> None:
    """`root/findings.json`: per stack, the verdict and evidence of every finding whose
    experiments are all in `root`."""
    (root / FINDINGS).write_text(
        json.dumps(verdicts_by_stack(root), indent=2) + "\n", encoding="utf-8"
    )


def verdicts_by_stack(root: Path) -> dict[str, dict[str, dict]]:
    """{stack: {finding: {"holds", "evidence"}}} of the findings checked over `root`."""
    checked: dict[str, dict[str, dict]] = {}
    for v in findings.evaluate(root):
        if v.holds is not None:
            checked.setdefault(str(v.stack), {})[v.finding.id] = {
                "holds": v.holds,
                "evidence": v.evidence,
            }
    return checked


def differences(fresh: Path, committed: Path) -> list[str]:
    """What differs between a fresh `generate` in `fresh` and `committed`, one line per
    file, table row or finding, for the experiments and findings `fresh` has."""
    lines = []
    for experiment in sorted(p.name for p in fresh.iterdir() if p.is_dir()):
        names = _outputs(fresh / experiment) | _outputs(committed / experiment)
        for name in sorted(names):
            new, old = fresh / experiment / name, committed / experiment / name
            where = f"{experiment}/{name}"
            if not old.is_file() or not new.is_file():
                only = "fresh" if new.is_file() else "committed"
                lines.append(f"{where}: only in the {only} outputs")
            elif name.endswith(".csv"):
                rows = table_differences(pd.read_csv(new), pd.read_csv(old))
                lines += [f"{where}: {line}" for line in rows]
            else:
                lines += [f"{where}: {line}" for line in manifest_differences(new, old)]
    return lines + _finding_differences(fresh / FINDINGS, committed / FINDINGS)


def _outputs(directory: Path) -> set[str]:
    if not directory.is_dir():
        return set()
    return {MANIFEST} | {f"tables/{p.name}" for p in (directory / "tables").glob("*.csv")}


def table_differences(fresh: pd.DataFrame, committed: pd.DataFrame) -> list[str]:
    """A count of the rows of a long-form table whose keys or numbers differ, then the
    first `SHOWN_ROWS` of them, each named by its keys."""
    if list(fresh.columns) != list(committed.columns) or len(fresh) != len(committed):
        return [
            f"committed {len(committed)} rows of {list(committed.columns)}, "
            f"fresh {len(fresh)} rows of {list(fresh.columns)}"
        ]
    rows = []
    for (_, new), (_, old) in zip(fresh.iterrows(), committed.iterrows(), strict=True):
        changed = [c for c in fresh.columns if not _same(new[c], old[c])]
        if changed:
            name = ", ".join(f"{k}={_show(old[k])}" for k in ROW_KEYS if _show(old.get(k)))
            values = "; ".join(
                f"{c} committed {_show(old[c])}, fresh {_show(new[c])}" for c in changed
            )
            rows.append(f"row {name}: {values}")
    if not rows:
        return []
    more = [f"and {len(rows) - SHOWN_ROWS} more rows"] if len(rows) > SHOWN_ROWS else []
    return [f"{len(rows)} of {len(fresh)} rows differ", *rows[:SHOWN_ROWS], *more]


def manifest_differences(fresh: Path, committed: Path) -> list[str]:
    """Each key of two reproduction.json files whose values differ."""
    new = json.loads(fresh.read_text(encoding="utf-8"))
    old = json.loads(committed.read_text(encoding="utf-8"))
    return [
        f"{key}: committed {old.get(key, '(none)')}, fresh {new.get(key, '(none)')}"
        for key in sorted(new.keys() | old.keys())
        if new.get(key) != old.get(key)
    ]


def _finding_differences(fresh: Path, committed: Path) -> list[str]:
    new = json.loads(fresh.read_text(encoding="utf-8")) if fresh.is_file() else {}
    old = json.loads(committed.read_text(encoding="utf-8")) if committed.is_file() else {}
    return [
        f"{FINDINGS}: {stack}: {finding}: committed {old.get(stack, {}).get(finding)}, fresh {verdict}"
        for stack, verdicts in new.items()
        for finding, verdict in verdicts.items()
        if old.get(stack, {}).get(finding) != verdict
    ]


def _same(a: object, b: object) -> bool:
    """Equal cells; numbers may differ in their last bits (summation order)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)
    return a == b


def _show(value: object) -> str:
    """A cell for a message; empty when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.10g}" if isinstance(value, float) else f"{value}"


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m wavecc.reproduce.quick", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("action", choices=["write", "check"])
    parser.add_argument("root", type=Path, help="the committed outputs, e.g. reproductions/quick")
    parser.add_argument("ids", nargs="*", metavar="ID", help="experiments (default: all twelve)")
    parser.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
    args = parser.parse_intermixed_args(argv)
    ids = args.ids or list(EXPERIMENTS)
    unknown = [i for i in ids if i not in EXPERIMENTS]
    if unknown:
        parser.error(f"no reproduction '{unknown[0]}'; available: {', '.join(EXPERIMENTS)}")
    if args.action == "write":
        walls = generate(args.root, ids, args.jobs)
        print(f"wrote {args.root}: {len(ids)} experiment(s), wall time {sum(walls.values()):.1f} s")
        return 0
    with tempfile.TemporaryDirectory(prefix="wavecc-quick-") as fresh:
        walls = generate(Path(fresh), ids, args.jobs)
        lines = differences(Path(fresh), args.root)
    matches = f"{args.root} matches the model ({len(ids)} experiment(s))"
    print("\n".join(lines) if lines else matches)
    print(f"wall time {sum(walls.values()):.1f} s")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
