"""Link traces (docs/traces.md): a scenario's path exported as a trace, measured
throughput traces imported into one, and the two file formats written.

A trace is what one path offers: bytes deliverable per slot (looping), one-way delays,
a drop-tail buffer, i.i.d. loss and the reverse rate. The core reads the wavecc format
(`path.trace`, and `_core.parse_trace` here: one parser); this module writes it, and
writes the Mahimahi format, which carries only the delivery opportunities.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from . import _core
from ._core import ConfigError
from .atomic import atomic_file
from .config import ConfigSource, resolve, to_json

MAGIC = "# wavecc link trace 1"
FORMATS = ("wavecc", "mahimahi")
IMPORT_FORMATS = ("mahimahi", "lumos5g", "gnettrack")
# Mahimahi's unit: one line lets one 1500-byte packet through.
MAHIMAHI_PACKET_BYTES = 1500
# The slot of an imported trace: Mahimahi's millisecond, and fine enough that a held
# per-second rate reaches TCP as a smooth rate rather than bursts.
DEFAULT_IMPORT_SLOT_S = 0.001
# What an imported trace assumes of the path it does not carry (see `PathDefaults`).
DEFAULT_ONE_WAY_DELAY_S = 0.010
DEFAULT_BUFFER_BYTES = 2_500_000
# The logging interval of the per-second traces: how long their last sample lasts.
SAMPLE_INTERVAL_S = 1.0


@dataclass(frozen=True)
class Trace:
    """A link trace. `buffer_bytes` and `reverse_rate_bps` of 0 mean unbounded."""

    slot_s: float
    bytes: np.ndarray
    forward_delay_s: float = 0.0
    reverse_delay_s: float = 0.0
    buffer_bytes: int = 0
    loss_per_packet: float = 0.0
    loss_per_byte: float = 0.0
    reverse_rate_bps: float = 0.0
    comment: str = ""

    @property
    def duration_s(self) -> float:
        """One period of the trace: it loops after this."""
        return len(self.bytes) * self.slot_s

    @property
    def mean_rate_bps(self) -> float:
        return float(self.bytes.sum()) * 8 / self.duration_s


def _from_core(fields: dict[str, Any], comment: str = "") -> Trace:
    return Trace(
        slot_s=fields["slot_s"],
        bytes=np.asarray(fields["bytes"], dtype=np.int64),
        forward_delay_s=fields["forward_delay_s"],
        reverse_delay_s=fields["reverse_delay_s"],
        buffer_bytes=fields["buffer_bytes"] or 0,
        loss_per_packet=fields["loss_per_packet"],
        loss_per_byte=fields["loss_per_byte"],
        reverse_rate_bps=fields["reverse_rate_bps"] or 0.0,
        comment=comment,
    )


def read(path: str | os.PathLike[str]) -> Trace:
    """Reads a wavecc trace file with the core's parser (errors name the line)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        return _from_core(json.loads(_core.parse_trace(text)))
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


def export(
    scenario: ConfigSource,
    *,
    duration_s: float | None = None,
    seed: int | None = None,
    overrides: list[str] | tuple[str, ...] = (),
    progress: Callable[[float, float], None] | None = None,
) -> Trace:
    """The link trace of `scenario`'s path (see `wavecc_core::export`): a wired path's
    rate, delay, buffer and loss; a radio path's delivery opportunities per slot from a
    UDP-saturated run of `duration_s` (default: the scenario's), with its delays, RLC
    buffer and loss."""
    config = resolve(scenario, seed=seed, overrides=overrides)
    if duration_s is not None:
        config["duration_s"] = duration_s
    fields = json.loads(_core.export_trace(to_json(config), progress))
    name = config.get("name", "unnamed")
    return _from_core(fields, f"exported from {name}, seed {config.get('seed', 1)}")


