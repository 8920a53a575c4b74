"""Reproductions of the source papers' experiments: `wavecc reproduce ID [--quick] --out DIR`.

Each experiment runs its grid through the sweep machinery (resumable, local pool or
Dask), writes its tables in the paper's layout as `DIR/tables/NAME.csv` (long form, one
row per cell, the published value next to ours and the difference) and draws the
paper's figures into `DIR/figures/`. `--quick` uses one seed and shorter runs, for a
smoke test; the full run uses the papers' durations and 3 repetitions. Every case runs
in the TCP stack nearest to the paper's simulator and in Linux's (`stack` column of the
tables; figures of the first stack in `DIR/figures/`, of the others in
`DIR/figures/<stack>/`), or in the one stack asked for.

One module per source paper (`fbtcp`, `urban`, `thesis`, `mateo`, `dtcp`) declares
each of its experiments in one place: an `Experiment` with its cases, tables,
figures and findings, listed in the module's `EXPERIMENTS`; `SUBJECTS` below is the
registry of those modules.

    wavecc.reproduce.run("fbtcp", "out/fbtcp", quick=True)
    wavecc.reproduce.EXPERIMENTS["urban"].title
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .. import __version__, outdir
from ..atomic import atomic_file
from ..config import ConfigError, check_stack
from . import dtcp, fbtcp, mateo, thesis, urban
from .core import Experiment, Runs, run_experiment, stack_tables, write_tables

# The source papers' modules, in the order `wavecc reproduce --list` shows them.
SUBJECTS = (fbtcp, urban, thesis, mateo, dtcp)
EXPERIMENTS: dict[str, Experiment] = {e.id: e for s in SUBJECTS for e in s.EXPERIMENTS}


MANIFEST = "reproduction.json"
# What a reproduction writes at the top of its directory.
OUTPUTS = ("runs", "tables", "figures", MANIFEST)


@dataclass(frozen=True)
class Reproduction:
    """What a reproduction wrote."""

    experiment: Experiment
    directory: Path
    runs: dict[str, Runs]  # by stack
    summary: pd.DataFrame  # every stack's runs, one above the other
    tables: dict[str, Path]
    figures: list[Path]
    # Wall seconds of this call, reported but not written into reproduction.json, so
    # that the same model writes the same files twice.
    wall_time_s: float


def get(experiment_id: str) -> Experiment:
    try:
        return EXPERIMENTS[experiment_id]
    except KeyError:
        raise ConfigError(
            f"no reproduction '{experiment_id}'; available: {', '.join(EXPERIMENTS)}"
        ) from None


def run(
    experiment_id: str,
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    jobs: int | None = None,
    cluster: Any = None,
    progress: Callable[[str, Any], None] | None = None,
    figures: bool = True,
    stack: str | None = None,
) -> Reproduction:
    """Runs (or resumes) one reproduction into `out` and writes its tables and (unless
    `figures` is false) its figures. `out` must be new, empty or this experiment's
    reproduction (`outdir`). `stack` runs every case in that TCP stack only (`tcp.stack`;
    default: the experiment's own and Linux's)."""
    experiment = get(experiment_id)
    if stack is not None:
        check_stack(stack)  # before the directory is made
    stacks = experiment.stacks(stack)
    directory = Path(out)
    outdir.open_resumable(directory, outdir.reproduction(experiment.id), OUTPUTS)
    started = time.monotonic()
    runs = run_experiment(
        experiment,
        directory,
        quick=quick,
        jobs=jobs,
        cluster=cluster,
        progress=progress,
        stacks=stacks,
    )
    paths = write_tables(stack_tables(experiment, runs), directory / "tables")
    drawn = _figures(experiment, runs, directory / "figures") if figures else []
    summary = pd.concat([r.summary for r in runs.values()], ignore_index=True)
    manifest = {
        "experiment": experiment.id,
        "seed": experiment.seed,
        "title": experiment.title,
        "quick": quick,
        "stacks": stacks,
        "repetitions": experiment.seeds(quick),
        "runs": len(summary),
        "failed": int((summary["status"] == "failed").sum()) if "status" in summary else 0,
        "tables": [p.name for p in paths],
        "figures": [str(p.relative_to(directory)) for p in drawn],
        "wavecc": __version__,
    }
    with atomic_file(directory / MANIFEST) as tmp:
        tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    wall_time_s = round(time.monotonic() - started, 1)
    return Reproduction(
        experiment, directory, runs, summary, {p.stem: p for p in paths}, drawn, wall_time_s
    )


def _figures(experiment: Experiment, runs: dict[str, Runs], directory: Path) -> list[Path]:
    """The first stack's figures in `directory`, each other stack's in `directory/<stack>`."""
    drawn = []
    for i, (stack, stack_runs) in enumerate(runs.items()):
        drawn += experiment.figures(stack_runs, directory if i == 0 else directory / stack)
    return drawn
