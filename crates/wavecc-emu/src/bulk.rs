//! A TCP flow with the kernel's congestion control across the emulated link: a
//! receiver in the receiver namespace, a sender in the sender namespace that sets
//! TCP_CONGESTION and writes as the flow's application does (always, or at a rate),
//! and a sampler that reads TCP_INFO and the link every interval.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::forward::{Forwarders, Stats};
use crate::netns::{self, Namespaces, RECEIVER_ADDR};
use crate::sys::{now_ns, sleep_until, stopped};

const PORT: u16 = 5201;
/// Linux's "no ssthresh yet" (TCP_INFINITE_SSTHRESH).
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
const CA_STATES: [&str; 5] = ["open", "disorder", "cwr", "recovery", "loss"];

pub struct Flow {
    pub cca: String,
    pub duration_s: f64,
    pub interval_s: f64,
    /// None: a bulk application, which keeps the send buffer full.
    pub rate: Option<Rate>,
}

/// An application that writes `write_bytes` every `write_bytes` x 8 / `bps` seconds,
/// as the simulator's `app = "rate"`: a write that finds the send buffer full is lost.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub bps: f64,
    pub write_bytes: u64,
}

/// How often the paced writer wakes: it writes what fell due since in one system call
/// (1 ms of a 1 Gb/s application is 125 kB, well under a 20 ms RTT's worth).
const WRITE_TICK_NS: u64 = 1_000_000;

/// Runs the flow, printing one JSON line per sample and a last one with the summary.
pub fn run(
    ns: &Namespaces,
    links: &Forwarders,
    flow: &Flow,
    emit: &mut dyn FnMut(Value),
) -> Result<(), String> {
    let received = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let receiver = spawn_receiver(&ns.receiver, received.clone(), done.clone())?;
    let socket = connect(&ns.sender, &flow.cca)?;
    let writer = socket.try_clone().map_err(|e| e.to_string())?;
    let sender = match flow.rate {
        None => spawn_sender(writer, done.clone()),
        Some(rate) => spawn_paced_sender(writer, rate, done.clone()),
    };
    // On a signal the threads are not joined: one may be blocked on a link that no
    // longer forwards, and leaving at once lets the namespaces go; exit ends them.
    sample(&socket, &received, links, flow, emit)?;
    done.store(true, Ordering::Relaxed);
    let info = tcp_info(&socket);
    unsafe { libc::shutdown(socket.as_raw_fd(), libc::SHUT_RDWR) };
    let _ = sender.join();
    let _ = receiver.join();
    let recoveries = netstat_in(&ns.sender, &["TCPSackRecovery", "TCPRenoRecovery"]);
    emit(json!({"summary": {
        "bytes_delivered": received.load(Ordering::Relaxed),
        "segments_sent": info.tcpi_data_segs_out,
        "retransmitted_segments": info.tcpi_total_retrans,
        "rto_events": info.tcpi_total_rto,
        "fast_recovery_episodes": recoveries,
        "spurious_retransmissions": info.tcpi_dsack_dups,
        "forward": counters(&links.forward),
        "reverse": counters(&links.reverse),
    }}));
    Ok(())
}

fn sample(
    socket: &TcpStream,
    received: &AtomicU64,
    links: &Forwarders,
    flow: &Flow,
    emit: &mut dyn FnMut(Value),
) -> Result<(), String> {
    let interval_ns = (flow.interval_s * 1e9) as u64;
    let samples = (flow.duration_s / flow.interval_s).round() as u64;
    let start = now_ns();
    let (mut last_bytes, mut last_retrans) = (0, 0);
    for k in 1..=samples {
        sleep_until(start + k * interval_ns);
        if stopped() {
            return Err("stopped by a signal".into());
        }
        let bytes = received.load(Ordering::Relaxed);
        let info = tcp_info(socket);
        emit(json!({"sample": {
            "t_s": k as f64 * flow.interval_s,
            "goodput_mbps": (bytes - last_bytes) as f64 * 8.0 / flow.interval_s / 1e6,
            "tcp": tcp_sample(&info, info.tcpi_total_retrans - last_retrans),
            "forward": counters(&links.forward),
            "reverse": counters(&links.reverse),
        }}));
        (last_bytes, last_retrans) = (bytes, info.tcpi_total_retrans);
    }
    Ok(())
}

