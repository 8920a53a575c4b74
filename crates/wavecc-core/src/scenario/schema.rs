//! The config schema. Units are in the key names and SI inside (`_s`, `_bps`,
//! `_bytes`); every key has a default except the list of flows.

use crate::app::{AppKind, AppSpec, PeriodDistribution, Periods, Traffic};
use crate::net::LinkTrace;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

fn default_name() -> String {
    "unnamed".into()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The scenario's name: the default output directory (`out/NAME`) and figure titles.
    #[serde(default = "default_name")]
    pub name: String,
    /// One line saying what the scenario is (`wavecc scenarios list` shows it).
    #[serde(default)]
    pub description: String,
    /// Simulated duration in seconds.
    #[serde(default = "defaults::duration_s")]
    pub duration_s: f64,
    /// The random seed: every random stream of the run is drawn from it (the same config
    /// and seed give bit-identical results).
    #[serde(default = "defaults::seed")]
    pub seed: u64,
    /// The wired path; with `[radio]`, the Internet link from the server to the PGW.
    #[serde(default)]
    pub path: PathConfig,
    /// A 5G mmWave access network after the wired path; absent for a wired scenario.
    #[serde(default)]
    pub radio: Option<super::radio::RadioConfig>,
    /// The TCP sender and receiver of every flow.
    #[serde(default)]
    pub tcp: TcpConfig,
    /// What the run records, and how often it samples.
    #[serde(default)]
    pub trace: TraceConfig,
    /// The flows; at least one.
    pub flows: Vec<FlowConfig>,
}

mod defaults {
    pub fn duration_s() -> f64 {
        60.0
    }
    pub fn seed() -> u64 {
        1
    }
}

/// The shared wired path: server side -> bottleneck link -> client side, and the
/// reverse link the ACKs take. Each flow may add its own access link in front of
/// the bottleneck (a dumbbell).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PathConfig {
    /// Rate of the bottleneck link, bits per second.
    pub rate_bps: f64,
    /// Rate of the reverse (ACK) direction; 0 means the same as `rate_bps`.
    pub reverse_rate_bps: f64,
    /// Propagation delay of the bottleneck link in each direction, seconds.
    pub one_way_delay_s: f64,
    /// Drop-tail limit of the bottleneck queue in bytes (0: use `buffer_packets`).
    pub buffer_bytes: u64,
    /// Drop-tail limit in packets (0: use `buffer_bytes`). Exactly one must be set.
    pub buffer_packets: u32,
    /// Largest IP packet: at least `tcp.mss_bytes` plus 52 header bytes, at most 65535.
    pub mtu_bytes: u32,
    pub loss: LossConfig,
    /// A link trace file (docs/traces.md) that replaces the bottleneck's rate, delays,
    /// buffer and random loss (the other path keys but `mtu_bytes` are then ignored):
    /// its slots serve the data direction, looping. A relative path is taken from the
    /// scenario file's directory, or from the working directory when it comes from
    /// `--set` or a Python dict. Absent: the path keys describe the link.
    pub trace: Option<String>,
    /// The parsed `trace`, read once when the config is loaded.
    #[serde(skip)]
    #[schemars(skip)]
    pub trace_link: Option<Arc<LinkTrace>>,
}

impl Default for PathConfig {
    fn default() -> Self {
        Self {
            rate_bps: 1e9,
            reverse_rate_bps: 0.0,
            one_way_delay_s: 0.010,
            buffer_bytes: 2_500_000,
            buffer_packets: 0,
            mtu_bytes: 1500,
            loss: LossConfig::default(),
            trace: None,
            trace_link: None,
        }
    }
}

/// Random loss on the bottleneck, at its receiving end (where the papers' ns-3
/// scenarios put the PGW's `RateErrorModel`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LossConfig {
    /// Per-byte error rate p: a packet of L bytes is lost with 1 - (1 - p)^L
    /// (ns-3 `RateErrorModel`, unit byte).
    pub per_byte: f64,
    /// Per-packet loss probability, whatever the size.
    pub per_packet: f64,
    /// Bursty loss; absent for none.
    pub gilbert_elliott: Option<GilbertElliottConfig>,
    /// Which packets the loss applies to: "data" (the papers' setting), "ack" or "both".
    pub direction: LossDirection,
}

