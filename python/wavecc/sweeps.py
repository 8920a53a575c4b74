"""Parameter sweeps: a grid of config values times a number of seeds, run in parallel
into a resumable result store (see `wavecc.store`).

    rs = wavecc.sweep("dumbbell-1g",
                      {"cca": ["cubic", "newreno"], "path.loss.per_byte": [0, 1e-7]},
                      seeds=3, out="out/sweep")
    rs.summary      # one row per run (a DataFrame)
    rs.failed       # the runs that raised
    rs.load(key)    # one run's Result

The same runs go to a Dask distributed scheduler with `cluster="tcp://host:8786"` (or a
`distributed.Client` or `LocalCluster`): the workers run the core and send each Result
back, and this process writes the store, so the workers need wavecc but no access to
the store directory. Results are identical either way: a run depends only on its config.

Every point is validated by the core before any run starts, so a bad key or value fails
at once, naming the key. Runs already in the store are skipped; runs that fail (raise,
or whose worker process dies: see `wavecc.workers`) are recorded with their cause and
retried on the next invocation, and the other runs go on.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import os
import signal
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import _core
from .algorithms import check_importable, ensure_registered, used
from .config import (
    ConfigError,
    ConfigSource,
    check_minimum,
    load_scenario,
    parse_value,
    resolve,
    set_cca,
    set_key,
    split_key,
    to_json,
)
from .result import Result
from .store import MANIFEST, Store, config_key, flow_metrics, write_json_atomic
from .workers import (
    WorkerDied,
    WorkerRaised,
    describe_exception,
    format_size,
    parse_size,
    run_in_workers,
)

# The grid key that sets the algorithm of every flow (like `wavecc run --cca`).
CCA = "cca"


@dataclass(frozen=True)
class Point:
    """One run of a sweep: the grid values it takes, its seed and its effective config."""

    values: dict[str, Any]
    seed: int
    key: str
    config: dict[str, Any]

    def label(self) -> str:
        parts = [f"{k}={_show(v)}" for k, v in self.values.items()]
        return " ".join([*parts, f"seed={self.seed}"])


@dataclass(frozen=True)
class Progress:
    """What a `progress` callback receives: once when the sweep starts (`point` None),
    then once per finished run. `skipped` runs were already in the store and count as
    done."""

    total: int
    done: int
    failed: int
    skipped: int
    point: Point | None = None
    status: str | None = None
    error: str | None = None
    wall_time_s: float | None = None

    @property
    def remaining(self) -> int:
        return self.total - self.done - self.failed


@dataclass
class ResultSet:
    """The results of a sweep, read from its store directory."""

    directory: Path
    summary: pd.DataFrame
    points: list[Point] = field(default_factory=list, repr=False)

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The failed runs: key, seed, grid values and error text of each."""
        if "status" not in self.summary.columns:
            return []
        rows = self.summary[self.summary["status"] == "failed"]
        return [
            {
                "key": row["key"],
                "seed": int(row["seed"]),
                "error": row["error"],
                "values": {k: row[k] for k in _swept_columns(self.summary)},
            }
            for _, row in rows.iterrows()
        ]

    def load(self, key: str) -> Result:
        """The Result of the run with this key (the `key` column of the summary)."""
        return Store(self.directory).load(key)

    @classmethod
    def open(cls, directory: str | os.PathLike[str]) -> ResultSet:
        """A store written by an earlier sweep."""
        store = Store(directory)
        return cls(directory=store.directory, summary=store.read_summary())


