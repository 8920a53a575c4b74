//! The TCP sender, following Linux's structure: an ACK updates the scoreboard
//! (cumulative and selective), takes an RTT and a delivery-rate sample, runs the
//! congestion state machine (Open, Disorder, Recovery, Loss), adjusts the window
//! (PRR in recovery, the algorithm's `cong_avoid` otherwise, or the algorithm's own
//! `cong_control`), and then sends what the window, the receiver and pacing allow.

use super::handshake::{self, Opening};
use super::pacing::PacingRate;
use super::rate::{PendingSample, RateSampler, RateSamples};
use super::{
    CcRtt, FlowEvent, FlowTimer, Io, Outbox, RttEstimator, RttSamples, Scoreboard, TimerEvent,
    clock_rtt,
};
use crate::app::Source;
use crate::cc::{CaState, CongestionControl, CwndEvent, LossResponse, RateSample, Socket};
use crate::engine::{Time, Timer, to_secs};
use crate::net::{Ack, Body, HEADER_BYTES, Packet, SackBlock, Segment};
use crate::trace::{FlowSampler, FlowState, RttStats};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone)]
pub struct SenderConfig {
    pub mss: u32,
    pub sack: bool,
    pub timestamps: bool,
    pub dupthresh: u32,
    pub snd_buf: u64,
    pub pacing: bool,
    /// Pacing releases bursts worth this long at the pacing rate (Linux's TSO
    /// autosizing: about 1 ms, at most 64 KB, at least 2 segments); 0 paces every
    /// packet on its own, as ns-3 does.
    pub pacing_burst: Time,
    pub undo: bool,
    /// Grow the window only while it limits sending (Linux, RFC 7661); false grows it
    /// on every ACK, as ns-3's TcpSocketBase does.
    pub cwnd_validation: bool,
    /// Tick of the clock RTTs are read on, ns (0: exact); see [`clock_rtt`].
    pub rtt_granularity: Time,
    /// The RTT the algorithm is given on each ACK.
    pub cc_rtt: CcRtt,
    /// How the window moves during fast recovery.
    pub recovery: Recovery,
    /// What fast recovery sends besides lost segments and new data.
    pub recovery_sends: RecoverySends,
    /// Which partial ACKs restart the retransmission timer.
    pub partial_ack_rto: PartialAckRto,
    /// Which timeouts recompute ssthresh.
    pub rto_ssthresh: RtoSsthresh,
    /// How each ACK's delivery-rate sample is formed.
    pub rate_samples: RateSamples,
    /// What the pipe counts of retransmitted segments that are SACKed.
    pub pipe: Pipe,
    /// Which ACKs give the RTT estimator a sample.
    pub rtt_samples: RttSamples,
    /// With a handshake, the first SYN's timeout (`tcp.syn_timeout_s`); `None`: data
    /// goes from the flow's start.
    pub handshake: Option<Time>,
}

/// What the pipe (segments in flight) counts of a retransmitted segment once it is
/// SACKed (`tcp.pipe`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Pipe {
    /// Nothing: a SACK takes it out of flight like any other segment (Linux
    /// `tcp_sacktag_one` decrements `retrans_out`; RFC 6675's pipe).
    #[default]
    Linux,
    /// ns-3 3.37: `TcpTxBuffer::Update` marks it SACKed but leaves its `m_retrans`
    /// flag and count until the cumulative ACK removes it, and `BytesInFlight` is
    /// `sent - (sacked + lost) + retrans`, so each SACKed retransmission still counts
    /// one segment in flight for the rest of the recovery.
    Ns3,
}

/// How the window moves during fast recovery (`tcp.recovery`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Proportional Rate Reduction (RFC 6937), as Linux `tcp_cwnd_reduction` and
    /// ns-3 3.37's default `TcpPrrRecovery`: the window follows the pipe down to
    /// ssthresh in proportion to what is delivered.
    #[default]
    Prr,
    /// ns-3 3.29's `TcpClassicRecovery` under its SACK socket: cwnd drops to ssthresh
    /// on entry and stays there until the ACK that ends recovery, which does not grow
    /// it either (`ProcessAck` calls no `IncreaseWindow` on it); the pipe decides what
    /// goes (RFC 6675). The first lost segment is retransmitted on entry whatever the
    /// window (`EnterRecovery` calling `DoRetransmit`). The duplicate-ACK inflation
    /// of RFC 5681 is only traced (`m_cWndInfl`), never used to send.
    Classic,
}

/// Which partial ACKs (those that advance snd_una in recovery but not past the
/// recovery point) restart the retransmission timer (`tcp.partial_ack_rto`), RFC
/// 6582 section 4's two variants.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckRto {
    /// Every one, like any ACK that advances (Linux; RFC 6582's "Slow-but-Steady").
    #[default]
    Every,
    /// Only the first of a recovery episode (ns-3 3.29: `ProcessAck` passes
    /// `m_isFirstPartialAck` to `NewAck` as its `resetRTO`; RFC 6582's "Impatient"):
    /// a recovery that repairs one hole per round trip ends in a timeout instead.
    First,
}

/// Which retransmission timeouts recompute ssthresh (`tcp.rto_ssthresh`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RtoSsthresh {
    /// Only one that starts a new episode (Linux `tcp_enter_loss`): a timeout during
    /// an unfinished recovery or loss episode keeps the ssthresh that episode set.
    #[default]
    Linux,
    /// Every one, from the data in flight before it, except a repeated timeout in
    /// the loss state whose head was already retransmitted (ns-3's
    /// `TcpSocketBase::ReTxTimeout`, 3.29 and 3.37: `GetSsThresh (tcb,
    /// inFlightBeforeRto)` unless `CA_LOSS && IsHeadRetransmitted ()`). A timeout
    /// that ends a fast recovery reduces the window a second time.
    Ns3,
}

/// What fast recovery sends besides the lost segments and new data
/// (`tcp.recovery_sends`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RecoverySends {
    /// Nothing: the scoreboard and PRR decide every transmission (Linux).
    #[default]
    Linux,
    /// ns-3 3.37 with SACK. When nothing lost is left to retransmit and nothing is
    /// unsent, the window is filled by re-sending the first segment neither SACKed
    /// nor retransmitted, though it is still in flight (`TcpTxBuffer::NextSeg`'s
    /// rule 3, which omits RFC 6675's condition that it lie below the highest
    /// SACK). And a partial ACK (one that advances snd_una but not past the
    /// recovery point) whose new head was not retransmitted sends one segment at
    /// once, whatever the window (`TcpSocketBase::ProcessAck` calling
    /// `DoRetransmit`): the first lost one, else new data, else the head again.
    /// At 1 Gb/s, where the 6.5 MB send buffer is all in flight when the slow-start
    /// overshoot is detected, ns-3's NewReno reference re-sends 911 segments that
    /// were never lost besides its 1,242 drops, and they keep the queue from draining.
    Ns3,
    /// ns-3 3.29 with SACK: as `ns3`, except that every partial ACK sends one
    /// segment, a retransmitted head included. `ProcessAck` first clears the head's
    /// retransmitted mark (`TcpTxBuffer::DeleteRetransmittedFlagFromHead`, which also
    /// takes it out of the pipe's retransmission count) and then calls `DoRetransmit`
    /// unconditionally, so a lost head whose retransmission is still in flight goes a
    /// third time; 3.37 added the check that skips it.
    #[serde(rename = "ns3-3.29")]
    Ns3v329,
}

impl RecoverySends {
    /// ns-3's NextSeg rule 3 applies (both ns-3 readings).
    fn rule3(self) -> bool {
        matches!(self, RecoverySends::Ns3 | RecoverySends::Ns3v329)
    }
}

/// Per-flow counters reported in the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowCounters {
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    pub rto_events: u64,
    pub fast_recovery_episodes: u64,
    pub spurious_retransmissions: u64,
    pub undos: u64,
}

/// Proportional Rate Reduction state (RFC 6937), in packets as Linux keeps it.
#[derive(Debug, Clone, Default)]
struct Prr {
    delivered: u64,
    out: u64,
    /// cwnd when recovery started (RFC 6937's RecoverFS, Linux's `prior_cwnd`).
    prior_cwnd: u64,
}

/// What is needed to undo a reduction that D-SACKs prove spurious.
#[derive(Debug, Clone, Default)]
struct Undo {
    /// snd_una when the episode started; None when there is nothing to undo.
    marker: Option<u64>,
    /// Retransmissions of the episode not yet reported as duplicates.
    retrans: u64,
    prior_ssthresh: f64,
}

pub struct Sender {
    flow: u32,
    cfg: SenderConfig,
    cc: Box<dyn CongestionControl>,
    pub sock: Socket,
    sb: Scoreboard,
    rtt: RttEstimator,
    rate: RateSampler,
    app: Source,
    snd_una: u64,
    snd_nxt: u64,
    peer_rwnd: u64,
    state: CaState,
    /// snd_nxt when the current recovery or loss episode began (RFC 6582 "recover").
    high_seq: u64,
    /// A partial ACK of the current recovery episode has restarted the RTO timer.
    partial_ack_seen: bool,
    prr: Prr,
    undo: Undo,
    /// For `is_cwnd_limited` (Linux `tcp_cwnd_validate`).
    max_packets_out: u32,
    max_packets_seq: u64,
    cwnd_limited: bool,
    next_send_time: Time,
    pacer: PacingRate,
    rto_timer: Timer,
    pace_timer: Timer,
    app_timer: Timer,
    /// The handshake while it is under way (the RTO timer then times the SYN).
    opening: Option<Opening>,
    pub counters: FlowCounters,
    pub rtt_stats: RttStats,
    pub sampler: FlowSampler,
}

