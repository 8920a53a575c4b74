"""A command never deletes or overwrites what it did not write (wavecc.outdir): a
directory holding a user's files survives every command that writes, byte for byte,
with exit 2 and one line naming it; `--force` replaces an earlier run only; stores
resume; staging left by killed processes is cleaned, a live process's is not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import wavecc
from wavecc import outdir
from wavecc.atomic import atomic_directory
from wavecc.outdir import MARKER, OutputRefused
from wavecc.report import write_report

SHORT = ["--set", "duration_s=0.2"]


def assert_one_error_line(proc, *fragments: str) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wavecc: error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert ".partial" not in lines[0]
    return lines[0]


def tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under `root` with its content (None for a directory)."""
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            found[os.path.relpath(os.path.join(dirpath, name), root)] = None
        for name in filenames:
            path = os.path.join(dirpath, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


@pytest.fixture
def thesis(tmp_path: Path) -> Path:
    """A user's directory, in the CLI's working directory: work/thesis."""
    directory = tmp_path / "work" / "thesis"
    (directory / "figures").mkdir(parents=True)
    (directory / "thesis.tex").write_text("\\chapter{Results}\n")
    (directory / "notes.txt").write_text("ask about BBR\n")
    (directory / "figures" / "plot.pdf").write_bytes(b"%PDF-1.4 not really")
    return directory


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A small sweep store (two runs of 0.2 s)."""
    out = tmp_path_factory.mktemp("safety") / "store"
    base = wavecc.apply_overrides(wavecc.load_scenario("dumbbell-1g"), ["duration_s=0.2"])
    wavecc.sweep(base, {"cca": ["cubic", "newreno"]}, jobs=0, out=out)
    return out


@pytest.mark.parametrize(
    "args",
    [
        ["run", "dumbbell-1g", *SHORT, "--out", "thesis"],
        ["run", "dumbbell-1g", *SHORT, "--out", "thesis", "--force"],
        ["sweep", "dumbbell-1g", *SHORT, "--grid", "cca=cubic", "--jobs", "0", "--out", "thesis"],
        ["reproduce", "mateo-handover", "--quick", "--jobs", "1", "--out", "thesis"],
    ],
    ids=["run", "run-force", "sweep", "reproduce"],
)
def test_a_users_directory_survives_every_command(cli, thesis, args):
    before = tree(thesis.parent)
    proc = cli(*args)
    assert_one_error_line(
        proc,
        "thesis exists and holds files wavecc did not write",
        "'figures', 'notes.txt', 'thesis.tex'",
        "empty or new directory",
    )
    assert tree(thesis.parent) == before


@pytest.mark.parametrize("out", ["thesis", "thesis/thesis.tex"])
def test_report_never_overwrites_a_users_file(cli, thesis, store, out):
    before = tree(thesis.parent)
    proc = cli("report", store, "--out", out)
    assert_one_error_line(proc, f"{out} exists and is not a report wavecc wrote")
    assert tree(thesis.parent) == before


def test_report_replaces_its_own_report_but_not_a_users_one(cli, store, tmp_path):
    target = tmp_path / "report.html"
    write_report(store, target)
    target.write_text(target.read_text().replace("</body>", "<p>old</p></body>"))
    write_report(store, target)
    assert "<p>old</p>" not in target.read_text()

    (store / "report.html").write_text("<html>my own notes</html>")
    proc = cli("report", store)
    assert_one_error_line(proc, f"{store / 'report.html'} exists and is not a report wavecc wrote")
    assert (store / "report.html").read_text() == "<html>my own notes</html>"
    (store / "report.html").unlink()


def test_result_save_leaves_a_users_directory_alone(dumbbell, thesis):
    before = tree(thesis.parent)
    for force in (False, True):
        with pytest.raises(OutputRefused, match="holds files wavecc did not write"):
            dumbbell.save(thesis, figure=False, force=force)
    assert tree(thesis.parent) == before


def test_out_at_the_parent_of_the_working_directory_is_refused(cli, tmp_path):
    (tmp_path / "work" / "draft.txt").write_text("mine")
    before = tree(tmp_path)
    proc = cli("run", "dumbbell-1g", *SHORT, "--out", "..", "--force")
    assert_one_error_line(proc, ".. exists and holds files wavecc did not write", "'work'")
    assert tree(tmp_path) == before


def test_force_replaces_an_earlier_run_and_only_a_run(cli, tmp_path):
    work = tmp_path / "work"
    assert (
        cli("run", "dumbbell-1g", *SHORT, "--seed", "1", "--out", "r", "--no-figure").returncode
        == 0
    )
    first = tree(work)

    again = cli("run", "dumbbell-1g", *SHORT, "--seed", "2", "--out", "r")
    assert_one_error_line(again, "r holds an earlier wavecc run; use --force to replace it")
    assert tree(work) == first

    forced = cli("run", "dumbbell-1g", *SHORT, "--seed", "2", "--out", "r", "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((work / "r" / "config.json").read_text())["seed"] == 2
    assert (work / "r" / "figure.png").is_file()
    assert sorted(os.listdir(work)) == ["r"]  # nothing left aside

    (work / "r" / "analysis.ipynb").write_text("{}")
    before = tree(work)
    refused = cli("run", "dumbbell-1g", *SHORT, "--out", "r", "--force")
    assert_one_error_line(
        refused,
        "r holds files wavecc did not write ('analysis.ipynb')",
        "not replaced even with --force",
    )
    assert tree(work) == before


def test_the_default_out_is_checked_before_the_run(cli, tmp_path):
    work = tmp_path / "work"
    first = cli("run", "dumbbell-1g", *SHORT, "--out", "out/dumbbell-1g", "--no-figure")
    assert first.returncode == 0, first.stderr
    before = tree(work)
    started = time.monotonic()
    # An hour of 1 Gb/s takes minutes to simulate: a refusal after the run would show.
    proc = cli("run", "dumbbell-1g", "--set", "duration_s=3600")
    assert_one_error_line(proc, "out/dumbbell-1g holds an earlier wavecc run")
    assert time.monotonic() - started < 20
    assert tree(work) == before


def test_kinds_are_not_mixed(cli, store, tmp_path):
    work = tmp_path / "work"
    assert cli("run", "dumbbell-1g", *SHORT, "--out", "r", "--no-figure").returncode == 0
    before = tree(work)
    proc = cli("sweep", "dumbbell-1g", *SHORT, "--grid", "cca=cubic", "--jobs", "0", "--out", "r")
    assert_one_error_line(proc, "r holds a wavecc run, not a sweep store")
    proc = cli("reproduce", "mateo-handover", "--quick", "--out", "r")
    assert_one_error_line(proc, "r holds a wavecc run, not a reproduction of mateo-handover")
    assert tree(work) == before
    before_store = tree(store)
    proc = cli("run", "dumbbell-1g", *SHORT, "--out", store, "--force")
    assert_one_error_line(proc, "holds a wavecc sweep store, not a run")
    assert tree(store) == before_store


def test_a_sweep_resumes_in_its_own_store_and_keeps_a_users_file(cli, tmp_path):
    args = ["sweep", "dumbbell-1g", *SHORT, "--jobs", "0", "--out", "s"]
    assert cli(*args, "--grid", "cca=cubic").returncode == 0
    store = tmp_path / "work" / "s"
    (store / "notes.txt").write_text("the cubic run looked odd")
    runs = {p.name: p.stat().st_mtime_ns for p in (store / "runs").iterdir()}

    proc = cli(*args, "--grid", "cca=cubic,newreno")
    assert proc.returncode == 0, proc.stderr
    assert "1 already in s" in proc.stdout
    assert (store / "notes.txt").read_text() == "the cubic run looked odd"
    assert all((store / "runs" / k).stat().st_mtime_ns == t for k, t in runs.items())
    assert json.loads((store / MARKER).read_text())["kind"] == "sweep store"


def test_a_store_from_before_the_marker_is_still_a_store(tmp_path):
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "runs").mkdir()
    (legacy / "sweep.json").write_text("{}")
    outdir.check(legacy, outdir.SWEEP_STORE)
    with pytest.raises(OutputRefused, match="did not write"):
        outdir.check(legacy, outdir.RUN, force=True)


def test_a_reproduction_from_before_the_marker_is_recognised_by_its_experiment(tmp_path):
    old = tmp_path / "fbtcp"
    (old / "tables").mkdir(parents=True)
    (old / "reproduction.json").write_text(json.dumps({"experiment": "fbtcp"}))
    outdir.check(old, outdir.reproduction("fbtcp"))
    with pytest.raises(OutputRefused, match="did not write"):
        outdir.check(old, outdir.reproduction("urban"))


def dead_pid() -> int:
    """The pid of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def staging(directory: Path, name: str, pid: int, suffix: str = "partial") -> Path:
    path = directory / f".{name}.{pid}-0123abcd.{suffix}"
    path.mkdir(parents=True)
    (path / "flows.parquet").write_bytes(b"half")
    return path


def test_stale_staging_of_a_dead_process_is_removed_a_live_ones_kept(cli, tmp_path):
    work = tmp_path / "work"
    dead, live = staging(work, "r", dead_pid()), staging(work, "r", os.getpid())
    proc = cli("run", "dumbbell-1g", *SHORT, "--out", "r", "--no-figure")
    assert proc.returncode == 0, proc.stderr
    assert not dead.exists() and live.exists()

    sweep = ["sweep", "dumbbell-1g", *SHORT, "--grid", "cca=cubic", "--jobs", "0", "--out", "s"]
    assert cli(*sweep).returncode == 0
    store = work / "s"
    dead = staging(store / "runs", "0123456789abcdef", dead_pid())
    live = staging(store / "runs", "0123456789abcdef", os.getpid())
    summary = store / f".summary.parquet.{dead_pid()}-89abcdef.partial"
    summary.write_bytes(b"half")
    proc = cli(*sweep)
    assert proc.returncode == 0, proc.stderr
    assert not dead.exists() and not summary.exists() and live.exists()


def test_a_run_left_aside_by_a_killed_replacement_is_put_back_or_discarded(dumbbell, tmp_path):
    # Killed between renaming the old run aside and renaming the new one in: put back.
    run = dumbbell.save(tmp_path / "r", figure=False)
    files = tree(run)
    aside = tmp_path / f".r.{dead_pid()}-0123abcd.old"
    os.rename(run, aside)
    outdir.remove_stale(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["r"] and tree(run) == files

    # Killed after the new one was in place: the old one is discarded, unless it holds
    # a file wavecc did not write.
    dumbbell.save(tmp_path / "old", figure=False)
    os.rename(tmp_path / "old", aside)
    outdir.remove_stale(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["r"]
    dumbbell.save(tmp_path / "old", figure=False)
    (tmp_path / "old" / "keep.txt").write_text("mine")
    os.rename(tmp_path / "old", aside)
    outdir.remove_stale(tmp_path)
    assert (aside / "keep.txt").read_text() == "mine"


def test_a_replacement_that_finds_a_users_file_puts_everything_back(dumbbell, tmp_path):
    # The file arrives after `check`: the replacement itself refuses, restoring the old run.
    run = dumbbell.save(tmp_path / "r", figure=False)
    (run / "late.txt").write_text("written meanwhile")
    before = tree(tmp_path)
    with pytest.raises(OutputRefused, match="'late.txt'"):
        with atomic_directory(run, discard=outdir.discard) as new:
            (new / "summary.json").write_text("{}")
    assert tree(tmp_path) == before


def test_an_unwritable_out_names_the_users_path(dumbbell, tmp_path):
    # A name the file system takes, but not with the staging suffix added.
    target = tmp_path / ("z" * 240)
    with pytest.raises(OSError) as refused:
        dumbbell.save(target, figure=False)
    assert refused.value.filename == str(target)
    assert os.listdir(tmp_path) == []
