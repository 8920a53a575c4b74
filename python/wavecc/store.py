"""The result store of a sweep: a directory that is a Parquet dataset.

Layout of a store directory:

    runs/<key>/              one complete run (Result.save without the figure):
                             summary.json, config.json, flows/queues/cc/events.parquet
    runs/<key>.failed.json   a run that raised: its point, seed, error text, wall time
    summary.parquet          one row per run of the last sweep (see `summary_row`)
    sweep.json               the last sweep's grid, seeds and points (key, seed, values)
    .wavecc-output.json      the marker of a sweep store (`wavecc.outdir`); the runs
                             under runs/ are covered by it and have none of their own

`<key>` is the first 16 hex digits of the SHA-256 of the effective config as canonical
JSON (sorted keys, no spaces), so the same run always lands in the same place and a
sweep that is run again finds what is done. A store is only ever re-entered, never
replaced: `open` refuses a directory that is not a store (`outdir`). Run directories
are written through `atomic_directory` (a hidden sibling renamed into place) and the
JSON and Parquet files through a temporary file renamed into place, so only complete
results are ever read: a directory under runs/ either is a whole run or does not exist.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import outdir
from .atomic import atomic_directory, atomic_file
from .result import TABLES, Result

RUNS = "runs"
SUMMARY = "summary.parquet"
MANIFEST = "sweep.json"
FAILED_SUFFIX = ".failed.json"

# The per-flow metrics copied into summary.parquet. Single-flow runs get them as they
# are; runs with several flows get one column per flow, suffixed `_f{i}`.
FLOW_METRICS = ("goodput_mbps", "mean_rtt_ms", "p95_rtt_ms", "retransmitted_segments", "rto_events")


def config_key(effective: dict[str, Any]) -> str:
    """The run key: SHA-256 of the canonical JSON of the effective config, 16 hex digits."""
    canonical = json.dumps(effective, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


class Store:
    """A store directory; creating the object creates nothing on disk."""

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory)

    @property
    def runs(self) -> Path:
        return self.directory / RUNS

    def run_dir(self, key: str) -> Path:
        return self.runs / key

    def failed_path(self, key: str) -> Path:
        return self.runs / f"{key}{FAILED_SUFFIX}"

    def open(self) -> None:
        """Makes the directory ready for a sweep: refuses one that is not a store (new,
        empty, a store, or one from before the marker), creates runs/ and removes the
        staging that killed runs left (`outdir.remove_stale`)."""
        outdir.open_resumable(self.directory, outdir.SWEEP_STORE, (RUNS, MANIFEST, SUMMARY))
        self.runs.mkdir(exist_ok=True)
        outdir.remove_stale(self.runs)

    def is_done(self, key: str) -> bool:
        """A run counts only once its directory has been renamed into place whole."""
        return (self.run_dir(key) / "summary.json").is_file()

    def save_run(self, key: str, result: Result) -> Path:
        path = self.run_dir(key)
        # A run directory that is there but not done is replaced only if it holds
        # nothing but what wavecc wrote (`outdir.discard`).
        with atomic_directory(path, discard=outdir.discard) as staging:
            result.write(staging, figure=False)
        self.failed_path(key).unlink(missing_ok=True)
        return path

    def save_failure(self, key: str, record: dict[str, Any]) -> None:
        write_json_atomic(self.failed_path(key), record)

    def read_failure(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self.failed_path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def read_summary_json(self, key: str) -> dict[str, Any]:
        return json.loads((self.run_dir(key) / "summary.json").read_text(encoding="utf-8"))

    def load(self, key: str) -> Result:
        """The Result of a complete run, read back from its directory."""
        directory = self.run_dir(key)
        if not self.is_done(key):
            raise KeyError(f"no complete run {key!r} in {self.runs}")
        summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        frames = {table: pd.read_parquet(directory / f"{table}.parquet") for table in TABLES}
        return Result(summary=summary, config=config, **frames)

    def write_summary(self, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
        """Writes summary.parquet (atomically) from rows built by `summary_row`."""
        frame = pd.DataFrame(list(rows))
        # Columns in a stable order: the given ones first, then the metrics as they came.
        ordered = [c for c in columns if c in frame.columns]
        frame = frame[ordered + [c for c in frame.columns if c not in ordered]]
        for column in frame.columns:
            frame[column] = _uniform(frame[column])
        with atomic_file(self.directory / SUMMARY) as tmp:
            frame.to_parquet(tmp, index=False)
        return frame

    def read_summary(self) -> pd.DataFrame:
        return pd.read_parquet(self.directory / SUMMARY)


def flow_metrics(summary: dict[str, Any]) -> dict[str, Any]:
    """The FLOW_METRICS of a run's summary, flattened into columns."""
    flows = summary.get("flows", [])
    row: dict[str, Any] = {}
    for flow in flows:
        suffix = "" if len(flows) == 1 else f"_f{flow['flow']}"
        for metric in FLOW_METRICS:
            value = flow.get(metric)
            row[metric + suffix] = float("nan") if value is None else value
    return row


def _uniform(column: pd.Series) -> pd.Series:
    """Parquet needs one type per column: a swept key whose values mix strings and
    numbers (or lists) is stored as text."""
    kinds = {type(v) for v in column if v is not None and not (isinstance(v, float) and v != v)}
    if kinds <= {int, float, bool} and not (bool in kinds and len(kinds) > 1):
        return column
    if kinds == {str}:
        return column.astype("str")
    return column.map(lambda v: v if isinstance(v, str) else json.dumps(v))


def write_json_atomic(path: Path, value: Any) -> None:
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
