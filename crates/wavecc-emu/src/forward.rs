//! The forwarder: one thread per direction reads packets from one namespace's TUN
//! device, asks the link model what becomes of each, and writes the survivors into
//! the other namespace's device when their delivery time comes.

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::link::{Link, Verdict};
use crate::sys::{now_ns, precise_timers, real_time, stopped, wait_readable};

/// The longest the loop sleeps, so that it sees the stop flag.
const MAX_WAIT_NS: u64 = 10_000_000;
const MAX_PACKET: usize = 65_536;
/// The most packets read before the delay line is looked at again, so that a flood
/// in cannot hold up the packets due out.
const MAX_BATCH: usize = 64;

/// What the sampler reads of one direction while it runs.
#[derive(Default)]
pub struct Stats {
    pub queue_bytes: AtomicU64,
    pub queue_packets: AtomicU64,
    pub offered: AtomicU64,
    pub delivered_bytes: AtomicU64,
    pub overflow: AtomicU64,
    pub lost: AtomicU64,
    pub max_bytes: AtomicU64,
}

/// Forwards from `input` to `output` through `link` until `until()` holds or a signal.
pub fn run(
    input: Arc<OwnedFd>,
    output: Arc<OwnedFd>,
    mut link: Link,
    stats: Arc<Stats>,
    until: impl Fn() -> bool,
) {
    precise_timers();
    // Real-time unless WAVECC_EMU_RT=0: on a busy machine it is what keeps the delay
    // error's p99 under 0.2 ms (docs/emulation.md).
    if std::env::var_os("WAVECC_EMU_RT").is_none_or(|v| v != "0") {
        real_time();
    }
    let mut line: VecDeque<(u64, Vec<u8>)> = VecDeque::new();
    let mut buffer = vec![0u8; MAX_PACKET];
    while !stopped() && !until() {
        deliver_due(&mut line, output.as_raw_fd(), &stats);
        let now = now_ns();
        let wait = line
            .front()
            .map_or(MAX_WAIT_NS, |(at, _)| at.saturating_sub(now))
            .min(MAX_WAIT_NS);
        if wait > 0 {
            wait_readable(input.as_raw_fd(), wait);
        }
        for _ in 0..MAX_BATCH {
            let Some(len) = read_packet(input.as_raw_fd(), &mut buffer) else {
                break;
            };
            if let Verdict::Deliver { at_ns } = link.offer(now_ns(), len) {
                line.push_back((at_ns, buffer[..len].to_vec()));
            }
        }
        publish(&mut link, &stats);
    }
}

fn deliver_due(line: &mut VecDeque<(u64, Vec<u8>)>, output: libc::c_int, stats: &Stats) {
    let now = now_ns();
    while line.front().is_some_and(|(at, _)| *at <= now) {
        let (_, packet) = line.pop_front().unwrap();
        // A full receiving device drops the packet, as a NIC would.
        unsafe { libc::write(output, packet.as_ptr().cast(), packet.len()) };
        stats
            .delivered_bytes
            .fetch_add(packet.len() as u64, Ordering::Relaxed);
    }
}

/// One packet from the non-blocking device; None when none is waiting.
fn read_packet(input: libc::c_int, buffer: &mut [u8]) -> Option<usize> {
    let n = unsafe { libc::read(input, buffer.as_mut_ptr().cast(), buffer.len()) };
    (n > 0).then_some(n as usize)
}

fn publish(link: &mut Link, stats: &Stats) {
    let (bytes, packets) = link.backlog(now_ns());
    stats.queue_bytes.store(bytes, Ordering::Relaxed);
    stats.queue_packets.store(packets, Ordering::Relaxed);
    stats
        .offered
        .store(link.counters.offered, Ordering::Relaxed);
    stats
        .overflow
        .store(link.counters.overflow, Ordering::Relaxed);
    stats.lost.store(link.counters.lost, Ordering::Relaxed);
    stats
        .max_bytes
        .store(link.counters.max_bytes, Ordering::Relaxed);
}

/// The two directions' forwarding threads; `stop` (or drop) ends and joins them.
pub struct Forwarders {
    done: Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
    pub forward: Arc<Stats>,
    pub reverse: Arc<Stats>,
}

impl Forwarders {
    /// Starts forwarding sender -> receiver through `forward` and back through `reverse`.
    pub fn start(
        sender: &Arc<OwnedFd>,
        receiver: &Arc<OwnedFd>,
        forward: Link,
        reverse: Link,
    ) -> Forwarders {
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (fwd_stats, rev_stats) = (Arc::new(Stats::default()), Arc::new(Stats::default()));
        let mut threads = Vec::new();
        for (input, output, link, stats) in [
            (sender.clone(), receiver.clone(), forward, fwd_stats.clone()),
            (receiver.clone(), sender.clone(), reverse, rev_stats.clone()),
        ] {
            let done = done.clone();
            threads.push(std::thread::spawn(move || {
                run(input, output, link, stats, || done.load(Ordering::Relaxed))
            }));
        }
        Forwarders {
            done,
            threads,
            forward: fwd_stats,
            reverse: rev_stats,
        }
    }
}

impl Drop for Forwarders {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}
