//! RLC acknowledged mode over HARQ, for one direction of one UE.
//!
//! The transmitter numbers the bytes of the SDUs (IP packets) it queues as one
//! stream, as RLC AM segments SDUs into PDUs; each transport block (TB) carries a
//! contiguous stretch of that stream. HARQ retransmits a failed TB after the HARQ
//! round trip, combining attempts by incremental redundancy, up to `harq_max_retx`
//! times (the mmWave module: 3); after that RLC ARQ retransmits the bytes, as a fresh
//! TB, when its timers say (`arq.rs`). ARQ never gives up, so the
//! radio loses nothing but what the buffer limit refuses. The receiver reassembles
//! and hands SDUs up strictly in order, as RLC AM does, so a HARQ retransmission
//! holds back the SDUs behind it.
//!
//! The buffer limit counts new data only (never transmitted bytes), like the
//! module's `MaxTxBufferSize`: an arriving SDU that does not fit is dropped whole.

use super::acks::{PeerAcks, ReportContent};
use super::arq::{Arq, ArqTiming, Retransmission};
use super::headers::{PDCP_HEADER_BYTES, QueueCopy, opportunity, pdu_data, uplink_opportunity};
use super::mcs::{FirstAttempt, McsTable};
use super::miesm::{EffectiveSinr, flat};
use super::segments::{Partial, Pdus, Placed};
use super::status::BufferStatusTimer;
use crate::engine::{RangeSet, Ring, Rng, RngExt, Time};
use crate::net::Packet;
use std::collections::VecDeque;

/// HARQ attempts a TB can make: the first transmission plus at most this many - 1
/// retransmissions (the configured maximum is capped to it).
pub const MAX_HARQ_ATTEMPTS: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RlcConfig {
    /// Limit on new (never transmitted) data, bytes.
    pub buffer_bytes: u64,
    /// HARQ retransmissions of a TB before RLC takes over.
    pub harq_max_retx: u8,
    /// From a TB's transmission to its retransmission (feedback and processing).
    pub harq_rtt: Time,
    /// TBs that may await HARQ feedback at once (the module: 20 processes).
    pub harq_processes: usize,
    /// When RLC retransmits the bytes of a TB HARQ gave up on.
    pub arq: ArqTiming,
    /// A scheduler deciding ahead reserves each retransmission's symbols
    /// ([`RlcEntity::reserve_due_harq`]), and the transmitter sends only reserved ones
    /// (the uplink under the module's grants); otherwise due ones go in any slot they
    /// fit.
    pub harq_reserved_ahead: bool,
    /// From an SDU's arrival to the first slot it may be sent in: the uplink's
    /// scheduling request and grant, or, with grants from buffer status reports, the
    /// lead with which a UE fills one (0 on the downlink).
    pub grant_delay: Time,
    /// From the slot a TB is built in to the slot at whose end its data reaches the
    /// receiver: on the downlink, the latency of a scheduler that works ahead and takes
    /// the data out of the buffer when it schedules (ns3-mmwave's MAC asks the RLC for
    /// its PDUs at scheduling time, `L1L2CtrlLatency` subframes before the TB goes);
    /// both ways, the receiver's decoding (the module's `TbDecodeLatency`). 0 elsewhere.
    pub air_delay: Time,
    /// The radio places each TB within its slot ([`RlcEntity::land_later`]) and hands
    /// up at the instant a TB's data lands, not only at slot ends.
    pub lands_within_slot: bool,
    /// New data goes with PDCP, RLC and MAC headers, in blocks sized from a copy of
    /// the queue as `PduSizing` says (`headers.rs`); None: a block carries the
    /// stream's bytes alone, sized from the real queue.
    pub headers: Option<PduSizing>,
    /// The period of the RLC's buffer-status timer (`status::BufferStatusTimer`), which
    /// refreshes the scheduler's copy of the queue; 0: no timer, the copy is the real
    /// queue at every decision.
    pub buffer_status_period: Time,
    /// The peer's status reports acknowledge what was sent ([`RlcEntity::peer_report`]),
    /// and the poll-retransmit timer sends again what they have not (`arq.rs`).
    pub acknowledged: bool,
    /// A report overtaken by a newer one is misread as acknowledging everything sent
    /// (`acks.rs`); false: it is ignored.
    pub misreads_overtaken: bool,
    /// ARQ retransmits whole PDUs, one per TB and nothing beside it, cut into segments
    /// when the TB is smaller (`segments.rs`); false: any byte range, beside new data.
    pub retransmits_pdus: bool,
    /// The receiver places a retransmitted PDU's segments as the module does, and
    /// discards a whole PDU while it holds a part of it (`segments.rs`); implies
    /// `retransmits_pdus`.
    pub misplaces_segments: bool,
}

/// The channel a slot's transmissions see.
#[derive(Clone, Copy, Debug)]
pub struct SlotChannel<'a> {
    pub table: &'a McsTable,
    /// MCS chosen by link adaptation for new TBs.
    pub mcs: u8,
    /// The SINR the TBs actually meet, dB: effective SINR per modulation (all equal on a
    /// flat channel, see `miesm.rs`).
    pub sinr_db: EffectiveSinr,
}

impl<'a> SlotChannel<'a> {
    /// A flat channel: every modulation meets `sinr_db`.
    pub fn flat(table: &'a McsTable, mcs: u8, sinr_db: f64) -> Self {
        SlotChannel {
            table,
            mcs,
            sinr_db: flat(sinr_db),
        }
    }

    /// The effective SINR a TB at `mcs` meets.
    fn sinr_for(&self, mcs: u8) -> f64 {
        self.sinr_db[self.table.modulation_slot(mcs)]
    }

    /// The fewest symbols a TB of `bytes` at `mcs` takes (`McsTable::symbols_for`).
    pub fn symbols_for(&self, bytes: u64, mcs: u8) -> u32 {
        self.table.symbols_for(mcs, bytes)
    }

    /// The bytes a TB of `symbols` carries at the slot's MCS (`McsTable::tb_bytes`).
    pub fn bytes_in(&self, symbols: u32) -> u64 {
        self.table.tb_bytes(self.mcs, symbols)
    }
}

/// Who sizes an entity's new-data blocks under the module's headers (`headers.rs`),
/// from a copy of the queue the RLC's buffer status reports refresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PduSizing {
    /// The gNB's scheduler: each block is what it asks for out of its copy.
    Scheduler,
    /// The UE's MAC: each block is the whole uplink grant, filled while its copy
    /// holds anything.
    UeGrant,
}

#[derive(Clone, Copy, Debug)]
struct Sdu {
    pkt: Packet,
    /// Stream offset just past the SDU's last byte.
    end: u64,
    /// First instant the SDU may be scheduled.
    ready: Time,
    /// When it entered the entity (its radio delay runs from here).
    entered: Time,
}

/// A transport block waiting for its HARQ retransmission.
#[derive(Clone, Copy, Debug)]
struct Tb {
    start: u64,
    end: u64,
    /// Bytes on the air: the stream's `end - start`, with headers the bearer's grant.
    air: u64,
    mcs: u8,
    attempts: u8,
    /// SINR (dB) of each attempt so far, for incremental-redundancy combining.
    sinrs_db: [f64; MAX_HARQ_ATTEMPTS],
    ready: Time,
    /// A scheduler deciding ahead has given the next attempt its symbols
    /// ([`RlcConfig::harq_reserved_ahead`]).
    reserved: bool,
    /// The status report riding the TB, for the opposite direction's sender
    /// (`acks.rs`); a TB with no data (`start == end`) carries one alone.
    report: Option<ReportContent>,
}

/// What became of the last TB an entity launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastTb {
    /// Decoded at once; its data lands at the instant given.
    Decoded(Time),
    /// Awaiting a HARQ retransmission: the last of the entity's HARQ list.
    InHarq,
    /// Given up on at once (no HARQ retransmissions).
    Lost,
}

/// Counters of one entity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RlcStats {
    pub sdus_accepted: u64,
    pub sdus_dropped: u64,
    pub sdus_delivered: u64,
    /// TBs sent for the first time, HARQ retransmissions, TBs HARQ gave up on.
    pub tbs: u64,
    /// Of `tbs`, those carrying a status report and no data.
    pub report_tbs: u64,
    /// Of `tbs`, uplink grants the UE's MAC sent empty (`RlcEntity::send_padding_tb`).
    pub padding_tbs: u64,
    pub harq_retx: u64,
    /// Bytes sent on the air, retransmissions and headers included.
    pub tx_bytes: u64,
    pub harq_failures: u64,
    /// Bytes RLC ARQ retransmitted.
    pub arq_bytes: u64,
    /// Transmissions the receiver decoded (first attempts and HARQ retransmissions).
    pub tbs_decoded: u64,
    /// Sum over the delivered SDUs of their time from entering this entity to leaving
    /// the receiver's (ns3-mmwave's PDCP delay: its PDCP adds no wait of its own).
    pub sdu_delay_sum: Time,
    /// The peer's status reports this sender misread as acknowledging everything
    /// sent (`acks.rs`).
    pub misread_reports: u64,
    /// ARQ retransmissions sent as a segment of a PDU rather than whole
    /// (`segments.rs`).
    pub arq_segments: u64,
    /// Decoded retransmissions the receiver discarded by the module's placing rule.
    pub refused_retransmissions: u64,
}

impl RlcStats {
    /// TBs sent for the first time that carried data.
    pub fn data_tbs(&self) -> u64 {
        self.tbs - self.report_tbs - self.padding_tbs
    }

    /// Mean time an SDU took from entering the entity to leaving the receiver's, in
    /// ms; NaN before any was delivered.
    pub fn mean_sdu_delay_ms(&self) -> f64 {
        if self.sdus_delivered == 0 {
            return f64::NAN;
        }
        self.sdu_delay_sum as f64 / self.sdus_delivered as f64 / 1e6
    }
}