/// What the segments one ACK delivers tell: how many, the rate sample they make,
/// and the send times of the oldest and the newest never retransmitted (Karn): the
/// oldest feeds the RTO estimator, the newest the algorithm (as Linux's seq/ca RTT).
#[derive(Default)]
struct Delivered {
    count: u32,
    oldest_sent: Option<Time>,
    newest_sent: Option<Time>,
    pending: PendingSample,
}

impl Delivered {
    #[inline(always)]
    fn add(&mut self, s: &super::SegInfo, rate: &mut RateSampler, now: Time) {
        rate.on_delivered(&s.tx, now, &mut self.pending);
        self.count += 1;
        if !s.ever_retrans {
            self.oldest_sent.get_or_insert(s.tx.sent_time);
            self.newest_sent = Some(
                self.newest_sent
                    .map_or(s.tx.sent_time, |t| t.max(s.tx.sent_time)),
            );
        }
    }
}

impl Sender {
    pub fn new(
        flow: u32,
        cfg: SenderConfig,
        mut cc: Box<dyn CongestionControl>,
        mut sock: Socket,
        rtt: RttEstimator,
        app: Source,
    ) -> Self {
        let pacing = cfg.pacing || cc.needs_pacing();
        sock.pacing = pacing;
        cc.init(&mut sock);
        Self {
            flow,
            cfg: SenderConfig { pacing, ..cfg },
            cc,
            sock,
            sb: Scoreboard::new(cfg.pipe == Pipe::Ns3),
            rtt,
            rate: RateSampler::new(cfg.rate_samples),
            app,
            snd_una: 0,
            snd_nxt: 0,
            peer_rwnd: u64::MAX,
            state: CaState::Open,
            high_seq: 0,
            partial_ack_seen: false,
            prr: Prr::default(),
            undo: Undo::default(),
            max_packets_out: 0,
            max_packets_seq: 0,
            cwnd_limited: false,
            next_send_time: 0,
            pacer: PacingRate::default(),
            rto_timer: Timer::default(),
            pace_timer: Timer::default(),
            app_timer: Timer::default(),
            opening: cfg.handshake.map(Opening::new),
            counters: FlowCounters::default(),
            rtt_stats: RttStats::default(),
            sampler: FlowSampler::default(),
        }
    }

