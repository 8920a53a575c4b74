"""Sweeps and the result store: grid expansion, validation before any run, resume,
failed runs, and the same results from one or two worker processes.

Runs are 1 simulated second at 100 Mb/s, a few hundredths of a wall second each."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

import wavecc
from wavecc import ConfigError
from wavecc import sweeps as sweeping
from wavecc.store import Store

SHORT = ["duration_s=1", "path.rate_bps=1e8"]
METRICS = ["goodput_mbps", "mean_rtt_ms", "p95_rtt_ms", "retransmitted_segments", "rto_events"]


@pytest.fixture(scope="module")
def base() -> dict:
    return wavecc.apply_overrides(wavecc.load_scenario("dumbbell-1g"), SHORT)


GRID = {"cca": ["cubic", "newreno"], "path.one_way_delay_s": [0.005, 0.01]}


def run_dirs(out: Path) -> dict[str, float]:
    runs = out / "runs"
    return {p.name: p.stat().st_mtime_ns for p in runs.iterdir() if p.is_dir()}


def test_expand_is_the_cartesian_product_times_seeds(base):
    points = sweeping.expand(base, GRID, seeds=3)
    assert len(points) == 2 * 2 * 3
    assert [(p.values["cca"], p.values["path.one_way_delay_s"], p.seed) for p in points[:4]] == [
        ("cubic", 0.005, 1),
        ("cubic", 0.005, 2),
        ("cubic", 0.005, 3),
        ("cubic", 0.01, 1),
    ]
    assert len({p.key for p in points}) == 12
    first = points[0].config
    assert first["flows"][0]["cca"] == "cubic" and first["path"]["one_way_delay_s"] == 0.005
    assert all(len(p.key) == 16 for p in points)


def test_seeds_start_at_the_base_seed(base):
    points = sweeping.expand(dict(base, seed=40), {"cca": ["cubic"]}, seeds=2)
    assert [p.seed for p in points] == [40, 41]
    assert [p.config["seed"] for p in points] == [40, 41]


def test_the_key_is_a_hash_of_the_effective_config(base):
    # 1e8 and the integer 100000000 are the same effective config: the same key.
    a = sweeping.expand(base, {"path.rate_bps": [1e8]})[0]
    b = sweeping.expand(base, {"path.rate_bps": [100000000]})[0]
    assert a.key == b.key


@pytest.mark.parametrize(
    "grid, named",
    [
        ({"cca": ["cubic", "nosuch"]}, "grid key 'cca'"),
        ({"path.nope": [1]}, "grid key 'path.nope'"),
        ({"path.rate_bps": [1e8, "fast"]}, "grid key 'path.rate_bps'"),
        ({"flows.3.cca": ["cubic"]}, "grid key 'flows.3.cca'"),
        ({"cca": "cubic"}, "grid key 'cca'"),
        ({"cca": []}, "grid key 'cca'"),
        ({"seed": [1, 2]}, "grid key 'seed'"),
    ],
)
def test_a_bad_key_or_value_fails_before_any_run(base, tmp_path, grid, named):
    out = tmp_path / "store"
    with pytest.raises(ConfigError, match=named):
        wavecc.sweep(base, grid, out=out, jobs=0)
    assert not out.exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"jobs": "4"}, "jobs must be a whole number, not '4'"),
        ({"jobs": -1}, r"jobs must be at least 0 \(0: in this process\), not -1"),
        ({"seeds": True}, "seeds must be a whole number, not True"),
        ({"seeds": 0}, "seeds must be at least 1, not 0"),
    ],
)
def test_bad_jobs_or_seeds_are_refused_before_any_run(base, tmp_path, options, message):
    out = tmp_path / "store"
    with pytest.raises(ConfigError, match=f"^{message}$"):
        wavecc.sweep(base, {"cca": ["cubic"]}, out=out, **{"jobs": 0, **options})
    assert not out.exists()


def test_a_bad_last_value_stops_the_sweep_before_the_first_run(base, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(sweeping, "_core_run", lambda text: calls.append(text))
    grid = {"cca": ["cubic", "newreno"], "path.buffer_bytes": [100_000, -1]}
    for where in ({"jobs": 0}, {"cluster": "tcp://127.0.0.1:9"}):
        # The cluster is never contacted: the grid is checked first.
        with pytest.raises(ConfigError, match=r"grid key 'path.buffer_bytes' = -1"):
            wavecc.sweep(base, grid, out=tmp_path / "store", **where)
    assert calls == [] and not (tmp_path / "store").exists()


def test_a_sweep_writes_every_run_and_a_summary(base, tmp_path):
    out = tmp_path / "store"
    seen = []
    rs = wavecc.sweep(base, GRID, seeds=2, jobs=2, out=out, progress=seen.append)
    assert len(run_dirs(out)) == 8
    summary = pd.read_parquet(out / "summary.parquet")
    pd.testing.assert_frame_equal(summary, rs.summary)
    assert len(summary) == 8
    for column in [
        "cca",
        "path.one_way_delay_s",
        "seed",
        "key",
        "status",
        "error",
        "wall_time_s",
        *METRICS,
    ]:
        assert column in summary.columns, column
    assert set(summary["status"]) == {"ok"} and rs.failed == []
    assert sorted(summary["cca"].unique()) == ["cubic", "newreno"]
    assert (summary["goodput_mbps"] > 50).all()
    # Progress: a start report, then one per run, ending with all done.
    assert seen[0].point is None and seen[0].total == 8
    assert len(seen) == 9 and seen[-1].done == 8 and seen[-1].remaining == 0
    # Each run directory is a whole saved Result (no figure), loadable by key.
    key = summary["key"][0]
    from wavecc.result import TABLES

    assert sorted(p.name for p in (out / "runs" / key).iterdir()) == sorted(
        ["config.json", "summary.json", *(f"{table}.parquet" for table in TABLES)]
    )
    assert {"flows", "queues", "cc", "events"} <= set(TABLES)
    result = rs.load(key)
    assert result.config["flows"][0]["cca"] == summary["cca"][0]
    assert result.summary["flows"][0]["goodput_mbps"] == summary["goodput_mbps"][0]
    assert len(result.flows) > 0
    assert wavecc.ResultSet.open(out).summary.equals(summary)


def test_rerunning_skips_everything_and_resume_recomputes_only_the_missing(
    base, tmp_path, monkeypatch
):
    out = tmp_path / "store"
    wavecc.sweep(base, GRID, seeds=2, jobs=0, out=out)
    before = run_dirs(out)

    calls = []
    real = sweeping._core_run
    monkeypatch.setattr(sweeping, "_core_run", lambda text: calls.append(text) or real(text))
    again = wavecc.sweep(base, GRID, seeds=2, jobs=0, out=out)
    assert calls == [] and run_dirs(out) == before
    assert len(again.summary) == 8 and set(again.summary["status"]) == {"ok"}

    # A sweep killed halfway: some run directories never appeared.
    removed = sorted(before)[:3]
    for key in removed:
        for f in (out / "runs" / key).iterdir():
            f.unlink()
        (out / "runs" / key).rmdir()
    resumed = wavecc.sweep(base, GRID, seeds=2, jobs=0, out=out)
    assert sorted(json.loads(text)["seed"] for text in calls) == sorted(
        resumed.summary.set_index("key").loc[removed, "seed"]
    )
    assert len(calls) == 3
    after = run_dirs(out)
    assert set(after) == set(before)
    assert all(after[k] == before[k] for k in before if k not in removed)
    assert set(resumed.summary["status"]) == {"ok"}


def test_a_half_written_run_is_not_read(base, tmp_path):
    out = tmp_path / "store"
    points = sweeping.expand(base, {"cca": ["cubic"]})
    # What an interrupted worker leaves in its store: a hidden staging directory, never
    # the run's own.
    Store(out).open()
    staging = out / "runs" / f".{points[0].key}.123-abcd.partial"
    staging.mkdir(parents=True)
    (staging / "config.json").write_text("{}")
    rs = wavecc.sweep(base, {"cca": ["cubic"]}, jobs=0, out=out)
    assert list(rs.summary["status"]) == ["ok"]
    assert (out / "runs" / points[0].key / "summary.json").is_file()


def test_a_failing_run_is_recorded_and_the_others_complete(base, tmp_path, monkeypatch):
    out = tmp_path / "store"
    real = sweeping._core_run

    def flaky(text: str) -> str:
        if json.loads(text)["flows"][0]["cca"] == "newreno":
            raise RuntimeError("simulated crash")
        return real(text)

    monkeypatch.setattr(sweeping, "_core_run", flaky)
    rs = wavecc.sweep(base, {"cca": ["cubic", "newreno", "bic"]}, jobs=0, out=out)
    summary = rs.summary.set_index("cca")
    assert list(summary["status"]) == ["ok", "failed", "ok"]
    assert "simulated crash" in summary.loc["newreno", "error"]
    assert pd.isna(summary.loc["newreno", "goodput_mbps"])
    assert [f["values"]["cca"] for f in rs.failed] == ["newreno"]
    key = summary.loc["newreno", "key"]
    record = json.loads((out / "runs" / f"{key}.failed.json").read_text())
    assert "simulated crash" in record["error"] and record["values"] == {"cca": "newreno"}
    assert not (out / "runs" / key).exists()

    # The next invocation retries the failed run, and only it.
    monkeypatch.setattr(sweeping, "_core_run", real)
    rs = wavecc.sweep(base, {"cca": ["cubic", "newreno", "bic"]}, jobs=0, out=out)
    assert set(rs.summary["status"]) == {"ok"} and rs.failed == []
    assert not (out / "runs" / f"{key}.failed.json").exists()


def test_one_and_two_workers_give_the_same_results(base, tmp_path):
    grid = {"cca": ["cubic", "newreno"], "path.loss.per_byte": [0, 1e-7]}
    one = wavecc.sweep(base, grid, seeds=1, jobs=1, out=tmp_path / "one").summary
    two = wavecc.sweep(base, grid, seeds=1, jobs=2, out=tmp_path / "two").summary
    inline = wavecc.sweep(base, grid, seeds=1, jobs=0, out=tmp_path / "inline").summary
    columns = ["cca", "path.loss.per_byte", "seed", "key", "status", *METRICS]
    pd.testing.assert_frame_equal(one[columns], two[columns])
    pd.testing.assert_frame_equal(one[columns], inline[columns])
    key = one["key"][3]
    a = pd.read_parquet(tmp_path / "one" / "runs" / key / "flows.parquet")
    b = pd.read_parquet(tmp_path / "two" / "runs" / key / "flows.parquet")
    pd.testing.assert_frame_equal(a, b)


def test_several_flows_get_suffixed_columns(base, tmp_path):
    two_flows = dict(base, flows=[{"cca": "cubic"}, {"cca": "newreno"}])
    rs = wavecc.sweep(two_flows, {"path.one_way_delay_s": [0.01]}, jobs=0, out=tmp_path / "s")
    for metric in METRICS:
        assert f"{metric}_f0" in rs.summary.columns and f"{metric}_f1" in rs.summary.columns
        assert metric not in rs.summary.columns


def test_wavecc_sweep_is_the_function_after_its_module_is_imported():
    # The module is `wavecc.sweeps`, so importing it cannot shadow the function.
    assert wavecc.sweep is sweeping.sweep and callable(wavecc.sweep)


@pytest.mark.parametrize(
    "text, key, values",
    [
        ("cca=cubic,bbr", "cca", ["cubic", "bbr"]),
        ("path.loss.per_byte=0,1e-8,1e-7", "path.loss.per_byte", [0, 1e-8, 1e-7]),
        (
            'flows=[{cca = "cubic"}, {cca = "bbr"}],[{cca = "bic"}]',
            "flows",
            [[{"cca": "cubic"}, {"cca": "bbr"}], [{"cca": "bic"}]],
        ),
        ('name="a,b",c', "name", ["a,b", "c"]),
    ],
)
def test_grid_arguments_parse_like_set_values(text, key, values):
    assert sweeping.parse_grid_arg(text) == (key, values)


# --- the command line -------------------------------------------------------------------


def test_cli_sweep_runs_and_resumes(cli, tmp_path):
    out = tmp_path / "store"
    args = [
        "sweep",
        "dumbbell-1g",
        "--grid",
        "cca=cubic,newreno",
        "--grid",
        "path.one_way_delay_s=0.005,0.01",
        "--seeds",
        "2",
        "--jobs",
        "2",
        *[a for s in SHORT for a in ("--set", s)],
        "--out",
        out,
    ]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "sweep: 8 run(s)"
    assert sum(line.startswith("[") and "] ok " in line for line in lines) == 8
    assert "goodput_mbps" in done.stdout and "newreno" in done.stdout
    assert len(pd.read_parquet(out / "summary.parquet")) == 8

    again = cli(*args)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == f"sweep: 8 run(s), 8 already in {out}"
    assert "] ok " not in again.stdout


def test_cli_sweep_file(cli, tmp_path):
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text(
        'scenario = "dumbbell-1g"\nseeds = 2\nout = "results"\njobs = 1\n'
        '[grid]\ncca = ["cubic", "bic"]\n'
        "[set]\nduration_s = 1\npath.rate_bps = 1e8\n"
    )
    done = cli("sweep", "--file", sweep_file)
    assert done.returncode == 0, done.stderr
    summary = pd.read_parquet(tmp_path / "results" / "summary.parquet")
    assert list(summary["cca"]) == ["cubic", "cubic", "bic", "bic"]
    assert list(summary["seed"]) == [1, 2, 1, 2]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--grid", "path.nope=1,2"], "grid key 'path.nope'"),
        (["--grid", "cca=cubic,nosuch"], "unknown algorithm 'nosuch'"),
        (["--grid", "cca"], "bad --grid 'cca'"),
        (["--seeds", "0"], "seeds must be at least 1, not 0"),
        (["--jobs", "-1"], "jobs must be at least 0 (0: in this process), not -1"),
        (["--set", "path.nope=1"], "path.nope"),
    ],
)
def test_cli_sweep_bad_input_is_one_line_and_exit_2(cli, tmp_path, args, message):
    out = tmp_path / "store"
    done = cli("sweep", "dumbbell-1g", *args, "--out", out)
    assert done.returncode == 2
    assert done.stderr.startswith("wavecc: error: ") and message in done.stderr
    assert done.stderr.count("\n") == 1
    assert not out.exists()


def test_cli_sweep_exit_1_names_the_failed_runs(cli, tmp_path):
    # A run that validates but fails: its run directory's place is taken by a file.
    out = tmp_path / "store"
    base = wavecc.apply_overrides(wavecc.load_scenario("dumbbell-1g"), SHORT)
    points = sweeping.expand(base, {"cca": ["cubic", "bic"]})
    Store(out).open()
    (out / "runs" / points[1].key).write_text("in the way")
    done = cli(
        "sweep",
        "dumbbell-1g",
        "--grid",
        "cca=cubic,bic",
        *[a for s in SHORT for a in ("--set", s)],
        "--jobs",
        "1",
        "--out",
        out,
    )
    assert done.returncode == 1, done.stderr
    assert "1 run(s) failed" in done.stdout
    assert f"{points[1].key}  cca=bic seed=1:" in done.stdout
    assert os.path.isdir(out / "runs" / points[0].key)


def test_cli_sweep_killed_halfway_resumes_without_recomputing(tmp_path):
    """A real kill: the sweep's whole process group gets SIGKILL after three runs."""
    import signal
    import subprocess
    import sys

    out = tmp_path / "store"
    # 1 Gb/s for 10 s: about a tenth of a wall second per run, slow enough to kill midway.
    args = [
        sys.executable,
        "-m",
        "wavecc",
        "sweep",
        "dumbbell-1g",
        "--grid",
        "cca=cubic,newreno,bic,highspeed",
        "--seeds",
        "2",
        "--jobs",
        "1",
        "--set",
        "duration_s=10",
        "--out",
        str(out),
    ]
    child = subprocess.Popen(
        args, stdout=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path
    )
    try:
        finished = 0
        for line in child.stdout:
            finished += "] ok " in line
            if finished == 3:
                os.killpg(child.pid, signal.SIGKILL)
                break
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
        child.stdout.close()
    before = run_dirs(out)
    assert 3 <= len(before) < 8

    again = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    assert lines[0] == f"sweep: 8 run(s), {len(before)} already in {out}"
    assert sum("] ok " in line for line in lines) == 8 - len(before)
    after = run_dirs(out)
    assert len(after) == 8 and all(after[k] == before[k] for k in before)
    assert set(pd.read_parquet(out / "summary.parquet")["status"]) == {"ok"}


