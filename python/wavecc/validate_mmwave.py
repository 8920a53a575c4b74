"""Validation against ns3-mmwave: wavecc's `fbtcp-N` scenarios beside the committed
outputs of ns3-mmwave running the FB-TCP paper's scripts s1..s4
(`validation/ns3mmwave/reference/<dir>/`, made by `python -m wavecc.ns3mmwave convert`;
validation/ns3mmwave/README.md says what they are). ns3-mmwave never runs here.

A *case* is what a reference's summary.json says was run (its `case` fields) apart from
the RngRun: every reference of the same script, transport, TCP type, error rate, RLC
buffer and simulated time is one run of one case, whatever its directory is called,
and the case's name is made from those fields (`s2-newreno-0`, `s1-newreno-1e-7`).
wavecc runs the case as `fbtcp-N` with the same settings, once per seed (the case's
RngRuns, or 1..N), and `compare` writes one row per case and quantity: each side's
mean over its runs, their difference and, with two runs or more on each side, Welch's
p-value.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import ns3mmwave, outdir, validate, validate_rankings
from ._core import ConfigError
from .atomic import atomic_directory
from .config import Config, apply_overrides, resolve, stacks

# The scripts s1..s4 and the built-in scenarios that model them.
SCENARIOS = {"s1": "fbtcp-1", "s2": "fbtcp-2", "s3": "fbtcp-3", "s4": "fbtcp-4"}
# ns3-mmwave's TCP type names (`--tcpType`) and wavecc's algorithms.
ALGORITHMS = {ns3: ours for ours, ns3 in validate.ALGORITHMS} | {"Tcpfbtcp": "fbtcp"}
# FB-TCP's rate input as the scripts hand it to the reference code (cc/fbtcp.rs).
FBTCP_RATE_SOURCE = "sink"
# The scripts' values a case name leaves out (validation/ns3mmwave/README.md).
SCRIPT_RLC_BUFFER_BYTES = 2_621_440
SCRIPT_SIM_TIME_S = 20.0
# ns3-mmwave's TCP is ns-3.29-dev's: its stack when the core has it, else Linux's.
PREFERRED_STACK = "ns3-3.29"
DEFAULT_STACK = PREFERRED_STACK if PREFERRED_STACK in stacks() else "linux"
TRACE_INTERVAL_S = ns3mmwave.BIN_S  # the references' 100 ms bins
# One minimum round trip of the scripts' path, over which `start_offsets` spreads
# wavecc's start. Until the first blockage both simulators run a loss-free line-of-sight
# ramp that no seed perturbs, so each side's seeds share one phase of the window's
# bursts against the 100 ms grid that FB-TCP's sink rate and the traces read; a few ms
# of start moves a case's mean by several percent (docs/validation.md).
START_PHASE_SPAN_S = 0.022
# A run whose sink got nothing in its last this many seconds has stalled for good: in
# both simulators the module's RLC misreads an overtaken status report now and then
# and never repairs what HARQ then gives up on, and the receiver holds everything
# behind that hole (radio/acks.rs). No flow of the references that went on recovered
# from a silence longer than 1 s.
STALL_SILENCE_S = 5.0
STALLS = "runs stalled for good"
FLOWING_GOODPUT = "goodput of the runs that did not stall"

COMPARISON = outdir.Kind("comparison with ns3-mmwave", resumable=False, legacy=lambda _: False)


def rate_label(rate: float) -> str:
    """An error rate as case names write it: 0, 1e-7, 2.5e-8."""
    if rate == 0:
        return "0"
    mantissa, exponent = f"{rate:e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


@dataclass(frozen=True)
class Case:
    """What every run of a case shares (a reference's `case` fields but the RngRun)."""

    script: str
    transport: str  # "tcp" or "udp"
    tcp_type: str | None  # None for UDP
    error_rate: float
    rlc_buffer_bytes: int
    sim_time_s: float

    @property
    def name(self) -> str:
        """`<script>-<algorithm or udp>-<error rate>`, then the RLC buffer and the
        simulated time where they are not the scripts'."""
        name = f"{self.script}-{self.cca or 'udp'}-{rate_label(self.error_rate)}"
        if self.rlc_buffer_bytes != SCRIPT_RLC_BUFFER_BYTES:
            name += f"-rlc{self.rlc_buffer_bytes}"
        if self.sim_time_s != SCRIPT_SIM_TIME_S:
            name += f"-{self.sim_time_s:g}s"
        return name

    @property
    def scenario(self) -> str:
        return SCENARIOS[self.script]

    @property
    def cca(self) -> str | None:
        """wavecc's algorithm; None for UDP."""
        return None if self.tcp_type is None else ALGORITHMS[self.tcp_type]


@dataclass(frozen=True)
class Run:
    """One committed reference: one RngRun of a case."""

    directory: Path
    rng_run: int
    summary: dict[str, Any]
    timeseries: pd.DataFrame


def case_of(fields: dict[str, Any], where: Path) -> Case:
    """The case of a reference's `case` fields; a ConfigError naming `where` when
    wavecc has no scenario or algorithm for it."""
    script, tcp_type = fields.get("script"), fields.get("tcp_type")
    if script not in SCENARIOS:
        raise ConfigError(
            f"{where}: script {script!r} has no wavecc scenario (scripts: {', '.join(SCENARIOS)})"
        )
    if fields.get("transport") == "tcp" and tcp_type not in ALGORITHMS:
        raise ConfigError(
            f"{where}: tcp_type {tcp_type!r} has no wavecc algorithm (TCP types: {', '.join(ALGORITHMS)})"
        )
    return Case(
        script=script,
        transport=fields["transport"],
        tcp_type=tcp_type if fields["transport"] == "tcp" else None,
        error_rate=float(fields["error_rate"]),
        rlc_buffer_bytes=int(fields["rlc_buffer_bytes"]),
        sim_time_s=float(fields["sim_time_s"]),
    )


def load_references(reference_dir: Path) -> dict[Case, list[Run]]:
    """Every reference under `reference_dir`, grouped into cases (sorted by name),
    each case's runs by RngRun. Two references of the same run are a ConfigError."""
    cases: dict[Case, list[Run]] = {}
    for summary_path in sorted(reference_dir.glob(f"*/{ns3mmwave.SUMMARY}")):
        directory = summary_path.parent
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        case = case_of(summary["case"], directory)
        rng_run = int(summary["case"]["rng_run"])
        runs = cases.setdefault(case, [])
        same = [r.directory.name for r in runs if r.rng_run == rng_run]
        if same:
            raise ConfigError(
                f"{directory} and {reference_dir / same[0]} are both RngRun {rng_run} of case {case.name}"
            )
        timeseries = pd.read_csv(directory / ns3mmwave.TIMESERIES)
        runs.append(Run(directory, rng_run, summary, timeseries))
    return {
        case: sorted(cases[case], key=lambda r: r.rng_run)
        for case in sorted(cases, key=lambda c: c.name)
    }


def find_reference_dir(start: Path | None = None) -> Path:
    """validation/ns3mmwave/reference of the repository holding `start` (the working
    directory)."""
    return (
        validate.find_in_repository(
            Path("validation", "ns3mmwave"), "reference", "--reference-dir", start
        )
        / "reference"
    )


def select(cases: dict[Case, list[Run]], names: Iterable[str] | None) -> dict[Case, list[Run]]:
    """The cases named (names or shell patterns such as `s2-*`); all for None."""
    by_name = {case.name: case for case in cases}
    chosen = validate.match_names(names, list(by_name), "ns3-mmwave case", "s2-*")
    return {by_name[name]: cases[by_name[name]] for name in chosen}


# ----------------------------------------------------------------------- wavecc --


def wavecc_config(
    case: Case,
    stack: str,
    seed: int,
    duration_s: float | None = None,
    overrides: Sequence[str] = (),
    start_offset_s: float = 0.0,
) -> Config:
    """The case's scenario with the case's settings: its algorithm (FB-TCP with the
    scripts' rate input) or a UDP flow at the application's rate, started when the
    scripts start their application (`APP_START_S`) plus `start_offset_s` (a TCP flow
    then opens its connection, `tcp.handshake`, as the scripts' socket does, and sends
    its first segment a round trip later), the error rate as the per-byte loss at the PGW, the
    RLC buffer, the simulated time (or `duration_s`), in the TCP `stack`, traced every
    100 ms like the references, with the module's three defects: its misreading of
    overtaken RLC status reports (`radio.ns3_mmwave.misread_overtaken_reports`), of
    the blockage trace when a path clears between its channel updates
    (`radio.ns3_mmwave.misread_blockage_exit`), and its RLC receiver's placing of a
    retransmission's segments (`radio.ns3_mmwave.misplace_segments`, which brings the
    module's retransmission PDU by PDU); then the user's `overrides` (`KEY=VALUE`, as
    `wavecc run --set`)."""
    transport = "udp" if case.transport == "udp" else None
    config = resolve(case.scenario, cca=case.cca, seed=seed, stack=stack, transport=transport)
    config["name"] = f"validate-{case.name}"
    config["duration_s"] = case.sim_time_s if duration_s is None else duration_s
    for flow in config["flows"]:
        flow["start_s"] = ns3mmwave.APP_START_S + start_offset_s
    if transport is None:
        config.setdefault("tcp", {})["handshake"] = True
    config.setdefault("path", {}).setdefault("loss", {})["per_byte"] = case.error_rate
    radio = config.setdefault("radio", {})
    radio["rlc_buffer_bytes"] = case.rlc_buffer_bytes
    # The module's RLC misreads a status report overtaken by a newer one and places
    # segments only in order, and its path loss misreads the blockage trace at a
    # clearing between updates.
    ns3 = radio.setdefault("ns3_mmwave", {})
    ns3["misread_overtaken_reports"] = True
    ns3["misread_blockage_exit"] = True
    ns3["misplace_segments"] = True
    if case.cca == "fbtcp":
        for flow in config["flows"]:
            flow.setdefault("cc", {})["rate_source"] = FBTCP_RATE_SOURCE
    trace = config.setdefault("trace", {})
    trace["interval_s"] = TRACE_INTERVAL_S
    trace["events"] = False
    return apply_overrides(config, overrides)


def srtt_timeweighted_ms(flows: pd.DataFrame) -> float:
    """The smoothed RTT averaged over time, from its 100 ms samples after the first
    RTT measurement (the references weigh each value by how long it held)."""
    srtt = flows["srtt_ms"][flows["srtt_ms"] > 0]
    return float(srtt.mean()) if len(srtt) else math.nan


def tb_sinr_timeavg_db(ues: pd.DataFrame) -> float:
    """The first UE's downlink SINR as the references average it: the mean SINR of the
    TBs of each 100 ms sample (the trace's interval, the references' bins), averaged
    over the samples with a TB. TCP runs weigh the channel by their own traffic: a
    stall sends no TB, a blocked stretch many small ones."""
    ue = ues[(ues["ue"] == 0) & (ues["dl_tbs"] > 0)]
    return float(ue["dl_tb_sinr_db"].mean()) if len(ue) else math.nan


def stalled(t_s: pd.Series, goodput_mbps: pd.Series, end_s: float) -> float:
    """1 when the sink's goodput samples (at the ends `t_s` of their intervals) show
    nothing delivered after `end_s - STALL_SILENCE_S`, else 0; NaN for a run no
    longer than the silence, which cannot tell."""
    if end_s <= STALL_SILENCE_S:
        return math.nan
    late = goodput_mbps[t_s > end_s - STALL_SILENCE_S + 1e-9]
    return float(not (late > 0).any())


def reference_stalled(run: Run) -> float:
    """Whether a reference run stalled for good (`stalled`), from its 100 ms bins."""
    series = run.timeseries
    end_s = float(run.summary["case"]["sim_time_s"])
    return stalled(series["t_s"], series["sink_goodput_mbps"].fillna(0.0), end_s)


def wavecc_stalled(result: Any) -> float:
    """Whether a wavecc run stalled for good (`stalled`), from its flow's samples."""
    flow = result.flows[result.flows["flow"] == 0]
    return stalled(flow["t_s"], flow["goodput_mbps"], result.summary["sim_time_s"])


def sinr_timeavg_db(result: Any) -> float:
    """A run's downlink SINR as the references average it (`tb_sinr_timeavg_db`)."""
    return tb_sinr_timeavg_db(result.ues)


def goodput_mbps(result: Any) -> float:
    """The sink's bytes over the whole simulated time, as the scripts' "Average
    Goodput" (wavecc's own `goodput_mbps` counts from the flow's start)."""
    flow = result.summary["flows"][0]
    return flow["bytes_delivered"] * 8 / result.summary["sim_time_s"] / 1e6


def tb_error_rate(direction: str) -> Callable[[Any], float]:
    """The fraction of the first UE's transport-block transmissions in `direction`
    ("dl" or "ul") that failed."""

    def rate(result: Any) -> float:
        ue = result.summary["ues"][0]
        sent = ue[f"{direction}_tb_transmissions"]
        return ue[f"{direction}_tb_errors"] / sent if sent else math.nan

    return rate


def _ue(key: str) -> Callable[[Any], float]:
    """The first UE's summary value `key`."""
    return lambda result: validate.number(result.summary["ues"][0][key])


def _flow(key: str) -> Callable[[Any], float]:
    """The flow's summary value `key`."""
    return lambda result: validate.number(result.summary["flows"][0][key])


@dataclass(frozen=True)
class Quantity:
    """One compared quantity: the reference's summary.json key (a reference without
    it shows '-') and wavecc's value of a run of the case."""

    name: str
    unit: str
    reference_key: str
    wavecc: Callable[[Any], float]
    # "%" (relative difference) or the unit itself (absolute difference, for dB).
    difference: str = "%"
    spec: str = ".2f"  # how the table writes a value
    # A TCP socket's quantity: neither side has it in a UDP case.
    socket: bool = False
    # The scripts trace it only in their TCP branch: a UDP reference's 0 means nothing.
    reference_tcp_only: bool = False
    # The reference's value from the whole run, where no summary key holds it.
    reference: Callable[[Run], float] | None = None
    # Over the runs of each side that did not stall for good (`stalled`) only.
    flowing_only: bool = False

    def reference_value(self, case: Case, run: Run) -> float:
        """The reference's value; NaN where it lacks the quantity."""
        if (self.socket or self.reference_tcp_only) and case.transport != "tcp":
            return math.nan
        if self.reference is not None:
            return self.reference(run)
        return validate.number(run.summary.get(self.reference_key))

    def wavecc_value(self, case: Case, result: Any) -> float:
        """wavecc's value of one run of the case; NaN where it has none."""
        return math.nan if self.socket and case.transport != "tcp" else self.wavecc(result)


QUANTITIES = (
    Quantity("goodput", "Mb/s", "goodput_mbps", goodput_mbps),
    Quantity(
        STALLS,
        "%",
        "",
        lambda r: 100 * wavecc_stalled(r),
        difference="points",
        spec=".0f",
        reference=lambda run: 100 * reference_stalled(run),
    ),
    Quantity(
        FLOWING_GOODPUT,
        "Mb/s",
        "goodput_mbps",
        goodput_mbps,
        flowing_only=True,
    ),
    Quantity(
        "mean RTT, srtt time-weighted",
        "ms",
        "srtt_mean_ms_timeweighted",
        lambda r: srtt_timeweighted_ms(r.flows),
        socket=True,
    ),
    Quantity(
        "DL SINR, time average of 100 ms TB means",
        "dB",
        "dl_sinr_timeavg_db",
        sinr_timeavg_db,
        difference="dB",
    ),
    Quantity(
        "DL SINR of the runs that did not stall",
        "dB",
        "dl_sinr_timeavg_db",
        sinr_timeavg_db,
        difference="dB",
        flowing_only=True,
    ),
    Quantity("DL TB error rate", "", "dl_tb_error_rate", tb_error_rate("dl"), spec=".4f"),
    Quantity("UL TB error rate", "", "ul_tb_error_rate", tb_error_rate("ul"), spec=".4f"),
    Quantity(
        "DL radio delay, RLC to RLC", "ms", "dl_pdcp_delay_ms", _ue("dl_rlc_delay_ms"), spec=".3f"
    ),
    Quantity(
        "UL radio delay, RLC to RLC", "ms", "ul_pdcp_delay_ms", _ue("ul_rlc_delay_ms"), spec=".3f"
    ),
    Quantity(
        "error-model drops",
        "packets",
        "error_model_drops",
        lambda r: float(sum(q["dropped_random"] for q in r.summary["queues"])),
        spec=".1f",
        reference_tcp_only=True,
    ),
    Quantity(
        "RLC drops",
        "SDUs",
        "rlc_drops",
        lambda r: float(r.summary["ues"][0]["rlc_drops"]),
        spec=".1f",
    ),
    Quantity(
        "retransmissions",
        "segments",
        "retransmitted_segments",
        _flow("retransmitted_segments"),
        spec=".1f",
        socket=True,
    ),
    Quantity("RTOs", "", "rto_events", _flow("rto_events"), spec=".1f", socket=True),
)


def _mean(values: Sequence[float]) -> float:
    """The mean; NaN when any value is missing (a side that lacks the quantity)."""
    if not values or not all(math.isfinite(v) for v in values):
        return math.nan
    return sum(values) / len(values)


@dataclass(frozen=True)
class Row:
    """One quantity of one case: each side's values per run, their means and the
    difference (relative, or absolute for dB)."""

    case: str
    stack: str
    duration_s: float  # wavecc's simulated time
    reference_duration_s: float
    quantity: str
    unit: str
    difference_unit: str
    spec: str
    ns3mmwave: tuple[float, ...]
    wavecc: tuple[float, ...]
    overrides: tuple[str, ...] = ()  # the user's changes to wavecc's runs
    start_phases: int = 1  # wavecc's starts per seed (`start_offsets`)

    @property
    def ns3mmwave_mean(self) -> float:
        return _mean(self.ns3mmwave)

    @property
    def wavecc_mean(self) -> float:
        return _mean(self.wavecc)

    @property
    def difference(self) -> float:
        """wavecc's mean minus ns3-mmwave's, relative (a fraction) for "%"."""
        if self.difference_unit == "%":
            return validate.rel_diff(self.wavecc_mean, self.ns3mmwave_mean)
        return self.wavecc_mean - self.ns3mmwave_mean

    @property
    def p_value(self) -> float:
        """Welch's two-sided t-test of the runs; NaN without two on each side, or when
        a run of either side lacks the quantity (as its mean). The stall row's runs are
        each 0 or 100, for which a t-test means nothing (one side often has no
        variance): it is Fisher's exact test of the two counts."""
        if self.quantity == STALLS:
            return fisher_p(stall_count(self.ns3mmwave), stall_count(self.wavecc))
        if math.isnan(self.ns3mmwave_mean) or math.isnan(self.wavecc_mean):
            return math.nan
        return validate.welch_p(self.wavecc, self.ns3mmwave)

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "stack": self.stack,
            "wavecc_duration_s": self.duration_s,
            "ns3mmwave_duration_s": self.reference_duration_s,
            "ns3mmwave_runs": len(self.ns3mmwave),
            "wavecc_runs": len(self.wavecc),
            "quantity": self.quantity,
            "unit": self.unit,
            "ns3mmwave": self.ns3mmwave_mean,
            "wavecc": self.wavecc_mean,
            "difference": self.difference * 100 if self.difference_unit == "%" else self.difference,
            "difference_unit": self.difference_unit,
            "p_value": self.p_value,
            "overrides": " ".join(self.overrides),
            "start_phases": self.start_phases,
        }


