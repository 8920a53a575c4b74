//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue
//! 2016), behaving like Linux `net/ipv4/tcp_bbr.c`.
//!
//! BBR models the path instead of reacting to loss: the bottleneck bandwidth
//! (BtlBw, the windowed maximum of delivery-rate samples over 10 round trips) and the
//! round-trip propagation time (RTprop, the minimum RTT over 10 s). It paces at
//! `pacing_gain x BtlBw` and caps the data in flight at `cwnd_gain x BtlBw x RTprop`
//! plus a small quantization budget. Four modes set the gains:
//! - STARTUP: both gains 2/ln 2, doubling the rate each round, until three rounds
//!   bring less than 25% more bandwidth ("full pipe");
//! - DRAIN: pacing gain ln 2 / 2 until the data in flight is down to one BDP;
//! - PROBE_BW: cwnd gain 2 and an eight-phase pacing-gain cycle
//!   [1.25, 0.75, 1, 1, 1, 1, 1, 1], one phase per RTprop, starting at a random phase
//!   other than 0.75;
//! - PROBE_RTT: when RTprop has not been refreshed for 10 s, cwnd 4 segments for at
//!   least 200 ms and one round, to let the queue drain and measure RTprop again.
//!
//! The algorithm takes full control of the window through `cong_control` (the socket
//! then applies neither PRR nor `cong_avoid`): packet conservation for the first
//! round of fast recovery, slow start back to the target after it, and the window
//! from before the loss restored on leaving recovery or the RTO loss state.
//!
//! Written in floating point from the paper and the behaviour of Linux
//! `tcp_bbr.c` (the version with ACK-aggregation provisioning and the long-term
//! bandwidth "policer" estimator, which are both on in Linux). Bandwidth is kept in
//! segments per second, times in seconds; windows stay whole segments, as Linux's
//! (the BDP is rounded up, the quantization budget rounds to an even count). Where
//! ns-3's `TcpBbr` (which the seeds ran, in its mmWave-module version) differs,
//! parameters give its reading: `quantization = "ns3"`, `extra_acked_gain = 0`,
//! `lt_bw = false`, `cycle_rand = 6`, `samples = "ns3"` (ns-3 3.37's `TcpBbr`
//! counts rounds and feeds the filter on ACKs without a valid sample).
//!
//! What the socket does not expose, and how this file gets it:
//! - Linux's `tp->delivered_mstamp` (time of the last delivery): the time of the
//!   last ACK that delivered something.
//! - Linux's cumulative `tp->lost`: the sum of `rs.losses`, plus the segments in
//!   flight at an RTO (which marks them all lost).
//! - Linux's `tp->app_limited` at a `TxStart`: the socket reports `TxStart` when
//!   nothing is in flight. In the Open or Disorder state that means the application
//!   (with an open receive window) had nothing to send: a restart from idle. After a
//!   timeout, or in recovery, the pipe is empty because everything was marked lost,
//!   which Linux does not count as application-limited: no restart then.
//! - Linux's PROBE_RTT marks the connection application-limited so that its low
//!   rate samples neither update the bandwidth filter nor count as rounds without
//!   growth. The algorithm cannot mark the socket, so it remembers the range of
//!   `delivered` counts over which Linux's mark would hold and treats the samples of
//!   segments sent then (`rs.prior_delivered` in that range) as application-limited.
//! - The pacing layer's earliest departure time (Linux `bbr_packets_in_net_at_edt`):
//!   the socket exposes none, so the estimate is taken at "now" (no scheduled
//!   departure pending), plus the TSO goal while the pacing gain is above 1, as Linux.
//! - Linux's `is_ack_delayed` hint (a lone runt segment's ACK): never set for bulk
//!   full-sized segments, so an expired RTprop is always replaced by the new sample.
//!
//! The pacing rate written to the socket is in payload bits per second (segments x
//! MSS), as Linux's is in `mss_cache` bytes.

use super::bbr_filter::MaxFilter;
use super::{
    CaState, CongestionControl, CwndEvent, RateSample, Socket, ceil_non_negative,
    floor_non_negative, parse_params,
};
use crate::engine::{Time, from_secs};
use serde::Deserialize;

pub const SUMMARY: &str = "BBR v1 (Cardwell et al. 2016, Linux tcp_bbr): model-based pacing at \
     the max-filtered bottleneck bandwidth, cwnd = 2 BDP, STARTUP/DRAIN/PROBE_BW/PROBE_RTT";

/// How the target window is padded above `gain x BDP` (Linux `bbr_quantization_budget`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Quantization {
    /// Linux without segmentation offload (the simulator sends one segment at a
    /// time): 3 x the TSO goal at its minimum (`bbr_min_tso_segs`: 1 segment below
    /// 1.2 Mb/s of pacing, else 2), rounded up to an even count, + 2 in the 1.25
    /// phase. The default.
    LinuxNoTso,
    /// Linux with TSO autosizing: the goal is about 1 ms of data at the pacing rate
    /// (`sk_pacing_rate >> 10` bytes, at most 64 KB and 127 segments, at least the
    /// minimum above): a host with a TSO-capable NIC.
    LinuxTso,
    /// ns-3 `TcpBbr`: a send quantum of 1 segment (+3), no even rounding, + 2 in the
    /// 1.25 phase; no TSO goal in the in-flight estimates. (The BDP is still rounded
    /// up to whole segments; ns-3 truncates its byte count.)
    Ns3,
}

impl Quantization {
    /// Segments per TSO burst at the socket's pacing rate (Linux `bbr_tso_segs_goal`).
    fn tso_segs_goal(self, sock: &Socket) -> f64 {
        let min_segs = if sock.pacing_rate_bps < MIN_TSO_RATE_BPS {
            1.0
        } else {
            2.0
        };
        match self {
            Quantization::LinuxTso => {
                let bytes = (sock.pacing_rate_bps / 8.0 / 1024.0).min(GSO_MAX_BYTES);
                floor_non_negative(bytes / sock.mss as f64)
                    .max(min_segs)
                    .min(MAX_TSO_SEGS)
            }
            Quantization::LinuxNoTso | Quantization::Ns3 => min_segs,
        }
    }
}

/// What BBR makes of each ACK's rate sample (`samples`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Samples {
    /// Linux `bbr_update_bw`: an ACK without a valid sample (none delivered, or an
    /// interval shorter than the minimum RTT) neither ends a round nor touches the
    /// filter; rounds end on `rs.prior_delivered` of the ACK's newest delivered
    /// segment. The default.
    Linux,
    /// ns-3 3.37 `TcpBbr` reading `TcpRateLinux`'s sample, which persists between
    /// ACKs: an ACK whose sample is invalid still hands BBR the last recorded
    /// delivery rate, so every ACK (once a rate was ever recorded) can end a round
    /// and feeds that stale rate to the filter; the round test uses the newest
    /// `prior_delivered` seen on any ACK, and the app-limited flag of the segment
    /// that set it; an application-limited sample below the last recorded rate is
    /// not recorded (the previous rate is handed on instead). When ns-3 re-sends
    /// segments still in flight (`tcp.recovery_sends = "ns3"`), the ACKs of the
    /// originals carry the re-sends' fresh `delivered` stamps, so each such ACK
    /// ends a round and the 10-round filter forgets the path's rate within a few
    /// packets: ns-3's BBR then collapses to kbit/s.
    Ns3,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// STARTUP pacing and cwnd gain, and DRAIN's cwnd gain: 2/ln 2 = 2.885, the
    /// smallest gain that doubles the delivery rate every round (Linux 739/256 = 2.887,
    /// ns-3 2.89).
    pub high_gain: f64,
    /// DRAIN pacing gain: ln 2 / 2 = 0.347 (= 1/high_gain; Linux 88/256 = 0.344),
    /// which drains STARTUP's queue in about one round.
    pub drain_gain: f64,
    /// PROBE_BW cwnd gain: 2 (Linux `bbr_cwnd_gain`), room for delayed and
    /// stretched ACKs.
    pub cwnd_gain: f64,
    /// BtlBw max-filter window in rounds: 10 (Linux `bbr_bw_rtts` = cycle length + 2).
    pub bw_window_rounds: u32,
    /// RTprop min-filter window in seconds: 10 (Linux `bbr_min_rtt_win_sec`).
    pub min_rtt_window_s: f64,
    /// Least time at the minimum window in PROBE_RTT, ms: 200 (Linux
    /// `bbr_probe_rtt_mode_ms`); 0 disables PROBE_RTT.
    pub probe_rtt_duration_ms: f64,
    /// Smallest window and PROBE_RTT's window, segments: 4 (Linux
    /// `bbr_cwnd_min_target`: two delayed-ACKed pairs in flight).
    pub min_cwnd: f64,
    /// Pacing runs this fraction below `gain x BtlBw`: 0.01 (Linux
    /// `bbr_pacing_margin_percent`), to keep the bottleneck queue small.
    pub pacing_margin: f64,
    /// STARTUP's bandwidth must grow by this factor per round to continue: 1.25
    /// (Linux `bbr_full_bw_thresh`).
    pub full_bw_threshold: f64,
    /// Rounds without that growth before the pipe counts as full: 3 (Linux
    /// `bbr_full_bw_cnt`).
    pub full_bw_rounds: u32,
    /// Seed of the per-connection generator that picks the PROBE_BW starting phase
    /// (Linux draws it from `prandom`). By default each connection's is drawn from
    /// the run's seed, so runs with other seeds start PROBE_BW in other phases;
    /// given, it fixes the phases whatever the run's seed.
    pub cycle_seed: Option<u64>,
    /// The starting phase is drawn uniformly from the last `cycle_rand` phases before
    /// the cycle wraps: with 7 (Linux `bbr_cycle_rand`) any phase but 0.75; 6 is
    /// ns-3's `GetValue (0, 6)`, which also never starts in phase 2. In 1..=7.
    pub cycle_rand: u32,
    /// Padding of the target window; see [`Quantization`].
    pub quantization: Quantization,
    /// Gain on the ACK-aggregation estimate added to the target window once the
    /// pipe is full: 1 (Linux `bbr_extra_acked_gain`); 0 turns provisioning off, as in
    /// older Linux and the ns-3 mmWave module's `TcpBbr`.
    pub extra_acked_gain: f64,
    /// The aggregation max filter keeps two buckets of this many rounds: 5 (Linux
    /// `bbr_extra_acked_win_rtts`).
    pub extra_acked_window_rounds: u32,
    /// Aggregation provisioning is capped at BtlBw x this time, ms: 100 (Linux
    /// `bbr_extra_acked_max_us`).
    pub extra_acked_max_ms: f64,
    /// Long-term bandwidth estimation (Linux's token-bucket policer detector): two
    /// consecutive 4-16 round intervals with at least 20% loss and consistent
    /// delivery rates make BBR pace at their average rate for 48 rounds. On, as
    /// Linux; ns-3 has no such estimator.
    pub lt_bw: bool,
    /// Which rate samples drive rounds and the BtlBw filter; see [`Samples`].
    pub samples: Samples,
}