/// The flow's state in the simulator's terms (`flows.parquet` columns).
fn tcp_sample(info: &libc::tcp_info, retransmits: u32) -> Value {
    let in_flight =
        (info.tcpi_unacked + info.tcpi_retrans).saturating_sub(info.tcpi_sacked + info.tcpi_lost);
    json!({
        "cwnd_segments": info.tcpi_snd_cwnd,
        "ssthresh_segments": (info.tcpi_snd_ssthresh < INFINITE_SSTHRESH).then_some(info.tcpi_snd_ssthresh),
        "inflight_bytes": in_flight as u64 * info.tcpi_snd_mss as u64,
        "srtt_ms": info.tcpi_rtt as f64 / 1e3,
        "min_rtt_ms": (info.tcpi_min_rtt != u32::MAX).then(|| info.tcpi_min_rtt as f64 / 1e3),
        "pacing_rate_mbps": (info.tcpi_pacing_rate != u64::MAX).then(|| info.tcpi_pacing_rate as f64 * 8.0 / 1e6),
        "ca_state": CA_STATES.get(info.tcpi_ca_state as usize).copied().unwrap_or("open"),
        "retransmits": retransmits,
        "mss_bytes": info.tcpi_snd_mss,
    })
}

/// Both directions' counters, as the samples report them.
pub fn link_counters(links: &Forwarders) -> Value {
    json!({"forward": counters(&links.forward), "reverse": counters(&links.reverse)})
}

fn counters(stats: &Stats) -> Value {
    json!({
        "queue_bytes": stats.queue_bytes.load(Ordering::Relaxed),
        "queue_packets": stats.queue_packets.load(Ordering::Relaxed),
        "offered": stats.offered.load(Ordering::Relaxed),
        "delivered_bytes": stats.delivered_bytes.load(Ordering::Relaxed),
        "overflow": stats.overflow.load(Ordering::Relaxed),
        "lost": stats.lost.load(Ordering::Relaxed),
        "max_bytes": stats.max_bytes.load(Ordering::Relaxed),
    })
}

fn spawn_receiver(
    ns: &str,
    received: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
) -> Result<std::thread::JoinHandle<()>, String> {
    let (ready, listening) = std::sync::mpsc::channel();
    let ns = ns.to_string();
    let thread = std::thread::spawn(move || {
        let listener = netns::enter(&ns).and_then(|_| {
            TcpListener::bind((RECEIVER_ADDR, PORT)).map_err(|e| format!("listen: {e}"))
        });
        let listener = match listener {
            Ok(l) => {
                let _ = ready.send(Ok(()));
                l
            }
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        };
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        // Wakes up now and then to see whether the run is over (a FIN may be lost).
        let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
        let mut buffer = vec![0u8; 1 << 18];
        while !done.load(Ordering::Relaxed) {
            match stream.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    received.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => break,
            }
        }
    });
    listening
        .recv()
        .map_err(|_| "the receiver thread died".to_string())??;
    Ok(thread)
}

/// A TCP socket in the sender namespace with congestion control `cca`, connected.
fn connect(ns: &str, cca: &str) -> Result<TcpStream, String> {
    let (ns, cca) = (ns.to_string(), cca.to_string());
    let (result, connected) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = result.send(connect_in(&ns, &cca));
    });
    // Waited for in steps, so that a signal is not held up by a connect in progress.
    loop {
        match connected.recv_timeout(Duration::from_millis(50)) {
            Ok(stream) => return stream,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !stopped() => {}
            Err(_) => return Err("stopped by a signal".into()),
        }
    }
}

