//! The `ns3-mmwave` profile ([`Ns3MmwaveParams`]): the source papers' ns-3 mmWave
//! module as docs/model.md ("The `ns3-mmwave` profile's numbers") summarises it: LoS
//! path loss 61.4 + 20 log10(d) at 28 GHz
//! (`BuildingsObstaclePropagationLossModel::mmWaveLosLoss`, ns3-mmwave
//! `src/mmwave/model/buildings-obstacle-propagation-loss-model.cc`), blocked links get
//! the measured blockage ramp of the same file (`g_blockage_down` / `g_blockage_up`,
//! driven by `MmWaveLosTracker`), and a beamforming + fading gain redrawn every
//! 100 ms, either wideband with the distribution of that table (`channel =
//! "wideband"`) or the module's frequency-selective 20-path gain (`channel =
//! "multipath"`, `multipath.rs`). Noise is counted over the whole band; the slot grid
//! and MCS table are the module's.

use super::{ChannelModel, Gain, Profile, Update, finite, link_budget, non_negative, positive};
use crate::engine::{Rng, RngExt, Time, from_secs};
use crate::radio::cqi::CqiExpiry;
use crate::radio::geometry::{LosTest, Point};
use crate::radio::grants::GrantTiming;
use crate::radio::mcs::{McsTable, Numerology, thermal_noise_dbm};
use crate::radio::multipath::{Multipath, draw_amplitudes, relative_speed};
use crate::radio::propagation::std_normal;
use serde::{Deserialize, Serialize};

/// The `ns3-mmwave` profile; defaults = docs/model.md's "`ns3-mmwave` profile's numbers".
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Ns3MmwaveParams {
    /// Carrier (Hz). The module's LoS model knows 28 GHz (61.4 dB intercept) and 73 GHz
    /// (69.8 dB); nothing else is accepted.
    pub carrier_hz: f64,
    /// Bandwidth (Hz): 1 GHz = 72 chunks x 13.889 MHz.
    pub bandwidth_hz: f64,
    /// Transmit power of the gNB.
    pub gnb_tx_power_dbm: f64,
    /// Transmit power of the UE (its ACKs).
    pub ue_tx_power_dbm: f64,
    /// Receiver noise figure; noise is counted over the whole bandwidth.
    pub noise_figure_db: f64,
    /// Steady extra loss while blocked (dB): the last sample used of the module's
    /// `g_blockage_down` trace (sample 340: -35.964785 dB).
    pub blockage_loss_db: f64,
    /// Duration of the drop and of the recovery ramp (s). The module advances one trace
    /// sample per channel evaluation over 340 samples; the reference network reads this as about
    /// 40 ms. 0 = instantaneous step.
    pub blockage_ramp_s: f64,
    /// Mean of the beamforming + fading gain (dB), drawn anew every `bf_redraw_s` from
    /// a distribution with this mean, percentiles and extremes (reference network: mean
    /// 28.2, 10-90% 24.6-30.7, extremes 20-32).
    pub bf_gain_mean_db: f64,
    /// 10th percentile of the beamforming + fading gain.
    pub bf_gain_p10_db: f64,
    /// 90th percentile of that gain.
    pub bf_gain_p90_db: f64,
    /// Smallest value of that gain.
    pub bf_gain_min_db: f64,
    /// Largest value of that gain.
    pub bf_gain_max_db: f64,
    /// Redraw period of that gain (s), independent of position (reference network: 100 ms).
    pub bf_redraw_s: f64,
    /// How the beamforming + fading gain is modelled: `wideband` (one gain per redraw
    /// from the distribution above) or `multipath` (the module's 20-path,
    /// 72-chunk frequency-selective gain with Doppler, see `multipath.rs`; the
    /// `bf_gain_*` keys are then unused).
    pub channel: Ns3Channel,
    /// Subframes the scheduler keeps a downlink CQI report
    /// (`MmWaveFlexTtiMacScheduler::CqiTimerThreshold`; 100 = 10 ms). The UE reports
    /// on each downlink TB, so after a longer downlink silence the next TBs go at
    /// MCS 0 until the report on the first of them arrives, 3 subframes later.
    /// 0 keeps no report: every TB at MCS 0, as in the module.
    pub cqi_timer_subframes: u32,
    /// RLC AM status-prohibit timer (s), `LteRlcAm::StatusProhibitTimer`: a status
    /// report requested while it runs takes the next data transmission opportunity of
    /// the opposite direction alone. 1 ms as in the module's TCP examples and the
    /// FB-TCP scripts (the attribute's own default is 10 ms); 0 = never.
    pub status_prohibit_s: f64,
    /// RLC AM receiver's reordering timer (s), `LteRlcAm::ReorderingTimer` (10 ms; the
    /// FB-TCP scripts leave it): the module's MAC does not tell the RLC that HARQ gave
    /// up on a TB, so its bytes go again after the status report this timer's expiry
    /// triggers, or, if the sender runs out of data first, after its poll-retransmit
    /// timer (`radio.rlc_retx_delay_s`), `radio/arq.rs`. 0: the bytes go
    /// `radio.rlc_retx_delay_s` after HARQ gives up.
    pub reordering_timer_s: f64,
    /// Subframes the scheduler works ahead (`MmWavePhyMacCommon::L1L2CtrlLatency`, 2):
    /// downlink data leaves the RLC buffer at the next subframe start and goes on the
    /// air this much later, a CQI report first sets the MCS this plus one subframe
    /// after its TB, and an uplink buffer status report the grants this plus two
    /// subframes after it is sent.
    pub l1l2_ctrl_latency_subframes: u32,
    /// Subframes from the end of a TB on the air to its data reaching the receiver's
    /// RLC, both ways (`MmWavePhyMacCommon::TbDecodeLatency`, 100 us): SDUs, the status
    /// reports a TB asks for and the buffer status reports of the ACKs it makes follow
    /// this much later.
    pub tb_decode_latency_subframes: u32,
    /// How a UE gets to send on the uplink: `bsr` as the module (grants from its buffer
    /// status reports, `radio/grants.rs`), or `delay` (every SDU waits
    /// `radio.uplink_grant_delay_s`, then goes in the next slot).
    pub uplink_grants: UplinkGrantModel,
    /// Downlink TBs carry the module's headers, and its scheduler sizes them from its
    /// own copy of the RLC queue (`radio/headers.rs`): each SDU is the IP packet plus
    /// a 2-byte PDCP header; a TB's new data is one RLC PDU with a 4-byte header and
    /// a Length Indicator (2 and 1 bytes in turn) per SDU piece but the last, behind
    /// a MAC subheader of 2 or 3 bytes; the scheduler asks for its copy of the queue
    /// (at least 8 bytes) plus 17 and deducts each grant less 6 bytes, so a few bytes
    /// of a burst's last SDU can wait for the RLC's next buffer status report.
    /// false: a TB carries the RLC queue's bytes alone and is sized from the real
    /// queue.
    pub downlink_headers: bool,
    /// Uplink TBs carry the module's headers, and the UE's MAC fills each grant whole
    /// from its own copy of the RLC queue (`radio/headers.rs`): each SDU is the IP
    /// packet plus a 2-byte PDCP header; the RLC's opportunity is the TB less its MAC
    /// subheader (2 or 3 bytes) and one byte more, cut into one RLC PDU as on the
    /// downlink; the MAC's copy is the RLC's last buffer status report less each TB it
    /// filled (less 2 bytes), and while it is empty a grant goes as padding. Only
    /// under `uplink_grants = "bsr"`. false: a TB carries the RLC queue's bytes alone.
    pub uplink_headers: bool,
    /// Period of the RLC's buffer-status timer (s), `LteRlcAm::ReportBufferStatusTimer`
    /// (4 ms in the FB-TCP scripts; the attribute's default is 20 ms): it reports the
    /// queue to the scheduler this long after the last SDU arrived, and again every
    /// period while the RLC holds data or unacknowledged PDUs. New SDUs and, off the
    /// status-prohibit timer, polled PDUs from the UE report it too. Each expiry also
    /// announces a status report the RLC owes, at either end (`radio/status.rs`). 0:
    /// no timer; the scheduler's copy is the real queue at every decision.
    pub buffer_status_timer_s: f64,
    /// A status report that HARQ delayed until a newer one overtook it is misread as
    /// acknowledging everything sent, as the module's `LteRlcAm` compares sequence
    /// numbers modulo 1024 from VT(A) (`radio/acks.rs`): what HARQ then gives up on
    /// is never sent again, and that direction of the bearer stalls for good. A
    /// defect of the module rather than a behaviour of a radio, so off by default
    /// (such a report is ignored, as 3GPP TS 36.322 has it); `wavecc validate
    /// ns3-mmwave` turns it on to compare with the module.
    pub misread_overtaken_reports: bool,
    /// A transmission made after the UE's path clears a finished blockage but before
    /// the next channel update meets the loss of an unblocked link, and its CQI report
    /// asks for that SINR's MCS: the module's `GetLoss` judges LoS at each
    /// transmission but reads the `MmWaveLosTracker` counters, which its eNB advances
    /// only at the updates (`MmWaveEnbPhy::CallPathloss`, every 125 us); until then
    /// the recovery counter is 0 and `GetLoss` reads the sample before the recovery
    /// trace's first (`g_blockage_up[-1]`, out of bounds; 0.0 in the module's build,
    /// the padding before the array). A defect of the module, so off by default (the
    /// recovery starts at the next update, at the trace's first sample); `wavecc
    /// validate ns3-mmwave` turns it on. Other changes of the LoS state between
    /// updates read the trace within one sample of the next update's value, and take
    /// effect at that update.
    pub misread_blockage_exit: bool,
    /// RLC AM retransmits what its peer NACKs PDU by PDU, as the module's `LteRlcAm`:
    /// one PDU per transport block and nothing beside it, whole when the block holds
    /// it, else a first segment filling the block and the rest in the next ones
    /// (`radio/segments.rs`). false: any byte range, as many as a block holds, beside
    /// new data.
    pub rlc_retransmits_pdus: bool,
    /// The receiver places a retransmitted PDU's segments as the module's
    /// `LteRlcAm::DoReceivePdu` does: only from offset 0 and in order (a segment out
    /// of order erases the part held), and a whole PDU that arrives while it holds a
    /// part is discarded as a duplicate. When HARQ reorders a retransmission's
    /// segments, or loses a later one, the PDU never completes and that direction of
    /// the bearer stalls for good. A defect of the module, so off by default; `wavecc
    /// validate ns3-mmwave` turns it on. Implies `rlc_retransmits_pdus`.
    pub misplace_segments: bool,
}

