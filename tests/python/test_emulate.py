"""`wavecc emulate`: the scenario-to-link translation, the result files, and (as root,
with network namespaces) end-to-end runs that must leave no namespace behind. The link
model's rules are unit-tested in the crate (crates/wavecc-emu/src/link.rs)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import wavecc
from wavecc import emulate
from wavecc._core import ConfigError

# System tests (root, namespaces, the emulator): left out of the quick loop.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def _namespaces_unavailable() -> str | None:
    """Why the end-to-end tests cannot run here, None if they can."""
    if os.geteuid() != 0:
        return "needs root (creates network namespaces and TUN devices)"
    if shutil.which("ip") is None or not Path("/dev/net/tun").exists():
        return "needs iproute2 and /dev/net/tun"
    probe = f"wavecc-probe-{os.getpid()}"
    if (
        subprocess.run(["ip", "netns", "add", probe], capture_output=True, check=False).returncode
        != 0
    ):
        return "network namespaces are unavailable (ip netns add failed)"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return None


UNAVAILABLE = _namespaces_unavailable()
needs_namespaces = pytest.mark.skipif(UNAVAILABLE is not None, reason=str(UNAVAILABLE))


def _ours() -> list[str]:
    """The emulator's namespaces that exist now."""
    listing = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=True
    ).stdout
    return [line.split()[0] for line in listing.splitlines() if line.startswith("wavecc-")]


@pytest.fixture(scope="module")
def emu_env() -> dict[str, str]:
    """The environment that points the CLI at the emulator binary (built if missing)."""
    binary = os.environ.get("WAVECC_EMU") or str(REPO / "target" / "release" / "wavecc-emu")
    if not Path(binary).is_file():
        subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "wavecc-emu"], cwd=REPO, check=True
        )
    return {**os.environ, "WAVECC_EMU": binary}


def _cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wavecc", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# The translation of a scenario's path ------------------------------------------------


def test_a_wired_path_becomes_two_directions():
    spec = emulate.link_spec(emulate.effective_config("dumbbell-1g"))
    assert spec["forward"] == {
        "rate_bps": 1e9,
        "delay_s": 0.01,
        "buffer_bytes": 2_500_000,
        "loss_per_packet": 0.0,
        "loss_per_byte": 0.0,
    }
    # reverse_rate_bps = 0 means the forward rate.
    assert spec["reverse"] == spec["forward"]


def test_loss_goes_where_its_direction_says_and_buffers_in_packets_become_bytes():
    data = emulate.link_spec(
        emulate.effective_config(
            "dumbbell-1g", overrides=["path.loss.per_packet=0.001", "path.reverse_rate_bps=1e7"]
        )
    )
    assert data["forward"]["loss_per_packet"] == 0.001
    assert data["reverse"]["loss_per_packet"] == 0.0
    assert data["reverse"]["rate_bps"] == 1e7
    ack = emulate.link_spec(
        emulate.effective_config(
            "dumbbell-1g",
            overrides=[
                "path.loss.per_byte=1e-6",
                "path.loss.direction=ack",
                "path.buffer_bytes=0",
                "path.buffer_packets=100",
            ],
        )
    )
    assert (ack["forward"]["loss_per_byte"], ack["reverse"]["loss_per_byte"]) == (0.0, 1e-6)
    assert ack["forward"]["buffer_bytes"] == 100 * 1500


def test_what_cannot_be_emulated_yet_is_refused_by_name():
    with pytest.raises(ConfigError, match="wavecc trace export"):
        emulate.link_spec(emulate.effective_config("urban"))
    with pytest.raises(ConfigError, match=r"flows\[0\]\.start_s"):
        emulate.link_spec(emulate.effective_config("dumbbell-1g", overrides=["flows.0.start_s=1"]))
    onoff = ["flows.0.app='onoff'", "flows.0.rate_bps=1e8", "flows.0.on_s=1", "flows.0.off_s=1"]
    with pytest.raises(ConfigError, match=r"flows\[0\]\.app = 'onoff' .*'bulk' or 'rate'"):
        emulate.link_spec(emulate.effective_config("dumbbell-1g", overrides=onoff))


