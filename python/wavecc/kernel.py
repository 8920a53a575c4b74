"""The papers' five algorithms as Linux eBPF congestion control (`wavecc kernel`).

The C sources ship inside the package (`wavecc/bpf`, the repository's `bpf/`); this
module compiles them with clang against the running kernel's BTF (`vmlinux.h` from
bpftool, written into the build directory), registers them as `tcp_congestion_ops`
struct_ops with bpftool, and unregisters them. Once registered, an algorithm is used
per socket: `setsockopt(IPPROTO_TCP, TCP_CONGESTION, b"wavecc_fbtcp")` (root, or any
user after it is added to `net.ipv4.tcp_allowed_congestion_control`), or
`iperf3 -C wavecc_fbtcp`.

Every failure a user can cause is a `KernelError` whose message is one line; the
verifier's or clang's log, when there is one, is in `detail`.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ALGORITHMS = ("wavecc_fbtcp", "wavecc_rttv", "wavecc_mss", "wavecc_mrvhs", "wavecc_dtcp")
APT_INSTALL = "apt-get install -y clang llvm libbpf-dev bpftool"
VMLINUX_BTF = Path("/sys/kernel/btf/vmlinux")
# Log lines kept after a verifier rejection: the end of the log names the failing
# instruction and the reason.
VERIFIER_LOG_LINES = 25


class KernelError(Exception):
    """A one-line reason, with an optional multi-line log (`detail`)."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


@dataclass(frozen=True)
class Loaded:
    """A registered algorithm: its struct_ops map id and its programs' sizes."""

    name: str
    map_id: int
    programs: int
    verified_insns: int
    xlated_insns: int


def sources_dir() -> Path:
    """The BPF C sources installed with the package."""
    path = Path(__file__).resolve().parent / "bpf"
    if not (path / "wavecc_fixed.h").is_file():
        raise KernelError(f"{path}: the BPF sources are missing from the installed package")
    return path


def default_build_dir() -> Path:
    """Where `build` and `load` put vmlinux.h and the objects by default."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "wavecc" / "bpf"


def canonical_name(name: str) -> str:
    """`fbtcp` or `wavecc_fbtcp` -> `wavecc_fbtcp`; anything else is refused."""
    full = name if name.startswith("wavecc_") else f"wavecc_{name}"
    if full not in ALGORITHMS:
        raise KernelError(f"unknown algorithm '{name}': choose one of {', '.join(ALGORITHMS)}")
    return full


def build(out: Path, names: tuple[str, ...] = ALGORITHMS) -> list[Path]:
    """Compiles `names` into `out/NAME.bpf.o` against this kernel's BTF; objects already
    up to date are kept."""
    _require_tools()
    _require_btf()
    out.mkdir(parents=True, exist_ok=True)
    _write_vmlinux_h(out / "vmlinux.h")
    return [_compile(name, out) for name in names]


def load(name: str, out: Path) -> Loaded:
    """Builds and registers one algorithm; refused if it is already registered."""
    name = canonical_name(name)
    _require_root()
    _require_tools()
    if name in _registered():
        raise KernelError(f"{name} is already loaded: `wavecc kernel unload {name}` first")
    [obj] = build(out, (name,))
    result = _run(["bpftool", "struct_ops", "register", str(obj)])
    if result.returncode != 0:
        raise _register_error(name, result.stdout + result.stderr)
    return _describe(name, _registered()[name])


def unload(name: str) -> None:
    """Unregisters one algorithm. Sockets still using it keep it until they close."""
    name = canonical_name(name)
    _require_root()
    _require_tools(("bpftool",))
    if name not in _registered():
        raise KernelError(f"{name} is not loaded (loaded: {_loaded_names()})")
    result = _run(["bpftool", "struct_ops", "unregister", "name", name])
    if result.returncode != 0:
        raise KernelError(f"bpftool could not unregister {name}: {_last_line(result.stderr)}")


def loaded() -> list[Loaded]:
    """The wavecc algorithms registered now, in ALGORITHMS order."""
    _require_root()
    _require_tools(("bpftool",))
    registered = _registered()
    return [_describe(name, registered[name]) for name in ALGORITHMS if name in registered]


def struct_ops_maps() -> list[str]:
    """Names of every registered struct_ops map, wavecc's or not (a leak check)."""
    return sorted(_struct_ops().values())


# --- checks -------------------------------------------------------------------------


def _require_root() -> None:
    if os.geteuid() != 0:
        raise KernelError(
            "loading congestion control into the kernel needs root (CAP_BPF, CAP_NET_ADMIN): "
            "run it with sudo"
        )


def _require_tools(tools: tuple[str, ...] = ("clang", "bpftool")) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        raise KernelError(f"{' and '.join(missing)} not found: install with `{APT_INSTALL}`")


def _require_btf() -> None:
    if not VMLINUX_BTF.is_file():
        raise KernelError(
            f"{VMLINUX_BTF} is missing: the kernel has no BTF (CONFIG_DEBUG_INFO_BTF), which "
            "struct_ops congestion control needs (Linux >= 5.13)"
        )


# --- building -----------------------------------------------------------------------