def to_wavecc(trace: Trace) -> str:
    """The wavecc format's text (docs/traces.md)."""
    lines = [MAGIC]
    lines += [f"# {line}" for line in trace.comment.splitlines() if "=" not in line]
    lines += [
        f"# slot_s = {trace.slot_s!r}",
        f"# forward_delay_s = {trace.forward_delay_s!r}",
        f"# reverse_delay_s = {trace.reverse_delay_s!r}",
        f"# buffer_bytes = {trace.buffer_bytes}",
        f"# loss_per_packet = {trace.loss_per_packet!r}",
        f"# loss_per_byte = {trace.loss_per_byte!r}",
        f"# reverse_rate_bps = {trace.reverse_rate_bps!r}",
        "t_s,bytes",
    ]
    starts = np.arange(len(trace.bytes)) * trace.slot_s
    rows = (f"{t:.9f},{b}" for t, b in zip(starts.tolist(), trace.bytes.tolist(), strict=True))
    return "\n".join([*lines, *rows]) + "\n"


def to_mahimahi(trace: Trace) -> str:
    """Mahimahi's format: one line per 1500-byte delivery opportunity, the time in
    whole ms at which its last byte is deliverable (the end of its slot, rounded up).
    Mahimahi loops at the last line's time; the bytes after the last whole 1500 and
    everything but the opportunities (delays, buffer, loss, the reverse rate) are
    lost, and slots shorter than 1 ms are merged into milliseconds."""
    cumulative = np.cumsum(trace.bytes)
    count = int(cumulative[-1]) // MAHIMAHI_PACKET_BYTES
    if count == 0:
        raise ConfigError(
            "the trace offers less than one 1500-byte packet per period: "
            "Mahimahi cannot represent it"
        )
    needed = MAHIMAHI_PACKET_BYTES * np.arange(1, count + 1, dtype=np.int64)
    slots = np.searchsorted(cumulative, needed, side="left")
    # 1e-6 ms absorbs the float error of (slot + 1) x slot_s on exact millisecond ends.
    ms = np.ceil((slots + 1) * trace.slot_s * 1e3 - 1e-6).astype(np.int64)
    return "\n".join(map(str, ms.tolist())) + "\n"


def write(trace: Trace, out: Path, fmt: str = "wavecc", *, force: bool = False) -> None:
    """Writes `trace` to `out` whole or not at all (see `check_target`)."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format: unknown format '{fmt}' (known: {', '.join(FORMATS)})")
    text = to_wavecc(trace) if fmt == "wavecc" else to_mahimahi(trace)
    check_target(out, force=force)
    with atomic_file(out) as tmp:
        tmp.write_text(text, encoding="utf-8")


def check_target(out: Path, *, force: bool) -> None:
    """wavecc never overwrites a file it did not write: an existing `out` is replaced
    only with `force`, and only when it is a wavecc trace (its first line says so). A
    Mahimahi file carries no such mark, so none is ever replaced."""
    if not out.exists() and not out.is_symlink():
        return
    if out.is_dir() or out.is_symlink():
        raise FileExistsError(f"{out} exists and is not a regular file; choose a new file name")
    if not _is_wavecc_trace(out):
        raise FileExistsError(
            f"{out} exists and is not a trace wavecc wrote; not replaced, choose a new file name"
        )
    if not force:
        raise FileExistsError(f"{out} holds a wavecc trace; use --force to replace it")


def _is_wavecc_trace(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.readline().rstrip(b"\r\n") == MAGIC.encode()
    except OSError:
        return False


@dataclass(frozen=True)
class PathDefaults:
    """What a measured throughput trace does not say about its path, filled in on
    import: the one-way delay of each direction and the drop-tail buffer (0:
    unbounded). The defaults are the built-in dumbbells' 10 ms and 2.5 MB."""

    one_way_delay_s: float = DEFAULT_ONE_WAY_DELAY_S
    buffer_bytes: int = DEFAULT_BUFFER_BYTES
    slot_s: float = DEFAULT_IMPORT_SLOT_S


