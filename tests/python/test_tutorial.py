"""docs/tutorial.md runs as written: its Python blocks, in order, in one namespace, from
a directory that has the repository's `examples/` as the tutorial assumes."""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_the_tutorial_has_its_five_steps():
    assert len(python_blocks(TUTORIAL.read_text())) == 5


def test_every_block_of_the_tutorial_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "tutorial"}
    for i, block in enumerate(python_blocks(TUTORIAL.read_text()), 1):
        exec(compile(block, f"{TUTORIAL.name} block {i}", "exec"), namespace)
    assert (tmp_path / "tutorial" / "cubic" / "summary.json").exists()
    assert os.path.exists("tutorial/link.csv")
    table = namespace["table"]
    assert list(table["cca"]) == ["newreno", "cubic", "bbr"]
    assert all(table["goodput_mbps_n"] == 2)