# --- Dask distributed -------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_cluster():
    distributed = pytest.importorskip("distributed")
    # Threads in this process: no worker start-up cost, and no network beyond loopback.
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        yield cluster


def test_a_local_cluster_gives_the_same_table_as_the_local_pool(base, tmp_path, local_cluster):
    grid = {"cca": ["cubic", "newreno"], "path.loss.per_byte": [0, 1e-7]}
    pool = wavecc.sweep(base, grid, seeds=2, jobs=2, out=tmp_path / "pool").summary
    seen = []
    dask = wavecc.sweep(
        base,
        grid,
        seeds=2,
        cluster=local_cluster.scheduler_address,
        out=tmp_path / "dask",
        progress=seen.append,
    ).summary
    columns = ["cca", "path.loss.per_byte", "seed", "key", "status", *METRICS]
    pd.testing.assert_frame_equal(pool[columns], dask[columns])
    assert set(dask["status"]) == {"ok"} and len(seen) == 9 and seen[-1].done == 8
    key = pool["key"][5]
    a = pd.read_parquet(tmp_path / "pool" / "runs" / key / "flows.parquet")
    b = pd.read_parquet(tmp_path / "dask" / "runs" / key / "flows.parquet")
    pd.testing.assert_frame_equal(a, b)

    # Resuming through the cluster skips what the store has.
    again = []
    wavecc.sweep(
        base, grid, seeds=2, cluster=local_cluster, out=tmp_path / "dask", progress=again.append
    )
    assert len(again) == 1 and again[0].skipped == 8


