"""`wavecc validate ns3-mmwave`: cases from the references' fields, the comparison
table, the figures, the output directory's rules, the errors; and FB-TCP's `sink` rate
source in a whole run.

ns3-mmwave never runs: the tests write reference directories whose values are set
from short wavecc runs of the same case, so every number of the table is known."""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import wavecc
from wavecc import _core, ns3mmwave, validate, validate_mmwave
from wavecc.config import resolve, to_json
from wavecc.outdir import MARKER
from wavecc.validate_mmwave import Case

REPO = Path(__file__).resolve().parents[2]
REFERENCES = REPO / "validation" / "ns3mmwave" / "reference"
DURATION_S = 1.0


def run_cli(*args: str | Path, cwd: Path):
    return subprocess.run(
        [sys.executable, "-m", "wavecc", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def assert_one_error_line(proc, *fragments: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    [line] = proc.stderr.splitlines()
    assert line.startswith("wavecc: error: ")
    for fragment in fragments:
        assert fragment in line, line


def case_fields(
    script="s2", tcp_type="TcpNewReno", error_rate=0.0, rng_run=1, rlc=2_621_440, sim_time=20.0
) -> dict:
    return {
        "script": script,
        "transport": "tcp" if tcp_type else "udp",
        "tcp_type": tcp_type,
        "error_rate": error_rate,
        "rlc_buffer_bytes": rlc,
        "rng_run": rng_run,
        "sim_time_s": sim_time,
        "options": {},
    }


def write_reference(root: Path, directory: str, fields: dict, **values) -> Path:
    """A reference directory as `ns3mmwave.convert` writes it, with chosen values."""
    path = root / directory
    path.mkdir(parents=True)
    summary = {
        "case": fields,
        "goodput_mbps": 100.0,
        "srtt_mean_ms_timeweighted": 30.0,
        "dl_sinr_timeavg_db": 20.0,
        "dl_tb_error_rate": 0.01,
        "error_model_drops": 0,
    } | values
    (path / ns3mmwave.SUMMARY).write_text(json.dumps(summary))
    bins = ns3mmwave.bin_count(fields["sim_time_s"])
    rows = [
        {
            "t_s": f"{(k + 1) * 0.1:.1f}",
            "sink_goodput_mbps": 100.0,
            "srtt_mean_ms": 30.0,
            "cwnd_segments_last": "" if k % 3 else 10 * k,
            "dl_sinr_mean_db": 20.0,
            "dl_tb_count": 10,
            "dl_tb_errors": 0,
            "dl_tb_bytes": 1000,
        }
        for k in range(bins)
    ]
    with open(path / ns3mmwave.TIMESERIES, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=ns3mmwave.COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


# ----------------------------------------------------------------------- cases --


def test_rate_labels_are_short():
    assert [validate_mmwave.rate_label(r) for r in (0.0, 1e-7, 2.5e-8, 1e-9)] == [
        "0",
        "1e-7",
        "2.5e-8",
        "1e-9",
    ]


def test_runs_of_a_case_are_grouped_by_their_fields_not_their_directories(tmp_path):
    lossy = case_fields("s1", "TcpNewReno", 1e-7)
    write_reference(tmp_path, "a", {**lossy, "rng_run": 3})
    write_reference(tmp_path, "whatever-name", {**lossy, "rng_run": 1})
    write_reference(tmp_path, "s2-udp-0", case_fields("s2", None))
    write_reference(
        tmp_path, "small-rlc", case_fields("s4", "Tcpfbtcp", rlc=1_000_000, sim_time=10.0)
    )
    cases = validate_mmwave.load_references(tmp_path)
    names = {case.name: [run.rng_run for run in runs] for case, runs in cases.items()}
    assert names == {"s1-newreno-1e-7": [1, 3], "s2-udp-0": [1], "s4-fbtcp-0-rlc1000000-10s": [1]}
    write_reference(tmp_path, "again", {**lossy, "rng_run": 3})
    with pytest.raises(wavecc.ConfigError, match="both RngRun 3 of case s1-newreno-1e-7"):
        validate_mmwave.load_references(tmp_path)


def test_a_reference_wavecc_cannot_run_is_named(tmp_path):
    write_reference(tmp_path, "bic", case_fields(tcp_type="TcpBic"))
    with pytest.raises(wavecc.ConfigError, match=r"bic: tcp_type 'TcpBic' has no wavecc algorithm"):
        validate_mmwave.load_references(tmp_path)


def test_committed_references_are_cases_wavecc_runs():
    cases = validate_mmwave.load_references(REFERENCES)
    assert len(cases) >= 9
    for case, runs in cases.items():
        config = validate_mmwave.wavecc_config(case, validate_mmwave.DEFAULT_STACK, runs[0].rng_run)
        _core.validate(to_json(config))  # the core accepts it
        assert [r.rng_run for r in runs] == sorted({r.rng_run for r in runs})
    assert {"s2-fbtcp-0", "s3-udp-1e-7", "s1-newreno-0"} <= {case.name for case in cases}


def test_wavecc_config_is_the_case_on_its_scenario():
    fbtcp = Case("s3", "tcp", "Tcpfbtcp", 1e-7, 1_000_000, 20.0)
    config = validate_mmwave.wavecc_config(fbtcp, "linux", seed=4, duration_s=2.0)
    [flow] = config["flows"]
    assert (flow["cca"], flow["cc"]["rate_source"]) == ("fbtcp", "sink")
    assert (config["seed"], config["duration_s"], config["tcp"]["stack"]) == (4, 2.0, "linux")
    assert config["path"]["loss"]["per_byte"] == 1e-7
    assert config["radio"]["rlc_buffer_bytes"] == 1_000_000
    assert config["trace"]["interval_s"] == 0.1
    # The module's three defects are in.
    ns3 = config["radio"]["ns3_mmwave"]
    assert ns3["misread_overtaken_reports"] is True and ns3["misread_blockage_exit"] is True
    assert ns3["misplace_segments"] is True
    # The scripts start their application at 0.1 s, UDP's as TCP's; TCP's socket then
    # opens its connection.
    assert flow["start_s"] == 0.1 and config["tcp"]["handshake"] is True
    udp = validate_mmwave.wavecc_config(Case("s1", "udp", None, 0.0, 2_621_440, 20.0), "linux", 1)
    assert udp["flows"][0]["app"] == "udp" and "cc" not in udp["flows"][0]
    assert udp["flows"][0]["start_s"] == 0.1 and not udp["tcp"].get("handshake")
    assert udp["duration_s"] == 20.0
    cubic = validate_mmwave.wavecc_config(
        Case("s2", "tcp", "TcpCubic", 0.0, 2_621_440, 20.0), "linux", 1
    )
    assert cubic["flows"][0]["cca"] == "cubic" and "rate_source" not in cubic["flows"][0].get(
        "cc", {}
    )


def test_start_phases_spread_the_start_over_one_round_trip():
    assert validate_mmwave.start_offsets(1) == [0.0]
    assert validate_mmwave.start_offsets(4) == pytest.approx([0.0, 0.0055, 0.011, 0.0165])
    case = Case("s1", "tcp", "Tcpfbtcp", 0.0, 2_621_440, 20.0)
    config = validate_mmwave.wavecc_config(case, "linux", 1, start_offset_s=0.011)
    assert config["flows"][0]["start_s"] == pytest.approx(0.111)


def test_the_default_stack_is_ns3_3_29_when_the_core_has_it():
    expected = "ns3-3.29" if "ns3-3.29" in wavecc.stacks() else "linux"
    assert validate_mmwave.DEFAULT_STACK == expected


# ------------------------------------------------------------------ comparison --


def short_run(case: Case, seed: int) -> wavecc.Result:
    return wavecc.run(validate_mmwave.wavecc_config(case, "linux", seed, DURATION_S))


def test_the_sinr_is_averaged_over_the_samples_with_a_tb_of_the_first_ue():
    ues = pd.DataFrame(
        {
            "ue": [0, 0, 0, 1],
            "dl_tbs": [3, 0, 1, 5],
            "dl_tb_sinr_db": [10.0, math.nan, 20.0, 99.0],
        }
    )
    # One mean per sample, whatever its TBs: (10 + 20) / 2, not (3 x 10 + 20) / 4.
    assert validate_mmwave.tb_sinr_timeavg_db(ues) == 15.0
    assert math.isnan(validate_mmwave.tb_sinr_timeavg_db(ues[ues["dl_tbs"] == 0]))


def test_the_table_compares_every_quantity(tmp_path, work):
    refs = tmp_path / "refs"
    newreno = case_fields("s2", "TcpNewReno", 0.0)
    case = validate_mmwave.case_of(newreno, refs)
    mine = [short_run(case, seed) for seed in (1, 2)]
    # Goodput over the whole simulated time, as the scripts', though the flow starts at
    # 0.1 s: the core's own figure counts from the start.
    goodputs = [r.summary["flows"][0]["bytes_delivered"] * 8 / DURATION_S / 1e6 for r in mine]
    assert all(
        g < r.summary["flows"][0]["goodput_mbps"] for g, r in zip(goodputs, mine, strict=True)
    )
    sinr = mine[0].summary["ues"][0]["mean_sinr_db"]
    srtts = [validate_mmwave.srtt_timeweighted_ms(r.flows) for r in mine]
    # Two RngRuns whose goodput averages wavecc's / 0.95 (wavecc 5 % under), SINR 1 dB higher.
    mean_goodput = sum(goodputs) / 2
    # Both give their uplink radio delay and TB error rate, one its downlink delay.
    for rng_run, scale, delays, ul_errors in (
        (1, 0.9, (0.5, 0.3), 0.02),
        (2, 1.1, (None, 0.4), 0.04),
    ):
        write_reference(
            refs,
            f"run{rng_run}",
            {**newreno, "rng_run": rng_run},
            goodput_mbps=mean_goodput / 0.95 * scale,
            dl_sinr_timeavg_db=sinr + 1.0,
            srtt_mean_ms_timeweighted=srtts[0],
            dl_pdcp_delay_ms=delays[0],
            ul_pdcp_delay_ms=delays[1],
            ul_tb_error_rate=ul_errors,
        )
    write_reference(refs, "udp", case_fields("s1", None))

    proc = run_cli(
        "validate",
        "ns3-mmwave",
        "--reference-dir",
        refs,
        "--cases",
        "s2-*",
        "--stack",
        "linux",
        "--duration",
        DURATION_S,
        "--out",
        "cmp",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    out = work / "cmp"
    assert {p.name for p in out.iterdir()} == {
        "comparison.csv",
        "comparison.md",
        "s2-newreno-0.png",
        MARKER,
    }
    assert (out / "s2-newreno-0.png").stat().st_size > 10_000
    table = pd.read_csv(out / "comparison.csv")
    assert list(table.columns) == list(validate_mmwave.COLUMNS)
    rows = table.set_index("quantity")
    assert set(table["case"]) == {"s2-newreno-0"}
    assert (rows["ns3mmwave_runs"] == 2).all() and (rows["wavecc_runs"] == 2).all()
    assert (rows["wavecc_duration_s"] == DURATION_S).all() and (
        rows["ns3mmwave_duration_s"] == 20
    ).all()
    goodput = rows.loc["goodput"]
    assert goodput["wavecc"] == pytest.approx(mean_goodput)
    assert goodput["ns3mmwave"] == pytest.approx(mean_goodput / 0.95)
    assert goodput["difference"] == pytest.approx(-5.0)
    assert 0 < goodput["p_value"] < 1
    sinr_row = rows.loc["DL SINR, time average of 100 ms TB means"]
    wavecc_sinr = sum(validate_mmwave.tb_sinr_timeavg_db(r.ues) for r in mine) / 2
    assert (sinr_row["difference"], sinr_row["difference_unit"]) == (
        pytest.approx(wavecc_sinr - sinr - 1.0),
        "dB",
    )
    assert rows.loc["mean RTT, srtt time-weighted", "wavecc"] == pytest.approx(sum(srtts) / 2)
    assert (
        rows.loc["error-model drops", "ns3mmwave"],
        rows.loc["error-model drops", "wavecc"],
    ) == (0, 0)
    for quantity, key in (
        ("DL radio delay, RLC to RLC", "dl_rlc_delay_ms"),
        ("UL radio delay, RLC to RLC", "ul_rlc_delay_ms"),
    ):
        delays = [r.summary["ues"][0][key] for r in mine]
        assert all(d > 0.1 for d in delays), delays  # at least the decoding's 0.1 ms
        assert rows.loc[quantity, "wavecc"] == pytest.approx(sum(delays) / 2)
    assert rows.loc["UL radio delay, RLC to RLC", "ns3mmwave"] == pytest.approx(0.35)
    # A run that lacks a quantity leaves its mean, difference and test undefined.
    downlink = rows.loc["DL radio delay, RLC to RLC"]
    assert downlink[["ns3mmwave", "difference", "p_value"]].isna().all()
    # The references have no RLC drops, retransmissions or RTOs: only wavecc's side.
    for quantity, key in (("retransmissions", "retransmitted_segments"), ("RTOs", "rto_events")):
        assert math.isnan(rows.loc[quantity, "ns3mmwave"]) and math.isnan(
            rows.loc[quantity, "difference"]
        )
        assert rows.loc[quantity, "wavecc"] == pytest.approx(
            sum(r.summary["flows"][0][key] for r in mine) / 2
        )
    ue = mine[0].summary["ues"][0]
    assert (
        0
        <= ue["dl_tb_errors"]
        < ue["dl_tb_transmissions"]
        == mine[0].summary["cells"][0]["transport_blocks"]
    )
    assert 0 <= ue["ul_tb_errors"] < ue["ul_tb_transmissions"]
    uplink_errors = rows.loc["UL TB error rate"]
    assert uplink_errors["ns3mmwave"] == pytest.approx(0.03)
    assert uplink_errors["wavecc"] == pytest.approx(
        sum(
            r.summary["ues"][0]["ul_tb_errors"] / r.summary["ues"][0]["ul_tb_transmissions"]
            for r in mine
        )
        / 2
    )
    markdown = (out / "comparison.md").read_text().splitlines()
    assert markdown[0] == (
        "wavecc in the linux stack. Shortened: `s2-newreno-0` wavecc 1 s against ns3-mmwave's 20 s."
        + validate_mmwave.P_NOTE
    )
    assert "| `s2-newreno-0` | 2 / 2 | RLC drops (SDUs) | - |" in "\n".join(markdown)
    assert proc.stdout.splitlines()[2].split()[:2] == ["s2-newreno-0", "2/2"]


def test_seeds_option_sets_wavecc_runs_and_udp_has_no_socket_quantities(tmp_path, work):
    refs = tmp_path / "refs"
    write_reference(refs, "udp", case_fields("s1", None), srtt_mean_ms_timeweighted=None)
    proc = run_cli(
        "validate",
        "ns3-mmwave",
        "--reference-dir",
        refs,
        "--seeds",
        "2",
        "--start-phases",
        "2",
        "--stack",
        "linux",
        "--duration",
        "0.5",
        "--set",
        "path.one_way_delay_s=0.02",
        "--no-figures",
        "--out",
        "cmp",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    rows = pd.read_csv(work / "cmp" / "comparison.csv").set_index("quantity")
    # Two seeds, each from two starts.
    assert (rows["wavecc_runs"] == 4).all() and (rows["ns3mmwave_runs"] == 1).all()
    assert (rows["start_phases"] == 2).all()
    assert rows["p_value"].isna().all()  # one reference run
    assert (rows["overrides"] == "path.one_way_delay_s=0.02").all()
    note = (work / "cmp" / "comparison.md").read_text().splitlines()[0]
    assert note.startswith(
        "wavecc in the linux stack. Changed: `path.one_way_delay_s=0.02`. Each seed started 2 "
        "times, 11 ms apart from the scripts' start. "
    )
    for quantity in ("mean RTT, srtt time-weighted", "retransmissions", "RTOs"):
        assert math.isnan(rows.loc[quantity, "wavecc"])
    # The scripts' drop trace is connected in their TCP branch only: the 0 is no count.
    assert math.isnan(rows.loc["error-model drops", "ns3mmwave"])
    assert sorted(os.listdir(work / "cmp")) == sorted([MARKER, "comparison.csv", "comparison.md"])


def tree(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def test_out_is_replaced_only_when_it_is_an_earlier_comparison(tmp_path, work):
    refs = tmp_path / "refs"
    write_reference(refs, "udp", case_fields("s1", None))
    args = (
        "validate",
        "ns3-mmwave",
        "--reference-dir",
        refs,
        "--stack",
        "linux",
        "--duration",
        "0.2",
        "--no-figures",
        "--out",
        "cmp",
    )
    users = work / "cmp"
    users.mkdir()
    (users / "thesis.tex").write_text("\\chapter{Results}\n")
    before = tree(work)
    for force in ([], ["--force"]):
        assert_one_error_line(
            run_cli(*args, *force, cwd=work), "cmp exists and holds files wavecc did not write"
        )
        assert tree(work) == before
    (users / "thesis.tex").unlink()
    assert run_cli(*args, cwd=work).returncode == 0
    first = tree(work)
    assert_one_error_line(
        run_cli(*args, cwd=work),
        "cmp holds an earlier wavecc comparison with ns3-mmwave; use --force",
    )
    assert tree(work) == first
    assert run_cli(*args, "--force", cwd=work).returncode == 0
    assert sorted(os.listdir(work)) == ["cmp"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--cases", "s9-*"], "unknown ns3-mmwave case 's9-*' (ns3-mmwave cases: s1-"),
        (["--stack", "bsd"], "tcp.stack: unknown stack 'bsd'"),
        (["--seeds", "0"], "--seeds must be at least 1, not 0"),
        (["--start-phases", "0"], "--start-phases must be at least 1, not 0"),
        (["--duration", "0"], "--duration must be more than 0, not 0"),
        (["--reference-dir", "nowhere"], "--reference-dir nowhere: not a directory"),
        (["--set", "path.bogus=1"], "path.bogus: unknown field `bogus`"),
        (["--set", "path.one_way_delay_s=-1"], "path.one_way_delay_s: must be in [0, 1e6] s"),
    ],
)
def test_user_errors_are_one_line_and_write_nothing(work, args, named):
    if "--reference-dir" not in args:
        args = ["--reference-dir", str(REFERENCES), *args]
    assert_one_error_line(run_cli("validate", "ns3-mmwave", *args, cwd=work), named)
    assert list(work.iterdir()) == []


def test_references_are_found_from_the_repository_only(work):
    assert_one_error_line(
        run_cli("validate", "ns3-mmwave", cwd=work),
        "cannot find validation/ns3mmwave/reference",
        "--reference-dir",
    )
    assert validate_mmwave.find_reference_dir(REPO / "docs") == REFERENCES


# ------------------------------------------------------ FB-TCP's sink source --


def test_fbtcp_sink_rate_is_the_previous_100_ms_of_the_receiver():
    """In a whole run: at each 100 ms sample, FB-TCP's rate (read at the interval's
    last ACK) is the receiver's goodput of the interval before, the trace's own."""
    config = resolve("fbtcp-2", cca="fbtcp", overrides=["duration_s=3"])
    config["flows"][0]["cc"] = {"rate_source": "sink"}
    result = wavecc.run(config)
    cc = result.cc
    rate = cc[cc["var"] == "rate_mbps"].set_index("t_s")["value"]
    flows = result.flows.set_index("t_s")
    times = list(flows.index)
    checked = 0
    for before, t in itertools.pairwise(times):
        if flows.loc[t, "rtt_samples"] > 0:  # ACKs came in the interval
            assert rate[t] == pytest.approx(flows.loc[before, "goodput_mbps"], rel=1e-12), t
            checked += 1
    assert checked >= 20


def test_a_run_lacking_the_quantity_leaves_the_test_undefined():
    def row(reference: tuple[float, ...]) -> validate_mmwave.Row:
        return validate_mmwave.Row(
            "s1-newreno-0", "ns3-3.29", 20.0, 20.0, "goodput", "Mb/s", "%", ".2f",
            reference, (1.5, 2.5, 3.5),
        )  # fmt: skip

    assert 0 < row((1.0, 2.0, 3.0)).p_value < 1
    lacking = row((1.0, 2.0, math.nan))
    assert math.isnan(lacking.ns3mmwave_mean) and math.isnan(lacking.p_value)


# ---------------------------------------------------------------------- stalls --


def test_a_run_stalls_when_its_last_five_seconds_deliver_nothing():
    t = pd.Series([0.1 * (k + 1) for k in range(200)])
    goodput = pd.Series([100.0] * 200)
    assert validate_mmwave.stalled(t, goodput, 20.0) == 0
    # Nothing after the 100 ms that ends at 15 s: the last 5 s carry nothing.
    assert validate_mmwave.stalled(t, goodput.where(t <= 15.05, 0.0), 20.0) == 1
    # A delivery in the 100 ms that ends 15.1 s is inside the last 5 s.
    assert validate_mmwave.stalled(t, goodput.where(t <= 15.15, 0.0), 20.0) == 0
    # A run no longer than the silence cannot tell.
    assert math.isnan(validate_mmwave.stalled(t[:50], goodput[:50], 5.0))


def silence_from(reference: Path, t_s: float) -> None:
    """Makes a written reference's sink receive nothing after `t_s`."""
    path = reference / ns3mmwave.TIMESERIES
    series = pd.read_csv(path)
    series.loc[series["t_s"] > t_s, "sink_goodput_mbps"] = 0.0
    series.to_csv(path, index=False)


def test_stalled_runs_are_counted_and_left_out_of_the_flowing_goodput(tmp_path):
    refs = tmp_path / "refs"
    fields = case_fields("s3", "TcpHighSpeed")
    for rng_run, goodput in ((1, 500.0), (2, 520.0), (3, 150.0)):
        write_reference(refs, f"run{rng_run}", {**fields, "rng_run": rng_run}, goodput_mbps=goodput)
    silence_from(refs / "run3", 6.0)
    ((case, runs),) = validate_mmwave.load_references(refs).items()
    assert [validate_mmwave.reference_stalled(run) for run in runs] == [0, 0, 1]
    rows = {row.quantity: row for row in validate_mmwave.rows_of(case, runs, [], "linux", 20.0)}
    assert rows["runs stalled for good"].ns3mmwave == (0, 0, 100)
    assert rows["goodput"].ns3mmwave == (500.0, 520.0, 150.0)
    assert rows["goodput of the runs that did not stall"].ns3mmwave == (500.0, 520.0)


def test_a_wavecc_run_stalls_on_its_first_flow_samples():
    def result(goodputs: list[float]) -> object:
        t = [0.1 * (k + 1) for k in range(len(goodputs))]
        flows = pd.DataFrame({"t_s": t * 2, "flow": [0] * len(t) + [1] * len(t),
                              "goodput_mbps": goodputs + [100.0] * len(t)})  # fmt: skip
        return type("Result", (), {"flows": flows, "summary": {"sim_time_s": 8.0}})()

    assert validate_mmwave.wavecc_stalled(result([100.0] * 80)) == 0
    # The first flow silent from 2 s; the second flow's deliveries do not count.
    assert validate_mmwave.wavecc_stalled(result([100.0] * 20 + [0.0] * 60)) == 1


def test_stalls_are_pooled_over_the_cases_and_tested_exactly():
    def row(
        case: str, reference: tuple[float, ...], ours: tuple[float, ...]
    ) -> validate_mmwave.Row:
        return validate_mmwave.Row(
            case, "ns3-3.29", 20.0, 20.0, validate_mmwave.STALLS, "%", "points", ".0f",
            reference, ours,
        )  # fmt: skip

    rows = [
        row("s3-highspeed-0", (0, 100, 100, 0), (0, 0, 100, 0, 0)),
        row("s3-cubic-0", (0, 0), (100, 0, 0, math.nan)),  # a run too short to tell
    ]
    assert validate_mmwave.stall_counts(rows) == ((2, 6), (2, 8))
    text = validate_mmwave.stalls_paragraph(rows)
    # Fisher's exact test of [[2, 4], [2, 6]]: p = 1.
    assert "ns3-mmwave 2 of 6, wavecc 2 of 8 (Fisher's exact p 1.000)" in text
    # Each case's stall row is tested the same way: none of 8 against 4 of 40 is no
    # evidence (p 1), where Welch's t-test, seeing no variance on one side, gives 0.04.
    case_row = row("s3-newreno-0", (0,) * 8, (100,) * 4 + (0,) * 36)
    assert case_row.p_value == pytest.approx(1.0)
    assert validate.welch_p(case_row.wavecc, case_row.ns3mmwave) < 0.05
    assert math.isnan(row("s1-cubic-0", (0,), (math.nan,)).p_value)
    assert validate_mmwave.stalls_paragraph([row("s1-cubic-0", (0,), (math.nan,))]) == ""


def test_rankings_are_made_on_all_runs_and_on_those_that_did_not_stall():
    def row(case: str, quantity: str, reference: tuple, ours: tuple) -> validate_mmwave.Row:
        return validate_mmwave.Row(
            case, "ns3-3.29", 20.0, 20.0, quantity, "Mb/s", "%", ".2f", reference, ours,
        )  # fmt: skip

    flowing = validate_mmwave.FLOWING_GOODPUT
    rows = [
        # HighSpeed's stalls put it below NewReno in the module only.
        row("s3-highspeed-0", "goodput", (520.0, 150.0, 510.0), (520.0, 515.0, 525.0)),
        row("s3-highspeed-0", flowing, (520.0, 510.0), (520.0, 515.0, 525.0)),
        row("s3-newreno-0", "goodput", (450.0, 445.0), (450.0, 440.0)),
        row("s3-newreno-0", flowing, (450.0, 445.0), (450.0, 440.0)),
    ]
    cases = [
        validate_mmwave.case_of(case_fields("s3", tcp), Path("refs"))
        for tcp in ("TcpHighSpeed", "TcpNewReno")
    ]
    (by_all,) = validate_mmwave.rank(cases, rows)
    assert by_all.reference == ("newreno", "highspeed") and len(by_all.swaps) == 1
    (by_flowing,) = validate_mmwave.rank(cases, rows, flowing)
    assert by_flowing.reference == by_flowing.wavecc == ("highspeed", "newreno")
    assert by_flowing.swaps == ()