def sweep(
    base: ConfigSource,
    grid: Mapping[str, Sequence[Any]],
    *,
    seeds: int = 1,
    jobs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: Callable[[Progress], None] | None = None,
    cluster: Any = None,
    stack: str | None = None,
    max_memory: int | str | None = None,
) -> ResultSet:
    """Runs `base` at every point of `grid` times `seeds` seeds and returns a ResultSet.

    `base` is a config dict, a TOML path or a built-in id. `grid` maps dotted config keys
    (as in `--set`: `path.rate_bps`, `flows.0.cca`) to lists of values; the key `cca` sets
    every flow's algorithm. The runs are the cartesian product of the lists, in order,
    each with seeds `s0, s0 + 1, ..., s0 + seeds - 1` where `s0` is the base config's
    seed (its effective value, so `seeds=1` runs the scenario's own seed).

    `jobs` is the number of worker processes (default: all cores); `jobs=0` runs
    everything in the calling process, for debugging. `out` is the store directory
    (default: a new temporary directory). `progress` is called with a `Progress` at the
    start and after each finished run.

    `cluster` sends the runs to a Dask distributed scheduler instead of the local pool:
    its address (`"tcp://host:8786"`), a `distributed.Client`, or a cluster object with
    a `scheduler_address` (`distributed.LocalCluster`). It needs the `cluster` extra
    (`pip install 'wavecc[cluster]'`) and cannot be combined with `jobs`.

    `stack` sets the TCP stack of every run (`tcp.stack`, as `wavecc.run`'s); a grid
    key `tcp.stack` sweeps over stacks.

    `max_memory` caps each run's worker process: bytes, or a size such as `"2G"` or
    `"512M"`. It needs local worker processes (not `jobs=0`, not `cluster`).

    A run whose worker raises or dies (a panic, an abort, a kill by the OOM killer) is
    recorded as failed with its cause, and the other runs go on.

    Raises `ConfigError` before anything runs if any point is invalid.
    """
    if stack is not None:
        base = resolve(base, stack=stack)
    points = expand(base, grid, seeds=seeds)
    if jobs != 0:
        for point in points:
            check_importable(used(point.config))
    if cluster is not None and jobs is not None:
        raise ConfigError(
            "give either jobs (a local process pool) or cluster (a Dask scheduler), not both"
        )
    if jobs is None:
        jobs = os.cpu_count() or 1
    if not isinstance(jobs, int):
        raise ConfigError(f"jobs must be a whole number, not {jobs!r}")
    check_minimum("jobs", jobs, 0, note=" (0: in this process)")
    if max_memory is not None:
        max_memory = parse_size(max_memory, "max_memory")
        if cluster is not None or jobs == 0:
            raise ConfigError(
                "max_memory caps local worker processes: it cannot be combined with "
                f"{'cluster' if cluster is not None else 'jobs=0'}"
            )
    # Connect before anything is written: an unreachable scheduler leaves no store.
    client, own_client = _client(cluster) if cluster is not None else (None, False)
    try:
        if client is not None:
            _check_workers(client)
        return _sweep(points, grid, seeds, jobs, out, progress, client, max_memory)
    finally:
        if own_client and client is not None:
            client.close()


def _sweep(points, grid, seeds, jobs, out, progress, client, max_memory) -> ResultSet:
    store = Store(out if out is not None else tempfile.mkdtemp(prefix="wavecc-sweep-"))

    todo = [p for p in _unique(points) if not store.is_done(p.key)]
    total = len(_unique(points))
    state = {"done": total - len(todo), "failed": 0}
    skipped = state["done"]
    store.open()
    write_json_atomic(
        store.directory / MANIFEST,
        {
            "grid": {k: list(v) for k, v in grid.items()},
            "seeds": seeds,
            "points": [{"key": p.key, "seed": p.seed, "values": p.values} for p in points],
        },
    )

    def report(point: Point, outcome: dict[str, Any]) -> None:
        state["done" if outcome["status"] == "ok" else "failed"] += 1
        if progress is not None:
            progress(
                Progress(
                    total,
                    state["done"],
                    state["failed"],
                    skipped,
                    point,
                    outcome["status"],
                    outcome.get("error"),
                    outcome["wall_time_s"],
                )
            )

    if progress is not None:
        progress(Progress(total, state["done"], 0, skipped))
    if client is not None:
        if todo:
            _run_cluster(store, todo, client, report)
    elif jobs == 0:
        for point in todo:
            report(point, execute(str(store.directory), _task(point)))
    else:
        if max_memory is not None:
            todo = _refuse_oversized(store, todo, max_memory, report)
        if todo:
            _run_pool(store, todo, min(jobs, len(todo)), report, max_memory)

    return _finish(store, points, list(grid))