/// How a UE of the `ns3-mmwave` profile gets uplink grants.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum UplinkGrantModel {
    /// The module's buffer status reports and grants.
    #[default]
    Bsr,
    /// A fixed delay per SDU (`radio.uplink_grant_delay_s`).
    Delay,
}

/// The ns3-mmwave profile's beamforming + fading gain model.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Ns3Channel {
    /// One wideband gain per redraw; TBs see a flat channel.
    #[default]
    Wideband,
    /// Per-chunk gains; MCS choice and TB errors from the chunks' mutual information.
    Multipath,
}

impl Default for Ns3MmwaveParams {
    fn default() -> Self {
        Ns3MmwaveParams {
            carrier_hz: 28e9,
            bandwidth_hz: 1e9,
            gnb_tx_power_dbm: 30.0,
            ue_tx_power_dbm: 30.0,
            noise_figure_db: 5.0,
            blockage_loss_db: NS3_TRACE_STEADY_DB,
            blockage_ramp_s: 0.04,
            bf_gain_mean_db: 28.2,
            bf_gain_p10_db: 24.6,
            bf_gain_p90_db: 30.7,
            bf_gain_min_db: 20.0,
            bf_gain_max_db: 32.0,
            bf_redraw_s: 0.1,
            channel: Ns3Channel::Wideband,
            cqi_timer_subframes: 100,
            status_prohibit_s: 0.001,
            reordering_timer_s: 0.01,
            l1l2_ctrl_latency_subframes: 2,
            tb_decode_latency_subframes: 1,
            uplink_grants: UplinkGrantModel::Bsr,
            downlink_headers: true,
            uplink_headers: true,
            buffer_status_timer_s: 0.004,
            misread_overtaken_reports: false,
            misread_blockage_exit: false,
            rlc_retransmits_pdus: false,
            misplace_segments: false,
        }
    }
}

/// The module's steady blocked value: `g_blockage_down[339]` = -35.964785 dB.
pub const NS3_TRACE_STEADY_DB: f64 = 35.964785;

