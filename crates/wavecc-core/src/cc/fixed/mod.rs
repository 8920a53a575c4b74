//! Fixed-point twins: the kernel programs' arithmetic (`bpf/`, docs/kernel.md) run in
//! the simulator, chosen by `fixed_point = true` in a source paper's algorithm's `flows[].cc`.
//!
//! Each program is written here as the C is: [`KernelProgram`] has the
//! `tcp_congestion_ops` hooks, [`TcpSock`] the `tcp_sock` fields they read and write
//! in the kernel's units (whole segments, microseconds, `u32` sequence numbers), and
//! the per-algorithm modules hold the C logic headers' integer code. [`Twin`] is the
//! glue between the simulator's [`Socket`] and those hooks: it converts the socket to
//! what the kernel would hold, calls the hook the socket's call stands for, and writes
//! the integer window back. With [`record_hooks`] every call is kept
//! ([`HookRecord`]), so that the C programs, compiled natively
//! (`tests/bpf_harness/`), can replay the same inputs and be compared step by step.
//!
//! Inputs Linux has that the simulator derives (the only conversions here):
//! - `snd_cwnd`, `prior_cwnd`: the socket's window floored to whole segments;
//!   `snd_ssthresh`: floored, the kernel's `0x7fffffff` for the infinite ssthresh;
//! - `rtt_us`: the RTT sample's nanoseconds truncated to microseconds, -1 without one;
//! - `srtt_us`: the smoothed RTT in microseconds << 3, truncated as the kernel keeps it;
//! - `tcp_mstamp`: the simulator's clock truncated to microseconds;
//! - `snd_nxt`, `delivered`: the byte and segment counters truncated to `u32` (they
//!   wrap as the kernel's do, from an initial sequence number of 0);
//! - D-TCP's `dtcp_sinr` map: the link's SINR hint in milli-dB (rounded), absent
//!   (`valid = 0`) where the scenario gives none.

mod arith;
mod dtcp;
mod fbtcp;
mod record;
mod rtt_variation;

pub use record::{HookRecord, record_hooks};

use super::{CaState, CongestionControl, CwndEvent, RateSample, Socket};

/// Linux `enum tcp_ca_state`.
pub const TCP_CA_OPEN: u8 = 0;
pub const TCP_CA_DISORDER: u8 = 1;
pub const TCP_CA_RECOVERY: u8 = 3;
pub const TCP_CA_LOSS: u8 = 4;
/// Linux `enum tcp_ca_event`.
pub const CA_EVENT_TX_START: u8 = 0;
pub const CA_EVENT_COMPLETE_CWR: u8 = 2;
pub const CA_EVENT_LOSS: u8 = 3;

/// D-TCP's `dtcp_sinr` map entry (`struct dtcp_sinr_hint`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinrHint {
    pub sinr_mdb: i32,
    /// 0: no hint.
    pub valid: u32,
}

/// The `tcp_sock` fields the programs read, as the kernel holds them; `snd_cwnd` and
/// `snd_ssthresh` are also what they write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpSock {
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd_clamp: u32,
    pub is_cwnd_limited: bool,
    pub max_packets_out: u32,
    pub mss_cache: u32,
    pub snd_nxt: u32,
    pub delivered: u32,
    /// Smoothed RTT, microseconds << 3.
    pub srtt_us: u32,
    /// Time of the ACK being processed, microseconds.
    pub tcp_mstamp: u64,
    pub ca_state: u8,
    pub prior_cwnd: u32,
    /// D-TCP's SINR map entry (the host's radio).
    pub sinr: SinrHint,
}

impl TcpSock {
    /// What the kernel would hold for the simulator's socket (see the module doc).
    pub fn from_socket(sock: &Socket) -> Self {
        Self {
            snd_cwnd: segments(sock.cwnd),
            snd_ssthresh: segments(sock.ssthresh).min(arith::INFINITE_SSTHRESH),
            snd_cwnd_clamp: u32::MAX,
            is_cwnd_limited: sock.is_cwnd_limited,
            max_packets_out: 0,
            mss_cache: sock.mss,
            snd_nxt: sock.snd_nxt as u32,
            delivered: sock.delivered as u32,
            srtt_us: (sock.srtt_s * 8e6) as u32,
            tcp_mstamp: sock.now / 1000,
            ca_state: ca_state_code(sock.ca_state),
            prior_cwnd: segments(sock.prior_cwnd),
            sinr: sock
                .link
                .sinr_db
                .map_or(SinrHint::default(), |db| SinrHint {
                    sinr_mdb: (db * 1e3).round() as i32,
                    valid: 1,
                }),
        }
    }

