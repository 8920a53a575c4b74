//! Congestion control: the interface every algorithm implements, and the registry
//! that builds one from its name and parameters.
//!
//! The interface mirrors Linux `struct tcp_congestion_ops` (and ns-3's
//! `TcpCongestionOps`): the socket ([`crate::tcp`]) owns loss detection, recovery
//! and the state machine; an algorithm only decides how `cwnd`, `ssthresh` and
//! (optionally) the pacing rate move. It sees what a kernel module would see
//! ([`Socket`], [`RateSample`]) plus read-only cross-layer [`LinkHints`], and nothing
//! of the network. Adding an algorithm is one file here plus one line in [`ALGORITHMS`].

mod bbr;
mod bbr_filter;
mod bic;
mod cubic;
mod dtcp;
mod fbtcp;
pub mod fixed;
mod highspeed;
pub mod hosted;
mod mrvhs;
mod mss;
mod newreno;
mod rtt_variation;
mod rttv;
mod scalable;
mod vegas;
mod westwood;
mod yeah;

use crate::engine::Time;
use serde::de::DeserializeOwned;

/// Congestion state of a connection, as Linux `enum tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaState {
    /// Nothing outstanding is thought lost.
    Open,
    /// Duplicate ACKs or SACKs seen, no loss declared yet.
    Disorder,
    /// Fast recovery after a loss detected by duplicate ACKs / SACK.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

impl CaState {
    pub fn as_str(self) -> &'static str {
        match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
}

/// Events outside the ACK path, as Linux `enum tcp_ca_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// First transmission when nothing was in flight.
    TxStart,
    /// A retransmission timeout fired (Linux `CA_EVENT_LOSS`).
    Loss,
    /// Fast recovery completed (Linux `CA_EVENT_COMPLETE_CWR`).
    CompleteRecovery,
}

/// How the socket responds to a loss detected by duplicate ACKs or SACK. This is
/// the one place where the Reno family differs in recovery rather than in window
/// rules, so the algorithm chooses it and the socket carries it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossResponse {
    /// Fast retransmit and fast recovery until everything outstanding at the loss is
    /// acknowledged: PRR with SACK, RFC 6582 partial ACKs without (NewReno and all
    /// modern algorithms).
    FastRecovery,
    /// RFC 5681 Reno: fast recovery ends at the first ACK that advances, so each
    /// further hole in the window waits for its own duplicate ACKs and reduction.
    RenoRecovery,
    /// Tahoe: no fast recovery; every loss sets the loss window (1 segment) and slow
    /// starts again from the lost segment, as after a timeout but without back-off.
    SlowStart,
}

/// Read-only cross-layer information from the radio, when the scenario exposes it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkHints {
    /// SINR of the serving link in dB (mmWave scenarios only).
    pub sinr_db: Option<f64>,
    /// Bytes the receiving application has received so far: an oracle no real
    /// sender has, offered because FB-TCP's reference code reads its rate from the
    /// receiver. Always set by the simulator.
    pub receiver_delivered_bytes: u64,
    /// The same count on the FB-TCP scripts' fixed 100 ms grid (see [`SinkGrid`]).
    /// Always kept by the simulator.
    pub receiver_grid: SinkGrid,
}

/// Spacing of [`SinkGrid`]'s points: the FB-TCP scripts' `CalculateThroughput`
/// reschedules itself every 100 ms.
pub const SINK_GRID: Time = 100_000_000;

/// The receiving application's byte count at the points `k x SINK_GRID` (k = 0, 1, ...)
/// of a fixed grid from time 0, as the FB-TCP scripts' `CalculateThroughput` reads its
/// sink (first at 0 s, then every 100 ms) to hand FB-TCP the goodput of the last 100 ms.
/// The count at a point is what was delivered strictly before it. The simulator calls
/// [`SinkGrid::advance`] before each delivery adds its bytes, so the counts at the
/// points are exact whenever the algorithm reads them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinkGrid {
    /// Index of the latest grid point passed so far.
    point: u64,
    /// The count at that point, and at the point before it (0 before time 0).
    at_point: u64,
    at_previous: u64,
    /// The next point's time, `(point + 1) x SINK_GRID` (0 before the first call):
    /// before it there is nothing to do, found without the division by the spacing
    /// that every delivered segment would otherwise pay.
    next: Time,
}

