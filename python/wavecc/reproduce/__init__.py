"""Reproductions of the seeds' experiments: `wavecc reproduce ID [--quick] --out DIR`.

Each experiment runs its grid through the sweep machinery (resumable, local pool or
Dask), writes its tables in the seed's layout as `DIR/tables/NAME.csv` (long form, one
row per cell, the published value next to ours and the difference) and draws the
seed's figures into `DIR/figures/`. `--quick` uses one seed and shorter runs, for a
smoke test; the full run uses the seeds' durations and 3 repetitions.

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

from .. import __version__, outdir
from ..atomic import atomic_file
from ..config import ConfigError
from . import seed000, seed001, seed002, seed003, seed004
from .core import Experiment, Runs, run_experiment, write_tables

EXPERIMENTS: dict[str, Experiment] = {
    e.id: e
    for e in [
        seed000.EXPERIMENT,
        seed002.EXPERIMENT,
        seed001.BENCHMARK,
        seed001.RTTV,
        seed001.MSS,
        seed001.MRVHS,
        seed004.BLOCKAGE,
        seed004.HANDOVER,
        seed004.MULTIUSER,
        seed003.MMWAVE_EXPERIMENT,
        seed003.BOTTLENECK,
        seed003.FAIRNESS,
    ]
}


MANIFEST = "reproduction.json"
# What a reproduction writes at the top of its directory.
OUTPUTS = ("runs", "tables", "figures", MANIFEST)


@dataclass(frozen=True)
class Reproduction:
    """What a reproduction wrote."""

    experiment: Experiment
    directory: Path
    runs: Runs
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
) -> Reproduction:
    """Runs (or resumes) one reproduction into `out` and writes its tables and (unless
    `figures` is false) its figures. `out` must be new, empty or this experiment's
    reproduction (`outdir`)."""
    experiment = get(experiment_id)
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
    )
    tables = experiment.tables(runs)
    paths = write_tables(tables, directory / "tables")
    drawn = experiment.figures(runs, directory / "figures") if figures else []
    manifest = {
        "experiment": experiment.id,
        "seed": experiment.seed,
        "title": experiment.title,
        "quick": quick,
        "repetitions": experiment.seeds(quick),
        "runs": len(runs.summary),
        "failed": int((runs.summary.get("status") == "failed").sum())
        if "status" in runs.summary
        else 0,
        "tables": [p.name for p in paths],
        "figures": [str(p.relative_to(directory)) for p in drawn],
        "wavecc": __version__,
    }
    with atomic_file(directory / MANIFEST) as tmp:
        tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    wall_time_s = round(time.monotonic() - started, 1)
    return Reproduction(experiment, directory, runs, {p.stem: p for p in paths}, drawn, wall_time_s)