impl Ns3MmwaveParams {
    /// LoS intercept (dB) of `alpha + 20 log10(d)`: `mmWaveLosLoss` in
    /// `buildings-obstacle-propagation-loss-model.cc` (28 GHz: 61.4, 73 GHz: 69.8; both
    /// are free-space loss at 1 m, 20 log10(4 pi / lambda)).
    pub fn los_intercept_db(&self) -> Option<f64> {
        if self.carrier_hz == 28e9 {
            Some(61.4)
        } else if self.carrier_hz == 73e9 {
            Some(69.8)
        } else {
            None
        }
    }

    /// Median of the beamforming-gain distribution, chosen so that the piecewise-linear
    /// quantile function through (0, min), (0.1, p10), (0.5, median), (0.9, p90),
    /// (1, max) has the requested mean: mean = 0.05 min + 0.25 p10 + 0.4 median +
    /// 0.25 p90 + 0.05 max. Defaults: (28.2 - 1 - 6.15 - 7.675 - 1.6) / 0.4 = 29.4375 dB
    /// (left-skewed, as a gain capped by the array size should be).
    pub fn bf_gain_median_db(&self) -> f64 {
        (self.bf_gain_mean_db
            - 0.05 * self.bf_gain_min_db
            - 0.25 * self.bf_gain_p10_db
            - 0.25 * self.bf_gain_p90_db
            - 0.05 * self.bf_gain_max_db)
            / 0.4
    }
}

/// Trace samples per ramp (`g_nlosSamplesTrace` in `mmwave-los-tracker.cc`).
const NS3_TRACE_SAMPLES: f64 = 340.0;
/// The module's OFDM symbol, `MmWavePhyMacCommon::SymbolPeriod` (4.16 us; 24 of them
/// nearly fill its 100 us subframe).
const SYMBOL_PERIOD: Time = 4_160;

/// Excess loss (dB, positive) during the drop phase versus trace sample n (0..340):
/// a piecewise-linear fit through samples of the module's `g_blockage_down` trace
/// (negated). The first ~170 samples fluctuate within +-1.4 dB around 0 and are set to
/// 0; then a roughly linear fall to 30.7 dB at sample 307, an oscillation with peaks of
/// 40.8 and 44.2 dB, ending at the steady 35.96 dB at sample 340.
const NS3_DOWN_KNOTS: [(f64, f64); 19] = [
    (0.0, 0.0),
    (170.0, 0.0),
    (180.0, 1.80),
    (200.0, 5.35),
    (220.0, 9.94),
    (240.0, 12.53),
    (260.0, 16.35),
    (280.0, 19.98),
    (290.0, 22.37),
    (300.0, 25.35),
    (307.0, 30.72),
    (310.0, 29.05),
    (315.0, 40.79),
    (319.0, 31.59),
    (324.0, 44.18),
    (328.0, 31.62),
    (332.0, 42.50),
    (337.0, 29.03),
    (340.0, NS3_TRACE_STEADY_DB),
];

/// Excess loss (dB) during the recovery ("raise") phase versus trace position u:
/// piecewise-linear fit through samples of `g_blockage_up` (negated): starts at 44.6 dB,
/// oscillates 28-44 dB for ~35 samples, falls to ~25 dB by sample 48, then to 0 by
/// sample 141; 0 afterwards (the remaining samples fluctuate within +-1.4 dB).
const NS3_UP_KNOTS: [(f64, f64); 23] = [
    (0.0, 44.63),
    (2.0, 41.48),
    (5.0, 32.19),
    (9.0, 43.80),
    (14.0, 30.04),
    (19.0, 42.31),
    (23.0, 33.44),
    (26.0, 38.01),
    (31.0, 28.53),
    (35.0, 30.00),
    (40.0, 26.25),
    (43.0, 27.09),
    (48.0, 24.95),
    (58.0, 25.71),
    (60.0, 24.70),
    (70.0, 19.38),
    (80.0, 16.58),
    (90.0, 15.57),
    (100.0, 13.34),
    (110.0, 9.47),
    (120.0, 5.53),
    (130.0, 2.40),
    (141.0, 0.0),
];

/// Piecewise-linear interpolation; constant beyond the ends.
fn interp(knots: &[(f64, f64)], x: f64) -> f64 {
    let n = knots.partition_point(|k| k.0 <= x);
    if n == 0 {
        return knots[0].1;
    }
    if n == knots.len() {
        return knots[n - 1].1;
    }
    let (x0, y0) = knots[n - 1];
    let (x1, y1) = knots[n];
    y0 + (y1 - y0) * (x - x0) / (x1 - x0)
}

/// The quantile function of the beamforming + fading gain: (0, min), (0.1, p10),
/// (0.5, median), (0.9, p90), (1, max), linear in between.
fn bf_quantile_knots(p: &Ns3MmwaveParams) -> [(f64, f64); 5] {
    [
        (0.0, p.bf_gain_min_db),
        (0.1, p.bf_gain_p10_db),
        (0.5, p.bf_gain_median_db()),
        (0.9, p.bf_gain_p90_db),
        (1.0, p.bf_gain_max_db),
    ]
}

impl Profile for Ns3MmwaveParams {
    fn validate(&self) -> Result<(), String> {
        if self.los_intercept_db().is_none() {
            return Err(format!(
                "carrier_hz = {}: must be 28e9 or 73e9 (the mmWave module's LoS model knows only these)",
                self.carrier_hz
            ));
        }
        link_budget(
            self.bandwidth_hz,
            self.gnb_tx_power_dbm,
            self.ue_tx_power_dbm,
            self.noise_figure_db,
        )?;
        non_negative("blockage_loss_db", self.blockage_loss_db)?;
        non_negative("blockage_ramp_s", self.blockage_ramp_s)?;
        positive("bf_redraw_s", self.bf_redraw_s)?;
        for (k, v) in [
            ("bf_gain_mean_db", self.bf_gain_mean_db),
            ("bf_gain_p10_db", self.bf_gain_p10_db),
            ("bf_gain_p90_db", self.bf_gain_p90_db),
            ("bf_gain_min_db", self.bf_gain_min_db),
            ("bf_gain_max_db", self.bf_gain_max_db),
        ] {
            finite(k, v)?;
        }
        let m = self.bf_gain_median_db();
        if !(self.bf_gain_min_db <= self.bf_gain_p10_db
            && self.bf_gain_p10_db <= m
            && m <= self.bf_gain_p90_db
            && self.bf_gain_p90_db <= self.bf_gain_max_db)
        {
            return Err(format!(
                "bf_gain_mean_db = {}: with min {} / p10 {} / p90 {} / max {} it needs a median of {m:.2} dB, \
                 which must lie between p10 and p90 (and min <= p10 <= p90 <= max)",
                self.bf_gain_mean_db,
                self.bf_gain_min_db,
                self.bf_gain_p10_db,
                self.bf_gain_p90_db,
                self.bf_gain_max_db
            ));
        }
        Ok(())
    }