def test_a_cluster_run_that_fails_is_recorded(base, tmp_path, local_cluster, monkeypatch):
    from distributed import Client

    real = sweeping._core_run

    def flaky(text: str) -> str:
        if json.loads(text)["flows"][0]["cca"] == "newreno":
            raise RuntimeError("simulated crash")
        return real(text)

    # The in-process workers see this module's patched function.
    monkeypatch.setattr(sweeping, "_core_run", flaky)
    with Client(local_cluster, set_as_default=False) as client:
        rs = wavecc.sweep(base, {"cca": ["cubic", "newreno"]}, cluster=client, out=tmp_path / "s")
    assert list(rs.summary["status"]) == ["ok", "failed"]
    assert "simulated crash" in rs.failed[0]["error"]


def test_workers_with_another_wavecc_are_refused(base, tmp_path, local_cluster, monkeypatch):
    def version(dask_worker=None) -> str:
        # client.run passes the worker: pretend that it has another wavecc.
        return "9.9.9" if dask_worker is not None else wavecc.__version__

    monkeypatch.setattr(sweeping, "_worker_version", version)
    with pytest.raises(ConfigError, match=r"has wavecc 9\.9\.9, this process"):
        wavecc.sweep(base, {"cca": ["cubic"]}, cluster=local_cluster, out=tmp_path / "s")
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "where, named",
    [({"jobs": 0}, "jobs=0"), ({"cluster": "tcp://127.0.0.1:9"}, "cluster")],
)
def test_max_memory_needs_local_workers(base, tmp_path, where, named):
    with pytest.raises(ConfigError, match=f"max_memory caps local worker processes.*{named}"):
        wavecc.sweep(base, {"cca": ["cubic"]}, out=tmp_path / "s", max_memory="1G", **where)
    assert not (tmp_path / "s").exists()


