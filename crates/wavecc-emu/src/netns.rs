//! The two network namespaces of a run and the TUN device in each, removed on every
//! exit path: `Drop` on a normal end, an error or a signal (the main loop stops and
//! unwinds); names a killed run left are removed by the next start once its pid is gone.

use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

/// Where `ip netns` keeps its names.
const NETNS_DIR: &str = "/run/netns";
const PREFIX: &str = "wavecc-";
/// The device in each namespace and the addresses of its two ends.
pub const DEVICE: &str = "wcc0";
pub const SENDER_ADDR: &str = "10.77.0.1";
pub const RECEIVER_ADDR: &str = "10.77.0.2";
/// TCP's socket memory in each namespace (min, default, max bytes; per namespace since
/// Linux 4.15, copied from the host's at creation). The host's usual send maximum, 4 MB
/// of buffer memory, caps the kernel's window near 2.7 MB in flight, below two
/// bandwidth-delay products at 1 Gb/s and 20 ms; 64 MB lets the window, not the
/// buffer, limit the flow, as in the simulator (whose buffers hold 6.5 MB of data).
const TCP_MEMORY: &str = "4096 131072 67108864";

/// The namespaces of this run, `wavecc-<pid>-snd` and `wavecc-<pid>-rcv`.
pub struct Namespaces {
    pub sender: String,
    pub receiver: String,
}

impl Namespaces {
    /// Removes stale namespaces, then creates this run's (with loopback up).
    pub fn create() -> Result<Namespaces, String> {
        remove_stale();
        let pid = std::process::id();
        let ns = Namespaces {
            sender: format!("{PREFIX}{pid}-snd"),
            receiver: format!("{PREFIX}{pid}-rcv"),
        };
        for name in [&ns.sender, &ns.receiver] {
            ip(&["netns", "add", name])?;
            ip(&["-n", name, "link", "set", "lo", "up"])?;
            for key in ["tcp_wmem", "tcp_rmem"] {
                sysctl(name, &format!("net.ipv4.{key}={TCP_MEMORY}"))?;
            }
        }
        Ok(ns)
    }

    /// Makes `cca` the congestion control of new TCP sockets in both namespaces (a
    /// per-namespace setting), for commands that do not choose their own. Linux lets a
    /// namespace other than the host's default only to an algorithm of
    /// net.ipv4.tcp_allowed_congestion_control.
    pub fn default_congestion_control(&self, cca: &str) -> Result<(), String> {
        for name in [&self.sender, &self.receiver] {
            sysctl(name, &format!("net.ipv4.tcp_congestion_control={cca}"))
                .map_err(|_| refused_default(cca))?;
        }
        Ok(())
    }

    /// Opens a TUN device in each namespace and addresses it (sender, receiver).
    pub fn tun_pair(&self) -> Result<(OwnedFd, OwnedFd), String> {
        let sender = self.tun(&self.sender, SENDER_ADDR, RECEIVER_ADDR)?;
        let receiver = self.tun(&self.receiver, RECEIVER_ADDR, SENDER_ADDR)?;
        Ok((sender, receiver))
    }

    fn tun(&self, ns: &str, local: &str, peer: &str) -> Result<OwnedFd, String> {
        let name = ns.to_string();
        let fd = std::thread::spawn(move || -> Result<OwnedFd, String> {
            enter(&name)?;
            open_tun(DEVICE)
        })
        .join()
        .map_err(|_| "the TUN thread panicked".to_string())??;
        ip(&["-n", ns, "addr", "add", local, "peer", peer, "dev", DEVICE])?;
        // A long device queue absorbs the forwarder's scheduling hiccups instead of
        // dropping there: the link's buffer is the emulated one.
        ip(&[
            "-n",
            ns,
            "link",
            "set",
            DEVICE,
            "up",
            "mtu",
            "1500",
            "txqueuelen",
            "10000",
        ])?;
        Ok(fd)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in [&self.sender, &self.receiver] {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

fn refused_default(cca: &str) -> String {
    let read = |key: &str| {
        std::fs::read_to_string(format!("/proc/sys/net/ipv4/{key}"))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let (available, allowed) = (
        read("tcp_available_congestion_control"),
        read("tcp_allowed_congestion_control"),
    );
    if !available.split_whitespace().any(|a| a == cca) {
        return format!(
            "congestion control '{cca}' is not available in this kernel (available: {available})"
        );
    }
    format!(
        "congestion control '{cca}' cannot be a namespace's default: it is not in \
         net.ipv4.tcp_allowed_congestion_control ({allowed}); add it there, or let the command \
         choose it (e.g. iperf3 -C {cca})"
    )
}

/// Moves the calling thread into namespace `name` (sockets it opens then live there).
pub fn enter(name: &str) -> Result<(), String> {
    let path = format!("{NETNS_DIR}/{name}");
    let file = File::open(&path).map_err(|e| format!("{path}: {e}"))?;
    if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(format!("setns {path}: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Removes `wavecc-<pid>-…` namespaces whose process is gone (another live run's stay).
pub fn remove_stale() {
    let Ok(entries) = std::fs::read_dir(NETNS_DIR) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if stale_pid(&name).is_some_and(|pid| !alive(pid)) {
            let _ = ip(&["netns", "del", &name]);
        }
    }
}

/// The pid in a name of ours (`wavecc-<pid>-snd|rcv`), None for any other name.
fn stale_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, role) = rest.split_once('-')?;
    matches!(role, "snd" | "rcv").then_some(())?;
    pid.parse().ok()
}

/// Whether process `pid` exists on this host (as python/wavecc/outdir.py checks).
fn alive(pid: i32) -> bool {
    if pid as u32 == std::process::id() {
        return true;
    }
    unsafe {
        libc::kill(pid, 0) == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
}

fn open_tun(device: &str) -> Result<OwnedFd, String> {
    let path = CString::new("/dev/net/tun").unwrap();
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(format!("/dev/net/tun: {}", std::io::Error::last_os_error()));
    }
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(device.bytes()) {
        *slot = byte as libc::c_char;
    }
    request.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    if unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF as _, &request) } < 0 {
        return Err(format!(
            "TUNSETIFF {device}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(fd)
}

/// Sets `key=value` in namespace `ns`.
fn sysctl(ns: &str, setting: &str) -> Result<(), String> {
    ip(&["netns", "exec", ns, "sysctl", "-q", "-w", setting])
}

/// Runs `ip ARGS`; its stderr becomes the error.
fn ip(args: &[&str]) -> Result<(), String> {
    let output = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(format!("ip {}: {}", args.join(" "), stderr.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_names_carry_a_pid() {
        assert_eq!(stale_pid("wavecc-123-snd"), Some(123));
        assert_eq!(stale_pid("wavecc-123-rcv"), Some(123));
        assert_eq!(stale_pid("wavecc-123-other"), None);
        assert_eq!(stale_pid("wavecc-x-snd"), None);
        assert_eq!(stale_pid("blue"), None);
    }

    #[test]
    fn this_process_is_alive_and_an_unused_pid_is_not() {
        assert!(alive(std::process::id() as i32));
        // Above the kernel's pid_max limit (4194304): never a live process.
        assert!(!alive(4_194_305));
    }
}