impl Default for Params {
    fn default() -> Self {
        let ln2 = std::f64::consts::LN_2;
        Self {
            high_gain: 2.0 / ln2,
            drain_gain: ln2 / 2.0,
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window_s: 10.0,
            probe_rtt_duration_ms: 200.0,
            min_cwnd: 4.0,
            pacing_margin: 0.01,
            full_bw_threshold: 1.25,
            full_bw_rounds: 3,
            cycle_seed: None,
            cycle_rand: 7,
            quantization: Quantization::LinuxNoTso,
            extra_acked_gain: 1.0,
            extra_acked_window_rounds: 5,
            extra_acked_max_ms: 100.0,
            lt_bw: true,
            samples: Samples::Linux,
        }
    }
}

impl Params {
    /// Rejects values that make the algorithm meaningless, naming the key and range.
    fn validate(&self) -> Result<(), String> {
        type Check = (&'static str, f64, fn(f64) -> bool, &'static str);
        let checks: [Check; 14] = [
            ("high_gain", self.high_gain, |v| v > 1.0, "> 1"),
            (
                "drain_gain",
                self.drain_gain,
                |v| v > 0.0 && v < 1.0,
                "in (0, 1)",
            ),
            ("cwnd_gain", self.cwnd_gain, |v| v >= 1.0, ">= 1"),
            (
                "bw_window_rounds",
                self.bw_window_rounds.into(),
                |v| v >= 1.0,
                ">= 1",
            ),
            (
                "min_rtt_window_s",
                self.min_rtt_window_s,
                |v| v > 0.0,
                "> 0",
            ),
            (
                "probe_rtt_duration_ms",
                self.probe_rtt_duration_ms,
                |v| v >= 0.0,
                ">= 0",
            ),
            ("min_cwnd", self.min_cwnd, |v| v >= 1.0, ">= 1"),
            (
                "pacing_margin",
                self.pacing_margin,
                |v| (0.0..1.0).contains(&v),
                "in [0, 1)",
            ),
            (
                "full_bw_threshold",
                self.full_bw_threshold,
                |v| v > 1.0,
                "> 1",
            ),
            (
                "full_bw_rounds",
                self.full_bw_rounds.into(),
                |v| v >= 1.0,
                ">= 1",
            ),
            (
                "cycle_rand",
                self.cycle_rand.into(),
                |v| (1.0..=7.0).contains(&v),
                "in 1..=7",
            ),
            (
                "extra_acked_gain",
                self.extra_acked_gain,
                |v| v >= 0.0,
                ">= 0",
            ),
            (
                "extra_acked_window_rounds",
                self.extra_acked_window_rounds.into(),
                |v| v >= 1.0,
                ">= 1",
            ),
            (
                "extra_acked_max_ms",
                self.extra_acked_max_ms,
                |v| v >= 0.0,
                ">= 0",
            ),
        ];
        match checks.iter().find(|(_, v, ok, _)| !ok(*v)) {
            Some((key, value, _, range)) => Err(format!("{key} = {value}: must be {range}")),
            None => Ok(()),
        }
    }
}

/// PROBE_BW pacing gains (Linux `bbr_pacing_gain`): probe, drain what the probe
/// queued, then cruise for six phases.
const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const CYCLE_LEN: usize = PACING_GAIN_CYCLE.len();
/// Below this pacing rate (bit/s) the TSO goal is 1 segment, else at least 2
/// (Linux `bbr_min_tso_rate`).
const MIN_TSO_RATE_BPS: f64 = 1.2e6;
/// Largest TSO burst in bytes (Linux `GSO_MAX_SIZE - 1 - MAX_TCP_HEADER`, x86-64).
const GSO_MAX_BYTES: f64 = 65536.0 - 1.0 - 320.0;
/// Largest TSO goal in segments (Linux: 0x7F).
const MAX_TSO_SEGS: f64 = 127.0;
/// The ACK-aggregation epoch restarts after this many segments (Linux
/// `bbr_ack_epoch_acked_reset_thresh`), and never counts past `0xFFFFF`.
const ACK_EPOCH_RESET: f64 = (1u32 << 20) as f64;
/// Long-term estimator (Linux `bbr_lt_*`): interval length in rounds, loss ratio
/// that makes an interval lossy (50/256, about 20%), consistency of two intervals'
/// rates (1/8 relative or 4 kbit/s absolute), rounds spent on the long-term rate.
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF_BPS: f64 = 4000.0;
const LT_BW_MAX_RTTS: u32 = 48;

/// BBR's modes (Linux `enum bbr_mode`, same numbering in the traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    fn code(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

/// Linux's `state >= TCP_CA_Recovery`.
fn recovering(s: CaState) -> bool {
    matches!(s, CaState::Recovery | CaState::Loss)
}

/// A time difference in seconds. Through `i64`: its conversion is one instruction on
/// baseline x86-64 (the unsigned one is emulated), and a difference of two instants
/// of one run is far below 2^63 ns.
fn secs(t: Time) -> f64 {
    t as i64 as f64 * 1e-9
}

/// Long-term ("LT") bandwidth estimator state (Linux `lt_*` fields).
#[derive(Clone, Debug, Default)]
struct LongTerm {
    /// An interval is being sampled (from the first loss on).
    is_sampling: bool,
    /// Rounds in the current interval, or rounds spent using `bw`.
    rtt_cnt: u32,
    /// Pace at `bw` instead of the max filter: a policer was detected.
    use_bw: bool,
    /// Rate of the last interval, or the policed rate; segments/s, 0 for none.
    bw: f64,
    /// Start of the current interval: time, delivered and lost counts.
    last_stamp: Time,
    last_delivered: u64,
    last_lost: u64,
}

/// What [`Bbr::cwnd_target`] depends on besides the parameters, as bits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct TargetInputs {
    bw: u64,
    min_rtt: Option<u64>,
    cwnd_gain: u64,
    extra_acked: u64,
    /// The TSO goal's input.
    pacing_rate: u64,
    probe_phase: bool,
    full_bw_reached: bool,
}

pub struct Bbr {
    p: Params,
    /// splitmix64 state for the PROBE_BW starting phase.
    rng: u64,
    mode: Mode,
    mss: u32,
    /// Max filter of delivery-rate samples (segments/s) keyed by round count.
    bw: MaxFilter,
    /// RTprop estimate in seconds and when it was last set.
    min_rtt: Option<f64>,
    min_rtt_stamp: Time,
    /// `min_rtt_window_s` in ns (checked on every ACK).
    min_rtt_window: Time,
    /// Segments per TSO burst for the pacing rate (bits) they were worked out for:
    /// [`Bbr::tso_segs_goal`] is needed several times per ACK, the rate changes rarely.
    tso_goal: (u64, f64),
    /// Packet-timed rounds: a round ends when a segment sent after it began is
    /// delivered (`rs.prior_delivered` reaches `next_rtt_delivered`).
    round_count: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    /// When PROBE_RTT may end (None until in flight first falls to `min_cwnd`).
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// `delivered` range over which Linux's PROBE_RTT app-limited mark holds.
    probe_rtt_app_limited: Option<(u64, u64)>,
    prev_ca_state: CaState,
    packet_conservation: bool,
    /// The window to restore after recovery or PROBE_RTT.
    prior_cwnd: f64,
    idle_restart: bool,
    has_seen_rtt: bool,
    /// Time of the last ACK that delivered data (Linux `tp->delivered_mstamp`).
    delivered_stamp: Time,
    /// Cumulative segments marked lost (Linux `tp->lost`).
    lost: u64,
    /// The window this algorithm last set, and the last target, for traces and to
    /// undo the socket's reset of cwnd to ssthresh at the end of recovery.
    last_cwnd: f64,
    target_cwnd: f64,
    /// The last target with what it was worked out from: needed on every ACK, it
    /// takes four roundings, and its inputs change a few times per round.
    target_memo: Option<(TargetInputs, f64)>,
    ack_epoch_stamp: Time,
    ack_epoch_acked: f64,
    extra_acked: [f64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_idx: usize,
    lt: LongTerm,
    /// `samples = "ns3"`: the sample ns-3 keeps between ACKs (its last recorded
    /// rate in segments/s, 0 before any; the newest `prior_delivered` seen; and the
    /// app-limited flag of the segment that set it).
    ns3_rate: f64,
    ns3_prior_delivered: u64,
    ns3_app_limited: bool,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(Bbr::new(p)))
}

impl Bbr {
    fn new(p: Params) -> Self {
        Self {
            rng: p.cycle_seed.unwrap_or(0),
            mode: Mode::Startup,
            mss: 0,
            bw: MaxFilter::new(0, 0.0),
            min_rtt: None,
            min_rtt_stamp: 0,
            min_rtt_window: from_secs(p.min_rtt_window_s),
            tso_goal: (f64::NAN.to_bits(), 0.0),
            round_count: 0,
            next_rtt_delivered: 0,
            round_start: false,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            probe_rtt_app_limited: None,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            prior_cwnd: 0.0,
            idle_restart: false,
            has_seen_rtt: false,
            delivered_stamp: 0,
            lost: 0,
            last_cwnd: 0.0,
            target_cwnd: 0.0,
            target_memo: None,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0.0,
            extra_acked: [0.0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_idx: 0,
            lt: LongTerm::default(),
            ns3_rate: 0.0,
            ns3_prior_delivered: 0,
            ns3_app_limited: false,
            p,
        }
    }

    /// splitmix64: a small deterministic generator, one per connection.
    fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth BBR paces at: the policed long-term rate when one was
    /// detected, else the max filter (Linux `bbr_bw`).
    fn bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    /// `gain x bw` in bit/s of payload, less the pacing margin (Linux
    /// `bbr_rate_bytes_per_sec`, which applies the margin to every conversion).
    fn rate_bps(&self, sock: &Socket, bw: f64, gain: f64) -> f64 {
        bw * sock.mss as f64 * 8.0 * gain * (1.0 - self.p.pacing_margin)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain x cwnd / SRTT, with 1 ms
    /// standing in for SRTT before the first RTT sample.
    fn init_pacing_rate(&mut self, sock: &mut Socket) {
        let rtt = if sock.srtt_s > 0.0 {
            self.has_seen_rtt = true;
            sock.srtt_s
        } else {
            1e-3
        };
        sock.pacing_rate_bps = self.rate_bps(sock, sock.cwnd / rtt, self.p.high_gain);
    }

    /// Linux `bbr_set_pacing_rate`: until the pipe is full the rate only rises, so
    /// that the initial rate holds until the estimate overtakes it.
    fn set_pacing_rate(&mut self, sock: &mut Socket, bw: f64, gain: f64) {
        let rate = self.rate_bps(sock, bw, gain);
        if !self.has_seen_rtt && sock.srtt_s > 0.0 {
            self.init_pacing_rate(sock);
        }
        if self.full_bw_reached || rate > sock.pacing_rate_bps {
            sock.pacing_rate_bps = rate;
        }
    }

    /// Segments per TSO burst (Linux `bbr_tso_segs_goal`, see [`Quantization`]).
    fn tso_segs_goal(&mut self, sock: &Socket) -> f64 {
        let key = sock.pacing_rate_bps.to_bits();
        if self.tso_goal.0 != key {
            self.tso_goal = (key, self.p.quantization.tso_segs_goal(sock));
        }
        self.tso_goal.1
    }

    /// `ceil(gain x bw x RTprop)` segments; the initial window while no RTT is known
    /// (Linux `bbr_bdp`, whose `TCP_INIT_CWND` is the configured initial window
    /// here). Floating-point noise below 1e-9 segment is not rounded up.
    fn bdp(&self, sock: &Socket, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => sock.initial_cwnd,
            Some(rtt) => ceil_non_negative(bw * rtt * gain - 1e-9),
        }
    }

    /// Linux `bbr_quantization_budget`: room for the bursts the end hosts hold, an
    /// even window against delayed ACKs, and 2 more segments in the 1.25 phase so
    /// that probing raises the data in flight above the BDP even when it is small.
    fn quantization_budget(&mut self, sock: &Socket, cwnd: f64) -> f64 {
        let mut cwnd = match self.p.quantization {
            Quantization::Ns3 => cwnd + 3.0,
            Quantization::LinuxNoTso | Quantization::LinuxTso => {
                ceil_non_negative((cwnd + 3.0 * self.tso_segs_goal(sock)) / 2.0) * 2.0
            }
        };
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2.0;
        }
        cwnd
    }