COLUMNS = (
    "case",
    "stack",
    "wavecc_duration_s",
    "ns3mmwave_duration_s",
    "ns3mmwave_runs",
    "wavecc_runs",
    "quantity",
    "unit",
    "ns3mmwave",
    "wavecc",
    "difference",
    "difference_unit",
    "p_value",
    "overrides",
    "start_phases",
)


def rows_of(
    case: Case,
    runs: Sequence[Run],
    results: Sequence[Any],
    stack: str,
    duration_s: float,
    overrides: Sequence[str] = (),
    start_phases: int = 1,
) -> list[Row]:
    """The rows of one case: each quantity over the references and wavecc's runs (a
    `flowing_only` one over those that did not stall for good)."""
    flowing_runs = [run for run in runs if reference_stalled(run) != 1]
    flowing_results = [result for result in results if wavecc_stalled(result) != 1]
    return [
        Row(
            case=case.name,
            stack=stack,
            duration_s=duration_s,
            reference_duration_s=case.sim_time_s,
            quantity=q.name,
            unit=q.unit,
            difference_unit=q.difference,
            spec=q.spec,
            ns3mmwave=tuple(
                q.reference_value(case, run) for run in (flowing_runs if q.flowing_only else runs)
            ),
            wavecc=tuple(
                q.wavecc_value(case, result)
                for result in (flowing_results if q.flowing_only else results)
            ),
            overrides=tuple(overrides),
            start_phases=start_phases,
        )
        for q in QUANTITIES
    ]