def test_a_rate_application_is_played_by_the_emulators_sender():
    # urban's server: 1400-byte writes at 1 Gb/s.
    assert emulate._check_flows(emulate.effective_config("urban")) == {
        "rate": {"bps": 1e9, "write_bytes": 1400}
    }
    # Without write_bytes, the application writes one MSS at a time, as in the simulator.
    paced = emulate.effective_config(
        "dumbbell-1g", overrides=["flows.0.app='rate'", "flows.0.rate_bps=5e7"]
    )
    assert emulate._check_flows(paced) == {"rate": {"bps": 5e7, "write_bytes": 1400}}
    assert emulate._check_flows(emulate.effective_config("dumbbell-1g")) == {}


def test_a_scenario_with_several_flows_is_refused_in_one_line(cli, tmp_path):
    two = "flows=[{cca = 'cubic', app = 'bulk'}, {cca = 'reno', app = 'bulk'}]"
    done = cli("emulate", "urban", "--cca", "cubic", "--set", two)
    assert done.returncode == 2
    assert done.stderr == (
        "wavecc: error: wavecc emulate runs one flow; the scenario has 2 flows "
        "(set flows to one bulk or rate flow)\n"
    )
    assert not (tmp_path / "work" / "out").exists()


def test_not_root_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path):
    from wavecc import cli

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    out = tmp_path / "unused"
    assert cli.main(["emulate", "dumbbell-1g", "--cca", "cubic", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "wavecc: error: wavecc emulate needs root: it creates network namespaces "
        "and TUN devices (run it with sudo)\n"
    )
    assert not out.exists()


# The result files ----------------------------------------------------------------------


def _sample(t_s: float, overflow: int, lost: int) -> dict:
    link = {
        "queue_bytes": 3000,
        "queue_packets": 2,
        "offered": 10,
        "delivered_bytes": 9000,
        "overflow": overflow,
        "lost": lost,
        "max_bytes": 4500,
    }
    tcp = {
        "cwnd_segments": 10,
        "ssthresh_segments": None,
        "inflight_bytes": 14480,
        "srtt_ms": 20.5,
        "min_rtt_ms": 20.1,
        "pacing_rate_mbps": 11.0,
        "ca_state": "open",
        "retransmits": 0,
        "mss_bytes": 1448,
    }
    return {"t_s": t_s, "goodput_mbps": 50.0, "tcp": tcp, "forward": link, "reverse": link}


def test_an_emulated_result_has_the_columns_of_a_simulated_one(dumbbell):
    samples = [_sample(0.1, 0, 0), _sample(0.2, 3, 1), _sample(0.3, 3, 4)]
    totals = {
        "bytes_delivered": 3_750_000,
        "segments_sent": 10,
        "retransmitted_segments": 4,
        "rto_events": 0,
        "fast_recovery_episodes": 1,
        "spurious_retransmissions": 0,
        "forward": samples[-1]["forward"],
        "reverse": samples[-1]["reverse"],
    }
    config = {**dumbbell.config, "duration_s": 0.3}
    result = emulate._result(config, "cubic", samples, totals, wall_s=0.4)
    for table in wavecc.result.TABLES:
        ours, theirs = getattr(result, table), getattr(dumbbell, table)
        assert list(ours.columns) == list(theirs.columns), table
        assert ours.dtypes.astype(str).tolist() == theirs.dtypes.astype(str).tolist(), table
    assert set(result.summary["flows"][0]) == set(dumbbell.summary["flows"][0])
    assert result.summary["flows"][0]["goodput_mbps"] == pytest.approx(100.0)
    assert result.flows["ssthresh_segments"].isna().all()
    forward = result.queues[result.queues["queue"] == "bottleneck"]
    assert forward["drops_overflow"].tolist() == [0, 3, 0], "drops per interval"
    assert forward["drops_random"].tolist() == [0, 1, 3]
    assert result.summary["flows"][0]["losses"] == {"overflow": 3, "random": 4}


# End to end, as root -------------------------------------------------------------------


@needs_namespaces
def test_emulate_writes_a_run_and_leaves_no_namespace(emu_env, tmp_path):
    before = _ours()
    out = tmp_path / "emulated"
    done = _cli(
        emu_env,
        tmp_path,
        "emulate",
        "dumbbell-1g",
        "--cca",
        "cubic",
        "--duration",
        "2",
        "--set",
        "path.rate_bps=1e8",
        "--set",
        "path.buffer_bytes=250000",
        "--out",
        str(out),
        "--no-figure",
    )
    assert done.returncode == 0, done.stderr
    assert _ours() == before
    assert "link: the scenario's path\n" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    flow = summary["flows"][0]
    assert flow["cca"] == "cubic"
    # 100 Mb/s of 1500-byte packets carry at most 1448/1500 of it as TCP payload.
    assert 70 < flow["goodput_mbps"] <= 96.6
    assert 20 <= flow["min_rtt_ms"] < 22, "two 10 ms one-way delays"
    flows = pd.read_parquet(out / "flows.parquet")
    assert len(flows) == 20 and flows["cwnd_segments"].max() > 10
    # config.json is the effective scenario, as a simulated run's; the emulation's own
    # keys are in the summary.
    config = json.loads((out / "config.json").read_text())
    assert config["duration_s"] == 2 and config["path"]["rate_bps"] == 1e8
    assert "emulated" not in config and summary["emulated"]["cca"] == "cubic"
    # Saved like a run: the same kind of output directory, refused without --force.
    again = _cli(emu_env, tmp_path, "emulate", "dumbbell-1g", "--cca", "cubic", "--out", str(out))
    assert again.returncode == 2 and "--force" in again.stderr


@needs_namespaces
def test_a_radio_scenario_runs_over_its_own_exported_trace(emu_env, tmp_path):
    before = _ours()
    # The run exports the trace into a directory of its own under TMPDIR, and removes it.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**emu_env, "TMPDIR": str(scratch)}
    out = tmp_path / "urban"
    done = _cli(
        env, tmp_path, "emulate", "urban", "--cca", "bbr", "--duration", "2", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    # A run removes stale namespaces of runs that died, so fewer may be left than before.
    assert set(_ours()) <= set(before), "the run left a namespace behind"
    assert list(scratch.iterdir()) == [], "the run left its exported trace behind"
    assert "exporting urban's link trace (2 s of radio" in done.stderr
    assert "link: urban's trace, exported for the run (UE 0, seed 1): " in done.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [".wavecc-output.json", "summary.json", "config.json", "figure.png"]
        + [f"{table}.parquet" for table in wavecc.result.TABLES]
    )
    summary = json.loads((out / "summary.json").read_text())
    flow = summary["flows"][0]
    assert (flow["cca"], flow["app"]) == ("bbr", "rate")
    # urban's server writes at 1 Gb/s; 1448 of each 1500 bytes on the link are payload.
    assert 100 < flow["goodput_mbps"] < 1000
    # The trace's delays: 11 ms forward, 11.6 ms back.
    assert 22.6 <= flow["min_rtt_ms"] < 40
    exported = summary["emulated"]["trace_exported"]
    assert {key: exported[key] for key in ("scenario", "ue", "seed", "duration_s", "slot_s")} == {
        "scenario": "urban",
        "ue": 0,
        "seed": 1,
        "duration_s": 2.0,
        "slot_s": 1e-4,
    }
    # The radio offers 2.3 Gb/s on average over urban's first minute.
    assert 1000 < exported["mean_rate_mbps"] < 4000
    assert 19_000 < exported["slots"] <= 20_000, "2 s of 100 us slots, from the first delivery"
    flows = pd.read_parquet(out / "flows.parquet")
    assert len(flows) == 20 and (flows["srtt_ms"] >= 22.6).all()
    config = json.loads((out / "config.json").read_text())
    assert config["name"] == "urban" and config["radio"] is not None


@contextmanager
def _sigint(disposition: Any) -> Iterator[None]:
    """Children started inside take SIGINT as `disposition` gives it: a handler becomes
    the default at exec, as in a terminal's foreground job; SIG_IGN stays ignored, as
    in a shell's background job. So the tests do not depend on how they were started
    (a background job's tests inherit SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, disposition)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _start_long_run(out: Path, env: dict[str, str]) -> subprocess.Popen:
    """A 30 s emulated run in a session of its own, returned once its namespaces exist."""
    before = _ours()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wavecc",
            "emulate",
            "dumbbell-1g",
            "--cca",
            "reno",
            "--duration",
            "30",
            "--out",
            str(out),
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20
    while len(_ours()) < len(before) + 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_ours()) == len(before) + 2, "the run never created its namespaces"
    return process


@needs_namespaces
@pytest.mark.parametrize(
    "signum, group, code, line",
    [
        (signal.SIGTERM, False, 143, "wavecc: terminated"),  # to the CLI alone
        (signal.SIGINT, True, 130, "wavecc: interrupted"),  # Ctrl-C: the whole process group
    ],
)
def test_a_signal_removes_the_namespaces_and_writes_nothing(
    emu_env, tmp_path, signum, group, code, line
):
    before = _ours()
    out = tmp_path / "never"
    with _sigint(signal.default_int_handler):
        process = _start_long_run(out, emu_env)
    if group:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    assert process.wait(timeout=20) == code, process.stderr.read()
    assert process.stderr.read().strip() == line
    assert _ours() == before and not out.exists()


@needs_namespaces
def test_a_background_run_lets_ctrl_c_pass_as_its_shell_does(emu_env, tmp_path):
    # A shell starts a background job ignoring SIGINT; the emulator must not stop on
    # the Ctrl-C of the job in the foreground while the CLI carries on.
    before = _ours()
    with _sigint(signal.SIG_IGN):
        process = _start_long_run(tmp_path / "never", emu_env)
    os.killpg(process.pid, signal.SIGINT)
    time.sleep(1.5)  # the CLI stops within a second of a signal it takes
    assert process.poll() is None and len(_ours()) == len(before) + 2
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 143, process.stderr.read()
    assert _ours() == before


@needs_namespaces
def test_a_killed_runs_namespaces_are_removed_by_the_next_start(emu_env):
    # A pid above the kernel's limit is never alive; our own pid is.
    dead, live = "wavecc-4194305-snd", f"wavecc-{os.getpid()}-rcv"
    for name in (dead, live):
        subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run([emu_env["WAVECC_EMU"], "cleanup"], check=True)
        assert dead not in _ours() and live in _ours()
    finally:
        for name in (dead, live):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


@needs_namespaces
def test_the_selftest_delivers_what_the_link_model_says(emu_env):
    before = _ours()
    lines = subprocess.run(
        [emu_env["WAVECC_EMU"], "selftest", "0.5"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.splitlines()
    cases = {row["case"]: row for row in map(json.loads, lines)}
    assert list(cases) == ["100 Mb/s", "500 Mb/s", "1000 Mb/s", "trace, 125 us slots"]
    slow = cases["100 Mb/s"]
    assert slow["delivered_rate_mbps"] == pytest.approx(slow["expected_rate_mbps"], rel=0.03)
    assert slow["expected_rate_mbps"] == pytest.approx(100, rel=0.03)
    assert 0.002 < slow["measured_loss"] < 0.03
    assert 0 < slow["delay_error_median_ms"] < 5
    assert _ours() == before


TRACE = """# wavecc link trace 1
# slot_s = 0.000125
# forward_delay_s = 0.005
# reverse_delay_s = 0.005
# buffer_bytes = 100000
t_s,bytes
0.000000,2500
0.000125,0
"""


@needs_namespaces
def test_a_link_trace_replaces_the_scenarios_path(emu_env, tmp_path):
    trace = tmp_path / "link.csv"
    trace.write_text(TRACE)  # 2500 bytes per 250 us: 80 Mb/s
    out = tmp_path / "traced"
    done = _cli(
        emu_env,
        tmp_path,
        "emulate",
        "dumbbell-1g",
        "--cca",
        "reno",
        "--duration",
        "1.5",
        "--trace",
        str(trace),
        "--out",
        str(out),
        "--no-figure",
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert 40 < summary["flows"][0]["goodput_mbps"] < 80 * 1448 / 1500
    assert 10 <= summary["flows"][0]["min_rtt_ms"] < 12
    assert summary["emulated"]["trace"] == str(trace)
    assert f"link: the trace {trace}\n" in done.stdout


@needs_namespaces
def test_a_bad_trace_is_one_line_naming_the_line(emu_env, tmp_path):
    trace = tmp_path / "link.csv"
    trace.write_text(TRACE.replace("0.000125,0", "0.000125,lots"))
    done = _cli(
        emu_env,
        tmp_path,
        "emulate",
        "dumbbell-1g",
        "--cca",
        "reno",
        "--trace",
        str(trace),
        "--out",
        str(tmp_path / "never"),
    )
    assert done.returncode == 2
    assert done.stderr == f"wavecc: error: {trace}: line 8: bytes 'lots' is not a whole number\n"
    assert not (tmp_path / "never").exists()


# A command's flows ---------------------------------------------------------------------

SS = """0      0       10.77.0.1:35824 10.77.0.2:5201
\t bbr wscale:10,10 rto:224 rtt:20.179/5.705 ato:40 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:13 bytes_sent:164 bytes_acked:165 bytes_received:4 segs_out:8 segs_in:7 data_segs_out:3 data_segs_in:4 bbr:(bw:1150304bps,mrtt:20.108,pacing_gain:2.88672,cwnd_gain:2.88672) send 7462808bps lastsnd:1464 lastrcv:1404 lastack:1404 pacing_rate 16393616bps delivery_rate 1150744bps delivered:4 app_limited busy:40ms rcv_space:14480 rcv_ssthresh:64088 minrtt:20.108 snd_wnd:65536
0      3362752 10.77.0.1:35834 10.77.0.2:5201
\t cubic wscale:10,10 rto:224 rtt:22.896/0.31 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:364 ssthresh:238 bytes_sent:16827245 bytes_retrans:647256 bytes_acked:15904870 segs_out:11624 segs_in:7238 data_segs_out:11622 send 184162124bps lastrcv:1424 pacing_rate 1.5Gbps delivery_rate 93854160bps delivered:10986 busy:1424ms unacked:190 retrans:0/447 rcv_space:14480 minrtt:20 snd_wnd:10273792
"""  # two sockets as `ss -tinH` shows them (Linux 6.18, iproute2), the second edited


def test_ss_output_becomes_one_flow_per_connection():
    control, data = emulate.parse_ss(SS)
    assert control["key"] == "10.77.0.1:35824>10.77.0.2:5201"
    assert (control["cca"], control["cwnd"], control["rtt"]) == ("bbr", 13, 20.179)
    assert "ssthresh" not in control and "retrans" not in control
    assert control["pacing_rate"] == 16393616
    assert (data["cca"], data["ssthresh"], data["unacked"], data["mss"]) == (
        "cubic",
        238,
        190,
        1448,
    )
    assert (data["bytes_acked"], data["retrans"], data["minrtt"]) == (15904870, 447, 20.0)
    assert data["pacing_rate"] == 1.5e9 and data["data_segs_out"] == 11622


def test_only_emulate_takes_a_command(cli):
    done = cli("run", "dumbbell-1g", "--", "ls")
    assert (done.returncode, done.stderr) == (2, "wavecc: error: run takes no '-- COMMAND'\n")


@needs_namespaces
@pytest.mark.skipif(shutil.which("iperf3") is None, reason="needs iperf3")
def test_a_command_runs_in_the_sender_namespace_and_its_connections_are_flows(emu_env, tmp_path):
    before = _ours()
    out = tmp_path / "iperf"
    script = (
        "ip netns exec $WAVECC_RECEIVER_NS iperf3 -s -1 -D && sleep 0.3 && "
        "iperf3 -c $WAVECC_RECEIVER_ADDR -t 1.5 >/dev/null"
    )
    command = ["sh", "-c", script]
    done = _cli(
        emu_env,
        tmp_path,
        "emulate",
        "dumbbell-1g",
        "--cca",
        "bbr",
        "--duration",
        "5",
        "--set",
        "path.rate_bps=1e8",
        "--out",
        str(out),
        "--no-figure",
        "--",
        *command,
    )
    assert done.returncode == 0, done.stderr
    assert _ours() == before
    assert "link: the scenario's path\n" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sim_time_s"] < 4, "the run ends with the command"
    data = max(summary["flows"], key=lambda f: f["bytes_delivered"])
    assert data["cca"] == "bbr" and data["app"] == "command"
    # iperf3 sends for 1.5 s over 100 Mb/s (96.5 Mb/s of TCP payload): the ceiling shows
    # the scenario's link shaped it. The emulator forwards in wall-clock time, so on a
    # loaded 2-core machine it carries less (48 Mb/s seen once in a full CI run); the
    # floor only shows that iperf3's bulk transfer, not a handshake, crossed the link.
    assert 20 < data["bytes_delivered"] * 8 / 1.5 / 1e6 < 100
    flows = pd.read_parquet(out / "flows.parquet")
    assert set(flows["flow"]) == {f["flow"] for f in summary["flows"]}
    assert summary["emulated"]["command"] == command


@needs_namespaces
def test_an_algorithm_the_kernel_lacks_is_one_line(emu_env, tmp_path):
    before = _ours()
    for extra in ([], ["--", "true"]):  # set on the socket; as the namespace's default
        done = _cli(
            emu_env,
            tmp_path,
            "emulate",
            "dumbbell-1g",
            "--cca",
            "nosuchcc",
            "--out",
            str(tmp_path / "never"),
            *extra,
        )
        assert done.returncode == 2
        assert done.stderr.startswith(
            "wavecc: error: congestion control 'nosuchcc' is not available in this kernel"
        )
        assert done.stderr.count("\n") == 1 and not (tmp_path / "never").exists()
    assert _ours() == before