    /// The module's 2D test.
    fn default_los_test(&self) -> LosTest {
        LosTest::Ns32d
    }

    /// The module's eNB re-evaluates every pair's LoS state, blockage trace sample and
    /// path loss every 125 us (`MmWaveEnbPhy::CallPathloss`), and each TB's beamforming
    /// and fading gain at the TB's own time: a 1 ms hold would give a TB's HARQ attempts
    /// one SINR where the module's see a moving ramp and turning paths.
    fn default_channel_update_s(&self) -> f64 {
        125e-6
    }

    /// Over the whole 1 GHz: -79 dBm, the reference network's.
    fn noise_dbm(&self) -> f64 {
        thermal_noise_dbm(self.bandwidth_hz, self.noise_figure_db)
    }

    fn tx_power_dbm(&self, downlink: bool) -> f64 {
        if downlink {
            self.gnb_tx_power_dbm
        } else {
            self.ue_tx_power_dbm
        }
    }

    fn numerology(&self) -> Numerology {
        Numerology::NS3_MMWAVE
    }

    /// The module's scheduler keeps a CQI report `cqi_timer_subframes` subframes
    /// (`radio/cqi.rs`).
    fn cqi_expiry(&self) -> Option<CqiExpiry> {
        Some(CqiExpiry::ns3_mmwave(
            self.cqi_timer_subframes,
            self.l1l2_ctrl_latency_subframes,
            Numerology::NS3_MMWAVE.slot,
        ))
    }

    /// The module's uplink: grants from buffer status reports (`radio/grants.rs`).
    fn uplink_grants(&self) -> Option<GrantTiming> {
        (self.uplink_grants == UplinkGrantModel::Bsr).then(|| {
            GrantTiming::ns3_mmwave(
                self.l1l2_ctrl_latency_subframes,
                Numerology::NS3_MMWAVE.slot,
            )
        })
    }

    /// The scheduler, triggered at each subframe start, schedules the subframe
    /// `L1L2CtrlLatency` ahead, and the MAC takes the TB's data out of the RLC buffer
    /// then: data arriving during a subframe leaves the buffer at the next start and
    /// goes on the air that many subframes later.
    fn downlink_lead(&self) -> Time {
        u64::from(self.l1l2_ctrl_latency_subframes) * Numerology::NS3_MMWAVE.slot
    }

    /// The module's PHYs hand a decoded TB to the MAC `TbDecodeLatency` after its
    /// reception ends (`MmWaveUePhy::PhyDataPacketReceived`,
    /// `MmWaveEnbPhy::PhyDataPacketReceived`).
    fn decode_latency(&self) -> Time {
        u64::from(self.tb_decode_latency_subframes) * Numerology::NS3_MMWAVE.slot
    }

    /// The module's PHYs send each slot's TB over its own symbols
    /// (`MmWaveEnbPhy::StartSlot`: from `symStart` for `numSym` symbols of
    /// `SymbolPeriod`, 4.16 us) and the receiver's reception ends with the TB
    /// (`MmWaveSpectrumPhy::EndRxData`): a TB of the first few symbols is decoded most of
    /// a subframe before one that fills it.
    fn symbol_period(&self) -> Option<Time> {
        Some(SYMBOL_PERIOD)
    }

    /// The module's PDCP, RLC AM and MAC headers and its scheduler's copy of the queue.
    fn downlink_headers(&self) -> bool {
        self.downlink_headers
    }

    /// The module's headers on the uplink, in TBs its UE's MAC fills whole (only
    /// under its grants: the other model has no grant to fill).
    fn uplink_headers(&self) -> bool {
        self.uplink_headers && self.uplink_grants == UplinkGrantModel::Bsr
    }

    /// The module's RLC AM reports its buffer when its buffer-status timer expires
    /// (`LteRlcAm::ExpireRbsTimer`).
    fn buffer_status_timer(&self) -> Option<Time> {
        (self.buffer_status_timer_s > 0.0).then(|| from_secs(self.buffer_status_timer_s))
    }

    /// The module's RLC AM: a report requested under the prohibit timer takes the
    /// next data opportunity alone.
    fn status_prohibit(&self) -> Option<Time> {
        Some(from_secs(self.status_prohibit_s))
    }

    /// The module's RLC AM misreads a status report overtaken by a newer one.
    fn misreads_overtaken_reports(&self) -> bool {
        self.misread_overtaken_reports
    }

    /// The module's RLC AM retransmits PDU by PDU.
    fn retransmits_pdus(&self) -> bool {
        self.rlc_retransmits_pdus || self.misplace_segments
    }

    /// The module's RLC AM receiver places segments only in order.
    fn misplaces_segments(&self) -> bool {
        self.misplace_segments
    }

    /// The module's RLC AM repairs what HARQ gave up on through its receiver's
    /// reordering timer (its MAC's HARQ-failure notice is empty).
    fn reordering_timer(&self) -> Option<Time> {
        (self.reordering_timer_s > 0.0).then(|| from_secs(self.reordering_timer_s))
    }

    /// The frequency-selective channel uses the module's own transport-block error rule
    /// (per code block, from the chunks' mutual information); the wideband one keeps
    /// its single effective-SINR curve.
    fn mcs_table(&self) -> McsTable {
        match self.channel {
            Ns3Channel::Wideband => McsTable::ns3_mmwave(),
            Ns3Channel::Multipath => McsTable::ns3_mmwave_mi(),
        }
    }

    /// Under the module's error rule the uplink takes every MCS its AMC finds
    /// (`McsTable::ns3_mmwave_mi_uplink`); the wideband channel's logistic curves are
    /// known for the even MCS only, so its uplink keeps the downlink's table.
    fn uplink_mcs_table(&self) -> McsTable {
        match self.channel {
            Ns3Channel::Wideband => McsTable::ns3_mmwave(),
            Ns3Channel::Multipath => McsTable::ns3_mmwave_mi_uplink(),
        }
    }

    /// Nothing is drawn up front: the beamforming gain is drawn at the first update.
    fn channel(&self, _rng: &mut Rng) -> Box<dyn ChannelModel> {
        Box::new(Ns3Model::new(self))
    }
}

