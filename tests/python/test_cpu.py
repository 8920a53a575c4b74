"""The import-time guard against a core built for a newer x86 CPU than the host."""

from __future__ import annotations

import importlib.util
import platform
import sys

import pytest

from wavecc import _cpu

FULL = "processor\t: 0\nflags\t\t: fpu " + " ".join(_cpu.X86_64_V3_FLAGS) + " sse2\n"
OLD = FULL.replace(" avx2", "").replace(" bmi2", "")


def test_missing_flags_names_what_x86_64_v3_needs_and_the_cpu_lacks():
    assert _cpu.missing_flags(FULL.splitlines()) == []
    assert _cpu.missing_flags(OLD.splitlines()) == ["avx2", "bmi2"]
    assert _cpu.missing_flags(["processor\t: 0"]) == []


@pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() != "x86_64", reason="x86-64 Linux only"
)
def test_check_refuses_a_v3_core_on_an_older_cpu_and_says_how_to_rebuild(tmp_path):
    (tmp_path / "new").write_text(FULL)
    (tmp_path / "old").write_text(OLD)
    _cpu.check(tmp_path / "new")  # a CPU with every flag: never refused
    origin = importlib.util.find_spec("wavecc._core").origin
    if _cpu.core_needs_v3(origin):
        with pytest.raises(ImportError, match=r"lacks avx2, bmi2.*target-cpu=x86-64"):
            _cpu.check(tmp_path / "old")
    else:
        _cpu.check(tmp_path / "old")  # a generic build loads anywhere