def _write_vmlinux_h(path: Path) -> None:
    result = _run(["bpftool", "btf", "dump", "file", str(VMLINUX_BTF), "format", "c"])
    if result.returncode != 0:
        raise KernelError(f"bpftool could not read {VMLINUX_BTF}: {_last_line(result.stderr)}")
    if "struct tcp_congestion_ops {" not in result.stdout or (
        "bpf_struct_ops_tcp_congestion_ops" not in result.stdout
    ):
        raise KernelError(
            "this kernel cannot load congestion control through struct_ops "
            "(no bpf_struct_ops_tcp_congestion_ops in its BTF; Linux >= 5.13 needed)"
        )
    if not path.is_file() or path.read_text() != result.stdout:
        path.write_text(result.stdout)


def _compile(name: str, out: Path) -> Path:
    """clang, unless the object is newer than vmlinux.h and every source (as make)."""
    source = sources_dir() / f"{name}.bpf.c"
    obj = out / f"{name}.bpf.o"
    inputs = [out / "vmlinux.h", *source.parent.iterdir()]
    if obj.is_file() and obj.stat().st_mtime >= max(p.stat().st_mtime for p in inputs):
        return obj
    command = ["clang", "-g", "-O2", "-Wall", "-target", "bpf"]
    command += ["-I", str(out), "-I", str(source.parent), "-c", str(source), "-o", str(obj)]
    result = _run(command)
    if result.returncode != 0:
        raise KernelError(f"clang could not compile {source.name}", result.stderr.strip())
    return obj


# --- registering --------------------------------------------------------------------


def _register_error(name: str, output: str) -> KernelError:
    log = re.search(r"-- BEGIN PROG LOAD LOG --\n(.*?)-- END PROG LOAD LOG --", output, re.DOTALL)
    if log:
        lines = log.group(1).strip().splitlines()
        reason = next((line for line in reversed(lines) if not line.startswith("processed ")), "")
        detail = "\n".join(lines[-VERIFIER_LOG_LINES:])
        return KernelError(f"the verifier rejected {name}: {reason.strip()}", detail)
    if "struct_ops" in output and ("not found" in output or "Invalid argument" in output):
        return KernelError(
            f"this kernel cannot register {name} as struct_ops congestion control: "
            f"{_last_line(output)}",
            output.strip(),
        )
    return KernelError(f"bpftool could not register {name}: {_last_line(output)}", output.strip())


def _struct_ops() -> dict[int, str]:
    """Registered struct_ops maps, id -> name."""
    result = _run(["bpftool", "-j", "struct_ops", "show"])
    if result.returncode != 0:
        raise KernelError(f"bpftool could not list struct_ops: {_last_line(result.stderr)}")
    return {entry["id"]: entry["name"] for entry in json.loads(result.stdout or "[]")}


def _registered() -> dict[str, int]:
    """Registered wavecc algorithms, name -> struct_ops map id."""
    return {name: map_id for map_id, name in _struct_ops().items() if name in ALGORITHMS}


def _loaded_names() -> str:
    return ", ".join(sorted(_registered())) or "none"


def _describe(name: str, map_id: int) -> Loaded:
    """The algorithm's programs: those sharing its struct_ops map's BTF object."""
    btf_id = _bpftool_json(["map", "show", "id", str(map_id)]).get("btf_id")
    programs = [
        p
        for p in _bpftool_json(["prog", "show"])
        if p.get("type") == "struct_ops" and p.get("btf_id") == btf_id
    ]
    return Loaded(
        name=name,
        map_id=map_id,
        programs=len(programs),
        verified_insns=sum(_verified_insns(p["id"]) for p in programs),
        xlated_insns=sum(p.get("bytes_xlated", 0) // 8 for p in programs),
    )


def _bpftool_json(args: list[str]):
    result = _run(["bpftool", "-j", *args])
    if result.returncode != 0:
        raise KernelError(f"bpftool {' '.join(args)} failed: {_last_line(result.stderr)}")
    return json.loads(result.stdout)


# The bpf(2) syscall, for the instruction count the verifier processed
# (bpf_prog_info.verified_insns, Linux >= 5.16), which bpftool 7.1 does not print.
_BPF_SYSCALL = {"x86_64": 321, "aarch64": 280}
_BPF_PROG_GET_FD_BY_ID = 13
_BPF_OBJ_GET_INFO_BY_FD = 15
_PROG_INFO_SIZE = 228  # struct bpf_prog_info up to verified_insns
_VERIFIED_INSNS_OFFSET = 216


def _verified_insns(prog_id: int) -> int:
    """Instructions the verifier processed for one program; 0 where unknown."""
    number = _BPF_SYSCALL.get(platform.machine())
    if number is None:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    attr = (ctypes.c_uint32 * 32)(prog_id)
    fd = libc.syscall(number, _BPF_PROG_GET_FD_BY_ID, attr, ctypes.sizeof(attr))
    if fd < 0:
        return 0
    try:
        info = ctypes.create_string_buffer(_PROG_INFO_SIZE)
        request = (ctypes.c_uint64 * 4)(0)
        request[0] = fd | (_PROG_INFO_SIZE << 32)  # bpf_fd, info_len
        request[1] = ctypes.addressof(info)
        if libc.syscall(number, _BPF_OBJ_GET_INFO_BY_FD, request, ctypes.sizeof(request)):
            return 0
        return int.from_bytes(
            info.raw[_VERIFIED_INSNS_OFFSET : _VERIFIED_INSNS_OFFSET + 4], "little"
        )
    finally:
        os.close(fd)


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"