/// ns-3 profile state: the `MmWaveLosTracker` counters in trace samples (continuous:
/// advanced by elapsed time x 340 / ramp) and the current beamforming gain.
#[derive(Debug)]
struct Ns3Model {
    los_intercept_db: f64,
    /// blockage_loss_db / 35.964785: scales the measured trace to the configured steady
    /// value.
    ramp_scale: f64,
    /// Trace samples per second (340 / ramp_s); infinite for an instant step.
    samples_per_s: f64,
    steady_db: f64,
    bf_knots: [(f64, f64); 5],
    bf_redraw_s: f64,
    bf_gain_db: f64,
    /// Index of the redraw period the current draw belongs to.
    bf_epoch: f64,
    /// The frequency-selective gain (`channel = "multipath"`) and the UE's position at
    /// the last update (for its velocity).
    multipath: Option<Box<Multipath>>,
    last_ue: Point,
    /// The UE position of the last path loss, and that loss (dB): the gNB stands
    /// still, so a standing UE's is the same (no `log10` at every update).
    path_loss: Option<(Point, f64)>,
    /// `nlosSamples`: progress of the drop phase (0..=340).
    n_down: f64,
    /// `losSamples`: progress of the recovery phase (0..340).
    n_up: f64,
    /// `Ns3MmwaveParams::misread_blockage_exit`.
    misread_exit: bool,
}

impl Ns3Model {
    fn new(p: &Ns3MmwaveParams) -> Self {
        Ns3Model {
            los_intercept_db: p.los_intercept_db().unwrap_or(61.4),
            ramp_scale: p.blockage_loss_db / NS3_TRACE_STEADY_DB,
            samples_per_s: if p.blockage_ramp_s > 0.0 {
                NS3_TRACE_SAMPLES / p.blockage_ramp_s
            } else {
                f64::INFINITY
            },
            steady_db: p.blockage_loss_db,
            bf_knots: bf_quantile_knots(p),
            bf_redraw_s: p.bf_redraw_s,
            bf_gain_db: p.bf_gain_mean_db,
            bf_epoch: f64::NEG_INFINITY,
            multipath: match p.channel {
                Ns3Channel::Wideband => None,
                Ns3Channel::Multipath => Some(Box::new(Multipath::new(p.carrier_hz))),
            },
            last_ue: Point::default(),
            path_loss: None,
            n_down: 0.0,
            n_up: 0.0,
            misread_exit: p.misread_blockage_exit,
        }
    }
}

impl ChannelModel for Ns3Model {
    fn update(&mut self, rng: &mut Rng, at: &Update) -> Gain {
        let Update {
            t_s,
            dt_s: dt,
            first,
            gnb,
            ue,
            blockers,
            prev_blocked,
        } = *at;
        let blocked = !blockers.is_empty();
        let s = self;
        // Beamforming + fading gain: i.i.d. draws on the grid k x bf_redraw_s,
        // inverse-CDF of the piecewise-linear quantile function (reference network: mean
        // 28.2 dB, 10-90% 24.6-30.7 dB, 20-32 dB, every 100 ms, independent of
        // position).
        // The epoch index gets a 1e-9 relative tolerance so that t = k x period
        // computed from integer nanoseconds lands in epoch k.
        let epoch = (t_s / s.bf_redraw_s + 1e-9).floor();
        let redraw = first || epoch > s.bf_epoch;
        if redraw {
            s.bf_epoch = epoch;
        }
        if let Some(mp) = s.multipath.as_deref_mut() {
            // The module's instance redraw, then its gain formula at this time
            // and the UE's velocity (the gNB does not move).
            if redraw {
                let mut spare = None;
                mp.set_instance(draw_amplitudes(rng, &mut |r| std_normal(r, &mut spare)));
            }
            let speed = if first {
                0.0
            } else {
                relative_speed(s.last_ue, ue, dt)
            };
            mp.evaluate(t_s, speed);
            s.bf_gain_db = mp.wideband_gain_db();
            s.last_ue = ue;
        } else if redraw {
            let u: f64 = rng.random::<f64>();
            s.bf_gain_db = interp(&s.bf_knots, u);
        }
        // LoS path loss: 61.4 + 20 log10(d), d = 3D distance (docs/model.md's table;
        // `mmWaveLosLoss`), d floored at 1 m.
        let pl = match s.path_loss {
            Some((at, pl)) if at.same_bits(ue) => pl,
            _ => {
                let d = gnb.distance(ue).max(1.0);
                let pl = s.los_intercept_db + 20.0 * d.log10();
                s.path_loss = Some((ue, pl));
                pl
            }
        };
        // Blockage: the `MmWaveLosTracker` state machine (see `ns3_excess`).
        let ds = dt * s.samples_per_s;
        let excess = if s.samples_per_s.is_infinite() {
            s.n_up = 0.0;
            s.n_down = if blocked { NS3_TRACE_SAMPLES } else { 0.0 };
            if blocked { s.steady_db } else { 0.0 }
        } else {
            ns3_excess(s, blocked, prev_blocked, first && t_s <= 0.0, ds)
        };
        // Multipath, moving UE: the uplink's Doppler turns the other way.
        let uplink_offset_db = s.multipath.as_deref().and_then(Multipath::uplink_offset_db);
        Gain {
            gain_db: s.bf_gain_db - pl - excess,
            path_loss_db: pl,
            shadowing_db: 0.0,
            excess_db: excess,
            nlos: blocked || s.n_down > 0.0,
            uplink_offset_db,
        }
    }

    /// The current draw (multipath: its wideband mean).
    fn beamforming_gain_db(&self) -> f64 {
        self.bf_gain_db
    }

    fn chunk_gain_ratios(&self) -> Option<&[f64]> {
        self.multipath.as_deref().map(|m| &m.chunk_ratios()[..])
    }

    fn uplink_chunk_gain_ratios(&self) -> Option<&[f64]> {
        self.multipath
            .as_deref()
            .map(|m| &m.uplink_chunk_ratios()[..])
    }

    /// With `misread_blockage_exit`, a blocked link whose drop has finished and whose
    /// recovery has not begun reads 0 dB once its path clears (see the key).
    fn loss_if_cleared_db(&self) -> Option<f64> {
        let awaiting_recovery = self.n_down >= NS3_TRACE_SAMPLES && self.n_up == 0.0;
        (self.misread_exit && awaiting_recovery).then_some(0.0)
    }
}