def seeds_of(runs: Sequence[Run], seeds: int | None) -> list[int]:
    """wavecc's seeds: 1..`seeds`, or the references' RngRuns for None."""
    return list(range(1, seeds + 1)) if seeds is not None else [run.rng_run for run in runs]


def start_offsets(phases: int) -> list[float]:
    """`phases` start offsets after the scripts' start, evenly over one minimum round
    trip from 0 (`START_PHASE_SPAN_S`); one phase is the scripts' own start."""
    return [k * START_PHASE_SPAN_S / phases for k in range(phases)]


@dataclass(frozen=True)
class Comparison:
    rows: list[Row]
    cases: list[str]
    rankings: list[validate_rankings.Ranking]
    # The same over the runs that did not stall for good (`FLOWING_GOODPUT`).
    flowing_rankings: list[validate_rankings.Ranking]


def rank(
    cases: Iterable[Case], rows: Sequence[Row], quantity: str = validate_rankings.GOODPUT
) -> list[validate_rankings.Ranking]:
    """The algorithms' rankings by `quantity` (goodput) in each group of TCP cases."""
    algorithms = {case.name: case.cca for case in cases if case.cca is not None}
    return validate_rankings.rankings(
        (row.case, algorithms[row.case], row.ns3mmwave, row.wavecc)
        for row in rows
        if row.quantity == quantity and row.case in algorithms
    )


