"""Compact references from runs of ns3-mmwave on the FB-TCP paper's scenario scripts.

A *run directory* is what one run of a scenario script leaves in its working directory
(see validation/ns3mmwave/README.md): `command.txt` (the command line), `commit.txt`
(ns3-mmwave's commit), `stdout.txt`, `stderr.txt` (GNU `time -v`'s report), `wall_s.txt`,
and the script's traces `RxPacketTrace.txt`, `DlPdcpStats.txt`, `UlPdcpStats.txt`,
`drop.pcap`, `cwnd.txt`, `rtt.txt` (TCP runs only). `convert` reads one and writes
a *reference directory* small enough to commit:

- `summary.json`: the case (from the command line), the run's identity and the
  statistics below;
- `timeseries_100ms.csv`: the same quantities per 100 ms (see `timeseries`).

The raw traces (MBs per run) stay out: these two files are what a comparison with
wavecc needs (goodput, mean RTT, time-averaged SINR, TB error rate, time series).

Definitions (all times in simulated seconds):

- `rx_bytes`: the sink's received bytes, the script's final "Rx Bytes" line;
  `goodput_mbps` = rx_bytes x 8 / simulated time (the script's "Average Goodput",
  kept as `script_avg_goodput_mbps` and checked against it); `goodput_active_mbps`
  the same over the time after the application starts (`APP_START_S`).
- `srtt_*` (TCP only; null for UDP): from `rtt.txt`, the socket's smoothed RTT each
  time it changes. `srtt_mean_ms_per_update` is the plain mean over the updates (busy
  periods, with many ACKs, weigh more); `srtt_mean_ms_timeweighted` weighs each value
  by how long it held: from its update to the next one, the last one to the end of
  the simulation; `srtt_min_ms`; `srtt_p95_ms` the sorted values' element at index
  floor(0.95 (n - 1)) (numpy's "lower" percentile: always a value of the trace).
- `dl_*`: over the downlink transport blocks of `RxPacketTrace.txt`: their number,
  the fraction marked corrupt, the mean SINR and MCS over blocks.
  `dl_sinr_timeavg_db` is the mean over 100 ms bins (those with a block) of each
  bin's mean SINR: a time average, the one to compare with a time-averaged SINR (the
  mean over blocks is biased low in TCP runs, whose blocked periods carry many small
  blocks).
- `ul_tbs`, `ul_tb_error_rate`: the uplink transport blocks of `RxPacketTrace.txt`
  (the UE's ACKs and RLC status reports, HARQ retransmissions included) and the fraction
  marked corrupt: an uplink error delays the UE's status reports (the reports whose
  overtaking stalls the module's runs are the gNB's, on the downlink). References
  converted before these fields existed lack them.
- `error_model_drops`: the packets the Internet link's receive error model (the
  scripts' `--errorRate`, on the PGW's side) dropped: the records of `drop.pcap`, which
  the scripts' `PhyRxDrop` callback writes. (Its "RxDrop at" message is an `NS_LOG`
  line, compiled out of optimised builds.) Null without `drop.pcap`.
- `dl_pdcp_delay_ms`, `ul_pdcp_delay_ms`: the mean delay of the data SDUs received, from
  the Rx lines of `DlPdcpStats.txt` and `UlPdcpStats.txt` (data bearers, see below):
  the time from the sender's PDCP handing an SDU to its RLC to the receiver's PDCP
  getting it (the module's PDCP holds nothing back, so this is the RLC-to-RLC delay
  over the radio). Null without the file or an Rx line.
- `rlc_drops`: the downlink data SDUs the eNB's RLC AM discarded at its buffer limit
  (`--rlcBuffer`). ns3-mmwave traces no such discard (`LteRlcAm::DoTransmitPdcpPdu` only
  logs it), so it is counted from `DlPdcpStats.txt`, data bearers only (LCID 3 and up;
  1 and 2 are the signalling bearers): a "Tx" line is an SDU the eNB's PDCP hands to its
  RLC, an "Rx" line one the UE's PDCP receives, with its delay since that hand-over. The
  RLC AM delivers every SDU it accepts, in order (no discard timer, no retransmission
  limit), so an SDU handed over before the last one received and never received itself
  was discarded: `rlc_drops` = (Tx lines at or before T) - (Rx lines), T the last Rx
  line's time minus its delay. The times are printed with 6 significant digits, so Tx
  lines up to T plus one unit of the last digit (0.1 ms from 10 s on) are counted: this
  takes in the last SDU received for sure, and at most the few sent within that 0.1 ms
  after it (about 10 at these rates). SDUs handed over after T may still have been in
  the RLC at the end and are not counted. Null without any Rx line.
- `rto_events` (TCP only; null for UDP): the retransmission timeouts, from `cwnd.txt`
  (cwnd in whole segments of 1,400 bytes): the lines where cwnd falls from 2 or more
  segments to 1. ns-3.29's `TcpSocketBase::ReTxTimeout` sets cwnd to one segment, and
  nothing else takes it below two (recovery keeps it at ssthresh >= 2 segments; the
  first line, 0 -> 1, is the initial window). A timeout that fires again before cwnd
  grew (a backed-off retransmission of the same segment) changes nothing in the trace
  and is not counted: these are timeout episodes.
- `retransmitted_segments`: always null. No trace records the segments the server
  sends: the scripts' packet capture is commented out (`p2ph.EnablePcapAll`),
  `drop.pcap` holds only the Internet link's receive drops (its error model's), and
  `dropue0.pcap`, `serverdrop.pcap` stay empty (their callbacks write into `drop.pcap`,
  and the UE's is connected to a node, which has no `PhyRxDrop`); `congestionstate.txt`
  stays empty (its callback's write is commented out); the server's queue disc totals in
  `stdout.txt` count new and resent segments together.
- `wall_s` (`wall_s.txt`), `cpu_s` (user + system time) and `peak_rss_mb` from GNU
  time's report; null when it is absent.

A run still in progress (no "Average Goodput" line in `stdout.txt`, or no
`wall_s.txt`) or one whose simulator failed is refused, as is any malformed line; a
refusal names the file and line.

Developer command: `python -m wavecc.ns3mmwave convert RUN_DIR OUT_DIR [--force]`.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import shlex
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from . import outdir
from .atomic import atomic_directory

APP_START_S = 0.1  # every script starts its sending application at 0.1 s
BIN_S = 0.1  # the scripts print the sink's goodput every 100 ms
SUMMARY = "summary.json"
TIMESERIES = "timeseries_100ms.csv"
COLUMNS = (
    "t_s",
    "sink_goodput_mbps",
    "srtt_mean_ms",
    "cwnd_segments_last",
    "dl_sinr_mean_db",
    "dl_tb_count",
    "dl_tb_errors",
    "dl_tb_bytes",
)
REFERENCE = outdir.Kind("ns3-mmwave reference", resumable=False, legacy=lambda _: False)

# The scripts' own defaults for the options the command line may leave out
# (validation/ns3mmwave/README.md): scripts s1-s4, script 3 with its 1e-7 error rate.
DEFAULTS = {
    "tcpType": "Tcpfbtcp",
    "errorRate": "0",
    "rlcBuffer": "2621440",
    "udp": "0",
    "simTime": "20",
    "RngRun": "1",
}
SCRIPT_DEFAULTS = {"s3": {"errorRate": "0.0000001"}}

_GOODPUT_LINE = re.compile(r"^(?P<t>\S+)s: \t(?P<mbps>\S+) Mbit/s$")
_AVERAGE_LINE = re.compile(r"^\s*Average Goodput For NewProtocol: (?P<mbps>\S+) Mbit/s$")
_RX_BYTES_LINE = re.compile(r"^\s*Rx Bytes: (?P<bytes>\d+)$")
FIRST_DATA_LCID = 3  # LCIDs 1 and 2 are the signalling bearers SRB1 and SRB2
_PDCP_FIELDS = {"Tx": 6, "Rx": 7}  # kind, time, cell, rnti, lcid, size (+ delay, ns)
_TB_FIELDS = 15  # direction, time, frame, subframe, 1st symbol, symbols, cell, rnti, cc,
# tbSize, mcs, rv, SINR, corrupt, TBler; the DL lines' extra blank field splits away


class RunError(ValueError):
    """The run directory cannot be converted; the message names the file (and line)."""


@dataclass(frozen=True)
class Case:
    """What was run, from `command.txt`."""

    script: str
    transport: str  # "tcp" or "udp"
    tcp_type: str | None
    error_rate: float
    rlc_buffer_bytes: int
    rng_run: int
    sim_time_s: float
    options: dict[str, str]


@dataclass(frozen=True)
class Traces:
    """The parsed traces: one numpy array per quantity."""

    goodput_t: np.ndarray  # the script's 100 ms goodput prints: time, Mb/s
    goodput_mbps: np.ndarray
    tb_t: np.ndarray  # downlink transport blocks
    tb_bytes: np.ndarray
    tb_mcs: np.ndarray
    tb_sinr_db: np.ndarray
    tb_corrupt: np.ndarray
    ul_tb_corrupt: np.ndarray  # uplink transport blocks: 1 where corrupt
    rtt_t: np.ndarray  # smoothed RTT updates (empty for UDP)
    srtt_ms: np.ndarray
    cwnd_t: np.ndarray  # cwnd updates, segments (empty for UDP)
    cwnd_old_segments: np.ndarray
    cwnd_segments: np.ndarray


def parse_command(command: str, where: str) -> Case:
    """The case of a command line `.../sN --opt=value ...`; options left out take the
    script's defaults (`DEFAULTS`, `SCRIPT_DEFAULTS`)."""
    words = shlex.split(command)
    if not words:
        raise RunError(f"{where}: empty; expected the simulator's command line")
    script = Path(words[0]).name
    options: dict[str, str] = {}
    for word in words[1:]:
        match = re.fullmatch(r"--(\w+)=(\S+)", word)
        if match is None:
            raise RunError(f"{where}: argument {word!r} is not of the form --name=value")
        options[match[1]] = match[2]
    value = {**DEFAULTS, **SCRIPT_DEFAULTS.get(script, {}), **options}
    udp = _number(value["udp"], int, f"{where}: --udp") != 0
    return Case(
        script=script,
        transport="udp" if udp else "tcp",
        tcp_type=None if udp else value["tcpType"],
        error_rate=_number(value["errorRate"], float, f"{where}: --errorRate"),
        rlc_buffer_bytes=_number(value["rlcBuffer"], int, f"{where}: --rlcBuffer"),
        rng_run=_number(value["RngRun"], int, f"{where}: --RngRun"),
        sim_time_s=_number(value["simTime"], float, f"{where}: --simTime"),
        options=options,
    )