impl SinkGrid {
    /// Records that `bytes` had been delivered before `now`: every grid point in
    /// (the latest passed, `now`] gets that count.
    pub fn advance(&mut self, now: Time, bytes: u64) {
        if now < self.next {
            return;
        }
        let k = now / SINK_GRID;
        if k > self.point {
            self.at_previous = if k == self.point + 1 {
                self.at_point
            } else {
                bytes
            };
            self.at_point = bytes;
            self.point = k;
        }
        self.next = (self.point + 1) * SINK_GRID;
    }

    /// Bytes delivered between the last two grid points at or before `now`, given
    /// `bytes` delivered by `now`: the scripts' value, held until the next point.
    pub fn last_interval_bytes(mut self, now: Time, bytes: u64) -> u64 {
        self.advance(now, bytes);
        self.at_point - self.at_previous
    }
}

/// The part of the socket an algorithm sees. `cwnd`, `ssthresh` and
/// `pacing_rate_bps` are the algorithm's to write; the rest is read-only.
/// Windows are in segments (floating point), as docs/algorithms.md, "Conventions", fixes.
#[derive(Clone, Debug)]
pub struct Socket {
    pub cwnd: f64,
    /// `f64::INFINITY` until the first loss (the papers' "infinite" initial ssthresh).
    pub ssthresh: f64,
    /// Pacing rate (bit/s) used when pacing is on; 0 lets the socket derive it.
    pub pacing_rate_bps: f64,
    /// Maximum segment size in bytes.
    pub mss: u32,
    /// The configured initial window in segments.
    pub initial_cwnd: f64,
    /// cwnd before the current reduction started (for undo).
    pub prior_cwnd: f64,
    pub now: Time,
    /// Smoothed RTT in seconds, 0 before the first sample.
    pub srtt_s: f64,
    /// Minimum RTT seen on the connection, seconds (`f64::INFINITY` before any sample).
    pub min_rtt_s: f64,
    /// Packets in flight (Linux `tcp_packets_in_flight`).
    pub in_flight: u32,
    /// Segments delivered (cumulatively or selectively acknowledged) so far.
    pub delivered: u64,
    /// Highest sequence number sent plus one, and oldest unacknowledged, in bytes.
    pub snd_nxt: u64,
    pub snd_una: u64,
    /// True when the window, not the application or the receiver, limited sending in
    /// the last round (Linux `tcp_is_cwnd_limited`): growth is only allowed then.
    pub is_cwnd_limited: bool,
    /// When the last segment was sent (Linux `lsndtime`), to measure idle periods.
    pub last_send: Time,
    /// The socket paces its transmissions.
    pub pacing: bool,
    pub ca_state: CaState,
    pub link: LinkHints,
}