    pub fn cca_name(&self) -> &'static str {
        self.cc.name()
    }

    /// Bytes cumulatively acknowledged.
    pub fn acked_bytes(&self) -> u64 {
        self.snd_una
    }

    /// Snapshot for the time series.
    pub fn state(&self) -> FlowState {
        FlowState {
            cwnd_segments: self.sock.cwnd,
            ssthresh_segments: self.sock.ssthresh,
            inflight_bytes: self.sb.in_flight() as f64 * self.cfg.mss as f64,
            srtt_s: self.rtt.srtt_s(),
            min_rtt_s: self.rtt.min_rtt.map_or(f64::NAN, to_secs),
            pacing_rate_bps: if self.cfg.pacing {
                self.pacing_rate_bps()
            } else {
                f64::NAN
            },
            ca_state: self.state.as_str(),
        }
    }

    /// The algorithm's internal variables, for the traces.
    pub fn cc_state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.cc.state(out);
    }

    /// Refreshes the read-only parts of the socket the algorithm sees.
    fn sync_sock(&mut self, now: Time) {
        let s = &mut self.sock;
        s.now = now;
        s.delivered = self.rate.delivered;
        s.snd_nxt = self.snd_nxt;
        s.snd_una = self.snd_una;
        s.ca_state = self.state;
        self.sync_window_use();
    }

    /// The parts of [`Self::sync_sock`] that can change between the algorithm's
    /// `on_ack` and its window update: what is in flight (a retransmission on
    /// entering recovery) and whether the window limits sending (cwnd and ssthresh
    /// moved). A state change syncs the socket itself.
    fn sync_window_use(&mut self) {
        let s = &mut self.sock;
        s.in_flight = self.sb.in_flight();
        s.is_cwnd_limited = !self.cfg.cwnd_validation
            || if s.in_slow_start() {
                s.cwnd < 2.0 * self.max_packets_out as f64
            } else {
                self.cwnd_limited
            };
    }

    fn set_state(&mut self, new: CaState, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if new == self.state {
            return;
        }
        self.sync_sock(io.now);
        self.cc.set_state(&mut self.sock, new);
        self.state = new;
        self.sock.ca_state = new;
    }

    // ----------------------------------------------------------------- ACKs --

    /// A data segment reached the receiver, whose application holds
    /// `delivered_bytes` so far: the grid of receiver counts the algorithm may read
    /// ([`crate::cc::SinkGrid`]) advances, before the segment's bytes count.
    pub fn on_receiver_segment(&mut self, now: Time, delivered_bytes: u64) {
        self.sock.link.receiver_grid.advance(now, delivered_bytes);
    }

    /// Sets the cross-layer hints the algorithm may read with the next ACK: the
    /// receiving application's byte count and the serving link's SINR (radio only).
    pub fn set_link_hints(&mut self, receiver_delivered_bytes: u64, sinr_db: Option<f64>) {
        self.sock.link.receiver_delivered_bytes = receiver_delivered_bytes;
        self.sock.link.sinr_db = sinr_db;
    }

    /// The send time an ACK's RTT sample starts from under ns-3's sampling
    /// ([`RttSamples::Ns3`]): the oldest unacknowledged segment must be covered by
    /// the cumulative ACK and never retransmitted; the sample is then the timestamp
    /// echo's age, or without timestamps that segment's own. (ns-3 also forgets
    /// every segment sent before a timeout; here go-back-N has retransmitted the
    /// oldest one before any later ACK can cover it, so that needs no state.)
    fn rtt_history_sample(&self, ack: &Ack) -> Option<Time> {
        if self.cfg.rtt_samples != RttSamples::Ns3 || ack.ack <= self.snd_una {
            return None;
        }
        let oldest = self.sb.front()?;
        if oldest.end() > ack.ack || oldest.ever_retrans {
            return None;
        }
        Some(if self.cfg.timestamps && ack.ts_ecr > 0 {
            ack.ts_ecr
        } else {
            oldest.tx.sent_time
        })
    }

    pub fn on_ack(&mut self, ack: &Ack, io: &mut Io<impl Outbox, impl TimerEvent>) {
        let now = io.now;
        if ack.ack > self.snd_nxt || ack.ack < self.snd_una {
            return; // acknowledges nothing we sent, or an old ACK overtaken by a newer one
        }
        self.peer_rwnd = ack.rwnd as u64;
        let prior_in_flight = self.sb.in_flight();
        let advanced = ack.ack > self.snd_una;

        let history_sent = self.rtt_history_sample(ack);
        // One capture for the scoreboard's calls, not one per counter: they load
        // each capture per ACK.
        let mut got = Delivered::default();
        let (acc, rate) = (&mut got, &mut self.rate);
        let mut on_delivered = move |s: &super::SegInfo| acc.add(s, rate, now);
        let mut counted_by_dupacks = 0;
        if advanced {
            let dupacks = self.sb.reno_sacked();
            let popped = self.sb.ack_through(ack.ack, |s| {
                if !s.sacked {
                    on_delivered(s)
                }
            });
            self.snd_una = ack.ack;
            // Without SACK each duplicate ACK already counted one delivered segment;
            // the cumulative ACK delivers only the rest, at least the hole it filled
            // (Linux `tcp_remove_reno_sacks`). Settled below, once the closure is done.
            counted_by_dupacks = dupacks.min(popped.saturating_sub(1) as u32);
        }
        let mut dsack = None;
        if self.cfg.sack {
            for (i, b) in ack.blocks().enumerate() {
                if i == 0 && ack.dsack {
                    dsack = Some(b);
                } else if b.end > self.snd_una {
                    self.sb
                        .sack(b.start.max(self.snd_una), b.end, &mut on_delivered);
                }
            }
        } else if !advanced && self.sb.packets_out() > 0 {
            // A duplicate ACK: Linux's Reno emulation counts it as one SACKed segment.
            self.sb.add_reno_sack();
            self.rate.delivered += 1;
            got.count += 1;
        }
        let Delivered {
            count,
            oldest_sent,
            newest_sent,
            pending,
        } = got;
        let delivered = count - counted_by_dupacks;
        self.rate.delivered -= counted_by_dupacks as u64;

        let measured = oldest_sent.or_else(|| {
            // Timestamps disambiguate retransmissions (RFC 7323).
            (self.cfg.timestamps && delivered > 0 && ack.ts_ecr > 0).then_some(ack.ts_ecr)
        });
        // The results report the exact RTT of every such sample, whatever the stack;
        // TCP and the algorithm take the stack's samples, read off their clock.
        if let Some(sent) = measured {
            let exact = now.saturating_sub(sent);
            self.rtt_stats.record(exact);
            self.sampler.record_rtt(exact);
        }
        let sent = match self.cfg.rtt_samples {
            RttSamples::Linux => measured,
            RttSamples::Ns3 => history_sent,
        };
        let granularity = self.cfg.rtt_granularity;
        let read = move |sent: Time| clock_rtt(sent, now, granularity);
        let rtt = sent.map(read);
        if let Some(r) = rtt {
            let min_rtt = self.rtt.min_rtt;
            self.rtt.sample(r);
            // The socket's RTT view changes only here, so it is updated here rather
            // than converted again at every `sync_sock` (the minimum only when it moves).
            self.sock.srtt_s = self.rtt.srtt_s();
            if self.rtt.min_rtt != min_rtt {
                self.sock.min_rtt_s = self.rtt.min_rtt.map_or(f64::INFINITY, to_secs);
            }
        }
        if let Some(b) = dsack {
            self.on_dsack(b, io);
        }

        let losses = self.detect_losses(advanced, io);
        let sample = self.rate.finish(&pending, now, self.rtt.min_rtt);
        let rs = RateSample {
            acked_sacked: delivered,
            losses,
            rtt_s: match self.cfg.cc_rtt {
                CcRtt::Sample => match self.cfg.rtt_samples {
                    RttSamples::Linux => newest_sent.map(read).or(rtt),
                    RttSamples::Ns3 => rtt,
                }
                .map(to_secs),
                CcRtt::Smoothed => Some(self.rtt.srtt_s()).filter(|&s| s > 0.0),
            },
            prior_in_flight,
            delivered: sample.map_or(0, |s| s.delivered),
            interval_s: sample.map_or(0.0, |s| to_secs(s.interval)),
            // Given for invalid samples too (ns-3's BBR reads them; Linux's does not).
            prior_delivered: pending.newest().map_or(0, |tx| tx.delivered),
            is_app_limited: pending.newest().is_some_and(|tx| tx.app_limited),
        };
        self.sync_sock(now);
        self.cc.on_ack(&mut self.sock, &rs);

        let was_in_recovery = self.state == CaState::Recovery;
        self.update_state(advanced, io);
        let ended_recovery = was_in_recovery && self.state != CaState::Recovery;
        self.adjust_window(&rs, advanced, ended_recovery);
        if self.cfg.recovery_sends.rule3()
            && advanced
            && self.state == CaState::Recovery
            && self.snd_una < self.high_seq
        {
            self.ns3_partial_ack_transmit(io);
        }

        if self.sb.packets_out() == 0 {
            self.rto_timer.cancel();
        } else if advanced && self.restarts_rto() {
            self.rto_timer
                .set(now + self.rtt.rto(), io.queue, self.timer(FlowTimer::Rto));
        }
        self.send(io);
    }

    /// Whether an ACK that advanced restarts the RTO timer: always, except for the
    /// partial ACKs after an episode's first under `PartialAckRto::First`.
    fn restarts_rto(&mut self) -> bool {
        if self.state != CaState::Recovery || self.snd_una >= self.high_seq {
            return true;
        }
        let first = !self.partial_ack_seen;
        self.partial_ack_seen = true;
        first || self.cfg.partial_ack_rto == PartialAckRto::Every
    }

    /// Marks segments lost: RFC 6675 with SACK; without it, the head after
    /// `dupthresh` duplicate ACKs and again on each partial ACK (RFC 6582).
    fn detect_losses(&mut self, advanced: bool, io: &mut Io<impl Outbox, impl TimerEvent>) -> u32 {
        let (flow, now) = (self.flow, io.now);
        if self.sb.sacked_out() + self.sb.reno_sacked() == 0
            && !(advanced && self.state == CaState::Recovery)
        {
            return 0; // nothing above a hole has been reported: nothing can be lost
        }
        if self.cfg.sack {
            return self.sb.mark_lost(self.cfg.dupthresh, |s| {
                io.log.log(now, flow, "loss_detected", "sack", Some(s.seq))
            });
        }
        let fast_retransmit = self.sb.reno_sacked() >= self.cfg.dupthresh
            && matches!(self.state, CaState::Open | CaState::Disorder);
        // RFC 6582: a partial ACK exposes the next hole. Reno leaves recovery instead
        // and waits for that hole's own duplicate ACKs.
        let partial_ack = advanced
            && self.state == CaState::Recovery
            && self.snd_una < self.high_seq
            && self.cc.loss_response() == LossResponse::FastRecovery;
        if (fast_retransmit || partial_ack)
            && let Some(seq) = self.sb.mark_head_lost()
        {
            io.log.log(now, flow, "loss_detected", "dupack", Some(seq));
            return 1;
        }
        0
    }

    /// The congestion state machine (Linux `tcp_fastretrans_alert`, simplified to
    /// what SACK/PRR and RFC 6582 need).
    fn update_state(&mut self, advanced: bool, io: &mut Io<impl Outbox, impl TimerEvent>) {
        let reno_exit = advanced
            && self.state == CaState::Recovery
            && self.cc.loss_response() == LossResponse::RenoRecovery;
        if matches!(self.state, CaState::Recovery | CaState::Loss)
            && (self.snd_una >= self.high_seq || reno_exit)
        {
            self.end_episode(io);
        }
        if matches!(self.state, CaState::Open | CaState::Disorder) {
            if self.sb.lost_out() > 0 {
                self.enter_recovery(io);
            } else if self.sb.sacked_out() + self.sb.reno_sacked() > 0 {
                self.set_state(CaState::Disorder, io);
            } else if advanced {
                self.set_state(CaState::Open, io);
            }
        }
    }

    fn save_for_undo(&mut self) {
        self.undo = Undo {
            marker: Some(self.snd_una),
            retrans: 0,
            prior_ssthresh: self.sock.ssthresh,
        };
        self.sock.prior_cwnd = self.sock.cwnd;
    }

    fn enter_recovery(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        self.save_for_undo();
        self.sync_sock(io.now);
        self.sock.ssthresh = self.cc.ssthresh(&self.sock).max(2.0);
        if self.cc.loss_response() == LossResponse::SlowStart {
            self.counters.fast_recovery_episodes += 1;
            io.log.log(
                io.now,
                self.flow,
                "recovery_enter",
                "slow_start",
                Some(self.snd_una),
            );
            return self.restart_from_loss_window(io);
        }
        self.high_seq = self.snd_nxt;
        self.partial_ack_seen = false;
        self.prr = Prr {
            delivered: 0,
            out: 0,
            prior_cwnd: (self.sock.cwnd as u64).max(1),
        };
        self.counters.fast_recovery_episodes += 1;
        io.log.log(
            io.now,
            self.flow,
            "recovery_enter",
            "fast",
            Some(self.snd_una),
        );
        self.set_state(CaState::Recovery, io);
        if self.cfg.recovery == Recovery::Classic {
            self.sock.cwnd = self.sock.ssthresh;
            self.retransmit_first_lost(io);
        }
    }

    /// Classic recovery's fast retransmission, sent whatever the window (ns-3's
    /// `DoRetransmit` on entering recovery).
    fn retransmit_first_lost(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if let Some(i) = self.sb.next_retransmit() {
            let s = *self.sb.get(i);
            self.transmit(s.seq, s.len, Some(i), io);
        }
    }

    /// Recovery or loss episode complete: the cumulative ACK passed `high_seq`.
    fn end_episode(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self.state == CaState::Recovery && !self.try_undo(io) && self.sock.ssthresh.is_finite() {
            // Linux `tcp_end_cwnd_reduction`: leave recovery at ssthresh.
            self.sock.cwnd = self.sock.ssthresh;
            self.sync_sock(io.now);
            self.cc
                .cwnd_event(&mut self.sock, CwndEvent::CompleteRecovery);
        }
        io.log.log(
            io.now,
            self.flow,
            "recovery_exit",
            self.state.as_str(),
            Some(self.snd_una),
        );
        self.sb.reset_reno_sacked();
        self.set_state(CaState::Open, io);
    }

    /// A D-SACK: the receiver got a segment twice, so one retransmission was not
    /// needed. When all of an episode's retransmissions prove spurious the reduction
    /// is undone: at once outside recovery, at the end of recovery otherwise (Linux
    /// `tcp_try_undo_dsack`, `tcp_try_undo_loss`, `tcp_try_undo_recovery`), so that
    /// PRR never fights a restored window.
    fn on_dsack(&mut self, block: SackBlock, io: &mut Io<impl Outbox, impl TimerEvent>) {
        self.counters.spurious_retransmissions += 1;
        io.log.log(
            io.now,
            self.flow,
            "spurious_retransmission",
            "dsack",
            Some(block.start),
        );
        if self.undo.marker.is_none_or(|m| block.start < m) || self.undo.retrans == 0 {
            return;
        }
        self.undo.retrans -= 1;
        if self.state != CaState::Recovery && self.try_undo(io) && self.state == CaState::Loss {
            self.set_state(CaState::Open, io);
        }
    }

    /// Restores the window and threshold from before the reduction when every
    /// retransmission of the episode was reported spurious; true when it did.
    fn try_undo(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) -> bool {
        if !self.cfg.undo || self.undo.marker.is_none() || self.undo.retrans > 0 {
            return false;
        }
        self.sync_sock(io.now);
        self.sock.cwnd = self.cc.undo_cwnd(&self.sock).max(1.0);
        self.sock.ssthresh = self.sock.ssthresh.max(self.undo.prior_ssthresh);
        self.undo.marker = None;
        self.counters.undos += 1;
        io.log.log(
            io.now,
            self.flow,
            "undo",
            self.state.as_str(),
            Some(self.snd_una),
        );
        true
    }

    /// The window after an ACK; `ended_recovery` says this ACK ended fast recovery,
    /// which grows the window under PRR (Linux runs `tcp_cong_avoid` on it) but not
    /// under classic recovery. Always inlined into its one caller, [`Self::on_ack`]:
    /// out of line it cost some 20 instructions per ACK.
    #[inline(always)]
    fn adjust_window(&mut self, rs: &RateSample, advanced: bool, ended_recovery: bool) {
        // Again after `on_ack` and the state machine: HyStart may have set ssthresh,
        // which decides whether the flow counts as cwnd-limited (as in Linux, where
        // `tcp_is_cwnd_limited` is read after `pkts_acked`).
        self.sync_window_use();
        let classic = self.cfg.recovery == Recovery::Classic;
        if self.cc.cong_control(&mut self.sock, rs) {
        } else if self.state == CaState::Recovery {
            if !classic {
                self.prr_update(rs.acked_sacked, rs.losses, advanced);
            }
        } else if advanced && self.sock.is_cwnd_limited && !(classic && ended_recovery) {
            self.cc.cong_avoid(&mut self.sock, rs.acked_sacked);
        }
        self.sock.cwnd = self.sock.cwnd.max(1.0);
    }

    /// Proportional Rate Reduction (RFC 6937), as Linux `tcp_cwnd_reduction`: send
    /// in proportion to what is delivered while the pipe is above ssthresh, then
    /// slow-start back up to it (the SSRB bound).
    fn prr_update(&mut self, newly_delivered: u32, newly_lost: u32, advanced: bool) {
        let in_flight = self.sb.in_flight() as i64;
        let ssthresh = self.sock.ssthresh as i64;
        self.prr.delivered += newly_delivered as u64;
        let delta = ssthresh - in_flight;
        let mut sndcnt = if delta < 0 {
            let target = (ssthresh as u64 * self.prr.delivered).div_ceil(self.prr.prior_cwnd);
            target as i64 - self.prr.out as i64
        } else {
            let mut n =
                (self.prr.delivered as i64 - self.prr.out as i64).max(newly_delivered as i64);
            if advanced && newly_lost == 0 {
                n += 1;
            }
            n.min(delta)
        };
        // Force the fast retransmission on entering recovery.
        if self.prr.out == 0 {
            sndcnt = sndcnt.max(1);
        }
        self.sock.cwnd = (in_flight + sndcnt.max(0)) as f64;
    }

    /// Whether ns-3's NextSeg rule 3 picks what to send when nothing is lost and
    /// nothing unsent (see [`RecoverySends::Ns3`]).
    fn ns3_rule3_applies(&self) -> bool {
        self.cfg.recovery_sends.rule3() && self.cfg.sack && self.state == CaState::Recovery
    }

    /// ns-3's transmission on a partial ACK (see [`RecoverySends::Ns3`]), after its PRR
    /// update and before the window-limited sending, which it counts against.
    fn ns3_partial_ack_transmit(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self.cfg.recovery_sends == RecoverySends::Ns3v329 {
            self.sb.forget_head_retransmission();
        }
        let head = *self
            .sb
            .front()
            .expect("below the recovery point something is outstanding");
        if head.retrans {
            return; // ns-3 3.37: "if the packet is already retransmitted do not retransmit it"
        }
        if let Some(i) = (self.sb.lost_out() > 0)
            .then(|| self.sb.next_retransmit())
            .flatten()
        {
            let s = self.sb.get(i);
            return self.transmit(s.seq, s.len, Some(i), io);
        }
        // ns-3's application refills the buffer only after this, so the unsent data
        // is what the application had written before the ACK.
        let len = (self.app.written_so_far() - self.snd_nxt).min(self.cfg.mss as u64);
        if len > 0 && self.snd_nxt + len <= self.snd_una + self.peer_rwnd {
            return self.transmit(self.snd_nxt, len as u32, None, io);
        }
        self.transmit(head.seq, head.len, Some(0), io);
    }

    // ------------------------------------------------------------- timeouts --

    /// This flow's `timer` as the event its queue carries.
    fn timer<E: TimerEvent>(&self, timer: FlowTimer) -> E {
        FlowEvent {
            flow: self.flow,
            timer,
        }
        .into()
    }

    /// The retransmission timer fired (Linux `tcp_retransmit_timer` + `tcp_enter_loss`).
    pub fn on_rto_timer(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if !self
            .rto_timer
            .fire(io.now, io.queue, self.timer(FlowTimer::Rto))
        {
            return;
        }
        if self.opening.is_some() {
            return self.send_syn(io);
        }
        if self.sb.packets_out() == 0 {
            return;
        }
        self.counters.rto_events += 1;
        io.log.log(
            io.now,
            self.flow,
            "rto",
            self.state.as_str(),
            Some(self.snd_una),
        );
        self.sync_sock(io.now);
        // The algorithm hears of the loss (ssthresh and CA_EVENT_LOSS) only when this
        // timeout is a new reduction.
        if self.rto_reduces() {
            self.save_for_undo();
            self.sock.ssthresh = self.cc.ssthresh(&self.sock).max(2.0);
            self.cc.cwnd_event(&mut self.sock, CwndEvent::Loss);
        } else {
            self.undo.marker = None;
        }
        self.rtt.back_off();
        self.restart_from_loss_window(io);
        self.send(io);
    }

    /// Whether a timeout now recomputes ssthresh (`tcp.rto_ssthresh`).
    fn rto_reduces(&self) -> bool {
        match self.cfg.rto_ssthresh {
            RtoSsthresh::Linux => {
                !matches!(self.state, CaState::Recovery | CaState::Loss)
                    || self.high_seq <= self.snd_una
            }
            RtoSsthresh::Ns3 => self.state != CaState::Loss || !self.sb.head_retransmitted(),
        }
    }

    /// Everything not SACKed counts as lost, cwnd drops to the loss window of one
    /// segment and slow start resends from the oldest hole (go-back-N): after a
    /// timeout, and on every loss for Tahoe.
    fn restart_from_loss_window(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        self.sb.mark_all_lost();
        self.sb.reset_reno_sacked();
        self.sock.cwnd = self.cc.loss_window(&self.sock).max(1.0);
        self.set_state(CaState::Loss, io);
        self.high_seq = self.snd_nxt;
        self.next_send_time = io.now;
    }

    pub fn on_pace_timer(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self
            .pace_timer
            .fire(io.now, io.queue, self.timer(FlowTimer::Pace))
        {
            self.send(io);
        }
    }

    pub fn on_app_timer(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self
            .app_timer
            .fire(io.now, io.queue, self.timer(FlowTimer::AppWake))
        {
            self.send(io);
        }
    }

    // -------------------------------------------------------------- sending --

    fn pacing_rate_bps(&self) -> f64 {
        if self.sock.pacing_rate_bps > 0.0 {
            return self.sock.pacing_rate_bps;
        }
        // Linux's default: twice the window per RTT in slow start, 1.2x after.
        let srtt = self.rtt.srtt_s();
        if srtt <= 0.0 {
            return f64::INFINITY;
        }
        let w = self.sock.cwnd.max(self.sb.packets_out() as f64) * self.cfg.mss as f64 * 8.0;
        w / srtt * if self.sock.in_slow_start() { 2.0 } else { 1.2 }
    }

    /// The pacing rate's integer forms (see [`PacingRate`]), or None while the
    /// rate is infinite (no RTT sample yet): nothing is paced then. The rate paces
    /// payload, as in Linux (`tcp_update_skb_after_send` sees the skb before its
    /// headers are pushed) and in ns-3 (`CalculateBytesTxTime` of the segment's size).
    fn pacing(&mut self) -> Option<&mut PacingRate> {
        let rate = self.pacing_rate_bps();
        let segment = self.cfg.mss;
        rate.is_finite()
            .then(|| self.pacer.update(rate, segment, self.cfg.pacing_burst))
    }

    /// Sends what the window, the receive window, the application and pacing allow:
    /// retransmissions of lost segments first (RFC 6675 NextSeg rule 1), then new data.
    /// The flow starts: it opens the connection, or (without a handshake) sends.
    pub fn start(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        match self.opening {
            Some(_) => self.send_syn(io),
            None => self.send(io),
        }
    }

    /// Sends a SYN and times it.
    fn send_syn(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        let opening = self.opening.as_mut().expect("sent only while opening");
        let again = opening.syn_sent(io.now);
        io.out.send(io.now, handshake::packet(self.flow, Body::Syn));
        self.rto_timer
            .set(again, io.queue, self.timer(FlowTimer::Rto));
    }

    /// The receiver's SYN-ACK: the connection is open and data may go (a SYN-ACK
    /// answering a repeated SYN finds it open already).
    pub fn on_syn_ack(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self.opening.take().is_some() {
            self.rto_timer.cancel();
            self.send(io);
        }
    }

    pub fn send(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self.opening.is_some() {
            return; // nothing goes before the SYN-ACK
        }
        let now = io.now;
        let mss = self.cfg.mss as u64;
        // What the application has written by now; it cannot change during this call.
        let written = self.app.written(now, self.snd_una, self.cfg.snd_buf);
        let allowance = if self.cfg.pacing {
            self.pacing().map_or(0, |p| p.allowance())
        } else {
            0
        };
        loop {
            let cwnd = (self.sock.cwnd as u32).max(1);
            if self.sb.in_flight() >= cwnd {
                break;
            }
            if self.cfg.pacing && now + allowance < self.next_send_time {
                // Wake when the pacer has caught up, so a whole burst can go.
                self.pace_timer
                    .set(self.next_send_time, io.queue, self.timer(FlowTimer::Pace));
                break;
            }
            let (seq, len, retransmit) = if let Some(i) = (self.sb.lost_out() > 0)
                .then(|| self.sb.next_retransmit())
                .flatten()
            {
                let s = self.sb.get(i);
                (s.seq, s.len, Some(i))
            } else {
                let avail = written - self.snd_nxt;
                let len = avail.min(mss);
                // Nagle (RFC 896): a partial segment waits while data is in flight.
                let nagle = len < mss && self.sb.packets_out() > 0;
                if (len == 0 || nagle)
                    && self.ns3_rule3_applies()
                    && let Some(i) = self.sb.next_unsacked_unretransmitted()
                {
                    let s = self.sb.get(i);
                    self.transmit(s.seq, s.len, Some(i), io);
                    continue;
                }
                if len == 0 || nagle {
                    // App-limited only when the application, not a full send buffer,
                    // is what stops us: a flow blocked by its buffer keeps the pipe
                    // full and its samples measure the network (Linux checks when the
                    // application writes, and autotunes the buffer). A buffer without
                    // room for a whole write is full.
                    if self.app.buffer_full(self.snd_una, self.cfg.snd_buf) {
                        // Every write is lost meanwhile: no wake-up for them; the ACK
                        // that makes room accounts for them (`Source::written`).
                        break;
                    }
                    self.rate.on_app_limited(self.sb.in_flight() as u64);
                    if let Some(t) = self.app.next_write().map(|t| t.max(now + 1))
                        && !(self.app_timer.is_idle() && io.out.hold_wake(t, io.queue.next_time()))
                    {
                        self.app_timer
                            .set(t, io.queue, self.timer(FlowTimer::AppWake));
                    }
                    break;
                }
                if self.snd_nxt + len > self.snd_una + self.peer_rwnd {
                    break; // receiver-limited
                }
                (self.snd_nxt, len as u32, None)
            };
            self.transmit(seq, len, retransmit, io);
        }
        let cwnd_limited = self.sb.in_flight() >= (self.sock.cwnd as u32).max(1);
        if self.snd_una >= self.max_packets_seq
            || self.sb.packets_out() > self.max_packets_out
            || cwnd_limited
        {
            self.max_packets_out = self.sb.packets_out();
            self.max_packets_seq = self.snd_nxt;
            self.cwnd_limited = cwnd_limited;
        }
    }

    /// Sends one segment: new data at `seq`, or segment `retransmit` again. Always
    /// inlined: it runs once per segment, mostly from the loop of [`Self::send`],
    /// and a call of its own cost 1.6 % of the 1 Gb/s dumbbell's instructions.
    #[inline(always)]
    fn transmit(
        &mut self,
        seq: u64,
        len: u32,
        retransmit: Option<usize>,
        io: &mut Io<impl Outbox, impl TimerEvent>,
    ) {
        let now = io.now;
        // Linux: CA_EVENT_TX_START when nothing is in flight (`tcp_transmit_skb`);
        // the rate sampler restarts its clocks when nothing is outstanding at all.
        let pipe_was_empty = self.sb.packets_out() == 0;
        if self.sb.in_flight() == 0 {
            self.sync_sock(now);
            self.cc.cwnd_event(&mut self.sock, CwndEvent::TxStart);
        }
        self.sock.last_send = now;
        let tx = self.rate.on_send(now, pipe_was_empty);
        match retransmit {
            Some(i) => {
                self.sb.on_retransmit(i, tx);
                self.counters.retransmitted_segments += 1;
                self.sampler.record_retransmit();
                self.undo.retrans += 1;
            }
            None => {
                self.sb.push(seq, len, tx);
                self.snd_nxt += len as u64;
            }
        }
        if self.state == CaState::Recovery {
            self.prr.out += 1;
        }
        self.counters.segments_sent += 1;
        let size = (len + HEADER_BYTES) as u16;
        io.out.send(
            now,
            Packet {
                flow: self.flow,
                size,
                hop: 0,
                body: Body::Data(Segment {
                    seq,
                    len,
                    ts_val: now,
                    retransmission: retransmit.is_some(),
                }),
            },
        );
        if !self.rto_timer.is_set() {
            self.rto_timer
                .set(now + self.rtt.rto(), io.queue, self.timer(FlowTimer::Rto));
        }
        if self.cfg.pacing
            && let Some(gap) = self.pacing().map(|p| p.gap(u64::from(len)))
        {
            self.next_send_time = self.next_send_time.max(now) + gap;
        }
    }

    /// Scoreboard consistency, for tests.
    pub fn check_invariants(&self) {
        self.sb.check_invariants();
        assert!(self.snd_una <= self.snd_nxt);
        assert!(self.sock.cwnd >= 1.0);
    }
}