def test_max_memory_refuses_what_the_core_estimates_above_it(base, tmp_path):
    # dumbbell-1g's run is estimated at about 50 MB (its event log at its bound).
    rs = wavecc.sweep(base, {"cca": ["cubic"]}, jobs=1, out=tmp_path / "s", max_memory="10M")
    (failed,) = rs.failed
    assert failed["error"].startswith("refused before it started: the core estimates it needs ")
    assert failed["error"].endswith("M of memory, more than max_memory 10M")
    assert not (tmp_path / "s" / "runs" / failed["key"]).exists()


def test_cluster_and_jobs_together_are_refused(base, tmp_path):
    with pytest.raises(ConfigError, match="either jobs"):
        wavecc.sweep(
            base, {"cca": ["cubic"]}, jobs=1, cluster="tcp://127.0.0.1:1", out=tmp_path / "s"
        )
    assert not (tmp_path / "s").exists()


def test_an_unreachable_scheduler_fails_before_writing(base, tmp_path):
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        with pytest.raises(OSError, match="Dask scheduler at tcp://127.0.0.1:9"):
            sweeping.sweep(
                base, {"cca": ["cubic"]}, cluster="tcp://127.0.0.1:9", out=tmp_path / "s"
            )
    assert not (tmp_path / "s").exists()