impl Socket {
    /// A socket at its initial state: the values a connection starts with.
    pub fn new(mss: u32, initial_cwnd: f64, initial_ssthresh: f64) -> Self {
        Self {
            cwnd: initial_cwnd,
            ssthresh: initial_ssthresh,
            pacing_rate_bps: 0.0,
            mss,
            initial_cwnd,
            prior_cwnd: initial_cwnd,
            now: 0,
            srtt_s: 0.0,
            min_rtt_s: f64::INFINITY,
            in_flight: 0,
            delivered: 0,
            snd_nxt: 0,
            snd_una: 0,
            is_cwnd_limited: true,
            last_send: 0,
            pacing: false,
            ca_state: CaState::Open,
            link: LinkHints::default(),
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What one ACK delivered, with a delivery-rate sample
/// (draft-cheng-iccrg-delivery-rate-estimation), as Linux `struct rate_sample`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Segments newly acknowledged, cumulatively or by SACK, by this ACK.
    pub acked_sacked: u32,
    /// Segments newly marked lost while processing this ACK.
    pub losses: u32,
    /// RTT measured from this ACK, seconds.
    pub rtt_s: Option<f64>,
    /// Packets in flight before this ACK was processed.
    pub prior_in_flight: u32,
    /// Segments delivered over `interval_s` (0 when the sample is invalid).
    pub delivered: u64,
    /// The sampling interval in seconds (0 when invalid).
    pub interval_s: f64,
    /// `socket.delivered` when the packet that produced this sample (the newest one
    /// this ACK delivered) was sent; given even when the sample is invalid, 0 when
    /// the ACK delivered nothing.
    pub prior_delivered: u64,
    /// That packet was sent while the application, not the network, limited sending.
    pub is_app_limited: bool,
}

impl RateSample {
    /// Delivery rate in bit/s, or None when this ACK gave no valid sample.
    pub fn delivery_rate_bps(&self, mss: u32) -> Option<f64> {
        (self.interval_s > 0.0 && self.delivered > 0)
            .then(|| self.delivered as f64 * mss as f64 * 8.0 / self.interval_s)
    }
}

/// A congestion-control algorithm, one instance per connection.
pub trait CongestionControl: Send {
    /// The name used in configs and on the command line.
    fn name(&self) -> &'static str;

    /// Called once before the first segment is sent.
    fn init(&mut self, _sock: &mut Socket) {}

    /// The connection's random seed, from the run's seed: an algorithm that draws
    /// random numbers seeds its generator with it unless its parameters fix one.
    fn seed(&mut self, _seed: u64) {}

    /// The new slow-start threshold (segments) when a loss is detected, by
    /// duplicate ACKs/SACK or by a timeout. Must not change `cwnd`.
    fn ssthresh(&mut self, sock: &Socket) -> f64;

    /// Window growth on an ACK outside recovery. The socket calls it only when the
    /// connection is cwnd-limited, with the number of segments newly acknowledged.
    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32);

    /// Every ACK, before any window change (Linux `pkts_acked` and `in_ack_event`).
    /// May set `ssthresh` (HyStart does); window changes belong in `cong_avoid`.
    fn on_ack(&mut self, _sock: &mut Socket, _rs: &RateSample) {}

    /// Full control of the window on every ACK (Linux `cong_control`, used by BBR).
    /// Return true to take over: the socket then applies neither PRR nor `cong_avoid`.
    fn cong_control(&mut self, _sock: &mut Socket, _rs: &RateSample) -> bool {
        false
    }

    /// The congestion state changed to `new` (`sock.ca_state` is still the old one).
    /// On a timeout the socket calls, as Linux `tcp_enter_loss` does: `ssthresh`,
    /// then `cwnd_event(Loss)`, then `set_state(Loss)`.
    fn set_state(&mut self, _sock: &mut Socket, _new: CaState) {}

    fn cwnd_event(&mut self, _sock: &mut Socket, _event: CwndEvent) {}

    /// The window a timeout restarts from, segments (Linux and RFC 5681: the loss
    /// window, one segment). Called after `ssthresh` and `cwnd_event(Loss)`.
    fn loss_window(&self, _sock: &Socket) -> f64 {
        1.0
    }

    /// The window to restore when a reduction is found spurious (Linux `undo_cwnd`).
    fn undo_cwnd(&mut self, sock: &Socket) -> f64 {
        sock.cwnd.max(sock.prior_cwnd)
    }

    /// True when the algorithm needs the socket to pace (BBR).
    fn needs_pacing(&self) -> bool {
        false
    }

    /// How the socket recovers from a loss detected by duplicate ACKs or SACK.
    fn loss_response(&self) -> LossResponse {
        LossResponse::FastRecovery
    }

    /// Internal state for the traces: (variable, value) pairs, e.g. ("w_max", 812.0).
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Reno's slow start: grow by one segment per acknowledged segment up to ssthresh.
/// Returns the acknowledged segments left over for congestion avoidance
/// (Linux `tcp_slow_start`).
pub fn slow_start(sock: &mut Socket, acked: u32) -> u32 {
    let cwnd = (sock.cwnd + acked as f64).min(sock.ssthresh.max(sock.cwnd));
    let used = (cwnd - sock.cwnd).max(0.0);
    sock.cwnd = cwnd;
    acked - (used.round() as u32).min(acked)
}

/// How slow start counts: per acknowledged segment (Linux, RFC 3465) or per ACK, as
/// ns-3's `TcpNewReno::SlowStart`, which its Reno-derived algorithms (HighSpeed,
/// Scalable, YeAH, Westwood+) inherit; with delayed ACKs the window then grows by half
/// per RTT instead of doubling.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SlowStartPer {
    #[default]
    Segment,
    Ack,
}

impl SlowStartPer {
    /// Grows the window in slow start for an ACK of `acked` segments and returns the
    /// segments left for congestion avoidance. Per ACK (ns-3): one segment, not capped
    /// at ssthresh, and the rest of the ACK's segments left over.
    pub fn grow(self, sock: &mut Socket, acked: u32) -> u32 {
        match self {
            SlowStartPer::Segment => slow_start(sock, acked),
            SlowStartPer::Ack if acked > 0 => {
                sock.cwnd += 1.0;
                acked - 1
            }
            SlowStartPer::Ack => 0,
        }
    }
}

/// Additive increase of `1 / w` segment per acknowledged segment: one segment per
/// `w` segments acknowledged (Linux `tcp_cong_avoid_ai`).
pub fn additive_increase(sock: &mut Socket, w: f64, acked: u32) {
    sock.cwnd += acked as f64 / w.max(1.0);
}

/// `x.floor()` for the non-negative window and rate values algorithms round
/// (negative inputs give 0). On baseline x86-64 `f64::floor` is a library call; a
/// conversion through an integer is a couple of instructions, which matters per ACK.
/// Signed conversions are single instructions there (unsigned ones are emulated in
/// about ten), so values below 2^63, all real ones, go through `i64`; the result is
/// the same as through `u64`.
#[inline]
pub fn floor_non_negative(x: f64) -> f64 {
    if x < I64_LIMIT {
        (x.max(0.0) as i64) as f64
    } else {
        (x as u64) as f64
    }
}

/// 2^63: the first value `i64` cannot hold.
const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// `x.ceil()` for non-negative values, like [`floor_non_negative`].
pub fn ceil_non_negative(x: f64) -> f64 {
    let f = floor_non_negative(x);
    if f < x { f + 1.0 } else { f }
}

/// The window a loss reduction is computed from. Linux reduces cwnd; ns-3 reduces
/// the data in flight (RFC 5681's FlightSize). Algorithms whose two references differ
/// here offer both as `ssthresh_basis`.
#[derive(Clone, Copy, Debug, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SsthreshBasis {
    /// cwnd, as Linux.
    Cwnd,
    /// Packets in flight, as ns-3.
    Inflight,
    /// The smaller of the two, as ns3-mmwave's `TcpCubic::GetSsThresh` (ns-3 3.29).
    Min,
}

