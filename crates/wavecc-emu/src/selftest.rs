//! `wavecc emulate --selftest`: timestamped UDP through the emulator at known rates.
//! Per case, two phases on fresh links: the rate phase offers 10% more than the
//! capacity and measures what is delivered; the delay phase offers half of it with 1%
//! random loss and compares each packet's arrival with the delivery time the link
//! model gives the same send times (so queueing and slot waits are not errors), and
//! the loss with the configured one.

use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::forward::Forwarders;
use crate::link::{Capacity, Link, LinkParams, Loss};
use crate::netns::{self, Namespaces, RECEIVER_ADDR};
use crate::sys::{now_ns, precise_timers, sleep_until, stopped};

const PORT: u16 = 5202;
/// UDP payload of a 1500-byte IP packet.
const PAYLOAD: usize = 1472;
const PACKET: u64 = 1500;
const DELAY_NS: u64 = 10_000_000;
const LOSS: f64 = 0.01;
/// Deliveries before this much of a phase are the start-up, left out of the rate.
const WARMUP_NS: u64 = 300_000_000;

pub struct Case {
    pub name: String,
    pub capacity: Capacity,
    pub mean_rate_bps: f64,
}

/// The certified cases: 100 Mb/s, 500 Mb/s and 1 Gb/s constant rates, and a trace of
/// 125 us slots averaging 500 Mb/s whose slots offer 0 to 2 times the mean.
pub fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = [100e6, 500e6, 1e9]
        .into_iter()
        .map(|bps| Case {
            name: format!("{:.0} Mb/s", bps / 1e6),
            capacity: Capacity::Rate { bps },
            mean_rate_bps: bps,
        })
        .collect();
    let mean = 7812u64; // bytes per 125 us: 499.97 Mb/s
    let bytes: Vec<u64> = [0.0, 2.0, 0.5, 1.5, 1.0, 1.0, 2.0, 0.0]
        .iter()
        .map(|f| (f * mean as f64) as u64)
        .collect();
    let rate = bytes.iter().sum::<u64>() as f64 * 8.0 / (bytes.len() as f64 * 125e-6);
    cases.push(Case {
        name: "trace, 125 us slots".into(),
        capacity: Capacity::Slots {
            slot_ns: 125_000,
            bytes,
        },
        mean_rate_bps: rate,
    });
    cases
}

pub fn run(
    ns: &Namespaces,
    tuns: &(Arc<std::os::fd::OwnedFd>, Arc<std::os::fd::OwnedFd>),
    phase_s: f64,
    emit: &mut dyn FnMut(Value),
) -> Result<(), String> {
    for case in cases() {
        let rate = phase(ns, tuns, &case, 1.1, Loss::default(), phase_s)?;
        let timing = phase(
            ns,
            tuns,
            &case,
            0.5,
            Loss {
                per_packet: LOSS,
                per_byte: 0.0,
            },
            phase_s,
        )?;
        let mut errors: Vec<f64> = timing.errors_ns.iter().map(|e| *e as f64 / 1e6).collect();
        errors.sort_by(f64::total_cmp);
        emit(json!({"case": case.name,
            "configured_rate_mbps": case.mean_rate_bps / 1e6,
            "offered_rate_mbps": rate.offered_bps / 1e6,
            "expected_rate_mbps": rate.expected_bps / 1e6,
            "delivered_rate_mbps": rate.delivered_bps / 1e6,
            "delay_error_median_ms": quantile(&errors, 0.5),
            "delay_error_p99_ms": quantile(&errors, 0.99),
            "configured_loss": LOSS,
            "measured_loss": timing.loss,
            "packets": timing.sent,
        }));
    }
    Ok(())
}

struct Phase {
    offered_bps: f64,
    /// What the link model delivers of the datagrams as they were sent.
    expected_bps: f64,
    delivered_bps: f64,
    errors_ns: Vec<i64>,
    loss: f64,
    sent: usize,
}

