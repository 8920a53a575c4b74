"""`wavecc validate ns3`: the case grid, the comparison against references, the errors.

ns-3 never runs here: the comparison is checked against small reference directories
written by the tests (real files, real short wavecc runs), and the committed references
only for their consistency with the grid.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import wavecc
from wavecc import _core, validate
from wavecc.config import to_json
from wavecc.outdir import MARKER

REPO = Path(__file__).resolve().parents[2]
NS3_DIR = REPO / "validation" / "ns3"

ALGORITHMS = ["newreno", "cubic", "highspeed", "bbr", "vegas", "scalable", "yeah", "westwood"]


def run_cli(*args: str | Path, cwd: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "wavecc", *map(str, args)],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )


def assert_one_error_line(proc, *fragments: str) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("wavecc: error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------------ grid --


def test_the_grid_is_the_issues():
    names = [case.name for case in validate.CASES]
    expected = []
    for cca in ALGORITHMS:
        expected += [f"{cca}-1g-0", f"{cca}-1g-1e-8", f"{cca}-1g-1e-7", f"{cca}-100m-0"]
    assert names == expected
    for case in validate.CASES:
        assert case.duration_s == 20.0
        assert case.seed == 1 and case.interval_s == 0.1
        if "-1g-" in case.name:
            assert (case.rate_bps, case.delay_s, case.buffer_bytes) == (1e9, 0.010, 2_500_000)
            loss = case.name.partition("-1g-")[2]
            assert case.per_byte == {"0": 0.0, "1e-8": 1e-8, "1e-7": 1e-7}[loss]
        else:
            assert (case.rate_bps, case.delay_s, case.buffer_bytes) == (1e8, 0.025, 300_000)
            assert case.per_byte == 0.0


def test_every_algorithm_exists_on_both_sides():
    ours = {name for name, _ in _core.algorithms()}
    source = (NS3_DIR / "dumbbell.cc").read_text()
    theirs = set(re.findall(r'\{"(Tcp\w+)", "ns3::\w+"\}', source))
    for case in validate.CASES:
        assert case.cca in ours
        assert case.ns3_cca in theirs
    assert [case.ns3_cca for case in validate.select(["westwood-100m-0"])] == ["TcpWestwoodPlus"]


def test_select_takes_names_and_patterns_in_grid_order():
    assert [c.name for c in validate.select(["bbr-100m-0", "cubic-1g-1e-8"])] == [
        "cubic-1g-1e-8",
        "bbr-100m-0",
    ]
    assert len(validate.select(["*-100m-0"])) == 8
    assert [c.name for c in validate.select(["vegas-1g-*"])] == [
        "vegas-1g-0",
        "vegas-1g-1e-8",
        "vegas-1g-1e-7",
    ]
    assert len(validate.select(None)) == 32
    with pytest.raises(wavecc.ConfigError, match="unknown validation case 'cubic-2g-0'"):
        validate.select(["cubic-2g-0"])


def test_wavecc_config_is_the_case_on_the_built_in_dumbbell():
    [case] = validate.select(["yeah-1g-1e-7"])
    config = validate.wavecc_config(case)
    effective = json.loads(_core.validate(to_json(config)))
    assert effective["duration_s"] == 20.0 and effective["seed"] == 1
    assert effective["path"]["rate_bps"] == 1e9
    assert effective["path"]["one_way_delay_s"] == 0.010
    assert effective["path"]["buffer_bytes"] == 2_500_000
    assert effective["path"]["loss"]["per_byte"] == 1e-7
    assert [flow["cca"] for flow in effective["flows"]] == ["yeah"]
    # ns-3's topology: a 10 Gb/s access link with no delay in front of the bottleneck.
    [flow] = effective["flows"]
    assert (flow["access_rate_bps"], flow["access_delay_s"]) == (10e9, 0.0)
    tcp = effective["tcp"]
    assert tcp["mss_bytes"] == 1400 and tcp["min_rto_s"] == 1.0
    assert tcp["initial_cwnd_segments"] == 10 and tcp["ack_every_segments"] == 2
    assert tcp["sack"] and tcp["timestamps"]
    assert tcp["snd_buf_bytes"] == tcp["rcv_buf_bytes"] == 6_553_600
    assert effective["trace"]["interval_s"] == 0.1


def test_ns3_arguments_carry_the_exact_settings():
    [case] = validate.select(["highspeed-1g-1e-8"])
    args = dict(a.removeprefix("--").split("=", 1) for a in validate.ns3_arguments(case, "x/y"))
    assert args["cca"] == "TcpHighSpeed"
    assert float(args["rate_bps"]) == 1e9 and float(args["delay_s"]) == 0.010
    assert int(args["buffer_bytes"]) == 2_500_000 and float(args["per_byte"]) == 1e-8
    assert float(args["duration_s"]) == 20.0 and float(args["interval_s"]) == 0.1
    assert args["seed"] == "1" and args["out"] == "x/y"


# ------------------------------------------------------------------ comparison --


def write_reference(ns3_dir: Path, case: validate.Case, goodput: float, rtt: float) -> Path:
    """A reference directory as the ns-3 program writes it (for the case's seed), with
    chosen averages."""
    directory = validate.reference_dir(case, ns3_dir)
    directory.mkdir(parents=True)
    summary = {"simulator": "ns-3", "ns3_version": "3.37", **case.settings()}
    summary |= {"goodput_mbps": goodput, "mean_rtt_ms": rtt, "rtt_samples": 10}
    (directory / "summary.json").write_text(json.dumps(summary))
    steps = round(case.duration_s / case.interval_s)
    with open(directory / "timeseries.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(
            [
                "t_s",
                "cwnd_segments",
                "goodput_mbps",
                "rtt_ms",
                "rtt_mean_ms",
                "rtt_samples",
                "srtt_ms",
                "queue_bytes",
                "queue_packets",
                "retransmits",
            ]
        )
        for i in range(1, steps + 1):
            rtt_cell = "" if i == 1 else rtt  # an interval without RTT samples
            writer.writerow(
                [i * case.interval_s, 10 * i, goodput, rtt_cell, rtt_cell, 0, rtt, 1000 * i, i, 0]
            )
    (directory / "command.txt").write_text("# synthetic\n")
    return directory


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def short(name: str, duration_s: float = 1.0) -> validate.Case:
    [case] = validate.select([name])
    return case.shortened(duration_s)


def test_compare_against_references(tmp_path, work):
    ns3_dir = tmp_path / "ns3"
    cubic, vegas = short("cubic-100m-0"), short("vegas-100m-0")
    mine = {}
    for case in (cubic, vegas):
        [flow] = wavecc.run(validate.wavecc_config(case)).summary["flows"]
        mine[case.name] = flow
    # cubic: goodput 5% under ns-3's, RTT equal; vegas: RTT 50% over ns-3's.
    c, v = mine["cubic-100m-0"], mine["vegas-100m-0"]
    write_reference(ns3_dir, cubic, c["goodput_mbps"] / 0.95, c["mean_rtt_ms"])
    write_reference(ns3_dir, vegas, v["goodput_mbps"], v["mean_rtt_ms"] / 1.5)

    proc = run_cli(
        "validate",
        "ns3",
        "--cases",
        "cubic-100m-0,bbr-100m-0,vegas-100m-0",
        "--stack",
        "linux",
        "--duration",
        "1",
        "--ns3-dir",
        ns3_dir,
        "--out",
        "cmp",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    out = work / "cmp"
    assert {p.name for p in out.iterdir()} == {
        "comparison.csv",
        "comparison.md",
        "cubic-100m-0.png",
        "vegas-100m-0.png",
        MARKER,
    }
    with open(out / "comparison.csv", newline="") as f:
        rows = {row["case"]: row for row in csv.DictReader(f)}
    assert list(rows) == ["cubic-100m-0", "vegas-100m-0"]
    assert list(rows["cubic-100m-0"]) == list(validate.COLUMNS)

    row = rows["cubic-100m-0"]
    assert float(row["goodput_wavecc_mbps"]) == pytest.approx(c["goodput_mbps"])
    assert float(row["goodput_rel_diff"]) == pytest.approx(-0.05)
    assert float(row["mean_rtt_rel_diff"]) == pytest.approx(0.0, abs=1e-12)
    assert row["within_10pct"] == "True"

    row = rows["vegas-100m-0"]
    assert float(row["goodput_rel_diff"]) == pytest.approx(0.0, abs=1e-12)
    assert float(row["mean_rtt_rel_diff"]) == pytest.approx(0.5)
    assert (row["goodput_within_10pct"], row["rtt_within_10pct"]) == ("True", "False")
    assert row["within_10pct"] == "False"

    assert row["stack"] == "linux" and row["seeds"] == "1"
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:4] == ["case", "ns-3", "Mb/s", "RTT"]
    assert lines[1].split()[0] == "cubic-100m-0" and lines[1].split()[4] == "-5.0%"
    assert lines[2].split()[-1] == "no"
    assert "linux stack: 1 of 2 compared cases within 10%" in proc.stdout
    assert "missing ns-3 references (1): bbr-100m-0" in proc.stdout
    table = (out / "comparison.md").read_text().splitlines()
    assert table[0].startswith("| case | ns-3 goodput | ns-3 RTT | linux goodput | diff |")
    assert table[2].startswith("| `cubic-100m-0` |") and "| -5.0% |" in table[2]


def test_both_stacks_and_several_seeds_are_compared(tmp_path, work):
    ns3_dir = tmp_path / "ns3"
    case = short("vegas-100m-0")
    runs = [
        wavecc.run(validate.wavecc_config(case, "ns3-3.37", seed=s)).summary["flows"][0]
        for s in (1, 2)
    ]
    goodputs = sorted(run["goodput_mbps"] for run in runs)
    # ns-3's goodput inside the ns-3 stack's range over seeds 1 and 2.
    write_reference(ns3_dir, case, sum(goodputs) / 2, runs[0]["mean_rtt_ms"])
    proc = run_cli(
        "validate",
        "ns3",
        "--cases",
        "vegas-100m-0",
        "--seeds",
        "2",
        "--duration",
        "1",
        "--ns3-dir",
        ns3_dir,
        "--out",
        "cmp",
        "--no-figures",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    with open(work / "cmp" / "comparison.csv", newline="") as f:
        rows = {row["stack"]: row for row in csv.DictReader(f)}
    assert list(rows) == ["linux", "ns3-3.37"]
    row = rows["ns3-3.37"]
    assert row["seeds"] == "2"
    assert float(row["goodput_wavecc_mbps"]) == pytest.approx(sum(goodputs) / 2)
    assert float(row["goodput_wavecc_min_mbps"]) == pytest.approx(goodputs[0])
    assert float(row["goodput_wavecc_max_mbps"]) == pytest.approx(goodputs[1])
    assert row["ns3_in_seed_range"] == "True" and row["goodput_within_10pct"] == "True"
    header = proc.stdout.splitlines()[0].split()
    assert "linux" in header and "ns3-3.37" in header
    assert "ns3-3.37 stack: " in proc.stdout and "linux stack: " in proc.stdout
    table = (work / "cmp" / "comparison.md").read_text()
    assert "| ns3-3.37 goodput |" in table and "ns-3 in seeds' range" in table


def test_further_ns3_seeds_are_averaged(tmp_path, work):
    ns3_dir = tmp_path / "ns3"
    case = short("cubic-100m-0")
    [flow] = wavecc.run(validate.wavecc_config(case)).summary["flows"]
    # Seeds 1 and 3 of ns-3 at 0.8 and 1.2 times wavecc's goodput average to it;
    # seed 1 alone would be 25 % off.
    for seed, factor in ((1, 0.8), (3, 1.2)):
        seeded = dataclasses.replace(case, seed=seed)
        write_reference(ns3_dir, seeded, flow["goodput_mbps"] * factor, flow["mean_rtt_ms"])
    assert (ns3_dir / "extra-seeds" / "cubic-100m-0" / "3" / "summary.json").is_file()
    proc = run_cli(
        "validate",
        "ns3",
        "--cases",
        "cubic-100m-0",
        "--stack",
        "linux",
        "--duration",
        "1",
        "--ns3-dir",
        ns3_dir,
        "--out",
        "cmp",
        "--no-figures",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    with open(work / "cmp" / "comparison.csv", newline="") as f:
        [row] = list(csv.DictReader(f))
    assert row["ns3_seeds"] == "2"
    assert float(row["goodput_ns3_mbps"]) == pytest.approx(flow["goodput_mbps"])
    assert float(row["mean_rtt_ns3_ms"]) == pytest.approx(flow["mean_rtt_ms"])
    assert "(2 seeds)" in (work / "cmp" / "comparison.md").read_text()


def test_a_stale_further_seed_is_reported(tmp_path, work):
    ns3_dir = tmp_path / "ns3"
    case = short("cubic-100m-0")
    write_reference(ns3_dir, case, 90.0, 60.0)
    write_reference(ns3_dir, dataclasses.replace(case, seed=2, per_byte=1e-9), 90.0, 60.0)
    # The seed-2 run was made with loss: stale.
    with pytest.raises(validate.StaleReference, match=r"cubic-100m-0 \(seed 2\).*per_byte"):
        validate.load_references(case, ns3_dir)


def test_missing_only_reruns_just_the_absent_and_stale_seeds(tmp_path):
    ns3_dir = tmp_path / "ns3"
    case = short("cubic-100m-0")
    write_reference(ns3_dir, case, 90.0, 60.0)
    write_reference(ns3_dir, dataclasses.replace(case, seed=2, per_byte=1e-9), 90.0, 60.0)
    write_reference(ns3_dir, dataclasses.replace(case, seed=3), 90.0, 60.0)
    seeds = lambda runs: [run.seed for run in runs]  # noqa: E731
    assert seeds(validate.ns3_runs([case], ns3_dir, 4, missing_only=False)) == [1, 2, 3, 4]
    # Seed 2 is stale (made with loss), seed 4 absent.
    assert seeds(validate.ns3_runs([case], ns3_dir, 4, missing_only=True)) == [2, 4]


def test_the_ns3_stack_covers_every_algorithm_of_the_grid():
    ns3 = wavecc.stacks()["ns3-3.37"]
    assert set(ns3["cc"]) == set(ALGORITHMS)
    for name in ALGORITHMS:
        [case] = validate.select([f"{name}-1g-1e-7"])
        effective = json.loads(_core.validate(to_json(validate.wavecc_config(case, "ns3-3.37"))))
        assert effective["tcp"]["stack"] == "ns3-3.37"
        for key, value in ns3["tcp"].items():
            assert effective["tcp"][key] == value, key
        for key, value in validate.TCP.items():  # the case's settings stay
            assert effective["tcp"][key] == value, key
        [flow] = effective["flows"]
        assert flow["cca"] == name
        for key, value in ns3["cc"][name].items():
            assert flow["cc"][key] == value, (name, key)
    [case] = validate.select(["cubic-1g-0"])
    assert validate.wavecc_config(case, "linux") == validate.wavecc_config(case)
    assert validate.wavecc_config(case, seed=7)["seed"] == 7


def test_the_linux_stack_is_the_cores_default():
    """The Linux side of a comparison is what `wavecc run` does by default: nothing
    but the case's settings (no switch of ns-3's, such as packet-by-packet pacing)."""
    [case] = validate.select(["bbr-100m-0"])
    config = validate.wavecc_config(case, "linux")
    effective = json.loads(_core.validate(to_json(config)))
    plain = dict(config, tcp={k: v for k, v in config["tcp"].items() if k != "stack"})
    assert effective == json.loads(_core.validate(to_json(plain)))
    assert effective["tcp"]["pacing_burst_s"] == 0.001 and effective["flows"][0]["cc"] is None


def test_without_any_reference_nothing_is_written(tmp_path, work):
    proc = run_cli(
        "validate",
        "ns3",
        "--cases",
        "cubic-100m-0",
        "--duration",
        "1",
        "--ns3-dir",
        tmp_path / "ns3",
        "--out",
        "cmp",
        cwd=work,
    )
    assert_one_error_line(proc, "no usable ns-3 reference", "cubic-100m-0", "--regenerate")
    assert list(work.iterdir()) == []


def test_a_reference_with_other_settings_is_stale(tmp_path, work):
    ns3_dir = tmp_path / "ns3"
    write_reference(ns3_dir, short("cubic-100m-0", 2.0), 90.0, 60.0)
    write_reference(ns3_dir, short("bbr-100m-0"), 90.0, 60.0)
    args = ("validate", "ns3", "--duration", "1", "--ns3-dir", ns3_dir, "--no-figures")
    only_stale = run_cli(*args, "--cases", "cubic-100m-0", cwd=work)
    assert_one_error_line(only_stale, "duration_s 2.0 instead of 1.0")

    both = run_cli(*args, "--cases", "cubic-100m-0,bbr-100m-0", "--out", "cmp", cwd=work)
    assert both.returncode == 0, both.stderr
    assert "stale ns-3 reference, not compared: cubic-100m-0" in both.stdout
    assert {p.name for p in (work / "cmp").iterdir()} == {"comparison.csv", "comparison.md", MARKER}


def tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under `root` with its content (None for a directory)."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        found[str(path.relative_to(root))] = None if path.is_dir() else path.read_bytes()
    return found


def test_out_is_replaced_only_when_it_is_an_earlier_comparison(tmp_path, work):
    ns3_dir = tmp_path / "ns3"
    write_reference(ns3_dir, short("cubic-100m-0"), 90.0, 60.0)
    args = (
        "validate",
        "ns3",
        "--cases",
        "cubic-100m-0",
        "--stack",
        "linux",
        "--duration",
        "1",
        "--ns3-dir",
        ns3_dir,
        "--no-figures",
        "--out",
        "cmp",
    )
    users = work / "cmp"
    users.mkdir()
    (users / "thesis.tex").write_text("\\chapter{Results}\n")
    before = tree(work)
    for force in ([], ["--force"]):
        proc = run_cli(*args, *force, cwd=work)
        assert_one_error_line(
            proc, "cmp exists and holds files wavecc did not write ('thesis.tex')"
        )
        assert tree(work) == before
    (users / "thesis.tex").unlink()

    assert run_cli(*args, cwd=work).returncode == 0
    first = tree(work)
    proc = run_cli(*args, cwd=work)
    assert_one_error_line(proc, "cmp holds an earlier wavecc comparison with ns-3; use --force")
    assert tree(work) == first
    forced = run_cli(*args, "--force", cwd=work)
    assert forced.returncode == 0, forced.stderr
    assert sorted(os.listdir(work)) == ["cmp"]  # nothing left aside
    assert sorted(os.listdir(users)) == sorted([MARKER, "comparison.csv", "comparison.md"])

    (users / "notes.txt").write_text("ask about BBR\n")
    before = tree(work)
    proc = run_cli(*args, "--force", cwd=work)
    assert_one_error_line(
        proc, "cmp holds files wavecc did not write ('notes.txt')", "not replaced even with --force"
    )
    assert tree(work) == before


def test_out_is_never_another_kind_of_output(tmp_path, work):
    ns3_dir = tmp_path / "ns3"
    case = short("cubic-100m-0")
    write_reference(ns3_dir, case, 90.0, 60.0)
    run = wavecc.run("dumbbell-1g", overrides=["duration_s=0.1"])
    run.save(work / "r", figure=False)
    before = tree(work)
    with pytest.raises(FileExistsError, match="r holds a wavecc run, not a comparison with ns-3"):
        validate.compare([case], ns3_dir, work / "r", figures=False, force=True)
    assert tree(work) == before
    # Without the marker nothing says which files wavecc wrote: not replaced.
    old = work / "old"
    old.mkdir()
    for name in ("comparison.csv", "comparison.md", "cubic-100m-0.png"):
        (old / name).write_text("old")
    before = tree(work)
    with pytest.raises(FileExistsError, match="old exists and holds files wavecc did not write"):
        validate.compare([case], ns3_dir, old, figures=False, force=True)
    assert tree(work) == before


def test_relative_differences_of_missing_numbers_are_nan():
    row = validate.Row("x", "cubic", 90.0, 100.0, math.nan, 50.0)
    assert row.goodput_rel_diff == pytest.approx(-0.1) and row.goodput_within
    assert math.isnan(row.mean_rtt_rel_diff) and not row.rtt_within
    assert math.isnan(validate.Row("x", "cubic", 1.0, 0.0, 1.0, 1.0).goodput_rel_diff)


def test_welch_p_value_of_the_seeds():
    # Means 2.5 and 4.5, variances 5/3 each, four seeds a side: t = -2.191 on 6
    # degrees of freedom, two-sided p = 0.0710.
    row = validate.Row(
        "x",
        "cubic",
        2.5,
        4.5,
        20.0,
        20.0,
        seeds=4,
        ns3_seeds=4,
        per_seed_wavecc=tuple((g, 20.0) for g in (1, 2, 3, 4)),
        per_seed_ns3=tuple((g, 20.0) for g in (3, 4, 5, 6)),
    )
    assert row.goodput_p_value == pytest.approx(0.0710, abs=1e-4)
    assert row.rtt_p_value == 1.0  # equal constants
    assert not row.goodput_within and row.rtt_within
    assert row.off_beyond_noise is False  # -44 %, but p = 0.07 over four seeds


def test_a_side_without_spread_is_tested_without_a_warning():
    # Means 2 and 5; variances 1 and 0: t = 3 / sqrt(1/3) = 5.196 on 2 degrees of
    # freedom (Welch-Satterthwaite), two-sided p = 0.0351. scipy would warn of a
    # precision loss that an exact constant does not have.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert validate.welch_p([1.0, 2.0, 3.0], [5.0, 5.0]) == pytest.approx(0.0351, abs=1e-4)


def test_off_beyond_noise_needs_a_significant_metric_outside_10_percent():
    wavecc = tuple((g, 20.0) for g in (100.0, 110.0, 90.0, 105.0))
    ns3 = tuple((g, 21.0) for g in (80.0, 85.0, 75.0, 82.0))
    row = validate.Row(
        "x",
        "cubic",
        101.25,
        80.5,
        20.0,
        21.0,
        seeds=4,
        ns3_seeds=4,
        per_seed_wavecc=wavecc,
        per_seed_ns3=ns3,
    )
    assert row.goodput_p_value < 0.05 and row.off_beyond_noise is True
    # The RTT differs significantly too (different constants) but within 10 %: not counted.
    assert row.rtt_p_value == 0.0 and row.rtt_within
    within = dataclasses.replace(row, goodput_ns3_mbps=101.0)
    assert within.within and within.off_beyond_noise is None
    one_seed = dataclasses.replace(row, per_seed_ns3=ns3[:1])
    assert math.isnan(one_seed.goodput_p_value) and one_seed.off_beyond_noise is None


# ----------------------------------------------------------------------- ns-3 --


@pytest.mark.parametrize("missing", ["ns3", "pkg-config"])
def test_regenerate_without_ns3_says_how_to_install_it(tmp_path, work, missing):
    ns3_dir = tmp_path / "ns3"
    ns3_dir.mkdir()
    empty = tmp_path / "empty"
    empty.mkdir()
    # No ns-3: pkg-config searches only an empty directory. No pkg-config: an empty PATH.
    env = {"PKG_CONFIG_LIBDIR": str(empty)} if missing == "ns3" else {"PATH": str(empty)}
    proc = run_cli(
        "validate",
        "ns3",
        "--regenerate",
        "--cases",
        "cubic-100m-0",
        "--ns3-dir",
        ns3_dir,
        cwd=work,
        env=env,
    )
    assert_one_error_line(proc, "apt-get install libns3-dev")
    assert list(ns3_dir.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--cases", "nosuch"], "unknown validation case 'nosuch'"),
        (["--regenerate", "--duration", "1"], "--duration cannot be used with --regenerate"),
        (["--jobs", "0"], "--jobs must be at least 1, not 0"),
        (["--seeds", "0"], "--seeds must be at least 1"),
        (["--ns3-seeds", "0"], "--ns3-seeds must be at least 1"),
        (["--ns3-seeds", "3"], "--ns3-seeds applies only with --regenerate"),
        (["--missing-only"], "--missing-only applies only with --regenerate"),
        (
            ["--stack", "linux,bsd"],
            "tcp.stack: unknown stack 'bsd' (stacks: linux, ns3-3.37, ns3-3.29)",
        ),
        ([], "cannot find validation/ns3/dumbbell.cc"),
    ],
)
def test_validate_user_errors_are_one_line(work, args, named):
    assert_one_error_line(run_cli("validate", "ns3", *args, cwd=work), named)
    assert list(work.iterdir()) == []


def test_build_script_explains_a_missing_ns3(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = subprocess.run(
        ["bash", str(NS3_DIR / "build.sh"), str(tmp_path / "dumbbell")],
        env={**os.environ, "PKG_CONFIG_LIBDIR": str(empty)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "apt-get install libns3-dev" in proc.stderr
    assert not (tmp_path / "dumbbell").exists()


COMMITTED = sorted(p for p in (NS3_DIR / "reference").glob("[!.]*") if p.is_dir())


@pytest.mark.skipif(not COMMITTED, reason="no committed ns-3 references")
@pytest.mark.parametrize("directory", COMMITTED, ids=[p.name for p in COMMITTED])
def test_committed_references_belong_to_their_cases(directory):
    [case] = validate.select([directory.name])
    assert {p.name for p in directory.iterdir()} == set(validate.REFERENCE_FILES)
    reference = validate.load_reference(case, NS3_DIR)  # raises if stale
    assert reference is not None
    assert reference.summary["ns3_version"] == "3.37"
    assert len(reference.timeseries) == round(case.duration_s / case.interval_s)
    assert reference.timeseries[-1]["t_s"] == pytest.approx(case.duration_s)
    command = (directory / "command.txt").read_text().splitlines()
    expected = validate.ns3_arguments(case, f"validation/ns3/reference/{case.name}")
    assert command[-1].split() == ["validation/ns3/build/dumbbell", *expected]


EXTRA = sorted(p for p in (NS3_DIR / "extra-seeds").glob("*/*") if p.is_dir())


@pytest.mark.skipif(not EXTRA, reason="no committed further ns-3 seeds")
@pytest.mark.parametrize("directory", EXTRA, ids=[f"{p.parent.name}-seed{p.name}" for p in EXTRA])
def test_committed_further_seeds_belong_to_their_cases(directory):
    [case] = validate.select([directory.parent.name])
    seeded = dataclasses.replace(case, seed=int(directory.name))
    assert {p.name for p in directory.iterdir()} == set(validate.REFERENCE_FILES)
    reference = validate.load_reference(seeded, NS3_DIR)  # raises if stale
    assert reference is not None and reference.summary["seed"] == seeded.seed
    assert len(reference.timeseries) == round(case.duration_s / case.interval_s)
    command = (directory / "command.txt").read_text().splitlines()
    out = f"validation/ns3/extra-seeds/{case.name}/{seeded.seed}"
    assert command[-1].split() == [
        "validation/ns3/build/dumbbell",
        *validate.ns3_arguments(seeded, out),
    ]


# The cases that agree with ns-3 within 10 % today (docs/validation.md). A change to
# the model that breaks one of them must explain itself there, not pass silently.
AGREEING = (
    "newreno-100m-0",
    "cubic-100m-0",
    "highspeed-100m-0",
    "bbr-100m-0",
    "vegas-1g-1e-8",
    "scalable-100m-0",
    "yeah-1g-0",
    "yeah-100m-0",
)


# The same in wavecc's ns3-3.37 stack (wavecc's seed 1 against ns-3's committed
# seeds, docs/validation.md).
AGREEING_NS3 = (
    "newreno-1g-0",
    "newreno-1g-1e-7",
    "newreno-100m-0",
    "cubic-1g-0",
    "cubic-100m-0",
    "highspeed-1g-0",
    "highspeed-1g-1e-7",
    "highspeed-100m-0",
    "bbr-1g-0",
    "bbr-1g-1e-8",
    "bbr-100m-0",
    "vegas-1g-0",
    "vegas-1g-1e-7",
    "vegas-100m-0",
    "scalable-1g-0",
    "scalable-1g-1e-8",
    "scalable-100m-0",
    "yeah-1g-0",
    "yeah-1g-1e-7",
    "yeah-100m-0",
    "westwood-1g-0",
    "westwood-100m-0",
)


@pytest.mark.parametrize(("stack", "cases"), [("linux", AGREEING), ("ns3-3.37", AGREEING_NS3)])
def test_cases_that_agree_with_the_committed_ns3_references_still_do(tmp_path, stack, cases):
    comparison = validate.compare(
        validate.select(cases),
        NS3_DIR,
        tmp_path / "cmp",
        stacks=[stack],
        figures=False,
    )
    assert not comparison.missing and not comparison.stale
    disagreeing = [
        (r.case, f"{r.goodput_rel_diff:+.1%}", f"{r.mean_rtt_rel_diff:+.1%}")
        for r in comparison.rows
        if not (r.goodput_within and r.rtt_within)
    ]
    assert disagreeing == []
