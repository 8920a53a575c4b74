//! The radio access network: gNBs, UEs, their channels, link adaptation, the slot
//! scheduler and handover. The world calls it at two kinds of instants:
//! channel updates (every `channel_update_s`: positions, blockage, path gain, SINR,
//! MCS, handover decisions) and slots (every slot while anything is queued: RLC
//! delivery, then the uplink's and downlink's transmissions). Packets enter through
//! `enqueue_*` and leave through the slot's output lists.
//!
//! A channel update finds the channel of the air time of the subframes decided after
//! it (`Profile::downlink_lead` ahead), so that every TB and the CQI report on it meet
//! the channel of their own subframe on the air (`air_states.rs`).

use super::air_states::AirStates;
use super::arq::{ArqTiming, ReorderingTimers};
use super::clearing::{Clearing, clearing_instant};
use super::config::{self, Forwarding, RadioConfig};
use super::cqi::{CqiExpiry, CqiState};
use super::geometry::{self, BearingIndex, LosTest, Obstacle, ObstacleClass, Point};
use super::grants::{FIRST_DATA_SYMBOL, GrantTiming, SlotPositions, UplinkGrants};
use super::mcs::McsTable;
use super::miesm::{EffectiveSinr, effective_sinr_db, flat};
use super::mobility::Trajectory;
use super::profile::{self, Profile};
use super::propagation::Channel;
use super::rlc::{PduSizing, RlcConfig, RlcEntity, SlotChannel};
use super::scheduler::{Demand, SchedulerKind, pf_average, pf_idle_decay, rotation_among, share};
use super::status::{LinkReports, STATUS_BYTES, StatusReport, StatusTurn};
use crate::engine::{RngStreams, Time, from_secs, to_secs};
use crate::net::Packet;
use crate::trace::{CellSummary, UeRow, UeSummary};

struct Gnb {
    position: Point,
    /// The gNB sent downlink data since the last channel update, so it interferes.
    transmitting: bool,
    was_transmitting: bool,
    /// Transport blocks sent, first transmissions and HARQ retransmissions, and bytes.
    tbs: u64,
    bytes: u64,
}

struct Ue {
    trajectory: Trajectory,
    position: Point,
    /// Per gNB: the channel and its gain (dB).
    channels: Vec<Channel>,
    gain_db: Vec<f64>,
    /// The gains filtered for handover decisions.
    filtered_gain_db: Vec<f64>,
    /// The filter's last step left every filtered gain as it was and no link has been
    /// measured since, so the next step would too (a standing UE's filter settles).
    filter_settled: bool,
    /// The last handover check, on the filtered gains as they are now, found no
    /// neighbour better than the serving cell by the hysteresis.
    no_candidate: bool,
    /// Per gNB, the obstacles on the path (empty: LoS) and the UE position they were
    /// found at: gNBs and obstacles stand still, so the LoS test at that position
    /// would find them again (a standing UE costs no LoS tests).
    blockers: Vec<(Option<Point>, Vec<ObstacleClass>)>,
    /// Per gNB, the power (mW) it puts into this UE's band when it interferes, kept
    /// until the channel changes.
    interferer_mw: Vec<Option<f64>>,
    /// The noise and interference (dB) of the downlink SINR, with the
    /// `Ran::transmitting_epoch` it was summed in: it holds until a neighbour link's
    /// gain changes, the serving cell changes or a gNB starts or stops interfering (a
    /// standing UE, or a moving one between its neighbours' measurements, would sum
    /// the same powers and take the same `log10` at every update).
    noise_interference_db: Option<(u64, f64)>,
    /// The channels have been measured once (a geometric profile skips later updates
    /// at an unchanged position).
    measured: bool,
    /// Where every link was last measured (a geometric profile measures only the
    /// serving one until the UE has moved `neighbour_remeasure_m` from here).
    all_links_at: Point,
    serving: usize,
    /// Downlink and uplink SINR now (wideband: the chunks' mean-linear SINR, what the
    /// module reports), their effective SINR per modulation (what TBs meet), and the
    /// effective SINRs as last reported (CQI; only where the scheduler holds no
    /// reports of its own); `None` before the first report.
    sinr_db: f64,
    ul_sinr_db: f64,
    eff_sinr_db: EffectiveSinr,
    reported_eff_db: Option<EffectiveSinr>,
    reported_ul_eff_db: Option<EffectiveSinr>,
    /// Link adaptation's downlink MCS: where the scheduler holds CQI reports, the one
    /// the SINR now supports (what a report on a TB now asks for); elsewhere the one
    /// of the previous update's.
    mcs: u8,
    /// The uplink's effective SINR and MCS (chosen as the downlink's), by the air time
    /// they hold from: an uplink TB is filled after newer states may have been found.
    uplink: AirStates<UplinkState>,
    /// Link adaptation's last answer each way: a UE whose channel holds still, or
    /// moves a little, asks a question with the same answer at every update.
    mcs_memo: Option<McsMemo>,
    ul_mcs_memo: Option<McsMemo>,
    dl: RlcEntity,
    ul: RlcEntity,
    /// Symbols the slot's decision reserved for uplink HARQ retransmissions, for the
    /// grant it makes next (`Ran::reserve_harq`, `grant_uplink`).
    ul_harq_reserved: u32,
    /// The neighbour that has been better than the serving cell, and since when.
    candidate: Option<(usize, Time)>,
    /// No transmission before this instant (handover in progress).
    interrupted_until: Time,
    handovers: u32,
    nlos_since: Option<Time>,
    nlos_intervals: Vec<(Time, Time)>,
    sinr_sum_db: f64,
    sinr_samples: u64,
    /// The downlink TBs sent since the last UE trace row, and their SINR.
    interval_blocks: BlockSinr,
    /// The proportional-fair average, current up to (not including) slot `pf_slot`: the
    /// decay of the slots since, in which the UE was idle, is applied when it is next
    /// scheduled (`catch_up_pf`).
    pf_average_bits: f64,
    pf_slot: u64,
    /// In `Ran::active`: an entity may hold SDUs.
    active: bool,
    /// In `Ran::unreported`: the uplink took SDUs whose buffer status report waits
    /// for `Ran::report_uplinks`.
    ul_unreported: bool,
    /// In `Ran::interrupted`: a handover interruption holds its proportional-fair
    /// average still.
    pf_frozen: bool,
    /// The downlink CQI reports the scheduler holds (the UE reports on each downlink
    /// TB); without one, TBs go at MCS 0.
    dl_cqi: CqiState,
    /// The same for the uplink: the gNB measures the SINR of each uplink TB.
    ul_cqi: CqiState,
    /// The RLC status reports each end owes the other.
    reports: LinkReports,
    /// What the serving cell's scheduler knows of the uplink buffer, under a profile
    /// whose grants follow buffer status reports.
    grants: UplinkGrants,
    /// Where the UE's slots lay in recent subframes, under the same profile.
    slots: SlotPositions,
}

impl Ue {
    /// Obstacles block the path to gNB `g` (as of its last measurement).
    fn is_blocked(&self, g: usize) -> bool {
        !self.blockers[g].1.is_empty()
    }

    /// The UE takes part in slots: an entity holds SDUs, the scheduler has uplink
    /// grants to make from reports, or a status report waits for an opportunity.
    fn needs_slots(&self) -> bool {
        self.dl.is_busy()
            || self.ul.is_busy()
            || !self.grants.is_idle()
            || self.reports.await_opportunities()
    }
}

/// What an uplink TB on the air meets: its effective SINR per modulation, and link
/// adaptation's MCS for it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct UplinkState {
    eff_sinr_db: EffectiveSinr,
    mcs: u8,
}

/// A count of transport blocks and the mean of the SINR each met: the SINR as a
/// receiver's per-block trace sees it, weighted by traffic (a flow that stalls sends
/// no blocks; one in a blocked stretch sends many small ones).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct BlockSinr {
    blocks: u64,
    sinr_sum_db: f64,
}

impl BlockSinr {
    fn add(&mut self, blocks: u64, sinr_db: f64) {
        self.blocks += blocks;
        self.sinr_sum_db += blocks as f64 * sinr_db;
    }

    /// The blocks and their mean SINR (NaN without blocks) so far; starts again.
    fn take(&mut self) -> (u64, f64) {
        let BlockSinr {
            blocks,
            sinr_sum_db,
        } = std::mem::take(self);
        let mean = if blocks == 0 {
            f64::NAN
        } else {
            sinr_sum_db / blocks as f64
        };
        (blocks, mean)
    }
}

/// What happened at a channel update that the world logs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RadioEvent {
    Handover { ue: u32, from: u32, to: u32 },
    NlosStart { ue: u32, cell: u32 },
    NlosEnd { ue: u32, cell: u32 },
}

pub struct Ran {
    table: McsTable,
    /// The uplink's (the module's uplink uses MCS the downlink's CQI cannot ask for).
    ul_table: McsTable,
    /// When a downlink CQI expires (the profile's scheduler), if it does.
    cqi_expiry: Option<CqiExpiry>,
    /// The status-prohibit timer when reports can take a data opportunity.
    status_prohibit: Option<Time>,
    /// The report-to-grant pipeline when uplink grants follow buffer status reports.
    uplink_grants: Option<GrantTiming>,
    /// From the end of a TB on the air to its data reaching the receiver's RLC.
    decode_latency: Time,
    /// A symbol's length when TBs land at their own last symbol
    /// (`Profile::symbol_period`): the world then hands up within slots.
    symbol: Option<Time>,
    slot: Time,
    data_symbols: u32,
    update_every: Time,
    /// How far ahead of a channel update the channel is evaluated: the scheduler's
    /// lead (`Profile::downlink_lead`), so that the subframes decided from the update
    /// on meet the channel of their air time.
    channel_lead: Time,
    /// The profile's channels depend on geometry alone (`Profile::channel_is_geometric`).
    geometric_channels: bool,
    /// With geometric channels, the distance (m) after which a UE's neighbour links are
    /// measured again.
    neighbour_remeasure_m: f64,
    los_test: LosTest,
    target_bler: f64,
    dl_power_dbm: f64,
    ul_power_dbm: f64,
    noise_dbm: f64,
    noise_mw: f64,
    interferer_beam_loss_db: f64,
    /// Counts the channel updates at which the set of interfering gNBs changed.
    transmitting_epoch: u64,
    hysteresis_db: f64,
    /// Weight of a new measurement in the handover filter.
    filter_weight: f64,
    time_to_trigger: Time,
    interruption: Time,
    forwarding: Forwarding,
    scheduler: SchedulerKind,
    obstacles: Vec<Obstacle>,
    /// Per gNB, the obstacles by bearing: the LoS tests of a channel update.
    los_index: Vec<BearingIndex>,
    /// Serving paths found at the last update to clear while the TBs of the slots
    /// before the next are on the air, not yet passed.
    clearings: Vec<Clearing>,
    /// From a slot's decision to its first downlink TB's first symbol on the air.
    downlink_air_offset: Time,
    gnbs: Vec<Gnb>,
    ues: Vec<Ue>,
    /// Per gNB, the UEs it serves, in UE order.
    members: Vec<Vec<usize>>,
    /// The UEs whose RLC entities may hold SDUs (a superset of the busy ones), in UE
    /// order once `active_sorted`: the only UEs a slot works on.
    active: Vec<usize>,
    active_sorted: bool,
    /// The UEs whose uplink took SDUs since the last `report_uplinks`, under a
    /// profile whose grants follow buffer status reports.
    unreported: Vec<usize>,
    /// UEs handed over whose interruption had not ended at the last slot.
    interrupted: Vec<usize>,
    slot_number: u64,
    /// A slot event is in the queue.
    pub slot_pending: bool,
    /// SDUs lost at handovers without forwarding.
    pub handover_drops: u64,
    /// Per gNB, its busy members in this slot.
    scratch_busy: Vec<Vec<usize>>,
    scratch_demands: Vec<Demand>,
    scratch_shares: Vec<u32>,
    scratch_order: Vec<usize>,
    /// Per busy UE of a cell's slot, the uplink and downlink symbols it decided.
    scratch_uplink: Vec<u32>,
    scratch_downlink: Vec<u32>,
    /// What one UE's downlink hands up, slot by slot, when recorded.
    deliveries: Option<Deliveries>,
}

/// The bytes handed up to one UE's downlink in each slot (index: the slot's number
/// since time 0): the radio's delivery opportunities when the UE is saturated, which
/// `wavecc trace export` writes as a link trace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Deliveries {
    pub ue: usize,
    pub slot_bytes: Vec<u64>,
}

impl Deliveries {
    /// Adds `bytes` to `slot`.
    fn add(&mut self, slot: u64, bytes: u64) {
        let slot = slot as usize;
        if self.slot_bytes.len() <= slot {
            self.slot_bytes.resize(slot + 1, 0);
        }
        self.slot_bytes[slot] += bytes;
    }
}