/// Sends at `load` times the case's mean rate for `seconds` through fresh links.
fn phase(
    ns: &Namespaces,
    tuns: &(Arc<std::os::fd::OwnedFd>, Arc<std::os::fd::OwnedFd>),
    case: &Case,
    load: f64,
    loss: Loss,
    seconds: f64,
) -> Result<Phase, String> {
    let params = LinkParams {
        capacity: case.capacity.clone(),
        delay_ns: DELAY_NS,
        // 20 ms: keeps the link busy through the sender's scheduling gaps.
        buffer_bytes: Some((case.mean_rate_bps * 0.020 / 8.0) as u64),
        loss,
    };
    let reverse = LinkParams {
        capacity: Capacity::Unlimited,
        delay_ns: DELAY_NS,
        buffer_bytes: None,
        loss: Loss::default(),
    };
    let links = Forwarders::start(
        &tuns.0,
        &tuns.1,
        Link::new(params.clone(), 1),
        Link::new(reverse, 2),
    );
    let done = Arc::new(AtomicBool::new(false));
    let receiver = spawn_receiver(&ns.receiver, done.clone())?;
    let sends = send(&ns.sender, case.mean_rate_bps * load, seconds)?;
    std::thread::sleep(Duration::from_nanos(DELAY_NS * 3 + 100_000_000));
    done.store(true, Ordering::Relaxed);
    let arrivals = receiver
        .join()
        .map_err(|_| "the receiver panicked".to_string())?;
    drop(links);
    if stopped() {
        return Err("stopped by a signal".into());
    }
    let expected = expected_deliveries(
        &sends,
        LinkParams {
            loss: Loss::default(),
            ..params
        },
    );
    let mut accepted: Vec<u64> = expected
        .iter()
        .copied()
        .filter(|at| *at != REFUSED)
        .collect();
    accepted.sort_unstable();
    let errors_ns = arrivals
        .iter()
        .filter_map(|&(seq, at)| {
            expected
                .get(seq as usize)
                .filter(|e| **e != REFUSED)
                .map(|e| at as i64 - *e as i64)
        })
        .collect();
    Ok(Phase {
        offered_bps: rate_bps(&sends, 0),
        expected_bps: rate_bps(&accepted, WARMUP_NS),
        delivered_bps: rate_bps(&arrivals.iter().map(|a| a.1).collect::<Vec<_>>(), WARMUP_NS),
        errors_ns,
        loss: 1.0 - arrivals.len() as f64 / sends.len().max(1) as f64,
        sent: sends.len(),
    })
}

/// The delivery time of a packet the model refuses: its arrival is not compared.
const REFUSED: u64 = u64::MAX;

/// When the link model would deliver packets sent at `sends` (no random loss).
fn expected_deliveries(sends: &[u64], params: LinkParams) -> Vec<u64> {
    let mut model = Link::new(params, 0);
    sends
        .iter()
        .map(|&t| match model.offer(t, PACKET as usize) {
            crate::link::Verdict::Deliver { at_ns } => at_ns,
            _ => REFUSED,
        })
        .collect()
}

/// IP bit rate of 1500-byte packets at `times` (sorted), after `warmup_ns`.
fn rate_bps(times: &[u64], warmup_ns: u64) -> f64 {
    let Some(&first) = times.first() else {
        return 0.0;
    };
    let kept: Vec<u64> = times
        .iter()
        .copied()
        .filter(|t| *t >= first + warmup_ns)
        .collect();
    match (kept.first(), kept.last()) {
        (Some(a), Some(b)) if b > a => {
            (kept.len() - 1) as f64 * PACKET as f64 * 8.0 / ((b - a) as f64 / 1e9)
        }
        _ => 0.0,
    }
}

fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    (!sorted.is_empty()).then(|| sorted[((sorted.len() - 1) as f64 * q).round() as usize])
}

/// Sends numbered, timestamped datagrams at `rate_bps`; returns each one's send time.
/// Above 100 Mb/s they leave in bursts of one per 100 Mb/s (at most 16), one system
/// call each (UDP GSO: the kernel cuts them into datagrams before the device), so that
/// the sender is not what limits the rate; a burst is sent when its first one is due.
fn send(ns: &str, rate_bps: f64, seconds: f64) -> Result<Vec<u64>, String> {
    let ns = ns.to_string();
    std::thread::spawn(move || -> Result<Vec<u64>, String> {
        netns::enter(&ns)?;
        precise_timers();
        let socket = UdpSocket::bind("0.0.0.0:0").map_err(|e| e.to_string())?;
        socket
            .connect((RECEIVER_ADDR, PORT))
            .map_err(|e| e.to_string())?;
        let segment = PAYLOAD as libc::c_int;
        unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_UDP,
                UDP_SEGMENT,
                (&segment as *const libc::c_int).cast(),
                4,
            )
        };
        let burst = ((rate_bps / 100e6) as u64).clamp(1, 16);
        let gap_ns = PACKET as f64 * 8.0 / rate_bps * 1e9;
        let count = (seconds * 1e9 / gap_ns) as u64 / burst * burst;
        let mut sends = Vec::with_capacity(count as usize);
        let mut payload = vec![0u8; PAYLOAD * burst as usize];
        let start = now_ns();
        for first in (0..count).step_by(burst as usize) {
            if stopped() {
                break;
            }
            sleep_until(start + (first as f64 * gap_ns) as u64);
            let at = now_ns();
            for (k, datagram) in payload.chunks_mut(PAYLOAD).enumerate() {
                datagram[..8].copy_from_slice(&(first + k as u64).to_le_bytes());
            }
            // A full device queue refuses the burst: it counts as sent and lost.
            let _ = socket.send(&payload);
            sends.extend(std::iter::repeat_n(at, burst as usize));
        }
        Ok(sends)
    })
    .join()
    .map_err(|_| "the sender panicked".to_string())?
}