pub struct RlcEntity {
    cfg: RlcConfig,
    /// Undelivered SDUs, oldest first: sent or not, until the receiver hands them up.
    /// A ring (masked indices) rather than a `VecDeque`: every SDU passes through it.
    sdus: Ring<Sdu>,
    /// Stream offsets: end of the queued SDUs, end of the new data sent, and the
    /// receiver's next expected byte (everything before it was handed up).
    queued_end: u64,
    sent_end: u64,
    rx_next: u64,
    /// The last re-establishment's resumption: no SDU is ready before it, so the SDUs'
    /// ready times rise along the queue, which `eligible_end`'s search needs.
    resume_at: Time,
    /// Bytes received beyond `rx_next`.
    received: RangeSet,
    /// Decoded byte ranges still on their way (`air_delay`), oldest first, with the
    /// instant they reach the receiver.
    in_air: VecDeque<(Time, u64, u64)>,
    /// Decoded transmissions that reached the receiver since the last `deliver`.
    arrived: u32,
    harq: Vec<Tb>,
    /// What became of the last TB launched, for a report riding it.
    last_tb: LastTb,
    /// Byte ranges awaiting an ARQ retransmission, with the instant they may go.
    arq: VecDeque<Retransmission>,
    /// Where the PDUs sent start, under [`RlcConfig::retransmits_pdus`].
    pdus: Option<Pdus>,
    /// The receiver's PDUs held in part, under [`RlcConfig::misplaces_segments`].
    partial: Option<Partial>,
    /// The timers that move what HARQ gave up on into `arq`.
    arq_timers: Arq,
    /// The scheduler's copy of the new-data queue, under [`RlcConfig::headers`].
    copy: Option<QueueCopy>,
    buffer_timer: BufferStatusTimer,
    /// What the peer's status reports acknowledged (under [`RlcConfig::acknowledged`]).
    peer: PeerAcks,
    /// Status reports for the opposite direction's sender that this entity's TBs
    /// delivered, with the instant each lands, oldest first.
    reports_in_air: VecDeque<(Time, ReportContent)>,
    /// The last expiry of the poll-retransmit timer that sent something again, at
    /// which the entity reported its buffer, not yet taken by the radio.
    poll_report: Option<Time>,
    rng: Rng,
    /// The error rate of a first attempt at (MCS, SINR bits, the size the error model
    /// reads, `McsTable::error_size`) last computed, exact or close to it
    /// ([`FirstAttempt`]): the SINR changes only at channel updates (ten slots apart,
    /// or every slot under `ns3-mmwave`), and the error curves cost several
    /// transcendental calls per TB. An entity always meets its direction's MCS table
    /// (the uplink's may differ from the downlink's), so the key needs no table.
    first_bler: ((u8, u64, u64), FirstAttempt),
    pub stats: RlcStats,
}

impl RlcEntity {
    pub fn new(cfg: RlcConfig, rng: Rng) -> Self {
        Self {
            cfg,
            sdus: Ring::default(),
            queued_end: 0,
            sent_end: 0,
            rx_next: 0,
            resume_at: 0,
            received: RangeSet::default(),
            in_air: VecDeque::new(),
            arrived: 0,
            harq: Vec::new(),
            last_tb: LastTb::Lost,
            arq: VecDeque::new(),
            pdus: (cfg.retransmits_pdus || cfg.misplaces_segments).then(Pdus::default),
            partial: cfg.misplaces_segments.then(Partial::default),
            arq_timers: Arq::new(cfg.arq),
            copy: cfg.headers.map(|_| QueueCopy::default()),
            buffer_timer: BufferStatusTimer::new(cfg.buffer_status_period),
            peer: PeerAcks::at(0),
            reports_in_air: VecDeque::new(),
            poll_report: None,
            rng,
            first_bler: (
                (0, f64::NAN.to_bits(), 0),
                FirstAttempt {
                    rate: 0.0,
                    exact: true,
                },
            ),
            stats: RlcStats::default(),
        }
    }

    /// Queues an SDU, or refuses it (tail drop) when the new data would exceed the limit.
    /// Inlined into the radio's two enqueues: out of line (as `#[inline]` left it
    /// under fat LTO), every SDU paid the call.
    #[inline(always)]
    pub fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet> {
        let size = u64::from(pkt.size) + self.sdu_overhead();
        if self.new_bytes() + size > self.cfg.buffer_bytes {
            self.stats.sdus_dropped += 1;
            return Err(pkt);
        }
        self.queued_end += size;
        self.sdus.push_back(Sdu {
            pkt,
            end: self.queued_end,
            ready: (now + self.cfg.grant_delay).max(self.resume_at),
            entered: now,
        });
        self.stats.sdus_accepted += 1;
        let queue = self.new_bytes();
        if let Some(copy) = &mut self.copy {
            copy.reported(queue);
        }
        self.buffer_timer.restart(now);
        Ok(())
    }

    /// The entity reports its buffer outside an arrival and its timer (a polled PDU
    /// received off the status-prohibit timer): the scheduler's copy is refreshed.
    pub fn buffer_reported(&mut self) {
        let queue = self.new_bytes();
        if let Some(copy) = &mut self.copy {
            copy.reported(queue);
        }
    }

    /// Bytes an SDU adds to the buffer beyond its packet (its PDCP header).
    pub fn sdu_overhead(&self) -> u64 {
        if self.copy.is_some() {
            PDCP_HEADER_BYTES
        } else {
            0
        }
    }

    /// The buffer's limit, bytes.
    pub fn buffer_bytes(&self) -> u64 {
        self.cfg.buffer_bytes
    }

    /// Bytes of SDUs (with [`Self::sdu_overhead`]) the buffer takes before it
    /// refuses one.
    pub fn room(&self) -> u64 {
        self.cfg.buffer_bytes.saturating_sub(self.new_bytes())
    }

    /// Bytes queued and never transmitted (what the buffer limit counts).
    pub fn new_bytes(&self) -> u64 {
        self.queued_end - self.sent_end
    }

    /// Bytes the entity holds: new, in HARQ or ARQ, or received but held back.
    pub fn buffered_bytes(&self) -> u64 {
        self.queued_end - self.rx_next
    }

    /// SDUs inside the entity (for packet conservation).
    pub fn sdus_held(&self) -> usize {
        self.sdus.len()
    }

    /// True while anything remains to send, retransmit or hand up, the peer has not
    /// acknowledged what was sent (the module's RLC holds it until then), or a
    /// status report rides a TB of this entity.
    pub fn is_busy(&self) -> bool {
        !self.sdus.is_empty() || self.awaits_acknowledgement() || self.carries_reports()
    }

    /// [`RlcEntity::transmit`] with no symbols would change nothing: no TB waits in
    /// HARQ and no scheduler's copy of the queue is kept (new data and ARQ
    /// retransmissions need symbols).
    pub fn sends_nothing_without_symbols(&self) -> bool {
        self.harq.is_empty() && self.copy.is_none()
    }

    /// True while some of what was sent awaits the peer's status report.
    fn awaits_acknowledgement(&self) -> bool {
        self.cfg.acknowledged && self.sent_end > self.peer.acked_end()
    }

    /// True while a status report is in HARQ or on its way in a TB of this entity.
    fn carries_reports(&self) -> bool {
        !self.reports_in_air.is_empty() || self.harq.iter().any(|tb| tb.report.is_some())
    }

    /// The status report this entity's receiver would send now (`acks.rs`).
    pub fn status_content(&self) -> ReportContent {
        let from = self.rx_next.max(self.arq_timers.nacked_to());
        ReportContent {
            ack: self.received.containing(from).map_or(from, |r| r.1),
            next_in_order: self.rx_next,
            highest: self.received.end().max(self.rx_next),
        }
    }

    /// A status report from the peer reaches this sender. A misread one
    /// acknowledges everything sent: what awaits an RLC retransmission is dropped,
    /// as are HARQ's later failures among it (`acks.rs`).
    pub fn peer_report(&mut self, report: ReportContent) {
        if !self
            .peer
            .arrive(report, self.sent_end, self.cfg.misreads_overtaken)
        {
            return;
        }
        self.stats.misread_reports += 1;
        let peer = self.peer;
        self.arq_timers
            .abandon(|start, end| peer.unabandoned(start, end));
        self.arq.retain_mut(|a| match peer.unabandoned(a.0, a.1) {
            Some((start, _)) => {
                a.0 = start;
                true
            }
            None => false,
        });
    }

    /// The next status report a TB of this entity delivered that has landed by
    /// `now` (by the rule of [`RlcEntity::deliver`]).
    pub fn landed_report(&mut self, now: Time) -> Option<ReportContent> {
        let within = self.cfg.lands_within_slot;
        let &(at, report) = self.reports_in_air.front()?;
        if at < now || (within && at == now) {
            self.reports_in_air.pop_front();
            Some(report)
        } else {
            None
        }
    }

    /// Fires the buffer-status timer's expiries due by `now`: returns the instant of
    /// the last, at which the entity reported its buffer (refreshing the scheduler's
    /// copy), if it held anything then.
    pub fn fire_buffer_timer(&mut self, now: Time) -> Option<Time> {
        let at = self.buffer_timer.fire(now, self.is_busy())?;
        let queue = self.new_bytes();
        if let Some(copy) = &mut self.copy {
            copy.reported(queue);
        }
        Some(at)
    }

    /// Brings the scheduler's copy up to a decision at `now` (the expiries of the
    /// buffer-status timer due by then; with no timer, the real queue).
    fn refresh_copy(&mut self, now: Time) {
        if self.buffer_timer.exists() {
            if self.copy.is_some() {
                self.fire_buffer_timer(now);
            }
        } else {
            let queue = self.new_bytes();
            if let Some(copy) = &mut self.copy {
                copy.reported(queue);
            }
        }
    }

    /// The instant the poll-retransmit timer last made the entity report its buffer,
    /// once.
    pub fn take_poll_report(&mut self) -> Option<Time> {
        self.poll_report.take()
    }

    /// True when the entity reports its buffer on a timer of its own (so the radio
    /// need not report data no report covers).
    pub fn has_buffer_timer(&self) -> bool {
        self.buffer_timer.exists()
    }

    /// True when the scheduler's copy is the real queue at a decision at `now`: an
    /// expiry of the buffer-status timer is due, or there is no such timer.
    fn copy_refreshed(&self, now: Time) -> bool {
        !self.buffer_timer.exists() || self.buffer_timer.due(now, self.is_busy())
    }

    /// End of the new data that may be scheduled at `now`.
    fn eligible_end(&self, now: Time) -> u64 {
        if self.cfg.grant_delay == 0 {
            return self.queued_end;
        }
        let n = self.sdus.partition_point(|s| s.ready <= now);
        if n == 0 {
            self.rx_next.max(self.sent_end)
        } else {
            self.sdus[n - 1].end.max(self.sent_end)
        }
    }