def _run_pool(store: Store, todo: list[Point], jobs: int, report, max_memory: int | None) -> None:
    """Runs each point in its own worker process (see `wavecc.workers`). A worker that
    raises or dies is recorded as a failed run with its cause; the others go on."""
    points = {point.key: point for point in todo}

    def done(task: dict[str, Any], answer: Any) -> None:
        point = points[task["key"]]
        if isinstance(answer, (WorkerRaised, WorkerDied)):
            answer = _record_failure(store, point, answer, max_memory)
        report(point, answer)

    run_in_workers(
        functools.partial(execute, str(store.directory)),
        [_task(p) for p in todo],
        jobs,
        done,
        max_memory=max_memory,
    )


def _refuse_oversized(store: Store, todo: list[Point], max_memory: int, report) -> list[Point]:
    """Records as failed, without starting them, the runs that the core estimates to
    need more than `max_memory`; returns the others."""
    runnable = []
    for point in todo:
        needed = _core.estimate_memory(json.dumps(point.config, allow_nan=False))
        if needed <= max_memory:
            runnable.append(point)
            continue
        error = (
            f"refused before it started: the core estimates it needs "
            f"{format_size(needed)} of memory, more than max_memory {format_size(max_memory)}"
        )
        outcome = {"status": "failed", "wall_time_s": 0.0, "error": error}
        store.save_failure(point.key, _failure_record(_task(point), outcome))
        report(point, outcome)
    return runnable


def _record_failure(
    store: Store, point: Point, answer: WorkerRaised | WorkerDied, max_memory: int | None
) -> dict[str, Any]:
    """Stores the failure of a run whose worker raised past `execute` or died."""
    wall = answer.wall_time_s if isinstance(answer, WorkerDied) else float("nan")
    error = answer.error
    if max_memory is not None and getattr(answer, "exitcode", None) == -signal.SIGABRT:
        # The core aborts when an allocation fails, as it does at the cap.
        error += f" (it may have reached the memory cap, max_memory {format_size(max_memory)})"
    outcome = {"status": "failed", "wall_time_s": wall, "error": error}
    record = _failure_record(_task(point), outcome)
    if isinstance(answer, WorkerRaised):
        record["traceback"] = answer.traceback
    elif answer.stderr:
        record["stderr"] = answer.stderr
    store.save_failure(point.key, record)
    return outcome


def _run_cluster(store: Store, todo: list[Point], client: Any, report) -> None:
    """Runs the points on a Dask distributed cluster. Workers return each Result (see
    `execute_remote`) and it is saved here, so the store is written by this process only."""
    futures = {}
    try:
        for point in todo:
            # pure=False: a retried sweep must run again, not reuse a cached failure.
            future = client.submit(execute_remote, _task(point), pure=False)
            futures[future] = point
        from distributed import as_completed

        for future in as_completed(list(futures), loop=client.loop):
            point = futures.pop(future)
            try:
                returned = future.result()
            except Exception as e:  # the worker died, or the task could not be run
                returned = {
                    "status": "failed",
                    "wall_time_s": float("nan"),
                    "error": f"cluster task failed: {type(e).__name__}: {e}",
                }
            outcome = _store_remote(store, point, returned)
            future.release()
            report(point, outcome)
    except BaseException:
        # Interrupted: cancel what has not finished; the next invocation resumes.
        client.cancel(list(futures), force=True)
        raise


def _client(cluster: Any) -> tuple[Any, bool]:
    """A distributed.Client for `cluster`, and whether this sweep owns (closes) it."""
    try:
        import distributed
    except ImportError:
        raise ConfigError(
            "cluster: Dask distributed is not installed; install it with pip install 'wavecc[cluster]'"
        ) from None
    if isinstance(cluster, distributed.Client):
        return cluster, False
    address = getattr(cluster, "scheduler_address", cluster)
    if not isinstance(address, str) or not address:
        raise ConfigError(
            f"cluster: expected a scheduler address such as tcp://host:8786, not {cluster!r}"
        )
    try:
        return distributed.Client(address, set_as_default=False), True
    except (OSError, TimeoutError) as e:
        raise OSError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    except ValueError as e:  # e.g. an address with an unknown protocol
        raise ConfigError(f"cluster: bad scheduler address {address!r}: {e}") from None