impl Ran {
    pub fn new(cfg: &RadioConfig, rng: &RngStreams) -> Self {
        let profile = profile::of(cfg);
        let numerology = profile.numerology();
        let update_s = config::channel_update_s(cfg);
        let (dl_arq, ul_arq) = arq_timings(cfg, profile);
        // Status reports acknowledge what was sent where they are modelled and the
        // poll-retransmit timer resends what they have not; the buffer-status timer
        // refreshes the downlink copy and, with reports, announces them at both ends.
        let reporting = profile.status_prohibit().is_some();
        let acknowledged = reporting && matches!(dl_arq, ArqTiming::Reordering(_));
        let buffer_timer = profile.buffer_status_timer().unwrap_or(0);
        let ul_buffer_timer = if reporting { buffer_timer } else { 0 };
        let entity = |(harq_rtt, harq_reserved_ahead),
                      grant_delay,
                      air_delay,
                      arq,
                      headers,
                      buffer_status_period,
                      name: String| {
            let c = RlcConfig {
                buffer_bytes: cfg.rlc_buffer_bytes,
                harq_max_retx: cfg.harq_max_retx,
                harq_rtt,
                harq_reserved_ahead,
                harq_processes: cfg.harq_processes as usize,
                arq,
                grant_delay,
                air_delay,
                lands_within_slot: profile.symbol_period().is_some(),
                headers,
                buffer_status_period,
                acknowledged,
                misreads_overtaken: profile.misreads_overtaken_reports(),
                retransmits_pdus: profile.retransmits_pdus(),
                misplaces_segments: profile.misplaces_segments(),
            };
            RlcEntity::new(c, rng.stream(&name))
        };
        // Under grants from reports the UE fills a TB a subframe before its air, with
        // what it holds then; otherwise each SDU waits for its grant.
        let (ul_grant_delay, ul_air_delay) = match profile.uplink_grants() {
            Some(timing) => (0, timing.fill_lead() + profile.decode_latency()),
            None => (
                from_secs(cfg.uplink_grant_delay_s),
                profile.decode_latency(),
            ),
        };
        // HARQ round trip and reservation, (downlink, uplink). Under the module's
        // pipeline the gNB decodes an uplink TB itself, so its HARQ feedback reaches the
        // scheduler a subframe sooner than a downlink TB's, which the UE first reports
        // in its uplink control symbol: an uplink retransmission follows its TB by 3
        // subframes, a downlink one by 4. The scheduler reserves the uplink one's
        // symbols in a decision ahead, and the UE sends it when it fills that grant.
        let dl_harq = (from_secs(cfg.harq_rtt_s), false);
        let ul_harq = match profile.uplink_grants() {
            Some(timing) => (dl_harq.0.saturating_sub(timing.subframe), true),
            None => dl_harq,
        };
        let gnbs: Vec<Gnb> = cfg
            .gnbs
            .iter()
            .map(|g| Gnb {
                position: config::point(g.position),
                transmitting: false,
                was_transmitting: false,
                tbs: 0,
                bytes: 0,
            })
            .collect();
        let ues = cfg
            .ues
            .iter()
            .enumerate()
            .map(|(u, c)| {
                let trajectory = config::trajectory(c).expect("validated");
                Ue {
                    position: trajectory.position(0.0),
                    trajectory,
                    channels: (0..gnbs.len())
                        .map(|g| {
                            Channel::new(
                                profile,
                                rng.stream(&format!("radio/channel/gnb{g}/ue{u}")),
                            )
                        })
                        .collect(),
                    gain_db: vec![f64::NEG_INFINITY; gnbs.len()],
                    filtered_gain_db: Vec::new(),
                    filter_settled: false,
                    no_candidate: false,
                    blockers: vec![(None, Vec::new()); gnbs.len()],
                    interferer_mw: vec![None; gnbs.len()],
                    noise_interference_db: None,
                    measured: false,
                    all_links_at: Point::default(),
                    serving: 0,
                    sinr_db: f64::NEG_INFINITY,
                    ul_sinr_db: f64::NEG_INFINITY,
                    eff_sinr_db: flat(f64::NEG_INFINITY),
                    reported_eff_db: None,
                    reported_ul_eff_db: None,
                    mcs: 0,
                    uplink: AirStates::new(UplinkState {
                        eff_sinr_db: flat(f64::NEG_INFINITY),
                        mcs: 0,
                    }),
                    mcs_memo: None,
                    ul_mcs_memo: None,
                    dl: entity(
                        dl_harq,
                        0,
                        profile.downlink_lead() + profile.decode_latency(),
                        dl_arq,
                        profile.downlink_headers().then_some(PduSizing::Scheduler),
                        buffer_timer,
                        format!("radio/harq/ue{u}/dl"),
                    ),
                    ul: entity(
                        ul_harq,
                        ul_grant_delay,
                        ul_air_delay,
                        ul_arq,
                        profile.uplink_headers().then_some(PduSizing::UeGrant),
                        ul_buffer_timer,
                        format!("radio/harq/ue{u}/ul"),
                    ),
                    ul_harq_reserved: 0,
                    candidate: None,
                    interrupted_until: 0,
                    handovers: 0,
                    nlos_since: None,
                    nlos_intervals: Vec::new(),
                    sinr_sum_db: 0.0,
                    sinr_samples: 0,
                    interval_blocks: BlockSinr::default(),
                    pf_average_bits: 0.0,
                    pf_slot: 0,
                    active: false,
                    ul_unreported: false,
                    pf_frozen: false,
                    dl_cqi: CqiState::default(),
                    ul_cqi: CqiState::default(),
                    reports: LinkReports::default(),
                    grants: UplinkGrants::default(),
                    slots: SlotPositions::default(),
                }
            })
            .collect();
        let obstacles: Vec<Obstacle> = cfg.obstacles.iter().map(config::obstacle).collect();
        let los_index = gnbs
            .iter()
            .map(|g| BearingIndex::new(g.position, &obstacles))
            .collect();
        let mut ran = Ran {
            table: profile.mcs_table(),
            ul_table: profile.uplink_mcs_table(),
            cqi_expiry: profile.cqi_expiry(),
            status_prohibit: profile.status_prohibit(),
            uplink_grants: profile.uplink_grants(),
            decode_latency: profile.decode_latency(),
            symbol: profile.symbol_period(),
            slot: numerology.slot,
            data_symbols: numerology.data_symbols,
            update_every: from_secs(update_s),
            channel_lead: profile.downlink_lead(),
            geometric_channels: profile.channel_is_geometric(),
            neighbour_remeasure_m: cfg.neighbour_remeasure_m,
            los_test: config::los_test(cfg),
            target_bler: cfg.target_bler,
            dl_power_dbm: profile.tx_power_dbm(true),
            ul_power_dbm: profile.tx_power_dbm(false),
            noise_dbm: profile.noise_dbm(),
            noise_mw: db_to_linear(profile.noise_dbm()),
            interferer_beam_loss_db: cfg.interferer_beam_loss_db,
            transmitting_epoch: 0,
            hysteresis_db: cfg.handover.hysteresis_db,
            filter_weight: filter_weight(update_s, cfg.handover.filter_s),
            time_to_trigger: from_secs(cfg.handover.time_to_trigger_s),
            interruption: from_secs(cfg.handover.interruption_s),
            forwarding: cfg.handover.forwarding,
            scheduler: cfg.scheduler,
            obstacles,
            los_index,
            clearings: Vec::new(),
            downlink_air_offset: profile.downlink_lead()
                + u64::from(FIRST_DATA_SYMBOL) * profile.symbol_period().unwrap_or(0),
            members: vec![Vec::new(); gnbs.len()],
            scratch_busy: vec![Vec::new(); gnbs.len()],
            gnbs,
            ues,
            active: Vec::new(),
            active_sorted: true,
            unreported: Vec::new(),
            interrupted: Vec::new(),
            slot_number: 0,
            slot_pending: false,
            handover_drops: 0,
            scratch_demands: Vec::new(),
            scratch_shares: Vec::new(),
            scratch_order: Vec::new(),
            scratch_uplink: Vec::new(),
            scratch_downlink: Vec::new(),
            deliveries: None,
        };
        for u in 0..ran.ues.len() {
            ran.measure(u, 0);
            let ue = &mut ran.ues[u];
            ue.filtered_gain_db = ue.gain_db.clone();
            ue.serving = best_cell(&ue.gain_db);
            ran.members[ue.serving].push(u);
        }
        ran
    }

    /// Starts recording what UE `ue`'s downlink hands up in each slot (see [`Deliveries`]).
    pub fn record_deliveries(&mut self, ue: u32) {
        self.deliveries = Some(Deliveries {
            ue: ue as usize,
            slot_bytes: Vec::new(),
        });
    }

    /// The recorded deliveries, if recording was started.
    pub fn take_deliveries(&mut self) -> Option<Deliveries> {
        self.deliveries.take()
    }

    /// The most a UE's downlink could carry: every data symbol of every slot at the
    /// highest MCS, bits per second.
    pub fn peak_rate_bps(&self) -> f64 {
        let bits = self.data_symbols * self.table.bits_per_symbol(self.table.highest_mcs());
        f64::from(bits) / to_secs(self.slot)
    }

    /// When the channel update after the one at `now` is due: the first that finds
    /// the channel of a later instant on the update grid.
    pub fn next_update(&self, now: Time) -> Time {
        let at = now + self.channel_lead;
        (at / self.update_every + 1) * self.update_every - self.channel_lead
    }

    pub fn ue_count(&self) -> usize {
        self.ues.len()
    }

    pub fn cell_count(&self) -> usize {
        self.gnbs.len()
    }

    /// The first slot boundary at or after `now`.
    pub fn next_slot(&self, now: Time) -> Time {
        now.div_ceil(self.slot) * self.slot
    }

    pub fn slot(&self) -> Time {
        self.slot
    }

    /// The downlink SINR a cross-layer algorithm sees for `ue`, dB.
    pub fn sinr_db(&self, ue: u32) -> f64 {
        self.ues[ue as usize].sinr_db
    }

    /// The least room for SDUs of the UEs' downlink buffers (an idle UE's
    /// holds nothing), and what each SDU adds beyond its packet.
    pub fn downlink_room(&self) -> (u64, u64) {
        let dl = &self.ues.first().expect("a radio has UEs").dl;
        let room = self.active.iter().map(|&u| self.ues[u].dl.room());
        (room.fold(dl.buffer_bytes(), u64::min), dl.sdu_overhead())
    }

    /// Inlined into the radio feed's loop ([`crate::world`]'s `feed_radio`), which
    /// takes every downlink SDU: out of line, each paid the call.
    #[inline(always)]
    pub fn enqueue_downlink(&mut self, now: Time, ue: u32, pkt: Packet) -> Result<(), Packet> {
        let u = &mut self.ues[ue as usize];
        u.dl.enqueue(now, pkt)?;
        if self.status_prohibit.is_some() {
            u.reports.gnb.buffer_reported(now);
        }
        self.activate(ue as usize);
        Ok(())
    }

    /// Queues an SDU into UE `ue`'s uplink. The buffer status report it makes waits
    /// for [`Ran::report_uplinks`], which the caller makes at `now`, before the radio
    /// does anything else.
    pub fn enqueue_uplink(&mut self, now: Time, ue: u32, pkt: Packet) -> Result<(), Packet> {
        let u = &mut self.ues[ue as usize];
        u.ul.enqueue(now, pkt)?;
        if self.uplink_grants.is_some() && !u.ul_unreported {
            u.ul_unreported = true;
            self.unreported.push(ue as usize);
        }
        self.activate(ue as usize);
        Ok(())
    }

    /// The buffer status reports of the uplink SDUs queued at `now` since the last
    /// call, one per UE: the reports a UE makes at one instant replace one another
    /// (`UplinkGrants::report`) and announce its owed status report alike
    /// (`StatusReport::buffer_reported`), so the last one, which names the buffer
    /// as it is now, stands for all. The ACKs a hand-up's segments ask for come in
    /// bursts (about four at once in `urban`); reported one by one, they cost about
    /// 30 instructions per delivered segment.
    pub fn report_uplinks(&mut self, now: Time) {
        let Some(timing) = self.uplink_grants else {
            return;
        };
        for &ue in &self.unreported {
            let u = &mut self.ues[ue];
            u.ul_unreported = false;
            let status = match self.status_prohibit {
                Some(_) => u.reports.ue.buffer_reported(now),
                None => 0,
            };
            u.grants
                .report(now, u.ul.reportable_bytes() + status, timing);
        }
        self.unreported.clear();
    }

    /// Puts UE `u`, which now holds an SDU, on the list the slots work on.
    fn activate(&mut self, u: usize) {
        let ue = &mut self.ues[u];
        if !ue.active {
            ue.active = true;
            self.active_sorted &= self.active.last().is_none_or(|&last| last < u);
            self.active.push(u);
        }
    }

    /// Packets inside the radio (for the conservation check).
    pub fn in_transit(&self) -> u64 {
        self.ues
            .iter()
            .map(|u| (u.dl.sdus_held() + u.ul.sdus_held()) as u64)
            .sum()
    }

    /// Packets the radio dropped: buffer overflows and handovers without forwarding.
    pub fn dropped(&self) -> u64 {
        self.handover_drops
            + self
                .ues
                .iter()
                .map(|u| u.dl.stats.sdus_dropped + u.ul.stats.sdus_dropped)
                .sum::<u64>()
    }

    /// Path gains of `ue` towards every gNB at `now`, with its position and blockage,
    /// and the handover filter's step. With a geometric profile, a UE that has not
    /// moved keeps its gains as they are (an update would give the same), and one that
    /// is less than `neighbour_remeasure_m` from where its links were all measured has
    /// only its serving link measured (docs/model.md, "Channel updates").
    fn measure(&mut self, u: usize, now: Time) {
        let t = to_secs(now);
        let ue = &mut self.ues[u];
        let position = ue.trajectory.position(t);
        let moved = std::mem::replace(&mut ue.position, position) != position;
        let all_links = !self.geometric_channels
            || !ue.measured
            || moved && position.distance(ue.all_links_at) >= self.neighbour_remeasure_m;
        ue.measured = true;
        if all_links {
            ue.all_links_at = position;
            for g in 0..self.gnbs.len() {
                self.measure_link(u, g, t);
            }
        } else if moved {
            let serving = ue.serving;
            self.measure_link(u, serving, t);
        }
        let ue = &mut self.ues[u];
        let w = self.filter_weight;
        if all_links || moved {
            ue.filter_settled = false;
            for (f, &gain) in ue.filtered_gain_db.iter_mut().zip(&ue.gain_db) {
                *f += w * (gain - *f);
            }
        } else if !ue.filter_settled {
            let mut settled = true;
            for (f, &gain) in ue.filtered_gain_db.iter_mut().zip(&ue.gain_db) {
                let next = *f + w * (gain - *f);
                settled &= next.to_bits() == f.to_bits();
                *f = next;
            }
            ue.filter_settled = settled;
        }
    }

    /// The path gain and blockage of UE `u` towards gNB `g` at `t_s`.
    fn measure_link(&mut self, u: usize, g: usize, t_s: f64) {
        let ue = &mut self.ues[u];
        let (at, blockers) = &mut ue.blockers[g];
        if !at.is_some_and(|at| at.same_bits(ue.position)) {
            blockers.clear();
            self.los_index[g].blockers(self.los_test, ue.position, &self.obstacles, blockers);
            *at = Some(ue.position);
        }
        let gain = ue.channels[g].update(t_s, self.gnbs[g].position, ue.position, blockers);
        // An unchanged gain keeps its interference terms: a standing UE's, between the
        // draws and ramps that move them, and those of a RAN without neighbours.
        if gain.to_bits() != ue.gain_db[g].to_bits() {
            ue.gain_db[g] = gain;
            ue.interferer_mw[g] = None;
            if g != ue.serving {
                ue.noise_interference_db = None;
            }
        }
    }

