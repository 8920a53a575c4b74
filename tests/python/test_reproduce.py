"""`wavecc reproduce`: the experiment list, the published-value matching, and one
experiment end to end in its --quick form."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from wavecc import reproduce
from wavecc._core import ConfigError
from wavecc.reproduce import findings
from wavecc.reproduce.core import TABLE_COLUMNS, attach_published, cell, published

IDS = {
    "fbtcp", "urban", "thesis-benchmarks", "thesis-rttv", "thesis-mss", "thesis-mrvhs",
    "mateo-blockage", "mateo-handover", "mateo-multiuser", "dtcp-mmwave", "dtcp-bottleneck",
    "dtcp-fairness",
}  # fmt: skip


def test_every_experiment_the_issue_names_is_registered():
    assert set(reproduce.EXPERIMENTS) == IDS


def test_every_experiment_builds_valid_cases_quick_and_full():
    for experiment in reproduce.EXPERIMENTS.values():
        for quick in (True, False):
            cases = experiment.cases(quick)
            assert cases, experiment.id
            assert len({c.name for c in cases}) == len(cases), (
                f"{experiment.id}: case names repeat"
            )
            # Quick runs are short and use one seed; full ones the seeds' 3 repetitions.
            assert experiment.seeds(quick) == (1 if quick else 3)
        full = sum(c.simulated_s(3) for c in experiment.cases(False))
        short = sum(c.simulated_s(1) for c in experiment.cases(True))
        assert short < full, experiment.id


def test_an_unknown_experiment_lists_the_known_ones():
    with pytest.raises(ConfigError, match="fbtcp.*urban"):
        reproduce.get("nope")


def test_published_values_are_matched_and_missing_cells_kept():
    rows = [
        cell("table3.3", "avg_throughput", "Mb/s", [100.0, 120.0], setting="bdp (2.5 MB)",
             per_byte=0.0, cca="newreno", scenario="thesis urban"),
        cell("table3.3", "avg_throughput", "Mb/s", [50.0], setting="bdp (2.5 MB)",
             per_byte=0.0, cca="rttv", scenario="thesis urban"),
    ]  # fmt: skip
    match = ["setting", "per_byte", "cca", "metric"]
    table = attach_published(rows, "001", ("3.3",), match)
    assert list(table.columns) == TABLE_COLUMNS
    newreno = table[
        (table["cca"] == "newreno")
        & (table["setting"] == "bdp (2.5 MB)")
        & (table["per_byte"] == 0.0)
    ]
    # Table 3.3 publishes 660 Mb/s for NewReno at 2.5 MB, error 0; ours is the mean 110.
    assert newreno["published"].astype(float).tolist() == [660.0]
    assert newreno["ours"].tolist() == [110.0]
    assert newreno["difference"].tolist() == [-550.0]
    assert newreno["difference_pct"].iloc[0] == pytest.approx(-550 / 660 * 100)
    # A cell the seed did not publish has no published value; every published cell of
    # the table is present even without a run (ours NaN): 80 published + 1 of ours.
    assert math.isnan(float(table[table["cca"] == "rttv"]["published"].iloc[0]))
    pub = published()
    assert len(table) == len(pub[(pub["seed"] == "001") & (pub["table"] == "3.3")].drop_duplicates(
        subset=["setting", "per_byte", "cca", "metric"])) + 1  # fmt: skip


def test_the_confidence_interval_of_a_cell_spans_the_repetitions():
    row = cell("t", "m", "u", [1.0, 2.0, 3.0])
    # t(0.975, 2) = 4.303; s = 1; half width 4.303 / sqrt(3) = 2.484.
    assert row["ours"] == 2.0 and row["n"] == 3
    assert row["ours_ci"] == pytest.approx(2.484, abs=1e-3)


def test_a_quick_reproduction_writes_its_tables_and_figures(tmp_path):
    done = reproduce.run("dtcp-bottleneck", tmp_path / "out", quick=True, jobs=2)
    tables = {name: pd.read_csv(path) for name, path in done.tables.items()}
    assert set(tables) == {"goodput", "max_goodput"}
    best = tables["max_goodput"].set_index("cca")
    # Fig. 13 publishes D-TCP, CUBIC, Reno and CLTCP; CLTCP is not modelled (no run).
    assert set(best.index) == {"dtcp", "cubic", "reno", "cltcp"}
    assert best.loc["dtcp", "published"] == 4927.0
    assert math.isnan(best.loc["cltcp", "ours"])
    # Goodput on a 5 Mb/s link cannot exceed it.
    assert 0 < best.loc["dtcp", "ours"] <= 5000
    assert len(tables["goodput"]) == 3 * 2 * 3
    assert all(p.exists() for p in done.figures) and len(done.figures) == 4
    # A second call resumes: nothing is rerun, the same tables come out.
    again = reproduce.run("dtcp-bottleneck", tmp_path / "out", quick=True, jobs=2)
    assert pd.read_csv(again.tables["goodput"]).equals(tables["goodput"])


QUICK = Path(__file__).resolve().parents[2] / "reproductions" / "quick"


def test_the_seeds_findings_over_the_committed_quick_outputs():
    """Every finding gets a verdict from the committed `--quick` tables, and the
    verdicts are the ones docs/reproduction.md discusses (reproductions/quick/
    findings.json): a change that flips one must update both."""
    verdicts = findings.evaluate(QUICK)
    assert {v.finding.id for v in verdicts} == {f.id for f in findings.FINDINGS}
    assert all(v.holds is not None for v in verdicts), findings.describe(verdicts)
    expected = json.loads((QUICK / "findings.json").read_text(encoding="utf-8"))
    assert {v.finding.id: v.holds for v in verdicts} == {
        k: e["holds"] for k, e in expected.items()
    }


def test_findings_without_their_experiment_are_not_checked(tmp_path):
    verdicts = findings.evaluate(tmp_path)
    assert all(v.holds is None and "not run here" in v.evidence for v in verdicts)