/// Runs in its own thread: it moves into the sender namespace.
fn connect_in(ns: &str, cca: &str) -> Result<TcpStream, String> {
    netns::enter(ns)?;
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(format!("socket: {}", std::io::Error::last_os_error()));
    }
    let stream = unsafe { TcpStream::from_raw_fd(fd) };
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cca.as_ptr().cast(),
            cca.len() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(format!(
            "congestion control '{cca}' is not available in this kernel (net.ipv4.tcp_available_congestion_control): {}",
            std::io::Error::last_os_error()
        ));
    }
    let ip: std::net::Ipv4Addr = RECEIVER_ADDR.parse().expect("a literal address");
    let address = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: PORT.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(ip).to_be(),
        },
        sin_zero: [0; 8],
    };
    let size = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    if unsafe { libc::connect(fd, (&address as *const libc::sockaddr_in).cast(), size) } != 0 {
        return Err(format!(
            "connect {RECEIVER_ADDR}:{PORT}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(stream)
}

fn spawn_sender(mut stream: TcpStream, done: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let chunk = vec![0u8; 1 << 20];
        while !done.load(Ordering::Relaxed) && !stopped() {
            if stream.write_all(&chunk).is_err() {
                break;
            }
        }
    })
}

fn spawn_paced_sender(
    stream: TcpStream,
    rate: Rate,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let chunk = vec![0u8; 1 << 20];
        let start = now_ns();
        let mut written = 0u64;
        let mut tick = 0;
        while !done.load(Ordering::Relaxed) && !stopped() {
            let due = bytes_due(rate, now_ns() - start);
            // What the buffer cannot take now is lost, as the application's writes are.
            let mut owed = due - written;
            while owed > 0 {
                let n = owed.min(chunk.len() as u64) as usize;
                let sent = unsafe {
                    libc::send(
                        stream.as_raw_fd(),
                        chunk.as_ptr().cast(),
                        n,
                        libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                    )
                };
                if sent <= 0 {
                    break;
                }
                owed -= sent as u64;
            }
            written = due;
            tick += 1;
            sleep_until(start + tick * WRITE_TICK_NS);
        }
    })
}

/// Bytes the application has written `elapsed_ns` after its start: one write at the
/// start and one every interval after it.
fn bytes_due(rate: Rate, elapsed_ns: u64) -> u64 {
    let interval_ns = rate.write_bytes as f64 * 8.0 * 1e9 / rate.bps;
    ((elapsed_ns as f64 / interval_ns).floor() as u64 + 1) * rate.write_bytes
}

fn tcp_info(socket: &TcpStream) -> libc::tcp_info {
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    info
}

/// The sum of TcpExt counters `names` in namespace `ns` (0 where unknown).
fn netstat_in(ns: &str, names: &[&str]) -> u64 {
    let (ns, names): (String, Vec<String>) = (
        ns.to_string(),
        names.iter().map(|s| s.to_string()).collect(),
    );
    std::thread::spawn(move || {
        netns::enter(&ns).ok()?;
        let text = std::fs::read_to_string("/proc/thread-self/net/netstat").ok()?;
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("TcpExt:")).collect();
        let (keys, values) = (lines.first()?, lines.get(1)?);
        let sum = keys
            .split_whitespace()
            .zip(values.split_whitespace())
            .filter(|(k, _)| names.iter().any(|n| n == k))
            .filter_map(|(_, v)| v.parse::<u64>().ok())
            .sum();
        Some(sum)
    })
    .join()
    .ok()
    .flatten()
    .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_application_writes_once_at_the_start_and_then_on_its_clock() {
        // 1400 bytes at 1 Gb/s: a write every 11.2 us.
        let rate = Rate {
            bps: 1e9,
            write_bytes: 1400,
        };
        assert_eq!(bytes_due(rate, 0), 1400);
        assert_eq!(bytes_due(rate, 11_199), 1400);
        assert_eq!(bytes_due(rate, 11_200), 2800);
        assert_eq!(bytes_due(rate, 1_000_000_000), (89_285 + 1) * 1400);
    }
}