    /// The channel update at `now`: measurements, SINR, link adaptation, handover
    /// and NLoS bookkeeping, for the channel `channel_lead` later, which the subframes
    /// decided from now on meet on the air. Returns that instant, at which the events
    /// happen. Packets lost at a handover go to `dropped`.
    pub fn update_channels(
        &mut self,
        now: Time,
        events: &mut Vec<RadioEvent>,
        dropped: &mut Vec<Packet>,
    ) -> Time {
        let at = now + self.channel_lead;
        // The SINRs a clearing raised are measured again here.
        self.clearings.clear();
        let mut changed = false;
        for g in &mut self.gnbs {
            let transmitting = std::mem::take(&mut g.transmitting);
            changed |= transmitting != g.was_transmitting;
            g.was_transmitting = transmitting;
        }
        self.transmitting_epoch += u64::from(changed);
        let epoch = self.transmitting_epoch;
        for u in 0..self.ues.len() {
            self.measure(u, at);
            self.consider_handover(u, now, at, events, dropped);
            let noise_mw = self.noise_mw;
            let ue = &mut self.ues[u];
            let s = ue.serving;
            let (power_dbm, beam_loss_db) = (self.dl_power_dbm, self.interferer_beam_loss_db);
            let noise_interference_db = match ue.noise_interference_db {
                Some((at, db)) if at == epoch => db,
                _ => {
                    // The gNBs, their powers and gains walked together: indexed, each
                    // gNB's term paid its bounds checks.
                    let interference_mw: f64 = (self.gnbs.iter().zip(&mut ue.interferer_mw))
                        .zip(&ue.gain_db)
                        .enumerate()
                        .filter(|&(g, ((gnb, _), _))| g != s && gnb.was_transmitting)
                        .map(|(_, ((_, mw), &gain))| {
                            *mw.get_or_insert_with(|| db_to_linear(power_dbm + gain - beam_loss_db))
                        })
                        .sum();
                    let db = linear_to_db(noise_mw + interference_mw);
                    ue.noise_interference_db = Some((epoch, db));
                    db
                }
            };
            ue.sinr_db = self.dl_power_dbm + ue.gain_db[s] - noise_interference_db;
            let ul_gain_db = ue.gain_db[s] + ue.channels[s].uplink_offset_db();
            ue.ul_sinr_db = self.ul_power_dbm + ul_gain_db - self.noise_dbm;
            let tables = (&self.table, &self.ul_table);
            adapt_link(ue, tables, self.cqi_expiry.is_some(), self.target_bler, at);
            ue.sinr_sum_db += ue.sinr_db;
            ue.sinr_samples += 1;
            let blocked = ue.is_blocked(s);
            match (blocked, ue.nlos_since) {
                (true, None) => {
                    ue.nlos_since = Some(at);
                    events.push(RadioEvent::NlosStart {
                        ue: u as u32,
                        cell: s as u32,
                    });
                }
                (false, Some(since)) => {
                    ue.nlos_intervals.push((since, at));
                    ue.nlos_since = None;
                    events.push(RadioEvent::NlosEnd {
                        ue: u as u32,
                        cell: s as u32,
                    });
                }
                _ => {}
            }
            if let Some(gain_db) = ue.channels[s].gain_if_cleared_db() {
                self.look_for_clearing(u, now, at, gain_db);
            }
        }
        at
    }

    /// Where UE `u`'s serving path, blocked in the channel found at `now` for `at`,
    /// clears before the next update's instant, the slots from `now` whose TBs go on
    /// the air between the clearing and that instant meet `cleared_gain_db`
    /// ([`Channel::gain_if_cleared_db`]). A slot's first downlink TB goes on the air
    /// `downlink_air_offset` after its decision; the uplink's, later in the same
    /// subframe, are taken along.
    fn look_for_clearing(&mut self, u: usize, now: Time, at: Time, cleared_gain_db: f64) {
        let ue = &self.ues[u];
        let gnb = self.gnbs[ue.serving].position;
        let blocked_at = |t: Time| {
            let position = ue.trajectory.position(to_secs(t));
            geometry::is_blocked(self.los_test, gnb, position, &self.obstacles)
        };
        let next = at + self.update_every;
        if !blocked_at(at) || blocked_at(next) {
            return;
        }
        let offset = self.downlink_air_offset;
        let from = clearing_instant(at, next, blocked_at).max(now + offset);
        if from < next {
            self.clearings.push(Clearing {
                ue: u,
                from: from - offset,
                until: next - offset,
                rise_db: cleared_gain_db - ue.gain_db[ue.serving],
                raised_from: None,
            });
        }
    }

    /// The clearings' slots: a UE's SINRs rise in the first slot of its clearing, and
    /// link adaptation follows, until the first slot after it (for the subframes on
    /// the air from `channel_lead` after).
    fn reach_clearings(&mut self, now: Time) {
        let (ues, tables) = (&mut self.ues, (&self.table, &self.ul_table));
        let (held_reports, target_bler) = (self.cqi_expiry.is_some(), self.target_bler);
        let air = now + self.channel_lead;
        self.clearings.retain_mut(|c| {
            let inside = c.from <= now && now < c.until;
            let ue = &mut ues[c.ue];
            match (inside, c.raised_from) {
                (true, None) => {
                    c.raised_from = Some((ue.sinr_db, ue.ul_sinr_db));
                    ue.sinr_db += c.rise_db;
                    ue.ul_sinr_db += c.rise_db;
                }
                (false, Some((sinr_db, ul_sinr_db))) => {
                    (ue.sinr_db, ue.ul_sinr_db) = (sinr_db, ul_sinr_db);
                }
                _ => return inside || now < c.from,
            }
            adapt_link(ue, tables, held_reports, target_bler, air);
            inside
        });
    }

    /// Hands `u` over to a neighbour that has been better than its serving cell by
    /// the hysteresis for the time-to-trigger, in the channel found at `now` for `at`:
    /// the subframes decided from `now` go to the new cell after the interruption.
    fn consider_handover(
        &mut self,
        u: usize,
        now: Time,
        at: Time,
        events: &mut Vec<RadioEvent>,
        dropped: &mut Vec<Packet>,
    ) {
        let ue = &mut self.ues[u];
        if self.gnbs.len() < 2 || now < ue.interrupted_until {
            return;
        }
        if ue.no_candidate && ue.filter_settled {
            // The same gains as at the last check, which found none.
            return;
        }
        let gain = &ue.filtered_gain_db;
        let best = best_cell(gain);
        ue.no_candidate = best == ue.serving || gain[best] <= gain[ue.serving] + self.hysteresis_db;
        if ue.no_candidate {
            ue.candidate = None;
            return;
        }
        let since = match ue.candidate {
            Some((c, since)) if c == best => since,
            _ => {
                ue.candidate = Some((best, at));
                at
            }
        };
        if at - since < self.time_to_trigger {
            return;
        }
        events.push(RadioEvent::Handover {
            ue: u as u32,
            from: ue.serving as u32,
            to: best as u32,
        });
        if let Some(since) = ue.nlos_since.take() {
            // NLoS is judged towards the serving cell: a new cell starts afresh.
            ue.nlos_intervals.push((since, at));
            events.push(RadioEvent::NlosEnd {
                ue: u as u32,
                cell: ue.serving as u32,
            });
        }
        if !ue.pf_frozen {
            // A member of its cell in every slot since: owed their decay.
            catch_up_pf(ue, self.slot_number);
            ue.pf_frozen = true;
            self.interrupted.push(u);
        }
        move_member(&mut self.members, u, ue.serving, best);
        ue.serving = best;
        ue.noise_interference_db = None;
        ue.candidate = None;
        ue.handovers += 1;
        ue.interrupted_until = now + self.interruption;
        ue.reported_eff_db = None;
        ue.reported_ul_eff_db = None;
        // The new cell's scheduler has heard no buffer status report.
        ue.grants = UplinkGrants::default();
        ue.slots = SlotPositions::default();
        match self.forwarding {
            Forwarding::Lossless => {
                ue.dl.reestablish(ue.interrupted_until);
                ue.ul.reestablish(ue.interrupted_until);
                // The re-established RLC reports its buffer to the new cell.
                let bytes = ue.ul.reportable_bytes();
                if let (Some(timing), true) = (self.uplink_grants, bytes > 0) {
                    ue.grants.report(ue.interrupted_until, bytes, timing);
                }
            }
            Forwarding::Drop => {
                let before = dropped.len();
                ue.dl.flush(dropped);
                ue.ul.flush(dropped);
                self.handover_drops += (dropped.len() - before) as u64;
            }
        }
    }

    /// The slot starting at `now`, as [`Ran::hand_up_slot`] then [`Ran::schedule_slot`]
    /// with nothing reaching the radio between them. Returns whether another slot is
    /// needed.
    #[cfg(test)]
    pub fn run_slot(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        self.hand_up_slot(now, out);
        self.schedule_slot(now)
    }

    /// The first half of the slot starting at `now`: what the last slot decoded is
    /// handed up to `out` (downlink packets at their UE, uplink ones at the gNB). What
    /// the hosts answer at once (a UE's ACKs, with their buffer status reports) reaches
    /// the radio before the slot is scheduled.
    pub fn hand_up_slot(&mut self, now: Time, out: &mut Vec<Packet>) {
        debug_assert!(self.unreported.is_empty(), "uplink reports made first");
        self.sort_active();
        self.hand_up(now, out);
    }

    /// The second half of the slot starting at `now`: each gNB schedules the uplink
    /// (ACKs, small: served first) and shares the rest of the data symbols among its
    /// UEs' downlinks. Only UEs holding SDUs are visited (the active list); the idle
    /// ones' proportional-fair averages decay when they are next scheduled. Returns
    /// whether another slot is needed.
    pub fn schedule_slot(&mut self, now: Time) -> bool {
        debug_assert!(self.unreported.is_empty(), "uplink reports made first");
        self.sort_active();
        self.end_interruptions(now);
        if !self.clearings.is_empty() {
            self.reach_clearings(now);
        }
        for busy in &mut self.scratch_busy {
            busy.clear();
        }
        for &u in &self.active {
            let ue = &self.ues[u];
            if ue.needs_slots() && !ue.pf_frozen {
                self.scratch_busy[ue.serving].push(u);
            }
        }
        let mut busy = std::mem::take(&mut self.scratch_busy);
        for (g, members) in busy.iter().enumerate() {
            if !members.is_empty() {
                self.run_cell_slot(g, now, members);
            }
        }
        std::mem::swap(&mut self.scratch_busy, &mut busy);
        self.slot_number += 1;
        let ues = &mut self.ues;
        self.active.retain(|&u| {
            let ue = &mut ues[u];
            ue.active = ue.needs_slots();
            ue.active
        });
        !self.active.is_empty()
    }

    /// Puts the active list back in UE order after activations out of order.
    fn sort_active(&mut self) {
        if !self.active_sorted {
            self.active.sort_unstable();
            self.active_sorted = true;
        }
    }

    /// Handed-over UEs whose interruption has ended by `now` are members of their new
    /// cell again: their proportional-fair average decays from this slot on.
    fn end_interruptions(&mut self, now: Time) {
        let (ues, slot) = (&mut self.ues, self.slot_number);
        self.interrupted.retain(|&u| {
            let ue = &mut ues[u];
            if now < ue.interrupted_until {
                return true;
            }
            ue.pf_frozen = false;
            ue.pf_slot = slot;
            false
        });
    }

    /// The instants in (`from`, `to`) at which TBs land inside a slot (with
    /// `Profile::symbol_period`; none otherwise), in no order and possibly repeated:
    /// the world hands up at each (`hand_up_slot`).
    pub fn landings_within(&self, from: Time, to: Time, out: &mut Vec<Time>) {
        if self.symbol.is_none() {
            return;
        }
        for &u in &self.active {
            let ue = &self.ues[u];
            for entity in [&ue.dl, &ue.ul] {
                out.extend(
                    entity
                        .landings()
                        .skip_while(|&t| t <= from)
                        .take_while(|&t| t < to),
                );
            }
        }
    }

    /// What reached its receivers by `now`, handed up to `out` in UE order: at a slot
    /// boundary what the slot that ends there decoded, at a landing inside a slot the
    /// TBs that land then.
    fn hand_up(&mut self, now: Time, out: &mut Vec<Packet>) {
        let decoded_in = now.div_ceil(self.slot).saturating_sub(1);
        let logged = self.deliveries.as_ref().map(|log| log.ue);
        let reporting = self.status_prohibit.is_some();
        let mut logged_bytes = 0;
        for &u in &self.active {
            let ue = &mut self.ues[u];
            if self.uplink_grants.is_some() {
                let early = ue.slots.sends_early(now, self.decode_latency, self.slot);
                ue.grants.sends_early_at = early.then_some(now);
            }
            if reporting {
                land_reports(ue, now);
            }
            // An entity that holds no SDU has nothing to hand up: skip it cheaply.
            let before = out.len();
            // Each decoded transmission asks its receiver for a status report; an
            // earlier request not yet taken into account makes its report first.
            if ue.dl.is_busy() && ue.dl.deliver(now, out) > 0 && reporting {
                if let Some(timing) = self.uplink_grants {
                    report_status(ue, now, timing);
                }
                ue.reports.ue.requested(now);
            }
            if logged == Some(u) {
                logged_bytes = out[before..].iter().map(|p| u64::from(p.size)).sum();
            }
            // The gNB's RLC reports its buffer on a request off the prohibit timer.
            if ue.ul.is_busy()
                && ue.ul.deliver(now, out) > 0
                && reporting
                && ue.reports.gnb.requested(now)
            {
                ue.dl.buffer_reported();
            }
            if reporting {
                report_on_timers(ue, now, self.uplink_grants);
            }
        }
        if let Some(log) = self.deliveries.as_mut() {
            log.add(decoded_in, logged_bytes);
        }
    }

