"""Reproductions whose stack lacks an algorithm run that algorithm's cells in the stack
that has it: ns-3 3.29 had no BBR, so the `ns3-3.29` experiments' BBR cells run in
`ns3-3.37` (docs/reproduction.md, "BBR in the `ns3-3.29` experiments")."""

from __future__ import annotations

from pathlib import Path

from wavecc.reproduce.core import Case, Experiment, run_experiment, scenario, stack_parts


def _case(algorithms: list[str]) -> Case:
    config = scenario("dumbbell-1g", {"duration_s": 0.3})
    return Case("lan", config, {"cca": algorithms, "path.loss.per_byte": [0.0]}, {"setting": "x"})


def test_bbr_cells_of_an_ns3_3_29_case_move_to_ns3_3_37():
    parts = stack_parts(_case(["newreno", "bbr", "cubic"]), "ns3-3.29")
    assert [(c.name, c.grid["cca"], stack) for c, stack in parts] == [
        ("lan", ["newreno", "cubic"], "ns3-3.29"),
        ("lan@ns3-3.37", ["bbr"], "ns3-3.37"),
    ]
    # The rest of the grid and the labels travel with each part.
    assert all(c.grid["path.loss.per_byte"] == [0.0] for c, _ in parts)
    assert all(c.labels == {"setting": "x"} for c, _ in parts)


def test_cases_in_stacks_that_have_their_algorithms_stay_whole():
    with_bbr = _case(["newreno", "bbr"])
    assert stack_parts(with_bbr, "linux") == [(with_bbr, "linux")]
    assert stack_parts(with_bbr, "ns3-3.37") == [(with_bbr, "ns3-3.37")]
    without = _case(["newreno", "cubic"])
    assert stack_parts(without, "ns3-3.29") == [(without, "ns3-3.29")]
    only_bbr = _case(["bbr"])
    assert [(c.name, s) for c, s in stack_parts(only_bbr, "ns3-3.29")] == [
        ("lan@ns3-3.37", "ns3-3.37")
    ]


def test_an_ns3_3_29_reproduction_runs_bbr_in_ns3_3_37_and_labels_it_ns3_3_29(tmp_path: Path):
    experiment = Experiment(
        id="borrowed",
        seed="002",
        title="borrowed",
        outputs="",
        cases=lambda quick: [_case(["newreno", "bbr"])],
        tables=lambda runs: {},
        figures=lambda runs, directory: [],
        stack="ns3-3.29",
        repetitions=1,
    )
    runs = run_experiment(
        experiment,
        tmp_path,
        quick=True,
        jobs=0,
        cluster=None,
        progress=None,
        stacks=["ns3-3.29"],
    )["ns3-3.29"]
    summary = runs.summary.set_index("cca")
    # Rows keep the reproduction's stack; the runs behind them ran in the stack named.
    assert set(summary["stack"]) == {"ns3-3.29"}
    assert summary.loc["bbr", "case"] == "lan@ns3-3.37"
    assert summary.loc["newreno", "case"] == "lan"
    ran = {cca: runs.load(row).config["tcp"]["stack"] for cca, row in summary.iterrows()}
    assert ran == {"newreno": "ns3-3.29", "bbr": "ns3-3.37"}
    assert (tmp_path / "runs" / "ns3-3.29" / "lan@ns3-3.37").is_dir()
