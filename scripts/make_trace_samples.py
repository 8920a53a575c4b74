"""The synthetic sample traces of docs/traces.md, one per format `wavecc trace import`
reads: made up here, never downloaded, with the columns and units of the real files.

    python scripts/make_trace_samples.py [OUT_DIR]      # default examples/traces

Writes `mahimahi.trace` (2 s: a rate swinging between 12 and 60 Mb/s with a 200 ms
outage), `lumos5g.csv` (two runs of 30 s, Mb/s per second) and `gnettrack.csv` (40 s
of a G-NetTrack log, kb/s, with idle rows and missing values). The output is the same
on every run (fixed seed), so the files in the repository are this script's.
"""

from __future__ import annotations

import csv
import math
import sys
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

SEED = 2026
LUMOS5G_COLUMNS = [
    "run_num", "seq_num", "abstractSignalStr", "latitude", "longitude", "movingSpeed",
    "compassDirection", "nrStatus", "lte_rssi", "lte_rsrp", "lte_rsrq", "lte_rssnr",
    "nr_ssRsrp", "nr_ssRsrq", "nr_ssSinr", "Throughput", "mobility_mode",
    "trajectory_direction", "tower_id",
]  # fmt: skip
GNETTRACK_COLUMNS = [
    "Timestamp", "Longitude", "Latitude", "Speed", "Operatorname", "CellID",
    "NetworkMode", "RSRP", "RSRQ", "SNR", "CQI", "RSSI", "DL_bitrate", "UL_bitrate",
    "State", "NRxRSRP", "NRxRSRQ", "ServingCell_Lon", "ServingCell_Lat",
    "ServingCell_Distance",
]  # fmt: skip


def mahimahi(rng: np.random.Generator) -> str:
    """One line per 1500-byte opportunity, in ms: 2000 ms whose rate follows a
    sinusoid between 12 and 60 Mb/s (1 to 5 packets per ms), dark from 800 to 1000 ms."""
    lines = []
    carry = 0.0
    for ms in range(1, 2001):
        per_ms = 3 + 2 * math.sin(2 * math.pi * ms / 500) + rng.uniform(-0.3, 0.3)
        if 800 < ms <= 1000:
            per_ms = 0.0
        carry += per_ms
        whole = int(carry)
        carry -= whole
        lines += [str(ms)] * whole
    if lines[-1] != "2000":
        lines.append("2000")  # the period is the last line's time
    return "\n".join(lines) + "\n"


def lumos5g(rng: np.random.Generator) -> list[list[object]]:
    """Two walking runs of 30 s: 5G throughput in Mb/s, one row per second."""
    rows: list[list[object]] = []
    for run in (1, 2):
        for seq in range(1, 31):
            blocked = run == 2 and 12 <= seq <= 15
            mbps = 0.0 if blocked else max(0.0, 900 + 500 * math.sin(seq / 5) + rng.normal(0, 80))
            rows.append([
                run, seq, 4 if not blocked else 1, round(44.974 + seq * 1e-5, 6), -93.258,
                1.4, 90, "CONNECTED", -60, -90, -11, 12,
                -85 if not blocked else -118, -11, 18 if not blocked else -3,
                round(mbps, 2), "walking", "NB", 16,
            ])  # fmt: skip
    return rows


def gnettrack(rng: np.random.Generator) -> list[list[object]]:
    """40 s of a download log: DL_bitrate in kb/s, State D, with two idle rows (I)
    and three missing rates ('-')."""
    start = datetime(2019, 12, 16, 9, 14, 57)
    rows: list[list[object]] = []
    for second in range(40):
        kbps: object = int(max(0.0, 150_000 + 90_000 * math.sin(second / 4) + rng.normal(0, 8000)))
        state = "I" if second in (20, 21) else "D"
        if second in (7, 8, 30):
            kbps = "-"
        stamp = (start + timedelta(seconds=second)).strftime("%Y.%m.%d_%H.%M.%S")
        rows.append([
            stamp, -8.4756, 51.8985, 0, "A", 12345, "5G", -95, -12, 8, 11, -70,
            kbps, 1200, state, -88, -11, -8.47, 51.9, 300,
        ])  # fmt: skip
    return rows


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    (out / "mahimahi.trace").write_text(mahimahi(rng), encoding="utf-8")
    write_csv(out / "lumos5g.csv", LUMOS5G_COLUMNS, lumos5g(rng))
    write_csv(out / "gnettrack.csv", GNETTRACK_COLUMNS, gnettrack(rng))
    print(f"wrote {out}: mahimahi.trace, lumos5g.csv, gnettrack.csv")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("examples/traces"))
