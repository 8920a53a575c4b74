"""The validation grid: the cases (algorithm, link, loss), the settings they share on
both sides, the TCP stacks wavecc runs them in, and picking cases by name."""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .._core import ConfigError
from ..config import check_stack

# wavecc's algorithm names and ns-3 3.37's (`dumbbell --cca`). Westwood+ is TcpWestwood
# with ProtocolType=WestwoodPlus in 3.37; the program takes TcpWestwoodPlus for it.
ALGORITHMS = (
    ("newreno", "TcpNewReno"),
    ("cubic", "TcpCubic"),
    ("highspeed", "TcpHighSpeed"),
    ("bbr", "TcpBbr"),
    ("vegas", "TcpVegas"),
    ("scalable", "TcpScalable"),
    ("yeah", "TcpYeah"),
    ("westwood", "TcpWestwoodPlus"),
)

# Settings every case shares, on both sides (wavecc's `tcp` table; the ns-3 program
# hard-codes the same values).
TCP = {
    "mss_bytes": 1400,
    "min_rto_s": 1.0,
    "initial_cwnd_segments": 10,
    "sack": True,
    "timestamps": True,
    "ack_every_segments": 2,
    "snd_buf_bytes": 6_553_600,
    "rcv_buf_bytes": 6_553_600,
}
# The sender's link to the bottleneck router, both ways (the ns-3 program's `access`;
# 0 s). Its rate decides how a burst reaches a full bottleneck queue: at ten times the
# bottleneck's rate most of it is dropped, a few segments at a time.
ACCESS_RATE_BPS = 10e9
INTERVAL_S = 0.1
SEED = 1


# The TCP stacks a comparison runs wavecc in by default (`tcp.stack`; the core holds
# each stack's switches, `wavecc.stacks()`): its own, Linux's, and ns-3 3.37's, the
# references' (docs/validation.md says what each switch changes and why).
STACKS = ("linux", "ns3-3.37")


def stacks(names: Iterable[str] | None) -> list[str]:
    """The stacks named, each checked by the core (its ConfigError names the valid
    ones); STACKS for None."""
    return list(STACKS) if names is None else [check_stack(name) for name in names]


@dataclass(frozen=True)
class Case:
    name: str
    cca: str  # wavecc's name
    ns3_cca: str  # the ns-3 program's --cca
    rate_bps: float
    delay_s: float
    buffer_bytes: int
    per_byte: float
    duration_s: float
    seed: int = SEED
    interval_s: float = INTERVAL_S

    def shortened(self, duration_s: float | None) -> Case:
        """The same case with another duration (for the tests); itself for None."""
        return self if duration_s is None else dataclasses.replace(self, duration_s=duration_s)

    def settings(self) -> dict[str, Any]:
        """What a reference's summary.json must say for it to belong to this case."""
        return {
            "cca": self.ns3_cca,
            "rate_bps": self.rate_bps,
            "delay_s": self.delay_s,
            "buffer_bytes": self.buffer_bytes,
            "per_byte": self.per_byte,
            "duration_s": self.duration_s,
            "interval_s": self.interval_s,
            "seed": self.seed,
        }


def _grid() -> tuple[Case, ...]:
    """The validation grid: every algorithm at 1 Gb/s, 10 ms one way, 2.5 MB of buffer and
    per-byte loss 0, 1e-8 and 1e-7, for 20 s; and at 100 Mb/s, 25 ms, 0.3 MB, no loss."""
    cases = []
    for cca, ns3_cca in ALGORITHMS:
        for loss, label in ((0.0, "0"), (1e-8, "1e-8"), (1e-7, "1e-7")):
            cases.append(Case(f"{cca}-1g-{label}", cca, ns3_cca, 1e9, 0.010, 2_500_000, loss, 20.0))
        cases.append(Case(f"{cca}-100m-0", cca, ns3_cca, 1e8, 0.025, 300_000, 0.0, 20.0))
    return tuple(cases)


CASES = _grid()


def select(names: Iterable[str] | None) -> list[Case]:
    """The cases named, in grid order; each name may be a shell pattern (`cubic-*`,
    `*-100m-0`). All of them for None."""
    chosen = match_names(names, [c.name for c in CASES], "validation case", "cubic-*")
    return [c for c in CASES if c.name in chosen]


def match_names(
    names: Iterable[str] | None, valid: Sequence[str], what: str, example: str
) -> list[str]:
    """The names of `valid` that `names` select (each a name or a shell pattern such
    as `example`), in `valid`'s order; all of them for None. A name that selects
    nothing is a ConfigError listing the valid ones."""
    if names is None:
        return list(valid)
    names = list(names)
    if not names:
        raise ConfigError(f"no {what} named ({what}s: {', '.join(valid)})")
    chosen = set()
    for name in names:
        matched = {v for v in valid if fnmatch.fnmatchcase(v, name)}
        if not matched:
            raise ConfigError(
                f"unknown {what} '{name}' ({what}s: {', '.join(valid)}; "
                f"shell patterns such as '{example}' work too)"
            )
        chosen |= matched
    return [v for v in valid if v in chosen]
