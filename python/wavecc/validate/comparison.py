"""`wavecc validate ns3`: wavecc run on every case that has a reference, compared
with it, written as comparison.csv, comparison.md and one figure per case."""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import outdir
from .._core import ConfigError
from ..atomic import atomic_directory
from .cases import Case
from .plot import overlay
from .references import Reference, StaleReference, load_references
from .scenario import wavecc_config
from .stats import COLUMNS, Row, number
from .tables import markdown

# What `wavecc validate ns3 --out DIR` writes, under outdir's rules: it replaces only
# an earlier comparison, with --force. One from before the marker is not recognised
# (outdir could not tell which of its files wavecc wrote): it is refused, as a
# user's directory is.
COMPARISON = outdir.Kind("comparison with ns-3", resumable=False, legacy=lambda directory: False)


@dataclass(frozen=True)
class Comparison:
    rows: list[Row]
    missing: list[str]
    stale: list[str]


def compare(
    cases: Sequence[Case],
    ns3_dir: Path,
    out: Path,
    *,
    stacks: Sequence[str] = ("linux",),
    seeds: int = 1,
    figures: bool = True,
    on_case: Callable[[list[Row]], None] | None = None,
    force: bool = False,
) -> Comparison:
    """Runs wavecc on every case that has a reference, in each TCP stack and with
    `seeds` (at least 1) seeds from the case's, and compares the mean with ns-3's;
    writes out/comparison.csv (a row per case and stack), out/comparison.md (the
    table docs/validation.md carries) and out/<case>.png. Cases without a reference
    are listed as missing, references made with other settings as stale; if no case
    has a usable reference, nothing is written and ConfigError says why.

    `out` follows outdir's rules, checked before anything runs: it must be new, empty
    or, with `force`, an earlier comparison holding only what wavecc wrote
    (`outdir.OutputRefused` otherwise)."""
    import wavecc

    out = Path(out)
    outdir.remove_stale(out.parent)
    outdir.check(out, COMPARISON, force=force)

    references: list[tuple[Case, list[Reference]]] = []
    missing: list[str] = []
    stale: list[str] = []
    for case in cases:
        try:
            found = load_references(case, ns3_dir)
        except StaleReference as e:
            stale.append(str(e))
            continue
        if not found:
            missing.append(case.name)
        else:
            references.append((case, found))
    if not references:
        what = "; ".join(stale) if stale else ", ".join(missing)
        raise ConfigError(
            f"no usable ns-3 reference in {ns3_dir / 'reference'} for the selected cases ({what}); "
            "make them with `wavecc validate ns3 --regenerate`"
        )

    rows: list[Row] = []
    with atomic_directory(out, discard=outdir.discard) as staging:
        for case, found in references:
            case_rows, first_runs = [], {}
            for stack in stacks:
                runs = [
                    wavecc.run(wavecc_config(case, stack, seed=case.seed + i)) for i in range(seeds)
                ]
                first_runs[stack] = runs[0]
                case_rows.append(_row(case, stack, runs, found))
            rows += case_rows
            if figures:
                overlay(case, first_runs, found[0], case_rows, staging / f"{case.name}.png")
            if on_case is not None:
                on_case(case_rows)
        with open(staging / "comparison.csv", "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            for row in rows:
                writer.writerow(row.as_dict())
        (staging / "comparison.md").write_text(markdown(rows, stacks), encoding="utf-8")
        outdir.mark(staging, COMPARISON, os.listdir(staging))
    return Comparison(rows, missing, stale)


def _row(case: Case, stack: str, runs: Sequence[Any], references: Sequence[Reference]) -> Row:
    """The mean over wavecc's runs (seeds) of one case and stack, beside the mean
    over ns-3's runs (seeds)."""
    flows = [run.summary["flows"][0] for run in runs]
    goodputs = [number(flow["goodput_mbps"]) for flow in flows]
    rtts = [number(flow["mean_rtt_ms"]) for flow in flows]

    def ns3_mean(key: str) -> float:
        return sum(number(r.summary.get(key)) for r in references) / len(references)

    return Row(
        case=case.name,
        cca=case.cca,
        goodput_wavecc_mbps=sum(goodputs) / len(goodputs),
        goodput_ns3_mbps=ns3_mean("goodput_mbps"),
        mean_rtt_wavecc_ms=sum(rtts) / len(rtts),
        mean_rtt_ns3_ms=ns3_mean("mean_rtt_ms"),
        stack=stack,
        seeds=len(runs),
        goodput_min_mbps=min(goodputs),
        goodput_max_mbps=max(goodputs),
        ns3_seeds=len(references),
        per_seed_wavecc=tuple(zip(goodputs, rtts, strict=True)),
        per_seed_ns3=tuple(
            (number(r.summary.get("goodput_mbps")), number(r.summary.get("mean_rtt_ms")))
            for r in references
        ),
    )
