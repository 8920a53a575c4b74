"""docs/config.md, the config reference, is generated from the core's schema
(`python -m wavecc.docs config`) and must match what the core does."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import wavecc
from wavecc import _core, docs

REPO = Path(__file__).resolve().parents[2]
CONFIG_MD = REPO / "docs" / "config.md"


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(_core.config_schema())


@pytest.fixture(scope="module")
def rows(schema: dict) -> dict[str, docs.Key]:
    return {k.path: k for s in docs.config_sections(schema) for k in s.keys}


def test_config_reference_is_current() -> None:
    assert CONFIG_MD.read_text(encoding="utf-8") == docs.config_markdown(), (
        "docs/config.md is stale: run `python -m wavecc.docs config` and commit it"
    )


def test_check_flag_reports_a_stale_page(tmp_path: Path) -> None:
    page = tmp_path / "config.md"
    page.write_text("old\n", encoding="utf-8")
    command = [sys.executable, "-m", "wavecc.docs", "config", "--out", str(page)]
    stale = subprocess.run([*command, "--check"], capture_output=True, text=True)
    assert stale.returncode == 1 and "stale" in stale.stderr
    assert subprocess.run(command, capture_output=True).returncode == 0
    assert subprocess.run([*command, "--check"]).returncode == 0


def test_units_come_from_names_but_never_for_switches(rows: dict[str, docs.Key]) -> None:
    assert rows["radio.rlc_buffer_bytes"].unit == "bytes"
    # A bool named after what it does to segments counts none.
    assert rows["radio.ns3_mmwave.misplace_segments"].unit == ""


def test_every_key_has_a_meaning(schema: dict) -> None:
    assert docs.undocumented_keys(schema) == [], "give these keys a doc comment in the core"


def test_defaults_are_the_effective_configs(rows: dict[str, docs.Key]) -> None:
    effective = json.loads(
        _core.validate(json.dumps({"flows": [{}], "radio": {"ues": [{"position": [0, 5, 1.5]}]}}))
    )
    checked = 0
    for path, key in rows.items():
        if "[]" in path or path == "radio.ues" or not key.default.startswith("`"):  # set above
            continue
        value = effective
        for part in path.split("."):
            value = value[part] if value is not None else None
        if value is None:  # inside a table the effective config leaves out (bursty loss)
            continue
        assert key.default == f"`{docs._value(value)}`", path
        checked += 1
    assert checked > 80


def _upper_end(limit: str) -> tuple[float, str] | None:
    """A limit's upper end and what follows it (`[1e3, 1e13] b/s` -> (1e13, "] b/s")),
    or None for a limit of another form (`at most 2000 flows`)."""
    match = re.match(r"^[\[(][^,]+, ([^\])]+)([\])].*)$", limit)
    return (float(match[1]), match[2]) if match else None


@pytest.mark.parametrize("section", ["", "path", "path.loss", "tcp", "trace"])
def test_limits_are_the_validators(rows: dict[str, docs.Key], section: str) -> None:
    """A value past each key's documented upper end is refused naming the key, with
    the same upper end, unless the key's type or a rule between keys refuses it first."""
    keys = [
        k for k in rows.values() if k.path.rpartition(".")[0] == section and _upper_end(k.limit)
    ]
    assert keys
    compared = 0
    for key in keys:
        top, rest = _upper_end(key.limit)
        value = int(top) * 10 if key.type.startswith("integer") else top * 10
        config = wavecc.apply_overrides({"flows": [{}]}, [f"{key.path}={value!r}"])
        with pytest.raises(wavecc.ConfigError) as error:
            _core.validate(json.dumps(config))
        message = str(error.value)
        assert message.startswith(f"{key.path}: "), message
        if "must be in " not in message:
            continue  # the type (u32 for tcp.mss_bytes) or a rule between keys came first
        refused = _upper_end(message.split("must be in ", 1)[1].rsplit(", got", 1)[0])
        assert refused == (top, rest), message
        compared += 1
    assert compared >= len(keys) - 2
