//! Recording the hook calls of the fixed-point twins, for the step-by-step comparison
//! with the C programs (`tests/bpf_harness/`).
//!
//! A record is one line of integers the harness reads: the hook, the `tcp_sock`
//! fields before it, the hook's two arguments ([`HookRecord::input_line`]); the
//! twin's answer is the window after it, the hook's result and the program's private
//! state ([`HookRecord::output_line`]).

use super::{Hook, TcpSock};
use std::cell::RefCell;

/// One hook call of a twin: what the kernel program saw and what it answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookRecord {
    pub hook: Hook,
    pub before: TcpSock,
    pub cwnd: u32,
    pub ssthresh: u32,
    /// `ssthresh` and `undo_cwnd` return a window; the other hooks 0.
    pub ret: u32,
    /// The program's private state after the hook ([`super::KernelProgram::private_state`]).
    pub state: Vec<u64>,
}

impl HookRecord {
    /// The hook's name and its two arguments (0 where it has fewer).
    fn hook_fields(&self) -> (&'static str, i64, i64) {
        match self.hook {
            Hook::Init => ("init", 0, 0),
            Hook::PktsAcked { rtt_us } => ("pkts_acked", rtt_us.into(), 0),
            Hook::CongAvoid { ack, acked } => ("cong_avoid", ack.into(), acked.into()),
            Hook::Ssthresh => ("ssthresh", 0, 0),
            Hook::SetState(state) => ("set_state", state.into(), 0),
            Hook::CwndEvent(event) => ("cwnd_event", event.into(), 0),
            Hook::UndoCwnd => ("undo_cwnd", 0, 0),
        }
    }

    /// `hook snd_cwnd snd_ssthresh snd_cwnd_clamp is_cwnd_limited max_packets_out
    /// mss_cache snd_nxt delivered srtt_us tcp_mstamp ca_state prior_cwnd sinr_mdb
    /// sinr_valid arg0 arg1`.
    pub fn input_line(&self) -> String {
        let (name, a0, a1) = self.hook_fields();
        let t = &self.before;
        format!(
            "{name} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {a0} {a1}",
            t.snd_cwnd,
            t.snd_ssthresh,
            t.snd_cwnd_clamp,
            u8::from(t.is_cwnd_limited),
            t.max_packets_out,
            t.mss_cache,
            t.snd_nxt,
            t.delivered,
            t.srtt_us,
            t.tcp_mstamp,
            t.ca_state,
            t.prior_cwnd,
            t.sinr.sinr_mdb,
            t.sinr.valid,
        )
    }

    /// `snd_cwnd snd_ssthresh result` after the hook, then the private state's fields.
    pub fn output_line(&self) -> String {
        let mut line = format!("{} {} {}", self.cwnd, self.ssthresh, self.ret);
        for field in &self.state {
            line.push_str(&format!(" {field}"));
        }
        line
    }
}

thread_local! {
    /// The records of the running [`record_hooks`] on this thread, None when not recording.
    static RECORDS: RefCell<Option<Vec<HookRecord>>> = const { RefCell::new(None) };
}

/// Runs `f` (a simulation on this thread) and returns its result with every hook call
/// the fixed-point twins made meanwhile, in order.
pub fn record_hooks<R>(f: impl FnOnce() -> R) -> (R, Vec<HookRecord>) {
    RECORDS.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let result = f();
    let records = RECORDS.with(|r| r.borrow_mut().take()).unwrap_or_default();
    (result, records)
}

/// Appends a record when recording; `make` is not called otherwise.
pub(super) fn push(make: impl FnOnce() -> HookRecord) {
    RECORDS.with(|r| {
        if let Some(records) = r.borrow_mut().as_mut() {
            records.push(make());
        }
    });
}