    /// Cell `g`'s slot at `now`; `busy` are its members (not interrupted) that hold
    /// SDUs, in UE order. The uplink is served first (ACKs, small): under grants from
    /// buffer status reports each UE fills the TB granted for the next subframe and
    /// the scheduler grants those of the subframe it schedules now, which share its
    /// symbols with that subframe's downlink; otherwise each UE sends what it may now.
    fn run_cell_slot(&mut self, g: usize, now: Time, busy: &[usize]) {
        let downlink_harq = match self.uplink_grants {
            Some(timing) => self.reserve_harq(now, timing, busy),
            None => 0,
        };
        let table = &self.ul_table;
        let mut left = self.data_symbols - downlink_harq;
        self.scratch_uplink.clear();
        for &u in busy {
            let ue = &mut self.ues[u];
            let spent = match self.uplink_grants {
                None => {
                    let state = ue.uplink.at(now);
                    let ch = SlotChannel {
                        table,
                        mcs: ue.ul_cqi.mcs(now, state.mcs, self.cqi_expiry),
                        sinr_db: state.eff_sinr_db,
                    };
                    let status = own_status_symbol(&mut ue.reports.ue, now, self.status_prohibit);
                    let want = if ue.ul.is_busy() {
                        ue.ul.demand_symbols(now, &ch, status)
                    } else {
                        status
                    };
                    let want = want.min(left);
                    // Most busy UEs have no uplink to send in a slot (their downlink
                    // made them busy): the call would change nothing.
                    let spent = if want == 0 && ue.ul.sends_nothing_without_symbols() {
                        0
                    } else {
                        transmit_uplink(ue, now, want, &ch, self.status_prohibit)
                    };
                    if spent > 0 {
                        let block = table.tb_bytes(ch.mcs, spent);
                        report_uplink(ue, table, now, block, self.target_bler, self.cqi_expiry);
                    }
                    spent
                }
                Some(timing) => {
                    let (expiry, prohibit) = (self.cqi_expiry, self.status_prohibit);
                    let granted = granted_uplink(ue, now, table, timing, prohibit, self.symbol);
                    if let Some((air, block)) = granted {
                        report_uplink(ue, table, air, block, self.target_bler, expiry);
                    }
                    let air = now + timing.decision_lead();
                    let state = ue.uplink.at(air);
                    let ch = SlotChannel {
                        table,
                        mcs: ue.ul_cqi.mcs(air, state.mcs, expiry),
                        sinr_db: state.eff_sinr_db,
                    };
                    grant_uplink(ue, now, air, left, &ch, timing, prohibit)
                }
            };
            self.scratch_uplink.push(spent);
            left -= spent;
        }
        // The downlink's shares include its HARQ retransmissions again.
        let table = &self.table;
        left += downlink_harq;
        self.scratch_demands.clear();
        for &u in busy {
            let ue = &mut self.ues[u];
            catch_up_pf(ue, self.slot_number);
            let mcs = ue.dl_cqi.mcs(now, ue.mcs, self.cqi_expiry);
            let ch = SlotChannel {
                table,
                mcs,
                sinr_db: ue.eff_sinr_db,
            };
            let bits_per_symbol = table.bits_per_symbol(mcs);
            let status = own_status_symbol(&mut ue.reports.gnb, now, self.status_prohibit);
            self.scratch_demands.push(Demand {
                symbols: if ue.dl.is_busy() {
                    ue.dl.demand_symbols(now, &ch, status)
                } else {
                    status
                },
                bits_per_symbol,
                average_bits: ue.pf_average_bits,
            });
        }
        self.scratch_shares.resize(busy.len(), 0);
        let rotation = match self.scheduler {
            // One UE's share has no remainder to rotate.
            SchedulerKind::Rr if busy.len() > 1 => self.rr_rotation(g, busy),
            SchedulerKind::Rr | SchedulerKind::Pf => 0,
        };
        share(
            self.scheduler,
            left,
            &self.scratch_demands,
            rotation,
            &mut self.scratch_shares,
            &mut self.scratch_order,
        );
        let gnb = &mut self.gnbs[g];
        self.scratch_downlink.clear();
        // The downlink TBs follow one another from the first data symbol, in UE order.
        let mut dl_end = FIRST_DATA_SYMBOL;
        for (k, &u) in busy.iter().enumerate() {
            let ue = &mut self.ues[u];
            let mcs = ue.dl_cqi.mcs(now, ue.mcs, self.cqi_expiry);
            let ch = SlotChannel {
                table,
                mcs,
                sinr_db: ue.eff_sinr_db,
            };
            let mut used = 0;
            let bytes = ue.dl.stats.tx_bytes;
            if self.scratch_shares[k] > 0 {
                let tbs = ue.dl.stats.tbs + ue.dl.stats.harq_retx;
                used = transmit_with_reports(
                    &mut ue.dl,
                    &mut ue.ul,
                    &mut ue.reports.gnb,
                    now,
                    now,
                    self.scratch_shares[k],
                    &ch,
                    self.status_prohibit,
                );
                let sent = ue.dl.stats.tbs + ue.dl.stats.harq_retx - tbs;
                gnb.tbs += sent;
                ue.interval_blocks.add(sent, ue.sinr_db);
                gnb.bytes += ue.dl.stats.tx_bytes - bytes;
                gnb.transmitting = true;
            }
            if used > 0 {
                let block = table.tb_bytes(mcs, used);
                let reported = report_on(table, &ue.eff_sinr_db, ue.mcs, block, self.target_bler);
                ue.dl_cqi.transmitted(now, reported, self.cqi_expiry);
                dl_end += used;
                if let Some(symbol) = self.symbol {
                    ue.dl.land_later(now, u64::from(dl_end) * symbol);
                }
            }
            let bits = f64::from(used) * f64::from(table.bits_per_symbol(mcs));
            ue.pf_average_bits = pf_average(ue.pf_average_bits, bits);
            ue.pf_slot = self.slot_number + 1;
            self.scratch_downlink.push(used);
        }
        if let Some(timing) = self.uplink_grants {
            self.lay_out(now + timing.decision_lead(), busy);
        }
    }

    /// The module's scheduler serves HARQ first, the downlink's feedback then the
    /// uplink's, from the subframe's data symbols, and loses what it reaches with none
    /// left ([`RlcEntity::reserve_due_harq`]). Returns the symbols the downlink's
    /// retransmissions take; the uplink's go first into each UE's grant
    /// (`grant_uplink`).
    fn reserve_harq(&mut self, now: Time, timing: GrantTiming, busy: &[usize]) -> u32 {
        let ch = |table, mcs| SlotChannel {
            table,
            mcs,
            sinr_db: flat(0.0),
        };
        let mut budget = self.data_symbols;
        let mut downlink = 0;
        for &u in busy {
            let ue = &mut self.ues[u];
            let dl = ch(&self.table, ue.mcs);
            downlink += ue.dl.reserve_due_harq(now, now, &dl, &mut budget);
        }
        let fill = now + timing.decision_lead() - timing.fill_lead();
        for &u in busy {
            let ue = &mut self.ues[u];
            ue.ul_harq_reserved = ue.ul.reserve_due_harq(
                now,
                fill,
                &ch(&self.ul_table, ue.uplink.newest().mcs),
                &mut budget,
            );
        }
        downlink
    }

    /// Records where each of `busy`'s slots lies in the subframe starting at `air` that
    /// the cell's slot scheduled: the downlink TBs first, in UE order, then the
    /// uplink ones.
    fn lay_out(&mut self, air: Time, busy: &[usize]) {
        let mut dl_at = FIRST_DATA_SYMBOL;
        let mut ul_at = dl_at + self.scratch_downlink.iter().sum::<u32>();
        for (k, &u) in busy.iter().enumerate() {
            let (dl, ul) = (self.scratch_downlink[k], self.scratch_uplink[k]);
            let dl_start = (dl > 0).then_some(dl_at);
            let ul_start = (ul > 0).then_some(ul_at);
            dl_at += dl;
            ul_at += ul;
            let dl_end = (dl > 0).then_some(dl_at);
            self.ues[u]
                .slots
                .lay_out(air, self.slot, dl_end, ul_start.or(dl_start));
        }
    }

    /// The round robin's rotation for cell `g`'s `busy` members: the robin turns over
    /// all the cell's members taking part in the slot (those not interrupted by a
    /// handover), by slot number (`rotation_among`).
    fn rr_rotation(&self, g: usize, busy: &[usize]) -> usize {
        let members = &self.members[g];
        // Interrupted members before `u` in UE order.
        let held = |u: usize| {
            self.interrupted
                .iter()
                .filter(|&&w| self.ues[w].serving == g && w < u)
                .count()
        };
        let places = busy
            .iter()
            .map(|&u| members.partition_point(|&m| m < u) - held(u));
        rotation_among(
            places,
            members.len() - held(usize::MAX),
            self.slot_number as usize,
        )
    }

    /// UE `u`'s row of the UE trace at `now`, for the interval since its last one.
    pub fn ue_row(&mut self, u: usize, now: Time) -> UeRow {
        let ue = &mut self.ues[u];
        let (dl_tbs, dl_tb_sinr_db) = ue.interval_blocks.take();
        UeRow {
            t_s: to_secs(now),
            ue: u as u32,
            x_m: ue.position.x,
            y_m: ue.position.y,
            cell: ue.serving as u32,
            sinr_db: ue.sinr_db,
            mcs: ue.mcs,
            los: !ue.is_blocked(ue.serving),
            rlc_bytes: ue.dl.buffered_bytes(),
            rlc_packets: ue.dl.sdus_held() as u32,
            rlc_drops: ue.dl.stats.sdus_dropped,
            harq_retx: ue.dl.stats.harq_retx,
            dl_tbs,
            dl_tb_sinr_db,
        }
    }

    /// A UE's totals at the end of a run that stopped at `end`.
    pub fn ue_summary(&self, u: usize, end: Time) -> UeSummary {
        let ue = &self.ues[u];
        let open = ue.nlos_since.map(|since| (since, end));
        UeSummary {
            ue: u as u32,
            mean_sinr_db: if ue.sinr_samples == 0 {
                f64::NAN
            } else {
                ue.sinr_sum_db / ue.sinr_samples as f64
            },
            nlos_intervals_s: ue
                .nlos_intervals
                .iter()
                .copied()
                .chain(open)
                // An update finds the channel ahead (`channel_lead`): what it found
                // past the end is not part of the run.
                .filter(|&(a, _)| a < end)
                .map(|(a, b)| [to_secs(a), to_secs(b.min(end))])
                .collect(),
            handovers: ue.handovers,
            cell: ue.serving as u32,
            harq_retransmissions: ue.dl.stats.harq_retx + ue.ul.stats.harq_retx,
            harq_failures: ue.dl.stats.harq_failures + ue.ul.stats.harq_failures,
            ul_harq_failures: ue.ul.stats.harq_failures,
            rlc_drops: ue.dl.stats.sdus_dropped,
            uplink_rlc_drops: ue.ul.stats.sdus_dropped,
            dl_tb_transmissions: ue.dl.stats.tbs + ue.dl.stats.harq_retx,
            dl_tb_errors: ue.dl.stats.harq_retx + ue.dl.stats.harq_failures,
            ul_tb_transmissions: ue.ul.stats.tbs + ue.ul.stats.harq_retx,
            ul_tb_errors: ue.ul.stats.harq_retx + ue.ul.stats.harq_failures,
            misread_status_reports: ue.dl.stats.misread_reports + ue.ul.stats.misread_reports,
            dl_rlc_segments: ue.dl.stats.arq_segments,
            ul_rlc_segments: ue.ul.stats.arq_segments,
            refused_retransmissions: ue.dl.stats.refused_retransmissions
                + ue.ul.stats.refused_retransmissions,
            dl_rlc_delay_ms: ue.dl.stats.mean_sdu_delay_ms(),
            ul_rlc_delay_ms: ue.ul.stats.mean_sdu_delay_ms(),
        }
    }

    pub fn cell_summary(&self, g: usize) -> CellSummary {
        CellSummary {
            cell: g as u32,
            transport_blocks: self.gnbs[g].tbs,
            bytes_transmitted: self.gnbs[g].bytes,
        }
    }
}

/// The effective SINR per modulation of a TB over the chunks (`ratios` of the gain over
/// its wideband value, from the serving channel) at wideband SINR `sinr_db`; a flat
/// channel (no ratios) meets `sinr_db` itself. Interference, computed wideband, is
/// spread evenly over the chunks.
fn effective_sinrs(ratios: Option<&[f64]>, sinr_db: f64, out: &mut EffectiveSinr) {
    match ratios {
        Some(r) => effective_sinr_db(db_to_linear(sinr_db), r, out),
        None => *out = flat(sinr_db),
    }
}

/// Effective SINRs and link adaptation's MCS each way from `ue`'s SINRs now, for the
/// TBs on the air from `from`. Link adaptation acts on a report. Where the scheduler
/// holds reports (`held_reports`, `cqi.rs`), each TB's report carries the MCS of the
/// SINR it met and the scheduler's rule delays it; elsewhere the previous call's SINR
/// is the report: one update of CQI delay (kept only there).
fn adapt_link(
    ue: &mut Ue,
    (table, ul_table): (&McsTable, &McsTable),
    held_reports: bool,
    target_bler: f64,
    from: Time,
) {
    let s = ue.serving;
    effective_sinrs(
        ue.channels[s].chunk_gain_ratios(),
        ue.sinr_db,
        &mut ue.eff_sinr_db,
    );
    let channel = &ue.channels[s];
    let ul_eff_sinr_db = if ue.ul_sinr_db == ue.sinr_db && channel.is_reciprocal() {
        // Same powers, no interference, same chunks: the same result.
        ue.eff_sinr_db
    } else {
        let mut ul = flat(0.0);
        effective_sinrs(channel.uplink_chunk_gain_ratios(), ue.ul_sinr_db, &mut ul);
        ul
    };
    let (reported, reported_ul) = if held_reports {
        (ue.eff_sinr_db, ul_eff_sinr_db)
    } else {
        (
            ue.reported_eff_db
                .replace(ue.eff_sinr_db)
                .unwrap_or(ue.eff_sinr_db),
            ue.reported_ul_eff_db
                .replace(ul_eff_sinr_db)
                .unwrap_or(ul_eff_sinr_db),
        )
    };
    ue.mcs = select_mcs(table, &mut ue.mcs_memo, &reported, target_bler);
    let ul_mcs = select_mcs(ul_table, &mut ue.ul_mcs_memo, &reported_ul, target_bler);
    ue.uplink.begin(
        from,
        UplinkState {
            eff_sinr_db: ul_eff_sinr_db,
            mcs: ul_mcs,
        },
    );
}

/// A choice of link adaptation and the questions it answers.
#[derive(Debug, Clone, Copy, PartialEq)]
enum McsMemo {
    /// These effective SINRs.
    Exact(EffectiveSinr, u8),
    /// A flat channel at any SINR in `[low, high)` dB (`McsTable::select_flat_with_range`).
    Flat { low: f64, high: f64, mcs: u8 },
}

/// Link adaptation's MCS for the effective SINRs `reported` (`McsTable::select_effective`),
/// taken from `memo` when it answers the same question.
fn select_mcs(
    table: &McsTable,
    memo: &mut Option<McsMemo>,
    reported: &EffectiveSinr,
    target_bler: f64,
) -> u8 {
    let s = reported[0];
    let is_flat = same_bits(reported, &flat(s));
    match *memo {
        Some(McsMemo::Flat { low, high, mcs }) if is_flat && low <= s && s < high => mcs,
        Some(McsMemo::Exact(sinrs, mcs)) if same_bits(&sinrs, reported) => mcs,
        _ => {
            let flat_choice = is_flat
                .then(|| table.select_flat_with_range(s, target_bler))
                .flatten();
            let (mcs, new) = match flat_choice {
                Some((mcs, low, high)) => (mcs, McsMemo::Flat { low, high, mcs }),
                None => {
                    let mcs = table.select_effective(reported, target_bler);
                    (mcs, McsMemo::Exact(*reported, mcs))
                }
            };
            *memo = Some(new);
            mcs
        }
    }
}

/// The MCS a CQI report on a slot's TBs of `bytes` (`McsTable::tb_bytes`) asks for: link
/// adaptation's `chosen` one, unless the table's error rule reads a block's size, in
/// which case the choice for a block of that size (`McsTable::select_for_block`, the
/// module's AMC). A HARQ retransmission beside new data counts as one block with it.
fn report_on(
    table: &McsTable,
    effective: &EffectiveSinr,
    chosen: u8,
    bytes: u64,
    target_bler: f64,
) -> u8 {
    if table.judges_block_size() {
        table.select_for_block(effective, target_bler, bytes)
    } else {
        chosen
    }
}

