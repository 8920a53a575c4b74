"""`transport="udp"` (`wavecc run --transport udp`): every flow becomes UDP CBR at its
application rate, the papers' UDP-saturated reference."""

from __future__ import annotations

import json

import pytest

import wavecc
from wavecc import ConfigError
from wavecc.config import resolve, with_transport

RATE_FLOWS = {
    "name": "two-rates",
    "duration_s": 1,
    "path": {"rate_bps": 1e8, "one_way_delay_s": 0.01, "buffer_bytes": 250_000},
    "flows": [
        {"cca": "cubic", "app": "rate", "rate_bps": 3e7, "write_bytes": 1400},
        {"cca": "bbr", "app": "rate", "rate_bps": 2e7, "cc": {}, "start_s": 0.2},
    ],
}


def test_every_flow_becomes_udp_at_its_rate():
    udp = with_transport(RATE_FLOWS, "udp")
    assert [f["app"] for f in udp["flows"]] == ["udp", "udp"]
    assert [f["rate_bps"] for f in udp["flows"]] == [3e7, 2e7]
    # Everything else about the flow stays; the algorithm's parameters go.
    assert udp["flows"][0]["write_bytes"] == 1400 and udp["flows"][1]["start_s"] == 0.2
    assert "cc" not in udp["flows"][1]
    assert RATE_FLOWS["flows"][0]["app"] == "rate"  # the input is not modified


def test_a_udp_run_delivers_the_rate_without_tcp():
    result = wavecc.run(RATE_FLOWS, transport="udp")
    flows = result.summary["flows"]
    assert [f["app"] for f in flows] == ["udp", "udp"]
    assert [f["segments_sent"] for f in flows] == [0, 0]
    # CBR below the bottleneck: about 30 and 20 Mb/s (over each flow's active time).
    assert flows[0]["goodput_mbps"] == pytest.approx(30, rel=0.05)
    assert flows[1]["goodput_mbps"] == pytest.approx(20, rel=0.05)
    assert result.config["flows"][0]["app"] == "udp"


def test_a_bulk_flow_is_refused_naming_it_and_rate_bps():
    config = json.loads(json.dumps(RATE_FLOWS))
    config["flows"].append({"cca": "cubic"})
    with pytest.raises(ConfigError, match=r"flows\[2\].*set flows\[2\]\.rate_bps"):
        with_transport(config, "udp")


def test_an_override_can_give_a_bulk_flow_its_rate():
    config = resolve("dumbbell-1g", overrides=["flows.0.rate_bps=5e8"], transport="udp")
    assert config["flows"][0] == {"cca": "cubic", "app": "udp", "rate_bps": 5e8}


@pytest.mark.parametrize(
    "flow, message",
    [
        ({"app": "onoff", "rate_bps": 1e6, "on_s": 1, "off_s": 1}, "on/off"),
        ({"app": "bulk"}, 'app = "bulk" has no application rate'),
    ],
)
def test_flows_that_cannot_be_cbr_are_refused(flow, message):
    with pytest.raises(ConfigError, match=message):
        with_transport({"flows": [flow]}, "udp")


def test_an_unknown_transport_is_refused():
    with pytest.raises(ConfigError, match="unknown transport 'quic'"):
        resolve(RATE_FLOWS, transport="quic")


def test_cli_transport_udp(cli, tmp_path):
    done = cli(
        "run",
        "lossy-100m",
        "--transport",
        "udp",
        "--set",
        "duration_s=1",
        "--no-figure",
        "--out",
        tmp_path / "udp",
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "udp" / "summary.json").read_text())
    assert summary["flows"][0]["app"] == "udp"

    bulk = cli("run", "dumbbell-1g", "--transport", "udp", "--out", tmp_path / "bulk")
    assert bulk.returncode == 2
    assert bulk.stderr.startswith("wavecc: error: flows[0]") and "rate_bps" in bulk.stderr
    assert not (tmp_path / "bulk").exists()
