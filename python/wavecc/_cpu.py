"""Refuses, with the fix, to load a core built for a newer x86 CPU than this one.

The core is built for x86-64-v3 (`.cargo/config.toml`); on a CPU without those
instructions it would die on the first one with SIGILL and no word of why. This check
runs before the core is imported: on a CPU that has them it reads one line of
/proc/cpuinfo and returns; on one that lacks them it reads the byte the core exports
(`WAVECC_NEEDS_X86_64_V3`) without running its code, and raises only when that build
needs them.
"""

from __future__ import annotations

import importlib.util
import platform
import sys
from collections.abc import Iterable
from pathlib import Path

# x86-64-v3 and the levels below it, as /proc/cpuinfo names them (`abm` is LZCNT).
X86_64_V3_FLAGS = (
    "cx16",
    "lahf_lm",
    "popcnt",
    "sse4_1",
    "sse4_2",
    "ssse3",
    "avx",
    "avx2",
    "bmi1",
    "bmi2",
    "f16c",
    "fma",
    "abm",
    "movbe",
    "xsave",
)


def missing_flags(cpuinfo: Iterable[str]) -> list[str]:
    """The x86-64-v3 flags absent from the first `flags` line among `cpuinfo`'s lines."""
    for line in cpuinfo:
        if line.startswith("flags"):
            have = set(line.partition(":")[2].split())
            return [f for f in X86_64_V3_FLAGS if f not in have]
    return []  # no flags line: nothing to go by


def core_needs_v3(origin: str) -> bool:
    """Whether the core library at `origin` was built with x86-64-v3's instructions."""
    import ctypes  # only on a CPU that lacks them

    return bool(ctypes.c_uint8.in_dll(ctypes.CDLL(origin), "WAVECC_NEEDS_X86_64_V3").value)


def check(cpuinfo: Path = Path("/proc/cpuinfo")) -> None:
    """Raises ImportError, naming the missing flags and the rebuild command, when the
    core needs instructions this CPU lacks."""
    if sys.platform != "linux" or platform.machine() != "x86_64" or not cpuinfo.exists():
        return
    with cpuinfo.open() as lines:
        missing = missing_flags(lines)
    spec = importlib.util.find_spec("wavecc._core")
    if not missing or spec is None or spec.origin is None or not core_needs_v3(spec.origin):
        return
    raise ImportError(
        "wavecc's core was built for x86-64-v3, and this CPU lacks "
        f"{', '.join(missing)}; rebuild it for any x86-64 CPU with "
        '`RUSTFLAGS="-C target-cpu=x86-64" pip install --force-reinstall .` from the checkout'
    )
