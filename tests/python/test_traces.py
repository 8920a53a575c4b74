"""Link traces: `path.trace`, `wavecc trace export` and `wavecc trace import`."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

import wavecc
from wavecc import traces
from wavecc._core import ConfigError

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "examples" / "traces"


def one_error_line(done, *named: str) -> str:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("wavecc: error: ") and done.stderr.count("\n") == 1
    for text in named:
        assert text in done.stderr, done.stderr
    return done.stderr


def write_trace(path: Path, rows: str, meta: str = "# slot_s = 0.001\n") -> Path:
    path.write_text(f"{traces.MAGIC}\n{meta}t_s,bytes\n{rows}")
    return path


# ---- path.trace --------------------------------------------------------------------


def test_a_run_over_a_constant_trace_gets_its_rate(tmp_path):
    # 1500 bytes per 1 ms: 12 Mb/s of IP packets, 1400/1452 of it payload.
    trace = write_trace(
        tmp_path / "t.csv", "0,1500\n", "# slot_s = 0.001\n# forward_delay_s = 0.01\n"
    )
    result = wavecc.run("trace-bottleneck", overrides=[f"path.trace={trace}", "duration_s=10"])
    goodput = result.summary["flows"][0]["goodput_mbps"]
    assert goodput == pytest.approx(12 * 1400 / 1452, rel=0.03)


def test_path_trace_errors_name_the_key_the_file_and_the_line(cli, tmp_path):
    missing = tmp_path / "none.csv"
    done = cli("run", "trace-bottleneck", "--set", f"path.trace={missing}")
    one_error_line(done, "path.trace: ", str(missing), "no such file")
    bad = write_trace(tmp_path / "bad.csv", "0,1500\n0.001,x\n")
    done = cli("run", "trace-bottleneck", "--set", f"path.trace={bad}")
    one_error_line(done, "path.trace: ", "bad.csv: line 5: bytes 'x'")
    slow = write_trace(tmp_path / "slow.csv", "0,1\n", "# slot_s = 1e-9\n")
    one_error_line(
        cli("run", "trace-bottleneck", "--set", f"path.trace={slow}"), "slot_s must be in"
    )
    assert not list((tmp_path / "work").iterdir()), "nothing is written"


def test_a_relative_trace_is_taken_from_the_scenario_files_directory(tmp_path, scenario_file):
    scenario = scenario_file(
        'duration_s = 1\n[path]\ntrace = "link.csv"\n[[flows]]\ncca = "cubic"\n'
    )
    write_trace(scenario.parent / "link.csv", "0,1500\n")
    config = wavecc.load_scenario(scenario)
    assert config["path"]["trace"] == str(scenario.parent / "link.csv")
    assert wavecc.run(scenario).summary["flows"][0]["goodput_mbps"] > 0


def test_a_relative_trace_from_set_is_taken_from_the_working_directory(cli, tmp_path):
    write_trace(tmp_path / "work" / "here.csv", "0,1500\n")
    done = cli("run", "trace-bottleneck", "--set", "path.trace=here.csv", "--set", "duration_s=1",
               "--no-figure", "--out", "r")  # fmt: skip
    assert done.returncode == 0, done.stderr
    saved = (tmp_path / "work" / "r" / "config.json").read_text()
    assert str(tmp_path / "work" / "here.csv") in saved


def test_the_emulator_takes_a_scenarios_path_trace(monkeypatch, tmp_path):
    from wavecc import emulate

    monkeypatch.setattr(emulate, "_check_can_emulate", lambda: None)
    trace = write_trace(tmp_path / "t.csv", "0,1500\n")
    with emulate._prepare(
        "trace-bottleneck", "cubic", 1.0, None, [f"path.trace={trace}"], None
    ) as (config, spec):
        assert spec["trace"] == str(trace) and "forward" not in spec
    assert config["emulated"]["trace"] == str(trace)


# ---- export ------------------------------------------------------------------------


def test_a_dumbbell_and_its_exported_trace_give_the_same_goodput(cli, tmp_path):
    """The trace serves 1500 bytes per 12 us slot, the rate exactly; a packet leaves at
    the end of the slot holding its last byte, at most one slot (12 us) after the
    serialiser would send it. CUBIC's loss epochs shift by as little, so the goodput
    may differ only by the timing of its last epoch: 1% over 10 s."""
    setup = ["--set", "duration_s=10"]
    out = tmp_path / "d.csv"
    done = cli("trace", "export", "dumbbell-1g", "--out", out, *setup)
    assert done.returncode == 0, done.stderr
    trace = traces.read(out)
    assert (trace.slot_s, trace.bytes.tolist()) == (12e-6, [1500])
    assert (trace.forward_delay_s, trace.buffer_bytes) == (0.01, 2_500_000)
    direct = wavecc.run("dumbbell-1g", overrides=["duration_s=10"])
    replayed = wavecc.run("dumbbell-1g", overrides=["duration_s=10", f"path.trace={out}"])
    goodput = [r.summary["flows"][0]["goodput_mbps"] for r in (direct, replayed)]
    assert goodput[1] == pytest.approx(goodput[0], rel=0.01), goodput


def test_the_mahimahi_export_lists_each_1500_byte_opportunity(tmp_path):
    trace = traces.Trace(slot_s=0.000125, bytes=np.array([1000, 1000, 0, 1000] * 8))
    text = traces.to_mahimahi(trace)
    # 24000 bytes per 4 ms: 16 packets, the k-th once 1500 k bytes have been offered.
    stamps = [int(x) for x in text.split()]
    assert len(stamps) == 16 and stamps[-1] == 4
    assert stamps[:2] == [1, 1]
    reread = traces.import_trace("mahimahi", _write(tmp_path / "m.trace", text))
    assert reread.bytes.sum() == 16 * 1500 and len(reread.bytes) == 4


def test_export_never_overwrites_a_file_it_did_not_write(cli, tmp_path):
    work = tmp_path / "work"
    (work / "notes.txt").write_text("mine")
    done = cli("trace", "export", "dumbbell-1g", "--out", "notes.txt", "--force")
    one_error_line(done, "notes.txt", "not a trace wavecc wrote")
    assert (work / "notes.txt").read_text() == "mine"
    assert cli("trace", "export", "dumbbell-1g", "--out", "t.csv").returncode == 0
    one_error_line(cli("trace", "export", "dumbbell-1g", "--out", "t.csv"), "--force")
    assert cli("trace", "export", "lossy-100m", "--out", "t.csv", "--force").returncode == 0
    assert traces.read(work / "t.csv").mean_rate_bps == pytest.approx(100e6)
    done = cli("trace", "export", "dumbbell-1g", "--out", "t.csv", "--format", "mahimahi")
    one_error_line(done, "--force")
    assert (
        cli("trace", "export", "dumbbell-1g", "--out", "m", "--format", "mahimahi").returncode == 0
    )
    one_error_line(
        cli("trace", "export", "dumbbell-1g", "--out", "m", "--force"), "not a trace wavecc wrote"
    )


def test_a_radio_scenario_exports_its_delivery_opportunities(cli, tmp_path):
    out = tmp_path / "u.csv"
    done = cli("trace", "export", "urban", "--out", out, "--duration", "2")
    assert done.returncode == 0, done.stderr
    trace = traces.read(out)
    config = wavecc.load_scenario("urban")
    assert trace.slot_s == pytest.approx(100e-6), "the ns3-mmwave profile's slot"
    assert len(trace.bytes) == pytest.approx(2 / 100e-6, abs=200), "2 s from the first delivery"
    assert trace.buffer_bytes == config["radio"]["rlc_buffer_bytes"]
    assert trace.forward_delay_s == pytest.approx(0.010 + 0.001, abs=0.0011)
    assert trace.reverse_delay_s > trace.forward_delay_s
    assert trace.bytes[0] > 0, "the trace starts at the first delivery"
    assert 0.5e9 < trace.mean_rate_bps < 4e9


# ---- import ------------------------------------------------------------------------


def test_mahimahi_lines_become_1500_bytes_in_the_ms_they_name():
    trace = traces.import_trace("mahimahi", SAMPLES / "mahimahi.trace")
    lines = (SAMPLES / "mahimahi.trace").read_text().split()
    assert trace.slot_s == 0.001 and len(trace.bytes) == int(lines[-1])
    assert trace.bytes.sum() == 1500 * len(lines)
    assert trace.bytes[0] == 1500 * lines.count("1")
    assert not trace.bytes[800:1000].any(), "the outage of the sample"


def test_lumos5g_holds_each_seconds_throughput_over_its_second():
    with pytest.raises(ConfigError, match="holds runs 1, 2; choose one with --run"):
        traces.import_trace("lumos5g", SAMPLES / "lumos5g.csv")
    trace = traces.import_trace("lumos5g", SAMPLES / "lumos5g.csv", run=2)
    rows = [line.split(",") for line in (SAMPLES / "lumos5g.csv").read_text().splitlines()[1:]]
    mbps = [float(r[15]) for r in rows if r[0] == "2"]
    assert len(trace.bytes) == 30_000
    per_second = trace.bytes.reshape(30, 1000).sum(axis=1)
    assert np.allclose(per_second, np.array(mbps) * 1e6 / 8, atol=1)
    second = trace.bytes[:1000]
    assert second.max() - second.min() <= 1, "held: the same bytes every slot"
    assert not trace.bytes[11_000:15_000].any(), "the blocked seconds 12 to 15"


def test_gnettrack_holds_the_rate_through_idle_rows_and_missing_values():
    trace = traces.import_trace(
        "gnettrack", SAMPLES / "gnettrack.csv", defaults=traces.PathDefaults(slot_s=0.01)
    )
    rows = [line.split(",") for line in (SAMPLES / "gnettrack.csv").read_text().splitlines()[1:]]
    per_second = trace.bytes.reshape(40, 100).sum(axis=1)
    expected = []
    for r in rows:
        held = r[14] == "I" or r[12] == "-"
        expected.append(expected[-1] if held else int(r[12]) * 1e3 / 8)
    assert np.allclose(per_second, expected, atol=1)
    assert trace.slot_s == 0.01


@pytest.mark.parametrize(
    "fmt, text, named",
    [
        ("mahimahi", "1\n2\nx\n", "line 3: 'x' is not a whole number"),
        ("mahimahi", "5\n3\n", "line 2: 3 ms comes before"),
        ("mahimahi", "0\n", "last timestamp must be > 0"),
        ("lumos5g", "run_num,seq_num,Throughput\n1,1,5\n1,2,fast\n", "line 3: Throughput (Mb/s) 'fast'"),
        ("lumos5g", "run_num,seq_num,Throughput\n1,2,5\n1,2,5\n", "line 3: seq_num 2 of run 1"),
        ("lumos5g", "run_num,seq_num,Throughput\n1,1\n", "line 2: 2 fields, the header has 3"),
        ("lumos5g", "run_num,Throughput\n1,1\n", "line 1: no column seq_num"),
        ("gnettrack", "Timestamp,DL_bitrate,State\n2019.12.16_09.14.57,5,D\nyesterday,5,D\n", "line 3: Timestamp 'yesterday'"),
        ("gnettrack", "Timestamp,DL_bitrate,State\n2019.12.16_09.14.57,-5,D\n", "line 2: DL_bitrate (kb/s) '-5'"),
        ("gnettrack", "Timestamp,DL_bitrate,State\n2019.12.16_09.14.57,5,X\n", "line 2: State 'X'"),
        ("gnettrack", "Timestamp,DL_bitrate,State\n2019.12.16_09.14.58,5,D\n2019.12.16_09.14.57,5,D\n", "line 3: Timestamp goes back"),
    ],
)  # fmt: skip
def test_a_malformed_row_is_one_error_naming_its_line(cli, tmp_path, fmt, text, named):
    source = _write(tmp_path / "in.txt", text)
    done = cli("trace", "import", fmt, source, "--out", "t.csv")
    one_error_line(done, str(source), named)
    assert not (tmp_path / "work" / "t.csv").exists()


def test_an_imported_trace_runs_from_the_cli_and_the_api(cli, tmp_path):
    done = cli("trace", "import", "lumos5g", SAMPLES / "lumos5g.csv", "--run", "1", "--out", "l.csv",
               "--one-way-delay-s", "0.02", "--buffer-bytes", "1000000")  # fmt: skip
    assert done.returncode == 0, done.stderr
    trace_file = tmp_path / "work" / "l.csv"
    trace = traces.read(trace_file)
    assert (trace.forward_delay_s, trace.buffer_bytes) == (0.02, 1_000_000)
    done = cli("run", "trace-bottleneck", "--set", "path.trace=l.csv", "--set", "duration_s=3",
               "--no-figure", "--out", "r")  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = wavecc.run("trace-bottleneck", overrides=[f"path.trace={trace_file}", "duration_s=3"])
    goodput = result.summary["flows"][0]["goodput_mbps"]
    # The first 3 s offer about 1 Gb/s; a 40 ms RTT CUBIC flow gets a good part of it.
    assert 100 < goodput < trace.bytes[:3000].sum() * 8 / 3 / 1e6
    assert str(trace_file) in (tmp_path / "work" / "r" / "config.json").read_text()


def test_the_samples_are_the_scripts(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["make_trace_samples.py", str(tmp_path)])
    runpy.run_path(str(REPO / "scripts" / "make_trace_samples.py"), run_name="__main__")
    for name in ("mahimahi.trace", "lumos5g.csv", "gnettrack.csv"):
        assert (tmp_path / name).read_bytes() == (SAMPLES / name).read_bytes(), name


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
