"""Real kernels over a scenario's link (docs/emulation.md): drives `wavecc-emu`, the
emulator crate's binary, and turns what it reports into a `Result` with the same
summary keys and trace columns as a simulated run, so that `Result.save`, the figures
and the analysis read both alike.

The binary is found, in order: `$WAVECC_EMU`; `wavecc-emu` on PATH; the `target/release`
of the source checkout this package runs from (an editable install), which cargo builds
or brings up to date first."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _core, result, traces
from ._core import ConfigError
from .config import check_minimum, resolve, to_json

BINARY = "wavecc-emu"
INTERVAL_S = 0.1
# The traces a run has but an emulated one does not fill (no simulator internals, no
# radio): written empty, with the columns the core declares for them.
_EMPTY_TRACES = ("cc", "events", "ues", "radio_events")


def _empty_frames() -> dict[str, pd.DataFrame]:
    declared = json.loads(_core.trace_columns())
    return {
        name: result.trace_frame({column["name"]: [] for column in declared[name]})
        for name in _EMPTY_TRACES
    }


_QUEUES = {"forward": "bottleneck", "reverse": "bottleneck-reverse"}


class EmulationFailed(Exception):
    """The emulator could not run here (not root, no namespaces, no such kernel
    algorithm, no binary); the message says why in one line."""


def emulate(
    scenario: str,
    cca: str,
    duration_s: float | None = None,
    seed: int | None = None,
    overrides: list[str] | None = None,
    trace: Path | None = None,
) -> result.Result:
    """Runs the scenario's flow (bulk, or an application writing at a rate) with the
    kernel's `cca` across SCENARIO's path, emulated, for `duration_s` (default: the
    scenario's); returns it as a Result. A `trace` (a wavecc link trace,
    docs/emulation.md) replaces the scenario's path; a radio path without one is
    emulated over its own exported trace (flows[0]'s UE's, see `_export_trace`)."""
    with _prepare(scenario, cca, duration_s, seed, overrides, trace) as (config, spec):
        started = time.monotonic()
        lines = list(_run_binary(["bulk"], json.dumps(spec)))
    samples = [line["sample"] for line in lines if "sample" in line]
    totals = next(line["summary"] for line in lines if "summary" in line)
    return _result(config, cca, samples, totals, time.monotonic() - started)


def emulate_command(
    scenario: str,
    cca: str,
    command: list[str],
    duration_s: float | None = None,
    seed: int | None = None,
    overrides: list[str] | None = None,
    trace: Path | None = None,
) -> result.Result:
    """Runs `command` in the sender namespace, with the kernel's `cca` as the default
    congestion control there, across SCENARIO's emulated path, until it exits or
    `duration_s` passes (then it gets SIGTERM). Its environment names the receiver:
    WAVECC_RECEIVER_ADDR, and WAVECC_RECEIVER_NS for `ip netns exec` (to start a server).
    Each TCP connection it opens towards the receiver is a flow, sampled with `ss`."""
    with _prepare(scenario, cca, duration_s, seed, overrides, trace) as (config, spec):
        started = time.monotonic()
        samples = _run_command(spec, command)
    config = {**config, "duration_s": samples[-1]["t_s"] if samples else INTERVAL_S}
    config["emulated"]["command"] = command
    return _command_result(config, samples, time.monotonic() - started)


def _run_command(spec: dict[str, Any], command: list[str]) -> list[dict[str, Any]]:
    """The link alone (the binary's `link` mode) with `command` beside it; its samples."""
    link = subprocess.Popen(
        [str(find_binary()), "link"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert link.stdin is not None  # PIPE
    try:
        link.stdin.write(json.dumps(spec) + "\n")
        link.stdin.flush()
        ready = _reply(link)["ready"]
        env = {
            **os.environ,
            "WAVECC_RECEIVER_ADDR": ready["receiver_addr"],
            "WAVECC_RECEIVER_NS": ready["receiver_ns"],
        }
        # A process group of its own, so that ending it ends what it started too.
        child = subprocess.Popen(
            ["ip", "netns", "exec", ready["sender_ns"], *command], env=env, start_new_session=True
        )
        try:
            return _sample_command(link, child, ready, spec["duration_s"])
        finally:
            _end_group(child)
    finally:
        _end(link)


@contextmanager
def _prepare(
    scenario: str,
    cca: str,
    duration_s: float | None,
    seed: int | None,
    overrides: list[str] | None,
    trace: Path | None,
) -> Iterator[tuple[dict, dict]]:
    """The effective config, with what is emulated under `emulated` (which goes to the
    summary, so that config.json stays a scenario `wavecc run` takes), and the spec.
    A radio scenario without a trace has its own exported into a directory of its
    own, which lives as long as the context (the emulator reads it as it starts)."""
    config = effective_config(scenario, seed=seed, overrides=overrides)
    duration = float(duration_s if duration_s is not None else config["duration_s"])
    check_minimum("--duration", duration, INTERVAL_S, note=" s")
    flow = _check_flows(config)
    # A scenario whose path is a link trace (`path.trace`) emulates that trace.
    trace = trace if trace is not None else config["path"].get("trace")
    emulated: dict[str, Any] = {"cca": cca}
    with tempfile.TemporaryDirectory(prefix="wavecc-emulate-") as owned:
        if trace is not None:
            path = {"trace": str(Path(trace).resolve())}
            emulated["trace"] = path["trace"]
        elif config.get("radio") is not None:
            _check_can_emulate()  # before a long measuring run, not after it
            exported = Path(owned) / "link.csv"
            source = {"scenario": scenario, "seed": seed, "overrides": overrides or []}
            emulated["trace_exported"] = _export_trace(config, source, duration, exported)
            path = {"trace": str(exported)}
        else:
            path = link_spec(config)
        spec = {**path, **flow, "cca": cca, "seed": int(config.get("seed", 1))}
        spec["duration_s"] = duration
        _check_can_emulate()
        yield {**config, "duration_s": duration, "emulated": emulated}, spec


def _export_trace(
    config: dict[str, Any], source: dict[str, Any], duration_s: float, out: Path
) -> dict[str, Any]:
    """Writes the trace of the radio path of `config` (the effective form of `source`,
    the scenario as given) as `wavecc trace export` does (a UDP-saturated run of
    `duration_s` towards flows[0]'s UE) to `out`; returns what the summary says of it,
    enough to export it again."""
    sys.stderr.write(
        f"exporting {config.get('name', 'unnamed')}'s link trace "
        f"({duration_s:g} s of radio, as 'wavecc trace export')\n"
    )
    trace = traces.export(
        source["scenario"],
        duration_s=duration_s,
        seed=source["seed"],
        overrides=source["overrides"],
    )
    traces.write(trace, out)
    return {
        "scenario": config.get("name", "unnamed"),
        "ue": config["flows"][0].get("ue", 0),
        "seed": config.get("seed", 1),
        "duration_s": duration_s,
        "slot_s": trace.slot_s,
        "slots": len(trace.bytes),
        "mean_rate_mbps": trace.mean_rate_bps / 1e6,
    }


def effective_config(
    scenario: str, seed: int | None = None, overrides: list[str] | None = None
) -> dict[str, Any]:
    """SCENARIO with its overrides, checked by the core, every default filled in."""
    config = resolve(scenario, seed=seed, overrides=overrides or [])
    return json.loads(_core.validate(to_json(config)))


def selftest(phase_s: float = 1.5) -> list[dict[str, Any]]:
    """The emulator's accuracy cases (100 Mb/s, 500 Mb/s, 1 Gb/s, a 125 us slot trace),
    one dict per case, with the load average of this machine when they ran."""
    _check_can_emulate()
    load = os.getloadavg()[0]
    rows = list(_run_binary(["selftest", str(phase_s)], ""))
    return [{**row, "load_average": load} for row in rows]


def link_spec(config: dict[str, Any]) -> dict[str, Any]:
    """The two directions of a wired scenario's `path` as the binary takes them."""
    if config.get("radio") is not None:
        raise ConfigError(
            f"scenario {config.get('name')!r} has a radio path, which is a link trace "
            "('wavecc trace export' writes it; 'wavecc emulate' exports it itself), "
            "not two directions"
        )
    _check_flows(config)
    path = config["path"]
    loss = path["loss"]
    if loss.get("gilbert_elliott") is not None:
        raise ConfigError(
            "path.loss.gilbert_elliott cannot be emulated yet; use "
            "path.loss.per_packet or path.loss.per_byte"
        )
    buffer = path["buffer_bytes"] or path["buffer_packets"] * path["mtu_bytes"] or None
    random = {"loss_per_packet": loss["per_packet"], "loss_per_byte": loss["per_byte"]}
    none = {"loss_per_packet": 0.0, "loss_per_byte": 0.0}
    direction = loss["direction"]

    def side(rate_bps: float, lossy: bool) -> dict[str, Any]:
        return {
            "rate_bps": rate_bps,
            "delay_s": path["one_way_delay_s"],
            "buffer_bytes": buffer,
            **(random if lossy else none),
        }

    return {
        "forward": side(path["rate_bps"], direction in ("data", "both")),
        "reverse": side(path["reverse_rate_bps"] or path["rate_bps"], direction in ("ack", "both")),
    }


def _check_flows(config: dict[str, Any]) -> dict[str, Any]:
    """The emulator runs one flow from the start, with no access link of its own,
    whose application is bulk or writes at a rate; returns the application as the
    binary's spec takes it (`rate`, absent for bulk)."""
    flows = config["flows"]
    if len(flows) != 1:
        raise ConfigError(
            f"wavecc emulate runs one flow; the scenario has {len(flows)} "
            "flows (set flows to one bulk or rate flow)"
        )
    flow = flows[0]
    if flow.get("app") not in _APPS:
        raise ConfigError(
            f"flows[0].app = {flow.get('app')!r} cannot be emulated yet "
            f"(only {' or '.join(map(repr, _APPS))})"
        )
    for key, plain in (
        ("start_s", 0.0),
        ("access_delay_s", 0.0),
        ("access_rate_bps", None),
        ("stop_s", None),
    ):
        if flow.get(key) != plain:
            raise ConfigError(
                f"flows[0].{key} = {flow.get(key)!r} cannot be emulated yet (only {plain!r})"
            )
    if flow["app"] == "bulk":
        return {}
    write_bytes = flow.get("write_bytes") or config["tcp"]["mss_bytes"]
    return {"rate": {"bps": flow["rate_bps"], "write_bytes": write_bytes}}


# The applications the emulator's sender can play (docs/emulation.md).
_APPS = ("bulk", "rate")


def _check_can_emulate() -> None:
    if os.geteuid() != 0:
        raise EmulationFailed(
            "wavecc emulate needs root: it creates network namespaces and "
            "TUN devices (run it with sudo)"
        )
    if shutil.which("ip") is None or not Path("/dev/net/tun").exists():
        raise EmulationFailed(
            "wavecc emulate needs network namespaces and TUN devices: "
            "'ip' (iproute2) and /dev/net/tun"
        )


def find_binary() -> Path:
    """The emulator binary (see the module's doc), built from the checkout if needed."""
    named = os.environ.get("WAVECC_EMU")
    if named:
        if not Path(named).is_file():
            raise EmulationFailed(f"WAVECC_EMU={named} is not a file")
        return Path(named)
    on_path = shutil.which(BINARY)
    if on_path:
        return Path(on_path)
    checkout = Path(__file__).resolve().parents[2]
    if not (checkout / "crates" / "wavecc-emu" / "Cargo.toml").is_file():
        raise EmulationFailed(
            f"{BINARY} not found: build it in a wavecc checkout with "
            f"'cargo build --release -p wavecc-emu' and set WAVECC_EMU"
        )
    built = checkout / "target" / "release" / BINARY
    if shutil.which("cargo") is not None or not built.is_file():
        _build(checkout, first=not built.is_file())  # a no-op when it is up to date
    return built


def _build(checkout: Path, first: bool) -> None:
    if first:
        sys.stderr.write(f"building {BINARY} with cargo in {checkout}\n")
    done = subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "wavecc-emu"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["cargo failed"])[-1]
        raise EmulationFailed(f"building {BINARY} failed: {last}")


def _run_binary(args: list[str], stdin: str) -> Iterator[dict[str, Any]]:
    """Runs the binary, yielding its JSON lines. An interrupted or terminated CLI stops
    the binary with SIGTERM, which removes its namespaces before it exits."""
    process = subprocess.Popen(
        [str(find_binary()), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin and process.stdout and process.stderr  # all PIPE
    try:
        process.stdin.write(stdin)
        process.stdin.close()
        for line in process.stdout:
            yield json.loads(line)
        error = process.stderr.read()
        if process.wait() != 0:
            message = (
                error.strip().splitlines()[-1] if error.strip() else f"exit {process.returncode}"
            )
            raise EmulationFailed(message.removeprefix(f"{BINARY}: error: "))
    finally:
        if process.poll() is None:
            _terminate(process)


def _result(
    config: dict[str, Any],
    cca: str,
    samples: list[dict[str, Any]],
    totals: dict[str, Any],
    wall_s: float,
) -> result.Result:
    config, emulated = _split(config)
    flows = _flows_frame(samples)
    frames = _empty_frames()
    return result.Result(
        summary=_summary(config, emulated, cca, flows, totals, wall_s),
        config=config,
        flows=flows,
        queues=_queues_frame(samples),
        **frames,
    )


def _flows_frame(samples: list[dict[str, Any]]) -> pd.DataFrame:
    """`flows.parquet` from TCP_INFO. The kernel keeps no per-interval RTT samples:
    `rtt_mean_ms` is its srtt at the end of the interval, `rtt_samples` is 1 (one
    reading), 0 before the first RTT."""
    columns: dict[str, list[Any]] = {
        name: []
        for name in (
            "t_s",
            "flow",
            "goodput_mbps",
            "cwnd_segments",
            "ssthresh_segments",
            "inflight_bytes",
            "srtt_ms",
            "min_rtt_ms",
            "rtt_samples",
            "rtt_mean_ms",
            "pacing_rate_mbps",
            "ca_state",
            "retransmits",
        )
    }
    for sample in samples:
        tcp = sample["tcp"]
        measured = tcp["srtt_ms"] > 0
        row = {
            "t_s": sample["t_s"],
            "flow": 0,
            "goodput_mbps": sample["goodput_mbps"],
            "rtt_samples": int(measured),
            "rtt_mean_ms": tcp["srtt_ms"] if measured else None,
            **{
                k: tcp[k]
                for k in (
                    "cwnd_segments",
                    "ssthresh_segments",
                    "inflight_bytes",
                    "srtt_ms",
                    "min_rtt_ms",
                    "pacing_rate_mbps",
                    "ca_state",
                    "retransmits",
                )
            },
        }
        for name, values in columns.items():
            values.append(row[name])
    return result.trace_frame(columns)


def _queues_frame(samples: list[dict[str, Any]]) -> pd.DataFrame:
    """`queues.parquet`: the emulated buffers every interval, drops per interval."""
    columns: dict[str, list[Any]] = {
        n: [] for n in ("t_s", "queue", "bytes", "packets", "drops_overflow", "drops_random")
    }
    last = {side: {"overflow": 0, "lost": 0} for side in _QUEUES}
    for sample in samples:
        for side, queue in _QUEUES.items():
            link = sample[side]
            for name, value in (
                ("t_s", sample["t_s"]),
                ("queue", queue),
                ("bytes", link["queue_bytes"]),
                ("packets", link["queue_packets"]),
                ("drops_overflow", link["overflow"] - last[side]["overflow"]),
                ("drops_random", link["lost"] - last[side]["lost"]),
            ):
                columns[name].append(value)
            last[side] = link
    return result.trace_frame(columns)


def _split(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scenario's config and what was emulated (see `_prepare`)."""
    config = dict(config)
    return config, config.pop("emulated", {})


def _summary(
    config: dict[str, Any],
    emulated: dict[str, Any],
    cca: str,
    flows: pd.DataFrame,
    totals: dict[str, Any],
    wall_s: float,
) -> dict[str, Any]:
    rtts = flows["rtt_mean_ms"].dropna().to_numpy()
    forward = totals["forward"]
    losses = {
        cause: n
        for cause, n in (("overflow", forward["overflow"]), ("random", forward["lost"]))
        if n
    }
    flow = {
        "flow": 0,
        "cca": cca,
        "app": config["flows"][0]["app"],
        "transport": "tcp",
        "goodput_mbps": totals["bytes_delivered"] * 8 / config["duration_s"] / 1e6,
        "bytes_delivered": totals["bytes_delivered"],
        **_rtt_stats(rtts),
        "min_rtt_ms": _stat(np.min, flows["min_rtt_ms"].dropna().to_numpy()),
        "rtt_samples": len(rtts),
        **{
            key: totals[key]
            for key in (
                "segments_sent",
                "retransmitted_segments",
                "rto_events",
                "fast_recovery_episodes",
                "spurious_retransmissions",
            )
        },
        "losses": losses,
    }
    return {**_summary_base(config, emulated, wall_s, totals), "flows": [flow]}


def _summary_base(
    config: dict[str, Any], emulated: dict[str, Any], wall_s: float, links: dict[str, Any] | None
) -> dict[str, Any]:
    """The summary's keys but the flows; `links` holds the last counters of both
    directions (`forward`, `reverse`), None when nothing was sampled; `emulated` (the
    kernel's algorithm, the trace or command) gains the kernel release and the load."""
    queues = (
        []
        if links is None
        else [_queue_summary(name, links[side]) for side, name in _QUEUES.items()]
    )
    return {
        "name": config.get("name", "unnamed"),
        "seed": config.get("seed"),
        "sim_time_s": config["duration_s"],
        "wall_time_s": wall_s,
        "events": 0,
        "flows": [],
        "queues": queues,
        "ues": [],
        "cells": [],
        "emulated": {**emulated, **_machine()},
    }


def _machine() -> dict[str, Any]:
    """What the numbers of an emulated run depend on: the kernel and the machine's load."""
    return {"kernel": os.uname().release, "load_average": os.getloadavg()[0]}


def _rtt_stats(rtts: np.ndarray) -> dict[str, float | None]:
    return {
        "mean_rtt_ms": _stat(np.mean, rtts),
        "p50_rtt_ms": _stat(lambda r: np.percentile(r, 50), rtts),
        "p95_rtt_ms": _stat(lambda r: np.percentile(r, 95), rtts),
    }


def _queue_summary(name: str, link: dict[str, Any]) -> dict[str, Any]:
    return {
        "queue": name,
        "enqueued": link["offered"] - link["overflow"],
        "dequeued": link["offered"] - link["overflow"] - link["queue_packets"],
        "dropped_overflow": link["overflow"],
        "dropped_random": link["lost"],
        "max_bytes": link["max_bytes"],
    }


def _stat(function: Any, values: np.ndarray) -> float | None:
    return float(function(values)) if len(values) else None


# A command's flows -------------------------------------------------------------------

_RATE_UNITS = {"bps": 1.0, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


def parse_ss(text: str) -> list[dict[str, Any]]:
    """The sockets of `ss -tinH` output: per socket its `key` (local and peer address),
    `cca`, and the numbers of its TCP_INFO line (`cwnd`, `ssthresh`, `rtt` (srtt, ms),
    `minrtt`, `mss`, `unacked`, `bytes_acked`, `data_segs_out`, `retrans` (total),
    `pacing_rate` (b/s)); a number ss leaves out is absent."""
    sockets: list[dict[str, Any]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            fields = line.split()
            sockets.append({"key": f"{fields[-2]}>{fields[-1]}"})
        elif sockets:
            sockets[-1].update(_ss_info(line.split()))
    return sockets


def _ss_info(tokens: list[str]) -> dict[str, Any]:
    info: dict[str, Any] = {}
    if tokens and ":" not in tokens[0]:
        info["cca"] = tokens[0]
    for token, following in zip(tokens, [*tokens[1:], ""], strict=True):
        key, _, value = token.partition(":")
        if token == "pacing_rate":
            info["pacing_rate"] = _rate(following)
        elif key in ("rtt",):
            info["rtt"] = float(value.split("/")[0])
        elif key == "retrans":
            info["retrans"] = int(value.split("/")[1])
        elif key in ("cwnd", "ssthresh", "mss", "unacked", "bytes_acked", "data_segs_out"):
            info[key] = int(value)
        elif key == "minrtt":
            info["minrtt"] = float(value)
    return info


def _rate(text: str) -> float:
    for unit in sorted(_RATE_UNITS, key=len, reverse=True):
        if text.endswith(unit):
            return float(text.removesuffix(unit)) * _RATE_UNITS[unit]
    return float("nan")


def _reply(link: subprocess.Popen) -> dict[str, Any]:
    assert link.stdout and link.stderr  # PIPE
    line = link.stdout.readline()
    if not line:
        link.wait()
        error = link.stderr.read().strip().splitlines()
        raise EmulationFailed(
            (error[-1] if error else f"{BINARY} ended").removeprefix(f"{BINARY}: error: ")
        )
    return json.loads(line)


def _end(link: subprocess.Popen) -> None:
    """Ends the emulator's `link` mode: it stops at the end of its input and removes its
    namespaces; SIGTERM if it does not, SIGKILL as the last resort."""
    assert link.stdin  # PIPE
    link.stdin.close()
    try:
        link.wait(timeout=5)
    except subprocess.TimeoutExpired:
        _terminate(link)


def _terminate(process: subprocess.Popen) -> None:
    """SIGTERM, which lets the emulator remove its namespaces; SIGKILL after 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _end_group(child: subprocess.Popen) -> None:
    """Ends the command and whatever it started (its process group) with SIGTERM, then
    SIGKILL if it is still there after 5 s."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, signum)
        except ProcessLookupError:
            break
        try:
            child.wait(timeout=5)
            break
        except subprocess.TimeoutExpired:
            continue
    child.wait()


def _sample_command(
    link: subprocess.Popen, child: subprocess.Popen, ready: dict[str, Any], duration_s: float
) -> list[dict[str, Any]]:
    assert link.stdin  # PIPE
    samples = []
    start = time.monotonic()
    for k in range(1, round(duration_s / INTERVAL_S) + 1):
        time.sleep(max(0.0, start + k * INTERVAL_S - time.monotonic()))
        ss = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                ready["sender_ns"],
                "ss",
                "-tinH",
                "state",
                "established",
                "dst",
                ready["receiver_addr"],
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        link.stdin.write("\n")
        link.stdin.flush()
        samples.append(
            {"t_s": k * INTERVAL_S, "sockets": parse_ss(ss.stdout), **_reply(link)["link"]}
        )
        if child.poll() is not None:
            break
    return samples


def _command_result(
    config: dict[str, Any], samples: list[dict[str, Any]], wall_s: float
) -> result.Result:
    config, emulated = _split(config)
    ids: dict[str, int] = {}
    for sample in samples:
        for socket in sample["sockets"]:
            ids.setdefault(socket["key"], len(ids))
    rows: list[dict[str, Any]] = []
    acked = {key: 0 for key in ids}
    retrans = {key: 0 for key in ids}
    for sample in samples:
        for socket in sample["sockets"]:
            key = socket["key"]
            srtt = socket.get("rtt")
            rows.append(
                {
                    "t_s": sample["t_s"],
                    "flow": ids[key],
                    "goodput_mbps": (socket.get("bytes_acked", 0) - acked[key])
                    * 8
                    / INTERVAL_S
                    / 1e6,
                    "cwnd_segments": socket.get("cwnd"),
                    "ssthresh_segments": socket.get("ssthresh"),
                    "inflight_bytes": socket.get("unacked", 0) * socket.get("mss", 0),
                    "srtt_ms": srtt,
                    "min_rtt_ms": socket.get("minrtt"),
                    "rtt_samples": int(srtt is not None),
                    "rtt_mean_ms": srtt,
                    "pacing_rate_mbps": socket["pacing_rate"] / 1e6
                    if "pacing_rate" in socket
                    else None,
                    "ca_state": "unknown",
                    "retransmits": socket.get("retrans", 0) - retrans[key],
                }
            )
            acked[key] = socket.get("bytes_acked", 0)
            retrans[key] = socket.get("retrans", 0)
    columns = (
        "t_s",
        "flow",
        "goodput_mbps",
        "cwnd_segments",
        "ssthresh_segments",
        "inflight_bytes",
        "srtt_ms",
        "min_rtt_ms",
        "rtt_samples",
        "rtt_mean_ms",
        "pacing_rate_mbps",
        "ca_state",
        "retransmits",
    )
    flows = result.trace_frame({c: [row[c] for row in rows] for c in columns})
    last = {socket["key"]: socket for sample in samples for socket in sample["sockets"]}
    summary = _summary_base(config, emulated, wall_s, samples[-1] if samples else None)
    summary["flows"] = [
        _command_flow(ids[key], last[key], flows[flows["flow"] == ids[key]], config["duration_s"])
        for key in ids
    ]
    frames = _empty_frames()
    return result.Result(
        summary=summary, config=config, flows=flows, queues=_queues_frame(samples), **frames
    )


def _command_flow(
    flow: int, last: dict[str, Any], rows: pd.DataFrame, duration_s: float
) -> dict[str, Any]:
    """A command's flow in the summary; what ss does not show is None."""
    rtts = rows["rtt_mean_ms"].dropna().to_numpy()
    return {
        "flow": flow,
        "cca": last.get("cca", "unknown"),
        "app": "command",
        "transport": "tcp",
        "goodput_mbps": last.get("bytes_acked", 0) * 8 / duration_s / 1e6,
        "bytes_delivered": last.get("bytes_acked", 0),
        **_rtt_stats(rtts),
        "min_rtt_ms": last.get("minrtt"),
        "rtt_samples": len(rtts),
        "segments_sent": last.get("data_segs_out"),
        "retransmitted_segments": last.get("retrans", 0),
        "rto_events": None,
        "fast_recovery_episodes": None,
        "spurious_retransmissions": None,
        "losses": {},
    }
