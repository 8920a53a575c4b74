"""The result of one run: the summary, the effective config and the traces as DataFrames,
and how they are written to disk."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import outdir
from .atomic import atomic_directory

# The traces a run returns, in the order the core defines them (`trace::RunOutput`).
TABLES = ("flows", "queues", "cc", "events", "ues", "radio_events")
FIGURE = "figure.png"


@dataclass(frozen=True, eq=False)
class Result:
    """One run. `summary` and `config` are plain dicts (JSON-shaped); the traces are
    DataFrames with the core's column names. Non-finite floats reach Python as NaN:
    e.g. `ssthresh_segments` is NaN while it is still infinite, before the first loss."""

    summary: dict[str, Any]
    config: dict[str, Any]
    flows: pd.DataFrame
    queues: pd.DataFrame
    cc: pd.DataFrame
    events: pd.DataFrame
    # Radio traces: per-UE SINR, MCS, LoS, cell, position, RLC and HARQ; handovers
    # and blockage events. Empty for wired scenarios.
    ues: pd.DataFrame
    radio_events: pd.DataFrame

    @classmethod
    def from_core(cls, output_json: str, config: dict[str, Any]) -> Result:
        """Builds a Result from the JSON text `_core.run` returns."""
        output = json.loads(output_json)
        frames = {table: trace_frame(output[table]) for table in TABLES}
        return cls(summary=output["summary"], config=config, **frames)

    @property
    def name(self) -> str:
        return self.summary["name"]

    def save(
        self, directory: str | os.PathLike[str], figure: bool = True, force: bool = False
    ) -> Path:
        """Writes summary.json, config.json, one Parquet file per trace and (unless
        `figure` is false) figure.png into `directory`, with the marker of a wavecc run
        (`outdir`); nothing is left behind if any part fails. Returns the directory.

        `directory` must be new or empty; an earlier run there is replaced only with
        `force`, and only if it holds nothing but what wavecc wrote. Anything else
        raises `outdir.OutputRefused` (a FileExistsError) before anything is written."""
        directory = Path(directory)
        outdir.remove_stale(directory.parent)
        outdir.check(directory, outdir.RUN, force=force)
        with atomic_directory(directory, discard=outdir.discard) as staging:
            outdir.mark(staging, outdir.RUN, self.write(staging, figure=figure))
        return directory

    def write(self, directory: Path, figure: bool = True) -> list[str]:
        """Writes the files of `save` into the existing `directory` and returns their
        names (a sweep's store keeps its runs this way, under its own marker)."""
        _write_json(directory / "summary.json", self.summary)
        _write_json(directory / "config.json", self.config)
        names = ["summary.json", "config.json"]
        for table in TABLES:
            getattr(self, table).to_parquet(directory / f"{table}.parquet", index=False)
            names.append(f"{table}.parquet")
        if figure:
            self.plot(directory / FIGURE)
            names.append(FIGURE)
        return names

    def plot(self, path: str | os.PathLike[str]) -> Path:
        """Draws goodput, RTT and cwnd over time, one line per flow in its algorithm's
        colour, NLoS stretches shaded (`figures.time_series`), into `path` (PNG)."""
        from . import figures  # matplotlib only when a figure is drawn

        path = Path(path)
        figures.save(figures.time_series(self, title=self.name), path, formats=("png",))
        return path

    def __repr__(self) -> str:
        return (
            f"Result(name={self.name!r}, flows={len(self.summary['flows'])}, "
            f"sim_time_s={self.summary['sim_time_s']})"
        )


def trace_frame(columns: dict[str, list[Any]]) -> pd.DataFrame:
    """A trace table from its columns, each typed as the core declares it (also
    for traces that come from elsewhere, such as `wavecc emulate`'s)."""
    return pd.DataFrame({name: _column(name, values) for name, values in columns.items()})


@functools.cache
def column_dtypes() -> dict[str, str]:
    """Every trace column's type by name ("float64", "int64", "bool" or "str"), from
    the core's one declaration of the traces (`trace::TRACE_COLUMNS`); a name has one
    type in every trace. JSON cannot type an empty list, so without it an empty table
    (a run with no events, say) would get other types, and Parquet schemas, than a
    full one."""
    from . import _core

    tables: dict[str, list[dict[str, str]]] = json.loads(_core.trace_columns())
    return {column["name"]: column["dtype"] for columns in tables.values() for column in columns}


def _column(name: str, values: list[Any]) -> pd.Series:
    """serde_json writes NaN and infinities as null, and only floats can be non-finite,
    so a null in a float column is restored as NaN. A column the core does not
    declare (an emulated trace's own) is a float column."""
    dtype = column_dtypes().get(name, "float64")
    if dtype == "str":
        return pd.Series(values, dtype="str")
    if dtype == "bool":
        return pd.Series(values, dtype=bool)
    if dtype == "int64":
        return pd.Series(values, dtype=np.int64)
    return pd.Series(np.array([np.nan if v is None else v for v in values], dtype=np.float64))


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
