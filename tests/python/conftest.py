"""Shared fixtures. The tests exercise the *installed* package (`pip install ".[test]"`):
the source tree's python/wavecc has no compiled core, and nothing here puts it on
sys.path."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

try:
    import wavecc._core  # noqa: F401
except ImportError as e:
    pytest.exit(
        f"wavecc with its compiled core is not installed ({e}); "
        "run `python3 -m pip install '.[test]'` from the repository root first",
        returncode=4,
    )

import wavecc


@pytest.fixture(scope="session")
def dumbbell() -> wavecc.Result:
    """One run of the built-in dumbbell, shortened to 2 s so that the suite stays fast on
    two cores, shared by the tests that only read it."""
    return wavecc.run("dumbbell-1g", overrides=["duration_s=2"])


@pytest.fixture
def scenario_file(tmp_path: Path) -> Callable[[str, str], Path]:
    """Writes TOML text to a file in a fresh directory and returns its path."""

    def write(text: str, name: str = "scenario.toml") -> Path:
        path = tmp_path / "scenarios" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        return path

    return write


@pytest.fixture
def cli(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Runs the installed command line in a child process, in an empty working directory
    (`tmp_path / "work"`), so default output paths land there and can be inspected."""
    work = tmp_path / "work"
    work.mkdir()

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "wavecc", *map(str, args)],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=600,
        )

    return run
