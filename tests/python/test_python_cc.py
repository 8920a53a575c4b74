"""Congestion control written in Python: the hooks, registration, errors, and the
three ways to use one (wavecc.run, wavecc.sweep with worker processes, the CLI)."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import pytest

import wavecc
from wavecc.examples.newreno import NewReno

EXAMPLE = "wavecc.examples.newreno:NewReno"


def short(cca: str, seconds: float = 1.0, *overrides: str) -> wavecc.Result:
    return wavecc.run("dumbbell-1g", cca=cca, overrides=[f"duration_s={seconds}", *overrides])


def test_python_newreno_matches_the_built_in_on_the_1g_dumbbell() -> None:
    built_in = short("newreno", 20).summary["flows"][0]
    python = short(EXAMPLE, 20).summary["flows"][0]
    assert python["cca"] == EXAMPLE
    assert python["goodput_mbps"] == pytest.approx(built_in["goodput_mbps"], rel=0.01)
    # Faithful to the built-in's rules, not merely close: the same losses to the segment.
    assert python["retransmitted_segments"] == built_in["retransmitted_segments"]


class Halving(wavecc.CongestionControl):
    """Reno-like, with a parameter and traced state, for the tests below."""

    def __init__(self, beta: float = 0.5) -> None:
        self.beta = beta
        self.losses = 0

    def ssthresh(self, sock: wavecc.Socket) -> float:
        self.losses += 1
        return max(sock.cwnd * self.beta, 2.0)

    def cong_avoid(self, sock: wavecc.Socket, acked: int) -> None:
        sock.cwnd += acked if sock.in_slow_start() else acked / sock.cwnd

    def state(self) -> dict[str, float]:
        return {"beta": self.beta, "losses": float(self.losses)}


def test_a_registered_name_runs_with_its_parameters_and_traces_its_state() -> None:
    wavecc.register_cc("halving", Halving)
    result = short("halving", 1.0, "flows.0.cc={beta = 0.7}")
    assert result.summary["flows"][0]["cca"] == "halving"
    beta = result.cc[result.cc["var"] == "beta"]["value"]
    assert len(beta) == 10 and (beta == 0.7).all()  # one row per 0.1 s sample


def test_an_unknown_parameter_is_a_config_error_of_the_flows_cc() -> None:
    wavecc.register_cc("halving", Halving)
    with pytest.raises(wavecc.ConfigError, match=r"flows\[0\]\.cc: TypeError: .*'gamma'"):
        short("halving", 1.0, "flows.0.cc={gamma = 1}")


def test_registration_refuses_built_in_names_and_incomplete_classes() -> None:
    with pytest.raises(wavecc.ConfigError, match="built-in"):
        wavecc.register_cc("cubic", Halving)

    class NoGrowth(wavecc.CongestionControl):
        def ssthresh(self, sock: wavecc.Socket) -> float:
            return 2.0

    with pytest.raises(wavecc.ConfigError, match="must define cong_avoid"):
        wavecc.register_cc("nogrowth", NoGrowth)
    with pytest.raises(wavecc.ConfigError, match="not a subclass"):
        wavecc.register_cc("plain", object)  # type: ignore[arg-type]


class Recorder(NewReno):
    """Records every ACK sample it sees."""

    samples: list[tuple[float, ...]] = []

    def on_ack(self, sock: wavecc.Socket, ack: wavecc.AckSample) -> None:
        rate = ack.delivery_rate_bps if ack.delivery_rate_bps is not None else math.nan
        rtt = ack.rtt_s if ack.rtt_s is not None else math.nan
        Recorder.samples.append(
            (ack.acked, ack.acked_bytes, sock.mss, rtt, ack.min_rtt_s, rate, ack.losses)
        )


def test_on_ack_sees_the_acks_sample_in_its_units() -> None:
    wavecc.register_cc("recorder", Recorder)
    Recorder.samples.clear()
    short("recorder", 0.5)
    assert len(Recorder.samples) > 1000
    for acked, acked_bytes, mss, rtt, min_rtt, rate, losses in Recorder.samples:
        assert acked_bytes == acked * mss
        assert math.isnan(rtt) or rtt >= min_rtt >= 0.020  # 20 ms of propagation
        assert math.isnan(rate) or 0 < rate <= 1.0e9  # never above the link's 1 Gb/s
        assert losses >= 0
    rates = [s[5] for s in Recorder.samples if not math.isnan(s[5])]
    assert max(rates) > 0.5e9  # the window fills the link within 0.5 s


class Failing(NewReno):
    def cong_avoid(self, sock: wavecc.Socket, acked: int) -> None:
        if sock.now_s > 0.3:
            raise ZeroDivisionError("boom in the hook")
        super().cong_avoid(sock, acked)


class NotANumber(NewReno):
    def cong_avoid(self, sock: wavecc.Socket, acked: int) -> None:
        sock.cwnd = math.nan


def test_an_error_in_a_hook_stops_the_run_with_its_time_and_traceback() -> None:
    wavecc.register_cc("failing", Failing)
    with pytest.raises(wavecc.AlgorithmError) as caught:
        short("failing", 5.0)
    message = str(caught.value)
    assert message.startswith("failing (Failing.cong_avoid) raised at simulated time 0.30")
    assert message.endswith("ZeroDivisionError: boom in the hook")
    cause = caught.value.__cause__
    assert isinstance(cause, ZeroDivisionError) and cause.__traceback__ is not None


def test_a_value_the_socket_cannot_take_stops_the_run_naming_it() -> None:
    wavecc.register_cc("nan", NotANumber)
    with pytest.raises(wavecc.AlgorithmError, match=r"sock\.cwnd = NaN: must be a finite"):
        short("nan", 1.0)


def test_a_failed_run_leaves_the_next_one_unaffected() -> None:
    wavecc.register_cc("failing", Failing)
    with pytest.raises(wavecc.AlgorithmError):
        short("failing", 1.0)
    assert short(EXAMPLE, 0.5).summary["flows"][0]["goodput_mbps"] > 100


@pytest.mark.slow  # starts worker processes
def test_a_sweep_imports_the_algorithms_in_its_workers(tmp_path: Path) -> None:
    wavecc.register_cc("pyreno", NewReno)
    rs = wavecc.sweep(
        "dumbbell-1g",
        {"cca": ["newreno", "pyreno", EXAMPLE]},
        jobs=1,
        out=tmp_path / "store",
        progress=None,
        stack=None,
    )
    rows = rs.summary.set_index("cca")
    assert list(rows["status"]) == ["ok", "ok", "ok"]
    assert rows.loc["pyreno", "goodput_mbps"] == rows.loc["newreno", "goodput_mbps"]
    assert rows.loc[EXAMPLE, "goodput_mbps"] == rows.loc["newreno", "goodput_mbps"]


def test_a_sweep_refuses_a_class_its_workers_cannot_import(tmp_path: Path) -> None:
    class Local(NewReno):
        pass

    wavecc.register_cc("local", Local)
    with pytest.raises(wavecc.ConfigError, match="local: .*cannot be imported by worker"):
        wavecc.sweep("dumbbell-1g", {"cca": ["local"]}, jobs=1, out=tmp_path / "s")


def test_the_cli_runs_a_class_by_module_path(cli, tmp_path: Path) -> None:
    done = cli("run", "dumbbell-1g", "--cca", EXAMPLE, "--set", "duration_s=0.5", "--no-figure")
    assert done.returncode == 0, done.stderr
    assert EXAMPLE in done.stdout


def test_the_cli_prints_the_hooks_traceback_and_one_error_line(cli, tmp_path: Path) -> None:
    module = tmp_path / "work" / "brokencc.py"
    module.write_text(
        textwrap.dedent(
            """
            from wavecc.examples.newreno import NewReno

            class Broken(NewReno):
                def ssthresh(self, sock):
                    return undefined_name
            """
        )
    )
    done = cli("run", "lossy-100m", "--cca", "brokencc:Broken", "--out", "o")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert 'brokencc.py", line 6, in ssthresh' in done.stderr
    assert lines[-1].startswith("wavecc: error: brokencc:Broken (Broken.ssthresh) raised at")
    assert lines[-1].endswith("NameError: name 'undefined_name' is not defined")
    assert not (tmp_path / "work" / "o").exists()
