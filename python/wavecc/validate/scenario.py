"""wavecc's side of a comparison: a case as a wavecc scenario."""

from __future__ import annotations

from ..config import Config, resolve
from .cases import ACCESS_RATE_BPS, TCP, Case


def wavecc_config(case: Case, stack: str = "linux", seed: int | None = None) -> Config:
    """The built-in dumbbell-1g with the case's settings: one bulk flow over ns-3's
    topology (a 10 Gb/s, 0 s access link in front of the bottleneck), in the TCP
    `stack`, with another seed if given."""
    seed = case.seed if seed is None else seed
    config = resolve("dumbbell-1g", cca=case.cca, seed=seed, stack=stack)
    config["name"] = f"validate-{case.name}"
    config["duration_s"] = case.duration_s
    path = config.setdefault("path", {})
    path["rate_bps"] = case.rate_bps
    path["one_way_delay_s"] = case.delay_s
    path["buffer_bytes"] = case.buffer_bytes
    path.setdefault("loss", {})["per_byte"] = case.per_byte
    for flow in config["flows"]:
        flow["access_rate_bps"] = ACCESS_RATE_BPS
    config["tcp"].update(TCP)
    trace = config.setdefault("trace", {})
    trace["interval_s"] = case.interval_s
    trace["events"] = False
    return config