def _worker_version() -> str:
    """The wavecc version where this runs (on each Dask worker, through client.run)."""
    return _core.__version__


def _check_workers(client: Any) -> None:
    """Refuses a cluster whose workers cannot import wavecc or run another version of
    it, which would silently mix results of two simulators in one store."""
    try:
        versions = client.run(_worker_version)
    except Exception as e:
        raise ConfigError(
            f"cluster: the Dask workers cannot run wavecc ({type(e).__name__}: {e}); "
            "install the same wavecc on every worker"
        ) from None
    ours = _worker_version()
    for worker, version in versions.items():
        if version != ours:
            raise ConfigError(
                f"cluster: worker {worker} has wavecc {version}, this process {ours}; "
                "install the same wavecc on every worker"
            )


def execute_remote(task: dict[str, Any]) -> dict[str, Any]:
    """Runs one point on a cluster worker and returns its outcome with the Result (or
    the error); never raises for a failed run."""
    start = time.perf_counter()
    try:
        ensure_registered(task.get("algorithms", {}))
        output = _core_run(json.dumps(task["config"], allow_nan=False))
        result = Result.from_core(output, task["config"])
    except Exception as e:
        return {
            "status": "failed",
            "wall_time_s": time.perf_counter() - start,
            "error": describe_exception(e),
            "traceback": traceback.format_exc(),
        }
    return {"status": "ok", "wall_time_s": time.perf_counter() - start, "result": result}


def _store_remote(store: Store, point: Point, returned: dict[str, Any]) -> dict[str, Any]:
    """Saves what a cluster worker returned, as `execute` does on a local worker."""
    outcome: dict[str, Any] = {k: returned[k] for k in ("status", "wall_time_s") if k in returned}
    if returned.get("status") == "ok":
        try:
            store.save_run(point.key, returned["result"])
            return outcome
        except Exception as e:
            returned = {
                **outcome,
                "status": "failed",
                "error": describe_exception(e),
                "traceback": traceback.format_exc(),
            }
    outcome = {
        "status": "failed",
        "wall_time_s": returned.get("wall_time_s", float("nan")),
        "error": returned.get("error", "no result"),
    }
    record = _failure_record(_task(point), outcome)
    if "traceback" in returned:
        record["traceback"] = returned["traceback"]
    store.save_failure(point.key, record)
    return outcome


def _task(point: Point) -> dict[str, Any]:
    """What a worker needs for a point, with the Python algorithms its config names
    (name -> module path), which the worker imports."""
    return {
        "key": point.key,
        "seed": point.seed,
        "values": point.values,
        "config": point.config,
        "algorithms": used(point.config),
    }


def _core_run(config_json: str) -> str:
    """The core's run, JSON in, JSON out; a module-level name so tests can replace it."""
    return _core.run(config_json)


def execute(directory: str, task: dict[str, Any]) -> dict[str, Any]:
    """Runs one point and stores its result (the worker's job). Never raises for a
    failed run: the failure is recorded in the store and returned."""
    store = Store(directory)
    start = time.perf_counter()
    try:
        # The effective config is a fixed point of the core's validation (its nulls are
        # unset options), so it goes to the core as it is.
        ensure_registered(task.get("algorithms", {}))
        output = _core_run(json.dumps(task["config"], allow_nan=False))
        result = Result.from_core(output, task["config"])
        store.save_run(task["key"], result)
    except Exception as e:
        outcome = {
            "status": "failed",
            "wall_time_s": time.perf_counter() - start,
            "error": describe_exception(e),
        }
        record = _failure_record(task, outcome)
        record["traceback"] = traceback.format_exc()
        store.save_failure(task["key"], record)
        return outcome
    return {"status": "ok", "wall_time_s": time.perf_counter() - start}