    /// Hands the window back to the simulator's socket.
    fn write_window(&self, sock: &mut Socket) {
        sock.cwnd = f64::from(self.snd_cwnd);
        sock.ssthresh = ssthresh_value(self.snd_ssthresh);
    }
}

/// A window in whole segments, as `snd_cwnd` (the float saturates: infinity is `u32::MAX`).
fn segments(x: f64) -> u32 {
    x as u32
}

/// The simulator's ssthresh for a kernel one: the kernel's "infinite" is infinity.
fn ssthresh_value(ssthresh: u32) -> f64 {
    if ssthresh >= arith::INFINITE_SSTHRESH {
        f64::INFINITY
    } else {
        f64::from(ssthresh)
    }
}

fn ca_state_code(state: CaState) -> u8 {
    match state {
        CaState::Open => TCP_CA_OPEN,
        CaState::Disorder => TCP_CA_DISORDER,
        CaState::Recovery => TCP_CA_RECOVERY,
        CaState::Loss => TCP_CA_LOSS,
    }
}

fn event_code(event: CwndEvent) -> u8 {
    match event {
        CwndEvent::TxStart => CA_EVENT_TX_START,
        CwndEvent::Loss => CA_EVENT_LOSS,
        CwndEvent::CompleteRecovery => CA_EVENT_COMPLETE_CWR,
    }
}

/// The kernel's RTT sample (`ack_sample.rtt_us`): microseconds, -1 for none.
fn rtt_us(rtt_s: Option<f64>) -> i32 {
    rtt_s.map_or(-1, |s| {
        ((s * 1e9).round() as u64 / 1000).min(i32::MAX as u64) as i32
    })
}

/// One call of a `tcp_congestion_ops` hook, with its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    Init,
    PktsAcked { rtt_us: i32 },
    CongAvoid { ack: u32, acked: u32 },
    Ssthresh,
    SetState(u8),
    CwndEvent(u8),
    UndoCwnd,
}

/// A kernel congestion control: the C program's hooks on its private state. Hooks
/// that write the window do it in `tp`, as the C's `wavecc_store_window`.
pub trait KernelProgram: Send {
    fn init(&mut self, tp: &mut TcpSock);
    fn pkts_acked(&mut self, tp: &TcpSock, rtt_us: i32);
    /// Called by the socket on cwnd-limited ACKs; the program checks it again, as the C
    /// must (`wavecc_cwnd_limited`).
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, acked: u32);
    fn ssthresh(&mut self, tp: &TcpSock) -> u32;
    fn set_state(&mut self, _tp: &mut TcpSock, _new_state: u8) {}
    fn cwnd_event(&mut self, _tp: &mut TcpSock, _event: u8) {}
    /// The window `set_state(TCP_CA_Loss)` leaves, given the kernel's.
    fn loss_window(&self, kernel_cwnd: u32) -> u32 {
        kernel_cwnd
    }
    /// `tcp_reno_undo_cwnd`, the kfunc all five call.
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        tp.snd_cwnd.max(tp.prior_cwnd)
    }
    /// Internal variables for the traces.
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// The private state (the C's state struct in `icsk_ca_priv`), field by field in
    /// declaration order, signed fields as two's complement: what the harness prints.
    fn private_state(&self) -> Vec<u64>;
}

/// Runs one hook on `tp` and returns its result (ssthresh, undo) or 0.
fn call(program: &mut dyn KernelProgram, tp: &mut TcpSock, hook: Hook) -> u32 {
    match hook {
        Hook::Init => program.init(tp),
        Hook::PktsAcked { rtt_us } => program.pkts_acked(tp, rtt_us),
        Hook::CongAvoid { ack, acked } => program.cong_avoid(tp, ack, acked),
        Hook::Ssthresh => return program.ssthresh(tp),
        Hook::SetState(state) => program.set_state(tp, state),
        Hook::CwndEvent(event) => program.cwnd_event(tp, event),
        Hook::UndoCwnd => return program.undo_cwnd(tp),
    }
    0
}

/// A kernel program driven by the simulator's socket: the `fixed_point = true` form of
/// an algorithm.
pub struct Twin<P> {
    name: &'static str,
    program: P,
}

impl<P: KernelProgram> Twin<P> {
    pub fn new(name: &'static str, program: P) -> Self {
        Self { name, program }
    }

    /// Calls `hook` on the kernel's view of `sock`, records it when recording, and
    /// returns the kernel's socket after it with the hook's result.
    fn run(&mut self, sock: &Socket, hook: Hook) -> (TcpSock, u32) {
        let before = TcpSock::from_socket(sock);
        let mut tp = before;
        let ret = call(&mut self.program, &mut tp, hook);
        let program = &self.program;
        record::push(|| HookRecord {
            hook,
            before,
            cwnd: tp.snd_cwnd,
            ssthresh: tp.snd_ssthresh,
            ret,
            state: program.private_state(),
        });
        (tp, ret)
    }