#[cfg(test)]
mod tests {
    //! The sender's rules, driven ACK by ACK with segments of 1000 bytes.
    use super::*;
    use crate::engine::{EventQueue, RngStreams, from_secs};
    use crate::trace::EventLog;

    const MSS: u64 = 1000;
    const MS: Time = 1_000_000;
    /// What [`Harness::io`] reports for a SYN.
    const SYN: u64 = u64::MAX;

    struct Harness {
        s: Sender,
        q: EventQueue<FlowEvent>,
        out: Vec<Packet>,
        log: EventLog,
        now: Time,
    }

    fn harness(cca: &str, tune: impl FnOnce(&mut SenderConfig)) -> Harness {
        let mut cfg = SenderConfig {
            mss: MSS as u32,
            sack: true,
            timestamps: true,
            dupthresh: 3,
            snd_buf: 1 << 30,
            pacing: false,
            pacing_burst: 0,
            undo: true,
            cwnd_validation: true,
            rtt_granularity: 0,
            cc_rtt: CcRtt::Sample,
            recovery: Recovery::Prr,
            recovery_sends: RecoverySends::Linux,
            partial_ack_rto: PartialAckRto::Every,
            rto_ssthresh: RtoSsthresh::Linux,
            pipe: Pipe::Linux,
            rate_samples: RateSamples::Linux,
            rtt_samples: RttSamples::Linux,
            handshake: None,
        };
        tune(&mut cfg);
        let flow = crate::Config::from_toml("[[flows]]\n").unwrap().flows[0].clone();
        let app = Source::new(
            &flow.app_spec(MSS as u32),
            from_secs(100.0),
            RngStreams::new(1).stream("app"),
        );
        let cc = crate::cc::build(cca, &serde_json::Value::Null).unwrap();
        let sock = Socket::new(MSS as u32, 10.0, f64::INFINITY);
        let rtt = RttEstimator::new(1.0, 0.2, 60.0);
        let mut h = Harness {
            s: Sender::new(0, cfg, cc, sock, rtt, app),
            q: EventQueue::default(),
            out: vec![],
            log: EventLog::new(true, 1000),
            now: 0,
        };
        h.io(|s, io| s.start(io));
        h
    }

