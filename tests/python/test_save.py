"""`Result.save` and the all-or-nothing directory it writes through."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from wavecc import figures
from wavecc.atomic import atomic_directory

FILES = {
    "summary.json", "config.json", "flows.parquet", "queues.parquet", "cc.parquet",
    "events.parquet", "ues.parquet", "radio_events.parquet", "figure.png",
}  # fmt: skip
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


def test_save_without_figure(dumbbell, tmp_path):
    assert listing(dumbbell.save(tmp_path / "run", figure=False)) == FILES - {"figure.png"}


def test_save_replaces_an_existing_result_whole(dumbbell, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "stale.txt").write_text("from an earlier run")
    dumbbell.save(out, figure=False)
    assert "stale.txt" not in listing(out)
    assert listing(tmp_path) == {"run"}


def test_a_failed_save_leaves_no_trace_and_the_old_result_alone(dumbbell, tmp_path, monkeypatch):
    def broken(fig, path, formats):
        path.write_bytes(b"half a figure")
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(figures, "save", broken)
    with pytest.raises(RuntimeError, match="plotting failed"):
        dumbbell.save(tmp_path / "new")
    assert listing(tmp_path) == set()

    old = tmp_path / "old"
    old.mkdir()
    (old / "summary.json").write_text("{}")
    with pytest.raises(RuntimeError):
        dumbbell.save(old)
    assert listing(tmp_path) == {"old"}
    assert listing(old) == {"summary.json"}


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
