"""The city family: one street grid with any number of UEs (`wavecc.city`)."""

from __future__ import annotations

import collections
import tomllib

import pytest

import wavecc
from wavecc import _core, city, figures
from wavecc.config import load_scenario, resolve, to_json


def test_the_builtin_is_the_generators_output():
    assert _core.builtin_scenario("city-100ue") == city.generate(100)


def test_every_size_has_the_same_streets_and_the_first_ues_of_a_larger_one():
    small, large = (tomllib.loads(city.generate(n)) for n in (10, 1000))
    assert small["radio"]["gnbs"] == large["radio"]["gnbs"]
    assert small["radio"]["obstacles"] == large["radio"]["obstacles"]
    assert len(small["radio"]["gnbs"]) == 10
    assert len(large["radio"]["ues"]) == 1000
    assert small["radio"]["ues"] == large["radio"]["ues"][:10]
    assert small["flows"] == [f for f in large["flows"] if f["ue"] < 10]
    # The family is deterministic: the same call writes the same text.
    assert city.generate(30) == city.generate(30)


def _speeds(ue: dict) -> set[float]:
    return {w["speed_mps"] for w in ue.get("waypoints", [])}


def test_ues_walk_drive_and_stand_with_one_or_two_flows_of_each_kind():
    config = load_scenario("city-100ue")
    ues = config["radio"]["ues"]
    kinds = collections.Counter(
        "stand" if not _speeds(ue) else "walk" if max(_speeds(ue)) < 2 else "drive" for ue in ues
    )
    assert kinds == {"walk": 40, "stand": 40, "drive": 20}
    for ue in ues:
        assert all(1.2 <= s <= 1.6 or 10 <= s <= 14 for s in _speeds(ue))
    per_ue = collections.Counter(f["ue"] for f in config["flows"])
    assert set(per_ue) == set(range(100)) and set(per_ue.values()) == {1, 2}
    apps = collections.Counter(f["app"] for f in config["flows"])
    assert set(apps) == {"bulk", "rate", "onoff"}
    bulk = {f["cca"] for f in config["flows"] if f["app"] == "bulk"}
    assert bulk == set(city.BULK_CCAS)
    video = [f["rate_bps"] for f in config["flows"] if f["app"] == "rate"]
    assert min(video) >= 5e6 and max(video) <= 25e6


def test_family_ids_load_and_validate_up_to_the_ue_limit():
    assert city.ues_of("city-300ue") == 300 and city.ues_of("urban") is None
    _core.validate(to_json(load_scenario("city-10ue")))
    _core.validate(to_json(load_scenario("city-1000ue")))
    with pytest.raises(wavecc.ConfigError, match="city-<N>ue for N = 1 to 1000"):
        load_scenario("city-1001ue")


@pytest.mark.parametrize(("ues", "duration_s"), [(1000, 60.0), (2, 1e5), (300, 3600.0)])
def test_the_sampling_interval_fits_any_mix_of_flows_under_the_row_cap(ues, duration_s):
    config = tomllib.loads(city.generate(ues, duration_s))
    _core.validate(to_json(config))
    # The worst mix: two BBR flows (the most sampled variables) on every UE.
    config["flows"] = [{"cca": "bbr", "ue": ue} for ue in range(ues) for _ in range(2)]
    _core.validate(to_json(config))


def test_the_sampling_interval_is_the_default_while_it_fits():
    assert city.trace_interval_s(100, 60.0) == 0.1
    assert city.trace_interval_s(1000, 5.0) == 0.1
    assert city.trace_interval_s(1000, 60.0) == pytest.approx(0.5)


def test_city_runs_a_fifth_of_a_second_with_handovers_possible():
    result = wavecc.run(resolve("city-100ue", overrides=["duration_s=0.2"]))
    flows = result.summary["flows"]
    assert len(flows) == len(load_scenario("city-100ue")["flows"])
    assert sum(f["goodput_mbps"] for f in flows) > 0
    assert result.summary["sim_time_s"] == 0.2


def test_show_map_draws_the_city(cli, tmp_path):
    out = tmp_path / "city.png"
    drawn = cli("scenarios", "show", "city-100ue", "--map", "--out", str(out))
    assert drawn.returncode == 0, drawn.stderr
    assert drawn.stdout.strip() == str(out)
    assert not figures.is_blank(out)
    again = cli("scenarios", "show", "city-100ue", "--map", "--out", str(out))
    assert again.returncode == 2 and "exists; not replaced" in again.stderr


def test_generate_prints_or_writes_the_family_member(cli, tmp_path):
    printed = cli("scenarios", "generate", "city", "--ues", "30")
    assert printed.returncode == 0
    assert printed.stdout == city.generate(30)
    out = tmp_path / "city.toml"
    written = cli(
        "scenarios", "generate", "city", "--ues", "3", "--duration", "5", "--out", str(out)
    )
    assert written.returncode == 0
    assert out.read_text() == city.generate(3, 5.0)
    refused = cli("scenarios", "generate", "city", "--ues", "0")
    assert refused.returncode == 2
    assert refused.stderr == "wavecc: error: --ues must be 1 to 1000, not 0\n"