def import_trace(
    fmt: str,
    path: str | os.PathLike[str],
    *,
    run: int | None = None,
    defaults: PathDefaults = PathDefaults(),
) -> Trace:
    """Reads a measured trace in `fmt` ("mahimahi", "lumos5g", "gnettrack"; docs/traces.md
    gives each one's columns and units) as a wavecc trace with `defaults` for what it
    does not carry. `run` picks a Lumos5G run (needed when the file has several)."""
    path = Path(path)
    if fmt not in IMPORT_FORMATS:
        raise ConfigError(f"unknown trace format '{fmt}' (known: {', '.join(IMPORT_FORMATS)})")
    if run is not None and fmt != "lumos5g":
        raise ConfigError(f"--run applies only to lumos5g traces, not {fmt}")
    if not math.isfinite(defaults.slot_s) or not 1e-6 <= defaults.slot_s <= 1.0:
        raise ConfigError(f"--slot-s must be in [1e-6, 1] s, got {defaults.slot_s}")
    if fmt == "mahimahi":
        if defaults.slot_s != DEFAULT_IMPORT_SLOT_S:
            raise ConfigError("--slot-s: a Mahimahi trace is in milliseconds; its slot is 0.001 s")
        slots = _mahimahi_slots(path)
    elif fmt == "lumos5g":
        slots = _held_slots(*_lumos5g_samples(path, run), defaults.slot_s)
    else:
        slots = _held_slots(*_gnettrack_samples(path), defaults.slot_s)
    if not slots.any():
        raise ConfigError(f"{path}: the trace offers no bytes at all (every rate is 0)")
    return Trace(
        slot_s=defaults.slot_s,
        bytes=slots,
        forward_delay_s=defaults.one_way_delay_s,
        reverse_delay_s=defaults.one_way_delay_s,
        buffer_bytes=defaults.buffer_bytes,
        comment=f"imported from {fmt} trace {path.name}" + (f", run {run}" if run else ""),
    )


def _mahimahi_slots(path: Path) -> np.ndarray:
    """1 ms slots of a Mahimahi trace: each line (an integer ms timestamp, not
    decreasing) is 1500 bytes deliverable at that ms, so in the slot ending then. The
    trace loops with the last timestamp as its period, so a timestamp 0 is the end
    of the last slot of the period before."""
    stamps: list[int] = []
    for number, line in _lines(path):
        text = line.strip()
        if not text:
            continue
        if not text.isdigit():
            raise ConfigError(f"{path}: line {number}: '{text}' is not a whole number of ms")
        stamp = int(text)
        if stamps and stamp < stamps[-1]:
            raise ConfigError(
                f"{path}: line {number}: {stamp} ms comes before the line above ({stamps[-1]})"
            )
        stamps.append(stamp)
    if not stamps or stamps[-1] == 0:
        raise ConfigError(f"{path}: the last timestamp must be > 0 ms (it is the trace's period)")
    period = stamps[-1]
    counts = np.bincount((np.asarray(stamps) - 1) % period, minlength=period)
    return counts.astype(np.int64) * MAHIMAHI_PACKET_BYTES


def _held_slots(durations_s: np.ndarray, rates_bps: np.ndarray, slot_s: float) -> np.ndarray:
    """Slots of `slot_s` from rates each held for its duration: the bytes a constant
    rate offers in each slot, rounded down with the remainder carried, so that the
    slots sum to the trace's bytes exactly."""
    ends = np.concatenate(([0.0], np.cumsum(durations_s)))
    cumulative_bytes = np.concatenate(([0.0], np.cumsum(durations_s * rates_bps / 8)))
    count = int(round(ends[-1] / slot_s))
    if count == 0:
        raise ConfigError(f"the trace lasts {ends[-1]:g} s, less than one slot ({slot_s:g} s)")
    boundaries = np.arange(count + 1) * slot_s
    whole = np.floor(np.interp(boundaries, ends, cumulative_bytes)).astype(np.int64)
    return np.diff(whole)


