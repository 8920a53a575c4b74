"""`wavecc.ns3mmwave`: an ns3-mmwave run directory -> a compact reference directory.

Each test writes a small run directory in the simulator's own formats (the TB trace's
odd whitespace included) and checks every field against a value worked out by hand."""

from __future__ import annotations

import csv
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from wavecc import ns3mmwave

COMMIT = "cbfb03d06c15aa82d0297a105bb373db88d1bb5c"
TCP_COMMAND = "/b/scratch/s1/s1 --tcpType=TcpNewReno --errorRate=0 --simTime=0.3 --RngRun=2"
UDP_COMMAND = "/b/scratch/s2/s2 --udp=1 --errorRate=0 --simTime=0.3 --RngRun=1"

# 0.3 s simulated; 37,500 bytes received: 300,000 bits -> 1 Mb/s over 0.3 s, 1.5 Mb/s
# over the 0.2 s after the application's start at 0.1 s.
STDOUT = (
    "0s: \t0 Mbit/s\n"
    "0.1s: \t0 Mbit/s\n"
    "THE POSITION OF THE NODE IS: 0:68:1.5\n"
    "0.2s: \t1.5 Mbit/s\n"
    "\n*** Flow monitor statistics ***\n"
    "  *Rx Packets/Bytes:   27 / 38000\n"
    "\n*** Application statistics ***\n"
    "  Rx Bytes: 37500\n"
    "  Average Goodput For NewProtocol: 1 Mbit/s\n"
)
# Four DL blocks: 100/200/300/400 bytes, MCS 10/20/27/25, SINR 20/10/30/40 dB, the
# second corrupt. DL lines carry a blank field before `corrupt`. Three UL blocks, the
# second corrupt (only their error rate is read).
TB_HEADER = "\ttime\tframe\tsubF\t1stSym\tsymbol#\tcellId\trnti\tccId\ttbSize\tmcs\trv\tSINR(dB)\tcorrupt\tTBler\n"
TB_LINES = [
    "DL\t0.05\t50\t0\t1\t4\t1\t1\t0\t100\t10\t0\t20\t \t0\t0\n",
    "UL\t0.06\t60\t6\t1\t1\t1\t1\t0\t48\t0\t0\t35.8 \t0\t0\n",
    "DL\t0.15\t150\t0\t1\t4\t1\t1\t0\t200\t20\t0\t10\t \t1\t0.5\n",
    "DL\t0.16\t160\t0\t1\t4\t1\t1\t0\t300\t27\t0\t30\t \t0\t0\n",
    "DL\t0.18\t180\t0\t1\t4\t1\t1\t0\t400\t25\t0\t40\t \t0\t0\n",
    "UL\t0.19\t190\t6\t1\t1\t1\t1\t0\t96\t5\t0\t-2.5 \t1\t0.9\n",
    "UL\t0.20\t200\t6\t1\t1\t1\t1\t0\t96\t5\t1\t1.5 \t0\t0.1\n",
]
RTT = "0.12\t0\t0.02\n0.15\t0.02\t0.03\n0.25\t0.03\t0.04\n"
# Two timeouts (4 -> 1, 2 -> 1); 0 -> 1 is the initial window, 1 -> 1 a change within
# the first segment.
CWND = (
    "0.12\t0\t1\n0.15\t1\t2\n0.18\t2\t3\n0.25\t3\t4\n"
    "0.26\t4\t1\n0.265\t1\t1\n0.27\t1\t2\n0.28\t2\t1\n"
)
# Data SDUs (LCID 3) handed to the RLC at 0.111, 0.1112, 0.1114, 0.1121 s; the UE receives
# those of 0.111 and 0.1114 (receive time - delay), so the one of 0.1112 was dropped and
# the one of 0.1121, after the last received, is not counted. LCID 1 lines are signalling.
PDCP = (
    "Tx 0.0328043 1 1 1 32 \n"
    "Tx 0.111 1 1 3 1454 \n"
    "Tx 0.1112 1 1 3 1454 \n"
    "Rx 0.111412 1 1 1 32 412000\n"
    "Tx 0.1114 1 1 3 1454 \n"
    "Rx 0.1115 1 1 3 1454 500000\n"
    "Rx 0.112 1 1 3 1454 600000\n"
    "Tx 0.1121 1 1 3 1454 \n"
)
# Uplink data SDUs (the ACKs) received after 0.2 and 0.4 ms.
UL_PDCP = "Tx 0.1116 1 1 3 52 \nRx 0.1118 1 1 3 52 200000\nTx 0.1119 1 1 3 52 \nRx 0.1123 1 1 3 52 400000\n"
# The drop capture: a pcap file header, then two records of 60 and 100 captured bytes.
PCAP_HEADER = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 9)
PCAP = PCAP_HEADER + b"".join(struct.pack("<IIII", 0, 200_000, n, n) + bytes(n) for n in (60, 100))
# An optimised build compiles the scripts' "RxDrop at" message out; a debug build's is
# ignored (the capture counts the drops).
STDERR = (
    "RxDrop at 0.2\n"
    '\tCommand being timed: "s1"\n'
    "\tUser time (seconds): 1.5\n"
    "\tSystem time (seconds): 0.5\n"
    "\tMaximum resident set size (kbytes): 2048\n"
    "\tExit status: 0\n"
)