_N = TypeVar("_N", int, float)


def _number(text: str, kind: type[_N], where: str) -> _N:
    try:
        return kind(text)
    except ValueError:
        raise RunError(f"{where}: {text!r} is not a {kind.__name__}") from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line) of a text file, numbered from 1; a missing file is refused."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            yield from enumerate((line.rstrip("\n") for line in handle), start=1)
    except FileNotFoundError:
        raise RunError(f"{path}: missing") from None


def _columns(path: Path, count: int, *, header: bool = False) -> Iterator[list[str]]:
    """The whitespace-separated fields of each non-blank line, exactly `count` of them."""
    for number, line in _lines(path):
        fields = line.split()
        if (header and number == 1) or not fields:
            continue
        if len(fields) != count:
            raise RunError(f"{path}:{number}: {len(fields)} fields, expected {count}")
        yield [f"{path}:{number}", *fields]


def _floats(where: str, fields: Sequence[str]) -> list[float]:
    try:
        values = [float(f) for f in fields]
    except ValueError:
        raise RunError(f"{where}: not a number in {' '.join(fields)!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise RunError(f"{where}: not a finite number in {' '.join(fields)!r}")
    return values


def read_stdout(path: Path) -> tuple[int, float, np.ndarray, np.ndarray]:
    """(rx bytes, the script's average goodput, times and values of its 100 ms goodput
    prints); a run without the final "Average Goodput" line is still in progress."""
    times, values = [], []
    rx_bytes = average = None
    for number, line in _lines(path):
        if (match := _GOODPUT_LINE.match(line)) is not None:
            t, mbps = _floats(f"{path}:{number}", [match["t"], match["mbps"]])
            times.append(t)
            values.append(mbps)
        elif re.match(r"^[\d.e+-]+s:", line):
            raise RunError(f"{path}:{number}: expected 'T s: \\tGOODPUT Mbit/s', got {line!r}")
        elif (match := _RX_BYTES_LINE.match(line)) is not None:
            rx_bytes = int(match["bytes"])
        elif (match := _AVERAGE_LINE.match(line)) is not None:
            average = _floats(f"{path}:{number}", [match["mbps"]])[0]
    if average is None:
        raise RunError(f"{path}: no 'Average Goodput' line: the run is still in progress")
    if rx_bytes is None:
        raise RunError(f"{path}: no 'Rx Bytes' line before 'Average Goodput'")
    return rx_bytes, average, np.array(times), np.array(values)


def read_transport_blocks(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The downlink blocks of RxPacketTrace.txt as rows (time, tb bytes, mcs, SINR dB,
    corrupt), and the uplink blocks' corrupt flags."""
    rows, uplink = [], []
    for where, direction, *fields in _columns(path, _TB_FIELDS, header=True):
        if direction not in ("DL", "UL"):
            raise RunError(f"{where}: direction {direction!r}, expected DL or UL")
        values = _floats(where, fields)
        if direction == "DL":
            rows.append((values[0], values[8], values[9], values[11], values[12]))
        else:
            uplink.append(values[12])
    return np.array(rows, dtype=float).reshape(-1, 5), np.array(uplink, dtype=float)


def read_updates(path: Path) -> np.ndarray:
    """A (time, old, new) trace (cwnd.txt, rtt.txt) as rows, in time order."""
    rows, previous = [], -math.inf
    for where, *fields in _columns(path, 3):
        row = _floats(where, fields)
        if row[0] < previous:
            raise RunError(f"{where}: time {row[0]} before the previous line's {previous}")
        previous = row[0]
        rows.append(row)
    return np.array(rows, dtype=float).reshape(-1, 3)


def read_traces(
    run_dir: Path, case: Case, goodput_t: np.ndarray, goodput_mbps: np.ndarray
) -> Traces:
    """The traces `summarize` and `timeseries` need, parsed and checked, with the
    script's 100 ms goodput prints."""
    tbs, ul_tb_corrupt = read_transport_blocks(run_dir / "RxPacketTrace.txt")
    if case.transport == "tcp":
        rtt = read_updates(run_dir / "rtt.txt")
        cwnd = read_updates(run_dir / "cwnd.txt")
    else:  # a UDP run has no socket to trace
        rtt = cwnd = np.empty((0, 3))
    return Traces(
        goodput_t=goodput_t,
        goodput_mbps=goodput_mbps,
        tb_t=tbs[:, 0],
        tb_bytes=tbs[:, 1],
        tb_mcs=tbs[:, 2],
        tb_sinr_db=tbs[:, 3],
        tb_corrupt=tbs[:, 4],
        ul_tb_corrupt=ul_tb_corrupt,
        rtt_t=rtt[:, 0],
        srtt_ms=rtt[:, 2] * 1000.0,
        cwnd_t=cwnd[:, 0],
        cwnd_old_segments=cwnd[:, 1],
        cwnd_segments=cwnd[:, 2],
    )


@dataclass(frozen=True)
class PdcpLog:
    """A PDCP statistics file's data-bearer lines: the Tx times, and the Rx times with
    each SDU's delay since its Tx, seconds."""

    sent_t: np.ndarray
    received_t: np.ndarray
    delay_s: np.ndarray


def read_pdcp(path: Path) -> PdcpLog:
    """The data-bearer lines (LCID 3 and up) of a `Dl/UlPdcpStats.txt` file."""
    sent: list[float] = []
    received: list[tuple[float, float]] = []
    for number, line in _lines(path):
        fields = line.split()
        if not fields:
            continue
        where = f"{path}:{number}"
        if _PDCP_FIELDS.get(fields[0]) != len(fields):
            raise RunError(
                f"{where}: expected 'Tx TIME CELL RNTI LCID SIZE' or "
                f"'Rx TIME CELL RNTI LCID SIZE DELAY_NS', got {line!r}"
            )
        values = _floats(where, fields[1:])
        if values[3] < FIRST_DATA_LCID:
            continue
        if fields[0] == "Tx":
            sent.append(values[0])
        else:
            received.append((values[0], values[5] / 1e9))
    rx = np.array(received).reshape(-1, 2)
    return PdcpLog(np.array(sent), rx[:, 0], rx[:, 1])


def rlc_drops(log: PdcpLog, path: Path) -> int | None:
    """`rlc_drops` from the downlink's PDCP log (see the module's docstring): SDUs
    handed to the RLC before the last one the UE received, less those received."""
    if not len(log.received_t):
        return None
    latest = log.received_t[-1] - log.delay_s[-1] + _last_digit(log.received_t[-1])
    drops = int(np.count_nonzero(log.sent_t <= latest)) - len(log.received_t)
    if drops < 0:
        raise RunError(
            f"{path}: {len(log.received_t)} SDUs received but fewer handed to the RLC "
            f"by {latest:.6f} s"
        )
    return drops


def mean_delay_ms(log: PdcpLog | None) -> float | None:
    """`dl_pdcp_delay_ms` / `ul_pdcp_delay_ms`: the mean delay of the SDUs received."""
    if log is None or not len(log.delay_s):
        return None
    return float(log.delay_s.mean() * 1000.0)


def count_pcap_records(path: Path) -> int | None:
    """`error_model_drops`: the records of a pcap file (None when it is absent). Only
    the record headers are read (24-byte file header, then per record a 16-byte header
    whose third field is the captured length), so no pcap library is needed."""
    if not path.exists():
        return None
    data = path.read_bytes()
    if len(data) < 24:
        raise RunError(f"{path}: {len(data)} bytes, shorter than a pcap file header")
    magic = data[:4]
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">"}.get(magic)
    if order is None:
        raise RunError(f"{path}: magic {magic.hex()} is not a microsecond pcap file's")
    records, offset = 0, 24
    while offset < len(data):
        if offset + 16 > len(data):
            raise RunError(f"{path}: truncated record header at byte {offset}")
        (captured,) = struct.unpack_from(order + "I", data, offset + 8)
        offset += 16 + captured
        records += 1
    if offset != len(data):
        raise RunError(f"{path}: the last record runs past the end of the file")
    return records


def _last_digit(t: float) -> float:
    """One unit of the last digit of `t` printed with C++'s default 6 significant digits."""
    return 10.0 ** (math.floor(math.log10(t)) - 5) if t > 0 else 1e-9


def rto_count(traces: Traces) -> int:
    """`rto_events` (see the module's docstring): cwnd falling from 2+ segments to 1."""
    return int(np.count_nonzero((traces.cwnd_old_segments >= 2) & (traces.cwnd_segments == 1)))


def read_resources(run_dir: Path) -> dict:
    """Wall, CPU seconds and peak memory (null when GNU time's report is absent).
    Refuses a run whose simulator failed, and one that has no wall_s.txt yet (still
    running)."""
    wall_path = run_dir / "wall_s.txt"
    if not wall_path.exists():
        raise RunError(f"{wall_path}: missing: the run is still in progress (written at its end)")
    lines = list(_lines(wall_path))
    if not lines:
        raise RunError(f"{wall_path}: empty; expected the run's wall seconds")
    wall_s = _floats(f"{wall_path}:1", [lines[0][1].strip()])[0]
    found: dict[str, float] = {}
    stderr = run_dir / "stderr.txt"
    for number, line in _lines(stderr):
        key, _, value = line.strip().partition(": ")
        if key in (
            "User time (seconds)",
            "System time (seconds)",
            "Maximum resident set size (kbytes)",
            "Exit status",
        ):
            found[key] = _floats(f"{stderr}:{number}", [value])[0]
    if found.get("Exit status", 0) != 0:
        raise RunError(f"{stderr}: the simulator exited with status {found['Exit status']:g}")
    cpu = ("User time (seconds)", "System time (seconds)")
    rss = found.get("Maximum resident set size (kbytes)")
    return {
        "wall_s": wall_s,
        "cpu_s": round(sum(found[k] for k in cpu), 2) if all(k in found for k in cpu) else None,
        "peak_rss_mb": None if rss is None else round(rss / 1024, 1),
    }


def bin_index(t: np.ndarray, bins: int) -> np.ndarray:
    """The 100 ms bin of each time: bin k holds [k x 0.1, (k + 1) x 0.1) (computed as
    int(t / 0.1), as the references were); a time at the end goes to the last bin."""
    return np.minimum((t / BIN_S).astype(int), bins - 1)


def bin_count(sim_time_s: float) -> int:
    """The number of 100 ms bins in the simulated time."""
    return round(sim_time_s / BIN_S)


def _bin_means(t: np.ndarray, values: np.ndarray, bins: int) -> np.ndarray:
    """Mean of `values` per bin, NaN where a bin has none."""
    index = bin_index(t, bins)
    count = np.bincount(index, minlength=bins)
    total = np.bincount(index, weights=values, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def srtt_statistics(t: np.ndarray, srtt_ms: np.ndarray, sim_time_s: float) -> dict:
    """The `srtt_*` fields (see the module's docstring); null without updates."""
    if len(srtt_ms) == 0:
        return dict.fromkeys(
            (
                "srtt_mean_ms_per_update",
                "srtt_mean_ms_timeweighted",
                "srtt_updates",
                "srtt_min_ms",
                "srtt_p95_ms",
            )
        )
    held = np.diff(np.append(t, sim_time_s))
    return {
        "srtt_mean_ms_per_update": float(srtt_ms.mean()),
        "srtt_mean_ms_timeweighted": float((srtt_ms * held).sum() / held.sum()),
        "srtt_updates": len(srtt_ms),
        "srtt_min_ms": float(srtt_ms.min()),
        "srtt_p95_ms": float(np.percentile(srtt_ms, 95, method="lower")),
    }


def tb_statistics(traces: Traces, bins: int) -> dict:
    """The `dl_*` and `ul_*` fields (see the module's docstring); null without blocks."""
    uplink = {
        "ul_tbs": len(traces.ul_tb_corrupt),
        "ul_tb_error_rate": (
            float(traces.ul_tb_corrupt.mean()) if len(traces.ul_tb_corrupt) else None
        ),
    }
    if len(traces.tb_t) == 0:
        return {
            "dl_tbs": 0,
            "dl_tb_error_rate": None,
            "dl_mean_sinr_db": None,
            "dl_sinr_timeavg_db": None,
            "dl_mean_mcs": None,
            **uplink,
        }
    per_bin = _bin_means(traces.tb_t, traces.tb_sinr_db, bins)
    return {
        "dl_tbs": len(traces.tb_t),
        "dl_tb_error_rate": float(traces.tb_corrupt.mean()),
        "dl_mean_sinr_db": float(traces.tb_sinr_db.mean()),
        "dl_sinr_timeavg_db": float(np.nanmean(per_bin)),
        "dl_mean_mcs": float(traces.tb_mcs.mean()),
        **uplink,
    }


def summarize(case: Case, rx_bytes: int, average: float, traces: Traces, radio: dict) -> dict:
    """The statistics of `summary.json` (case and identity apart)."""
    goodput = rx_bytes * 8 / case.sim_time_s / 1e6
    if not math.isclose(goodput, average, rel_tol=1e-5, abs_tol=1e-3):
        raise RunError(
            f"stdout.txt: 'Average Goodput' {average} Mbit/s disagrees with "
            f"'Rx Bytes' {rx_bytes} over {case.sim_time_s} s ({goodput} Mbit/s)"
        )
    return {
        "rx_bytes": rx_bytes,
        "goodput_mbps": goodput,
        "goodput_active_mbps": rx_bytes * 8 / (case.sim_time_s - APP_START_S) / 1e6,
        "script_avg_goodput_mbps": average,
        **srtt_statistics(traces.rtt_t, traces.srtt_ms, case.sim_time_s),
        **tb_statistics(traces, bin_count(case.sim_time_s)),
        **radio,
        "retransmitted_segments": None,  # no trace records the sent segments
        "rto_events": rto_count(traces) if case.transport == "tcp" else None,
    }


def read_radio(run_dir: Path) -> dict:
    """`rlc_drops`, `dl_pdcp_delay_ms`, `ul_pdcp_delay_ms` and `error_model_drops`
    from the PDCP logs and the Internet link's drop capture."""
    dl_path, ul_path = run_dir / "DlPdcpStats.txt", run_dir / "UlPdcpStats.txt"
    downlink = read_pdcp(dl_path)
    uplink = read_pdcp(ul_path) if ul_path.exists() else None
    return {
        "rlc_drops": rlc_drops(downlink, dl_path),
        "dl_pdcp_delay_ms": mean_delay_ms(downlink),
        "ul_pdcp_delay_ms": mean_delay_ms(uplink),
        "error_model_drops": count_pcap_records(run_dir / "drop.pcap"),
    }


def timeseries(traces: Traces, sim_time_s: float) -> list[dict]:
    """One row per 100 ms bin, `t_s` its end (0.1, 0.2, ... the simulated time):
    `sink_goodput_mbps` the script's print at `t_s` (the sink's goodput over that
    bin; empty where it printed none, as at the end); `srtt_mean_ms` the mean of the
    bin's smoothed-RTT updates; `cwnd_segments_last` the cwnd after its last update in
    the bin; `dl_sinr_mean_db` the mean SINR of its downlink blocks; their count,
    corrupt count and bytes. Empty cells where a bin has no sample (always, for UDP's
    RTT and cwnd)."""
    bins = bin_count(sim_time_s)
    goodput = np.full(bins, np.nan)
    printed = np.rint(traces.goodput_t / BIN_S).astype(int) - 1  # the print at t ends bin t/0.1 - 1
    inside = (printed >= 0) & (printed < bins)
    goodput[printed[inside]] = traces.goodput_mbps[inside]
    cwnd = np.full(bins, np.nan)
    cwnd_bin = bin_index(traces.cwnd_t, bins)
    last = _last_per_bin(cwnd_bin)
    cwnd[cwnd_bin[last]] = traces.cwnd_segments[last]
    tb_bin = bin_index(traces.tb_t, bins)
    columns = {
        "t_s": [f"{(k + 1) * BIN_S:.1f}" for k in range(bins)],
        "sink_goodput_mbps": [_cell(v, repr) for v in goodput],
        "srtt_mean_ms": [
            _cell(v, "{:.2f}".format) for v in _bin_means(traces.rtt_t, traces.srtt_ms, bins)
        ],
        "cwnd_segments_last": [_cell(v, lambda x: str(int(x))) for v in cwnd],
        "dl_sinr_mean_db": [
            _cell(v, "{:.2f}".format) for v in _bin_means(traces.tb_t, traces.tb_sinr_db, bins)
        ],
        "dl_tb_count": np.bincount(tb_bin, minlength=bins).tolist(),
        "dl_tb_errors": [int(v) for v in np.bincount(tb_bin, traces.tb_corrupt, bins)],
        "dl_tb_bytes": [int(v) for v in np.bincount(tb_bin, traces.tb_bytes, bins)],
    }
    return [{name: columns[name][k] for name in COLUMNS} for k in range(bins)]


def _last_per_bin(index: np.ndarray) -> np.ndarray:
    """Positions of the last element of each run of equal values in `index` (sorted:
    the traces are in time order, `read_updates` checks it)."""
    return np.flatnonzero(np.append(np.diff(index) != 0, True)) if len(index) else index


def _cell(value: float, form: Callable[[float], str]) -> str:
    return "" if math.isnan(value) else form(float(value))


def reference(run_dir: Path) -> tuple[dict, list[dict]]:
    """The summary and time series of the run in `run_dir` (see the module's docstring)."""
    command_path = run_dir / "command.txt"
    command = " ".join(line for _, line in _lines(command_path)).strip()
    case = parse_command(command, str(command_path))
    commit = " ".join(line for _, line in _lines(run_dir / "commit.txt")).strip()
    if re.fullmatch(r"[0-9a-f]{40}", commit) is None:
        raise RunError(f"{run_dir / 'commit.txt'}: {commit!r} is not a 40-digit commit")
    rx_bytes, average, goodput_t, goodput = read_stdout(run_dir / "stdout.txt")
    resources = read_resources(run_dir)
    traces = read_traces(run_dir, case, goodput_t, goodput)
    summary = {
        "case": case.__dict__,
        "ns3mmwave_commit": commit,
        "command": command,
        **summarize(case, rx_bytes, average, traces, read_radio(run_dir)),
        **resources,
        "sim_s_per_wall_s": case.sim_time_s / resources["wall_s"] if resources["wall_s"] else None,
    }
    return summary, timeseries(traces, case.sim_time_s)


def convert(run_dir: str | Path, out_dir: str | Path, *, force: bool = False) -> None:
    """Writes the reference directory `out_dir` from `run_dir`, whole or not at all.
    Refuses (`outdir.OutputRefused`) a target holding anything but an earlier
    reference, and an earlier reference unless `force`."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    if not run_dir.is_dir():
        raise RunError(f"{run_dir}: not a directory; expected an ns3-mmwave run directory")
    summary, rows = reference(run_dir)
    outdir.remove_stale(out_dir.parent)
    outdir.check(out_dir, REFERENCE, force=force)
    with atomic_directory(out_dir, discard=outdir.discard) as staging:
        (staging / SUMMARY).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        with (staging / TIMESERIES).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        outdir.mark(staging, REFERENCE, [SUMMARY, TIMESERIES])


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"wavecc: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(
        prog="python -m wavecc.ns3mmwave",
        description="Convert an ns3-mmwave run directory into a reference.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("convert", help="run directory -> reference directory")
    command.add_argument("run_dir", type=Path)
    command.add_argument("out_dir", type=Path)
    command.add_argument(
        "--force", action="store_true", help="replace an earlier reference at OUT_DIR"
    )
    args = parser.parse_args(argv)
    try:
        convert(args.run_dir, args.out_dir, force=args.force)
    except (RunError, outdir.OutputRefused) as error:
        print(f"wavecc: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"wavecc: error: {error.filename or ''}: {error.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