impl SsthreshBasis {
    /// The window (segments) the reduction applies to.
    pub fn window(self, sock: &Socket) -> f64 {
        match self {
            SsthreshBasis::Cwnd => sock.cwnd,
            SsthreshBasis::Inflight => f64::from(sock.in_flight),
            SsthreshBasis::Min => sock.cwnd.min(f64::from(sock.in_flight)),
        }
    }
}

/// Valid ranges of numeric parameters, for [`check_ranges`].
#[derive(Clone, Copy, Debug)]
pub enum Range {
    Positive,
    NonNegative,
    AtLeastOne,
    AboveOne,
    OpenUnit,
}

impl Range {
    /// False for NaN whatever the range.
    fn contains(self, v: f64) -> bool {
        match self {
            Range::Positive => v > 0.0,
            Range::NonNegative => v >= 0.0,
            Range::AtLeastOne => v >= 1.0,
            Range::AboveOne => v > 1.0,
            Range::OpenUnit => v > 0.0 && v < 1.0,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Range::Positive => "> 0",
            Range::NonNegative => ">= 0",
            Range::AtLeastOne => ">= 1",
            Range::AboveOne => "> 1",
            Range::OpenUnit => "in (0, 1)",
        }
    }
}

/// The first parameter outside its range, as "key = value: must be <range>".
pub fn check_ranges(checks: &[(&str, f64, Range)]) -> Result<(), String> {
    match checks.iter().find(|(_, v, r)| !r.contains(*v)) {
        Some((key, value, range)) => Err(format!("{key} = {value}: must be {}", range.describe())),
        None => Ok(()),
    }
}