    /// A hook that may write the window: the socket gets the kernel's window.
    fn run_writing(&mut self, sock: &mut Socket, hook: Hook) {
        self.run(sock, hook).0.write_window(sock);
    }
}

impl<P: KernelProgram> CongestionControl for Twin<P> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn init(&mut self, sock: &mut Socket) {
        self.run_writing(sock, Hook::Init);
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        ssthresh_value(self.run(sock, Hook::Ssthresh).1)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let ack = sock.snd_una as u32;
        self.run_writing(sock, Hook::CongAvoid { ack, acked });
    }

    /// Linux calls `pkts_acked` on every ACK while data is outstanding, as the
    /// simulator calls `on_ack`.
    fn on_ack(&mut self, sock: &mut Socket, rs: &RateSample) {
        self.run(
            sock,
            Hook::PktsAcked {
                rtt_us: rtt_us(rs.rtt_s),
            },
        );
    }

    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        self.run_writing(sock, Hook::SetState(ca_state_code(new)));
    }

    fn cwnd_event(&mut self, sock: &mut Socket, event: CwndEvent) {
        self.run_writing(sock, Hook::CwndEvent(event_code(event)));
    }

    /// The kernel restarts from the segments in flight + 1 and `set_state(Loss)` may
    /// raise it; the simulator's socket restarts from one segment, so the program's
    /// rule is applied to one segment. Linux calls `set_state(Loss)` on every timeout,
    /// the simulator only when the state changes: taking the rule here keeps it for a
    /// timeout in the Loss state too.
    fn loss_window(&self, _sock: &Socket) -> f64 {
        f64::from(self.program.loss_window(1))
    }

    fn undo_cwnd(&mut self, sock: &Socket) -> f64 {
        f64::from(self.run(sock, Hook::UndoCwnd).1)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.program.state(out);
    }
}

/// `set_state` of a program whose window on entering Loss is its own `loss_window`:
/// the C's `wavecc_store_window` of it (D-TCP, and RTTV, MSS-CCA and MRVHS).
fn enter_loss<P: KernelProgram + ?Sized>(program: &P, tp: &mut TcpSock, new_state: u8) {
    if new_state != TCP_CA_LOSS {
        return;
    }
    let mut w = load_window(tp);
    w.cwnd = program.loss_window(w.cwnd);
    store_window(tp, w);
}

/// The kernel glue's window load (`wavecc_load_window`): cwnd clamped to
/// [`arith::MAX_WINDOW`].
fn load_window(tp: &TcpSock) -> arith::Window {
    arith::Window {
        cwnd: tp.snd_cwnd.min(arith::MAX_WINDOW),
        ssthresh: tp.snd_ssthresh,
    }
}

/// `wavecc_store_window`: cwnd within `[1, snd_cwnd_clamp]`.
fn store_window(tp: &mut TcpSock, w: arith::Window) {
    tp.snd_cwnd = w.cwnd.min(tp.snd_cwnd_clamp).max(1);
    tp.snd_ssthresh = w.ssthresh;
}

/// Linux `tcp_is_cwnd_limited` (`wavecc_cwnd_limited`).
fn cwnd_limited(tp: &TcpSock) -> bool {
    if tp.is_cwnd_limited {
        return true;
    }
    tp.snd_cwnd < tp.snd_ssthresh && tp.snd_cwnd < 2 * tp.max_packets_out
}

/// Whether `params` ask for the kernel program: `fixed_point = true`. The programs
/// have the simulator's defaults compiled in, so every other key is refused.
pub fn requested(params: &serde_json::Value) -> Result<bool, String> {
    let Some(table) = params.as_object() else {
        return Ok(false);
    };
    if table.get("fixed_point") != Some(&serde_json::Value::Bool(true)) {
        return Ok(false);
    }
    match table.keys().find(|k| *k != "fixed_point") {
        Some(key) => Err(format!(
            "{key}: fixed_point = true runs the kernel program, which has only the default \
             parameters; remove {key} or fixed_point"
        )),
        None => Ok(true),
    }
}