    impl Harness {
        /// Runs `f` at the current time and returns the segment numbers it sent.
        fn io(&mut self, f: impl FnOnce(&mut Sender, &mut Io)) -> Vec<u64> {
            let mut io = Io {
                now: self.now,
                queue: &mut self.q,
                out: &mut self.out,
                log: &mut self.log,
            };
            f(&mut self.s, &mut io);
            self.s.check_invariants();
            self.out
                .drain(..)
                .map(|p| match p.body {
                    Body::Data(seg) => seg.seq / MSS,
                    Body::Syn => SYN,
                    _ => unreachable!(),
                })
                .collect()
        }

        /// An ACK at `at` ms for segments below `ack` (in segments) with SACK
        /// blocks given in segments.
        fn ack(&mut self, at_ms: u64, ack: u64, sacks: &[(u64, u64)]) -> Vec<u64> {
            self.ack_full(at_ms, ack, sacks, false)
        }

        fn ack_full(
            &mut self,
            at_ms: u64,
            ack: u64,
            sacks: &[(u64, u64)],
            dsack: bool,
        ) -> Vec<u64> {
            self.now = at_ms * MS;
            let mut a = Ack::new(ack * MSS, 0, u32::MAX);
            for &(s, e) in sacks {
                a.push_block(SackBlock {
                    start: s * MSS,
                    end: e * MSS,
                });
            }
            a.dsack = dsack;
            self.io(|s, io| s.on_ack(&a, io))
        }

        /// Advances to the next timer event and fires it if it is the RTO.
        fn run_timers_until(&mut self, until: Time) -> Vec<u64> {
            let mut sent = vec![];
            while let Some(t) = self.q.peek_time().filter(|&t| t <= until) {
                let (_, ev) = self.q.pop().unwrap();
                self.now = t;
                sent.extend(self.io(|s, io| match ev.timer {
                    FlowTimer::Rto => s.on_rto_timer(io),
                    FlowTimer::Pace => s.on_pace_timer(io),
                    FlowTimer::AppWake => s.on_app_timer(io),
                    FlowTimer::DelayedAck => {}
                }));
            }
            sent
        }