    /// Bytes a buffer status report names: new data and data awaiting an RLC
    /// retransmission (the module's `txQueueSize` + `retxQueueSize`).
    pub fn reportable_bytes(&self) -> u64 {
        self.new_bytes() + self.arq.iter().map(|a| a.1 - a.0).sum::<u64>()
    }

    /// Symbols this entity could use in a slot at `now`, with `status` symbols for a
    /// status report, which rides the new data or takes a TB of its own beside the
    /// HARQ retransmissions ([`RlcEntity::transmit_with_report`]).
    pub fn demand_symbols(&self, now: Time, ch: &SlotChannel, status: u32) -> u32 {
        self.harq_due_symbols(now, ch) + self.rlc_demand_symbols(now, ch).max(status)
    }

    /// Symbols of the HARQ retransmissions due at `now`.
    pub fn harq_due_symbols(&self, now: Time, ch: &SlotChannel) -> u32 {
        self.harq
            .iter()
            .filter(|t| t.ready <= now)
            .map(|t| ch.symbols_for(t.air, t.mcs))
            .sum()
    }

    /// ns3-mmwave's scheduler walks its HARQ feedback list before anything else and
    /// stops once the subframe has no symbol left; the feedback it did not reach is
    /// lost (`MmWaveFlexTtiMacScheduler::DoSchedTriggerReq` keeps only the entries it
    /// visited and could not fit). So the retransmissions due by `by` and not yet
    /// reserved take their symbols from `budget` in order while they fit, wait for a
    /// later subframe when they do not, and once `budget` is empty are given up on:
    /// RLC repairs their bytes (`arq.rs`). Returns the symbols taken.
    pub fn reserve_due_harq(
        &mut self,
        now: Time,
        by: Time,
        ch: &SlotChannel,
        budget: &mut u32,
    ) -> u32 {
        let mut taken = 0;
        let mut i = 0;
        while i < self.harq.len() {
            let tb = self.harq[i];
            if tb.ready > by || tb.reserved {
                i += 1;
                continue;
            }
            if *budget == 0 {
                self.given_up(now, &tb);
                self.harq.remove(i);
                continue;
            }
            let need = ch.symbols_for(tb.air, tb.mcs);
            if need <= *budget {
                *budget -= need;
                taken += need;
                self.harq[i].reserved = self.cfg.harq_reserved_ahead;
            }
            i += 1;
        }
        taken
    }

    /// Symbols the RLC's own transmission (due ARQ retransmissions and new data) could
    /// use in a slot at `now`: what the scheduler grants it as one opportunity.
    fn rlc_demand_symbols(&self, now: Time, ch: &SlotChannel) -> u32 {
        let arq: u64 = self
            .arq
            .iter()
            .filter(|a| a.2 <= now)
            .map(|a| a.1 - a.0)
            .sum();
        let new = match self.copy.as_ref().filter(|_| self.sized_by_scheduler()) {
            Some(copy) => {
                let mut view = *copy;
                if self.copy_refreshed(now) {
                    view.reported(self.new_bytes());
                }
                view.request()
            }
            None => self.eligible_end(now) - self.sent_end,
        };
        ch.symbols_for(arq + new, ch.mcs)
    }

    /// Transmits in the slot starting at `now` with `symbols` symbols: due HARQ
    /// retransmissions first, then due ARQ retransmissions (under
    /// [`RlcConfig::retransmits_pdus`] one PDU or segment, and nothing after it), then
    /// new data. Returns the symbols used. Decoded bytes reach the receiver at once and
    /// are handed up by the next [`RlcEntity::deliver`], at the end of the slot.
    pub fn transmit(&mut self, now: Time, symbols: u32, ch: &SlotChannel) -> u32 {
        let mut left = self.retransmit_harq(now, symbols, ch);
        if self.pdus.is_some() {
            if let Some(left) = self.retransmit_pdu(now, left, ch) {
                return symbols - left;
            }
        } else {
            while let Some(&(start, end, ready)) = self.arq.front() {
                let take = (end - start).min(ch.bytes_in(left));
                if ready > now || take == 0 || self.harq.len() >= self.cfg.harq_processes {
                    break;
                }
                left -= ch.symbols_for(take, ch.mcs);
                self.stats.arq_bytes += take;
                self.send_new_tb(now, start, start + take, take, ch);
                if start + take == end {
                    self.arq.pop_front();
                } else {
                    self.arq[0].0 = start + take;
                }
            }
        }
        if self.harq.len() >= self.cfg.harq_processes {
            return symbols - left;
        }
        if self.copy.is_some() {
            left -= self.send_new_pdu(now, left, ch);
            return symbols - left;
        }
        let take = (self.eligible_end(now) - self.sent_end).min(ch.bytes_in(left));
        if take > 0 {
            left -= ch.symbols_for(take, ch.mcs);
            let start = self.sent_end;
            self.record_pdu(start);
            self.sent_end += take;
            self.send_new_tb(now, start, start + take, take, ch);
        }
        symbols - left
    }

    /// Under [`RlcConfig::retransmits_pdus`]: the first due retransmission's PDU, or
    /// the next segment of it that fits `left` symbols, fills a TB alone. Returns the
    /// symbols left if one went.
    #[inline(never)]
    fn retransmit_pdu(&mut self, now: Time, left: u32, ch: &SlotChannel) -> Option<u32> {
        let &(start, end, ready) = self.arq.front()?;
        let pdu = self.pdus.as_ref()?.bounds(start, self.sent_end);
        let take = (end.min(pdu.1) - start).min(ch.bytes_in(left));
        if ready > now || take == 0 || self.harq.len() >= self.cfg.harq_processes {
            return None;
        }
        self.stats.arq_bytes += take;
        self.stats.arq_segments += u64::from(pdu != (start, start + take));
        // Off the queue first: a receiver refusing it at once queues it again.
        if start + take == end {
            self.arq.pop_front();
        } else {
            self.arq[0].0 = start + take;
        }
        self.send_new_tb(now, start, start + take, take, ch);
        Some(left - ch.symbols_for(take, ch.mcs))
    }

    /// The bearer's grant out of the scheduler's copy, within `symbols`, bytes; the copy
    /// deducts it. 0 when the copy is empty.
    fn grant_from_copy(&mut self, now: Time, symbols: u32, ch: &SlotChannel) -> u64 {
        self.refresh_copy(now);
        let Some(copy) = &mut self.copy else {
            return 0;
        };
        let granted = copy.request().min(ch.bytes_in(symbols));
        if granted > 0 {
            copy.granted(granted);
        }
        granted
    }

    /// True when the scheduler sizes the blocks from its copy ([`PduSizing::Scheduler`]).
    fn sized_by_scheduler(&self) -> bool {
        self.cfg.headers == Some(PduSizing::Scheduler)
    }

    /// Whether the UE's MAC fills a TB of `tb` bytes with new data: while its copy
    /// holds anything, which then deducts it (`headers.rs`).
    fn fill_from_copy(&mut self, now: Time, tb: u64) -> bool {
        self.refresh_copy(now);
        let Some(copy) = &mut self.copy else {
            return false;
        };
        if copy.is_empty() || tb == 0 {
            return false;
        }
        copy.filled(tb);
        true
    }

    /// A grant of `symbols` (a TB of `tb` bytes) the UE's MAC has nothing for goes
    /// all the same, empty: the module's `MmWaveUeMac` sends a MAC PDU with an empty
    /// subheader in the grant's HARQ process (a BSR level above the queue, or a
    /// copy emptied before the RLC's queue), and it fails, is retransmitted and
    /// reported on like any other. Returns the symbols used.
    fn send_padding_tb(&mut self, now: Time, symbols: u32, tb: u64, ch: &SlotChannel) -> u32 {
        if tb == 0 {
            return 0;
        }
        self.stats.padding_tbs += 1;
        let at = self.sent_end;
        self.launch(now, at, at, tb, ch, None);
        symbols
    }

    /// New data under [`RlcConfig::headers`]: one RLC PDU from the block the copy
    /// sizes within `symbols` (the scheduler's grant, or the UE's whole TB), carrying
    /// what fits of the stream beside its headers. Returns the symbols used.
    fn send_new_pdu(&mut self, now: Time, symbols: u32, ch: &SlotChannel) -> u32 {
        let (granted, opportunity) = if self.sized_by_scheduler() {
            let granted = self.grant_from_copy(now, symbols, ch);
            (granted, opportunity(granted))
        } else {
            let tb = ch.bytes_in(symbols);
            if !self.fill_from_copy(now, tb) {
                return self.send_padding_tb(now, symbols, tb, ch);
            }
            (tb, uplink_opportunity(tb))
        };
        if granted == 0 {
            return 0;
        }
        let (start, end) = (self.sent_end, self.eligible_end(now));
        let first = self.sdus.partition_point(|s| s.end <= start);
        let mut at = start;
        let sdus = &self.sdus;
        let pieces = (first..sdus.len()).map(|i| &sdus[i]).map_while(|s| {
            (s.end <= end).then(|| {
                let piece = s.end - at;
                at = s.end;
                piece
            })
        });
        let data = pdu_data(opportunity, pieces);
        if data > 0 {
            self.record_pdu(start);
            self.sent_end += data;
            self.send_new_tb(now, start, start + data, granted, ch);
        }
        ch.symbols_for(granted, ch.mcs)
    }

    /// Transmits in a slot whose RLC opportunity goes to a status report (see
    /// `status.rs`): due HARQ retransmissions go as usual, and the symbols the
    /// scheduler grants the ARQ retransmissions and new data carry the report alone,
    /// in a TB of their own. Returns the symbols used and whether there was such an
    /// opportunity to take.
    pub fn transmit_status_only(
        &mut self,
        now: Time,
        symbols: u32,
        ch: &SlotChannel,
        report: ReportContent,
    ) -> (u32, bool) {
        let left = self.retransmit_harq(now, symbols, ch);
        let rlc = self.rlc_demand_symbols(now, ch).min(left);
        if rlc > 0 {
            if self.sized_by_scheduler() {
                // The scheduler granted the data and deducted it from its copy all the same.
                self.grant_from_copy(now, rlc, ch);
            }
            self.send_report_tb(now, rlc, ch, report);
        }
        (symbols - left + rlc, rlc > 0)
    }