def _failure_record(task: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    return {**{k: task[k] for k in ("key", "seed", "values")}, **outcome, "config": task["config"]}


def _finish(store: Store, points: list[Point], swept: list[str]) -> ResultSet:
    """Rewrites summary.parquet from what is in the store, one row per point."""
    rows = []
    for point in points:
        row: dict[str, Any] = {**point.values, "seed": point.seed, "key": point.key}
        if store.is_done(point.key):
            summary = store.read_summary_json(point.key)
            row.update(status="ok", error=None, wall_time_s=summary.get("wall_time_s"))
            row.update(flow_metrics(summary))
        else:
            failure = store.read_failure(point.key) or {}
            error = failure.get("error", "no result (the run did not finish)")
            row.update(status="failed", error=error, wall_time_s=failure.get("wall_time_s"))
        rows.append(row)
    columns = [*swept, "seed", "key", "status", "error", "wall_time_s"]
    frame = store.write_summary(rows, columns)
    return ResultSet(directory=store.directory, summary=frame, points=points)


def expand(base: ConfigSource, grid: Mapping[str, Sequence[Any]], *, seeds: int = 1) -> list[Point]:
    """The points of a sweep, each validated by the core; raises `ConfigError` naming the
    grid key at the first bad key or value, before anything runs."""
    if not isinstance(seeds, int) or isinstance(seeds, bool):
        raise ConfigError(f"seeds must be a whole number, not {seeds!r}")
    check_minimum("seeds", seeds, 1)
    config = copy.deepcopy(base) if isinstance(base, dict) else load_scenario(base)
    keys = list(grid)
    if "seed" in keys:
        raise ConfigError("grid key 'seed': give the number of seeds instead (seeds=N, --seeds N)")
    for key in keys:
        values = grid[key]
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ConfigError(f"grid key '{key}': expected a list of values, not {values!r}")
        if len(list(values)) == 0:
            raise ConfigError(f"grid key '{key}': no values")
    base_effective = _validate(config, "base config")
    first_seed = int(base_effective.get("seed", 1))

    # Each key and value on its own first, so an error names the one at fault.
    for key in keys:
        for value in grid[key]:
            _validate(apply_values(config, {key: value}), f"grid key '{key}' = {_show(value)}")

    points = []
    for combo in itertools.product(*(list(grid[k]) for k in keys)):
        point_values = dict(zip(keys, combo, strict=True))
        for i in range(seeds):
            seed = first_seed + i
            point_config = apply_values(config, point_values)
            point_config["seed"] = seed
            where = " ".join(f"{k}={_show(v)}" for k, v in point_values.items()) or "base config"
            effective = _validate(point_config, f"grid point {where} seed={seed}")
            key = config_key(effective)
            points.append(Point(values=point_values, seed=seed, key=key, config=effective))
    return points


def apply_values(config: dict[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(config)
    for key, value in values.items():
        if key == CCA:
            set_cca(result, value)
            continue
        parts = split_key(key)
        if parts is None:
            raise ConfigError(f"grid key '{key}': expected a dotted.key")
        try:
            set_key(result, parts, copy.deepcopy(value), f"{key}={_show(value)}")
        except ConfigError as e:
            raise ConfigError(f"grid key '{key}': {e}") from None
    return result


def _validate(config: dict[str, Any], where: str) -> dict[str, Any]:
    try:
        return json.loads(_core.validate(to_json(config)))
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def _unique(points: list[Point]) -> list[Point]:
    """Points with distinct keys (two grid values can give the same effective config)."""
    seen: dict[str, Point] = {}
    for point in points:
        seen.setdefault(point.key, point)
    return list(seen.values())


def _swept_columns(summary: pd.DataFrame) -> list[str]:
    columns = list(summary.columns)
    return columns[: columns.index("seed")] if "seed" in columns else []


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


# --- grid text, as the command line and sweep files give it ---------------------------


def parse_grid_arg(text: str) -> tuple[str, list[Any]]:
    """`KEY=V1,V2,...` -> (KEY, [values]); each value is read like a `--set` value (a TOML
    value, else a bare string). Commas inside brackets, braces or quotes do not split."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"bad --grid '{text}': expected KEY=V1,V2,...")
    values = [parse_value(part) for part in _split_top_level(raw)]
    if not values or any(v == "" for v in values):
        raise ConfigError(f"bad --grid '{text}': empty value")
    return key, values


def _split_top_level(raw: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, None
    for ch in raw:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A TOML table as dotted keys: {"path": {"rate_bps": [...]}} -> {"path.rate_bps": [...]}."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            flat.update(flatten(value, dotted))
        else:
            flat[dotted] = value
    return flat
