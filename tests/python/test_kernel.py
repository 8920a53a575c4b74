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
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
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
        [sys.executable, "-m", "wavecc", *args], capture_output=True, text=True, timeout=60
    )


def _sh(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True, text=True)


def _struct_ops_programs() -> int:
    listing = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True)
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
    assert err == f"wavecc: error: clang and bpftool not found: install with `{kernel.APT_INSTALL}`\n"
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
        _sh("ip", "link", "add", f"{tag}c", "netns", client, "type", "veth",
            "peer", "name", f"{tag}s", "netns", server)
        for ns, dev, addr in ((client, f"{tag}c", CLIENT), (server, f"{tag}s", SERVER)):
            _sh("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            _sh("ip", "-n", ns, "link", "set", dev, "up")
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
        _sh("tc", "-n", client, "qdisc", "add", "dev", f"{tag}c", "root", "tbf",
            "rate", RATE, "burst", "64kb", "latency", "5ms")
        yield client, server
    finally:
        for ns in (client, server):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _transfer(namespaces: tuple[str, str], cca: str, script: Path) -> dict:
    """Carries TRANSFER_BYTES from the client namespace to the server's with `cca`."""
    client, server = namespaces
    receiver = subprocess.Popen(
        ["ip", "netns", "exec", server, sys.executable, str(script), "receive", SERVER, str(PORT)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert receiver.stdout.readline().strip() == "ready"
        sender = subprocess.run(
            ["ip", "netns", "exec", client, sys.executable, str(script), "send", SERVER,
             str(PORT), cca, str(TRANSFER_BYTES)],
            capture_output=True, text=True, timeout=30,
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
    print(f"{name}: {result['seconds']:.2f} s for 50 MiB, {mbps:.0f} Mb/s, "
          f"{result['retransmissions']} retransmissions, final cwnd {result['cwnd']}, "
          f"srtt {result['rtt_us']} us")
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
    ops.write_text(ops.read_text().replace(
        "rttv_init(wavecc_priv(sk), wavecc_tp(sk)->snd_cwnd);",
        "rttv_init(wavecc_priv(sk), wavecc_tp(sk)->snd_cwnd);\n\twavecc_tp(sk)->srtt_us = 0;",
    ))
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
        _sh("bpftool", "map", "update", "name", "dtcp_sinr", "key", "hex", "00", "00", "00",
            "00", "value", "hex", *(f"{b:02x}" for b in value))
        dump = json.loads(subprocess.run(["bpftool", "-j", "map", "dump", "name", "dtcp_sinr"],
                                         capture_output=True, text=True, check=True).stdout)
        assert bytes(int(b, 16) for b in dump[0]["value"]) == value
        script = tmp_path / "traffic.py"
        script.write_text(TRAFFIC)
        result = _transfer(namespaces, "wavecc_dtcp", script)
        assert result["bytes"] == TRANSFER_BYTES
    finally:
        assert _wavecc("kernel", "unload", "dtcp").returncode == 0