    /// Transmits as [`RlcEntity::transmit`] with a status report beside the data: it
    /// rides the last TB of new or ARQ data the slot sends, or, with none, a TB of its
    /// own in one more symbol if one is left. Returns the symbols used and whether the
    /// report went.
    pub fn transmit_with_report(
        &mut self,
        now: Time,
        symbols: u32,
        ch: &SlotChannel,
        report: ReportContent,
    ) -> (u32, bool) {
        let (sent_before, padding_before) = (self.stats.tbs, self.stats.padding_tbs);
        let used = self.transmit(now, symbols, ch);
        if self.stats.tbs > sent_before {
            // A grant the MAC had no data for carries the report alone.
            if self.stats.padding_tbs > padding_before {
                self.stats.padding_tbs -= 1;
                self.stats.report_tbs += 1;
            }
            match self.last_tb {
                LastTb::InHarq => {
                    if let Some(tb) = self.harq.last_mut() {
                        tb.report = Some(report);
                    }
                }
                LastTb::Decoded(at) => self.reports_in_air.push_back((at, report)),
                LastTb::Lost => {}
            }
            (used, true)
        } else if used < symbols {
            self.send_report_tb(now, 1, ch, report);
            (used + 1, true)
        } else {
            (used, false)
        }
    }

    /// Sends a TB of `symbols` carrying a status report and no data.
    fn send_report_tb(&mut self, now: Time, symbols: u32, ch: &SlotChannel, report: ReportContent) {
        self.stats.report_tbs += 1;
        let at = self.sent_end;
        self.launch(now, at, at, ch.bytes_in(symbols).max(1), ch, Some(report));
    }

    /// Sends the due HARQ retransmissions that fit in `symbols`; returns the symbols left.
    fn retransmit_harq(&mut self, now: Time, symbols: u32, ch: &SlotChannel) -> u32 {
        let mut left = symbols;
        let mut i = 0;
        while i < self.harq.len() {
            let mut tb = self.harq[i];
            let need = ch.symbols_for(tb.air, tb.mcs);
            let unreserved = self.cfg.harq_reserved_ahead && !tb.reserved;
            if tb.ready > now || need > left || unreserved {
                i += 1;
                continue;
            }
            left -= need;
            tb.reserved = false;
            self.stats.harq_retx += 1;
            self.stats.tx_bytes += tb.air;
            tb.sinrs_db[tb.attempts as usize] = ch.sinr_for(tb.mcs);
            tb.attempts += 1;
            if self.decodes(&tb, ch.table) {
                self.decoded(now, &tb);
                self.harq.remove(i);
            } else if usize::from(tb.attempts) > usize::from(self.cfg.harq_max_retx) {
                self.given_up(now, &tb);
                self.harq.remove(i);
            } else {
                tb.ready = now + self.cfg.harq_rtt;
                self.harq[i] = tb;
                i += 1;
            }
        }
        left
    }

    /// New data from `start` goes as a PDU of its own.
    fn record_pdu(&mut self, start: u64) {
        if let Some(pdus) = &mut self.pdus {
            pdus.sent(start);
        }
    }

    /// Sends a TB of `air` bytes carrying the stream's `start..end`.
    fn send_new_tb(&mut self, now: Time, start: u64, end: u64, air: u64, ch: &SlotChannel) {
        self.arq_timers.sent_pdu(now);
        self.launch(now, start, end, air, ch, None);
    }

    /// A TB's first attempt: `air` bytes carrying the stream's `start..end` and
    /// `report`.
    fn launch(
        &mut self,
        now: Time,
        start: u64,
        end: u64,
        air: u64,
        ch: &SlotChannel,
        report: Option<ReportContent>,
    ) {
        self.stats.tbs += 1;
        self.stats.tx_bytes += air;
        let mut sinrs_db = [0.0; MAX_HARQ_ATTEMPTS];
        sinrs_db[0] = ch.sinr_for(ch.mcs);
        let tb = Tb {
            start,
            end,
            air,
            mcs: ch.mcs,
            attempts: 1,
            sinrs_db,
            ready: now + self.cfg.harq_rtt,
            reserved: false,
            report,
        };
        self.last_tb = if self.decodes(&tb, ch.table) {
            self.decoded(now, &tb)
        } else if self.cfg.harq_max_retx == 0 {
            self.given_up(now, &tb);
            LastTb::Lost
        } else {
            self.harq.push(tb);
            LastTb::InHarq
        };
    }

    /// The receiver decoded `tb` at `now`: its data and its report set off.
    fn decoded(&mut self, now: Time, tb: &Tb) -> LastTb {
        self.stats.tbs_decoded += 1;
        if tb.start < tb.end {
            self.receive(now, tb.start, tb.end);
        }
        let lands = now + self.cfg.air_delay;
        if let Some(report) = tb.report {
            self.reports_in_air.push_back((lands, report));
        }
        LastTb::Decoded(lands)
    }

    /// HARQ gave up on `tb` at `now`: RLC repairs its data (unless a misread report
    /// abandoned it, `acks.rs`); its report is lost.
    fn given_up(&mut self, now: Time, tb: &Tb) {
        self.stats.harq_failures += 1;
        self.repair(now, tb.start, tb.end);
    }

    /// The receiver lacks `start..end` after `now`: RLC repairs it
    /// ([`Self::retransmission_of`]), unless a misread report abandoned it
    /// (`acks.rs`).
    fn repair(&mut self, now: Time, start: u64, end: u64) {
        let Some((start, end)) = self.retransmission_of(start, end) else {
            return;
        };
        if let Some((start, end)) = self.peer.unabandoned(start, end) {
            self.arq_timers.gave_up(now, start, end, &mut self.arq);
        }
    }

    /// What RLC retransmits when the receiver lacks `start..end`: those bytes, or
    /// under [`RlcConfig::retransmits_pdus`] the whole PDUs they touch, once while
    /// their retransmission is queued. None for an empty range (a TB with a report
    /// alone).
    fn retransmission_of(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        if start == end {
            return None;
        }
        let Some(pdus) = &self.pdus else {
            return Some((start, end));
        };
        let whole = pdus.widen(start, end, self.sent_end);
        (!self.arq.iter().any(|a| (a.0, a.1) == whole)).then_some(whole)
    }

    fn decodes(&mut self, tb: &Tb, table: &McsTable) -> bool {
        let bytes = tb.air;
        // Drawn first (the error rate takes no draws): a draw far from a first
        // attempt's close rate decides it without the exact one.
        let draw = self.rng.random::<f64>();
        if tb.attempts == 1 {
            let (mcs, sinr_db) = (tb.mcs, tb.sinrs_db[0]);
            let key = (mcs, sinr_db.to_bits(), table.error_size(mcs, bytes));
            if self.first_bler.0 != key {
                self.first_bler = (key, table.first_attempt_error(mcs, sinr_db, bytes));
            }
            return self
                .first_bler
                .1
                .decodes(draw, || table.tb_error(mcs, &tb.sinrs_db[..1], bytes));
        }
        draw >= table.tb_error(tb.mcs, &tb.sinrs_db[..tb.attempts as usize], bytes)
    }

    /// A TB built at `now` carrying `start..end` decodes: the bytes reach the receiver
    /// when the TB has been on the air.
    fn receive(&mut self, now: Time, start: u64, end: u64) {
        if self.cfg.air_delay == 0 {
            self.place(now, start, end);
            self.arrived += 1;
        } else {
            self.in_air
                .push_back((now + self.cfg.air_delay, start, end));
        }
    }

    /// The TBs built at `built` end `offset` into their slot: their data lands that much
    /// after `air_delay` says (less than a slot, so the landings stay in time order).
    pub fn land_later(&mut self, built: Time, offset: Time) {
        let at = built + self.cfg.air_delay;
        for landing in self.in_air.iter_mut().rev() {
            if landing.0 != at {
                break;
            }
            landing.0 += offset;
        }
    }