impl Default for LossConfig {
    fn default() -> Self {
        Self {
            per_byte: 0.0,
            per_packet: 0.0,
            gilbert_elliott: None,
            direction: LossDirection::Data,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LossDirection {
    Data,
    Ack,
    Both,
}

/// Two-state Markov loss: per packet, the channel moves good -> bad with
/// `p_good_to_bad` and bad -> good with `p_bad_to_good`, and drops with
/// `loss_good` / `loss_bad` in each state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottConfig {
    /// Per packet, the probability that the channel moves from good to bad.
    pub p_good_to_bad: f64,
    /// Per packet, the probability that the channel moves from bad to good.
    pub p_bad_to_good: f64,
    /// Loss probability of a packet in the good state.
    #[serde(default)]
    pub loss_good: f64,
    /// Loss probability of a packet in the bad state.
    #[serde(default = "one")]
    pub loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The TCP stack the run behaves like (`linux`, `ns3-3.37`, `ns3-3.29`; see [`super::stack`]):
    /// its switches fill every key of `[tcp]` and `flows[].cc` the config leaves out.
    pub stack: String,
    /// Maximum segment size: the payload bytes of a full segment.
    pub mss_bytes: u32,
    /// Initial window in segments (RFC 6928: 10).
    pub initial_cwnd_segments: u32,
    /// Initial slow-start threshold in segments; absent means infinite (the source papers').
    pub initial_ssthresh_segments: Option<u32>,
    /// Lower bound of the retransmission timeout (RFC 6298 says 1 s; Linux uses 200 ms).
    pub min_rto_s: f64,
    /// Upper bound of the retransmission timeout, with back-off; at least `min_rto_s`.
    pub max_rto_s: f64,
    /// Retransmission timeout before the first RTT sample (RFC 6298: 1 s).
    pub initial_rto_s: f64,
    /// Selective acknowledgements (RFC 2018/6675); off gives NewReno recovery (RFC 6582).
    pub sack: bool,
    /// RTT from timestamps (RFC 7323); off samples only never-retransmitted segments (Karn).
    pub timestamps: bool,
    /// Duplicate-ACK threshold for fast retransmit.
    pub dupthresh: u32,
    /// Delayed ACKs: acknowledge every `ack_every_segments` full segments or after the timeout.
    pub delayed_ack: bool,
    /// With delayed ACKs, acknowledge at the latest every this many full segments.
    pub ack_every_segments: u32,
    /// With delayed ACKs, the longest an ACK waits (ns-3's default: 200 ms).
    pub delayed_ack_timeout_s: f64,
    /// The receiver acknowledges the first this many in-order data segments at once.
    /// 0 by default. ns-3 3.37 acks the first data segment after the handshake at
    /// once (1), which shifts the delayed-ACK pairs for the rest of the connection;
    /// Linux quick-acks up to 16 at the start.
    pub quickack_segments: u32,
    /// Open the connection with a SYN and SYN-ACK over the flow's route before the
    /// first data segment, which then leaves one round trip after the flow's start
    /// (as an application that connects at its start sees). Off by default: data
    /// goes from the flow's start.
    pub handshake: bool,
    /// With `handshake`, how long the first SYN waits for its SYN-ACK before it is
    /// sent again; each later SYN waits twice as long as the one before (Linux's
    /// initial timeout is 1 s, ns-3's `ConnTimeout` 3 s).
    pub syn_timeout_s: f64,
    /// Send buffer: the application writes into it, ACKed bytes free it; at least `mss_bytes`.
    pub snd_buf_bytes: u64,
    /// Receive buffer, which bounds the advertised window; at least `mss_bytes`.
    pub rcv_buf_bytes: u64,
    /// Pace every flow; algorithms that need pacing (BBR) get it regardless.
    pub pacing: bool,
    /// The pacer releases bursts worth this many seconds at the pacing rate, at most
    /// 64 KB and at least 2 segments (Linux's TSO autosizing, 1 ms); 0 paces every
    /// packet on its own (ns-3).
    pub pacing_burst_s: f64,
    /// Undo a window reduction when D-SACKs show every retransmission was spurious.
    pub undo: bool,
    /// Grow cwnd only while it limits sending (Linux's cwnd validation, RFC 7661);
    /// false grows it on every ACK that advances, as ns-3's TcpSocketBase does, which
    /// the source papers ran: an application-limited flow's window then climbs without bound
    /// (the FB-TCP paper's Table 8: HighSpeed averages 31,369 segments at 1 Gb/s and 23 ms).
    pub cwnd_validation: bool,
    /// The sender's RTT clock tick in seconds; 0 measures exactly (Linux's
    /// microseconds are exact at this model's resolution). 0.001 reads RTTs as ns-3
    /// 3.37 does, from millisecond timestamps. Applies to what TCP and the algorithm
    /// use; the RTTs reported in the results stay exact.
    pub rtt_granularity_s: f64,
    /// The RTT the algorithm sees on each ACK: `sample` (Linux) or `smoothed` (ns-3
    /// 3.37, the smoothed RTT on every ACK).
    pub cc_rtt: crate::tcp::CcRtt,
    /// The advertised receive window: `linux` (the buffer less the out-of-order data
    /// it holds) or `ns3` (the whole buffer; see [`crate::tcp::ReceiveWindow`]).
    pub receive_window: crate::tcp::ReceiveWindow,
    /// How the window moves in fast recovery: `prr` (Linux, ns-3 3.37) or
    /// `classic` (ns-3 3.29: cwnd = ssthresh from entry to exit; see
    /// [`crate::tcp::Recovery`]).
    pub recovery: crate::tcp::Recovery,
    /// What fast recovery sends besides lost segments and new data: `linux`
    /// (nothing), `ns3` (ns-3 3.37's re-sends of segments in flight and its
    /// partial-ACK retransmission) or `ns3-3.29` (the same, with a retransmission on
    /// every partial ACK; see [`crate::tcp::RecoverySends`]).
    pub recovery_sends: crate::tcp::RecoverySends,
    /// Which partial ACKs in recovery restart the retransmission timer: `every`
    /// (Linux) or `first` (ns-3 3.29; see [`crate::tcp::PartialAckRto`]).
    pub partial_ack_rto: crate::tcp::PartialAckRto,
    /// Which retransmission timeouts recompute ssthresh: `linux` (one that starts a
    /// new episode) or `ns3` (every one but a repeat of the loss state's head
    /// retransmission; see [`crate::tcp::RtoSsthresh`]).
    pub rto_ssthresh: crate::tcp::RtoSsthresh,
    /// How each ACK's delivery-rate sample is formed: `linux` (fresh per ACK) or
    /// `ns3` (ns-3 3.37's `TcpRateLinux`, one sample kept across ACKs; see
    /// [`crate::tcp::RateSamples`]).
    pub rate_samples: crate::tcp::RateSamples,
    /// What the pipe counts of a retransmitted segment once it is SACKed: `linux`
    /// (nothing) or `ns3` (one segment until the cumulative ACK passes it, as ns-3
    /// 3.37's `TcpTxBuffer`; see [`crate::tcp::Pipe`]).
    pub pipe: crate::tcp::Pipe,
    /// Which ACKs give the RTT estimator a sample: `linux` (every newly delivered
    /// segment never retransmitted, SACKed ones included) or `ns3` (only a cumulative
    /// ACK covering the oldest segment sent as new data since the last timeout, if
    /// never retransmitted; see [`crate::tcp::RttSamples`]).
    pub rtt_samples: crate::tcp::RttSamples,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            stack: super::stack::default_stack(),
            mss_bytes: 1400,
            initial_cwnd_segments: 10,
            initial_ssthresh_segments: None,
            min_rto_s: 1.0,
            max_rto_s: 60.0,
            initial_rto_s: 1.0,
            sack: true,
            timestamps: true,
            dupthresh: 3,
            delayed_ack: true,
            ack_every_segments: 2,
            delayed_ack_timeout_s: 0.2,
            quickack_segments: 0,
            handshake: false,
            syn_timeout_s: 1.0,
            snd_buf_bytes: 6_553_600,
            rcv_buf_bytes: 6_553_600,
            pacing: false,
            pacing_burst_s: 0.001,
            undo: true,
            cwnd_validation: true,
            rtt_granularity_s: 0.0,
            cc_rtt: crate::tcp::CcRtt::Sample,
            receive_window: crate::tcp::ReceiveWindow::Linux,
            recovery: crate::tcp::Recovery::Prr,
            recovery_sends: crate::tcp::RecoverySends::Linux,
            partial_ack_rto: crate::tcp::PartialAckRto::Every,
            rto_ssthresh: crate::tcp::RtoSsthresh::Linux,
            rate_samples: crate::tcp::RateSamples::Linux,
            pipe: crate::tcp::Pipe::Linux,
            rtt_samples: crate::tcp::RttSamples::Linux,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    /// Sampling interval of the time series, seconds.
    pub interval_s: f64,
    /// Keep the event log (losses, RTOs, recovery episodes).
    pub events: bool,
    /// Upper bound on logged events, so a pathological run cannot exhaust memory.
    pub max_events: u64,
}

impl Default for TraceConfig {
    fn default() -> Self {
        Self {
            interval_s: 0.1,
            events: true,
            max_events: 1_000_000,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Congestion-control algorithm (ignored for `app = "udp"`).
    #[serde(default = "default_cca")]
    pub cca: String,
    /// Parameters of the algorithm (its own keys; unknown ones are rejected).
    #[serde(default)]
    pub cc: Option<serde_json::Value>,
    #[serde(default = "default_app")]
    pub app: AppKind,
    /// Application rate for `rate`, `onoff` (while on) and `udp`.
    #[serde(default)]
    pub rate_bps: Option<f64>,
    /// Size of each application write / UDP datagram payload.
    #[serde(default)]
    pub write_bytes: Option<u32>,
    /// Mean on and off period lengths for `onoff`.
    #[serde(default)]
    pub on_s: Option<f64>,
    /// Mean off period length for `onoff`.
    #[serde(default)]
    pub off_s: Option<f64>,
    #[serde(default)]
    pub period_distribution: Option<PeriodDistribution>,
    /// When the application starts and stops sending (default: whole run).
    #[serde(default)]
    pub start_s: f64,
    /// When the application stops sending; absent: at the end of the run.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Own access link in front of the shared bottleneck (dumbbell); 0 delay and no
    /// rate means none.
    #[serde(default)]
    pub access_delay_s: f64,
    /// Rate of the flow's own access link; absent: no rate limit of its own.
    #[serde(default)]
    pub access_rate_bps: Option<f64>,
    /// The UE (index into `radio.ues`) the flow's receiver runs on.
    #[serde(default)]
    pub ue: u32,
}

pub(super) fn default_cca() -> String {
    "cubic".into()
}

fn default_app() -> AppKind {
    AppKind::Bulk
}

impl FlowConfig {
    pub fn write_bytes_or(&self, mss: u32) -> u32 {
        self.write_bytes.unwrap_or(mss)
    }

    /// The flow's application as its source takes it, writing `mss` bytes at a time
    /// unless `write_bytes` says otherwise. Validation has given every paced
    /// application its rate and every on/off one its periods.
    pub fn app_spec(&self, mss: u32) -> AppSpec {
        let traffic = match self.app {
            AppKind::Bulk => Traffic::Bulk,
            kind => Traffic::Paced {
                rate_bps: self.rate_bps.expect("validated: paced apps have a rate"),
                write_bytes: self.write_bytes_or(mss),
                onoff: (kind == AppKind::Onoff).then(|| Periods {
                    on_s: self.on_s.expect("validated"),
                    off_s: self.off_s.expect("validated"),
                    distribution: self
                        .period_distribution
                        .unwrap_or(PeriodDistribution::Exponential),
                }),
            },
        };
        AppSpec {
            start_s: self.start_s,
            stop_s: self.stop_s,
            traffic,
        }
    }
}