/// The gNB's CQI report on `ue`'s uplink TB of `block` bytes on the air at `air`.
fn report_uplink(
    ue: &mut Ue,
    table: &McsTable,
    air: Time,
    block: u64,
    target_bler: f64,
    expiry: Option<CqiExpiry>,
) {
    let state = ue.uplink.at(air);
    let reported = report_on(table, &state.eff_sinr_db, state.mcs, block, target_bler);
    ue.ul_cqi.transmitted(air, reported, expiry);
}

/// The two hold the same numbers to the bit (so a memo holds for signed zeros too).
fn same_bits(a: &EffectiveSinr, b: &EffectiveSinr) -> bool {
    a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Applies to `ue`'s proportional-fair average the decay of the slots from its
/// `pf_slot` to `slot`, in which it was a member of its cell but idle, as those slots
/// would have: the same steps in the same order, so the value is the same to the bit.
fn catch_up_pf(ue: &mut Ue, slot: u64) {
    ue.pf_average_bits = pf_idle_decay(ue.pf_average_bits, slot.saturating_sub(ue.pf_slot));
    ue.pf_slot = slot;
}

/// Moves UE `u` from cell `from`'s member list to cell `to`'s, keeping UE order.
fn move_member(members: &mut [Vec<usize>], u: usize, from: usize, to: usize) {
    if let Ok(k) = members[from].binary_search(&u) {
        members[from].remove(k);
    }
    if let Err(k) = members[to].binary_search(&u) {
        members[to].insert(k, u);
    }
}

/// The weight of each new measurement in an exponential filter of time constant
/// `filter_s` sampled every `update_s` (1: no filtering).
fn filter_weight(update_s: f64, filter_s: f64) -> f64 {
    if filter_s <= 0.0 {
        1.0
    } else {
        1.0 - (-update_s / filter_s).exp()
    }
}

/// The gNB with the strongest path gain (all gNBs transmit at the same power), the
/// first of equals. A plain walk over the gains: with an index per gNB each step paid
/// two bounds checks, and every UE asks at every channel update.
fn best_cell(gain_db: &[f64]) -> usize {
    let Some((&first, rest)) = gain_db.split_first() else {
        return 0;
    };
    let (mut best, mut top) = (0, first);
    for (g, &gain) in rest.iter().enumerate() {
        if gain > top {
            (best, top) = (g + 1, gain);
        }
    }
    best
}

fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

fn linear_to_db(x: f64) -> f64 {
    10.0 * x.log10()
}
/// The grant the scheduler made `ue` for the next subframe, under grants from buffer
/// status reports (`grants.rs`), reaches the UE at `now`, which fills its TB there and
/// then: due HARQ retransmissions, then what it holds, which leaves its buffer (and its
/// later reports) at once; the TB goes on the air in the next subframe. The granted
/// symbols are spent whether or not the UE still holds data for them. Returns when the
/// TB goes on the air and its size (`McsTable::tb_bytes`), for the CQI report on it, when
/// there was a grant.
fn granted_uplink(
    ue: &mut Ue,
    now: Time,
    table: &McsTable,
    timing: GrantTiming,
    prohibit: Option<Time>,
    symbol: Option<Time>,
) -> Option<(Time, u64)> {
    if prohibit.is_some() {
        report_status(ue, now, timing);
    }
    let air = now + timing.fill_lead();
    let (symbols, mcs) = ue.grants.take_scheduled(air)?;
    let ch = SlotChannel {
        table,
        mcs,
        sinr_db: ue.uplink.at(air).eff_sinr_db,
    };
    transmit_uplink(ue, now, symbols, &ch, prohibit);
    // The TB ends `symbols` after its slot's start, laid out when it was scheduled.
    let start = ue.slots.at(air, timing.subframe).and_then(|slots| slots.1);
    if let (Some(symbol), Some(start)) = (symbol, start) {
        ue.ul.land_later(now, u64::from(start + symbols) * symbol);
    }
    Some((air, table.tb_bytes(mcs, symbols)))
}

/// When each direction's RLC retransmits what HARQ gave up on (`arq.rs`): with a
/// reordering timer, a downlink status report rides the UE's next uplink grant (a
/// report's way to a grant, then decoding) and an uplink one the gNB's next downlink
/// TB (the scheduler's lead, then decoding).
fn arq_timings(cfg: &RadioConfig, profile: &dyn Profile) -> (ArqTiming, ArqTiming) {
    let poll_retransmit = from_secs(cfg.rlc_retx_delay_s);
    let Some(t_reordering) = profile.reordering_timer() else {
        return (
            ArqTiming::Fixed(poll_retransmit),
            ArqTiming::Fixed(poll_retransmit),
        );
    };
    let decode = profile.decode_latency();
    let uplink_report = match profile.uplink_grants() {
        Some(timing) => timing.report_to_grant() * timing.subframe,
        None => from_secs(cfg.uplink_grant_delay_s),
    };
    let timers = |status_delay| {
        ArqTiming::Reordering(ReorderingTimers {
            t_reordering,
            status_delay,
            poll_retransmit,
        })
    };
    (
        timers(uplink_report + decode),
        timers(profile.downlink_lead() + decode),
    )
}

/// The scheduler's uplink decision at `now` for `ue`'s TB in the subframe starting at
/// `air`: the HARQ retransmissions it reserved, then a grant from the reports it has,
/// within `left` symbols at the MCS of `ch`. Returns the symbols granted.
fn grant_uplink(
    ue: &mut Ue,
    now: Time,
    air: Time,
    left: u32,
    ch: &SlotChannel,
    timing: GrantTiming,
    prohibit: Option<Time>,
) -> u32 {
    // Without an RLC buffer-status timer, data no report covers (what HARQ gave up on)
    // is reported now, as the RLC's timers would.
    if ue.grants.is_idle() && !ue.ul.has_buffer_timer() {
        let uncovered = ue.ul.reportable_bytes();
        if uncovered > 0 {
            ue.grants.report(now, uncovered, timing);
        }
    }
    // The retransmissions this decision reserved (`Ran::reserve_harq`) go first.
    let harq = std::mem::take(&mut ue.ul_harq_reserved).min(left);
    let grant = ue
        .grants
        .grant(air)
        .map_or(0, |bytes| ch.symbols_for(bytes, ch.mcs).min(left - harq));
    if grant > 0 {
        ue.grants.granted(ch.bytes_in(grant));
    }
    let symbols = harq + grant;
    if symbols > 0 {
        ue.grants.schedule(air, symbols, ch.mcs);
    }
    if prohibit.is_some() {
        report_status(ue, now, timing);
    }
    symbols
}

/// The reports `ue`'s RLC timers made by `now`: each end reports its buffer at an
/// expiry of its buffer-status timer while it holds data or unacknowledged PDUs, and
/// at an expiry of its poll-retransmit timer that sent something again. A report
/// announces the status report the end owes its peer; the UE's buffer status report
/// also asks for a grant.
fn report_on_timers(ue: &mut Ue, now: Time, grants: Option<GrantTiming>) {
    let dl = ue.dl.fire_buffer_timer(now);
    if let Some(at) = dl.max(ue.dl.take_poll_report()) {
        ue.reports.gnb.buffer_reported(at);
        ue.dl.buffer_reported();
    }
    let ul = ue.ul.fire_buffer_timer(now);
    if let Some(at) = ul.max(ue.ul.take_poll_report()) {
        let status = ue.reports.ue.buffer_reported(at);
        if let Some(timing) = grants {
            ue.grants
                .report(at, ue.ul.reportable_bytes() + status, timing);
        }
    }
}

/// A request for a status report that arrived by `by` off the prohibit timer makes
/// the UE report its buffer at the request's arrival: its data and the owed report.
fn report_status(ue: &mut Ue, by: Time, timing: GrantTiming) {
    if let Some(at) = ue.reports.ue.catch_up(by) {
        let bytes = ue.ul.reportable_bytes() + STATUS_BYTES;
        ue.grants.report(at, bytes, timing);
    }
}

/// The symbol a sending end asks of the scheduler at `now` for an announced status
/// report: its TB needs one even with no data (`status.rs`).
fn own_status_symbol(sends: &mut StatusReport, now: Time, prohibit: Option<Time>) -> u32 {
    u32::from(prohibit.is_some() && sends.announced_by(now))
}

/// Transmits an entity's share of the slot at `now` (`symbols`); returns the symbols
/// used. With the status-prohibit timer `prohibit`, a report the sending end owes
/// (`sends`) takes its turn at the opportunity, which the sending end has at
/// `opportunity` (`status.rs`): an announced one goes beside the data, in a symbol of
/// its own when there is none, an unannounced one instead of the data. A report sent
/// says what the opposite direction's receiver (`acked`) holds, and rides its TB's
/// HARQ to that direction's sender (`acks.rs`).
#[allow(clippy::too_many_arguments)]
fn transmit_with_reports(
    entity: &mut RlcEntity,
    acked: &mut RlcEntity,
    sends: &mut StatusReport,
    opportunity: Time,
    now: Time,
    symbols: u32,
    ch: &SlotChannel,
    prohibit: Option<Time>,
) -> u32 {
    let Some(p) = prohibit.filter(|_| symbols > 0) else {
        return entity.transmit(now, symbols, ch);
    };
    let (used, taken) = match sends.turn(opportunity) {
        StatusTurn::None => return entity.transmit(now, symbols, ch),
        StatusTurn::Beside => entity.transmit_with_report(now, symbols, ch, acked.status_content()),
        StatusTurn::Alone => entity.transmit_status_only(now, symbols, ch, acked.status_content()),
    };
    if taken {
        sends.sent(opportunity, p);
    }
    used
}

/// `ue`'s uplink transmits in `symbols` at `now`, beside the status report it owes
/// the downlink.
fn transmit_uplink(
    ue: &mut Ue,
    now: Time,
    symbols: u32,
    ch: &SlotChannel,
    prohibit: Option<Time>,
) -> u32 {
    transmit_with_reports(
        &mut ue.ul,
        &mut ue.dl,
        &mut ue.reports.ue,
        now,
        now,
        symbols,
        ch,
        prohibit,
    )
}

/// The status reports that landed by `now` reach their senders: those the downlink's
/// TBs carry the UE's uplink sender, and the other way round.
fn land_reports(ue: &mut Ue, now: Time) {
    while let Some(report) = ue.dl.landed_report(now) {
        ue.ul.peer_report(report);
    }
    while let Some(report) = ue.ul.landed_report(now) {
        ue.dl.peer_report(report);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Body, Segment};
    use crate::scenario::{Config, builtin};

    fn packet(seq: u64) -> Packet {
        Packet {
            flow: 0,
            size: 1500,
            hop: 0,
            body: Body::Data(Segment {
                seq,
                len: 1500,
                ts_val: 0,
                retransmission: false,
            }),
        }
    }

    #[test]
    fn the_best_cell_is_the_first_of_the_strongest() {
        assert_eq!(best_cell(&[-90.0, -80.0, -85.0, -80.0]), 1);
        assert_eq!(best_cell(&[-70.0, -80.0]), 0);
        assert_eq!(best_cell(&[-70.0]), 0);
        assert_eq!(best_cell(&[]), 0);
    }

    /// Under the module's error rule a CQI report asks for what suits the block it was
    /// made on, however link adaptation chose; under the logistic rule it repeats the
    /// choice.
    #[test]
    fn reports_follow_their_block_under_the_module_rule() {
        let (mi, logistic) = (McsTable::ns3_mmwave_mi(), McsTable::ns3_mmwave());
        for step in 0..60 {
            let eff = flat(-6.0 + 0.5 * f64::from(step));
            for bytes in [300, 4_000, 40_000] {
                let want = mi.select_for_block(&eff, 0.1, bytes);
                assert_eq!(report_on(&mi, &eff, 7, bytes, 0.1), want);
                assert_eq!(report_on(&logistic, &eff, 7, bytes, 0.1), 7);
            }
        }
    }

    /// The memo answers only the question it was asked: any change of the SINRs,
    /// down to a signed zero, asks the table again.
    #[test]
    fn the_mcs_memo_gives_the_tables_choice() {
        let config = Config::from_toml(builtin::get("city-100ue").unwrap()).unwrap();
        let radio = config.radio.as_ref().unwrap();
        let table = profile::of(radio).mcs_table();
        let mut memo = None;
        let sinrs = [
            flat(3.0),
            flat(3.0),
            flat(25.0),
            [25.0, 25.0, 2.0],
            [25.0, 25.0, 2.0],
            flat(0.0),
            flat(-0.0),
            flat(f64::NEG_INFINITY),
            flat(3.0),
        ];
        for (k, sinr) in sinrs.iter().enumerate() {
            let want = table.select_effective(sinr, 0.1);
            assert_eq!(select_mcs(&table, &mut memo, sinr, 0.1), want, "step {k}");
            match memo {
                Some(McsMemo::Exact(s, mcs)) => assert_eq!((s, mcs), (*sinr, want)),
                Some(McsMemo::Flat { low, high, mcs }) => {
                    assert!(low <= sinr[0] && sinr[0] < high && mcs == want, "step {k}");
                }
                None => panic!("step {k}: nothing remembered"),
            }
        }
        // A mixed question after a flat one, and the flat one again.
        let mut memo = None;
        for sinr in [flat(12.0), [12.0, 12.0, 1.0], flat(12.0), flat(12.5)] {
            let want = table.select_effective(&sinr, 0.1);
            assert_eq!(select_mcs(&table, &mut memo, &sinr, 0.1), want, "{sinr:?}");
        }
        assert_ne!(
            table.select_effective(&flat(3.0), 0.1),
            table.select_effective(&flat(25.0), 0.1)
        );
    }

    /// `city-100ue`'s RAN (the 3gpp profile) with `radio` changed by `edit`.
    fn city_ran(edit: impl FnOnce(&mut RadioConfig)) -> Ran {
        builtin_ran("city-100ue", edit)
    }

    /// The RAN of the built-in scenario `id` with `radio` changed by `edit`.
    fn builtin_ran(id: &str, edit: impl FnOnce(&mut RadioConfig)) -> Ran {
        let config = Config::from_toml(builtin::get(id).unwrap()).unwrap();
        let mut radio = config.radio.clone().unwrap();
        edit(&mut radio);
        Ran::new(&radio, &RngStreams::new(config.seed))
    }

    /// Channel updates 1 ms apart of the city's UEs from time 0, with neighbour links
    /// measured again after `remeasure_m`: per update, each UE's position and gains.
    fn city_gains(remeasure_m: f64, updates: u64) -> Vec<Vec<(Point, Vec<f64>)>> {
        let mut ran = city_ran(|radio| radio.neighbour_remeasure_m = remeasure_m);
        let (mut events, mut dropped) = (Vec::new(), Vec::new());
        (0..updates)
            .map(|k| {
                ran.update_channels(k * 1_000_000, &mut events, &mut dropped);
                ran.ues
                    .iter()
                    .map(|ue| (ue.position, ue.gain_db.clone()))
                    .collect()
            })
            .collect()
    }

    /// Under the 3gpp profile a standing UE keeps its gains, a moving one has its
    /// serving link measured at every update and the others once it is
    /// `neighbour_remeasure_m` from where they were last measured (0: every update).
    #[test]
    fn neighbour_links_are_measured_again_after_the_ue_moves_far_enough() {
        let (lazy, every) = (city_gains(0.1, 400), city_gains(0.0, 400));
        let (mut standing, mut moving, mut near_but_measured) = (0, 0, 0);
        for u in 0..lazy[0].len() {
            let (start, _) = &lazy[0][u];
            if lazy.iter().all(|step| step[u].0 == *start) {
                standing += 1;
                assert!(lazy.iter().all(|step| step[u].1 == lazy[0][u].1), "UE {u}");
                continue;
            }
            moving += 1;
            let mut measured_at = *start;
            for k in 1..lazy.len() {
                let (position, gains) = &lazy[k][u];
                let before = &lazy[k - 1][u].1;
                let changed: Vec<bool> = gains.iter().zip(before).map(|(a, b)| a != b).collect();
                let far = position.distance(measured_at) >= 0.1;
                if far {
                    measured_at = *position;
                }
                let neighbours = changed.iter().filter(|&&c| c).count();
                assert!(
                    far || neighbours <= 1,
                    "UE {u} at update {k}: {neighbours} links measured after {:.3} m",
                    position.distance(measured_at)
                );
                if far {
                    assert!(
                        neighbours > 1,
                        "UE {u} at update {k}: neighbours not measured"
                    );
                }
                // Measuring every link at every update moves the neighbours' gains too.
                let all = every[k][u].1.iter().zip(&every[k - 1][u].1);
                if !far && all.filter(|(a, b)| a != b).count() > 1 {
                    near_but_measured += 1;
                }
            }
        }
        assert!(near_but_measured > 0, "0 m measures every link");
        assert!(
            standing > 10 && moving > 10,
            "{standing} standing, {moving} moving"
        );
    }

    /// The SINR kept from the last update's noise and interference is the one summed
    /// afresh, to the bit, while gNBs start and stop interfering, UEs move (their
    /// neighbour links measured again) and stand: in the city (3gpp) from its start,
    /// and in `mateo-multiuser` (ns3-mmwave, whose standing UEs' gains change only at
    /// beamforming draws) across its walkers' start at 1 s and a draw at 1.1 s.
    #[test]
    fn a_kept_interference_gives_the_sinr_summed_afresh() {
        for (mut ran, start, updates) in [
            (city_ran(|_| {}), 0, 300),
            (builtin_ran("mateo-multiuser", |_| {}), 950_000_000, 1600),
        ] {
            check_kept_interference(&mut ran, start, updates);
        }
    }

    fn check_kept_interference(ran: &mut Ran, start: Time, updates: u64) {
        let (mut events, mut dropped) = (Vec::new(), Vec::new());
        let mut kept = 0;
        for k in 0..updates {
            for (g, gnb) in ran.gnbs.iter_mut().enumerate() {
                // Each gNB interferes in its own pattern of runs of updates.
                gnb.transmitting = !(k / (g as u64 + 2) + g as u64).is_multiple_of(3);
            }
            let epoch = ran.transmitting_epoch;
            ran.update_channels(start + k * ran.update_every, &mut events, &mut dropped);
            kept += usize::from(ran.transmitting_epoch == epoch) * ran.ues.len();
            for ue in &ran.ues {
                let s = ue.serving;
                let interference_mw: f64 = (0..ran.gnbs.len())
                    .filter(|&g| g != s && ran.gnbs[g].was_transmitting)
                    .map(|g| {
                        db_to_linear(ran.dl_power_dbm + ue.gain_db[g] - ran.interferer_beam_loss_db)
                    })
                    .sum();
                let sinr_db =
                    ran.dl_power_dbm + ue.gain_db[s] - linear_to_db(ran.noise_mw + interference_mw);
                assert_eq!(ue.sinr_db.to_bits(), sinr_db.to_bits(), "update {k}");
            }
        }
        assert!(kept > 100 * ran.ues.len(), "{kept}");
    }

    /// The handover filter that skips settled steps, and the check that skips settled
    /// gains, give the filtered gains of a step at every update and the candidate a
    /// check on them would find, for standing and moving UEs and through handovers.
    #[test]
    fn settled_filters_and_checks_change_nothing() {
        let mut ran = city_ran(|_| {});
        let (mut events, mut dropped) = (Vec::new(), Vec::new());
        let mut filtered: Vec<Vec<f64>> = ran.ues.iter().map(|ue| ue.gain_db.clone()).collect();
        let (mut settled, mut candidates) = (0, 0);
        for k in 1..1500_u64 {
            let now = k * 1_000_000;
            ran.update_channels(now, &mut events, &mut dropped);
            for (ue, f) in ran.ues.iter().zip(&mut filtered) {
                for (f, &gain) in f.iter_mut().zip(&ue.gain_db) {
                    *f += ran.filter_weight * (gain - *f);
                }
                assert_eq!(&ue.filtered_gain_db, f, "update {k}");
                settled += usize::from(ue.filter_settled && ue.no_candidate);
                if now < ue.interrupted_until {
                    continue;
                }
                let best = best_cell(f);
                let none = best == ue.serving || f[best] <= f[ue.serving] + ran.hysteresis_db;
                assert_eq!(ue.candidate.is_none(), none, "update {k}");
                candidates += usize::from(!none);
            }
        }
        let handovers = events
            .iter()
            .filter(|e| matches!(e, RadioEvent::Handover { .. }));
        assert!(handovers.count() > 0 && candidates > 0 && settled > 10_000);
    }

    /// `urban`'s RAN (the ns3-mmwave profile) with `radio` changed by `edit`, its
    /// channels measured at 0 and 20 empty slots run.
    fn urban_ran(edit: impl FnOnce(&mut RadioConfig)) -> Ran {
        let config = Config::from_toml(builtin::get("urban").unwrap()).unwrap();
        let mut radio = config.radio.clone().unwrap();
        edit(&mut radio);
        let mut ran = Ran::new(&radio, &RngStreams::new(config.seed));
        let (mut events, mut dropped, mut out) = (Vec::new(), Vec::new(), Vec::new());
        ran.update_channels(0, &mut events, &mut dropped);
        for k in 0..20 {
            assert!(!ran.run_slot(k * ran.slot(), &mut out), "nothing queued");
        }
        assert!(out.is_empty());
        ran
    }

    /// fbtcp-1's UE leaves its first building's blockage (edges about 2.007 and
    /// 2.353 s) with `misread_blockage_exit` as `misread`: channel updates until one
    /// whose slots' TBs go on the air after the path clears. Returns that update, the
    /// clearing found there (the first of `misread`'s run, for both), and UE 0's
    /// downlink SINR and MCS at slots 1 ns before the clearing's, at its first and at
    /// its end.
    fn leave_first_building(
        misread: bool,
        found: Option<Clearing>,
    ) -> (Time, Option<Clearing>, [(f64, u8); 3]) {
        let mut ran = builtin_ran("fbtcp-1", |radio| {
            radio.ns3_mmwave.misread_blockage_exit = misread;
        });
        let (mut events, mut dropped) = (Vec::new(), Vec::new());
        let every = ran.update_every;
        let mut now = 1_900_000_000 / every * every;
        loop {
            ran.update_channels(now, &mut events, &mut dropped);
            let clearing = ran.clearings.first().copied();
            if clearing.is_some() || found.is_some_and(|c| c.from < now + every) {
                let c = clearing.or(found).expect("a clearing");
                let mut sinr_mcs = |t: Time| {
                    ran.schedule_slot(t);
                    (ran.ues[0].sinr_db, ran.ues[0].mcs)
                };
                let slots = [sinr_mcs(c.from - 1), sinr_mcs(c.from), sinr_mcs(c.until)];
                return (now, clearing, slots);
            }
            now += every;
            assert!(now < 2_400_000_000, "no clearing before 2.4 s");
        }
    }

    /// With `misread_blockage_exit`, the slots whose TBs go on the air between the
    /// instant the UE's path clears and the next update of the blockage counters meet
    /// the unblocked link (the 35.96 dB steady loss gone) and ask for its MCS; the
    /// slots before and after keep the blocked one. Without it, no slot sees the
    /// clearing before the update that finds the path clear.
    #[test]
    fn a_misread_exit_gives_the_tbs_after_the_clearing_an_unblocked_link() {
        let (now, clearing, [before, raised, after]) = leave_first_building(true, None);
        let c = clearing.expect("a clearing found");
        let lead = 200_000 + 4_160; // two subframes and the downlink control symbol
        assert_eq!(c.ue, 0);
        assert!(
            now <= c.from && c.from < c.until && c.until <= now + 125_000,
            "{c:?}"
        );
        let ran = builtin_ran("fbtcp-1", |_| {});
        let blocked_at = |t: Time| {
            let at = ran.ues[0].trajectory.position(to_secs(t));
            geometry::is_blocked(ran.los_test, ran.gnbs[0].position, at, &ran.obstacles)
        };
        // The TBs' air times lie after the clearing, within one counter update.
        let (air_from, air_until) = (c.from + lead, c.until + lead);
        assert!(!blocked_at(air_from) && !blocked_at(air_until - 1));
        assert!(blocked_at(air_until - 125_000));
        assert!(
            (c.rise_db - profile::NS3_TRACE_STEADY_DB).abs() < 1e-9,
            "{}",
            c.rise_db
        );
        assert!((raised.0 - before.0 - profile::NS3_TRACE_STEADY_DB).abs() < 1e-9);
        assert!(before.1 < 5 && raised.1 >= 27, "{before:?} -> {raised:?}");
        assert_eq!(after, before);
        let (_, none, off) = leave_first_building(false, Some(c));
        assert_eq!(none, None);
        assert_eq!(off, [before; 3]);
    }

    /// The TBs UE 0 sends in each direction in the slots from `from`, one slot at a time.
    fn tbs_per_slot(ran: &mut Ran, from: Time, slots: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        (0..slots)
            .map(|k| {
                let (dl, ul) = (ran.ues[0].dl.stats.tbs, ran.ues[0].ul.stats.tbs);
                ran.run_slot(from + k * ran.slot(), &mut out);
                (ran.ues[0].dl.stats.tbs - dl, ran.ues[0].ul.stats.tbs - ul)
            })
            .collect()
    }

    fn ack(seq: u64) -> Packet {
        Packet {
            size: 52,
            ..packet(seq)
        }
    }

    /// Queues `pkt` into UE `ue`'s uplink at `now` and makes its buffer report, as
    /// the world does after each burst.
    fn uplink(ran: &mut Ran, now: Time, ue: u32, pkt: Packet) {
        ran.enqueue_uplink(now, ue, pkt).unwrap();
        ran.report_uplinks(now);
    }

    /// Slots skip idle UEs, so one whose downlink fills again must still be served in
    /// the next slot, and its packet handed up when its TB has been on the air and
    /// decoded: the ns3-mmwave profile's scheduler builds the TB then and airs it
    /// `L1L2CtrlLatency` (2) subframes later, and the UE decodes it in the subframe
    /// after (`TbDecodeLatency`), so it is handed up 4 slots on.
    #[test]
    fn an_idle_ue_that_gets_data_is_served_in_the_next_slot() {
        for latency in [0, 2] {
            let mut ran = urban_ran(|r| r.ns3_mmwave.l1l2_ctrl_latency_subframes = latency);
            let now = 20 * ran.slot();
            // Small enough for the one blind TB (MCS 0) the first slot sends.
            ran.enqueue_downlink(now - 1, 0, ack(7)).unwrap();
            let mut handed_up = None;
            for k in 0..10 {
                let mut out = Vec::new();
                ran.run_slot(now + k * ran.slot(), &mut out);
                if k == 0 {
                    assert!(ran.ues[0].dl.stats.tbs >= 1, "built in the first slot");
                }
                if !out.is_empty() {
                    assert!(matches!(out[0].body, Body::Data(s) if s.seq == 7));
                    handed_up.get_or_insert(k);
                }
            }
            assert_eq!(handed_up, Some(2 + u64::from(latency)), "latency {latency}");
        }
    }

    /// The UE trace counts the downlink TBs of each interval, retransmissions too, with
    /// the mean SINR they met; an interval without one has no SINR of its own.
    #[test]
    fn a_ue_row_counts_the_intervals_downlink_tbs_and_their_sinr() {
        let mut ran = urban_ran(|_| {});
        let now = 20 * ran.slot();
        assert_eq!(ran.ue_row(0, now).dl_tbs, 0);
        for seq in 0..40 {
            ran.enqueue_downlink(now - 1, 0, packet(seq)).unwrap();
        }
        let mut out = Vec::new();
        for k in 0..20 {
            ran.run_slot(now + k * ran.slot(), &mut out);
        }
        let sent = ran.ues[0].dl.stats.tbs + ran.ues[0].dl.stats.harq_retx;
        let row = ran.ue_row(0, now + 20 * ran.slot());
        assert!(sent > 1 && row.dl_tbs == sent, "{} of {sent}", row.dl_tbs);
        // No channel update came between: every TB met the same SINR.
        assert_eq!(row.dl_tb_sinr_db, ran.ues[0].sinr_db);
        let next = ran.ue_row(0, now + 40 * ran.slot());
        assert_eq!(next.dl_tbs, 0);
        assert!(next.dl_tb_sinr_db.is_nan());
    }

    #[test]
    fn block_sinr_weighs_each_block_once_and_starts_again() {
        let mut blocks = BlockSinr::default();
        blocks.add(3, 10.0);
        blocks.add(1, 30.0);
        assert_eq!(blocks.take(), (4, 15.0));
        let (none, mean) = blocks.take();
        assert!(none == 0 && mean.is_nan());
    }

    /// Under the ns3-mmwave profile a TB lands at its receiver `TbDecodeLatency` after
    /// its own last symbol (symbols of 4.16 us from the subframe's start), not at its
    /// subframe's end: the radio names the instant, and hands its data up then and
    /// not before. Downlink TBs come first in a subframe, uplink ones after them.
    #[test]
    fn a_tb_lands_a_decoding_after_its_last_symbol() {
        let mut ran = urban_ran(|_| {});
        let (sf, symbol, decode) = (ran.slot(), 4_160, ran.decode_latency);
        let d = 20 * sf;
        uplink(&mut ran, d - sf + 1, 0, ack(1)); // on the air at d + 3 sf
        ran.enqueue_downlink(d - 1, 0, packet(0)).unwrap(); // on the air at d + 2 sf
        let mut out = Vec::new();
        let mut landings = Vec::new();
        for k in 0..3 {
            ran.run_slot(d + k * sf, &mut out);
        }
        assert!(out.is_empty());
        let (dl_end, _) = ran.ues[0].slots.at(d + 2 * sf, sf).unwrap();
        let (next_dl_end, ul_start) = ran.ues[0].slots.at(d + 3 * sf, sf).unwrap();
        let at = |air: u64, symbols: u32| air + u64::from(symbols) * symbol + decode;
        let downlink = at(d + 2 * sf, dl_end.unwrap());
        assert!(downlink < d + 4 * sf, "before the subframe after it ends");
        ran.landings_within(d + 2 * sf, d + 5 * sf, &mut landings);
        landings.sort_unstable();
        // At the blind MCS 0 the data takes two TBs, the second in the subframe of the
        // ACK's TB, which starts where that downlink one ended.
        assert_eq!(ul_start, next_dl_end);
        assert_eq!(
            landings[..2],
            [downlink, at(d + 3 * sf, next_dl_end.unwrap())]
        );
        let uplink = landings[2];
        assert!(landings.len() == 3 && uplink > landings[1] && uplink < d + 5 * sf);
        assert_eq!((uplink - d - 3 * sf - decode) % symbol, 0, "a whole symbol");
        ran.hand_up_slot(downlink, &mut out);
        ran.hand_up_slot(landings[1] - 1, &mut out);
        assert!(out.is_empty(), "not before its last TB lands");
        ran.hand_up_slot(landings[1], &mut out);
        assert!(matches!(out[..], [Packet { body: Body::Data(s), .. }] if s.seq == 0));
        out.clear();
        ran.hand_up_slot(uplink, &mut out);
        assert!(matches!(out[..], [Packet { body: Body::Data(s), .. }] if s.seq == 1));
    }

    /// Under grants from buffer status reports, ACKs queued in the subframe that starts
    /// at `T` are first sent at `T` + 4 subframes, in a grant sized from that
    /// subframe's report, whose TB the UE fills a subframe before; later reports make
    /// later grants.
    #[test]
    fn uplink_packets_wait_for_the_grant_their_report_makes() {
        let mut ran = urban_ran(|_| {});
        let sf = ran.slot();
        let t = 20 * sf;
        for at in [t + 1, t + 2, t + 2 * sf + 1, t + 3 * sf + 1] {
            uplink(&mut ran, at, 0, ack(at));
        }
        let ul: Vec<u64> = tbs_per_slot(&mut ran, t + sf, 6)
            .iter()
            .map(|t| t.1)
            .collect();
        // TBs filled in slots t+1..t+6. Subframe t reported two ACKs (104 bytes): the
        // grant at t+4, three symbols at the blind MCS 0, carries those. Nothing is
        // reported for t+1, so t+5 has no grant; the report of t+2 (three ACKs queued)
        // makes the grant at t+6, which carries the rest; the report of t+3 (the
        // same last ACK) makes the grant at t+7, which finds the UE MAC's copy empty
        // and goes as padding.
        assert_eq!(ul, [0, 0, 1, 0, 1, 1]);
        assert_eq!(ran.ues[0].ul.stats.padding_tbs, 1);
        let mut out = Vec::new();
        for k in 7..12 {
            ran.run_slot(t + k * sf, &mut out);
        }
        assert_eq!(ran.ues[0].ul.stats.sdus_delivered, 4);
    }

    /// Under the multipath channel's error rule the uplink's link adaptation chooses
    /// from every MCS and the downlink's from the even ones; the wideband channel keeps
    /// the even table both ways.
    #[test]
    fn the_uplink_adapts_over_every_mcs_under_the_module_rule() {
        let mut ran = urban_ran(|r| r.ns3_mmwave.channel = profile::Ns3Channel::Multipath);
        assert_eq!((ran.table.len(), ran.ul_table.len()), (15, 29));
        let target = ran.target_bler;
        let mut odd = 0;
        for step in 0..400 {
            let ue = &mut ran.ues[0];
            let sinr = -8.0 + 0.1 * f64::from(step);
            (ue.sinr_db, ue.ul_sinr_db) = (sinr, sinr);
            let from = ran.slot * (10 + step as u64);
            adapt_link(ue, (&ran.table, &ran.ul_table), true, target, from);
            assert_eq!(ue.mcs % 2, 0, "the downlink's MCS is even");
            let ul = ue.uplink.newest();
            assert_eq!(
                ul.mcs,
                ran.ul_table.select_effective(&ul.eff_sinr_db, target)
            );
            assert!(
                ul.mcs >= ue.mcs && ul.mcs <= ue.mcs + 1,
                "{} {}",
                ue.mcs,
                ul.mcs
            );
            odd += usize::from(ul.mcs % 2 == 1);
        }
        assert!(odd > 100, "{odd} of 400 steps at an odd uplink MCS");
        let wideband = urban_ran(|_| {});
        assert_eq!((wideband.table.len(), wideband.ul_table.len()), (15, 15));
    }

    /// The CQI report on a granted uplink TB is made on the TB the grant sized, as the
    /// module's scheduler keeps it (its DCI's `m_tbSize`), not on the few bytes of
    /// ACKs the UE put in it: six symbols at MCS 10 for one ACK.
    #[test]
    fn a_granted_uplink_tb_is_reported_on_at_its_granted_size() {
        let mut ran = urban_ran(|_| {});
        let timing = ran
            .uplink_grants
            .expect("the ns3-mmwave profile grants the uplink");
        let now = 20 * ran.slot();
        ran.enqueue_uplink(now - 1, 0, ack(1)).unwrap();
        ran.ues[0].grants.schedule(now + timing.fill_lead(), 6, 10);
        let (table, prohibit, symbol) = (&ran.table, ran.status_prohibit, ran.symbol);
        let ue = &mut ran.ues[0];
        let (_, block) = granted_uplink(ue, now, table, timing, prohibit, symbol).unwrap();
        assert_eq!(block, 6 * u64::from(table.bits_per_symbol(10)) / 8);
        // The TB goes whole, its ACK of 54 bytes (with its PDCP header) in a PDU of the
        // grant less the headers.
        assert_eq!(ue.ul.stats.tx_bytes, block);
        assert_eq!(ue.ul.reportable_bytes(), 0, "the ACK left");
        assert_eq!(
            ue.ul.buffered_bytes(),
            54,
            "on its way, with its PDCP header"
        );
    }

    /// Each downlink TB polls the UE, and each poll off the status-prohibit timer makes
    /// it report its buffer again, which gives it a grant again though the first
    /// report's grant was made. Two SDUs after a silence go as three blind TBs (MCS 0)
    /// in consecutive subframes; the ACK of the second is queued when that is handed
    /// up, in the subframe after the second TB's poll. The grants of the three polls
    /// follow one another, so the ACK goes in the first two (the first carries the
    /// report beside it) and reaches the gNB 4 subframes after its own; with one
    /// grant for the first two polls it would wait for the grant its own report makes.
    #[test]
    fn every_poll_off_the_prohibit_timer_earns_the_ue_a_grant() {
        let mut ran = urban_ran(|_| {});
        let sf = ran.slot();
        let t = 20 * sf;
        for seq in [0, 1500] {
            ran.enqueue_downlink(t - 1, 0, packet(seq)).unwrap();
        }
        let mut out = Vec::new();
        let (mut acked_at, mut delivered_at) = (None, None);
        for k in 0..20 {
            let now = t + k * sf;
            out.clear();
            // The receiver answers what is handed up before the slot is scheduled.
            ran.hand_up_slot(now, &mut out);
            if acked_at.is_none() && ran.ues[0].dl.stats.sdus_delivered == 2 {
                uplink(&mut ran, now, 0, ack(9));
                acked_at = Some(k);
            }
            if delivered_at.is_none() && ran.ues[0].ul.stats.sdus_delivered == 1 {
                delivered_at = Some(k);
            }
            ran.schedule_slot(now);
        }
        assert_eq!(ran.ues[0].dl.stats.data_tbs(), 3, "three blind TBs");
        let (acked, delivered) = (acked_at.unwrap(), delivered_at.unwrap());
        assert_eq!(delivered - acked, 4, "handed up at slot {acked}");
    }

    /// UE 0's uplink TBs meet an SINR nothing decodes at, from time 0 on.
    fn kill_uplink(ran: &mut Ran) {
        let ue = &mut ran.ues[0];
        ue.uplink = AirStates::new(UplinkState {
            eff_sinr_db: flat(-30.0),
            ..ue.uplink.newest()
        });
    }

    /// The summary counts each direction's TB transmissions and failures apart: a
    /// UE whose uplink cannot decode and whose downlink can shows errors in the
    /// uplink's counts only, one per transmission (every retransmission fails too),
    /// and every block HARQ gave up on is the uplink's.
    #[test]
    fn a_ue_summary_counts_uplink_tb_errors_apart_from_the_downlink() {
        let mut ran = urban_ran(|_| {});
        let sf = ran.slot();
        let t = 20 * sf;
        kill_uplink(&mut ran);
        ran.enqueue_downlink(t - 1, 0, packet(1)).unwrap();
        uplink(&mut ran, t - 1, 0, ack(2));
        let mut out = Vec::new();
        for k in 0..40 {
            ran.run_slot(t + k * sf, &mut out);
        }
        let summary = ran.ue_summary(0, t + 40 * sf);
        assert!(summary.dl_tb_transmissions > 0);
        assert_eq!(summary.dl_tb_errors, 0);
        assert!(
            summary.ul_tb_transmissions > 1,
            "the block and its retransmissions"
        );
        assert_eq!(summary.ul_tb_errors, summary.ul_tb_transmissions);
        assert!(summary.ul_harq_failures > 0, "HARQ gave the block up");
        assert_eq!(summary.ul_harq_failures, summary.harq_failures);
    }

    /// A channel update finds the channel of the subframes decided after it, two
    /// subframes on: a drop it finds fails the downlink TBs decided from it on and the
    /// uplink TBs on the air in the same subframes. The UE fills an uplink TB a
    /// subframe before the air, so the one it fills at the update goes before the drop
    /// and decodes; the one it fills a subframe later meets the drop.
    #[test]
    fn a_drop_an_update_finds_fails_both_directions_from_the_same_air_subframe() {
        let mut ran = urban_ran(|_| {});
        let (sf, lead) = (ran.slot(), ran.channel_lead);
        assert_eq!(
            lead,
            2 * sf,
            "the module's scheduler decides two subframes ahead"
        );
        let t = 20 * sf;
        for seq in 0..400 {
            ran.enqueue_downlink(t - 1, 0, packet(seq)).unwrap();
        }
        // (TBs, failed transmissions) of each direction so far.
        let counts = |ran: &Ran| {
            let n = |s: &super::super::rlc::RlcStats| (s.tbs, s.tbs + s.harq_retx - s.tbs_decoded);
            (n(&ran.ues[0].dl.stats), n(&ran.ues[0].ul.stats))
        };
        let mut out = Vec::new();
        let mut slot = |ran: &mut Ran, now: Time| {
            uplink(ran, now, 0, ack(now));
            let before = counts(ran);
            ran.run_slot(now, &mut out);
            let after = counts(ran);
            let delta = |a: (u64, u64), b: (u64, u64)| (a.0 - b.0, a.1 - b.1);
            (delta(after.0, before.0), delta(after.1, before.1))
        };
        // An update the world makes at a slot's start: 3.3 ms, for 3.5 ms on the
        // 125 us grid.
        for k in 0..13 {
            slot(&mut ran, t + k * sf);
        }
        let update = t + 13 * sf;
        let (mut events, mut dropped) = (Vec::new(), Vec::new());
        let at = ran.update_channels(update, &mut events, &mut dropped);
        assert_eq!((at, at % ran.update_every), (update + lead, 0));
        assert_eq!(ran.next_update(update), update + ran.update_every);
        // The update found a channel nothing decodes on.
        let ue = &mut ran.ues[0];
        (ue.sinr_db, ue.ul_sinr_db) = (-30.0, -30.0);
        adapt_link(ue, (&ran.table, &ran.ul_table), true, ran.target_bler, at);
        let [(dl0, ul0), (dl1, ul1)] = [0, 1].map(|k| slot(&mut ran, update + k * sf));
        // Built at the update: the downlink TB goes on the air at `at` and fails, the
        // uplink one a subframe before and decodes.
        assert!(dl0.0 > 0 && dl0.1 == dl0.0, "{dl0:?}");
        assert!(ul0.0 > 0 && ul0.1 == 0, "{ul0:?}");
        // Filled a subframe later: the uplink TB goes on the air at `at` and fails.
        assert!(ul1.0 > 0 && ul1.1 >= ul1.0, "{ul1:?}");
        assert!(dl1.1 >= dl1.0, "{dl1:?}");
    }

    /// A walking UE's uplink meets its own fading (the module's uplink Doppler turns
    /// the other way), a standing one's the downlink's: the uplink SINR and the
    /// effective SINR of its TBs follow the channel's uplink gain.
    #[test]
    fn a_walking_ues_uplink_meets_its_own_fading() {
        // fbtcp-2's UE stands until 1 s, then walks at 1.5 m/s; at 5 dBm the SINR
        // (about 12 dB) leaves each modulation's effective SINR finite.
        let mut ran = builtin_ran("fbtcp-2", |radio| {
            radio.ns3_mmwave.gnb_tx_power_dbm = 5.0;
            radio.ns3_mmwave.ue_tx_power_dbm = 5.0;
        });
        let (mut events, mut dropped) = (Vec::new(), Vec::new());
        let power_gap_db = ran.ul_power_dbm - ran.dl_power_dbm;
        let updates = [500_000_000, 500_125_000, 1_500_000_000, 1_500_125_000];
        for (now, walking) in updates.into_iter().zip([false, false, true, true]) {
            let at = ran.update_channels(now, &mut events, &mut dropped);
            let ue = &ran.ues[0];
            let channel = &ue.channels[ue.serving];
            assert_eq!(channel.is_reciprocal(), !walking, "{now}");
            let offset_db = channel.uplink_offset_db();
            assert_eq!(offset_db != 0.0, walking, "{now}");
            assert!((ue.ul_sinr_db - ue.sinr_db - power_gap_db - offset_db).abs() < 1e-9);
            let mut want = flat(0.0);
            effective_sinrs(channel.uplink_chunk_gain_ratios(), ue.ul_sinr_db, &mut want);
            assert_eq!(ue.uplink.at(at).eff_sinr_db, want, "{now}");
            if walking {
                let mut downlink_fading = flat(0.0);
                effective_sinrs(
                    channel.chunk_gain_ratios(),
                    ue.ul_sinr_db,
                    &mut downlink_fading,
                );
                assert!(want.iter().all(|db| db.is_finite()), "{want:?}");
                assert_ne!(want, downlink_fading);
            }
        }
    }

    /// The module retransmits an uplink TB 3 subframes after it and a downlink one 4:
    /// the gNB decodes an uplink TB itself, where the UE first reports a downlink one
    /// in its uplink control symbol.
    #[test]
    fn an_uplink_retransmission_follows_its_tb_a_subframe_sooner_than_a_downlink_one() {
        let mut ran = urban_ran(|_| {});
        let sf = ran.slot();
        let t = 20 * sf;
        ran.ues[0].eff_sinr_db = flat(-30.0);
        kill_uplink(&mut ran);
        ran.enqueue_downlink(t - 1, 0, ack(1)).unwrap();
        uplink(&mut ran, t - 1, 0, ack(2));
        // The first slot each counter moves in: (new DL, DL retx, new UL, UL retx).
        let mut first = [None; 4];
        let mut out = Vec::new();
        for k in 0..12 {
            let stats = |ran: &Ran| {
                let (dl, ul) = (&ran.ues[0].dl.stats, &ran.ues[0].ul.stats);
                [dl.tbs, dl.harq_retx, ul.tbs, ul.harq_retx]
            };
            let before = stats(&ran);
            ran.run_slot(t + k * sf, &mut out);
            for (slot, (now, was)) in first.iter_mut().zip(stats(&ran).iter().zip(before)) {
                if *now > was {
                    slot.get_or_insert(k);
                }
            }
        }
        let [dl, dl_retx, ul, ul_retx] = first.map(Option::unwrap);
        assert_eq!((dl_retx - dl, ul_retx - ul), (4, 3));
    }

    /// The scheduler decides a subframe's uplink grants with its downlink, two
    /// subframes ahead: they share its data symbols, the uplink TBs after the
    /// downlink ones, and an uplink grant takes symbols from the downlink of the
    /// subframe it is on the air in.
    #[test]
    fn a_subframes_uplink_grants_share_its_symbols_with_its_downlink() {
        let mut ran = urban_ran(|_| {});
        let sf = ran.slot();
        let d = 20 * sf;
        // Reported in the subframe ending at d: granted at d + sf for d + 3 sf.
        uplink(&mut ran, d - sf + 1, 0, ack(1));
        for seq in 0..40 {
            ran.enqueue_downlink(d - 1, 0, packet(seq * 1500)).unwrap();
        }
        let mut out = Vec::new();
        let mut layouts = Vec::new();
        for k in 0..4 {
            let ul = ran.ues[0].ul.stats.tbs;
            ran.run_slot(d + k * sf, &mut out);
            let air = d + (k + 2) * sf;
            let (dl_end, last_start) = ran.ues[0].slots.at(air, sf).expect("laid out");
            layouts.push((dl_end, last_start, ran.ues[0].ul.stats.tbs - ul));
        }
        let symbols = FIRST_DATA_SYMBOL + ran.data_symbols;
        // Subframes d + 2 sf .. d + 5 sf: the downlink fills d + 2 sf; in d + 3 sf the
        // uplink TB comes after a downlink shortened for it; the UE fills it at d + 2 sf.
        assert_eq!(layouts[0], (Some(symbols), Some(FIRST_DATA_SYMBOL), 0));
        let (dl_end, ul_start, _) = layouts[1];
        assert_eq!(ul_start, dl_end, "the uplink TB follows the downlink one");
        assert!(dl_end.unwrap() < symbols, "{layouts:?}");
        assert_eq!(layouts[2], (Some(symbols), Some(FIRST_DATA_SYMBOL), 1));
        assert_eq!(layouts[3].2, 0);
    }

    /// A UE's report on a downlink TB leaves in the control symbol of the subframe the
    /// TB reached it in when one of its slots there starts at or after the symbol the
    /// TB ended at, so its grant comes a subframe earlier; otherwise it leaves in the
    /// next subframe's.
    #[test]
    fn a_report_after_a_later_slot_of_the_ue_is_granted_a_subframe_earlier() {
        for long_downlink in [false, true] {
            let mut ran = urban_ran(|_| {});
            let sf = ran.slot();
            let d = 20 * sf;
            // An uplink grant for d + 3 sf; a short downlink TB on the air at d + 2 sf
            // (one packet), handed up at d + 4 sf; with `long_downlink`, a long one at
            // d + 3 sf puts the uplink TB after the symbol the short one ended at.
            uplink(&mut ran, d - sf + 1, 0, ack(1));
            ran.enqueue_downlink(d - 1, 0, ack(7)).unwrap();
            let mut out = Vec::new();
            ran.run_slot(d, &mut out);
            if long_downlink {
                for seq in 0..40 {
                    ran.enqueue_downlink(d + 1, 0, packet(10_000 + seq * 1500))
                        .unwrap();
                }
            }
            for k in 1..4 {
                ran.run_slot(d + k * sf, &mut out);
            }
            // The UE's ACK at the hand-up reaches the radio before the slot's schedule.
            let b = d + 4 * sf;
            ran.hand_up_slot(b, &mut out);
            assert!(
                out.iter()
                    .any(|p| matches!(p.body, Body::Data(s) if s.seq == 7))
            );
            let early = ran.ues[0].grants.sends_early_at == Some(b);
            assert_eq!(early, long_downlink);
            uplink(&mut ran, b, 0, ack(2));
            ran.schedule_slot(b);
            let ul: Vec<u64> = tbs_per_slot(&mut ran, b + sf, 3)
                .iter()
                .map(|t| t.1)
                .collect();
            // TBs filled a subframe before they go on the air. Sent early, the first
            // TB takes what the UE holds; with the long downlink a later grant finds
            // the UE MAC's copy emptied by it, and the UE sends that grant empty.
            let want = if long_downlink { [1, 0, 1] } else { [0, 1, 0] };
            assert_eq!(ul, want, "long downlink: {long_downlink}");
            let padding = ran.ues[0].ul.stats.padding_tbs;
            assert_eq!(
                padding,
                u64::from(long_downlink),
                "long downlink: {long_downlink}"
            );
        }
    }

    /// With `uplink_grants = "delay"` each packet goes in the first slot
    /// `uplink_grant_delay_s` after its arrival instead.
    #[test]
    fn uplink_packets_wait_a_fixed_delay_without_reports() {
        let mut ran = urban_ran(|r| {
            r.ns3_mmwave.uplink_grants = profile::UplinkGrantModel::Delay;
            r.uplink_grant_delay_s = 0.00025;
        });
        let sf = ran.slot();
        let t = 20 * sf;
        uplink(&mut ran, t, 0, ack(1));
        let ul: Vec<u64> = tbs_per_slot(&mut ran, t, 5).iter().map(|t| t.1).collect();
        assert_eq!(ul, [0, 0, 0, 1, 0]);
    }

    /// The scheduler keeps a UE's uplink CQI as it keeps the downlink one: after a
    /// silence the first uplink TBs go at MCS 0 until the report on the first arrives.
    #[test]
    fn uplink_tbs_after_a_silence_go_blind() {
        let mut ran = urban_ran(|_| {});
        let sf = ran.slot();
        let t = 20 * sf;
        let expiry = ran.cqi_expiry;
        let reported = ran.ues[0].uplink.newest().mcs;
        assert!(reported > 0);
        assert_eq!(ran.ues[0].ul_cqi.mcs(t, reported, expiry), 0);
        uplink(&mut ran, t + 1, 0, ack(1));
        tbs_per_slot(&mut ran, t + sf, 4); // the TB goes at t + 4
        let mcs = |ran: &Ran, k: u64| ran.ues[0].ul_cqi.mcs(t + k * sf, reported, expiry);
        assert_eq!((mcs(&ran, 5), mcs(&ran, 6), mcs(&ran, 7)), (0, 0, reported));
    }

    /// A status report with no data to go beside still needs a TB: after a silence the
    /// UE's report on the first downlink TB goes alone in one uplink symbol, through a
    /// buffer status report and its grant, and the report the gNB owes on the UE's
    /// first uplink TB gets a downlink symbol. Each refreshes that direction's CQI.
    #[test]
    fn status_reports_without_data_get_transport_blocks_of_their_own() {
        let mut ran = urban_ran(|_| {});
        let sf = ran.slot();
        let t = 20 * sf;
        let (expiry, dl_reported, ul_reported) = (
            ran.cqi_expiry,
            ran.ues[0].mcs,
            ran.ues[0].uplink.newest().mcs,
        );
        let ul_mcs = |ran: &Ran, at: Time| ran.ues[0].ul_cqi.mcs(at, ul_reported, expiry);
        let dl_mcs = |ran: &Ran, at: Time| ran.ues[0].dl_cqi.mcs(at, dl_reported, expiry);
        // Built at t, on the air at t + 2, handed up to the UE at t + 4 with its request
        // for a report; the report's grant comes 3 subframes after.
        ran.enqueue_downlink(t - 1, 0, ack(7)).unwrap();
        let mut out = Vec::new();
        for k in 0..6 {
            ran.run_slot(t + k * sf, &mut out);
        }
        assert_eq!(out.len(), 1, "the packet was handed up");
        assert_eq!(ul_mcs(&ran, t + 20 * sf), 0, "no uplink TB yet");
        ran.run_slot(t + 6 * sf, &mut out); // fills the TB of t + 7
        assert_eq!(ran.ues[0].ul.stats.data_tbs(), 0, "no uplink data was sent");
        assert_eq!(ran.ues[0].ul.stats.report_tbs, 1, "a TB for the report");
        assert_eq!(
            ul_mcs(&ran, t + 10 * sf),
            ul_reported,
            "the report's TB at t + 7"
        );
        // That TB carried no data, so it asks the gNB for nothing; the downlink's last
        // TB was at t, its CQI report expires after 10 ms.
        let dl_tbs = ran.ues[0].dl.stats.data_tbs();
        for k in 8..30 {
            ran.run_slot(t + k * sf, &mut out);
        }
        assert_eq!(ran.ues[0].dl.stats.data_tbs(), dl_tbs);
        assert!(!ran.ues[0].needs_slots(), "nothing is owed");
        // An uplink ACK: its TB at u + 4, handed up to the gNB at u + 6, whose report
        // then takes a downlink symbol of its own.
        let u = 120 * sf;
        assert_eq!(
            dl_mcs(&ran, u + 9 * sf),
            0,
            "the downlink report has expired"
        );
        uplink(&mut ran, u + 1, 0, ack(8));
        for k in 1..7 {
            ran.run_slot(u + k * sf, &mut out);
        }
        assert_eq!(ran.ues[0].ul.stats.sdus_delivered, 1);
        assert_eq!(
            dl_mcs(&ran, u + 9 * sf),
            dl_reported,
            "the report's TB at u + 6"
        );
        assert_eq!(ran.ues[0].dl.stats.data_tbs(), dl_tbs, "it carried no data");
    }

    /// What UE 0 shows at each slot's end: (DL data TBs, DL ARQ bytes, UL data TBs, UL ARQ
    /// bytes, the gNB owes a report, the UE owes one, the UE needs slots).
    type BurstRow = (u64, u64, u64, u64, bool, bool, bool);

    /// A burst of six downlink packets queued just before `t` (slot 20), the UE
    /// acknowledging every second one at once; 100 slots from `t`.
    fn burst_end(buffer_status_timer_s: f64) -> Vec<BurstRow> {
        let mut ran = urban_ran(|r| r.ns3_mmwave.buffer_status_timer_s = buffer_status_timer_s);
        let t = 20 * ran.slot();
        for k in 0..6 {
            ran.enqueue_downlink(t - 1, 0, packet(1500 * k)).unwrap();
        }
        let (mut out, mut acked, mut rows) = (Vec::new(), 0, Vec::new());
        for k in 0..100 {
            let now = t + k * ran.slot();
            ran.hand_up_slot(now, &mut out);
            while acked + 2 <= ran.ues[0].dl.stats.sdus_delivered {
                acked += 2;
                uplink(&mut ran, now, 0, ack(acked));
            }
            ran.schedule_slot(now);
            let u = &ran.ues[0];
            rows.push((
                u.dl.stats.data_tbs(),
                u.dl.stats.arq_bytes,
                u.ul.stats.data_tbs(),
                u.ul.stats.arq_bytes,
                u.reports.gnb.owes(),
                u.reports.ue.owes(),
                u.needs_slots(),
            ));
        }
        rows
    }

    /// The end of a burst, as in the module's trace of a TCP flow's slow start: the
    /// last downlink PDUs poll the UE under its prohibit timer and the last ACKs poll
    /// the gNB under its own, so both reports are owed unannounced. The gNB's
    /// buffer-status timer announces its report 4 ms after its last SDU (slot 40), in
    /// a symbol of its own; its poll-retransmit timer, 4 ms after its last PDU (slot
    /// 9), sends what the UE's report did not acknowledge again, whose poll makes the
    /// UE announce its report, which goes in the grant it earns and acknowledges the
    /// retransmission when it lands, two subframes after the UE fills its TB. Nothing
    /// new is sent and, once both reports are in, nothing is owed.
    #[test]
    fn the_timers_send_the_reports_a_burst_left_owed() {
        let rows = burst_end(0.004);
        let first = |f: &dyn Fn(&BurstRow) -> bool| rows.iter().position(f).unwrap();
        assert_eq!(rows[9].0, 5, "the burst's last TB");
        let gnb_owes_from = first(&|r| r.4);
        assert!(
            rows[gnb_owes_from..40].iter().all(|r| r.4),
            "owed to slot 40"
        );
        assert!(!rows[40].4, "the gNB's timer expires at t - 1 + 4 ms");
        assert_eq!(first(&|r| r.1 > 0), 49, "the retransmission at 9 + 40");
        assert!(rows[48].5 && !rows[55].5, "the UE's report follows it");
        let settled = first(&|r| !r.6);
        let sent = 48 + rows[48..].iter().position(|r| !r.5).unwrap();
        assert_eq!(
            settled,
            sent + 2,
            "settled at {settled}, the report sent at {sent}"
        );
        assert_eq!(rows[99].0, 6, "one TB more: the retransmission");
        assert_eq!(rows[99].3, 0, "the gNB's report acknowledged every ACK");
        assert!(rows[settled..].iter().all(|r| !r.4 && !r.5 && !r.6));
    }

    /// Without the buffer-status timer the gNB's report waits for its poll-retransmit
    /// timer, 4 ms after its last TB (slot 3 with the real queue sizing every block),
    /// whose expiry reports the buffer: the announced report goes beside the
    /// retransmission.
    #[test]
    fn without_the_buffer_status_timer_the_gnb_report_goes_with_the_poll_retransmission() {
        let rows = burst_end(0.0);
        assert_eq!(rows[3].0, 4, "the burst's last TB");
        assert!(rows[42].4 && !rows[43].4, "the report at 3 + 40");
        assert_eq!(rows[42].1, 0);
        assert!(rows[43].1 > 0, "the retransmission beside it");
        assert!(rows[55..].iter().all(|r| !r.4 && !r.5 && !r.6));
    }
}