/// Linux's UDP_SEGMENT socket option (UDP GSO; not in libc for this target).
const UDP_SEGMENT: libc::c_int = 103;

/// Receives until `done`; returns (sequence number, arrival time) per datagram.
fn spawn_receiver(
    ns: &str,
    done: Arc<AtomicBool>,
) -> Result<std::thread::JoinHandle<Vec<(u64, u64)>>, String> {
    let (ready, bound) = std::sync::mpsc::channel();
    let ns = ns.to_string();
    let thread = std::thread::spawn(move || {
        let socket = netns::enter(&ns)
            .and_then(|_| UdpSocket::bind((RECEIVER_ADDR, PORT)).map_err(|e| e.to_string()));
        let socket = match socket {
            Ok(s) => {
                let _ = ready.send(Ok(()));
                s
            }
            Err(e) => {
                let _ = ready.send(Err(e));
                return Vec::new();
            }
        };
        let size: libc::c_int = 32 << 20;
        unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVBUFFORCE,
                (&size as *const libc::c_int).cast(),
                4,
            )
        };
        let on: libc::c_int = 1;
        unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_TIMESTAMPNS,
                (&on as *const libc::c_int).cast(),
                4,
            )
        };
        let _ = socket.set_read_timeout(Some(Duration::from_millis(20)));
        let realtime_offset = realtime_ns() as i64 - now_ns() as i64;
        let mut arrivals = Vec::new();
        let mut payload = [0u8; PAYLOAD];
        while !done.load(Ordering::Relaxed) {
            if let Some((n, at)) = receive(&socket, &mut payload)
                && n >= 8
            {
                let at = at.map_or_else(now_ns, |realtime| {
                    (realtime as i64 - realtime_offset) as u64
                });
                arrivals.push((u64::from_le_bytes(payload[..8].try_into().unwrap()), at));
            }
        }
        arrivals
    });
    bound
        .recv()
        .map_err(|_| "the receiver died".to_string())??;
    Ok(thread)
}

/// One datagram and the kernel's receive time (CLOCK_REALTIME, SO_TIMESTAMPNS): when
/// the emulator handed the packet over, not when this thread woke up to read it.
fn receive(socket: &UdpSocket, payload: &mut [u8]) -> Option<(usize, Option<u64>)> {
    let mut iov = libc::iovec {
        iov_base: payload.as_mut_ptr().cast(),
        iov_len: payload.len(),
    };
    let mut control = [0u64; 16];
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = std::mem::size_of_val(&control) as _;
    let n = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut message, 0) };
    if n < 0 {
        return None;
    }
    let mut at = None;
    let mut header = unsafe { libc::CMSG_FIRSTHDR(&message) };
    while !header.is_null() {
        let h = unsafe { &*header };
        if h.cmsg_level == libc::SOL_SOCKET && h.cmsg_type == libc::SCM_TIMESTAMPNS {
            let ts: libc::timespec =
                unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(header).cast()) };
            at = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
        }
        header = unsafe { libc::CMSG_NXTHDR(&message, header) };
    }
    Some((n as usize, at))
}

fn realtime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_case_averages_500_mbps_with_uneven_slots() {
        let trace = cases().pop().unwrap();
        assert!((trace.mean_rate_bps - 500e6).abs() < 0.001 * 500e6);
        let Capacity::Slots { slot_ns, bytes } = trace.capacity else {
            panic!("not slots")
        };
        assert_eq!(slot_ns, 125_000);
        assert!(bytes.contains(&0) && bytes.iter().max() > Some(&15_000));
    }

    #[test]
    fn the_rate_counts_packets_after_the_warmup() {
        // 11 packets 120 us apart: 10 gaps of 1500 bytes = 100 Mb/s.
        let times: Vec<u64> = (0..11).map(|i| 1_000 + i * 120_000).collect();
        assert!((rate_bps(&times, 0) - 100e6).abs() < 1.0);
        assert!((rate_bps(&times, 600_000) - 100e6).abs() < 1.0);
        assert_eq!(rate_bps(&times[..1], 0), 0.0);
    }

    #[test]
    fn expected_deliveries_include_queueing() {
        let params = LinkParams {
            capacity: Capacity::Rate { bps: 12e6 },
            delay_ns: 0,
            buffer_bytes: None,
            loss: Loss::default(),
        };
        assert_eq!(
            expected_deliveries(&[0, 0, 5_000_000], params),
            vec![1_000_000, 2_000_000, 6_000_000]
        );
    }
}
