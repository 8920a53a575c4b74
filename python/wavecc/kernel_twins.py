"""Goodput of the source papers' algorithms against their fixed-point twins
(`wavecc kernel twins`).

`flows[].cc.fixed_point = true` runs an algorithm with the integer arithmetic of its
Linux eBPF program (docs/kernel.md); this module measures what that costs: each
algorithm on each scenario and seed, once in floating point and once in fixed point,
and the difference of the mean goodputs. Issue 21 asks for agreement within 2 % on
`dumbbell-1g` and `urban` over 60 s and three seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean

from . import _core
from .config import Config, apply_overrides, load_scenario, to_json
from .runner import run

SCENARIOS = ("dumbbell-1g", "urban")
ALGORITHMS = ("fbtcp", "rttv", "mss", "mrvhs", "dtcp")
TOLERANCE_PCT = 2.0

# progress(done, total, what): called before each run.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Comparison:
    """One algorithm on one scenario: goodputs (Mb/s) per seed, both variants."""

    scenario: str
    cca: str
    seeds: tuple[int, ...]
    float_mbps: tuple[float, ...]
    fixed_mbps: tuple[float, ...]

    @property
    def float_mean(self) -> float:
        return fmean(self.float_mbps)

    @property
    def fixed_mean(self) -> float:
        return fmean(self.fixed_mbps)

    @property
    def difference_pct(self) -> float:
        """(fixed - float) / float of the mean goodputs, in per cent."""
        return 100.0 * (self.fixed_mean - self.float_mean) / self.float_mean

    @property
    def agrees(self) -> bool:
        return abs(self.difference_pct) <= TOLERANCE_PCT


def with_algorithm(
    config: Config, cca: str, fixed_point: bool, duration_s: float, seed: int
) -> Config:
    """`config` with every flow running `cca` (fixed point or not), for the given run."""
    flows = [{**flow, "cca": cca, "cc": {"fixed_point": fixed_point}} for flow in config["flows"]]
    return {**config, "flows": flows, "duration_s": duration_s, "seed": seed}


def goodput_mbps(config: Config) -> float:
    """Total goodput of a run's flows, Mb/s."""
    return sum(flow["goodput_mbps"] for flow in run(config).summary["flows"])


def compare(
    duration_s: float,
    seeds: Sequence[int],
    scenarios: Sequence[str] = SCENARIOS,
    algorithms: Sequence[str] = ALGORITHMS,
    overrides: Sequence[str] = (),
    float_overrides: Sequence[str] = (),
    progress: Progress | None = None,
) -> list[Comparison]:
    """Runs every (scenario, algorithm, seed) in floating and fixed point.

    `overrides` (`dotted.key=value`) apply to every run, before the algorithm is set;
    `float_overrides` to the floating-point runs only: to give the float version a rule
    the kernel program follows, so that what remains is the arithmetic's effect. Every
    run's config is checked (ConfigError) before the first one starts.
    """
    runs = _planned_runs(duration_s, seeds, scenarios, algorithms, overrides, float_overrides)
    for *_, config in runs:
        _core.validate(to_json(config))
    goodputs: dict[tuple[str, str], dict[bool, list[float]]] = {}
    for done, (scenario, cca, seed, fixed_point, config) in enumerate(runs):
        if progress:
            variant = "fixed" if fixed_point else "float"
            progress(done, len(runs), f"{scenario} {cca} {variant} seed {seed}")
        by_variant = goodputs.setdefault((scenario, cca), {False: [], True: []})
        by_variant[fixed_point].append(goodput_mbps(config))
    return [
        Comparison(scenario, cca, tuple(seeds), tuple(g[False]), tuple(g[True]))
        for (scenario, cca), g in goodputs.items()
    ]


def _planned_runs(
    duration_s: float,
    seeds: Sequence[int],
    scenarios: Sequence[str],
    algorithms: Sequence[str],
    overrides: Sequence[str],
    float_overrides: Sequence[str],
) -> list[tuple[str, str, int, bool, Config]]:
    """(scenario, algorithm, seed, fixed_point, config) of every run, in running order."""
    runs = []
    for scenario in scenarios:
        base = apply_overrides(load_scenario(scenario), overrides)
        for cca in algorithms:
            for seed in seeds:
                for fixed_point in (False, True):
                    config = with_algorithm(base, cca, fixed_point, duration_s, seed)
                    if not fixed_point:
                        config = apply_overrides(config, float_overrides)
                    runs.append((scenario, cca, seed, fixed_point, config))
    return runs


def markdown(results: Sequence[Comparison]) -> str:
    """The comparison as the table of docs/kernel.md."""
    lines = [
        "| scenario | algorithm | float goodput (Mb/s) | fixed goodput (Mb/s) | difference | per seed (float / fixed) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for c in results:
        seeds = ", ".join(
            f"{a:.1f} / {b:.1f}" for a, b in zip(c.float_mbps, c.fixed_mbps, strict=True)
        )
        lines.append(
            f"| `{c.scenario}` | `{c.cca}` | {c.float_mean:.1f} | {c.fixed_mean:.1f} | "
            f"{c.difference_pct:+.2f} % | {seeds} |"
        )
    return "\n".join(lines)