    /// Target data in flight for `gain` (Linux `bbr_inflight`).
    fn inflight(&mut self, sock: &Socket, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(sock, self.bdp(sock, bw, gain))
    }

    /// Linux `bbr_packets_in_net_at_edt` with no departure scheduled ahead of now:
    /// the data in flight, plus the next TSO burst while the gain raises it.
    fn in_net_at_edt(&mut self, sock: &Socket, in_flight: u32) -> f64 {
        let next_burst = match self.p.quantization {
            Quantization::Ns3 => 0.0,
            _ if self.pacing_gain > 1.0 => self.tso_segs_goal(sock),
            _ => 0.0,
        };
        in_flight as f64 + next_burst
    }

    /// Extra window for ACK aggregation once the pipe is full (Linux
    /// `bbr_ack_aggregation_cwnd`).
    fn ack_aggregation_cwnd(&self) -> f64 {
        if self.p.extra_acked_gain <= 0.0 || !self.full_bw_reached {
            return 0.0;
        }
        let cap = floor_non_negative(self.bw() * self.p.extra_acked_max_ms * 1e-3);
        floor_non_negative(self.p.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1]))
            .min(cap)
    }

    /// Linux `bbr_save_cwnd`: the window before a loss or PROBE_RTT, unless one of
    /// those has already cut it, in which case the larger of the two.
    fn save_cwnd(&mut self, cwnd: f64) {
        if !recovering(self.prev_ca_state) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = self.delivered_stamp;
    }

    /// Linux `bbr_reset_probe_bw_mode`: start the cycle at a random phase, never
    /// the 0.75 one (with `cycle_rand <= 7`).
    fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        let r = (self.next_random() % u64::from(self.p.cycle_rand)) as usize;
        self.cycle_idx = CYCLE_LEN - 1 - r;
        self.advance_cycle_phase();
    }

    /// Linux `bbr_reset_mode`: back to STARTUP unless the pipe was found full.
    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.enter_probe_bw();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Whether the sample of this ACK counts as application-limited: the socket's
    /// flag, or the segment was sent under PROBE_RTT's mark (see the module doc).
    fn sample_app_limited(&mut self, rs: &RateSample) -> bool {
        let Some((start, end)) = self.probe_rtt_app_limited else {
            return rs.is_app_limited;
        };
        let valid = rs.interval_s > 0.0;
        let marked = valid && (start..=end).contains(&rs.prior_delivered);
        // Linux clears the mark once more than `end` is delivered, so segments sent
        // after that start above `end`: once they come back the range is done with.
        if valid && rs.prior_delivered > end && self.mode != Mode::ProbeRtt {
            self.probe_rtt_app_limited = None;
        }
        rs.is_app_limited || marked
    }

    /// Linux `tp->app_limited = delivered + in_flight` in PROBE_RTT: segments sent
    /// from now until that much is delivered give application-limited samples.
    fn mark_probe_rtt_app_limited(&mut self, sock: &Socket) {
        let end = (sock.delivered + u64::from(sock.in_flight)).max(1);
        self.probe_rtt_app_limited = Some(match self.probe_rtt_app_limited {
            Some((start, old_end)) => (start, old_end.max(end)),
            None => (sock.delivered, end),
        });
    }

    /// Rounds, the long-term estimator and the BtlBw filter (Linux `bbr_update_bw`).
    fn update_bw(&mut self, sock: &Socket, rs: &RateSample, bw: Option<f64>, app_limited: bool) {
        self.round_start = false;
        let Some(bw) = bw else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = sock.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(sock, rs.losses, app_limited);
        // An app-limited sample measures the application, not the path: it may only
        // raise the estimate.
        if !app_limited || bw >= self.max_bw() {
            self.bw
                .update(u64::from(self.p.bw_window_rounds), self.round_count, bw);
        }
    }

    /// Windowed max of the data ACKed beyond what BtlBw explains since the epoch
    /// began (Linux `bbr_update_ack_aggregation`), in two buckets of
    /// `extra_acked_window_rounds` rounds.
    fn update_ack_aggregation(&mut self, sock: &Socket, rs: &RateSample, valid: bool) {
        if self.p.extra_acked_gain <= 0.0 || rs.acked_sacked == 0 || !valid {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(31);
            if self.extra_acked_win_rtts >= self.p.extra_acked_window_rounds {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        let epoch = secs(self.delivered_stamp.saturating_sub(self.ack_epoch_stamp));
        let mut expected = floor_non_negative(self.bw() * epoch);
        let acked = f64::from(rs.acked_sacked);
        // ACKs slower than expected (or a very long epoch) start a new epoch.
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET {
            self.ack_epoch_acked = 0.0;
            self.ack_epoch_stamp = self.delivered_stamp;
            expected = 0.0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(ACK_EPOCH_RESET - 1.0);
        let extra = (self.ack_epoch_acked - expected).min(sock.cwnd);
        let bucket = &mut self.extra_acked[self.extra_acked_idx];
        *bucket = bucket.max(extra);
    }

    /// Linux `bbr_is_next_cycle_phase`: a phase lasts one RTprop, except that 1.25
    /// also waits until in flight reaches 1.25 BDP (or a loss shows it will not fit)
    /// and 0.75 ends as soon as in flight is down to one BDP.
    fn is_next_cycle_phase(&mut self, sock: &Socket, rs: &RateSample) -> bool {
        let elapsed = secs(self.delivered_stamp.saturating_sub(self.cycle_stamp));
        let full_length = self.min_rtt.is_some_and(|m| elapsed > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let in_flight = self.in_net_at_edt(sock, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            full_length && (rs.losses > 0 || in_flight >= self.inflight(sock, bw, self.pacing_gain))
        } else {
            full_length || in_flight <= self.inflight(sock, bw, 1.0)
        }
    }

    /// Linux `bbr_check_full_bw_reached`: once per non-app-limited round, the pipe
    /// is full after `full_bw_rounds` rounds without `full_bw_threshold` growth.
    fn check_full_bw_reached(&mut self, app_limited: bool) {
        if self.full_bw_reached || !self.round_start || app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * self.p.full_bw_threshold {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.p.full_bw_rounds;
    }

    /// Linux `bbr_check_drain`: STARTUP -> DRAIN once the pipe is full (ssthresh
    /// records the BDP, as Linux), DRAIN -> PROBE_BW once in flight is down to it.
    fn check_drain(&mut self, sock: &mut Socket) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            sock.ssthresh = self.inflight(sock, self.max_bw(), 1.0);
        }
        if self.mode == Mode::Drain
            && self.in_net_at_edt(sock, sock.in_flight) <= self.inflight(sock, self.max_bw(), 1.0)
        {
            self.enter_probe_bw();
        }
    }

    /// Linux `bbr_check_probe_rtt_done`: leave PROBE_RTT once its time is up,
    /// restoring the window and restarting the RTprop clock.
    fn check_probe_rtt_done(&mut self, sock: &mut Socket) {
        if self.probe_rtt_done_stamp.is_none_or(|d| sock.now <= d) {
            return;
        }
        self.min_rtt_stamp = sock.now;
        sock.cwnd = sock.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// RTprop filter and PROBE_RTT (Linux `bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, sock: &mut Socket, rs: &RateSample) {
        let expired = sock.now > self.min_rtt_stamp + self.min_rtt_window;
        if let Some(rtt) = rs.rtt_s
            && (self.min_rtt.is_none_or(|m| rtt <= m) || expired)
        {
            self.min_rtt = Some(rtt);
            self.min_rtt_stamp = sock.now;
        }
        let probe_rtt_on = self.p.probe_rtt_duration_ms > 0.0;
        if probe_rtt_on && expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(sock.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.mark_probe_rtt_app_limited(sock);
            if self.probe_rtt_done_stamp.is_none() && f64::from(sock.in_flight) <= self.p.min_cwnd {
                let duration = from_secs(self.p.probe_rtt_duration_ms * 1e-3);
                self.probe_rtt_done_stamp = Some(sock.now + duration);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = sock.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(sock);
                }
            }
        }
        // A restart from idle ends with the first ACK of new data.
        if rs.acked_sacked > 0 {
            self.idle_restart = false;
        }
    }

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (self.p.drain_gain, self.p.high_gain),
            Mode::ProbeBw if self.lt.use_bw => (1.0, self.p.cwnd_gain),
            Mode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_idx], self.p.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: deduct losses; on the first
    /// ACK of fast recovery cut the window to what is in flight and conserve
    /// packets for one round; on leaving recovery or the loss state restore the
    /// window from before. Returns the window and whether conservation holds.
    fn recover_or_restore(&mut self, sock: &Socket, rs: &RateSample, acked: f64) -> (f64, bool) {
        let (prev, state) = (self.prev_ca_state, sock.ca_state);
        let in_flight = f64::from(sock.in_flight);
        let mut cwnd = sock.cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd - f64::from(rs.losses)).max(1.0);
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = sock.delivered; // the round starts now
            cwnd = in_flight + acked;
        } else if recovering(prev) && !recovering(state) {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            (cwnd.max(in_flight + acked), true)
        } else {
            (cwnd, false)
        }
    }

    /// `cwnd_gain x BDP` plus the ACK-aggregation allowance and the quantization
    /// budget (Linux `bbr_set_cwnd`'s target), from the memo when nothing it depends on
    /// has moved.
    fn cwnd_target(&mut self, sock: &Socket, bw: f64) -> f64 {
        let inputs = TargetInputs {
            bw: bw.to_bits(),
            min_rtt: self.min_rtt.map(f64::to_bits),
            cwnd_gain: self.cwnd_gain.to_bits(),
            extra_acked: self.extra_acked[0].max(self.extra_acked[1]).to_bits(),
            pacing_rate: sock.pacing_rate_bps.to_bits(),
            probe_phase: self.mode == Mode::ProbeBw && self.cycle_idx == 0,
            full_bw_reached: self.full_bw_reached,
        };
        if let Some((memo, target)) = self.target_memo
            && memo == inputs
        {
            return target;
        }
        let bdp = self.bdp(sock, bw, self.cwnd_gain) + self.ack_aggregation_cwnd();
        let target = self.quantization_budget(sock, bdp);
        self.target_memo = Some((inputs, target));
        target
    }

    /// Linux `bbr_set_cwnd`: slow-start towards the target (by the segments
    /// acknowledged), or snap down to it once the pipe is full; at least
    /// `min_cwnd`; `min_cwnd` at most in PROBE_RTT.
    fn set_cwnd(&mut self, sock: &mut Socket, rs: &RateSample, bw: f64) {
        let acked = f64::from(rs.acked_sacked);
        let mut cwnd = sock.cwnd;
        if acked > 0.0 {
            let (recovered, conserving) = self.recover_or_restore(sock, rs, acked);
            cwnd = recovered;
            if !conserving {
                let target = self.cwnd_target(sock, bw);
                self.target_cwnd = target;
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || (sock.delivered as f64) < sock.initial_cwnd {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.p.min_cwnd);
            }
        }
        sock.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            sock.cwnd = sock.cwnd.min(self.p.min_cwnd);
        }
    }

    /// Starts a long-term sampling interval now (Linux
    /// `bbr_reset_lt_bw_sampling_interval`).
    fn reset_lt_interval(&mut self, sock: &Socket) {
        self.lt.last_stamp = self.delivered_stamp;
        self.lt.last_delivered = sock.delivered;
        self.lt.last_lost = self.lost;
        self.lt.rtt_cnt = 0;
    }

    fn reset_lt(&mut self, sock: &Socket) {
        self.lt.bw = 0.0;
        self.lt.use_bw = false;
        self.lt.is_sampling = false;
        self.reset_lt_interval(sock);
    }

    /// Linux `bbr_lt_bw_interval_done`: two consecutive lossy intervals with rates
    /// within 1/8 (or 4 kbit/s) of each other mean a policer; pace at their mean.
    fn lt_interval_done(&mut self, sock: &Socket, bw: f64) {
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            let similar = diff <= LT_BW_RATIO * self.lt.bw;
            if similar || self.rate_bps(sock, diff, 1.0) <= LT_BW_DIFF_BPS {
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.use_bw = true;
                self.pacing_gain = 1.0;
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_interval(sock);
    }

    /// Linux `bbr_lt_bw_sampling`: from the first loss on, measure the delivery rate
    /// over intervals of 4-16 rounds that end on a loss; see [`Params::lt_bw`].
    #[inline]
    fn lt_bw_sampling(&mut self, sock: &Socket, losses: u32, app_limited: bool) {
        // The common case, decided without a call: nothing to sample before a loss.
        if !self.p.lt_bw || !(self.lt.use_bw || self.lt.is_sampling || losses > 0) {
            return;
        }
        self.lt_bw_sampling_slow(sock, losses, app_limited);
    }

    /// The rest of [`Bbr::lt_bw_sampling`], kept out of line: it runs from the first
    /// loss on.
    #[inline(never)]
    fn lt_bw_sampling_slow(&mut self, sock: &Socket, losses: u32, app_limited: bool) {
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(sock);
                    self.enter_probe_bw();
                }
            }
            return;
        }
        // Wait for a loss: a policer's bucket is empty by then.
        if !self.lt.is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval(sock);
            self.lt.is_sampling = true;
        }
        if app_limited {
            self.reset_lt(sock);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt += 1;
        }
        if self.lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(sock);
            return;
        }
        if losses == 0 {
            return;
        }
        let lost = (self.lost - self.lt.last_lost) as f64;
        let delivered = (sock.delivered - self.lt.last_delivered) as f64;
        if delivered == 0.0 || lost < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = secs(self.delivered_stamp.saturating_sub(self.lt.last_stamp));
        if t < 1e-3 {
            return; // Linux measures in ms and waits for at least one
        }
        self.lt_interval_done(sock, delivered / t);
    }

    /// ns-3's `TcpRateLinux` sample as `TcpBbr` sees it on this ACK (see
    /// [`Samples::Ns3`]): the rate to hand on (None before any was recorded) and the
    /// sample with ns-3's persistent `prior_delivered` and app-limited flag.
    fn ns3_sample(&mut self, rs: &RateSample, fresh: Option<f64>) -> (Option<f64>, RateSample) {
        // `SkbDelivered` takes a delivered segment's stamp only when it is newer.
        if rs.prior_delivered > self.ns3_prior_delivered
            || (self.ns3_prior_delivered == 0 && rs.acked_sacked > 0)
        {
            self.ns3_prior_delivered = rs.prior_delivered;
            self.ns3_app_limited = rs.is_app_limited;
        }
        // `GenerateSample` records a valid sample unless it is app-limited and
        // below the last recorded rate.
        if let Some(b) = fresh.filter(|&b| !self.ns3_app_limited || b >= self.ns3_rate) {
            self.ns3_rate = b;
        }
        let seen = RateSample {
            prior_delivered: self.ns3_prior_delivered,
            is_app_limited: self.ns3_app_limited,
            ..*rs
        };
        ((self.ns3_rate > 0.0).then_some(self.ns3_rate), seen)
    }

    /// Linux `bbr_update_model`.
    fn update_model(&mut self, sock: &mut Socket, rs: &RateSample) {
        let valid = rs.interval_s > 0.0 && rs.delivered > 0;
        let fresh = valid.then(|| rs.delivered as f64 / rs.interval_s);
        let (bw, seen) = match self.p.samples {
            Samples::Linux => (fresh, *rs),
            Samples::Ns3 => self.ns3_sample(rs, fresh),
        };
        let app_limited = self.sample_app_limited(&seen);
        self.update_bw(sock, &seen, bw, app_limited);
        self.update_ack_aggregation(sock, rs, fresh.is_some());
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(sock, rs) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(app_limited);
        self.check_drain(sock);
        self.update_min_rtt(sock, rs);
        self.update_gains();
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn seed(&mut self, seed: u64) {
        if self.p.cycle_seed.is_none() {
            self.rng = seed;
        }
    }

    /// Linux `bbr_init`: STARTUP, no bandwidth yet, RTprop from the socket's
    /// minimum RTT if any, ssthresh infinite, pacing from the initial window. The
    /// phase generator keeps its seed.
    fn init(&mut self, sock: &mut Socket) {
        let (p, rng) = (self.p.clone(), self.rng);
        *self = Self::new(p);
        self.rng = rng;
        self.mss = sock.mss;
        sock.ssthresh = f64::INFINITY;
        self.min_rtt = sock.min_rtt_s.is_finite().then_some(sock.min_rtt_s);
        self.min_rtt_stamp = sock.now;
        self.delivered_stamp = sock.now;
        self.ack_epoch_stamp = sock.now;
        self.reset_lt(sock);
        self.init_pacing_rate(sock);
        self.last_cwnd = sock.cwnd;
    }

    /// Linux `bbr_ssthresh`: remember the window for after recovery and leave
    /// ssthresh as it is (infinite, or the BDP recorded on leaving STARTUP). BBR
    /// does not reduce on loss beyond what `cong_control` does.
    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        self.save_cwnd(sock.cwnd);
        sock.ssthresh
    }

    /// Never called: `cong_control` takes over every ACK.
    fn cong_avoid(&mut self, _sock: &mut Socket, _acked: u32) {}

    /// Linux `bbr_main`: update the model and state, then pacing rate and window.
    fn cong_control(&mut self, sock: &mut Socket, rs: &RateSample) -> bool {
        if rs.acked_sacked > 0 {
            self.delivered_stamp = sock.now;
        }
        self.lost += u64::from(rs.losses);
        self.update_model(sock, rs);
        let bw = self.bw();
        self.set_pacing_rate(sock, bw, self.pacing_gain);
        self.set_cwnd(sock, rs, bw);
        self.last_cwnd = sock.cwnd;
        true
    }

    /// Linux `bbr_set_state`: an RTO ends the round for the long-term estimator and
    /// restarts full-pipe detection (not its verdict).
    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
            self.lt_bw_sampling(sock, 1, false);
        }
    }

    fn cwnd_event(&mut self, sock: &mut Socket, event: CwndEvent) {
        match event {
            // Linux `bbr_cwnd_event`: restarting from idle, pace at BtlBw rather than
            // above it, and finish a PROBE_RTT whose time is up.
            CwndEvent::TxStart if !recovering(sock.ca_state) => {
                self.idle_restart = true;
                self.ack_epoch_stamp = sock.now;
                self.ack_epoch_acked = 0.0;
                match self.mode {
                    Mode::ProbeBw => self.set_pacing_rate(sock, self.bw(), 1.0),
                    Mode::ProbeRtt => self.check_probe_rtt_done(sock),
                    _ => {}
                }
            }
            CwndEvent::TxStart => {}
            // The RTO marks everything in flight lost (Linux `tp->lost`).
            CwndEvent::Loss => self.lost += u64::from(sock.in_flight),
            // The socket has just set cwnd to ssthresh, which Linux skips for an
            // algorithm with `cong_control` (`tcp_end_cwnd_reduction`): put back the
            // window BBR had, so that the restore on this ACK starts from it.
            CwndEvent::CompleteRecovery => sock.cwnd = self.last_cwnd.max(1.0),
        }
    }

    /// Linux `bbr_undo_cwnd`: a spurious loss restarts full-pipe detection and the
    /// long-term estimator; the window stays.
    fn undo_cwnd(&mut self, sock: &Socket) -> f64 {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.reset_lt(sock);
        sock.cwnd
    }

    fn needs_pacing(&self) -> bool {
        true
    }

    /// `mode`: 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT. `btlbw_mbps` is the
    /// bandwidth BBR paces at (the long-term rate while `lt_use_bw` is 1), in Mb/s
    /// of payload; `rtprop_ms` is 0 before the first RTT sample.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let flag = |b: bool| f64::from(u8::from(b));
        let mbps = |bw: f64| bw * f64::from(self.mss) * 8.0 / 1e6;
        out.extend([
            ("mode", self.mode.code()),
            ("btlbw_mbps", mbps(self.bw())),
            ("max_bw_mbps", mbps(self.max_bw())),
            ("rtprop_ms", self.min_rtt.map_or(0.0, |r| r * 1e3)),
            ("pacing_gain", self.pacing_gain),
            ("cwnd_gain", self.cwnd_gain),
            ("cycle_index", self.cycle_idx as f64),
            ("full_bw_reached", flag(self.full_bw_reached)),
            ("full_bw_count", f64::from(self.full_bw_cnt)),
            ("round_count", self.round_count as f64),
            ("target_cwnd", self.target_cwnd),
            ("prior_cwnd", self.prior_cwnd),
            ("packet_conservation", flag(self.packet_conservation)),
            ("extra_acked", self.extra_acked[0].max(self.extra_acked[1])),
            ("lt_use_bw", flag(self.lt.use_bw)),
            ("lt_bw_mbps", mbps(self.lt.bw)),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MSS: u32 = 1000;
    /// The path of most tests: RTprop 100 ms, BtlBw 400 segments/s, so BDP = 40
    /// segments, and pacing at gain 1 is 400 x 1000 x 8 x 0.99 = 3.168 Mb/s, above
    /// 1.2 Mb/s, so the TSO goal is 2 and the quantization budget 3 x 2 = 6.
    const RTT: f64 = 0.1;
    const BW: f64 = 400.0;
    /// 2/ln 2 and ln 2 / 2.
    const HIGH_GAIN: f64 = 2.885_390_081_777_926_8;
    const DRAIN_GAIN: f64 = 0.346_573_590_279_972_64;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn bbr(params: serde_json::Value) -> (Bbr, Socket) {
        bbr_seeded(params, 0)
    }

    /// BBR as a run whose seed gave the connection `run_seed` builds it.
    fn bbr_seeded(params: serde_json::Value, run_seed: u64) -> (Bbr, Socket) {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        let mut cc = Bbr::new(p);
        cc.seed(run_seed);
        let mut s = Socket::new(MSS, 10.0, f64::INFINITY);
        s.pacing = cc.needs_pacing();
        cc.init(&mut s);
        (cc, s)
    }

    /// One ACK `dt` seconds after the previous one, as the socket would report it.
    #[derive(Clone, Copy)]
    struct Ack {
        dt: f64,
        acked: u32,
        /// Delivery-rate sample in segments/s (over 1 s), or no valid sample.
        bw: Option<f64>,
        rtt: Option<f64>,
        losses: u32,
        app_limited: bool,
        /// Segments in flight after the ACK (unchanged when None).
        in_flight: Option<u32>,
        /// The acknowledged segment was sent after the current round began, which
        /// ends the round; otherwise it was sent before.
        new_round: bool,
    }

    impl Default for Ack {
        fn default() -> Self {
            Self {
                dt: 0.01,
                acked: 1,
                bw: Some(BW),
                rtt: Some(RTT),
                losses: 0,
                app_limited: false,
                in_flight: None,
                new_round: true,
            }
        }
    }

    fn ack(cc: &mut Bbr, s: &mut Socket, a: Ack) {
        s.now += from_secs(a.dt);
        let prior_in_flight = s.in_flight;
        let prior_delivered = if a.new_round {
            s.delivered
        } else {
            cc.next_rtt_delivered.saturating_sub(1)
        };
        s.delivered += u64::from(a.acked);
        if let Some(f) = a.in_flight {
            s.in_flight = f;
        }
        if let Some(r) = a.rtt {
            s.srtt_s = r;
            s.min_rtt_s = s.min_rtt_s.min(r);
        }
        let rs = RateSample {
            acked_sacked: a.acked,
            losses: a.losses,
            rtt_s: a.rtt,
            prior_in_flight,
            delivered: a.bw.map_or(0, |b| b as u64),
            interval_s: if a.bw.is_some() { 1.0 } else { 0.0 },
            prior_delivered,
            is_app_limited: a.app_limited,
        };
        assert!(cc.cong_control(s, &rs), "BBR takes over every ACK");
    }

    fn acks(cc: &mut Bbr, s: &mut Socket, n: usize, a: Ack) {
        for _ in 0..n {
            ack(cc, s, a);
        }
    }

    /// STARTUP with samples of `bw` until the pipe is full (round 1 sets full_bw,
    /// rounds 2-4 bring no growth), then DRAIN until in flight falls to the BDP:
    /// PROBE_BW.
    fn probe_bw_at(bw: f64, params: serde_json::Value) -> (Bbr, Socket) {
        reach_probe_bw(bbr(params), bw)
    }

    fn reach_probe_bw((mut cc, mut s): (Bbr, Socket), bw: f64) -> (Bbr, Socket) {
        s.in_flight = 200;
        acks(
            &mut cc,
            &mut s,
            4,
            Ack {
                bw: Some(bw),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::Drain);
        let bdp = (bw * RTT) as u32;
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(bw),
                in_flight: Some(bdp),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::ProbeBw);
        (cc, s)
    }

    /// PROBE_BW at 400 segments/s starting in phase 0 (`cycle_rand = 1`: the start
    /// is always the phase after 7), with ACK-aggregation provisioning off so that
    /// targets are plain `gain x BDP + budget`.
    fn probe_bw(extra: serde_json::Value) -> (Bbr, Socket) {
        let mut params = json!({ "cycle_rand": 1, "extra_acked_gain": 0.0 });
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (cc, s) = probe_bw_at(BW, params);
        assert_eq!(cc.cycle_idx, 0);
        (cc, s)
    }

    /// Moves the gain cycle to `idx` (the rules that move it have their own tests).
    fn set_phase(cc: &mut Bbr, idx: usize) {
        cc.cycle_idx = idx;
        cc.update_gains();
    }

    fn mbps_pacing(gain: f64, bw: f64) -> f64 {
        gain * bw * f64::from(MSS) * 8.0 * 0.99
    }

    #[test]
    fn init_paces_at_high_gain_times_the_initial_window_per_srtt_or_per_ms() {
        // No RTT yet: 2.885 x 10 segments / 1 ms x 8000 bit x 0.99 = 228.52 Mb/s.
        let (cc, s) = bbr(json!({}));
        assert!(
            close(s.pacing_rate_bps, 228_522_894.476_811_8, 1e-3),
            "{}",
            s.pacing_rate_bps
        );
        assert!(cc.needs_pacing() && s.ssthresh.is_infinite() && cc.mode == Mode::Startup);
        // SRTT 50 ms known at init: 2.885 x 10 / 0.05 x 8000 x 0.99 = 4.570 Mb/s; Linux
        // also sets an infinite ssthresh whatever the socket started with.
        let mut cc = Bbr::new(Params::default());
        let mut s = Socket::new(MSS, 10.0, 64.0);
        s.srtt_s = 0.05;
        cc.init(&mut s);
        assert!(
            close(s.pacing_rate_bps, 4_570_457.889_536_2, 1e-6),
            "{}",
            s.pacing_rate_bps
        );
        assert!(s.ssthresh.is_infinite() && cc.has_seen_rtt);
    }

    #[test]
    fn startup_uses_gain_2_over_ln2_for_pacing_and_cwnd_and_grows_cwnd_by_acked() {
        let (mut cc, mut s) = bbr(json!({}));
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 3,
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::Startup);
        assert_eq!((cc.pacing_gain, cc.cwnd_gain), (HIGH_GAIN, HIGH_GAIN));
        // Target ceil(2.885 x 40) + 6 = 122: cwnd 10 grows by the 3 segments acked.
        assert_eq!(cc.target_cwnd, 122.0);
        assert_eq!(s.cwnd, 13.0);
    }

    #[test]
    fn first_rtt_sample_resets_the_initial_pacing_rate_which_only_rises_before_the_pipe_is_full() {
        let (mut cc, mut s) = bbr(json!({}));
        // SRTT 100 ms: 2.885 x 10 / 0.1 x 8000 x 0.99 = 2.285 Mb/s; the 50 segments/s
        // sample would give 1.143 Mb/s, which may not lower it.
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(50.0),
                ..Ack::default()
            },
        );
        assert!(
            close(s.pacing_rate_bps, 2_285_228.944_768_1, 1e-6),
            "{}",
            s.pacing_rate_bps
        );
        // 200 segments/s: 4.570 Mb/s, higher, taken.
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(200.0),
                ..Ack::default()
            },
        );
        assert!(
            close(s.pacing_rate_bps, 4_570_457.889_536_2, 1e-6),
            "{}",
            s.pacing_rate_bps
        );
    }

    #[test]
    fn the_pipe_is_full_after_three_rounds_without_25_percent_growth() {
        let (mut cc, mut s) = bbr(json!({}));
        s.in_flight = 200;
        // full_bw: 100, 200 (>= 125), 400 (>= 250); 400 and 450 and 499 stay below 500.
        for bw in [100.0, 200.0, 400.0, 400.0, 450.0] {
            ack(
                &mut cc,
                &mut s,
                Ack {
                    bw: Some(bw),
                    ..Ack::default()
                },
            );
            // ACKs inside a round do not count.
            ack(
                &mut cc,
                &mut s,
                Ack {
                    bw: Some(bw),
                    new_round: false,
                    ..Ack::default()
                },
            );
        }
        let state = (cc.mode, cc.full_bw, cc.full_bw_cnt, cc.round_count);
        assert_eq!(state, (Mode::Startup, 400.0, 2, 5));
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(499.0),
                ..Ack::default()
            },
        );
        assert!(cc.full_bw_reached);
        assert_eq!(cc.mode, Mode::Drain);
        assert_eq!((cc.pacing_gain, cc.cwnd_gain), (DRAIN_GAIN, HIGH_GAIN));
        // Linux records the BDP in ssthresh on leaving STARTUP: ceil(49.9) + 6 = 56.
        assert_eq!(s.ssthresh, 56.0);
        assert_eq!(cc.ssthresh(&s), 56.0, "ssthresh() leaves it unchanged");
    }

    #[test]
    fn growth_of_exactly_25_percent_restarts_the_count() {
        let (mut cc, mut s) = bbr(json!({}));
        s.in_flight = 200;
        // 125 >= 1.25 x 100 restarts; 156 < 156.25 counts 1; 157 restarts; then 157
        // three times counts 1, 2, 3.
        for bw in [100.0, 125.0, 156.0, 157.0, 157.0, 157.0] {
            ack(
                &mut cc,
                &mut s,
                Ack {
                    bw: Some(bw),
                    ..Ack::default()
                },
            );
        }
        assert_eq!(
            (cc.full_bw, cc.full_bw_cnt, cc.mode),
            (157.0, 2, Mode::Startup)
        );
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(157.0),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::Drain);
    }

    #[test]
    fn app_limited_rounds_do_not_count_towards_a_full_pipe() {
        let (mut cc, mut s) = bbr(json!({}));
        s.in_flight = 200;
        ack(&mut cc, &mut s, Ack::default());
        acks(
            &mut cc,
            &mut s,
            5,
            Ack {
                app_limited: true,
                ..Ack::default()
            },
        );
        assert_eq!((cc.full_bw_cnt, cc.mode), (0, Mode::Startup));
        acks(&mut cc, &mut s, 3, Ack::default());
        assert_eq!(cc.mode, Mode::Drain);
    }

    #[test]
    fn drain_ends_when_in_flight_is_down_to_one_bdp() {
        // On the ACK that enters DRAIN the pacing gain and rate are still STARTUP's:
        // inflight(400, 1) = 40 + 3 x 2 = 46, and Linux counts the next TSO burst (2)
        // in flight as well.
        let (mut cc, mut s) = bbr(json!({}));
        s.in_flight = 200;
        acks(&mut cc, &mut s, 3, Ack::default());
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(45),
                ..Ack::default()
            },
        ); // 47 > 46
        assert_eq!(cc.mode, Mode::Drain);
        // In DRAIN the pacing rate, 0.347 x 3.168 = 1.098 Mb/s, is below 1.2 Mb/s: the
        // TSO goal drops to 1 and inflight(400, 1) to 40 + 3 -> 44.
        assert!(close(s.pacing_rate_bps, mbps_pacing(DRAIN_GAIN, BW), 1e-6));
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(45),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::Drain);
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(44),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::ProbeBw);
        assert_eq!(cc.cwnd_gain, 2.0);
        // Entering with in flight 44: 44 + 2 <= 46, straight through DRAIN.
        let (mut cc, mut s) = bbr(json!({}));
        s.in_flight = 200;
        acks(&mut cc, &mut s, 3, Ack::default());
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(44),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::ProbeBw);
    }

    #[test]
    fn probe_bw_starts_at_a_seeded_random_phase_but_never_0_75() {
        let start = |params: serde_json::Value| probe_bw_at(BW, params).0.cycle_idx;
        let phases: std::collections::BTreeSet<usize> = (0..200)
            .map(|seed| start(json!({ "cycle_seed": seed })))
            .collect();
        assert_eq!(
            phases.into_iter().collect::<Vec<_>>(),
            [0, 2, 3, 4, 5, 6, 7]
        );
        for seed in [0, 1, 12345] {
            assert_eq!(
                start(json!({ "cycle_seed": seed })),
                start(json!({ "cycle_seed": seed }))
            );
        }
        // ns-3's draw (6 phases) never starts in phase 2 either.
        let ns3: std::collections::BTreeSet<usize> = (0..200)
            .map(|seed| start(json!({ "cycle_seed": seed, "cycle_rand": 6 })))
            .collect();
        assert_eq!(ns3.into_iter().collect::<Vec<_>>(), [0, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn the_runs_seed_picks_the_phase_unless_cycle_seed_fixes_it() {
        let start = |params: serde_json::Value, run_seed: u64| {
            reach_probe_bw(bbr_seeded(params, run_seed), BW).0.cycle_idx
        };
        let phases: std::collections::BTreeSet<usize> =
            (0..200).map(|seed| start(json!({}), seed)).collect();
        assert_eq!(
            phases.into_iter().collect::<Vec<_>>(),
            [0, 2, 3, 4, 5, 6, 7]
        );
        let fixed = start(json!({ "cycle_seed": 5 }), 0);
        assert!((1..200).all(|seed| start(json!({ "cycle_seed": 5 }), seed) == fixed));
    }

    #[test]
    fn gain_cycle_probes_to_1_25_bdp_drains_to_1_bdp_then_cruises_one_rtprop_per_phase() {
        let (mut cc, mut s) = probe_bw(json!({}));
        assert_eq!(cc.pacing_gain, 1.25);
        // 1.25 x 400 x 8000 x 0.99 = 3.96 Mb/s.
        assert!(
            close(s.pacing_rate_bps, mbps_pacing(1.25, BW), 1e-6),
            "{}",
            s.pacing_rate_bps
        );
        // Phase 0 needs one RTprop and in flight (+ the TSO goal 2) at
        // inflight(400, 1.25) = ceil(50) + 6 + 2 (probe phase) = 58.
        s.in_flight = 60;
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.05,
                ..Ack::default()
            },
        ); // not a full RTprop yet
        assert_eq!(cc.cycle_idx, 0);
        s.in_flight = 55;
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.06,
                ..Ack::default()
            },
        ); // 55 + 2 < 58
        assert_eq!(cc.cycle_idx, 0);
        s.in_flight = 56;
        ack(&mut cc, &mut s, Ack::default()); // 56 + 2 = 58
        assert_eq!((cc.cycle_idx, cc.pacing_gain), (1, 0.75));
        assert!(
            close(s.pacing_rate_bps, mbps_pacing(0.75, BW), 1e-6),
            "{}",
            s.pacing_rate_bps
        );
        // Phase 1 ends early once in flight is down to inflight(400, 1) = 46.
        s.in_flight = 47;
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!(cc.cycle_idx, 1);
        s.in_flight = 46;
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!((cc.cycle_idx, cc.pacing_gain), (2, 1.0));
        assert!(
            close(s.pacing_rate_bps, mbps_pacing(1.0, BW), 1e-6),
            "{}",
            s.pacing_rate_bps
        );
        // Gain 1: exactly one RTprop is not enough, a little more is.
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.1,
                ..Ack::default()
            },
        );
        assert_eq!(cc.cycle_idx, 2);
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.001,
                ..Ack::default()
            },
        );
        assert_eq!(cc.cycle_idx, 3);
        for idx in [4, 5, 6, 7, 0] {
            ack(
                &mut cc,
                &mut s,
                Ack {
                    dt: 0.05,
                    ..Ack::default()
                },
            );
            ack(
                &mut cc,
                &mut s,
                Ack {
                    dt: 0.051,
                    ..Ack::default()
                },
            );
            assert_eq!(cc.cycle_idx, idx);
        }
        assert_eq!(cc.pacing_gain, 1.25);
    }

    #[test]
    fn a_loss_ends_the_probe_phase_after_one_rtprop_whatever_is_in_flight() {
        let (mut cc, mut s) = probe_bw(json!({}));
        s.in_flight = 10;
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.11,
                ..Ack::default()
            },
        );
        assert_eq!(cc.cycle_idx, 0);
        ack(
            &mut cc,
            &mut s,
            Ack {
                losses: 1,
                ..Ack::default()
            },
        );
        assert_eq!(cc.cycle_idx, 1);
    }

    #[test]
    fn cwnd_target_is_cwnd_gain_times_bdp_plus_the_quantization_budget() {
        let (mut cc, mut s) = probe_bw(json!({}));
        set_phase(&mut cc, 2);
        // 2 x 400 x 0.1 = 80, + 3 x 2 = 86 (even): a larger window snaps down to it.
        s.cwnd = 100.0;
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!((cc.target_cwnd, s.cwnd), (86.0, 86.0));
        // A smaller one grows by the segments acknowledged.
        s.cwnd = 50.0;
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 2,
                ..Ack::default()
            },
        );
        assert_eq!(s.cwnd, 52.0);
        // 401 segments/s: ceil(80.2) = 81, + 6 = 87, rounded up to even 88.
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(401.0),
                ..Ack::default()
            },
        );
        assert_eq!(cc.target_cwnd, 88.0);
        // The probe phase adds 2: 90.
        set_phase(&mut cc, 0);
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.0,
                bw: Some(401.0),
                ..Ack::default()
            },
        );
        assert_eq!(cc.target_cwnd, 90.0);
    }

    #[test]
    fn the_memoised_target_follows_each_of_its_inputs() {
        let (mut cc, mut s) =
            probe_bw(json!({ "quantization": "linux_tso", "extra_acked_gain": 1.0 }));
        set_phase(&mut cc, 2);
        let mut last = f64::NAN;
        // The memo must give what working the target out afresh gives, after each
        // input alone moves it.
        let mut check = |cc: &mut Bbr, s: &Socket, what: &str| {
            let bdp = cc.bdp(s, cc.bw(), cc.cwnd_gain) + cc.ack_aggregation_cwnd();
            let fresh = cc.quantization_budget(s, bdp);
            assert_ne!(fresh, last, "{what} should move the target");
            assert_eq!(cc.cwnd_target(s, cc.bw()), fresh, "{what}");
            last = fresh;
        };
        check(&mut cc, &s, "the first target");
        cc.min_rtt = Some(0.2);
        check(&mut cc, &s, "RTprop");
        cc.cwnd_gain = 3.0;
        check(&mut cc, &s, "the cwnd gain");
        cc.extra_acked = [0.0, 7.0];
        check(&mut cc, &s, "the ACK aggregation");
        s.pacing_rate_bps = 1e9;
        check(&mut cc, &s, "the pacing rate (TSO goal)");
        set_phase(&mut cc, 0);
        cc.cwnd_gain = 3.0;
        check(&mut cc, &s, "the probe phase");
        cc.full_bw_reached = false;
        check(&mut cc, &s, "the full pipe");
        cc.bw
            .update(u64::from(cc.p.bw_window_rounds), cc.round_count, 2.0 * BW);
        check(&mut cc, &s, "BtlBw");
    }

    #[test]
    fn quantization_variants() {
        // ns-3: + 3 segments, no rounding: 80 + 3 = 83, 81 + 3 = 84.
        let (mut cc, mut s) = probe_bw(json!({ "quantization": "ns3" }));
        set_phase(&mut cc, 2);
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!(cc.target_cwnd, 83.0);
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(401.0),
                ..Ack::default()
            },
        );
        assert_eq!(cc.target_cwnd, 84.0);
        // Below 1.2 Mb/s of pacing (10 segments/s = 79.2 kb/s) the TSO goal is 1:
        // ceil(2 x 10 x 0.1) = 2, + 3 = 5, rounded to 6.
        let (mut cc, mut s) = probe_bw_at(10.0, json!({ "extra_acked_gain": 0.0 }));
        set_phase(&mut cc, 2);
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(10.0),
                ..Ack::default()
            },
        );
        assert_eq!(cc.target_cwnd, 6.0);
        // TSO autosizing at 100,000 segments/s (792 Mb/s of pacing at gain 1): 1 ms is
        // 99 kB, capped at 65,215 B = 65 segments; 2 x 10,000 + 3 x 65 = 20,195 -> 20,196.
        let (mut cc, mut s) = probe_bw(json!({ "quantization": "linux_tso" }));
        set_phase(&mut cc, 2);
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(100_000.0),
                ..Ack::default()
            },
        );
        assert_eq!(cc.target_cwnd, 20_196.0);
    }

    #[test]
    fn without_an_rtt_the_target_is_the_initial_window_and_the_first_window_always_grows() {
        let (mut cc, mut s) = bbr(json!({}));
        // BDP unknown: initial window 10, + 6 = 16.
        ack(
            &mut cc,
            &mut s,
            Ack {
                rtt: None,
                ..Ack::default()
            },
        );
        assert_eq!((cc.target_cwnd, s.cwnd), (16.0, 11.0));
        // Above the target, STARTUP still grows until an initial window is delivered.
        s.cwnd = 20.0;
        ack(
            &mut cc,
            &mut s,
            Ack {
                rtt: None,
                ..Ack::default()
            },
        );
        assert_eq!(s.cwnd, 21.0);
        s.delivered = 20;
        ack(
            &mut cc,
            &mut s,
            Ack {
                rtt: None,
                ..Ack::default()
            },
        );
        assert_eq!(s.cwnd, 21.0);
    }

    #[test]
    fn ack_aggregation_adds_the_excess_acked_beyond_btlbw_for_5_to_10_rounds() {
        let (mut cc, mut s) = probe_bw(json!({ "extra_acked_gain": 1.0 }));
        set_phase(&mut cc, 2);
        // A long gap starts a fresh epoch (400 x 0.5 s expected > acked): extra 1.
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.5,
                new_round: false,
                ..Ack::default()
            },
        );
        (cc.extra_acked, cc.extra_acked_win_rtts) = ([0.0; 2], 0);
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.5,
                new_round: false,
                ..Ack::default()
            },
        );
        assert_eq!(cc.ack_aggregation_cwnd(), 1.0);
        // 30 segments 1 ms later: floor(400 x 0.001) = 0 expected, so 31 extra; the
        // target is 80 + 31 + 6 = 117 -> 118, cwnd 86 grows by 30 to 116.
        s.cwnd = 86.0;
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.001,
                acked: 30,
                new_round: false,
                ..Ack::default()
            },
        );
        assert_eq!((cc.target_cwnd, s.cwnd), (118.0, 116.0));
        // 30 more: 61 extra, capped at 100 ms of BtlBw = 40: target 126.
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.001,
                acked: 30,
                new_round: false,
                ..Ack::default()
            },
        );
        assert_eq!((cc.target_cwnd, s.cwnd), (126.0, 126.0));
        // Rounds 0.5 s apart add 1 extra each. The burst's bucket survives the switch
        // at round 5 and is cleared at round 10.
        for round in 1..=10 {
            ack(
                &mut cc,
                &mut s,
                Ack {
                    dt: 0.5,
                    ..Ack::default()
                },
            );
            let expected = if round < 10 { 40.0 } else { 1.0 };
            assert_eq!(cc.ack_aggregation_cwnd(), expected, "round {round}");
        }
    }

    #[test]
    fn btlbw_max_filter_forgets_a_sample_after_10_rounds() {
        let (mut cc, mut s) = bbr(json!({}));
        s.in_flight = 200;
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(1000.0),
                ..Ack::default()
            },
        );
        // Rounds 2-11: the round-1 sample is still inside the window (11 - 1 = 10).
        for _ in 2..=11 {
            ack(
                &mut cc,
                &mut s,
                Ack {
                    bw: Some(500.0),
                    ..Ack::default()
                },
            );
            ack(
                &mut cc,
                &mut s,
                Ack {
                    bw: Some(500.0),
                    new_round: false,
                    ..Ack::default()
                },
            );
        }
        assert_eq!((cc.round_count, cc.max_bw()), (11, 1000.0));
        // Round 12: it has expired.
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(500.0),
                ..Ack::default()
            },
        );
        assert_eq!((cc.round_count, cc.max_bw()), (12, 500.0));
    }

    #[test]
    fn app_limited_samples_only_raise_the_estimate() {
        // 15 rounds of app-limited samples at 100: none enters the filter, so 400
        // stays however old it is; non-app-limited ones replace it after 10 rounds.
        let (mut cc, mut s) = probe_bw(json!({}));
        acks(
            &mut cc,
            &mut s,
            15,
            Ack {
                bw: Some(100.0),
                app_limited: true,
                ..Ack::default()
            },
        );
        assert_eq!(cc.max_bw(), 400.0);
        ack(
            &mut cc,
            &mut s,
            Ack {
                bw: Some(500.0),
                app_limited: true,
                ..Ack::default()
            },
        );
        assert_eq!(cc.max_bw(), 500.0);
        let (mut cc, mut s) = probe_bw(json!({}));
        acks(
            &mut cc,
            &mut s,
            15,
            Ack {
                bw: Some(100.0),
                ..Ack::default()
            },
        );
        assert_eq!(cc.max_bw(), 100.0);
    }

    /// PROBE_BW (phase 0, no aggregation) with cwnd 86, its target in phase 2; RTT
    /// samples of 120 ms from now on, so RTprop (100 ms, stamped now) ages.
    fn aging_rtprop() -> (Bbr, Socket, Time) {
        let (mut cc, mut s) = probe_bw(json!({}));
        s.cwnd = 86.0;
        s.in_flight = 86;
        (cc.min_rtt_stamp, cc.min_rtt) = (s.now, Some(RTT));
        let stamp = s.now;
        // Ten seconds of ACKs, one per second: 10 s is not yet "older than 10 s".
        acks(
            &mut cc,
            &mut s,
            10,
            Ack {
                dt: 1.0,
                rtt: Some(0.12),
                ..Ack::default()
            },
        );
        assert_eq!((cc.mode, cc.min_rtt), (Mode::ProbeBw, Some(RTT)));
        assert_eq!(s.now, stamp + from_secs(10.0));
        (cc, s, stamp)
    }

    #[test]
    fn probe_rtt_after_10_s_without_a_new_minimum_holds_4_segments_for_200_ms_and_a_round() {
        let (mut cc, mut s, _) = aging_rtprop();
        let cwnd = s.cwnd;
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.001,
                rtt: Some(0.12),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::ProbeRtt);
        assert_eq!(
            cc.min_rtt,
            Some(0.12),
            "the expired estimate takes the new sample"
        );
        assert_eq!(
            (cc.pacing_gain, cc.cwnd_gain, s.cwnd, cc.prior_cwnd),
            (1.0, 1.0, 4.0, cwnd)
        );
        // The 200 ms start once in flight is down to 4.
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(5),
                ..Ack::default()
            },
        );
        assert_eq!(cc.probe_rtt_done_stamp, None);
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(4),
                ..Ack::default()
            },
        );
        let done = s.now + from_secs(0.2);
        assert_eq!(cc.probe_rtt_done_stamp, Some(done));
        // A round ends 100 ms later, but the time is not up; nor at exactly 200 ms.
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.1,
                ..Ack::default()
            },
        );
        assert!(cc.probe_rtt_round_done);
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.1,
                ..Ack::default()
            },
        );
        assert_eq!((cc.mode, s.cwnd), (Mode::ProbeRtt, 4.0));
        // Just after: back to PROBE_BW (the pipe was full), window restored to 86 and
        // grown by the segment acked towards the target, 86 + 2 in the probe phase.
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.001,
                ..Ack::default()
            },
        );
        assert_eq!((cc.mode, cc.cycle_idx), (Mode::ProbeBw, 0));
        assert_eq!(cc.min_rtt_stamp, s.now, "the RTprop clock restarts");
        assert_eq!(s.cwnd, 87.0);
    }

    #[test]
    fn probe_rtt_lasts_at_least_one_round() {
        let (mut cc, mut s, _) = aging_rtprop();
        // Entering with 4 in flight starts the 200 ms and a round at once.
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.001,
                in_flight: Some(4),
                ..Ack::default()
            },
        );
        assert!(cc.probe_rtt_done_stamp.is_some());
        acks(
            &mut cc,
            &mut s,
            3,
            Ack {
                dt: 0.1,
                new_round: false,
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::ProbeRtt, "300 ms but no round yet");
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!(cc.mode, Mode::ProbeBw);
    }

    #[test]
    fn probe_rtt_samples_are_app_limited_and_startup_resumes_after_it() {
        // STARTUP kept going by app-limited rounds for 10 s, RTprop stamped at 0.01 s.
        let (mut cc, mut s) = bbr(json!({ "extra_acked_gain": 0.0 }));
        s.in_flight = 200;
        ack(&mut cc, &mut s, Ack::default());
        let idle = Ack {
            dt: 1.0,
            rtt: Some(0.12),
            app_limited: true,
            ..Ack::default()
        };
        acks(&mut cc, &mut s, 10, idle);
        assert_eq!(
            (cc.mode, cc.full_bw, cc.full_bw_cnt),
            (Mode::Startup, 400.0, 0)
        );
        let cwnd = s.cwnd;
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(4),
                app_limited: true,
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::ProbeRtt);
        // Rounds whose samples the socket does not mark: Linux's PROBE_RTT mark makes
        // them app-limited, so three of them do not declare the pipe full.
        acks(
            &mut cc,
            &mut s,
            3,
            Ack {
                dt: 0.1,
                ..Ack::default()
            },
        );
        assert_eq!((cc.full_bw_cnt, cc.full_bw_reached), (0, false));
        assert_eq!(
            cc.mode,
            Mode::Startup,
            "PROBE_RTT done; the pipe is not known to be full"
        );
        assert_eq!(s.cwnd, cwnd + 1.0, "restored, then one segment acked");
        // Segments sent after the mark lapsed are counted again.
        let end = cc.probe_rtt_app_limited.unwrap().1;
        s.delivered = end + 1;
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!((cc.full_bw_cnt, cc.probe_rtt_app_limited), (1, None));
    }

    #[test]
    fn a_restart_from_idle_paces_at_btlbw_and_skips_probe_rtt() {
        let (mut cc, mut s, _) = aging_rtprop();
        set_phase(&mut cc, 0);
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert!(
            close(s.pacing_rate_bps, mbps_pacing(1.0, BW), 1e-6),
            "{}",
            s.pacing_rate_bps
        );
        // RTprop expires on the first ACK after the restart: it is refreshed, but no
        // PROBE_RTT, and the next ACK finds a fresh estimate.
        ack(
            &mut cc,
            &mut s,
            Ack {
                dt: 0.001,
                rtt: Some(0.12),
                ..Ack::default()
            },
        );
        assert_eq!(
            (cc.mode, cc.min_rtt, cc.min_rtt_stamp),
            (Mode::ProbeBw, Some(0.12), s.now)
        );
        ack(
            &mut cc,
            &mut s,
            Ack {
                rtt: Some(0.12),
                ..Ack::default()
            },
        );
        assert_eq!(cc.mode, Mode::ProbeBw);
    }

    #[test]
    fn an_empty_pipe_after_a_timeout_is_not_a_restart_from_idle() {
        let (mut cc, mut s) = probe_bw(json!({}));
        let pacing = s.pacing_rate_bps;
        s.ca_state = CaState::Loss;
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert!(!cc.idle_restart && s.pacing_rate_bps == pacing);
        s.ca_state = CaState::Open;
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert!(cc.idle_restart && s.pacing_rate_bps < pacing);
    }

    #[test]
    fn recovery_conserves_packets_for_one_round_then_slow_starts_and_restores_on_exit() {
        let (mut cc, mut s) = probe_bw(json!({}));
        set_phase(&mut cc, 2);
        (s.cwnd, s.in_flight) = (86.0, 86);
        // Loss detected (the socket's order): ssthresh, then the state change.
        assert_eq!(
            cc.ssthresh(&s),
            46.0,
            "ssthresh stays the BDP recorded at DRAIN"
        );
        assert_eq!(cc.prior_cwnd, 86.0);
        cc.set_state(&mut s, CaState::Recovery);
        s.ca_state = CaState::Recovery;
        // First ACK: 3 lost, 1 SACKed, 80 left in flight: cwnd = 80 + 1 = 81.
        let within = Ack {
            new_round: false,
            ..Ack::default()
        };
        ack(
            &mut cc,
            &mut s,
            Ack {
                losses: 3,
                in_flight: Some(80),
                ..within
            },
        );
        assert!(cc.packet_conservation);
        assert_eq!(s.cwnd, 81.0);
        // Within the round: no more than what left the network (81 in flight, 2 acked),
        // and the window is kept when less is in flight (75 + 2).
        s.in_flight = 81;
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 2,
                in_flight: Some(79),
                ..within
            },
        );
        assert_eq!(s.cwnd, 81.0);
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 2,
                in_flight: Some(75),
                ..within
            },
        );
        assert_eq!(s.cwnd, 81.0);
        // A loss comes off the window, 81 - 1 = 80 (76 + 2 in flight is less) ...
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 2,
                losses: 1,
                in_flight: Some(76),
                ..within
            },
        );
        assert_eq!(s.cwnd, 80.0);
        // ... but it never goes below in flight + acked: max(80 - 1, 79 + 2) = 81.
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 2,
                losses: 1,
                in_flight: Some(79),
                ..within
            },
        );
        assert_eq!(s.cwnd, 81.0);
        // The round ends: slow start towards the target, 81 + 2.
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 2,
                in_flight: Some(78),
                ..Ack::default()
            },
        );
        assert!(!cc.packet_conservation);
        assert_eq!(s.cwnd, 83.0);
        // Recovery ends. The socket sets cwnd = ssthresh (46) when it is finite, which
        // Linux does not do for BBR: the completion event puts back 83.
        s.cwnd = s.ssthresh;
        cc.cwnd_event(&mut s, CwndEvent::CompleteRecovery);
        assert_eq!(s.cwnd, 83.0);
        cc.set_state(&mut s, CaState::Open);
        s.ca_state = CaState::Open;
        // Exit: max(83, saved 86) = 86, then min(86 + 1, target 86).
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!(s.cwnd, 86.0);
    }

    #[test]
    fn rto_restarts_from_one_segment_and_restores_the_saved_window_on_leaving_loss() {
        let (mut cc, mut s) = probe_bw(json!({}));
        set_phase(&mut cc, 2);
        (s.cwnd, s.in_flight) = (86.0, 86);
        cc.full_bw = 400.0;
        // The socket's timeout: ssthresh, cwnd_event(Loss), cwnd = 1, set_state(Loss).
        assert!(cc.ssthresh(&s) == s.ssthresh && cc.prior_cwnd == 86.0);
        cc.cwnd_event(&mut s, CwndEvent::Loss);
        s.cwnd = 1.0;
        s.in_flight = 0;
        cc.set_state(&mut s, CaState::Loss);
        s.ca_state = CaState::Loss;
        assert_eq!((cc.full_bw, cc.full_bw_reached, cc.lost), (0.0, true, 86));
        // In Loss: grow by acked towards the target, but never below 4.
        ack(
            &mut cc,
            &mut s,
            Ack {
                in_flight: Some(0),
                ..Ack::default()
            },
        );
        assert_eq!(s.cwnd, 4.0);
        ack(
            &mut cc,
            &mut s,
            Ack {
                acked: 2,
                ..Ack::default()
            },
        );
        assert_eq!(s.cwnd, 6.0);
        // A second timeout inside the episode keeps the larger saved window.
        assert!(cc.ssthresh(&s) == s.ssthresh && cc.prior_cwnd == 86.0);
        // Back to Open: max(6, 86), then min(86 + 1, 86).
        s.ca_state = CaState::Open;
        ack(&mut cc, &mut s, Ack::default());
        assert_eq!(s.cwnd, 86.0);
    }

    #[test]
    fn undo_restarts_full_pipe_detection_and_keeps_the_window() {
        let (mut cc, mut s) = bbr(json!({}));
        (cc.full_bw, cc.full_bw_cnt, s.cwnd) = (400.0, 2, 30.0);
        cc.lt.is_sampling = true;
        assert_eq!(cc.undo_cwnd(&s), 30.0);
        assert_eq!(
            (cc.full_bw, cc.full_bw_cnt, cc.lt.is_sampling),
            (0.0, 0, false)
        );
    }

    /// `n` rounds 100 ms apart, each acknowledging `acked` segments and losing `losses`.
    fn lossy_rounds(cc: &mut Bbr, s: &mut Socket, n: usize, acked: u32, losses: u32) {
        acks(
            cc,
            s,
            n,
            Ack {
                dt: 0.1,
                acked,
                losses,
                ..Ack::default()
            },
        );
    }

    #[test]
    fn long_term_estimator_detects_a_policer_and_paces_at_its_rate_for_48_rounds() {
        let (mut cc, mut s) = probe_bw(json!({}));
        // The first loss starts sampling (round 1). Rounds 2-4: 60 lost of 240
        // delivered (25% > 19.5%) over 0.3 s: 800 segments/s.
        lossy_rounds(&mut cc, &mut s, 4, 80, 20);
        assert!(
            cc.lt.is_sampling && !cc.lt.use_bw && close(cc.lt.bw, 800.0, 1e-9),
            "{}",
            cc.lt.bw
        );
        // Rounds 5-8: 72 lost of 280 over 0.4 s: 700, within 1/8 of 800 (the 100
        // segments/s apart are far above the 4 kbit/s absolute criterion): policed,
        // at the mean 750.
        lossy_rounds(&mut cc, &mut s, 4, 70, 18);
        assert!(cc.lt.use_bw && close(cc.bw(), 750.0, 1e-9), "{}", cc.bw());
        assert_eq!(cc.pacing_gain, 1.0);
        // 1 x 750 x 8000 x 0.99 = 5.94 Mb/s, while the max filter still says 400.
        assert!(
            close(s.pacing_rate_bps, mbps_pacing(1.0, 750.0), 1e-3),
            "{}",
            s.pacing_rate_bps
        );
        assert_eq!(cc.max_bw(), 400.0);
        // No gain cycling meanwhile: even the probe phase paces at gain 1.
        set_phase(&mut cc, 0);
        assert_eq!(cc.pacing_gain, 1.0);
        acks(&mut cc, &mut s, 47, Ack::default());
        assert!(cc.lt.use_bw);
        ack(&mut cc, &mut s, Ack::default());
        assert!(!cc.lt.use_bw && cc.bw() == 400.0);
    }

    #[test]
    fn long_term_estimator_needs_heavy_loss_and_consistent_rates_and_can_be_turned_off() {
        // 10 lost per 80 (12.5% < 19.5%), or the estimator off: nothing measured.
        for (params, losses) in [(json!({}), 10), (json!({ "lt_bw": false }), 20)] {
            let (mut cc, mut s) = probe_bw(params);
            lossy_rounds(&mut cc, &mut s, 20, 80, losses);
            assert!(!cc.lt.use_bw && cc.lt.bw == 0.0);
        }
        // 800 then 600 (60 lost of 240 over 0.4 s): 200 apart, more than 1/8 of 800:
        // not a policer; 600 becomes the reference for the next interval.
        let (mut cc, mut s) = probe_bw(json!({}));
        lossy_rounds(&mut cc, &mut s, 4, 80, 20);
        lossy_rounds(&mut cc, &mut s, 4, 60, 15);
        assert!(
            !cc.lt.use_bw && close(cc.lt.bw, 600.0, 1e-9),
            "{}",
            cc.lt.bw
        );
        // At low rates 4 kbit/s suffices: 6 segments over 3 s (2/s), then 10 over 4 s
        // (2.5/s), 0.5 segment/s = 3.96 kbit/s apart (more than 1/8): policed at 2.25.
        let (mut cc, mut s) = probe_bw(json!({}));
        for acked in [2, 2, 2, 2, 3, 2, 2, 3] {
            ack(
                &mut cc,
                &mut s,
                Ack {
                    dt: 1.0,
                    acked,
                    losses: 1,
                    ..Ack::default()
                },
            );
        }
        assert!(cc.lt.use_bw && close(cc.lt.bw, 2.25, 1e-9), "{}", cc.lt.bw);
    }

    #[test]
    fn state_exports_the_model() {
        let (mut cc, s) = probe_bw(json!({}));
        cc.mss = s.mss;
        let mut out = Vec::new();
        cc.state(&mut out);
        let get = |k: &str| out.iter().find(|(n, _)| *n == k).map(|(_, v)| *v).unwrap();
        assert_eq!(get("mode"), 2.0);
        assert!(close(get("btlbw_mbps"), 3.2, 1e-12)); // 400 x 1000 x 8
        assert!(close(get("rtprop_ms"), 100.0, 1e-9));
        assert_eq!(
            (get("pacing_gain"), get("cwnd_gain"), get("cycle_index")),
            (1.25, 2.0, 0.0)
        );
        assert_eq!((get("full_bw_reached"), get("round_count")), (1.0, 5.0));
    }

    /// PROBE_BW at 400 segments/s with ns-3's or Linux's reading of the samples.
    fn probe_bw_samples(samples: &str) -> (Bbr, Socket) {
        probe_bw(json!({ "samples": samples }))
    }

    #[test]
    fn under_ns3_samples_an_ack_without_a_valid_sample_still_ends_a_round() {
        // ACKs of segments sent after the round began, none with a valid sample:
        // Linux counts no round; ns-3 hands BBR the last recorded rate and counts
        // each. The filter keeps 400 (fed 400 again).
        for (samples, rounds) in [("linux", 0), ("ns3", 10)] {
            let (mut cc, mut s) = probe_bw_samples(samples);
            let before = cc.round_count;
            acks(
                &mut cc,
                &mut s,
                10,
                Ack {
                    bw: None,
                    ..Ack::default()
                },
            );
            assert_eq!(cc.round_count - before, rounds, "{samples}");
            assert_eq!(cc.max_bw(), BW, "{samples}");
        }
        // Before any rate was recorded ns-3's rate is 0 and `UpdateBtlBw` returns
        // early: no round then either.
        let (mut cc, mut s) = bbr(json!({ "samples": "ns3" }));
        acks(
            &mut cc,
            &mut s,
            3,
            Ack {
                bw: None,
                ..Ack::default()
            },
        );
        assert_eq!(cc.round_count, 0);
    }

    #[test]
    fn under_ns3_samples_a_tiny_sample_and_invalid_acks_empty_the_filter_in_ten_packets() {
        // ns-3 re-sending segments in flight: the original's ACK carries the
        // re-send's fresh stamp, so it ends a round with a sample of 1 segment per
        // (almost) an RTT; the next ACKs, too close to the re-sends, give invalid
        // samples, yet end rounds on the stale rate. Within 10 rounds 400 expires.
        let run = |samples: &str| {
            let (mut cc, mut s) = probe_bw_samples(samples);
            ack(
                &mut cc,
                &mut s,
                Ack {
                    bw: Some(10.0),
                    ..Ack::default()
                },
            );
            acks(
                &mut cc,
                &mut s,
                11,
                Ack {
                    bw: None,
                    ..Ack::default()
                },
            );
            cc.max_bw()
        };
        assert_eq!(run("linux"), BW);
        assert_eq!(run("ns3"), 10.0);
    }

    #[test]
    fn under_ns3_samples_a_low_app_limited_sample_hands_on_the_recorded_rate() {
        // Twelve rounds of application-limited samples at 100, then a full one at
        // 200. Linux ignores the low app-limited samples, so 400 was last fed 13
        // rounds ago and has expired: 200. ns-3 does not record them and hands BBR
        // its last recorded 400 instead, which refreshes the filter: 400 stays.
        let run = |samples: &str| {
            let (mut cc, mut s) = probe_bw_samples(samples);
            acks(
                &mut cc,
                &mut s,
                12,
                Ack {
                    bw: Some(100.0),
                    app_limited: true,
                    ..Ack::default()
                },
            );
            ack(
                &mut cc,
                &mut s,
                Ack {
                    bw: Some(200.0),
                    ..Ack::default()
                },
            );
            cc.max_bw()
        };
        assert_eq!(run("linux"), 200.0);
        assert_eq!(run("ns3"), BW);
    }

    #[test]
    fn under_ns3_samples_the_round_uses_the_newest_prior_delivered_seen() {
        // An ACK whose newest segment is no newer than one already delivered (as
        // after a re-send) leaves ns-3's `prior_delivered` and its app-limited flag
        // as they were: the round test and the full-pipe check read those.
        let (mut cc, mut s) = probe_bw_samples("ns3");
        ack(
            &mut cc,
            &mut s,
            Ack {
                app_limited: true,
                ..Ack::default()
            },
        );
        let newest = cc.ns3_prior_delivered;
        ack(
            &mut cc,
            &mut s,
            Ack {
                new_round: false,
                ..Ack::default()
            },
        );
        assert_eq!((cc.ns3_prior_delivered, cc.ns3_app_limited), (newest, true));
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "high_gain": 1.0 }), "high_gain = 1: must be > 1"),
            (
                json!({ "drain_gain": 1.5 }),
                "drain_gain = 1.5: must be in (0, 1)",
            ),
            (json!({ "cwnd_gain": 0.5 }), "cwnd_gain = 0.5: must be >= 1"),
            (json!({ "bw_window_rounds": 0 }), "bw_window_rounds = 0"),
            (json!({ "min_cwnd": 0.5 }), "min_cwnd = 0.5"),
            (
                json!({ "pacing_margin": 1.0 }),
                "pacing_margin = 1: must be in [0, 1)",
            ),
            (json!({ "full_bw_threshold": 1.0 }), "full_bw_threshold"),
            (
                json!({ "cycle_rand": 0 }),
                "cycle_rand = 0: must be in 1..=7",
            ),
            (json!({ "cycle_rand": 8 }), "cycle_rand = 8"),
            (
                json!({ "probe_rtt_duration_ms": -1.0 }),
                "probe_rtt_duration_ms",
            ),
            (json!({ "quantization": "tso" }), "linux_no_tso"),
            (json!({ "samples": "ns-3" }), "ns3"),
            (json!({ "gain": 2.0 }), "gain"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
        assert!(build(&json!({})).is_ok());
    }
}