def compare(
    cases: dict[Case, list[Run]],
    out: Path,
    *,
    stack: str = DEFAULT_STACK,
    seeds: int | None = None,
    duration_s: float | None = None,
    figures: bool = True,
    force: bool = False,
    on_case: Callable[[Case, list[Row]], None] | None = None,
    overrides: Sequence[str] = (),
    start_phases: int = 1,
) -> Comparison:
    """Runs wavecc on every case (seeds: `seeds_of`, each from `start_phases` starts,
    `start_offsets`; `duration_s` shortens every run, `overrides` change every run, and
    the table says all three) and writes out/comparison.csv, out/comparison.md and, with
    `figures`, out/<case>.png. `out` follows outdir's rules, checked before anything
    runs (`outdir.OutputRefused`)."""
    import wavecc

    out = Path(out)
    outdir.remove_stale(out.parent)
    outdir.check(out, COMPARISON, force=force)
    rows: list[Row] = []
    with atomic_directory(out, discard=outdir.discard) as staging:
        for case, runs in cases.items():
            length = case.sim_time_s if duration_s is None else duration_s
            results = [
                wavecc.run(wavecc_config(case, stack, seed, duration_s, overrides, offset))
                for seed in seeds_of(runs, seeds)
                for offset in start_offsets(start_phases)
            ]
            case_rows = rows_of(case, runs, results, stack, length, overrides, start_phases)
            rows += case_rows
            if figures:
                overlay(case, runs[0], results[0], case_rows, staging / f"{case.name}.png")
            if on_case is not None:
                on_case(case, case_rows)
        with open(staging / "comparison.csv", "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(row.as_dict() for row in rows)
        ranked = rank(cases, rows)
        flowing = rank(cases, rows, FLOWING_GOODPUT)
        text = markdown(rows) + stalls_paragraph(rows)
        text += "\n" + validate_rankings.markdown(ranked) if ranked else ""
        text += (
            "\n"
            + validate_rankings.markdown(flowing, "the mean goodput of the runs that did not stall")
            if flowing
            else ""
        )
        (staging / "comparison.md").write_text(text, encoding="utf-8")
        outdir.mark(staging, COMPARISON, os.listdir(staging))
    return Comparison(rows, [case.name for case in cases], ranked, flowing)


def difference_cell(row: Row) -> str:
    """The difference as the table prints it: '+2.8%', '-0.10 dB' or '-'."""
    if row.difference_unit == "%":
        return validate.pct_cell(row.difference)
    return (
        "-" if not math.isfinite(row.difference) else f"{row.difference:+.2f} {row.difference_unit}"
    )


def value_cell(value: float, spec: str) -> str:
    """A value as the table writes it: whole numbers (counts) without decimals."""
    if math.isfinite(value) and value == int(value) and spec == ".1f":
        return f"{value:.0f}"
    return validate.md_cell(value, spec)


def markdown(rows: Sequence[Row]) -> str:
    """The comparison as a Markdown table, a line per case and quantity ('-' where
    a side lacks the quantity)."""
    lines = []
    header = [
        "case",
        "runs (ns3-mmwave / wavecc)",
        "quantity",
        "ns3-mmwave",
        "wavecc",
        "difference",
        "p",
    ]
    lines += ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for r in rows:
        quantity = f"{r.quantity} ({r.unit})" if r.unit else r.quantity
        cells = [
            f"`{r.case}`",
            f"{len(r.ns3mmwave)} / {len(r.wavecc)}",
            quantity,
            value_cell(r.ns3mmwave_mean, r.spec),
            value_cell(r.wavecc_mean, r.spec),
            difference_cell(r),
            validate.md_cell(r.p_value, ".3f"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return _note(rows) + "\n\n" + "\n".join(lines) + "\n"


def stall_count(values: Iterable[float]) -> tuple[int, int]:
    """Of one side's `STALLS` values, the runs stalled for good and the runs that
    could tell (a run too short to tell is NaN)."""
    known = [v for v in values if math.isfinite(v)]
    return sum(v > 0 for v in known), len(known)


def fisher_p(reference: tuple[int, int], ours: tuple[int, int]) -> float:
    """Fisher's two-sided exact test that two sides' (stalled, runs) counts come from one
    stall rate; NaN when a side has no run that could tell."""
    (ref_stalled, ref_runs), (ours_stalled, ours_runs) = reference, ours
    if not ref_runs or not ours_runs:
        return math.nan
    from scipy.stats import fisher_exact

    table = np.array(
        [[ref_stalled, ref_runs - ref_stalled], [ours_stalled, ours_runs - ours_stalled]]
    )
    return float(fisher_exact(table).pvalue)


def stall_counts(rows: Sequence[Row]) -> tuple[tuple[int, int], tuple[int, int]]:
    """`stall_count` over every case of `rows`: (ns3-mmwave's, wavecc's)."""
    stalls = [r for r in rows if r.quantity == STALLS]
    return (
        stall_count(v for r in stalls for v in r.ns3mmwave),
        stall_count(v for r in stalls for v in r.wavecc),
    )


def stalls_paragraph(rows: Sequence[Row]) -> str:
    """Both sides' runs stalled for good over all cases, and Fisher's exact test that
    they stall equally often (a stall is rare: one case's runs seldom tell)."""
    (ref_stalled, ref_runs), (ours_stalled, ours_runs) = stall_counts(rows)
    if not ref_runs or not ours_runs:
        return ""
    p = fisher_p((ref_stalled, ref_runs), (ours_stalled, ours_runs))
    return (
        f"\nRuns stalled for good (nothing delivered in the last {STALL_SILENCE_S:g} s), all"
        f" cases: ns3-mmwave {ref_stalled} of {ref_runs}, wavecc {ours_stalled} of"
        f" {ours_runs} (Fisher's exact p {p:.3f}).\n"
    )


P_NOTE = (
    " p: Welch's t-test over each side's runs; for the runs stalled for good, Fisher's exact"
    " test of the two counts."
)


def _note(rows: Sequence[Row]) -> str:
    """The stack, the user's overrides, wavecc's starts per seed, the cases wavecc
    ran for less time than ns3-mmwave did, and which test the p column is."""
    stacks_used = ", ".join(sorted({r.stack for r in rows}))
    shortened = {r.case: r for r in rows if r.duration_s != r.reference_duration_s}
    note = f"wavecc in the {stacks_used} stack."
    overrides = sorted({o for r in rows for o in r.overrides})
    if overrides:
        note += " Changed: " + ", ".join(f"`{o}`" for o in overrides) + "."
    phases = max(r.start_phases for r in rows)
    if phases > 1:
        note += (
            f" Each seed started {phases} times, {START_PHASE_SPAN_S * 1e3 / phases:g} ms apart"
            f" from the scripts' start."
        )
    if shortened:
        note += (
            " Shortened: "
            + ", ".join(
                f"`{name}` wavecc {r.duration_s:g} s against ns3-mmwave's {r.reference_duration_s:g} s"
                for name, r in shortened.items()
            )
            + "."
        )
    return note + P_NOTE


# ---------------------------------------------------------------------- figures --


# (panel label, reference column, wavecc frame, wavecc column)
PANELS = (
    ("goodput (Mb/s)", "sink_goodput_mbps", "flows", "goodput_mbps"),
    ("smoothed RTT (ms)", "srtt_mean_ms", "flows", "srtt_ms"),
    ("cwnd (segments)", "cwnd_segments_last", "flows", "cwnd_segments"),
    ("DL SINR, TB mean (dB)", "dl_sinr_mean_db", "ues", "dl_tb_sinr_db"),
)


def overlay(case: Case, run: Run, result: Any, rows: Sequence[Row], path: Path) -> None:
    """Goodput, smoothed RTT, cwnd and DL SINR per 100 ms: ns3-mmwave's first run
    and wavecc's first seed on the same axes (UDP has no RTT or cwnd)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 10), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(PANELS), 1, sharex=True)
    frames = {"flows": result.flows, "ues": result.ues}
    # cwnd holds its value through a bin without updates; the other columns are means.
    reference = run.timeseries.assign(
        cwnd_segments_last=run.timeseries["cwnd_segments_last"].ffill()
    )
    for ax, (label, reference_column, frame, column) in zip(axes, PANELS, strict=True):
        mine = frames[frame]
        ax.plot(
            mine["t_s"],
            mine[column],
            color="C0",
            linewidth=1.2,
            label=f"wavecc, {rows[0].stack} stack, seed {result.summary['seed']}",
        )
        ax.plot(
            reference["t_s"],
            reference[reference_column],
            color="C3",
            linewidth=1.0,
            alpha=0.85,
            label=f"ns3-mmwave, RngRun {run.rng_run}",
        )
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    axes[0].legend(loc="lower center", bbox_to_anchor=(0.5, 1.02), ncols=2, frameon=False)
    headline = "\n".join(
        f"{r.quantity}: ns3-mmwave {value_cell(r.ns3mmwave_mean, r.spec)}, wavecc "
        f"{value_cell(r.wavecc_mean, r.spec)} {r.unit} ({difference_cell(r)})"
        for r in rows[:3]
    )
    fig.suptitle(
        f"{case.name}: {case.scenario}, {case.cca or 'UDP'}, error rate {rate_label(case.error_rate)}, "
        f"{len(rows[0].ns3mmwave)} / {len(rows[0].wavecc)} runs\n{headline}",
        fontsize=10,
    )
    fig.savefig(path, dpi=100)