/// One registered algorithm.
pub struct Algorithm {
    pub name: &'static str,
    pub summary: &'static str,
    /// Builds an instance from the `[flows.cc]` table (an empty object for defaults).
    pub build: fn(&serde_json::Value) -> Result<Box<dyn CongestionControl>, String>,
}

/// Every algorithm a scenario can name.
pub const ALGORITHMS: &[Algorithm] = &[
    Algorithm {
        name: "newreno",
        summary: newreno::SUMMARY,
        build: newreno::build,
    },
    Algorithm {
        name: "reno",
        summary: newreno::RENO_SUMMARY,
        build: newreno::build_reno,
    },
    Algorithm {
        name: "tahoe",
        summary: newreno::TAHOE_SUMMARY,
        build: newreno::build_tahoe,
    },
    Algorithm {
        name: "highspeed",
        summary: highspeed::SUMMARY,
        build: highspeed::build,
    },
    Algorithm {
        name: "cubic",
        summary: cubic::SUMMARY,
        build: cubic::build,
    },
    Algorithm {
        name: "scalable",
        summary: scalable::SUMMARY,
        build: scalable::build,
    },
    Algorithm {
        name: "vegas",
        summary: vegas::SUMMARY,
        build: vegas::build,
    },
    Algorithm {
        name: "westwood",
        summary: westwood::SUMMARY,
        build: westwood::build,
    },
    Algorithm {
        name: "yeah",
        summary: yeah::SUMMARY,
        build: yeah::build,
    },
    Algorithm {
        name: "bic",
        summary: bic::SUMMARY,
        build: bic::build,
    },
    Algorithm {
        name: "bbr",
        summary: bbr::SUMMARY,
        build: bbr::build,
    },
    Algorithm {
        name: "fbtcp",
        summary: fbtcp::SUMMARY,
        build: fbtcp::build,
    },
    Algorithm {
        name: "rttv",
        summary: rttv::SUMMARY,
        build: rttv::build,
    },
    Algorithm {
        name: "mss",
        summary: mss::SUMMARY,
        build: mss::build,
    },
    Algorithm {
        name: "mrvhs",
        summary: mrvhs::SUMMARY,
        build: mrvhs::build,
    },
    Algorithm {
        name: "dtcp",
        summary: dtcp::SUMMARY,
        build: dtcp::build,
    },
];

pub fn names() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|a| a.name).collect()
}

/// Builds the algorithm `name` with `params`, a built-in or else one the embedding
/// program registered ([`hosted`]); errors name what would be valid.
pub fn build(name: &str, params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    if let Some(alg) = ALGORITHMS.iter().find(|a| a.name == name) {
        return (alg.build)(params);
    }
    hosted::build(name, params).unwrap_or_else(|| {
        let valid = [names(), hosted::names()].concat();
        Err(format!(
            "unknown algorithm '{name}'; valid: {}",
            valid.join(", ")
        ))
    })
}

