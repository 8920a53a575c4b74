"""`Result.save` and the all-or-nothing directory it writes through."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from wavecc import figures, outdir
from wavecc.atomic import atomic_directory

FILES = {
    "summary.json",
    "config.json",
    "flows.parquet",
    "queues.parquet",
    "cc.parquet",
    "events.parquet",
    "ues.parquet",
    "radio_events.parquet",
    "figure.png",
    outdir.MARKER,
}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def listing(directory) -> set[str]:
    """Everything in `directory`, hidden entries (staging leftovers) included."""
    return set(os.listdir(directory))


def test_save_writes_every_file_and_they_read_back(dumbbell, tmp_path):
    out = dumbbell.save(tmp_path / "out" / "run")
    assert out == tmp_path / "out" / "run"
    assert listing(out) == FILES
    assert listing(out.parent) == {"run"}
    assert json.loads((out / "summary.json").read_text()) == dumbbell.summary
    assert json.loads((out / "config.json").read_text()) == dumbbell.config
    for table in ("flows", "queues", "cc", "events"):
        saved = pd.read_parquet(out / f"{table}.parquet")
        pd.testing.assert_frame_equal(saved, getattr(dumbbell, table))
    figure = (out / "figure.png").read_bytes()
    assert figure.startswith(PNG_MAGIC) and len(figure) > 20_000
    marker = json.loads((out / outdir.MARKER).read_text())
    assert marker["kind"] == "run" and set(marker["files"]) == FILES - {outdir.MARKER}


def test_save_without_figure(dumbbell, tmp_path):
    assert listing(dumbbell.save(tmp_path / "run", figure=False)) == FILES - {"figure.png"}


def test_save_replaces_an_earlier_run_only_when_forced(dumbbell, tmp_path):
    out = dumbbell.save(tmp_path / "run")
    with pytest.raises(FileExistsError, match="holds an earlier wavecc run; use --force"):
        dumbbell.save(out, figure=False)
    assert listing(out) == FILES
    dumbbell.save(out, figure=False, force=True)
    assert listing(out) == FILES - {"figure.png"}
    assert json.loads((out / outdir.MARKER).read_text())["files"] == sorted(
        FILES - {"figure.png", outdir.MARKER}
    )
    assert listing(tmp_path) == {"run"}


def test_save_writes_into_an_empty_directory_but_not_beside_other_files(dumbbell, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert listing(dumbbell.save(empty, figure=False)) == FILES - {"figure.png"}
    full = tmp_path / "full"
    full.mkdir()
    (full / "stale.txt").write_text("not ours")
    with pytest.raises(FileExistsError, match="'stale.txt'"):
        dumbbell.save(full, figure=False, force=True)
    assert listing(full) == {"stale.txt"}


def test_a_failed_save_leaves_no_trace_and_the_old_result_alone(dumbbell, tmp_path, monkeypatch):
    old = dumbbell.save(tmp_path / "old", figure=False)

    def broken(fig, path, formats):
        path.write_bytes(b"half a figure")
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(figures, "save", broken)
    with pytest.raises(RuntimeError, match="plotting failed"):
        dumbbell.save(tmp_path / "new")
    assert listing(tmp_path) == {"old"}

    with pytest.raises(RuntimeError):
        dumbbell.save(old, force=True)
    assert listing(tmp_path) == {"old"}
    assert listing(old) == FILES - {"figure.png"}


def test_plot_writes_a_png(dumbbell, tmp_path):
    path = dumbbell.plot(tmp_path / "f.png")
    assert path.read_bytes().startswith(PNG_MAGIC)


def test_atomic_directory_appears_only_when_complete(tmp_path):
    target = tmp_path / "a" / "b"
    with atomic_directory(target) as staging:
        (staging / "x").write_text("1")
        assert not target.exists()
        assert staging.parent == target.parent and staging.name.startswith(".")
    assert listing(target) == {"x"}
    assert listing(target.parent) == {"b"}


def test_atomic_directory_gets_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        with atomic_directory(tmp_path / "d"):
            pass
    finally:
        os.umask(umask)
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o755


def test_atomic_directory_does_not_replace_a_file(tmp_path):
    (tmp_path / "f").write_text("keep")
    with pytest.raises(NotADirectoryError):
        with atomic_directory(tmp_path / "f") as staging:
            (staging / "x").write_text("1")
    assert listing(tmp_path) == {"f"}
    assert (tmp_path / "f").read_text() == "keep"