    /// When the TBs on their way land, in time order.
    pub fn landings(&self) -> impl Iterator<Item = Time> + '_ {
        self.in_air.iter().map(|landing| landing.0)
    }

    /// Hands up, in order, every SDU whose bytes have all been received before `now`
    /// (a TB on the air in the slot that ends at `now` counts: its slot started
    /// before). Returns the decoded transmissions that reached the receiver since the
    /// last call (each asks it for a status report).
    ///
    /// Most calls (seven in ten in `urban`) find that nothing has landed and the
    /// timers idle, and change nothing: that test is inlined into the caller, and
    /// only the other calls pay for [`Self::deliver_landed`]'s call and frame.
    #[inline(always)]
    pub fn deliver(&mut self, now: Time, out: &mut Vec<Packet>) -> u32 {
        let landed = self.in_air.front().is_some_and(|a| self.reached(a.0, now));
        if !landed && self.settled(now) {
            return 0;
        }
        self.deliver_landed(now, out)
    }

    /// Under [`RlcConfig::retransmits_pdus`], after a delivery: forgets the PDUs
    /// handed up, and has the poll-retransmit timer send `unacknowledged` again from
    /// the start of its first PDU.
    #[inline(never)]
    fn settle_pdus(&mut self, unacknowledged: Option<(u64, u64)>) -> Option<(u64, u64)> {
        let pdus = self.pdus.as_mut()?;
        pdus.settle(self.rx_next);
        unacknowledged.map(|(from, to)| (pdus.bounds(from, self.sent_end).0, to))
    }

    /// Decoded bytes `start..end` reach the receiver at `now`: they join what it
    /// received, or, under [`RlcConfig::misplaces_segments`], the PDU they belong to
    /// is placed by the module's rule (`segments.rs`), and one it refuses is repaired
    /// again.
    #[inline(always)]
    fn place(&mut self, now: Time, start: u64, end: u64) {
        if self.partial.is_none() {
            self.received.insert(start, end);
        } else {
            self.place_by_module_rule(now, start, end);
        }
    }

    /// [`Self::place`] under [`RlcConfig::misplaces_segments`], out of line: the
    /// default path pays one test.
    #[inline(never)]
    fn place_by_module_rule(&mut self, now: Time, start: u64, end: u64) {
        let (Some(partial), Some(pdus)) = (&mut self.partial, &self.pdus) else {
            unreachable!("placing by the module's rule keeps the PDUs");
        };
        let pdu = pdus.bounds(start, self.sent_end);
        if pdu.1 <= self.rx_next || self.received.covers(pdu.0, pdu.1) {
            return;
        }
        match partial.place(start, end, pdu) {
            Placed::Complete => self.received.insert(pdu.0, pdu.1),
            Placed::Held => {}
            Placed::Refused => {
                self.stats.refused_retransmissions += 1;
                self.repair(now, pdu.0, pdu.1);
            }
        }
    }

    /// Whether a transmission landing at `landing` has reached the receiver by `now`.
    #[inline(always)]
    fn reached(&self, landing: Time, now: Time) -> bool {
        landing < now || (self.cfg.lands_within_slot && landing == now)
    }

    /// Nothing reached the receiver since the last [`Self::deliver`], which handed up
    /// all it could, and the timers are idle at `now`: the rest of a delivery with
    /// nothing landed would change nothing.
    #[inline(always)]
    fn settled(&self, now: Time) -> bool {
        let sender_idle = self.new_bytes() == 0 && self.arq.is_empty();
        self.arrived == 0
            && self
                .arq_timers
                .idle(now, self.rx_next, &self.received, sender_idle)
    }

    /// [`Self::deliver`] once something may have landed or a timer may be due.
    #[inline(never)]
    fn deliver_landed(&mut self, now: Time, out: &mut Vec<Packet>) -> u32 {
        while let Some(&(_, start, end)) = self.in_air.front().filter(|a| self.reached(a.0, now)) {
            self.in_air.pop_front();
            self.place(now, start, end);
            self.arrived += 1;
        }
        if self.settled(now) {
            return 0;
        }
        let sender_idle = self.new_bytes() == 0 && self.arq.is_empty();
        if let Some((_, end)) = self.received.remove_below(self.rx_next) {
            self.rx_next = end;
        }
        let mut unacknowledged = self
            .awaits_acknowledgement()
            .then_some((self.peer.acked_end(), self.sent_end));
        if self.pdus.is_some() {
            unacknowledged = self.settle_pdus(unacknowledged);
        }
        if let Some(at) = self.arq_timers.advance(
            now,
            self.rx_next,
            &self.received,
            sender_idle,
            unacknowledged,
            &mut self.arq,
        ) {
            self.poll_report = Some(at);
        }
        let mut n = 0;
        while let Some(sdu) = self.sdus.get(n).filter(|s| s.end <= self.rx_next) {
            out.push(sdu.pkt);
            self.stats.sdu_delay_sum += now - sdu.entered;
            n += 1;
        }
        self.stats.sdus_delivered += n as u64;
        self.sdus.drop_front(n);
        std::mem::take(&mut self.arrived)
    }

    /// A handover: TBs awaiting HARQ are lost with the old cell's HARQ entity and
    /// go back to RLC, which retransmits them from the new cell after `resume`.
    pub fn reestablish(&mut self, resume: Time) {
        for tb in std::mem::take(&mut self.harq) {
            if let Some((start, end)) = self.retransmission_of(tb.start, tb.end) {
                self.arq.push_back((start, end, resume));
            }
        }
        self.arq_timers.reestablish(resume, &mut self.arq);
        for a in &mut self.arq {
            a.2 = a.2.max(resume);
        }
        self.sdus.for_each_mut(|s| s.ready = s.ready.max(resume));
        self.resume_at = self.resume_at.max(resume);
        // The new cell's scheduler learns the queue from the re-established RLC.
        self.buffer_reported();
    }

    /// A handover without forwarding: every undelivered SDU is lost.
    pub fn flush(&mut self, dropped: &mut Vec<Packet>) {
        dropped.extend(self.sdus.iter().map(|s| s.pkt));
        self.sdus.drop_front(self.sdus.len());
        self.harq.clear();
        self.arq.clear();
        self.arq_timers.clear();
        self.in_air.clear();
        self.reports_in_air.clear();
        self.received = RangeSet::default();
        if let Some(pdus) = &mut self.pdus {
            pdus.clear();
        }
        if let Some(partial) = &mut self.partial {
            partial.clear();
        }
        self.sent_end = self.queued_end;
        self.rx_next = self.queued_end;
        self.peer = PeerAcks::at(self.queued_end);
        self.buffer_reported();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;
    use crate::net::{Body, Segment};
    use crate::radio::arq::ReorderingTimers;

    fn pkt(seq: u64, size: u16) -> Packet {
        Packet {
            flow: 0,
            size,
            hop: 0,
            body: Body::Data(Segment {
                seq,
                len: u32::from(size),
                ts_val: 0,
                retransmission: false,
            }),
        }
    }

    fn entity(buffer_bytes: u64, grant_delay: Time) -> RlcEntity {
        let cfg = RlcConfig {
            buffer_bytes,
            harq_max_retx: 3,
            harq_rtt: 400_000,
            harq_processes: 20,
            arq: ArqTiming::Fixed(4_000_000),
            harq_reserved_ahead: false,
            grant_delay,
            air_delay: 0,
            lands_within_slot: false,
            headers: None,
            buffer_status_period: 0,
            acknowledged: false,
            misreads_overtaken: true,
            retransmits_pdus: false,
            misplaces_segments: false,
        };
        RlcEntity::new(cfg, RngStreams::new(1).stream("rlc"))
    }

    /// A 1 MiB entity holding `sdus` 1500-byte SDUs, in order from byte 0.
    fn queued(sdus: u64) -> RlcEntity {
        let mut e = entity(1 << 20, 0);
        for i in 0..sdus {
            e.enqueue(0, pkt(i * 1500, 1500)).unwrap();
        }
        e
    }

    /// An entity whose sender learns from its peer's reports, under the module's
    /// timers: 10 ms reordering, 4 ms poll-retransmit.
    fn acknowledging() -> RlcEntity {
        let mut e = entity(1 << 20, 0);
        e.cfg.acknowledged = true;
        e.cfg.arq = ArqTiming::Reordering(ReorderingTimers {
            t_reordering: 10_000_000,
            status_delay: 500_000,
            poll_retransmit: 4_000_000,
        });
        e.arq_timers = Arq::new(e.cfg.arq);
        e
    }

    /// Any report, for the calls that only need one to ride a TB.
    const REPORT: ReportContent = ReportContent {
        ack: 0,
        next_in_order: 0,
        highest: 0,
    };

    fn seqs(out: &[Packet]) -> Vec<u64> {
        out.iter()
            .map(|p| {
                if let Body::Data(s) = p.body {
                    s.seq
                } else {
                    u64::MAX
                }
            })
            .collect()
    }

    /// Runs 100 us slots of 22 symbols from `from` until `until`, collecting what is handed up.
    fn run(e: &mut RlcEntity, ch: &SlotChannel, from: Time, until: Time, out: &mut Vec<Packet>) {
        let mut t = from;
        while t < until {
            e.deliver(t, out);
            e.transmit(t, 22, ch);
            t += 100_000;
        }
        e.deliver(until, out);
    }

    #[test]
    fn tail_drop_counts_new_data_only_and_drops_whole_sdus() {
        let mut e = entity(3000, 0);
        assert!(e.enqueue(0, pkt(0, 1500)).is_ok());
        assert!(e.enqueue(0, pkt(1500, 1500)).is_ok());
        // 3000 new bytes queued: a third SDU does not fit, even partly.
        assert!(e.enqueue(0, pkt(3000, 100)).is_err());
        assert_eq!((e.stats.sdus_accepted, e.stats.sdus_dropped), (2, 1));
        // Once sent, the bytes no longer count against the limit.
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        e.transmit(0, 22, &ch);
        assert_eq!(e.new_bytes(), 0);
        assert!(e.enqueue(100_000, pkt(3000, 1500)).is_ok());
    }

    #[test]
    fn a_clean_channel_delivers_everything_in_order_in_one_slot() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = queued(20);
        // MCS 28: 3135 Mb/s x 100 us = 39 187 bytes per slot, so 26 SDUs fit.
        assert_eq!(e.transmit(0, 22, &ch), ch.symbols_for(30_000, 28));
        let mut out = Vec::new();
        e.deliver(0, &mut out);
        assert_eq!(seqs(&out), (0..20).map(|i| i * 1500).collect::<Vec<_>>());
        assert!(!e.is_busy());
        assert_eq!(e.stats.tbs, 1);
    }

    /// An entity of 3000 bytes whose TBs reach the receiver two slots (of 100 us) after
    /// they are built, and the slot.
    fn built_two_slots_ahead() -> (RlcEntity, Time) {
        let slot = 100_000;
        let mut e = entity(3000, 0);
        e.cfg.air_delay = 2 * slot;
        (e, slot)
    }

    /// A scheduler that works two slots ahead takes the data out of the buffer when it
    /// builds the TB; the receiver has it only after the TB's slot on the air.
    #[test]
    fn a_tb_built_ahead_frees_the_buffer_at_once_and_arrives_after_its_air_slot() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let (mut e, slot) = built_two_slots_ahead();
        e.enqueue(0, pkt(0, 1500)).unwrap();
        e.enqueue(0, pkt(1500, 1500)).unwrap();
        e.transmit(slot, 22, &ch);
        assert_eq!(e.new_bytes(), 0, "the buffer is free for new data at once");
        let mut out = Vec::new();
        for at in [2 * slot, 3 * slot] {
            e.deliver(at, &mut out);
            assert!(out.is_empty(), "at {at}: the TB airs in 3..4 slots");
        }
        e.deliver(4 * slot, &mut out);
        assert_eq!(seqs(&out), [0, 1500]);
    }

    /// Each delivered SDU counts from its own arrival to the delivery; a dropped one
    /// and one still held count nothing.
    #[test]
    fn the_sdu_delay_runs_from_arrival_to_delivery() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let (mut e, slot) = built_two_slots_ahead();
        e.enqueue(0, pkt(0, 1500)).unwrap();
        e.enqueue(40_000, pkt(1500, 1500)).unwrap();
        assert!(e.enqueue(50_000, pkt(3000, 1500)).is_err());
        assert!(
            e.stats.mean_sdu_delay_ms().is_nan(),
            "nothing delivered yet"
        );
        e.transmit(slot, 22, &ch);
        e.enqueue(slot + 10_000, pkt(3000, 1500)).unwrap();
        let mut out = Vec::new();
        e.deliver(4 * slot, &mut out);
        assert_eq!(seqs(&out), [0, 1500]);
        assert_eq!(e.stats.sdu_delay_sum, 4 * slot + (4 * slot - 40_000));
        assert!((e.stats.mean_sdu_delay_ms() - 0.38).abs() < 1e-12);
    }

    #[test]
    fn a_status_only_slot_spends_the_data_opportunity_and_sends_no_data() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = queued(20);
        // The scheduler's grant for the 30 000 bytes is used up by the report alone,
        // in a TB of its own.
        let want = ch.symbols_for(30_000, 28);
        assert_eq!(e.transmit_status_only(0, 22, &ch, REPORT), (want, true));
        assert_eq!(
            (e.stats.tbs, e.stats.tx_bytes, e.new_bytes()),
            (1, ch.bytes_in(want), 30_000)
        );
        assert_eq!(e.landed_report(1), Some(REPORT));
        // The data goes in the next slot, whole.
        assert_eq!(e.transmit(100_000, 22, &ch), want);
        assert_eq!(e.new_bytes(), 0);
    }

    #[test]
    fn a_status_only_slot_still_sends_due_harq_retransmissions() {
        let table = McsTable::ns3_mmwave();
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let mut e = entity(1 << 20, 0);
        e.enqueue(0, pkt(0, 1500)).unwrap();
        e.transmit(0, 22, &dead); // fails; its retransmission is due at 0.4 ms
        assert_eq!(e.stats.tbs, 1);
        // Nothing new to send: no data opportunity, but the retransmission goes.
        let (used, taken) = e.transmit_status_only(400_000, 22, &dead, REPORT);
        assert!(!taken);
        assert_eq!(used, dead.symbols_for(1500, 28));
        assert_eq!(e.stats.harq_retx, 1);
    }

    #[test]
    fn an_empty_entity_offers_no_opportunity_to_a_report() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = entity(1 << 20, 0);
        assert_eq!(e.transmit_status_only(0, 22, &ch, REPORT), (0, false));
    }

    #[test]
    fn a_slot_carries_only_what_its_symbols_hold_and_segments_sdus() {
        let table = McsTable::ns3_mmwave();
        // MCS 0: 90 Mb/s x 100 us = 1125 bytes per 22-symbol slot, less than one SDU.
        let ch = SlotChannel::flat(&table, 0, 40.0);
        let mut e = entity(1 << 20, 0);
        e.enqueue(0, pkt(0, 1500)).unwrap();
        let mut out = Vec::new();
        e.transmit(0, 22, &ch);
        e.deliver(0, &mut out);
        assert!(out.is_empty(), "a segment of the SDU is not the SDU");
        e.transmit(100_000, 22, &ch);
        e.deliver(0, &mut out);
        assert_eq!(seqs(&out), vec![0]);
    }

    /// Whenever an entity says a transmission without symbols sends nothing, one
    /// changes nothing, with SDUs queued, TBs failing into HARQ and bytes in ARQ.
    #[test]
    fn a_transmission_without_symbols_sends_what_the_entity_says() {
        let table = McsTable::ns3_mmwave();
        let bad = SlotChannel::flat(&table, 28, 10.0);
        let mut e = queued(50);
        let (mut out, mut idle, mut waiting) = (Vec::new(), 0, 0);
        for k in 0..400_u64 {
            let t = k * 100_000;
            e.deliver(t, &mut out);
            let before = (e.stats.clone(), e.harq.len(), e.arq.len(), e.sent_end);
            let says = e.sends_nothing_without_symbols();
            e.transmit(t, 0, &bad);
            let after = (e.stats.clone(), e.harq.len(), e.arq.len(), e.sent_end);
            if says {
                assert_eq!(before, after, "slot {k}");
                idle += 1;
            } else {
                waiting += 1;
            }
            e.transmit(t, 22, &bad);
        }
        assert!(idle > 0 && waiting > 0, "{idle} {waiting}");
    }

    #[test]
    fn harq_failures_go_to_arq_and_nothing_is_lost_or_reordered() {
        let table = McsTable::ns3_mmwave();
        // SINR 10 dB below MCS 28's threshold: nearly every attempt fails at first,
        // and IR combining or ARQ must eventually get every byte through.
        let bad = SlotChannel::flat(&table, 28, 10.0);
        let good = SlotChannel::flat(&table, 28, 40.0);
        let mut e = queued(50);
        let mut out = Vec::new();
        run(&mut e, &bad, 0, 2_000_000, &mut out);
        assert!(
            e.stats.harq_retx > 0,
            "failed TBs are retransmitted by HARQ"
        );
        run(&mut e, &good, 2_000_000, 20_000_000, &mut out);
        assert_eq!(seqs(&out), (0..50).map(|i| i * 1500).collect::<Vec<_>>());
        assert!(!e.is_busy());
    }

    #[test]
    fn after_max_retx_failures_the_bytes_wait_for_the_arq_delay() {
        let table = McsTable::ns3_mmwave();
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let mut e = entity(1 << 20, 0);
        e.enqueue(0, pkt(0, 1500)).unwrap();
        let mut out = Vec::new();
        // First attempt at 0, retransmissions at 0.4, 0.8, 1.2 ms: 4 attempts, all lost.
        run(&mut e, &dead, 0, 1_300_000, &mut out);
        assert_eq!(
            (e.stats.tbs, e.stats.harq_retx, e.stats.harq_failures),
            (1, 3, 1)
        );
        // ARQ resends only after the 4 ms status delay (from 1.2 ms: at 5.2 ms).
        let good = SlotChannel::flat(&table, 28, 40.0);
        run(&mut e, &good, 1_300_000, 5_200_000, &mut out);
        assert!(out.is_empty() && e.stats.arq_bytes == 0);
        run(&mut e, &good, 5_200_000, 5_400_000, &mut out);
        assert_eq!((seqs(&out), e.stats.arq_bytes), (vec![0], 1500));
    }

    #[test]
    fn the_uplink_grant_delay_holds_new_sdus() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = entity(1 << 20, 500_000);
        e.enqueue(0, pkt(0, 100)).unwrap();
        assert_eq!(e.demand_symbols(400_000, &ch, 0), 0);
        assert_eq!(e.transmit(400_000, 22, &ch), 0);
        assert!(e.demand_symbols(500_000, &ch, 0) > 0);
        let mut out = Vec::new();
        e.transmit(500_000, 22, &ch);
        e.deliver(0, &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn an_sdu_queued_during_a_reestablishment_waits_for_its_resumption() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = entity(1 << 20, 500_000);
        e.enqueue(0, pkt(0, 100)).unwrap();
        e.reestablish(10_000_000);
        // Queued inside the interruption, its grant delay over long before it ends:
        // neither it nor the SDU ahead of it may go before the resumption.
        e.enqueue(1_000_000, pkt(100, 100)).unwrap();
        assert_eq!(e.demand_symbols(2_000_000, &ch, 0), 0);
        assert_eq!(e.transmit(2_000_000, 22, &ch), 0);
        assert!(e.demand_symbols(10_000_000, &ch, 0) > 0);
    }

    /// One SDU per TB at MCS 0 on a dead channel: every first attempt fails.
    fn failed_tbs(e: &mut RlcEntity, n: u64, dead: &SlotChannel) {
        for i in 0..n {
            e.enqueue(0, pkt(i * 100, 100)).unwrap();
            e.transmit(0, dead.symbols_for(100, 0), dead);
        }
    }

    #[test]
    fn due_retransmissions_fit_wait_or_are_lost_once_the_subframe_is_full() {
        let table = McsTable::ns3_mmwave();
        let dead = SlotChannel::flat(&table, 0, -30.0);
        let mut e = entity(1 << 20, 0);
        failed_tbs(&mut e, 3, &dead);
        let need = dead.symbols_for(100, 0);
        // Due at 0.4 ms. A budget of one TB and a half: the first fits, the second and
        // the third wait for a later subframe.
        let mut budget = need + need / 2;
        assert_eq!(
            e.reserve_due_harq(400_000, 400_000, &dead, &mut budget),
            need
        );
        assert_eq!((budget, e.stats.harq_failures), (need / 2, 0));
        // A decision that the downlink filled: every due retransmission it reaches is
        // given up on, and RLC sends the bytes again after its delay.
        let mut full = 0;
        assert_eq!(e.reserve_due_harq(500_000, 500_000, &dead, &mut full), 0);
        assert_eq!(e.stats.harq_failures, 3);
        let good = SlotChannel::flat(&table, 28, 40.0);
        let mut out = Vec::new();
        run(&mut e, &good, 500_000, 4_400_000, &mut out);
        assert!(out.is_empty(), "the RLC retransmission waits 4 ms");
        run(&mut e, &good, 4_500_000, 4_700_000, &mut out);
        assert_eq!(seqs(&out), vec![0, 100, 200]);
    }

    #[test]
    fn a_transmitter_reserved_ahead_sends_only_the_retransmissions_reserved() {
        let table = McsTable::ns3_mmwave();
        let dead = SlotChannel::flat(&table, 0, -30.0);
        let mut e = entity(1 << 20, 0);
        e.cfg.harq_reserved_ahead = true;
        failed_tbs(&mut e, 1, &dead);
        let good = SlotChannel::flat(&table, 0, 40.0);
        // Due, with symbols to spare, but not reserved: it stays.
        e.transmit(400_000, 22, &good);
        assert_eq!(e.stats.harq_retx, 0);
        let mut budget = 22;
        e.reserve_due_harq(400_000, 400_000, &good, &mut budget);
        // Reserved once: a second decision does not count it again.
        let mut again = 22;
        assert_eq!(e.reserve_due_harq(500_000, 500_000, &good, &mut again), 0);
        e.transmit(500_000, 22 - budget, &good);
        assert_eq!(e.stats.harq_retx, 1);
    }

    #[test]
    fn reestablishment_resends_harq_blocks_and_flush_drops_everything_undelivered() {
        let table = McsTable::ns3_mmwave();
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let good = SlotChannel::flat(&table, 28, 40.0);
        let mut e = entity(1 << 20, 0);
        e.enqueue(0, pkt(0, 1500)).unwrap();
        e.transmit(0, 22, &dead);
        e.reestablish(10_000_000);
        let mut out = Vec::new();
        run(&mut e, &good, 100_000, 10_000_000, &mut out);
        assert!(out.is_empty(), "nothing goes before the handover completes");
        run(&mut e, &good, 10_000_000, 10_200_000, &mut out);
        assert_eq!(seqs(&out), vec![0]);

        e.enqueue(0, pkt(1500, 1500)).unwrap();
        e.enqueue(0, pkt(3000, 1500)).unwrap();
        let mut dropped = Vec::new();
        e.flush(&mut dropped);
        assert_eq!(
            (dropped.len(), e.buffered_bytes(), e.is_busy()),
            (2, 0, false)
        );
        e.enqueue(0, pkt(4500, 1500)).unwrap();
        run(&mut e, &good, 20_000_000, 20_200_000, &mut out);
        assert_eq!(seqs(&out), vec![0, 4500]);
    }

    /// An entity whose new data goes with the module's headers, its buffer-status
    /// timer at `period`.
    fn with_headers(period: Time) -> RlcEntity {
        let mut e = entity(1 << 20, 0);
        e.cfg.headers = Some(PduSizing::Scheduler);
        e.cfg.buffer_status_period = period;
        e.copy = Some(QueueCopy::default());
        e.buffer_timer = BufferStatusTimer::new(period);
        e
    }

    /// A TCP segment of 1400 bytes with its IP and TCP headers.
    const IP_BYTES: u16 = 1452;

    /// An entity with the module's headers and its 4 ms timer, ten such segments queued
    /// at 0.
    fn burst_of_ten() -> RlcEntity {
        let mut e = with_headers(4_000_000);
        for i in 0..10 {
            e.enqueue(0, pkt(i * 1400, IP_BYTES)).unwrap();
        }
        e
    }

    #[test]
    fn with_headers_each_sdu_carries_its_pdcp_header_in_the_stream_and_the_limit() {
        let mut e = with_headers(4_000_000);
        e.cfg.buffer_bytes = 2 * 1454;
        e.enqueue(0, pkt(0, IP_BYTES)).unwrap();
        e.enqueue(0, pkt(1400, IP_BYTES)).unwrap();
        assert_eq!(e.new_bytes(), 2 * 1454);
        assert!(
            e.enqueue(0, pkt(2800, 1)).is_err(),
            "1 + 2 bytes do not fit"
        );
    }

    /// One TB carries a burst of 10 SDUs but 4 bytes, granted exactly the scheduler's
    /// request: its air bytes are the grant, its stream bytes what the PDU held.
    #[test]
    fn with_headers_a_tb_carries_the_grant_on_the_air_and_less_of_the_stream() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = burst_of_ten();
        let request = 10 * 1454 + 17;
        assert_eq!(e.transmit(0, 22, &ch), ch.symbols_for(request, 28));
        assert_eq!((e.stats.tbs, e.stats.tx_bytes), (1, request));
        // Header: 4 + 14 bytes of Length Indicators, MAC subheader 3.
        assert_eq!(e.new_bytes(), 4);
        assert_eq!(e.sent_end, request - 3 - 4 - 14);
    }

    /// Under the UE's MAC a grant goes whole: six ACKs of 52 bytes queued at once, a
    /// one-symbol TB at MCS 9 (327 bytes) carries five and 41 bytes of the sixth
    /// behind the MAC's subheader and byte and the PDU's header and Length
    /// Indicators, and empties the MAC's copy (327 less 2 of 6 x 54), so the sixth's
    /// last 13 bytes wait for the RLC's next report, here a new SDU, though the next
    /// grant has room; in the meantime a grant goes as padding, carrying nothing.
    #[test]
    fn the_ues_grant_goes_whole_and_a_tail_waits_for_the_next_report() {
        let table = McsTable::ns3_mmwave_mi_uplink();
        let ch = SlotChannel::flat(&table, 9, 40.0);
        assert_eq!(ch.bytes_in(1), 327);
        let mut e = with_headers(4_000_000);
        e.cfg.headers = Some(PduSizing::UeGrant);
        for i in 0..6 {
            e.enqueue(0, pkt(i * 52, 52)).unwrap();
        }
        assert_eq!(e.transmit(0, 1, &ch), 1);
        assert_eq!((e.stats.tbs, e.stats.tx_bytes), (1, 327));
        assert_eq!(e.new_bytes(), 13);
        // The MAC's copy is empty: the grant goes, carrying nothing.
        assert_eq!(e.transmit(100_000, 1, &ch), 1);
        assert_eq!(
            (e.stats.tbs, e.stats.padding_tbs, e.stats.data_tbs()),
            (2, 1, 1)
        );
        assert_eq!((e.stats.tx_bytes, e.new_bytes()), (2 * 327, 13));
        e.enqueue(150_000, pkt(6 * 52, 52)).unwrap();
        assert_eq!(e.transmit(200_000, 1, &ch), 1);
        assert_eq!((e.stats.data_tbs(), e.new_bytes()), (2, 0));
    }

    /// An empty grant's TB takes HARQ like any other: on a dead channel it goes four
    /// times, and when HARQ gives up on it RLC has nothing to repair.
    #[test]
    fn a_padding_tb_is_retransmitted_and_repairs_nothing() {
        let table = McsTable::ns3_mmwave_mi_uplink();
        let dead = SlotChannel::flat(&table, 9, -30.0);
        let mut e = with_headers(4_000_000);
        e.cfg.headers = Some(PduSizing::UeGrant);
        assert_eq!(e.transmit(0, 1, &dead), 1);
        assert_eq!((e.stats.tbs, e.stats.padding_tbs), (1, 1));
        for k in 1..4 {
            assert_eq!(e.retransmit_harq(k * 400_000, 1, &dead), 0, "attempt {k}");
        }
        assert_eq!((e.stats.harq_retx, e.stats.harq_failures), (3, 1));
        assert_eq!(e.stats.tx_bytes, 4 * 327);
        assert!(e.arq.is_empty() && !e.is_busy());
    }

    /// Runs the slots of (`from`, `until`) and returns the instants at which SDUs were
    /// handed up.
    fn handed_up_at(e: &mut RlcEntity, ch: &SlotChannel, from: Time, until: Time) -> Vec<Time> {
        let mut at = Vec::new();
        let mut t = from;
        let mut out = Vec::new();
        while t < until {
            e.deliver(t, &mut out);
            at.extend(std::iter::repeat_n(t, out.len()));
            out.clear();
            e.transmit(t, 22, ch);
            t += 100_000;
        }
        at
    }

    /// The tail of the burst's last SDU waits for the buffer-status timer, 4 ms after
    /// the burst arrived; the rest goes at once.
    #[test]
    fn the_tail_of_a_burst_waits_for_the_buffer_status_timer() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = burst_of_ten();
        let at = handed_up_at(&mut e, &ch, 0, 5_000_000);
        assert_eq!(at[..9], [100_000; 9]);
        assert_eq!(at[9..], [4_100_000], "sent at 4 ms, handed up a slot later");
        assert_eq!(e.stats.tbs, 2);
    }

    #[test]
    fn a_new_sdu_or_a_report_off_the_timer_lets_the_tail_go_sooner() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = burst_of_ten();
        handed_up_at(&mut e, &ch, 0, 1_000_000);
        e.enqueue(950_000, pkt(14_000, IP_BYTES)).unwrap();
        let at = handed_up_at(&mut e, &ch, 1_000_000, 1_300_000);
        assert_eq!(at, [1_100_000; 2], "the tail goes with the new SDU");

        let mut e = burst_of_ten();
        handed_up_at(&mut e, &ch, 0, 2_000_000);
        e.buffer_reported();
        assert_eq!(handed_up_at(&mut e, &ch, 2_000_000, 2_200_000), [2_100_000]);
    }

    /// With no buffer-status timer the scheduler's copy is the real queue at each
    /// decision: the tail the first block's headers left goes in the next slot.
    #[test]
    fn without_the_timer_the_tail_goes_at_once() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = with_headers(0);
        for i in 0..10 {
            e.enqueue(0, pkt(i * 1400, IP_BYTES)).unwrap();
        }
        let at = handed_up_at(&mut e, &ch, 0, 1_000_000);
        assert_eq!(at[..9], [100_000; 9]);
        assert_eq!(at[9..], [200_000]);
    }

    /// Under the peer's reports the entity holds what it sent until a report
    /// acknowledges it; with nothing new to send, its poll-retransmit timer sends the
    /// unacknowledged bytes again 4 ms after its last TB, and their landing asks the
    /// receiver for a report once more. A report stops all that.
    #[test]
    fn unacknowledged_bytes_go_again_on_the_poll_retransmit_timer() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let acknowledged = |report_at: Option<Time>| {
            let mut e = acknowledging();
            e.enqueue(0, pkt(0, 1000)).unwrap();
            let mut out = Vec::new();
            let mut requests = Vec::new();
            for k in 0..60 {
                let now = k * 100_000;
                e.transmit(now, 10, &ch);
                if e.deliver(now + 100_000, &mut out) > 0 {
                    requests.push(now + 100_000);
                }
                if report_at == Some(now) {
                    e.peer_report(e.status_content());
                }
            }
            (e, out.len(), requests)
        };
        let (e, delivered, requests) = acknowledged(None);
        assert_eq!(delivered, 1);
        assert!(e.is_busy(), "holds the unacknowledged PDU");
        assert_eq!(e.stats.arq_bytes, 1000, "sent again once");
        assert_eq!(
            requests,
            [100_000, 4_100_000],
            "each landing asks for a report"
        );
        let (e, _, requests) = acknowledged(Some(200_000));
        assert!(!e.is_busy());
        assert_eq!(e.stats.arq_bytes, 0);
        assert_eq!(requests, [100_000]);
    }

    /// A report beside data rides the data's TB: a failed TB holds it through HARQ
    /// (the entity stays busy for it), and it lands when the TB is decoded.
    #[test]
    fn a_report_rides_the_harq_of_its_tb() {
        let table = McsTable::ns3_mmwave();
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let good = SlotChannel::flat(&table, 28, 40.0);
        let mut e = entity(1 << 20, 0);
        e.enqueue(0, pkt(0, 1500)).unwrap();
        let used = dead.symbols_for(1500, 28);
        assert_eq!(e.transmit_with_report(0, 22, &dead, REPORT), (used, true));
        let mut out = Vec::new();
        e.deliver(100_000, &mut out);
        assert_eq!(
            e.landed_report(100_000),
            None,
            "lost with its TB's first attempt"
        );
        e.transmit(400_000, 22, &good);
        e.deliver(500_000, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(e.landed_report(500_000), Some(REPORT));
        assert!(!e.is_busy());
    }

    /// With no data to ride, a report takes a TB of one symbol of its own, if the
    /// slot has one left beside the HARQ retransmissions.
    #[test]
    fn a_report_without_data_takes_one_symbol_if_one_is_left() {
        let table = McsTable::ns3_mmwave();
        let good = SlotChannel::flat(&table, 28, 40.0);
        let mut e = entity(1 << 20, 0);
        assert_eq!(e.transmit_with_report(0, 22, &good, REPORT), (1, true));
        assert_eq!(e.stats.tbs, 1);
        assert_eq!(e.stats.tx_bytes, good.bytes_in(1));
        assert_eq!(e.landed_report(1), Some(REPORT));
        let dead = SlotChannel::flat(&table, 28, -30.0);
        e.enqueue(0, pkt(0, 1500)).unwrap();
        let retx = dead.symbols_for(1500, 28);
        e.transmit(100_000, retx, &dead);
        assert_eq!(e.demand_symbols(500_000, &dead, 1), retx + 1);
        assert_eq!(
            e.transmit_with_report(500_000, retx, &dead, REPORT),
            (retx, false)
        );
        assert_eq!(e.stats.harq_retx, 1);
    }

    /// A report's ACK_SN is VR(MS): the receiver's next in-order byte while its
    /// reordering timer waits for a hole, the first byte missing beyond the hole once
    /// the timer has given up waiting (the hole is then NACKed, below it).
    #[test]
    fn a_report_acknowledges_past_a_hole_once_the_reordering_timer_expires() {
        let table = McsTable::ns3_mmwave();
        let good = SlotChannel::flat(&table, 28, 40.0);
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let mut e = acknowledging();
        let size = good.bytes_in(1);
        for i in 0..3 {
            e.enqueue(0, pkt(i * size, size as u16)).unwrap();
        }
        let mut out = Vec::new();
        e.transmit(0, 1, &good);
        e.transmit(100_000, 1, &dead);
        e.transmit(200_000, 1, &good);
        e.deliver(300_000, &mut out);
        let waiting = e.status_content();
        assert_eq!(
            waiting,
            ReportContent {
                ack: size,
                next_in_order: size,
                highest: 3 * size,
            }
        );
        // The hole's HARQ attempts fail; the timer, started at 0.3 ms, expires 10 ms on.
        for k in 4..=104 {
            e.deliver(k * 100_000, &mut out);
            e.transmit(k * 100_000, 0, &dead);
        }
        let named = e.status_content();
        assert_eq!((named.ack, named.next_in_order), (3 * size, size));
    }

    /// A report overtaken by a newer one is misread as acknowledging everything sent
    /// (`acks.rs`): the bytes HARQ then gives up on are never sent again, and the
    /// sender holds them for good. Read in order, the same reports
    /// leave the poll-retransmit timer to repair them.
    #[test]
    fn a_misread_report_leaves_harqs_failures_unrepaired() {
        let table = McsTable::ns3_mmwave();
        let good = SlotChannel::flat(&table, 28, 40.0);
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let run = |overtaken: bool| {
            let mut e = acknowledging();
            let mut out = Vec::new();
            // SDUs of one symbol each.
            let size = good.bytes_in(1);
            for i in 0..3 {
                e.enqueue(0, pkt(i * size, size as u16)).unwrap();
            }
            let one = 1;
            e.transmit(0, one, &good);
            e.deliver(100_000, &mut out);
            let older = e.status_content();
            e.transmit(100_000, one, &good);
            e.deliver(200_000, &mut out);
            let newer = e.status_content();
            assert!(older.ack < newer.ack);
            e.transmit(200_000, one, &dead);
            e.peer_report(newer);
            if overtaken {
                e.peer_report(older);
            }
            let mut handed_up = Vec::new();
            let mut t = 300_000;
            while t < 30_000_000 {
                // Each TB that lands is answered by a report at once.
                if e.deliver(t, &mut handed_up) > 0 {
                    e.peer_report(e.status_content());
                }
                // HARQ's attempts fail; what comes after goes on a good channel.
                let ch = if t < 2_000_000 { &dead } else { &good };
                e.transmit(t, 22, ch);
                t += 100_000;
            }
            (e, handed_up.len())
        };
        let (e, delivered) = run(false);
        assert_eq!((delivered, e.stats.misread_reports), (1, 0));
        assert_eq!(
            e.stats.arq_bytes,
            good.bytes_in(1),
            "the failed SDU goes again"
        );
        let (e, delivered) = run(true);
        assert_eq!((delivered, e.stats.misread_reports), (0, 1));
        assert_eq!(e.stats.harq_failures, 1);
        assert_eq!(e.stats.arq_bytes, 0, "never repaired");
        assert!(e.is_busy(), "the lost SDU is never handed up");
    }

    /// An entity retransmitting PDUs (the module's placing rule with `misplaces`)
    /// whose PDU of two one-symbol SDUs HARQ gave up on at 1.2 ms: its retransmission
    /// may go from 5.2 ms.
    fn lost_pdu(misplaces: bool, size: u64, dead: &SlotChannel) -> RlcEntity {
        let mut e = entity(1 << 20, 0);
        e.cfg.retransmits_pdus = true;
        e.cfg.misplaces_segments = misplaces;
        e.pdus = Some(Pdus::default());
        e.partial = misplaces.then(Partial::default);
        for i in 0..2 {
            e.enqueue(0, pkt(i * size, size as u16)).unwrap();
        }
        run(&mut e, dead, 0, 1_300_000, &mut Vec::new());
        assert_eq!((e.stats.tbs, e.stats.harq_failures), (1, 1));
        e
    }

    #[test]
    fn a_retransmitted_pdu_fills_its_tb_alone_or_goes_in_segments() {
        let table = McsTable::ns3_mmwave();
        let good = SlotChannel::flat(&table, 28, 40.0);
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let size = good.bytes_in(1);
        let mut e = lost_pdu(false, size, &dead);
        e.enqueue(2_000_000, pkt(2 * size, size as u16)).unwrap();
        let mut out = Vec::new();
        // The slot has room for all three SDUs but carries the lost PDU alone.
        e.transmit(5_200_000, 22, &good);
        assert_eq!(
            (e.stats.tbs, e.stats.arq_bytes, e.stats.arq_segments),
            (2, 2 * size, 0)
        );
        assert_eq!(e.new_bytes(), size, "new data waits for the next TB");
        run(&mut e, &good, 5_300_000, 5_600_000, &mut out);
        assert_eq!(seqs(&out), vec![0, size, 2 * size]);
        // A TB of one symbol carries the PDU's first segment, the next the rest.
        let mut e = lost_pdu(false, size, &dead);
        e.transmit(5_200_000, 1, &good);
        e.transmit(5_300_000, 22, &good);
        assert_eq!((e.stats.arq_bytes, e.stats.arq_segments), (2 * size, 2));
        run(&mut e, &good, 5_400_000, 5_600_000, &mut out);
        assert_eq!(out.len(), 5);
        assert!(!e.is_busy());
    }

    /// The module's stall: the first segment of a retransmission fails its first
    /// attempt, the last lands first and is dropped, the first then lands on its
    /// HARQ retransmission and is held, and every whole retransmission after it is
    /// discarded. Placed freely, the same segments complete the PDU.
    #[test]
    fn reordered_segments_stall_the_receiver_only_under_the_modules_placing() {
        let table = McsTable::ns3_mmwave();
        let good = SlotChannel::flat(&table, 28, 40.0);
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let size = good.bytes_in(1);
        let run_with = |misplaces: bool| {
            let mut e = lost_pdu(misplaces, size, &dead);
            let mut out = Vec::new();
            e.transmit(5_200_000, 1, &dead);
            e.deliver(5_300_000, &mut out);
            e.transmit(5_300_000, 22, &good);
            run(&mut e, &good, 5_400_000, 30_000_000, &mut out);
            (e, out)
        };
        let (e, out) = run_with(false);
        assert_eq!(seqs(&out), vec![0, size]);
        assert_eq!(e.stats.refused_retransmissions, 0);
        let (e, out) = run_with(true);
        assert!(out.is_empty(), "nothing is handed up");
        // The last segment (5.3 ms), then the whole PDU every 4 ms from 9.3 ms.
        assert_eq!(e.stats.refused_retransmissions, 1 + 6);
        assert!(e.is_busy());
    }

    /// A HARQ retransmission resends the same TB: the grant's bytes in the same
    /// symbols; the stream's bytes arrive once.
    #[test]
    fn with_headers_harq_resends_the_same_tb() {
        let table = McsTable::ns3_mmwave();
        let dead = SlotChannel::flat(&table, 28, -30.0);
        let good = SlotChannel::flat(&table, 28, 40.0);
        let mut e = with_headers(4_000_000);
        e.enqueue(0, pkt(0, IP_BYTES)).unwrap();
        let granted = 1454 + 17;
        let symbols = e.transmit(0, 22, &dead);
        assert_eq!(symbols, dead.symbols_for(granted, 28));
        assert_eq!(e.transmit(400_000, 22, &good), symbols);
        assert_eq!(
            (e.stats.tbs, e.stats.harq_retx, e.stats.tx_bytes),
            (1, 1, 2 * granted)
        );
        let mut out = Vec::new();
        e.deliver(500_000, &mut out);
        assert_eq!(seqs(&out), [0]);
        assert!(!e.is_busy());
    }

    /// Without headers nothing of the above applies: the stream is the IP bytes and a
    /// TB carries exactly what it holds of it.
    #[test]
    fn without_headers_a_tb_carries_the_queue_exactly() {
        let table = McsTable::ns3_mmwave();
        let ch = SlotChannel::flat(&table, 28, 40.0);
        let mut e = entity(1 << 20, 0);
        for i in 0..10 {
            e.enqueue(0, pkt(i * 1400, IP_BYTES)).unwrap();
        }
        e.transmit(0, 22, &ch);
        assert_eq!((e.new_bytes(), e.stats.tx_bytes), (0, 14_520));
    }
}