/// Deserialises an algorithm's parameter table, rejecting unknown keys with the
/// key's name (every algorithm's `Params` uses `#[serde(deny_unknown_fields)]`).
pub fn parse_params<P: DeserializeOwned + Default>(
    params: &serde_json::Value,
) -> Result<P, String> {
    if params.is_null() {
        return Ok(P::default());
    }
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.inner().to_string()
        } else {
            format!("{path}: {}", e.inner())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn sink_grid_counts_what_was_delivered_before_each_point() {
        let mut g = SinkGrid::default();
        // Deliveries of 100 bytes at 50, 99, 100 (on the point: after it) and 150 ms.
        for (t, before) in [(50, 0), (99, 100), (100, 200), (150, 300)] {
            g.advance(t * MS, before);
        }
        let now = 150 * MS;
        assert_eq!(
            g.last_interval_bytes(now, 400),
            200,
            "[0, 100 ms): two deliveries"
        );
        assert_eq!(
            g.last_interval_bytes(199 * MS, 400),
            200,
            "held until 200 ms"
        );
        assert_eq!(
            g.last_interval_bytes(200 * MS, 400),
            200,
            "[100, 200 ms): two deliveries"
        );
        assert_eq!(
            g.last_interval_bytes(300 * MS, 400),
            0,
            "[200, 300 ms): none"
        );
    }

    #[test]
    fn sink_grid_skips_points_without_deliveries() {
        let mut g = SinkGrid::default();
        g.advance(30 * MS, 0);
        g.advance(450 * MS, 1000); // the 30 ms delivery brought 1000 bytes, the next is at 450 ms
        assert_eq!(
            g.last_interval_bytes(450 * MS, 1500),
            0,
            "[300, 400 ms) was empty"
        );
        assert_eq!(g.last_interval_bytes(500 * MS, 1500), 500, "[400, 500 ms)");
        let mut h = SinkGrid::default();
        h.advance(30 * MS, 0);
        assert_eq!(h.last_interval_bytes(100 * MS, 1000), 1000, "[0, 100 ms)");
        assert_eq!(
            h.last_interval_bytes(99 * MS, 1000),
            0,
            "before the first point: 0"
        );
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut s = Socket::new(1400, 10.0, 12.0);
        assert_eq!(slow_start(&mut s, 5), 3);
        assert_eq!(s.cwnd, 12.0);
    }

    #[test]
    fn slow_start_below_ssthresh_adds_one_per_ack() {
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        assert_eq!(slow_start(&mut s, 2), 0);
        assert_eq!(s.cwnd, 12.0);
    }

    #[test]
    fn slow_start_per_ack_adds_one_segment_whatever_the_ack_covers() {
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        assert_eq!(SlowStartPer::Ack.grow(&mut s, 2), 1);
        assert_eq!(s.cwnd, 11.0);
        // Not capped at ssthresh (ns-3): 11.5 -> 12.5 over ssthresh 12.
        let mut s = Socket::new(1400, 11.5, 12.0);
        assert_eq!(SlowStartPer::Ack.grow(&mut s, 3), 2);
        assert_eq!(s.cwnd, 12.5);
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        assert_eq!(SlowStartPer::Segment.grow(&mut s, 2), 0);
        assert_eq!(s.cwnd, 12.0);
    }

    #[test]
    fn additive_increase_is_one_segment_per_window() {
        let mut s = Socket::new(1400, 10.0, 5.0);
        for _ in 0..10 {
            additive_increase(&mut s, 10.0, 1);
        }
        assert!((s.cwnd - 11.0).abs() < 1e-12);
    }

    #[test]
    fn range_checks_name_the_first_bad_key_and_reject_nan() {
        assert_eq!(
            check_ranges(&[("a", 1.0, Range::Positive), ("b", 0.5, Range::OpenUnit)]),
            Ok(())
        );
        let e = check_ranges(&[("a", 1.0, Range::AboveOne), ("b", 2.0, Range::OpenUnit)]);
        assert_eq!(e, Err("a = 1: must be > 1".into()));
        assert!(check_ranges(&[("n", f64::NAN, Range::NonNegative)]).is_err());
        assert!(check_ranges(&[("n", 1.0, Range::AtLeastOne)]).is_ok());
    }

    #[test]
    fn fast_rounding_matches_std_for_non_negative_values() {
        for x in [0.0, 0.4, 1.0, 1.5, 2.999_999, 1e9 + 0.5, 123_456.0] {
            assert_eq!(floor_non_negative(x), f64::floor(x), "{x}");
            assert_eq!(ceil_non_negative(x), f64::ceil(x), "{x}");
        }
        assert_eq!(ceil_non_negative(-1e-9), 0.0);
        // Beyond i64 and at the edges it still agrees with the unsigned conversion.
        for x in [
            -2.5,
            f64::NAN,
            9.3e18,
            1.8e19,
            1e30,
            f64::INFINITY,
            9_223_372_036_854_774_784.0,
        ] {
            assert_eq!(floor_non_negative(x), (x as u64) as f64, "{x}");
        }
    }

    #[test]
    fn unknown_algorithm_lists_the_valid_ones() {
        let err = build("nope", &serde_json::Value::Null).err().unwrap();
        assert!(
            err.contains("unknown algorithm 'nope'") && err.contains("cubic"),
            "{err}"
        );
    }

    #[test]
    fn every_algorithm_builds_with_defaults() {
        for a in ALGORITHMS {
            let cc = (a.build)(&serde_json::json!({})).unwrap();
            assert_eq!(cc.name(), a.name);
        }
    }
}
