"""`wavecc kernel`: the five BPF congestion controls build, pass the verifier, carry
50 MB each over a rate-limited veth pair between two network namespaces, and unload
without leaving anything registered.

The kernel tests need root, clang and bpftool, the kernel's BTF and `ip netns`; where
one is missing they skip and say which. The namespaces and their 10.x addresses exist
only for the test and are deleted on every exit path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import wavecc
from wavecc import cli, kernel

# System tests (clang, bpftool, root): left out of the quick loop (`-m "not slow"`).
pytestmark = pytest.mark.slow

TRANSFER_BYTES = 50 * 1024 * 1024
RATE = "300mbit"
SERVER, CLIENT = "10.211.0.2", "10.211.0.1"
PORT = 5201

# The two ends of the transfer, run inside the namespaces with `ip netns exec`.
TRAFFIC = r"""
import json, socket, struct, sys, time

def receive(host, port):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(1)
    print("ready", flush=True)
    conn, _ = listener.accept()
    total, start = 0, None
    while chunk := conn.recv(1 << 20):
        start = start or time.monotonic()
        total += len(chunk)
    print(json.dumps({"bytes": total, "seconds": time.monotonic() - start}), flush=True)

def send(host, port, cca, size):
    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cca.encode())
    sock.connect((host, port))
    used = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
    block = bytes(1 << 20)
    for _ in range(size // len(block)):
        sock.sendall(block)
    sock.shutdown(socket.SHUT_WR)
    sock.recv(1)
    # struct tcp_info: tcpi_rtt (us) at byte 68, tcpi_snd_cwnd at 80, tcpi_total_retrans at 100.
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    rtt_us, cwnd, retrans = (struct.unpack_from("I", info, at)[0] for at in (68, 80, 100))
    print(json.dumps({"cca": used.rstrip(b"\0").decode(), "rtt_us": rtt_us, "cwnd": cwnd,
                      "retransmissions": retrans}), flush=True)

if sys.argv[1] == "receive":
    receive(sys.argv[2], int(sys.argv[3]))
else:
    send(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
"""


def _unavailable() -> str | None:
    """Why the kernel tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root to load BPF congestion control and create namespaces"
    for tool in ("clang", "bpftool", "ip", "tc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed ({kernel.APT_INSTALL}; iproute2)"
    if not kernel.VMLINUX_BTF.is_file():
        return f"the kernel has no BTF ({kernel.VMLINUX_BTF})"
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return f"`ip netns` does not work here: {probe.stderr.strip()}"
    return None


def _cannot_build() -> str | None:
    """Why the programs cannot be compiled here, or None."""
    for tool in ("clang", "bpftool"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed ({kernel.APT_INSTALL})"
    if not os.access(kernel.VMLINUX_BTF, os.R_OK):
        return f"the kernel's BTF is not readable ({kernel.VMLINUX_BTF})"
    return None


needs_kernel = pytest.mark.skipif(_unavailable() is not None, reason=str(_unavailable()))
needs_compiler = pytest.mark.skipif(_cannot_build() is not None, reason=str(_cannot_build()))


def _wavecc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wavecc", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _sh(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True, text=True)


def _struct_ops_programs() -> int:
    listing = subprocess.run(
        ["bpftool", "-j", "prog", "show"], capture_output=True, text=True, check=False
    )
    return sum(p.get("type") == "struct_ops" for p in json.loads(listing.stdout or "[]"))


def _released(programs_before: int) -> bool:
    """The kernel frees an unregistered algorithm's programs after an RCU grace period."""
    deadline = time.monotonic() + 5
    while _struct_ops_programs() > programs_before and time.monotonic() < deadline:
        time.sleep(0.1)
    return _struct_ops_programs() == programs_before


# --- without the kernel ----------------------------------------------------------


def test_the_installed_package_ships_the_bpf_sources():
    sources = kernel.sources_dir()
    assert sources.is_relative_to(Path(wavecc.__file__).resolve().parent)
    for name in kernel.ALGORITHMS:
        assert (sources / f"{name}.bpf.c").is_file(), name
    for header in ("wavecc_fixed.h", "wavecc_ca.h", "fbtcp.h", "rtt_variation.h", "dtcp.h"):
        assert (sources / header).is_file(), header


def test_an_unknown_algorithm_is_one_error_line():
    result = _wavecc("kernel", "load", "cubic")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("wavecc: error: unknown algorithm 'cubic'")
    assert "wavecc_fbtcp" in result.stderr and "wavecc_dtcp" in result.stderr


def test_loading_needs_root(monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert cli.main(["kernel", "load", "fbtcp"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs root" in err


def test_missing_tools_name_the_apt_packages(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    assert cli.main(["kernel", "build", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"wavecc: error: clang and bpftool not found: install with `{kernel.APT_INSTALL}`\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_kernel_without_btf_is_refused(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda tool: f"/usr/bin/{tool}")
    monkeypatch.setattr(kernel, "VMLINUX_BTF", tmp_path / "no-btf")
    assert cli.main(["kernel", "build", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no BTF" in err and "5.13" in err


@needs_compiler
def test_build_keeps_objects_that_are_up_to_date(monkeypatch, tmp_path):
    sources = tmp_path / "bpf"
    shutil.copytree(kernel.sources_dir(), sources)
    monkeypatch.setattr(kernel, "sources_dir", lambda: sources)
    out = tmp_path / "out"
    names = ("wavecc_rttv", "wavecc_mss")
    built = {obj: obj.stat().st_mtime_ns for obj in kernel.build(out, names)}
    assert kernel.build(out, names) == list(built)
    assert all(obj.stat().st_mtime_ns == mtime for obj, mtime in built.items())
    # A changed source rebuilds every object that may include it.
    header = sources / "rtt_variation.h"
    os.utime(header, ns=(header.stat().st_atime_ns, max(built.values()) + 10**9))
    kernel.build(out, names)
    assert all(obj.stat().st_mtime_ns > mtime for obj, mtime in built.items())


def test_a_kernel_without_struct_ops_congestion_control_is_refused(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda tool: f"/usr/bin/{tool}")
    btf = tmp_path / "vmlinux"
    btf.write_bytes(b"")
    monkeypatch.setattr(kernel, "VMLINUX_BTF", btf)
    # The BTF of a kernel without tcp_congestion_ops struct_ops.
    dump = subprocess.CompletedProcess([], 0, "struct sock {\n};\n", "")
    monkeypatch.setattr(kernel, "_run", lambda command: dump)
    assert cli.main(["kernel", "build", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "cannot load congestion control through struct_ops" in err and "5.13" in err


def test_unloading_without_bpftool_names_the_apt_packages(monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda tool: None if tool == "bpftool" else tool)
    assert cli.main(["kernel", "unload", "dtcp"]) == 2
    err = capsys.readouterr().err
    assert err == f"wavecc: error: bpftool not found: install with `{kernel.APT_INSTALL}`\n"


# The pure logic headers compiled natively, on the hand-computed cases of the
# simulator's unit tests (crates/wavecc-core/src/cc/{mss,mrvhs,dtcp,fbtcp}.rs).
NATIVE_CASES = r"""
#include <stdio.h>
#include "fbtcp.h"
#include "rtt_variation.h"
#include "dtcp.h"

static void rttv_case(void)
{
	/* MSS 1250, RTTbase 0.1 s, RTTmax 0.3 s, RTTcur 0.2 s: TimeRatio 2, F = 50,
	 * cwnd 100: +0.5 segment. */
	struct rttv_config c = { RTTV_GROWTH_MSS, RTTV_DECREASE_BETA, 500, 0 };
	struct rttv_state s;
	struct wavecc_window w = { 100, 2 };

	rttv_init(&s, 10);
	rttv_observe(&s, 100000);
	rttv_observe(&s, 300000);
	rttv_on_sample(&s, 200000);
	rttv_cong_avoid(&s, &c, &w, 1, 1250);
	printf("mss_f_q16 %u\nmss_cwnd %u\nmss_frac_q16 %u\n", s.f_q16, w.cwnd, s.frac_q16);
	printf("mss_ssthresh_90 %u\n", rttv_ssthresh(&c, 90));
}

static void mrvhs_case(void)
{
	struct rttv_config c = { RTTV_GROWTH_MSS, RTTV_DECREASE_HIGHSPEED, 0, 0 };
	unsigned w[] = { 1000, 5000, 30, 3, 1000000 };

	for (int i = 0; i < 5; i++)
		printf("mrvhs_ssthresh_%u %u\n", w[i], rttv_ssthresh(&c, w[i]));
}

static void dtcp_case(void)
{
	/* Two epochs of 0.125 s on a 0.1 s srtt, MSS 1250, cwnd 10: 100 segments
	 * (1e6 B/s), then 120 (1.2e6 B/s). */
	struct dtcp_state s;
	struct wavecc_window w = { 10, WAVECC_INFINITE_SSTHRESH };
	struct dtcp_sinr_hint none = { 0, 0 };

	dtcp_init(&s, &w);
	printf("dtcp_initial_cwnd %u\n", w.cwnd);
	dtcp_on_ack(&s, 0, 0, 100000, 1250, 10, none);
	dtcp_on_ack(&s, 100000, 50, 100000, 1250, 10, none);
	dtcp_on_ack(&s, 125000, 100, 100000, 1250, 10, none);
	printf("dtcp_n1_q16 %llu\n", (unsigned long long)s.n_q16);
	dtcp_on_ack(&s, 250000, 220, 100000, 1250, 10, none);
	printf("dtcp_filtered %llu\ndtcp_estimate %lld\ndtcp_n2_q16 %llu\n",
	       (unsigned long long)s.filtered_bps, (long long)s.estimate_bps,
	       (unsigned long long)s.n_q16);
	s.n_q16 = WAVECC_Q16_ONE;
	printf("dtcp_ssthresh_n1 %u\n", dtcp_ssthresh(&s, 100));
}

static void dtcp_hint_case(void)
{
	/* The same epochs with SINR 10 dB then 15 dB: the first seeds the average, the
	 * second adds s = B_I x 5 / 10; then an absurd hint, clamped to 100 dB. */
	struct dtcp_state s;
	struct wavecc_window w = { 10, WAVECC_INFINITE_SSTHRESH };
	struct dtcp_sinr_hint none = { 0, 0 }, ten = { 10000, 1 }, fifteen = { 15000, 1 };
	struct dtcp_sinr_hint absurd = { 2000000000, 1 };

	dtcp_init(&s, &w);
	dtcp_on_ack(&s, 0, 0, 100000, 1250, 10, none);
	dtcp_on_ack(&s, 125000, 100, 100000, 1250, 10, ten);
	dtcp_on_ack(&s, 250000, 220, 100000, 1250, 10, fifteen);
	printf("dtcp_hint_estimate %lld\ndtcp_hint_n_q16 %llu\ndtcp_hint_avg %d\n",
	       (long long)s.estimate_bps, (unsigned long long)s.n_q16, s.sinr_avg_mdb);
	dtcp_on_ack(&s, 375000, 340, 100000, 1250, 10, absurd);
	printf("dtcp_clamped_avg %d\n", s.sinr_avg_mdb);
}

static void fbtcp_case(void)
{
	/* cwnd 1000 at cycle end, baseRtt = minRtt (CSI 1), maxCwnd 2000: C1, +120. */
	struct fbtcp_state s;
	struct wavecc_window w = { 1000, WAVECC_INFINITE_SSTHRESH };

	fbtcp_init(&s, 1, 0);
	s.max_cwnd_q16 = 2000ULL << 16;
	for (int i = 0; i < 3; i++)
		fbtcp_on_ack(&s, 10000, 0, 0);
	fbtcp_cong_avoid(&s, &w, 1, 5000, 1);
	printf("fbtcp_rule %d\nfbtcp_cwnd %u\nfbtcp_ssthresh %u\n", s.rule, w.cwnd, w.ssthresh);
	/* CSI 0.02 (minRtt 50 x baseRtt) in Divergence (maxCwnd 0): D6, /2. */
	fbtcp_init(&s, 1, 0);
	w = (struct wavecc_window){ 1000, WAVECC_INFINITE_SSTHRESH };
	fbtcp_on_ack(&s, 10000, 0, 0);
	fbtcp_restart_cycle(&s, 0);
	for (int i = 0; i < 3; i++)
		fbtcp_on_ack(&s, 500000, 0, 0);
	fbtcp_cong_avoid(&s, &w, 1, 5000, 1);
	printf("fbtcp_d6_rule %d\nfbtcp_d6_cwnd %u\nfbtcp_d6_ssthresh %u\n", s.rule, w.cwnd,
	       w.ssthresh);
	printf("fbtcp_loss_ssthresh %u\n", fbtcp_lowered_ssthresh(WAVECC_INFINITE_SSTHRESH, 800));
}

int main(void)
{
	unsigned long long bad = 0;

	for (unsigned long long x = 0; x < 2000000; x++) {
		unsigned long long r = wavecc_isqrt(x * 1000003);
		bad += r * r > x * 1000003 || (r + 1) * (r + 1) <= x * 1000003;
	}
	printf("isqrt_wrong %llu\n", bad);
	rttv_case();
	mrvhs_case();
	dtcp_case();
	dtcp_hint_case();
	fbtcp_case();
	return 0;
}
"""


def _native_compiler() -> str | None:
    return next((cc for cc in ("cc", "gcc", "clang") if shutil.which(cc)), None)


@pytest.mark.skipif(_native_compiler() is None, reason="no C compiler")
def test_the_logic_headers_compile_natively_and_follow_the_simulator(tmp_path):
    source, binary = tmp_path / "cases.c", tmp_path / "cases"
    source.write_text(NATIVE_CASES)
    compiled = subprocess.run(
        [
            _native_compiler(),
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-I",
            str(kernel.sources_dir()),
            str(source),
            "-o",
            str(binary),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr
    out = dict(
        line.split()
        for line in subprocess.run(
            [str(binary)], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    )
    got = {key: int(value) for key, value in out.items()}
    q16 = 1 << 16
    assert got["isqrt_wrong"] == 0
    # MSS-CCA: F = sqrt(1250 x 2) = 50 exactly, +50 / 100 = half a segment, in Q16.
    assert (got["mss_f_q16"], got["mss_cwnd"], got["mss_frac_q16"]) == (50 * q16, 100, q16 // 2)
    assert got["mss_ssthresh_90"] == 45
    # MRVHS: b(1000) = 0.33, b(5000) = 0.25, b(30) = 0.5, the floor 2, b = 0.09 above the table.
    assert [got[f"mrvhs_ssthresh_{w}"] for w in (1000, 5000, 30, 3, 1000000)] == [
        670,
        3750,
        15,
        2,
        910000,
    ]
    # D-TCP: twice the initial window; N = 2 after the first epoch; after the second
    # B_I = 1.01e6 B/s, BW_E = 1.105e6, N = 3 + (0.095 / 0.221) x 2 = 3.8597285.
    assert got["dtcp_initial_cwnd"] == 20
    assert got["dtcp_n1_q16"] == 2 * q16
    assert (got["dtcp_filtered"], got["dtcp_estimate"]) == (1_010_000, 1_105_000)
    assert abs(got["dtcp_n2_q16"] / q16 - 3.8597285) < 2e-4
    assert got["dtcp_ssthresh_n1"] == 50  # N = 1: y = 2 / 4, Reno's halving
    # With SINR 10 then 15 dB: BW_E = 1.01e6 + 0.5 x (0.19e6 + 0.505e6) B/s, above
    # BW_C = 1.2e6, so N = 3 - (0.1575 / 0.2715) x 2 = 1.839779; the average
    # 0.9 x 10 + 0.1 x 15 dB; a hint of 2e6 dB counts as 100 dB: 0.9 x 10.5 + 0.1 x 100.
    assert got["dtcp_hint_estimate"] == 1_357_500
    assert abs(got["dtcp_hint_n_q16"] / q16 - 1.839779) < 2e-4
    assert got["dtcp_hint_avg"] == 10_500
    assert got["dtcp_clamped_avg"] == 19_450
    # FB-TCP: C1 adds 120 (trace code 10), ssthresh = max(inf, 0.75 x 1120) = inf;
    # D6 halves and lowers ssthresh to cwnd' - 1, then max with 0.75 cwnd'.
    assert (got["fbtcp_rule"], got["fbtcp_cwnd"], got["fbtcp_ssthresh"]) == (10, 1120, 0x7FFFFFFF)
    assert (got["fbtcp_d6_rule"], got["fbtcp_d6_cwnd"], got["fbtcp_d6_ssthresh"]) == (
        1060,
        500,
        499,
    )
    assert got["fbtcp_loss_ssthresh"] == 799


# --- on the kernel -----------------------------------------------------------------


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bpf")
    result = _wavecc("kernel", "build", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(Path(line).name for line in result.stdout.split()) == sorted(
        f"{name}.bpf.o" for name in kernel.ALGORITHMS
    )
    return out


@pytest.fixture(scope="module")
def namespaces():
    """Two namespaces joined by a veth pair, the client's side limited by tbf."""
    tag = f"wcc{os.getpid() % 100000}"
    client, server = f"{tag}c", f"{tag}s"
    try:
        _sh("ip", "netns", "add", client)
        _sh("ip", "netns", "add", server)
        _sh(
            "ip",
            "link",
            "add",
            f"{tag}c",
            "netns",
            client,
            "type",
            "veth",
            "peer",
            "name",
            f"{tag}s",
            "netns",
            server,
        )
        for ns, dev, addr in ((client, f"{tag}c", CLIENT), (server, f"{tag}s", SERVER)):
            _sh("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            _sh("ip", "-n", ns, "link", "set", dev, "up")
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
        _sh(
            "tc",
            "-n",
            client,
            "qdisc",
            "add",
            "dev",
            f"{tag}c",
            "root",
            "tbf",
            "rate",
            RATE,
            "burst",
            "64kb",
            "latency",
            "5ms",
        )
        yield client, server
    finally:
        for ns in (client, server):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def _transfer(namespaces: tuple[str, str], cca: str, script: Path) -> dict:
    """Carries TRANSFER_BYTES from the client namespace to the server's with `cca`."""
    client, server = namespaces
    receiver = subprocess.Popen(
        ["ip", "netns", "exec", server, sys.executable, str(script), "receive", SERVER, str(PORT)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert receiver.stdout.readline().strip() == "ready"
        sender = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                client,
                sys.executable,
                str(script),
                "send",
                SERVER,
                str(PORT),
                cca,
                str(TRANSFER_BYTES),
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert sender.returncode == 0, sender.stderr
        received = json.loads(receiver.stdout.readline())
        receiver.wait(timeout=10)
    finally:
        receiver.kill()
        receiver.wait()
    return {**json.loads(sender.stdout), **received}


@needs_kernel
@pytest.mark.parametrize("name", kernel.ALGORITHMS)
def test_each_algorithm_carries_50_mb_and_unloads_cleanly(name, build_dir, namespaces, tmp_path):
    before, programs = kernel.struct_ops_maps(), _struct_ops_programs()
    loaded = _wavecc("kernel", "load", name, "--out", str(build_dir))
    assert loaded.returncode == 0, loaded.stderr
    try:
        assert name in kernel.struct_ops_maps()
        listing = _wavecc("kernel", "list")
        assert f"{name}  struct_ops id" in listing.stdout, listing.stdout
        script = tmp_path / "traffic.py"
        script.write_text(TRAFFIC)
        result = _transfer(namespaces, name, script)
    finally:
        unloaded = _wavecc("kernel", "unload", name)
    assert unloaded.returncode == 0, unloaded.stderr
    assert result["cca"] == name
    assert result["bytes"] == TRANSFER_BYTES
    mbps = result["bytes"] * 8 / result["seconds"] / 1e6
    print(
        f"{name}: {result['seconds']:.2f} s for 50 MiB, {mbps:.0f} Mb/s, "
        f"{result['retransmissions']} retransmissions, final cwnd {result['cwnd']}, "
        f"srtt {result['rtt_us']} us"
    )
    assert 100 < mbps < 330, f"{mbps:.0f} Mb/s over a {RATE} tbf"
    assert kernel.struct_ops_maps() == before
    assert _released(programs)


@needs_kernel
def test_loading_twice_and_unloading_what_is_not_loaded_are_refused(build_dir):
    assert _wavecc("kernel", "load", "mss", "--out", str(build_dir)).returncode == 0
    try:
        again = _wavecc("kernel", "load", "wavecc_mss", "--out", str(build_dir))
        assert again.returncode == 2
        assert again.stderr == (
            "wavecc: error: wavecc_mss is already loaded: `wavecc kernel unload wavecc_mss` first\n"
        )
    finally:
        assert _wavecc("kernel", "unload", "mss").returncode == 0
    missing = _wavecc("kernel", "unload", "mss")
    assert missing.returncode == 2
    assert missing.stderr.startswith("wavecc: error: wavecc_mss is not loaded")


@needs_kernel
def test_a_verifier_rejection_is_one_line_then_the_log(monkeypatch, tmp_path, capsys):
    # A copy of the sources whose init writes a read-only field of tcp_sock.
    sources = tmp_path / "bpf"
    shutil.copytree(kernel.sources_dir(), sources)
    ops = sources / "rtt_variation_ops.h"
    ops.write_text(
        ops.read_text().replace(
            "rttv_init(wavecc_priv(sk), wavecc_tp(sk)->snd_cwnd);",
            "rttv_init(wavecc_priv(sk), wavecc_tp(sk)->snd_cwnd);\n\twavecc_tp(sk)->srtt_us = 0;",
        )
    )
    monkeypatch.setattr(kernel, "sources_dir", lambda: sources)
    before = kernel.struct_ops_maps()
    assert cli.main(["kernel", "load", "rttv", "--out", str(tmp_path / "out")]) == 2
    first, *log = capsys.readouterr().err.splitlines()
    assert first.startswith("wavecc: error: the verifier rejected wavecc_rttv: ")
    assert "no write support to tcp_sock" in first
    assert 0 < len(log) <= kernel.VERIFIER_LOG_LINES
    assert kernel.struct_ops_maps() == before


@needs_kernel
def test_dtcp_takes_a_sinr_hint_from_its_map(build_dir, namespaces, tmp_path):
    assert _wavecc("kernel", "load", "dtcp", "--out", str(build_dir)).returncode == 0
    try:
        # 12.5 dB, valid: the map's value is {s32 sinr_mdb, u32 valid}.
        value = (12500).to_bytes(4, "little") + (1).to_bytes(4, "little")
        _sh(
            "bpftool",
            "map",
            "update",
            "name",
            "dtcp_sinr",
            "key",
            "hex",
            "00",
            "00",
            "00",
            "00",
            "value",
            "hex",
            *(f"{b:02x}" for b in value),
        )
        dump = json.loads(
            subprocess.run(
                ["bpftool", "-j", "map", "dump", "name", "dtcp_sinr"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        assert bytes(int(b, 16) for b in dump[0]["value"]) == value
        script = tmp_path / "traffic.py"
        script.write_text(TRAFFIC)
        result = _transfer(namespaces, "wavecc_dtcp", script)
        assert result["bytes"] == TRANSFER_BYTES
    finally:
        assert _wavecc("kernel", "unload", "dtcp").returncode == 0