/// The fixed-point twin of the source papers' algorithm `name`.
pub fn build(name: &str) -> Box<dyn CongestionControl> {
    match name {
        "fbtcp" => Box::new(Twin::new("fbtcp", fbtcp::FbTcp::default())),
        "rttv" => Box::new(Twin::new(
            "rttv",
            rtt_variation::RttVariation::new(rtt_variation::RTTV),
        )),
        "mss" => Box::new(Twin::new(
            "mss",
            rtt_variation::RttVariation::new(rtt_variation::MSS),
        )),
        "mrvhs" => Box::new(Twin::new(
            "mrvhs",
            rtt_variation::RttVariation::new(rtt_variation::MRVHS),
        )),
        "dtcp" => Box::new(Twin::new("dtcp", dtcp::DTcp::default())),
        _ => unreachable!("no kernel program for {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_socket_becomes_the_kernels_integers() {
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        s.cwnd = 17.9;
        s.prior_cwnd = 30.0;
        s.now = 1_234_567_891; // ns
        s.srtt_s = 0.020_000_1;
        s.snd_nxt = (1 << 32) + 5; // wraps as a u32 sequence number
        s.delivered = 77;
        s.link.sinr_db = Some(12.3456);
        let tp = TcpSock::from_socket(&s);
        assert_eq!(
            (tp.snd_cwnd, tp.snd_ssthresh, tp.prior_cwnd),
            (17, 0x7fff_ffff, 30)
        );
        assert_eq!(
            (tp.tcp_mstamp, tp.srtt_us, tp.snd_nxt, tp.delivered),
            (1_234_567, 160_000, 5, 77)
        );
        assert_eq!(
            tp.sinr,
            SinrHint {
                sinr_mdb: 12_346,
                valid: 1
            }
        );
        s.link.sinr_db = None;
        assert_eq!(TcpSock::from_socket(&s).sinr, SinrHint::default());
        s.ssthresh = 42.0;
        assert_eq!(TcpSock::from_socket(&s).snd_ssthresh, 42);
    }

    #[test]
    fn rtt_samples_are_truncated_microseconds() {
        assert_eq!(rtt_us(None), -1);
        assert_eq!(rtt_us(Some(0.1)), 100_000);
        assert_eq!(rtt_us(Some(0.000_123_999)), 123);
        assert_eq!(rtt_us(Some(0.020_000_999)), 20_000);
    }

    #[test]
    fn the_kernels_infinite_ssthresh_is_infinity() {
        assert_eq!(ssthresh_value(0x7fff_ffff), f64::INFINITY);
        assert_eq!(ssthresh_value(u32::MAX), f64::INFINITY);
        assert_eq!(ssthresh_value(12), 12.0);
    }

    #[test]
    fn stored_windows_stay_within_one_and_the_clamp() {
        let mut tp = TcpSock {
            snd_cwnd_clamp: 100,
            ..TcpSock::default()
        };
        store_window(
            &mut tp,
            arith::Window {
                cwnd: 0,
                ssthresh: 5,
            },
        );
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (1, 5));
        store_window(
            &mut tp,
            arith::Window {
                cwnd: 500,
                ssthresh: 5,
            },
        );
        assert_eq!(tp.snd_cwnd, 100);
        let tp = TcpSock {
            snd_cwnd: 5 << 20,
            ..TcpSock::default()
        };
        assert_eq!(load_window(&tp).cwnd, arith::MAX_WINDOW);
    }

    #[test]
    fn cwnd_limited_is_linuxs_rule() {
        let tp = TcpSock {
            snd_cwnd: 10,
            snd_ssthresh: 20,
            max_packets_out: 6,
            ..TcpSock::default()
        };
        assert!(cwnd_limited(&tp)); // slow start, 10 < 2 x 6
        assert!(!cwnd_limited(&TcpSock {
            max_packets_out: 5,
            ..tp
        }));
        assert!(!cwnd_limited(&TcpSock {
            snd_ssthresh: 5,
            ..tp
        }));
        assert!(cwnd_limited(&TcpSock {
            snd_ssthresh: 5,
            is_cwnd_limited: true,
            ..tp
        }));
    }

    #[test]
    fn fixed_point_alone_selects_the_kernel_program() {
        assert_eq!(requested(&json!(null)), Ok(false));
        assert_eq!(requested(&json!({ "beta": 0.7 })), Ok(false));
        assert_eq!(requested(&json!({ "fixed_point": false })), Ok(false));
        assert_eq!(requested(&json!({ "fixed_point": true })), Ok(true));
        let err = requested(&json!({ "fixed_point": true, "beta": 0.5 })).unwrap_err();
        assert!(
            err.starts_with("beta: fixed_point = true runs the kernel program"),
            "{err}"
        );
    }

    #[test]
    fn every_twin_keeps_its_algorithms_name() {
        for name in ["fbtcp", "rttv", "mss", "mrvhs", "dtcp"] {
            assert_eq!(build(name).name(), name);
        }
    }
}