def _lumos5g_samples(path: Path, run: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(durations, rates) of one Lumos5G run: a row per second (`seq_num`) with
    `Throughput` in Mb/s; a gap in `seq_num` holds the rate before it."""
    runs: dict[int, list[tuple[int, float]]] = {}
    for number, row in _csv_rows(path, ("run_num", "seq_num", "Throughput")):
        run_num = _whole(row["run_num"], "run_num", path, number)
        seq = _whole(row["seq_num"], "seq_num", path, number)
        rate = _number(row["Throughput"], "Throughput (Mb/s)", path, number) * 1e6
        samples = runs.setdefault(run_num, [])
        if samples and seq <= samples[-1][0]:
            raise ConfigError(
                f"{path}: line {number}: seq_num {seq} of run {run_num} does not follow "
                f"{samples[-1][0]}"
            )
        samples.append((seq, rate))
    if not runs:
        raise ConfigError(f"{path}: no rows")
    if run is None and len(runs) > 1:
        raise ConfigError(f"{path}: holds runs {_list(runs)}; choose one with --run")
    chosen = next(iter(runs)) if run is None else run
    if chosen not in runs:
        raise ConfigError(f"--run: {path} has no run {chosen} (runs: {_list(runs)})")
    seqs = np.array([s for s, _ in runs[chosen]], dtype=float)
    rates = np.array([r for _, r in runs[chosen]])
    return np.diff(seqs, append=seqs[-1] + SAMPLE_INTERVAL_S), rates


GNETTRACK_TIME = "%Y.%m.%d_%H.%M.%S"


def _gnettrack_samples(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(durations, rates) of a G-NetTrack log: `DL_bitrate` in kb/s from `Timestamp`
    to the next row's. Rows not downloading (`State` I) or without a rate (`-`) hold
    the rate before them; rows before the first downloading one are skipped."""
    times: list[float] = []
    rates: list[float] = []
    for number, row in _csv_rows(path, ("Timestamp", "DL_bitrate", "State")):
        when = _timestamp(row["Timestamp"], path, number)
        if times and when < times[-1]:
            raise ConfigError(f"{path}: line {number}: Timestamp goes back in time")
        state = row["State"].strip()
        if state not in ("D", "I"):
            raise ConfigError(
                f"{path}: line {number}: State '{state}' is neither D (downloading) nor I (idle)"
            )
        text = row["DL_bitrate"].strip()
        if state == "D" and text != "-":
            rate = _number(text, "DL_bitrate (kb/s)", path, number) * 1e3
        elif rates:
            rate = rates[-1]
        else:
            continue
        times.append(when)
        rates.append(rate)
    if not times:
        raise ConfigError(f"{path}: no row in State D with a DL_bitrate")
    stamps = np.asarray(times)
    return np.diff(stamps, append=stamps[-1] + SAMPLE_INTERVAL_S), np.asarray(rates)


def _timestamp(text: str, path: Path, number: int) -> float:
    try:
        return datetime.strptime(text.strip(), GNETTRACK_TIME).timestamp()
    except ValueError:
        raise ConfigError(
            f"{path}: line {number}: Timestamp '{text}' is not YYYY.MM.DD_hh.mm.ss"
        ) from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None
    return enumerate(text.splitlines(), start=1)


def _csv_rows(path: Path, needed: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """The rows of a CSV file with a header, by line number; `needed` columns must be
    in the header, and every row must have the header's number of fields."""
    lines = list(_lines(path))
    if not lines:
        raise ConfigError(f"{path}: empty file")
    reader = csv.reader(line for _, line in lines)
    header = [name.strip() for name in next(reader)]
    missing = [name for name in needed if name not in header]
    if missing:
        raise ConfigError(f"{path}: line 1: no column {', '.join(missing)} in the header")
    for (number, line), fields in zip(lines[1:], reader, strict=True):
        if not line.strip():
            continue
        if len(fields) != len(header):
            raise ConfigError(
                f"{path}: line {number}: {len(fields)} fields, the header has {len(header)}"
            )
        yield number, dict(zip(header, fields, strict=True))


def _number(text: str, column: str, path: Path, number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{path}: line {number}: {column} '{text.strip()}' is not a number >= 0")
    return value


def _whole(text: str, column: str, path: Path, number: int) -> int:
    if not text.strip().isdigit():
        raise ConfigError(f"{path}: line {number}: {column} '{text.strip()}' is not a whole number")
    return int(text)


def _list(runs: dict[int, Any]) -> str:
    return ", ".join(map(str, runs))