def write_run(
    directory: Path,
    *,
    command: str = TCP_COMMAND,
    stdout: str = STDOUT,
    tb_lines: list[str] = TB_LINES,
    tcp_traces: bool = True,
) -> Path:
    directory.mkdir(parents=True)
    files = {
        "command.txt": command + "\n",
        "commit.txt": COMMIT + "\n",
        "stdout.txt": stdout,
        "stderr.txt": STDERR,
        "wall_s.txt": "4\n",
        "RxPacketTrace.txt": TB_HEADER + "".join(tb_lines),
        "DlPdcpStats.txt": PDCP,
        "UlPdcpStats.txt": UL_PDCP,
    }
    if tcp_traces:
        files.update({"rtt.txt": RTT, "cwnd.txt": CWND})
    for name, text in files.items():
        (directory / name).write_text(text)
    (directory / "drop.pcap").write_bytes(PCAP)
    return directory


def convert(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wavecc.ns3mmwave", "convert", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


def read_rows(out: Path) -> list[dict[str, str]]:
    with (out / "timeseries_100ms.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_tcp_summary_fields(tmp_path: Path) -> None:
    out = tmp_path / "ref"
    done = convert(write_run(tmp_path / "run"), out)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["case"] == {
        "script": "s1",
        "transport": "tcp",
        "tcp_type": "TcpNewReno",
        "error_rate": 0.0,
        "rlc_buffer_bytes": 2621440,
        "rng_run": 2,
        "sim_time_s": 0.3,
        "options": {"tcpType": "TcpNewReno", "errorRate": "0", "simTime": "0.3", "RngRun": "2"},
    }
    assert summary["ns3mmwave_commit"] == COMMIT
    assert summary["command"] == TCP_COMMAND
    assert summary["rx_bytes"] == 37500
    assert summary["goodput_mbps"] == pytest.approx(1.0)
    assert summary["goodput_active_mbps"] == pytest.approx(1.5)
    assert summary["script_avg_goodput_mbps"] == 1.0
    # SRTT 20, 30, 40 ms at 0.12, 0.15, 0.25 s, held 0.03, 0.10, 0.05 s up to 0.3 s.
    assert summary["srtt_mean_ms_per_update"] == pytest.approx(30.0)
    assert summary["srtt_mean_ms_timeweighted"] == pytest.approx(5.6 / 0.18)
    assert summary["srtt_updates"] == 3
    assert summary["srtt_min_ms"] == pytest.approx(20.0)
    assert summary["srtt_p95_ms"] == pytest.approx(30.0)  # index floor(0.95 x 2) = 1
    assert summary["dl_tbs"] == 4
    assert summary["dl_tb_error_rate"] == pytest.approx(0.25)
    assert summary["dl_mean_sinr_db"] == pytest.approx(25.0)
    assert summary["dl_sinr_timeavg_db"] == pytest.approx((20 + 80 / 3) / 2)  # bins 0, 1
    assert summary["dl_mean_mcs"] == pytest.approx(20.5)
    assert summary["ul_tbs"] == 3
    assert summary["ul_tb_error_rate"] == pytest.approx(1 / 3)
    assert summary["error_model_drops"] == 2
    assert summary["rlc_drops"] == 1
    assert summary["dl_pdcp_delay_ms"] == pytest.approx(0.55)
    assert summary["ul_pdcp_delay_ms"] == pytest.approx(0.3)
    assert summary["retransmitted_segments"] is None
    assert summary["rto_events"] == 2
    assert summary["wall_s"] == 4.0
    assert summary["cpu_s"] == pytest.approx(2.0)
    assert summary["peak_rss_mb"] == pytest.approx(2.0)
    assert summary["sim_s_per_wall_s"] == pytest.approx(0.075)


def test_tcp_timeseries(tmp_path: Path) -> None:
    out = tmp_path / "ref"
    assert convert(write_run(tmp_path / "run"), out).returncode == 0
    assert read_rows(out) == [
        {
            "t_s": "0.1",
            "sink_goodput_mbps": "0.0",
            "srtt_mean_ms": "",
            "cwnd_segments_last": "",
            "dl_sinr_mean_db": "20.00",
            "dl_tb_count": "1",
            "dl_tb_errors": "0",
            "dl_tb_bytes": "100",
        },
        {
            "t_s": "0.2",
            "sink_goodput_mbps": "1.5",
            "srtt_mean_ms": "25.00",
            "cwnd_segments_last": "3",
            "dl_sinr_mean_db": "26.67",
            "dl_tb_count": "3",
            "dl_tb_errors": "1",
            "dl_tb_bytes": "900",
        },
        {
            "t_s": "0.3",
            "sink_goodput_mbps": "",
            "srtt_mean_ms": "40.00",
            "cwnd_segments_last": "1",
            "dl_sinr_mean_db": "",
            "dl_tb_count": "0",
            "dl_tb_errors": "0",
            "dl_tb_bytes": "0",
        },
    ]
    assert (out / ".wavecc-output.json").is_file()
    assert sorted(p.name for p in out.iterdir()) == [
        ".wavecc-output.json",
        "summary.json",
        "timeseries_100ms.csv",
    ]


def test_udp_run_has_no_socket_fields(tmp_path: Path) -> None:
    out = tmp_path / "ref"
    done = convert(write_run(tmp_path / "run", command=UDP_COMMAND, tcp_traces=False), out)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["case"]["transport"] == "udp"
    assert summary["case"]["tcp_type"] is None
    for field in (
        "srtt_mean_ms_per_update",
        "srtt_mean_ms_timeweighted",
        "srtt_updates",
        "srtt_min_ms",
        "srtt_p95_ms",
    ):
        assert summary[field] is None
    assert summary["dl_tbs"] == 4
    assert (summary["rlc_drops"], summary["retransmitted_segments"], summary["rto_events"]) == (
        1,
        None,
        None,
    )
    rows = read_rows(out)
    assert [r["srtt_mean_ms"] for r in rows] == ["", "", ""]
    assert [r["cwnd_segments_last"] for r in rows] == ["", "", ""]
    assert [r["dl_tb_count"] for r in rows] == ["1", "3", "0"]


@pytest.mark.parametrize(
    ("lines", "drops"),
    [
        # The last SDU received was handed over at 0.1113996 s, printed 0.1114: one unit of
        # the last digit (1e-6 s below 1 s) takes it in, not the one at 0.111402.
        (
            [
                "Tx 0.111 1 1 3 1454 ",
                "Tx 0.1114 1 1 3 1454 ",
                "Tx 0.111402 1 1 3 1454 ",
                "Rx 0.112 1 1 3 1454 600400",
            ],
            1,
        ),
        (["Tx 0.111 1 1 3 1454 ", "Rx 0.112 1 1 3 1454 1000000"], 0),
        (["Tx 0.111 1 1 3 1454 ", "Rx 0.112 1 1 1 32 1000000"], None),  # no data SDU received
    ],
)
def test_rlc_drops_count_sdus_handed_over_before_the_last_received(
    tmp_path: Path, lines: list[str], drops: int | None
) -> None:
    path = tmp_path / "DlPdcpStats.txt"
    path.write_text("\n".join(lines) + "\n")
    assert ns3mmwave.rlc_drops(ns3mmwave.read_pdcp(path), path) == drops


def test_radio_fields_are_null_without_their_files(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    (run / "UlPdcpStats.txt").unlink()
    (run / "drop.pcap").unlink()
    radio = ns3mmwave.read_radio(run)
    assert (radio["ul_pdcp_delay_ms"], radio["error_model_drops"]) == (None, None)
    assert radio["dl_pdcp_delay_ms"] == pytest.approx(0.55)


def test_pcap_records_are_counted_in_either_byte_order(tmp_path: Path) -> None:
    big = tmp_path / "big.pcap"
    big.write_bytes(
        struct.pack(">IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 9)
        + struct.pack(">IIII", 0, 0, 3, 3)
        + bytes(3)
    )
    assert ns3mmwave.count_pcap_records(big) == 1
    empty = tmp_path / "empty.pcap"
    empty.write_bytes(PCAP_HEADER)
    assert ns3mmwave.count_pcap_records(empty) == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (PCAP_HEADER[:20], "shorter than a pcap file header"),
        (b"\x00" * 24, "is not a microsecond pcap file's"),
        (PCAP[:-1], "runs past the end of the file"),
        (PCAP_HEADER + bytes(10), "truncated record header at byte 24"),
    ],
)
def test_malformed_pcap_is_refused(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "drop.pcap"
    path.write_bytes(data)
    with pytest.raises(ns3mmwave.RunError, match=message):
        ns3mmwave.count_pcap_records(path)


def test_script_defaults_fill_options_left_out() -> None:
    case = ns3mmwave.parse_command("/b/s3", "command.txt")
    assert (
        case.tcp_type,
        case.error_rate,
        case.rlc_buffer_bytes,
        case.sim_time_s,
        case.rng_run,
    ) == ("Tcpfbtcp", 1e-7, 2621440, 20.0, 1)
    assert ns3mmwave.parse_command("/b/s1", "command.txt").error_rate == 0.0


def assert_refused(done: subprocess.CompletedProcess[str], out: Path, *words: str) -> None:
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wavecc: error: "), done.stderr
    for word in words:
        assert word in lines[0]
    assert not out.exists()


def test_run_in_progress_is_refused(tmp_path: Path) -> None:
    unfinished = STDOUT[: STDOUT.index("\n*** Flow")]
    out = tmp_path / "ref"
    done = convert(write_run(tmp_path / "run", stdout=unfinished), out)
    assert_refused(done, out, "stdout.txt", "still in progress")


def test_run_without_wall_time_is_refused(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    (run / "wall_s.txt").unlink()
    out = tmp_path / "ref"
    assert_refused(convert(run, out), out, "wall_s.txt", "still in progress")


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("RxPacketTrace.txt", TB_HEADER + TB_LINES[0] + "DL\t0.1\t1\t2\n", "RxPacketTrace.txt:3"),
        ("RxPacketTrace.txt", TB_HEADER + TB_LINES[0].replace("20", "x"), "RxPacketTrace.txt:2"),
        ("RxPacketTrace.txt", TB_HEADER + TB_LINES[0].replace("DL", "XX"), "RxPacketTrace.txt:2"),
        ("rtt.txt", "0.12\t0\t0.02\n0.15\t0.02\tnan\n", "rtt.txt:2"),
        ("cwnd.txt", "0.12\t0\t1\n0.10\t1\t2\n", "cwnd.txt:2"),
        ("DlPdcpStats.txt", PDCP + "Rx 0.2 1 1 3 1454\n", "DlPdcpStats.txt:9"),
        ("DlPdcpStats.txt", "Tx 0.1 1 1 3 x \n", "DlPdcpStats.txt:1"),
        (
            "DlPdcpStats.txt",  # received twice, the last one handed over at 0.05 s, before any
            "Tx 0.1 1 1 3 1454 \nRx 0.2 1 1 3 1454 1000\nRx 0.3 1 1 3 1454 250000000\n",
            "fewer handed to the RLC",
        ),
        ("stdout.txt", STDOUT.replace("1.5 Mbit/s", "1.5 Mbps"), "stdout.txt:4"),
    ],
)
def test_malformed_line_is_refused(tmp_path: Path, name: str, text: str, where: str) -> None:
    run = write_run(tmp_path / "run")
    (run / name).write_text(text)
    out = tmp_path / "ref"
    assert_refused(convert(run, out), out, where)


def test_goodput_disagreeing_with_rx_bytes_is_refused(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", stdout=STDOUT.replace("Rx Bytes: 37500", "Rx Bytes: 40000"))
    out = tmp_path / "ref"
    assert_refused(convert(run, out), out, "Average Goodput")


def test_failed_simulator_is_refused(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    (run / "stderr.txt").write_text(STDERR.replace("Exit status: 0", "Exit status: 134"))
    out = tmp_path / "ref"
    assert_refused(convert(run, out), out, "stderr.txt", "134")


def test_existing_output_is_never_overwritten(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    done = convert(run, foreign)
    assert done.returncode == 2 and "notes.txt" in done.stderr
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]

    out = tmp_path / "ref"
    assert convert(run, out).returncode == 0
    again = convert(run, out)
    assert again.returncode == 2 and "--force" in again.stderr
    assert convert(run, out, "--force").returncode == 0
    assert json.loads((out / "summary.json").read_text())["rx_bytes"] == 37500