/// The `MmWaveLosTracker::UpdateLosNlosState` + `GetLoss` state machine with counters in
/// (fractional) trace samples. Returns the excess loss (dB).
/// * blocked, drop not finished: `n_down` advances (a link blocked at its first update at
///   t = 0 starts in the steady phase, as the module does at simulation time 0);
///   excess = down-trace(n_down);
/// * blocked, drop finished: steady `blockage_loss_db`;
/// * LoS after a blockage (`n_down > 0`): recovery; `n_up` advances; excess =
///   up-trace(u) with u = n_up after a full drop, u = 340 - n_down + n_up after a partial
///   one (the module skips the part of the recovery matching the missing drop); when
///   `n_up` reaches 340 both counters reset. A blockage during the recovery resumes the
///   drop where `n_down` stands (steady if it had finished) and keeps `n_up`, as the
///   module does.
///
/// A phase entered at this update starts at its current counter (no advance), so the
/// first recovery value is the trace's 44.6 dB.
fn ns3_excess(s: &mut Ns3Model, blocked: bool, prev_blocked: bool, at_start: bool, ds: f64) -> f64 {
    let full = NS3_TRACE_SAMPLES;
    if blocked {
        if s.n_down < full {
            if at_start {
                s.n_down = full;
            } else if prev_blocked {
                s.n_down = (s.n_down + ds).min(full);
            }
        }
        if s.n_down >= full {
            s.steady_db
        } else {
            s.ramp_scale * interp(&NS3_DOWN_KNOTS, s.n_down)
        }
    } else if s.n_down > 0.0 {
        if !prev_blocked {
            s.n_up += ds;
        }
        if s.n_up >= full {
            s.n_up = 0.0;
            s.n_down = 0.0;
            return 0.0;
        }
        let u = if s.n_down < full {
            full - s.n_down + s.n_up
        } else {
            s.n_up
        };
        if u >= NS3_UP_KNOTS[NS3_UP_KNOTS.len() - 1].0 {
            0.0
        } else {
            s.ramp_scale * interp(&NS3_UP_KNOTS, u)
        }
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::geometry::ObstacleClass;
    use crate::radio::propagation::Channel;
    use rand::SeedableRng;

    fn rng(seed: u64) -> Rng {
        Rng::seed_from_u64(seed)
    }

    const GNB: Point = Point::new(0.0, 0.0, 15.0);
    const B: [ObstacleClass; 1] = [ObstacleClass::Building];

    fn ns3() -> Ns3MmwaveParams {
        Ns3MmwaveParams::default()
    }

    #[test]
    fn ns3_profile_basics() {
        let p = ns3();
        p.validate().unwrap();
        assert!((p.noise_dbm() - (-79.0)).abs() < 1e-12); // -174 + 90 + 5
        assert_eq!(p.tx_power_dbm(true), 30.0);
        assert_eq!(p.default_los_test(), LosTest::Ns32d);
        assert_eq!(p.numerology(), Numerology::NS3_MMWAVE);
        assert_eq!(p.mcs_table().highest_mcs(), 28);
        let mut bad = Ns3MmwaveParams {
            carrier_hz: 60e9,
            ..Default::default()
        };
        assert!(bad.validate().unwrap_err().starts_with("carrier_hz = "));
        bad.carrier_hz = 28e9;
        bad.bf_gain_mean_db = 31.5;
        assert!(
            bad.validate()
                .unwrap_err()
                .starts_with("bf_gain_mean_db = 31.5")
        );
        // serde: defaults fill in, unknown keys rejected.
        let q: Ns3MmwaveParams = serde_json::from_str(r#"{"blockage_ramp_s": 0.02}"#).unwrap();
        assert_eq!(q.blockage_ramp_s, 0.02);
        assert_eq!(q.blockage_loss_db, 35.964785);
        assert!(serde_json::from_str::<Ns3MmwaveParams>(r#"{"nope": 1}"#).is_err());
    }

    #[test]
    fn ns3_los_path_loss_and_snr() {
        let mut ch = Channel::new(&ns3(), rng(1));
        // UE at 100 m horizontal, 13.5 m lower: d = sqrt(10000 + 182.25) = 100.907 m,
        // PL = 61.4 + 20 log10(100.907) = 61.4 + 40.0784 = 101.4784 dB.
        let ue = Point::new(100.0, 0.0, 1.5);
        let g = ch.update(0.0, GNB, ue, &[]);
        assert!((ch.path_loss_db() - 101.4784).abs() < 1e-3);
        assert!((g - (ch.beamforming_gain_db() - 101.4784)).abs() < 1e-3);
        assert!(!ch.is_nlos());
        // Pure formula check at d = 10 m: 61.4 + 20 = 81.4 dB.
        ch.update(0.001, GNB, Point::new(0.0, 0.0, 5.0), &[]);
        assert!((ch.path_loss_db() - 81.4).abs() < 1e-12);
    }

    #[test]
    fn beamforming_gain_distribution_and_redraw_period() {
        let mut ch = Channel::new(&ns3(), rng(7));
        let ue = Point::new(50.0, 0.0, 1.5);
        let mut draws = Vec::new();
        let mut last = f64::NAN;
        let mut changes_off_grid = 0;
        // 2000 s at 1 ms: 20,000 redraw periods.
        for k in 0..2_000_000u64 {
            let t = k as f64 * 1e-3;
            ch.update(t, GNB, ue, &[]);
            let g = ch.beamforming_gain_db();
            if g != last {
                if k % 100 != 0 {
                    changes_off_grid += 1;
                }
                last = g;
            }
            if k % 100 == 0 {
                draws.push(g);
            }
        }
        // Constant within each 100 ms, redrawn on the 100 ms grid.
        assert_eq!(changes_off_grid, 0);
        let n = draws.len() as f64;
        let mean = draws.iter().sum::<f64>() / n;
        draws.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let q = |p: f64| draws[(p * (n - 1.0)) as usize];
        assert!((mean - 28.2).abs() < 0.05, "mean {mean}");
        assert!((q(0.1) - 24.6).abs() < 0.15, "p10 {}", q(0.1));
        assert!((q(0.9) - 30.7).abs() < 0.1, "p90 {}", q(0.9));
        assert!(draws[0] >= 20.0 && draws[draws.len() - 1] <= 32.0);
        // Consecutive draws change (it is redrawn, not frozen): > 99% differ.
        assert!(draws.windows(2).filter(|w| w[0] != w[1]).count() as f64 > 0.99 * (n - 1.0));
    }

    /// The module's gain moves with time at a fixed position (beamforming redraws), so
    /// the radio must not skip its updates while the UE stands still.
    #[test]
    fn a_standing_ues_channel_still_changes() {
        assert!(!ns3().channel_is_geometric());
        let mut ch = Channel::new(&ns3(), rng(8));
        let ue = Point::new(50.0, 0.0, 1.5);
        let gains: Vec<f64> = (0..5)
            .map(|k| ch.update(0.1 * f64::from(k), GNB, ue, &[]))
            .collect();
        assert!(gains.windows(2).any(|w| w[0] != w[1]), "{gains:?}");
    }

    /// Excess loss over time with 1 ms updates: blocked from `on` to `off` seconds.
    fn excess_trace(p: &Ns3MmwaveParams, on: f64, off: f64, until: f64) -> Vec<(f64, f64, bool)> {
        let mut ch = Channel::new(p, rng(3));
        let ue = Point::new(0.0, 68.0, 1.5);
        let mut out = Vec::new();
        let mut k = 0u64;
        loop {
            let t = k as f64 * 1e-3;
            if t > until + 1e-9 {
                break;
            }
            let blk: &[ObstacleClass] = if t >= on - 1e-9 && t < off - 1e-9 {
                &B
            } else {
                &[]
            };
            ch.update(t, GNB, ue, blk);
            out.push((t, ch.excess_loss_db(), ch.is_nlos()));
            k += 1;
        }
        out
    }

    fn at(tr: &[(f64, f64, bool)], t: f64) -> (f64, bool) {
        let i = (t * 1000.0).round() as usize;
        (tr[i].1, tr[i].2)
    }

    #[test]
    fn blockage_ramp_shape() {
        // Blocked from 1.0 s to 2.0 s, 0.04 s ramps (340 samples = 40 ms, 8.5 per ms).
        let tr = excess_trace(&ns3(), 1.0, 2.0, 2.2);
        assert_eq!(at(&tr, 0.999), (0.0, false));
        // First 20 ms of the drop: the measured trace is still ~0 (sample 170 at 20 ms).
        assert!(at(&tr, 1.0).1 && at(&tr, 1.0).0 == 0.0);
        assert!(at(&tr, 1.015).0 < 0.5);
        // Sample 255 at 30 ms: between 12.53 (240) and 16.35 (260) -> 15.40 dB.
        assert!(
            (at(&tr, 1.030).0 - 15.395).abs() < 0.01,
            "{:?}",
            at(&tr, 1.030)
        );
        // Overshoot: the fitted curve peaks at 44.18 dB (sample 324, 38.1 ms); 1 ms
        // updates see sample 323 (31.59 + 0.8 x 12.59 = 41.66 dB).
        let curve_peak = (0..=3400)
            .map(|i| interp(&NS3_DOWN_KNOTS, i as f64 * 0.1))
            .fold(0.0, f64::max);
        assert!((curve_peak - 44.18).abs() < 1e-9);
        let peak = tr
            .iter()
            .filter(|x| x.0 > 1.0 && x.0 < 1.05)
            .map(|x| x.1)
            .fold(0.0, f64::max);
        assert!((peak - 41.662).abs() < 1e-6, "peak {peak}");
        // Steady 35.96 from 40 ms on.
        for t in [1.040, 1.1, 1.5, 1.999] {
            assert!(
                (at(&tr, t).0 - 35.964785).abs() < 1e-9,
                "{t}: {:?}",
                at(&tr, t)
            );
        }
        // Recovery: first LoS update at 44.63 dB, still NLoS; ~0 after 141 samples
        // (16.6 ms); the recovery phase ends after 40 ms.
        assert!((at(&tr, 2.0).0 - 44.63).abs() < 1e-9 && at(&tr, 2.0).1);
        let (e10, _) = at(&tr, 2.010); // sample 85: between 16.58 (80) and 15.57 (90)
        assert!((e10 - 16.075).abs() < 0.01, "{e10}");
        assert_eq!(at(&tr, 2.017).0, 0.0);
        assert!(at(&tr, 2.039).1);
        assert_eq!(at(&tr, 2.041), (0.0, false));
        // Over the whole recovery the loss never exceeds 44.63 dB.
        assert!(tr.iter().filter(|x| x.0 >= 2.0).all(|x| x.1 <= 44.63));
    }

    #[test]
    fn short_blockage_skips_part_of_the_recovery() {
        // Blocked for 10 ms (85 samples, excess still 0): recovery starts at
        // u = 340 - 85 = 255 > 141, i.e. no extra loss, yet the recovery phase runs 40 ms.
        let tr = excess_trace(&ns3(), 1.0, 1.010, 1.1);
        assert!(tr.iter().all(|x| x.1 == 0.0));
        assert!(at(&tr, 1.030).1 && !at(&tr, 1.060).1);
        // Blocked for 35 ms: the drop advances on the 34 updates after the first,
        // n = 289 samples -> 19.98 + 0.9 x (22.37 - 19.98) = 22.131 dB; the recovery
        // starts at u = 340 - 289 = 51 -> 24.95 + 0.3 x (25.71 - 24.95) = 25.178 dB.
        let tr = excess_trace(&ns3(), 1.0, 1.035, 1.1);
        let before = at(&tr, 1.034).0;
        let after = at(&tr, 1.035).0;
        assert!(
            (before - 22.131).abs() < 0.01 && (after - 25.178).abs() < 0.01,
            "{before} {after}"
        );
    }

    /// `misread_blockage_exit`: a path clearing after the drop has finished and
    /// before the recovery has begun meets 0 dB excess (the gain without the steady
    /// loss); during the drop, during a recovery, and with the key off, a clearing
    /// waits for the next update.
    #[test]
    fn a_misread_exit_meets_no_excess_only_between_a_full_drop_and_its_recovery() {
        let on = Ns3MmwaveParams {
            misread_blockage_exit: true,
            ..Default::default()
        };
        let ue = Point::new(0.0, 68.0, 1.5);
        let if_cleared = |p: &Ns3MmwaveParams, blocked_ms: &[u32]| {
            let mut ch = Channel::new(p, rng(3));
            (0..=blocked_ms.len())
                .map(|k| {
                    let blk: &[ObstacleClass] = match blocked_ms.get(k) {
                        Some(1) => &B,
                        _ => &[],
                    };
                    ch.update(1.0 + k as f64 * 1e-3, GNB, ue, blk);
                    ch.gain_if_cleared_db().map(|g| g - ch.gain_db())
                })
                .collect::<Vec<_>>()
        };
        // 50 ms blocked: the drop ends after 40 ms; then LoS (recovery), blocked again.
        let mut pattern = vec![1; 50];
        pattern.extend([0, 0, 1, 1]);
        let got = if_cleared(&on, &pattern);
        assert!(got[..40].iter().all(Option::is_none), "{got:?}");
        for rise in &got[40..50] {
            assert!((rise.unwrap() - NS3_TRACE_STEADY_DB).abs() < 1e-9);
        }
        assert!(got[50..].iter().all(Option::is_none), "{got:?}");
        assert!(if_cleared(&ns3(), &pattern).iter().all(Option::is_none));
    }

    #[test]
    fn blocked_at_start_is_steady_and_ramp_zero_is_a_step() {
        let tr = excess_trace(&ns3(), 0.0, 0.5, 0.6);
        assert!((at(&tr, 0.0).0 - 35.964785).abs() < 1e-9);
        let p = Ns3MmwaveParams {
            blockage_ramp_s: 0.0,
            blockage_loss_db: 30.0,
            ..Default::default()
        };
        let tr = excess_trace(&p, 1.0, 1.5, 1.6);
        assert_eq!(at(&tr, 1.0).0, 30.0);
        assert_eq!(at(&tr, 1.5), (0.0, false));
        // A scaled steady value scales the whole ramp: overshoot 44.18 x 40/35.96.
        let p = Ns3MmwaveParams {
            blockage_loss_db: 40.0,
            ..Default::default()
        };
        let tr = excess_trace(&p, 1.0, 2.0, 2.1);
        assert!((at(&tr, 1.5).0 - 40.0).abs() < 1e-9);
        assert!((at(&tr, 2.0).0 - 44.63 * 40.0 / 35.964785).abs() < 1e-9);
    }

    fn multipath() -> Ns3MmwaveParams {
        Ns3MmwaveParams {
            channel: Ns3Channel::Multipath,
            ..Default::default()
        }
    }

    #[test]
    fn multipath_instances_are_redrawn_every_100_ms() {
        // A motionless UE: the chunk gains change exactly on the 100 ms grid.
        let mut ch = Channel::new(&multipath(), rng(21));
        let ue = Point::new(0.0, 68.0, 1.5);
        let mut last: Vec<f64> = Vec::new();
        let mut changes = Vec::new();
        for k in 0..1000u64 {
            ch.update(k as f64 * 1e-3, GNB, ue, &[]);
            let r = ch.chunk_gain_ratios().unwrap().to_vec();
            assert_eq!(r.len(), 72);
            if r != last {
                changes.push(k);
                last = r;
            }
        }
        assert_eq!(changes, (0..10).map(|i| i * 100).collect::<Vec<_>>());
        // The reported gain is the chunks' mean: beamforming gain minus path loss.
        let d = GNB.distance(ue);
        assert!((ch.gain_db() - (ch.beamforming_gain_db() - 61.4 - 20.0 * d.log10())).abs() < 1e-9);
        let mean = last.iter().sum::<f64>() / 72.0;
        assert!((mean - 1.0).abs() < 1e-12);
        // The wideband channel has no chunks.
        let mut flat = Channel::new(&ns3(), rng(21));
        flat.update(0.0, GNB, ue, &[]);
        assert!(flat.chunk_gain_ratios().is_none());
    }

    #[test]
    fn multipath_gain_moves_with_the_ue_between_redraws() {
        // Walking at 1.5 m/s along x (relative speed +1.5): the gains change from one
        // 1 ms update to the next inside a redraw period; the same walk along -x gives
        // another pattern (the module's speed is a signed component sum).
        let walk = |vx: f64| {
            let mut ch = Channel::new(&multipath(), rng(22));
            let mut out = Vec::new();
            for k in 0..50u64 {
                let t = 1.0 + k as f64 * 1e-3;
                ch.update(t, GNB, Point::new(vx * t, 68.0, 1.5), &[]);
                out.push(ch.gain_db());
            }
            out
        };
        let east = walk(1.5);
        assert!(east.windows(2).skip(1).all(|w| w[0] != w[1]));
        assert_ne!(east[10..], walk(-1.5)[10..]);
        // The uplink of a walk is the downlink of the opposite walk (mirrored: the
        // same distance, the opposite speed); a UE standing still meets one gain
        // both ways.
        let (mut east, mut west) = (
            Channel::new(&multipath(), rng(24)),
            Channel::new(&multipath(), rng(24)),
        );
        for k in 0..20u64 {
            let t = 1.0 + k as f64 * 1e-3;
            let ge = east.update(t, GNB, Point::new(1.5 * t, 68.0, 1.5), &[]);
            let gw = west.update(t, GNB, Point::new(-1.5 * t, 68.0, 1.5), &[]);
            if k == 0 {
                continue;
            }
            assert!(!east.is_reciprocal());
            assert!((ge + east.uplink_offset_db() - gw).abs() < 0.01, "{k}");
            let (up, down) = (east.uplink_chunk_gain_ratios(), west.chunk_gain_ratios());
            assert_eq!(up.unwrap().len(), 72);
            for (u, d) in up.unwrap().iter().zip(down.unwrap()) {
                assert!((u - d).abs() < 1e-9);
            }
        }
        let mut still = Channel::new(&multipath(), rng(24));
        still.update(1.0, GNB, Point::new(1.5, 68.0, 1.5), &[]);
        still.update(1.001, GNB, Point::new(1.5, 68.0, 1.5), &[]);
        assert!(still.is_reciprocal());
        assert_eq!(still.uplink_offset_db(), 0.0);
        assert_eq!(still.uplink_chunk_gain_ratios(), still.chunk_gain_ratios());
        // Blockage adds the same steady loss to every chunk (ratios unchanged).
        let mut a = Channel::new(&multipath(), rng(23));
        let mut b = Channel::new(&multipath(), rng(23));
        let ue = Point::new(0.0, 68.0, 1.5);
        let ga = a.update(0.0, GNB, ue, &[]);
        let gb = b.update(0.0, GNB, ue, &B);
        assert!((ga - gb - NS3_TRACE_STEADY_DB).abs() < 1e-9);
        assert_eq!(a.chunk_gain_ratios(), b.chunk_gain_ratios());
        // serde: "multipath" / "wideband", anything else refused.
        let q: Ns3MmwaveParams = serde_json::from_str(r#"{"channel": "multipath"}"#).unwrap();
        assert_eq!(q.channel, Ns3Channel::Multipath);
        assert_eq!(Ns3MmwaveParams::default().channel, Ns3Channel::Wideband);
        assert!(serde_json::from_str::<Ns3MmwaveParams>(r#"{"channel": "flat"}"#).is_err());
    }
}
