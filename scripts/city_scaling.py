"""The scaling table of docs/performance.md: the city grid (`wavecc.city`) with 10 to 1000
UEs, each count run once in a child process of its own.

    python scripts/city_scaling.py speed [--duration 2] [--ues 10,30,100,300,1000]
    python scripts/city_scaling.py callgrind [--duration 1] [--ues ...]

`speed` runs the core under `/usr/bin/time -v` and prints simulated seconds per wall
second, events per second, delivered segments and peak resident memory. `callgrind`
runs it under `valgrind --tool=callgrind`, counting only the core's event loop
(`--toggle-collect` on `World::run_watched`, so the interpreter's start-up is left out),
and prints instructions per delivered segment. A delivered segment is 1400 bytes of
goodput (`tcp.mss_bytes` of the city), summed over the flows.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from wavecc import city
from wavecc.config import resolve, to_json

SEGMENT_BYTES = city.SEGMENT_BYTES
CHILD = [sys.executable, "-P", "-m", "wavecc.bench_child"]


HEADERS = {
    "speed": "| UEs | flows | simulated s per wall s | events per wall s | delivered segments"
    " per simulated s | wall us per delivered segment | peak memory, MB |\n"
    "| --- | --- | --- | --- | --- | --- | --- |",
    "callgrind": "| UEs | instructions | delivered segments | instructions per delivered segment |\n"
    "| --- | --- | --- | --- |",
}


def config_file(ues: int, duration_s: float, directory: Path) -> Path:
    path = directory / f"city-{ues}ue-{duration_s:g}s.json"
    path.write_text(to_json(resolve(f"city-{ues}ue", overrides=[f"duration_s={duration_s}"])))
    return path


def run(command: list[str], config: Path) -> tuple[dict, str]:
    """The core's summary and the wrapper's stderr."""
    with config.open() as stdin:
        proc = subprocess.run(command, stdin=stdin, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)["summary"], proc.stderr


def segments(summary: dict) -> float:
    return sum(f["bytes_delivered"] for f in summary["flows"]) / SEGMENT_BYTES


def speed(ues: int, config: Path) -> str:
    summary, stderr = run(["/usr/bin/time", "-v", *CHILD], config)
    kib = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    assert kib, stderr
    wall, sim = summary["wall_time_s"], summary["sim_time_s"]
    delivered = segments(summary)
    return (
        f"| {ues} | {len(summary['flows'])} | {sim / wall:.2f} | {summary['events'] / wall:,.0f}"
        f" | {delivered / sim:,.0f} | {1e6 * wall / delivered:.2f} | {int(kib[1]) / 1024:.0f} |"
    )


def callgrind(ues: int, config: Path, directory: Path) -> str:
    out = directory / f"callgrind-{ues}.out"
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        "--toggle-collect=*World*run_watched*",
        *CHILD,
    ]
    summary, stderr = run(command, config)
    collected = re.search(r"Collected : (\d+)", stderr)
    assert collected, stderr
    instructions = int(collected[1])
    delivered = segments(summary)
    return f"| {ues} | {instructions / 1e9:.2f} G | {delivered:,.0f} | {instructions / delivered:,.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("speed", "callgrind"))
    parser.add_argument("--duration", type=float, help="simulated seconds (2; callgrind 1)")
    parser.add_argument("--ues", default="10,30,100,300,1000", help="UE counts, comma-separated")
    args = parser.parse_args()
    duration = args.duration or (2.0 if args.what == "speed" else 1.0)
    print(HEADERS[args.what], flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for ues in (int(n) for n in args.ues.split(",")):
            config = config_file(ues, duration, directory)
            row = speed(ues, config) if args.what == "speed" else callgrind(ues, config, directory)
            print(row, flush=True)


if __name__ == "__main__":
    main()