def test_cli_sweep_on_a_cluster(cli, tmp_path):
    distributed = pytest.importorskip("distributed")
    args = [
        "sweep",
        "dumbbell-1g",
        "--grid",
        "cca=cubic,newreno",
        "--seeds",
        "2",
        *[a for s in SHORT for a in ("--set", s)],
    ]
    local = cli(*args, "--jobs", "2", "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    # A scheduler on loopback that the command line's own process connects to.
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=":0",
    ) as cluster:
        done = cli(*args, "--cluster", cluster.scheduler_address, "--out", tmp_path / "dask")
    assert done.returncode == 0, done.stderr
    assert sum("] ok " in line for line in done.stdout.splitlines()) == 4
    columns = ["cca", "seed", "key", "status", *METRICS]
    a = pd.read_parquet(tmp_path / "local" / "summary.parquet")[columns]
    b = pd.read_parquet(tmp_path / "dask" / "summary.parquet")[columns]
    pd.testing.assert_frame_equal(a, b)


def test_cli_sweep_bad_cluster_is_one_line(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "2s")
    out = tmp_path / "store"
    done = cli(
        "sweep",
        "dumbbell-1g",
        "--grid",
        "cca=cubic",
        "--cluster",
        "tcp://127.0.0.1:9",
        "--out",
        out,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("wavecc: error: cannot reach the Dask scheduler")
    assert not out.exists()
    both = cli(
        "sweep",
        "dumbbell-1g",
        "--grid",
        "cca=cubic",
        "--cluster",
        "tcp://127.0.0.1:9",
        "--jobs",
        "2",
        "--out",
        out,
    )
    assert both.returncode == 2 and "either --jobs" in both.stderr