        fn kinds(&self) -> Vec<&'static str> {
            self.log.trace.kind.clone()
        }
    }

    /// With a handshake the flow sends a SYN at its start and no data until the
    /// SYN-ACK; a SYN without answer goes again after the timeout, then after twice
    /// it; the SYN-ACK releases the initial window, and a second one changes nothing.
    #[test]
    fn a_handshake_holds_the_data_until_the_syn_ack() {
        let mut h = harness("cubic", |c| c.handshake = Some(3000 * MS));
        h.now = 100 * MS;
        assert!(
            h.io(|s, io| s.send(io)).is_empty(),
            "nothing before the SYN-ACK"
        );
        h.now = 2999 * MS;
        assert!(h.io(|s, io| s.on_rto_timer(io)).is_empty());
        h.now = 3000 * MS;
        assert_eq!(h.io(|s, io| s.on_rto_timer(io)), [SYN]);
        h.now = 9000 * MS;
        assert_eq!(h.io(|s, io| s.on_rto_timer(io)), [SYN], "3 s, then 6 s");
        assert_eq!(h.s.counters.rto_events, 0, "a SYN's timeout is no data RTO");
        h.now = 9020 * MS;
        assert_eq!(h.io(|s, io| s.on_syn_ack(io)), (0..10).collect::<Vec<_>>());
        assert!(h.io(|s, io| s.on_syn_ack(io)).is_empty());
        h.now = 21_000 * MS;
        let after = h.io(|s, io| s.on_rto_timer(io));
        assert!(
            !after.contains(&SYN),
            "the open connection sends no SYN: {after:?}"
        );
    }

    /// Without a handshake the start is the first send.
    #[test]
    fn without_a_handshake_data_goes_at_the_start() {
        let mut h = harness("cubic", |_| {});
        h.now = 100 * MS;
        assert_eq!(h.ack(100, 2, &[]), (10..14).collect::<Vec<_>>());
    }

    #[test]
    fn starts_with_the_initial_window() {
        let mut h = harness("newreno", |_| {});
        // `harness` already called send once: the packets were drained there.
        assert_eq!(
            h.io(|s, io| s.send(io)),
            Vec::<u64>::new(),
            "the window is full"
        );
        assert_eq!(h.s.sb.packets_out(), 10);
        assert!(
            h.s.rto_timer.is_set(),
            "the first transmission arms the RTO"
        );
    }

    #[test]
    fn slow_start_sends_two_segments_per_segment_acked() {
        let mut h = harness("newreno", |_| {});
        // A delayed ACK covering two segments opens the window by two.
        assert_eq!(h.ack(20, 2, &[]), vec![10, 11, 12, 13]);
        assert_eq!(h.s.sock.cwnd, 12.0);
        assert_eq!(h.s.rtt.min_rtt, Some(20 * MS));
    }

    /// One of the algorithm's trace variables.
    fn cc_var(h: &Harness, name: &str) -> f64 {
        let mut vars = Vec::new();
        h.s.cc_state(&mut vars);
        vars.into_iter().find(|&(k, _)| k == name).unwrap().1
    }

    #[test]
    fn rtts_are_read_off_the_configured_clock_while_the_results_stay_exact() {
        // Sent at 0, acknowledged at 20.6 ms: 20.6 ms exactly, 20 ms on a 1 ms clock.
        for (granularity, read) in [(0, 20 * MS + 600_000), (MS, 20 * MS)] {
            let mut h = harness("vegas", |c| c.rtt_granularity = granularity);
            h.now = 20 * MS + 600_000;
            let ack = Ack::new(2 * MSS, 0, u32::MAX);
            h.io(|s, io| s.on_ack(&ack, io));
            assert_eq!(h.s.rtt.min_rtt, Some(read), "TCP's estimator");
            assert_eq!(
                cc_var(&h, "base_rtt_ms"),
                read as f64 / 1e6,
                "the algorithm's sample"
            );
            assert_eq!(h.s.rtt_stats.mean_ms(), 20.6, "the reported RTT");
        }
    }

    #[test]
    fn the_smoothed_cc_rtt_reaches_the_algorithm_on_every_ack() {
        // Vegas counts the RTTs it is given in its round (the first ACK ends round 0).
        // The last ACK repeats a SACK block: it delivers nothing and yields no sample,
        // yet ns-3's reading still passes the smoothed RTT.
        let acks = |h: &mut Harness| {
            h.ack(20, 2, &[]);
            h.ack(40, 4, &[]);
            h.ack(41, 4, &[(5, 6)]);
            h.ack(42, 4, &[(5, 6)]);
        };
        let mut h = harness("vegas", |c| c.cc_rtt = CcRtt::Smoothed);
        acks(&mut h);
        assert_eq!(cc_var(&h, "rtt_samples"), 3.0);
        assert_eq!(
            cc_var(&h, "base_rtt_ms"),
            20.0,
            "the first SRTT is the first sample"
        );
        let mut h = harness("vegas", |_| {});
        acks(&mut h);
        assert_eq!(
            cc_var(&h, "rtt_samples"),
            2.0,
            "Linux: only ACKs with a sample count"
        );
    }

    #[test]
    fn three_sacked_segments_trigger_fast_retransmit_and_prr() {
        let mut h = harness("newreno", |_| {});
        // Segment 0 is lost; 1..=3 arrive and are SACKed one by one.
        // A SACKed segment leaves the pipe, so one new segment may go (limited
        // transmit, RFC 3042); the window itself does not grow.
        assert_eq!(h.ack(20, 0, &[(1, 2)]), vec![10]);
        assert_eq!(h.s.state, CaState::Disorder);
        assert_eq!(h.s.sock.cwnd, 10.0);
        assert_eq!(h.ack(21, 0, &[(1, 3)]), vec![11]);
        let sent = h.ack(22, 0, &[(1, 4)]);
        assert_eq!(h.s.state, CaState::Recovery);
        assert_eq!(sent.first(), Some(&0), "the hole is retransmitted first");
        assert_eq!(h.s.sock.ssthresh, 5.0, "NewReno halves the window of 10");
        assert_eq!(h.s.counters.fast_recovery_episodes, 1);
        assert_eq!(h.s.counters.retransmitted_segments, 1);
        assert!(h.kinds().contains(&"recovery_enter"));
        // PRR: while the pipe is above ssthresh, about ssthresh/prior_cwnd = 1/2
        // segment goes out per segment delivered.
        let mut new = 0;
        for i in 4..10 {
            new += h.ack(22 + i, 0, &[(1, i + 1)]).len();
        }
        assert!((2..=4).contains(&new), "sent {new} for 6 delivered");
        // The retransmission arrives: everything up to snd_nxt is acked, recovery ends
        // with cwnd = ssthresh.
        let high = h.s.high_seq / MSS;
        h.ack(60, high, &[]);
        assert_eq!(h.s.state, CaState::Open);
        // cwnd = ssthresh, plus the additive increase of the exit ACK (as in Linux,
        // where `tcp_cong_avoid` runs on the ACK that ends recovery).
        assert!(
            h.s.sock.cwnd >= 5.0 && h.s.sock.cwnd < 6.0,
            "{}",
            h.s.sock.cwnd
        );
        assert!(h.kinds().contains(&"recovery_exit"));
    }

    /// Recovery for a lost segment 0 of the initial 10, all of which fill the send
    /// buffer (10 segments); then the retransmission arrives and the ACK stops at 4,
    /// below the recovery point: a partial ACK whose head (4) is in flight, neither
    /// lost nor retransmitted. Returns what that ACK sent.
    fn partial_ack_with_a_full_buffer(recovery_sends: RecoverySends) -> (Harness, Vec<u64>) {
        let mut h = harness("newreno", |c| {
            c.snd_buf = 10 * MSS;
            c.recovery_sends = recovery_sends;
        });
        h.ack(20, 0, &[(1, 2)]);
        h.ack(21, 0, &[(1, 3)]);
        assert_eq!(
            h.ack(22, 0, &[(1, 4)]),
            vec![0],
            "fast retransmit; nothing unsent"
        );
        let sent = h.ack(45, 4, &[]);
        assert_eq!(
            h.s.state,
            CaState::Recovery,
            "still below the recovery point"
        );
        (h, sent)
    }

    #[test]
    fn under_ns3_a_partial_ack_resends_the_head_when_nothing_is_lost_or_unsent() {
        // Linux: PRR's quota (5/10 of the 2 delivered since recovery began, less the
        // retransmission) is spent: nothing goes.
        let (linux, sent) = partial_ack_with_a_full_buffer(RecoverySends::Linux);
        assert_eq!(sent, Vec::<u64>::new());
        assert_eq!(linux.s.counters.retransmitted_segments, 1);
        // ns-3: the head goes again at once whatever the window (`DoRetransmit`
        // falls back on it), and the copy counts as in flight.
        let (ns3, sent) = partial_ack_with_a_full_buffer(RecoverySends::Ns3);
        assert_eq!(sent, vec![4]);
        assert_eq!(ns3.s.counters.retransmitted_segments, 2);
        assert_eq!(ns3.s.sb.in_flight(), linux.s.sb.in_flight() + 1);
    }

    #[test]
    fn under_ns3_a_partial_ack_leaves_a_retransmitted_head_alone() {
        // Segments 0 and 1 lost of a full buffer: both are retransmitted during
        // recovery, and the ACK for 0 stops at 1, whose retransmission is in flight.
        // Nothing is lost, and the data the application had written is all sent, so
        // only the check keeps `DoRetransmit` from sending 1 again. (Rule 3 may still
        // re-send segments that were never retransmitted: 9, then the new 10.)
        let mut h = harness("newreno", |c| {
            c.snd_buf = 10 * MSS;
            c.recovery_sends = RecoverySends::Ns3;
        });
        for (t, end) in (20..).zip(3..=9) {
            h.ack(t, 0, &[(2, end)]);
        }
        assert!(
            h.s.sb.get(1).retrans,
            "both holes repaired before the partial ACK"
        );
        let sent = h.ack(45, 1, &[(2, 9)]);
        assert_eq!(h.s.state, CaState::Recovery);
        assert!(!sent.is_empty() && !sent.contains(&1), "{sent:?}");
    }

    #[test]
    fn under_ns3_3_29_a_partial_ack_resends_even_a_retransmitted_head() {
        // The case above: 1's retransmission is in flight when the ACK for 0 arrives.
        // ns-3 3.29 clears 1's retransmitted mark and sends it again at once; the
        // copy replaces the forgotten one in the pipe.
        let mut h = harness("newreno", |c| {
            c.snd_buf = 10 * MSS;
            c.recovery_sends = RecoverySends::Ns3v329;
        });
        for (t, end) in (20..).zip(3..=9) {
            h.ack(t, 0, &[(2, end)]);
        }
        let retransmitted = h.s.counters.retransmitted_segments;
        let sent = h.ack(45, 1, &[(2, 9)]);
        assert_eq!(sent.first(), Some(&1), "{sent:?}");
        assert!(h.s.counters.retransmitted_segments > retransmitted);
        assert!(
            h.s.sb.get(0).retrans,
            "the head counts as retransmitted again"
        );
    }

    /// Segment 0 of the initial 10 lost, 1..=3 SACKed one by one: fast retransmit on
    /// the third; returns what that ACK sent.
    fn enter_recovery(h: &mut Harness) -> Vec<u64> {
        h.ack(20, 0, &[(1, 2)]);
        h.ack(21, 0, &[(1, 3)]);
        h.ack(22, 0, &[(1, 4)])
    }

    #[test]
    fn classic_recovery_holds_cwnd_at_ssthresh_from_entry_to_exit() {
        let mut h = harness("newreno", |c| c.recovery = Recovery::Classic);
        // Entry: ssthresh = 10 / 2 and cwnd = ssthresh at once; the hole goes though
        // the pipe (12 sent - 3 SACKed - 1 lost + 1 retransmission = 9) exceeds it.
        assert_eq!(enter_recovery(&mut h), vec![0]);
        assert_eq!((h.s.sock.cwnd, h.s.sock.ssthresh), (5.0, 5.0));
        assert_eq!(h.s.sb.in_flight(), 9);
        // Each further SACK takes one segment out of the pipe; new data goes only
        // once the pipe is below cwnd, which no duplicate ACK moves.
        let mut sent = Vec::new();
        for i in 4..12 {
            sent.extend(h.ack(22 + i, 0, &[(1, i + 1)]));
            assert_eq!(h.s.sock.cwnd, 5.0, "after SACK of {i}");
            assert!(
                h.s.sb.in_flight() <= 5 || sent.is_empty(),
                "pipe {}",
                h.s.sb.in_flight()
            );
        }
        assert_eq!(
            sent,
            vec![12, 13, 14, 15],
            "one new segment per SACK once the pipe is at cwnd"
        );
        // The ACK that ends recovery leaves cwnd at ssthresh; the next one grows it.
        let high = h.s.high_seq / MSS;
        h.ack(60, high, &[]);
        assert_eq!(h.s.state, CaState::Open);
        assert_eq!(h.s.sock.cwnd, 5.0, "no growth on the exit ACK");
        h.ack(61, high + 1, &[]);
        assert!(h.s.sock.cwnd > 5.0, "{}", h.s.sock.cwnd);
    }

    #[test]
    fn prr_moves_cwnd_with_the_pipe_during_recovery() {
        // The same ACKs under PRR (Linux): cwnd is the pipe plus PRR's quota, not
        // ssthresh, and the exit ACK grows it.
        let mut h = harness("newreno", |_| {});
        enter_recovery(&mut h);
        assert_ne!(h.s.sock.cwnd, 5.0);
        for i in 4..12 {
            h.ack(22 + i, 0, &[(1, i + 1)]);
        }
        let high = h.s.high_seq / MSS;
        h.ack(60, high, &[]);
        assert!(
            h.s.sock.cwnd > 5.0 && h.s.sock.cwnd < 6.0,
            "{}",
            h.s.sock.cwnd
        );
    }

    /// Segments 0, 2, 4 and 6 lost without SACK: NewReno repairs one hole per
    /// partial ACK. Returns the RTO deadline after each partial ACK.
    fn deadlines_over_partial_acks(partial_ack_rto: PartialAckRto) -> Vec<Time> {
        let mut h = harness("newreno", |c| {
            c.sack = false;
            c.partial_ack_rto = partial_ack_rto;
        });
        for t in 20..23 {
            h.ack(t, 0, &[]);
        }
        assert_eq!(h.s.state, CaState::Recovery);
        [(100, 2), (200, 4), (300, 6)]
            .iter()
            .map(|&(t, ack)| {
                h.ack(t, ack, &[]);
                assert_eq!(h.s.state, CaState::Recovery);
                h.s.rto_timer.deadline().expect("the RTO is armed")
            })
            .collect()
    }

    #[test]
    fn only_the_first_partial_ack_restarts_the_timer_when_impatient() {
        let steady = deadlines_over_partial_acks(PartialAckRto::Every);
        assert!(steady[1] > steady[0] && steady[2] > steady[1], "{steady:?}");
        let impatient = deadlines_over_partial_acks(PartialAckRto::First);
        assert_eq!(impatient[0], steady[0], "the first partial ACK restarts it");
        assert_eq!(
            (impatient[1], impatient[2]),
            (impatient[0], impatient[0]),
            "the others do not"
        );
    }

    #[test]
    fn ns3_rtt_samples_come_only_from_the_cumulative_ack_of_the_oldest_segment() {
        let sampling = |rtt_samples| {
            let mut h = harness("newreno", |c| c.rtt_samples = rtt_samples);
            // Segment 0 is late: SACKs of 1-2 at 20 ms, then the cumulative ACK at 30.
            h.ack(20, 0, &[(1, 3)]);
            let after_sack = h.s.rtt.min_rtt;
            h.ack(30, 3, &[]);
            (after_sack, h.s.rtt.min_rtt)
        };
        assert_eq!(
            sampling(RttSamples::Linux),
            (Some(20 * MS), Some(20 * MS)),
            "Linux samples the SACKed segments"
        );
        assert_eq!(
            sampling(RttSamples::Ns3),
            (None, Some(30 * MS)),
            "ns-3 waits for the ACK that covers the oldest segment"
        );
    }

    /// Whether `ack` changes the smoothed RTT, i.e. gives the estimator a sample.
    fn samples(h: &mut Harness, at_ms: u64, ack: u64) -> bool {
        let before = h.s.rtt.srtt_s();
        h.ack(at_ms, ack, &[]);
        h.s.rtt.srtt_s() != before
    }

    #[test]
    fn ns3_rtt_samples_skip_an_ack_whose_oldest_segment_was_retransmitted() {
        let sampling = |rtt_samples| {
            let mut h = harness("newreno", |c| c.rtt_samples = rtt_samples);
            assert!(samples(&mut h, 10, 1), "a clean first sample, 10 ms");
            // Segment 1 lost: three SACKed segments above it retransmit it.
            h.ack(20, 1, &[(2, 5)]);
            assert_eq!(h.s.state, CaState::Recovery);
            // The retransmission arrives; the ACK also delivers 5, never retransmitted.
            samples(&mut h, 45, 6)
        };
        assert!(sampling(RttSamples::Linux), "segment 5 gives a sample");
        assert!(!sampling(RttSamples::Ns3), "the oldest was retransmitted");
    }

    #[test]
    fn after_a_timeout_ns3_samples_nothing_sent_before_it() {
        let sampling = |rtt_samples| {
            let mut h = harness("newreno", |c| c.rtt_samples = rtt_samples);
            assert!(samples(&mut h, 10, 1));
            // The timeout, one RTO after the ACK restarted the timer.
            let rto_at = 10 * MS + h.s.rtt.rto();
            assert_eq!(h.run_timers_until(rto_at), vec![1], "the timeout");
            // The retransmission of 1 is acknowledged (no sample: Karn), then the
            // original segments 2-5, sent before the timeout and never again.
            h.ack(rto_at / MS + 5, 2, &[]);
            samples(&mut h, rto_at / MS + 10, 6)
        };
        assert!(sampling(RttSamples::Linux), "segments 2-5 give a sample");
        assert!(!sampling(RttSamples::Ns3), "the timeout emptied RttHistory");
    }

    /// A timeout during classic recovery (cwnd = ssthresh = 5, entered from cwnd 10),
    /// then a second one, with nothing acknowledged: ssthresh after each.
    fn ssthresh_over_two_timeouts(rto_ssthresh: RtoSsthresh) -> (f64, f64) {
        let mut h = harness("newreno", |c| {
            c.recovery = Recovery::Classic;
            c.rto_ssthresh = rto_ssthresh;
        });
        enter_recovery(&mut h);
        assert_eq!(h.s.sock.ssthresh, 5.0);
        let first = h.s.rto_timer.deadline().expect("the RTO is armed");
        h.run_timers_until(first);
        assert_eq!((h.s.state, h.s.counters.rto_events), (CaState::Loss, 1));
        let after_first = h.s.sock.ssthresh;
        assert!(h.s.sb.head_retransmitted(), "go-back-N resent the head");
        h.run_timers_until(h.s.rto_timer.deadline().expect("armed again"));
        assert_eq!(h.s.counters.rto_events, 2);
        (after_first, h.s.sock.ssthresh)
    }

    #[test]
    fn ns3_timeouts_reduce_again_unless_repeating_the_heads_retransmission() {
        // Linux: the timeout continues the recovery episode, which set ssthresh.
        assert_eq!(ssthresh_over_two_timeouts(RtoSsthresh::Linux), (5.0, 5.0));
        // ns-3: NewReno's ssthresh again, from cwnd 5 (this harness's Linux NewReno
        // halves cwnd); the second timeout repeats the loss state's head.
        assert_eq!(ssthresh_over_two_timeouts(RtoSsthresh::Ns3), (2.5, 2.5));
    }

    #[test]
    fn rto_sets_the_loss_window_and_backs_off() {
        let mut h = harness("newreno", |_| {});
        // No ACK at all: the initial RTO (1 s) fires.
        let sent = h.run_timers_until(1000 * MS);
        assert_eq!(
            sent,
            vec![0],
            "go-back-N from the first unacknowledged segment"
        );
        assert_eq!(h.s.state, CaState::Loss);
        assert_eq!(h.s.sock.cwnd, 1.0);
        assert_eq!(h.s.sock.ssthresh, 5.0);
        assert_eq!(h.s.counters.rto_events, 1);
        // The next timeout is twice as long.
        assert_eq!(h.run_timers_until(2999 * MS), Vec::<u64>::new());
        assert_eq!(h.run_timers_until(3000 * MS), vec![0]);
        assert_eq!(h.s.counters.rto_events, 2);
        // ACKs in the loss state slow-start and retransmit in order.
        assert_eq!(h.ack(3020, 1, &[]), vec![1, 2]);
        assert_eq!(h.s.sock.cwnd, 2.0);
    }

    #[test]
    fn without_sack_dupacks_and_partial_acks_retransmit_each_hole() {
        let mut h = harness("newreno", |c| c.sack = false);
        // Segments 0 and 5 lost: three duplicate ACKs for 0. The first two each
        // release one new segment (limited transmit, RFC 3042).
        assert_eq!(h.ack(20, 0, &[]), vec![10]);
        assert_eq!(h.ack(21, 0, &[]), vec![11]);
        assert_eq!(
            h.ack(22, 0, &[]).first(),
            Some(&0),
            "fast retransmit on the third duplicate"
        );
        assert_eq!(h.s.state, CaState::Recovery);
        // The retransmission fills the first hole: a partial ACK up to 5 (RFC 6582)
        // retransmits segment 5 at once.
        let sent = h.ack(45, 5, &[]);
        assert_eq!(sent.first(), Some(&5));
        assert_eq!(
            h.s.state,
            CaState::Recovery,
            "still below the recovery point"
        );
        assert_eq!(h.s.counters.fast_recovery_episodes, 1);
    }

    #[test]
    fn without_sack_duplicate_acks_and_the_cumulative_ack_count_each_segment_once() {
        let mut h = harness("newreno", |c| c.sack = false);
        // Segment 0 lost, 1..=3 arrive: three duplicate ACKs, three deliveries.
        for t in 20..23 {
            h.ack(t, 0, &[]);
        }
        assert_eq!(h.s.rate.delivered, 3);
        // The retransmission fills the hole: the ACK covers 0..=3, one new delivery.
        h.ack(45, 4, &[]);
        assert_eq!(h.s.rate.delivered, 4, "segments 0..=3 delivered once each");
    }

    #[test]
    fn reno_leaves_recovery_at_the_first_partial_ack() {
        let mut h = harness("reno", |c| c.sack = false);
        for t in 20..23 {
            h.ack(t, 0, &[]);
        }
        assert_eq!(h.s.state, CaState::Recovery);
        // Segments 0 and 5 were lost: the ACK for the retransmitted 0 stops at 5.
        let sent = h.ack(45, 5, &[]);
        assert_eq!(
            h.s.state,
            CaState::Open,
            "Reno exits instead of retransmitting 5"
        );
        assert!(!sent.contains(&5));
        assert_eq!(h.s.sock.ssthresh, 5.0);
        // Segment 5 needs three duplicate ACKs of its own, and a second halving.
        for t in 46..49 {
            h.ack(t, 5, &[]);
        }
        assert_eq!(h.s.state, CaState::Recovery);
        assert_eq!(h.s.counters.fast_recovery_episodes, 2);
        assert!(h.s.sock.ssthresh < 5.0);
    }

    #[test]
    fn tahoe_restarts_slow_start_from_one_segment() {
        let mut h = harness("tahoe", |_| {});
        h.ack(20, 0, &[(1, 2)]);
        h.ack(21, 0, &[(1, 3)]);
        let sent = h.ack(22, 0, &[(1, 4)]);
        assert_eq!(sent, vec![0], "one segment: the loss window");
        assert_eq!(h.s.state, CaState::Loss);
        assert_eq!(h.s.sock.cwnd, 1.0);
        assert_eq!(h.s.sock.ssthresh, 5.0);
        assert_eq!(
            (h.s.counters.rto_events, h.s.counters.fast_recovery_episodes),
            (0, 1)
        );
        assert_eq!(h.s.rtt.rto(), 200 * MS, "the minimum RTO, not backed off");
    }

    #[test]
    fn dsack_of_every_retransmission_undoes_the_reduction() {
        let mut h = harness("newreno", |_| {});
        h.ack(20, 0, &[(1, 2)]);
        h.ack(21, 0, &[(1, 3)]);
        h.ack(22, 0, &[(1, 4)]);
        assert_eq!(h.s.sock.ssthresh, 5.0);
        // Segment 0 was only delayed: its original and its retransmission both arrive,
        // and the receiver reports the duplicate.
        h.ack(23, 4, &[]);
        h.ack_full(40, 4, &[(0, 1)], true);
        assert_eq!(h.s.counters.spurious_retransmissions, 1);
        assert_eq!(
            h.s.counters.undos, 0,
            "undone when recovery ends, not under PRR"
        );
        let high = h.s.high_seq / MSS;
        h.ack(41, high, &[]);
        assert_eq!(h.s.counters.undos, 1);
        assert_eq!(h.s.state, CaState::Open);
        assert_eq!(h.s.sock.ssthresh, f64::INFINITY, "ssthresh restored");
        assert!(
            h.s.sock.cwnd >= 10.0,
            "cwnd restored to at least its prior value, got {}",
            h.s.sock.cwnd
        );
    }

    #[test]
    fn dsack_after_a_timeout_undoes_at_once_and_reopens() {
        let mut h = harness("newreno", |_| {});
        assert_eq!(h.run_timers_until(1000 * MS), vec![0]);
        assert_eq!(h.s.state, CaState::Loss);
        // The original of segment 0 was only late: the whole window is acked, then
        // the retransmission is reported as a duplicate.
        h.ack(1010, 10, &[]);
        h.ack_full(1011, 10, &[(0, 1)], true);
        assert_eq!(h.s.counters.undos, 1);
        assert_eq!(h.s.state, CaState::Open);
        assert!(h.s.sock.cwnd >= 10.0, "{}", h.s.sock.cwnd);
    }

    #[test]
    fn receive_window_limits_sending() {
        let mut h = harness("newreno", |_| {});
        h.now = 20 * MS;
        let mut a = Ack::new(2 * MSS, 0, (10 * MSS) as u32);
        a.dsack = false;
        let sent = h.io(|s, io| s.on_ack(&a, io));
        assert_eq!(
            sent,
            vec![10, 11],
            "una 2 + rwnd 10 allows up to segment 11"
        );
    }

    #[test]
    fn pacing_spaces_transmissions() {
        let mut h = harness("newreno", |c| c.pacing = true);
        // Without an RTT sample the first window goes at once; afterwards segments are
        // spaced by size / (2 cwnd / srtt) in slow start.
        let sent = h.ack(20, 2, &[]);
        assert_eq!(
            sent.len(),
            1,
            "one segment now, the rest on the pacing timer"
        );
        let later = h.run_timers_until(21 * MS);
        assert!(!later.is_empty() && later.len() < 4, "{later:?}");
        // 12 segments of 1052 B per 20 ms doubled: about 20 ms / 24 per segment.
        let gap = h.s.next_send_time - h.now;
        assert!(gap > 0 && gap < 2 * MS, "{gap}");
    }

    #[test]
    fn pacing_spaces_segments_by_their_payload_not_their_headers() {
        let mut h = harness("newreno", |c| c.pacing = true);
        h.ack(20, 2, &[]);
        // At 8 Mb/s (1 byte/us) a full segment's payload takes MSS us; with its 52
        // header bytes it would take 52 us more.
        h.s.sock.pacing_rate_bps = 8e6;
        let t = h.s.next_send_time;
        h.run_timers_until(t);
        assert_eq!(h.s.next_send_time - t, MSS * 1_000, "1 us per byte, in ns");
    }

    #[test]
    fn tso_sized_pacing_sends_bursts() {
        let mut h = harness("newreno", |c| {
            c.pacing = true;
            c.pacing_burst = MS;
        });
        // The pacing rate after this ACK is 2 x 12 segments / 20 ms (about 10 Mb/s):
        // 1 ms of it is less than two segments, so bursts are two segments.
        let sent = h.ack(20, 2, &[]);
        assert_eq!(sent.len(), 2, "{sent:?}");
        let later = h.run_timers_until(h.s.next_send_time);
        assert_eq!(later.len(), 2, "{later:?}");
    }

    #[test]
    fn a_full_send_buffer_is_not_application_limited() {
        // Bulk keeps its 4-segment buffer full: buffer-limited, not app-limited.
        let mut h = harness("newreno", |c| c.snd_buf = 4 * MSS);
        h.ack(20, 2, &[]);
        let segs: Vec<bool> = (0..h.s.sb.len())
            .map(|i| h.s.sb.get(i).tx.app_limited)
            .collect();
        assert_eq!(segs, vec![false; 4]);
    }

    #[test]
    fn growth_needs_a_full_window() {
        let mut h = harness("newreno", |c| c.snd_buf = 4 * MSS);
        // The application keeps only 4 segments in the buffer: not cwnd-limited, so
        // ACKs do not grow the window.
        assert_eq!(h.s.sb.packets_out(), 4);
        h.ack(20, 2, &[]);
        h.ack(40, 4, &[]);
        assert_eq!(h.s.sock.cwnd, 10.0);
    }
}
