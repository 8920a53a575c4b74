//! Radio profiles: how the radio turns geometry into capacity. A profile is a
//! parameter table in the config (`[radio.<name>]`, a plain type with serde and its
//! checks, declared in the profile's file) and [`Profile`] implemented for it: the link
//! budget (transmit powers, noise), the slot grid and MCS table, the LoS test it
//! defaults to, and the [`ChannelModel`] of each (gNB, UE) pair (path loss, blockage
//! loss, shadowing, beamforming and fading gain). [`PROFILES`] maps `radio.profile`
//! to the parameters. The shared channel bookkeeping is `propagation::Channel`.
//!
//! * `ns3-mmwave` (`ns3_mmwave.rs`): the source papers' ns-3 mmWave module.
//! * `3gpp` (`threegpp.rs`): 3GPP TR 38.901 path loss and shadowing, NR numerology.
//!
//! Adding a profile: a file here, its line in [`PROFILES`], and its field in
//! `RadioConfig` with its `ProfileName` (`config.rs`) (docs/architecture.md, "Where a
//! change goes").

mod ns3_mmwave;
mod threegpp;

use super::config::{ProfileName, RadioConfig};
use super::cqi::CqiExpiry;
use super::geometry::{LosTest, ObstacleClass, Point};
use super::grants::GrantTiming;
use super::mcs::{McsTable, Numerology};
use crate::engine::{Rng, Time};

pub use ns3_mmwave::{NS3_TRACE_STEADY_DB, Ns3Channel, Ns3MmwaveParams, UplinkGrantModel};
pub use threegpp::{GppScenario, ThreeGppParams};

/// What a profile gives the radio: the cells' link budget and slot grid, and a
/// channel model per (gNB, UE) pair. Implemented on the profile's parameters, which
/// the scenario has validated.
pub trait Profile {
    /// Checks the parameters that the schema's types cannot: the error names the key
    /// within the profile's table and its valid values (`key = value: must be ...`).
    fn validate(&self) -> Result<(), String>;

    /// The LoS test used unless `radio.los_test` names one.
    fn default_los_test(&self) -> LosTest;

    /// The channel update period (s) used unless `radio.channel_update_s` gives one.
    fn default_channel_update_s(&self) -> f64;

    /// Thermal noise over the band the profile counts plus the noise figure (dBm).
    fn noise_dbm(&self) -> f64;

    /// Transmit power (dBm) of the gNB (`downlink`) or of the UE (its ACKs).
    fn tx_power_dbm(&self, downlink: bool) -> f64;

    /// Slot duration and data symbols per slot.
    fn numerology(&self) -> Numerology;

    /// The MCS table link adaptation chooses from.
    fn mcs_table(&self) -> McsTable;

    /// The uplink's, where it differs.
    fn uplink_mcs_table(&self) -> McsTable {
        self.mcs_table()
    }

    /// A fresh channel model for one pair. Its initial state may draw from `rng`, the
    /// pair's own stream, which the channel keeps for every later update.
    fn channel(&self, rng: &mut Rng) -> Box<dyn ChannelModel>;

    /// When the scheduler drops a UE's downlink CQI and schedules it blind (MCS 0);
    /// `None`: a report never expires.
    fn cqi_expiry(&self) -> Option<CqiExpiry> {
        None
    }

    /// The RLC status-prohibit timer of a stack whose status reports, requested while
    /// it runs, take a whole data opportunity (`status.rs`); `None`: reports travel
    /// beside data and cost no opportunity.
    fn status_prohibit(&self) -> Option<Time> {
        None
    }

    /// The profile's RLC misreads a status report overtaken by a newer one as
    /// acknowledging everything sent (`acks.rs`); false: ignores it.
    fn misreads_overtaken_reports(&self) -> bool {
        false
    }

    /// The profile's RLC retransmits whole PDUs, one per transport block, cut into
    /// segments when a block is smaller (`segments.rs`); false: any byte range.
    fn retransmits_pdus(&self) -> bool {
        false
    }

    /// The profile's RLC receiver places a retransmission's segments only in order and
    /// discards a whole PDU while it holds part of it (`segments.rs`).
    fn misplaces_segments(&self) -> bool {
        false
    }

    /// The RLC AM receiver's reordering timer, when the profile's RLC repairs what HARQ
    /// gave up on through it and the sender's poll-retransmit timer (`arq.rs`);
    /// `None`: a fixed delay after HARQ gives up (`radio.rlc_retx_delay_s`).
    fn reordering_timer(&self) -> Option<Time> {
        None
    }

    /// How UEs get uplink grants: from buffer status reports through this pipeline
    /// (`grants.rs`), or, `None`, each SDU after `radio.uplink_grant_delay_s`.
    fn uplink_grants(&self) -> Option<GrantTiming> {
        None
    }

    /// The downlink's header model (`headers.rs`): PDCP, RLC and MAC headers in each
    /// new-data TB, sized by a scheduler working from its own copy of the RLC queue;
    /// false: a TB carries the RLC queue's bytes alone, sized from the real queue.
    fn downlink_headers(&self) -> bool {
        false
    }

    /// The uplink's header model (`headers.rs`): under grants from buffer status
    /// reports, PDCP, RLC and MAC headers in each new-data TB, which the UE's MAC fills
    /// whole from its own copy of the RLC queue; false: a TB carries the RLC queue's
    /// bytes alone.
    fn uplink_headers(&self) -> bool {
        false
    }

    /// The period of the RLC's buffer-status timer (`status::BufferStatusTimer`): it
    /// refreshes the scheduler's copy of the downlink queue and, with status reports,
    /// announces the report an entity owes; `None`: no such timer.
    fn buffer_status_timer(&self) -> Option<Time> {
        None
    }

    /// How far ahead the downlink scheduler works: a TB is built (its data taken out
    /// of the RLC buffer) in the slot after the data arrives and goes on the air this
    /// much later.
    fn downlink_lead(&self) -> Time {
        0
    }

    /// From the end of a TB on the air to its data reaching the receiver's RLC
    /// (processing at the receiver), both ways.
    fn decode_latency(&self) -> Time {
        0
    }

    /// One symbol's length when a TB ends at its own last symbol, so that its data
    /// reaches the receiver inside a slot (`decode_latency` after that symbol) and the
    /// radio hands it up then; `None`: TBs end with their slot.
    fn symbol_period(&self) -> Option<Time> {
        None
    }

    /// True when a channel's gain and state depend on the positions and the
    /// (static) obstacles alone, with no process in time: an update at an unchanged UE
    /// position changes nothing, so the radio skips it (a standing UE costs no channel
    /// work). False for a model with time-driven processes (ns-3's beamforming
    /// redraws and blockage ramps).
    fn channel_is_geometric(&self) -> bool {
        false
    }
}

/// What one channel update sees.
#[derive(Clone, Copy, Debug)]
pub struct Update<'a> {
    pub t_s: f64,
    /// Seconds since the previous update (0 at the first).
    pub dt_s: f64,
    /// This is the channel's first update.
    pub first: bool,
    pub gnb: Point,
    pub ue: Point,
    /// Classes of the obstacles on the path ([`super::geometry::blockers`]); empty = LoS.
    pub blockers: &'a [ObstacleClass],
    /// Obstacles were on the path at the previous update.
    pub prev_blocked: bool,
}

/// One update's channel gain and its parts (dB).
#[derive(Clone, Copy, Debug)]
pub struct Gain {
    /// Antenna/beamforming gain minus path loss, shadowing and blockage loss.
    pub gain_db: f64,
    pub path_loss_db: f64,
    pub shadowing_db: f64,
    /// Blockage loss.
    pub excess_db: f64,
    /// The channel counts as NLoS (blocked, or recovering from a blockage).
    pub nlos: bool,
    /// Where the uplink meets a gain of its own, its offset over `gain_db` (its
    /// chunks: [`ChannelModel::uplink_chunk_gain_ratios`]); `None`: reciprocal, the
    /// uplink meets the downlink's gain and chunks.
    pub uplink_offset_db: Option<f64>,
}

/// The state of one (gNB, UE) channel under a profile.
pub trait ChannelModel: std::fmt::Debug + Send {
    /// Advances the model's processes (blockage ramps, beamforming redraws,
    /// correlated shadowing) to `at.t_s`, drawing from `rng`, and returns the gain.
    fn update(&mut self, rng: &mut Rng, at: &Update) -> Gain;

    /// Current beamforming (array) gain, dB.
    fn beamforming_gain_db(&self) -> f64;

    /// Per-chunk gain over the wideband gain of a frequency-selective channel; none
    /// for a flat one.
    fn chunk_gain_ratios(&self) -> Option<&[f64]> {
        None
    }

    /// Per-chunk gain over the uplink's wideband gain, where the last update's
    /// `uplink_offset_db` says the uplink has its own; else the downlink's.
    fn uplink_chunk_gain_ratios(&self) -> Option<&[f64]> {
        self.chunk_gain_ratios()
    }

    /// The blockage loss (dB) a transmission meets if the path, blocked at this update,
    /// clears before the next, from the instant it clears; `None`: a clearing takes
    /// effect at the next update. Asked only of a link blocked at its last update.
    fn loss_if_cleared_db(&self) -> Option<f64> {
        None
    }
}

/// A registered profile: its name in the config and where its parameters are.
pub struct Entry {
    pub name: ProfileName,
    /// The key of its parameter table under `[radio]`.
    pub key: &'static str,
    pub params: fn(&RadioConfig) -> &dyn Profile,
}

/// The registry: every profile `radio.profile` can name.
pub const PROFILES: &[Entry] = &[
    Entry {
        name: ProfileName::Ns3Mmwave,
        key: "ns3_mmwave",
        params: |c| &c.ns3_mmwave,
    },
    Entry {
        name: ProfileName::ThreeGpp,
        key: "3gpp",
        params: |c| &c.threegpp,
    },
];

/// The registry's entry of the profile `name`.
pub fn entry(name: ProfileName) -> &'static Entry {
    PROFILES
        .iter()
        .find(|e| e.name == name)
        .expect("every profile name has an entry in PROFILES")
}

/// The profile `radio.profile` names, with its parameters.
pub fn of(cfg: &RadioConfig) -> &dyn Profile {
    (entry(cfg.profile).params)(cfg)
}

// The checks the profiles' `validate` share.

fn finite(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("{key} = {v}: must be a finite number"))
    }
}

/// The checks both profiles make on the band, the powers and the noise figure.
fn link_budget(
    bandwidth_hz: f64,
    gnb_dbm: f64,
    ue_dbm: f64,
    noise_figure_db: f64,
) -> Result<(), String> {
    positive("bandwidth_hz", bandwidth_hz)?;
    finite("gnb_tx_power_dbm", gnb_dbm)?;
    finite("ue_tx_power_dbm", ue_dbm)?;
    non_negative("noise_figure_db", noise_figure_db)
}

fn positive(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!("{key} = {v}: must be > 0"))
    }
}

fn non_negative(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(format!("{key} = {v}: must be >= 0"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_module_profile_lets_status_reports_take_data_opportunities() {
        // A 3GPP gNB multiplexes the RLC status beside data; ns3-mmwave's RLC AM sends
        // a report requested under its prohibit timer alone (radio/status.rs).
        let mut cfg = RadioConfig {
            profile: ProfileName::ThreeGpp,
            ..RadioConfig::default()
        };
        assert_eq!(of(&cfg).status_prohibit(), None);
        cfg.profile = ProfileName::Ns3Mmwave;
        assert_eq!(of(&cfg).status_prohibit(), Some(1_000_000));
        cfg.ns3_mmwave.status_prohibit_s = 0.01;
        assert_eq!(of(&cfg).status_prohibit(), Some(10_000_000));
    }

    #[test]
    fn every_profile_name_has_one_entry() {
        for name in ProfileName::ALL {
            assert_eq!(
                PROFILES.iter().filter(|e| e.name == name).count(),
                1,
                "{name:?}"
            );
        }
        assert_eq!(PROFILES.len(), ProfileName::ALL.len());
    }

    #[test]
    fn the_entry_hands_out_the_named_profiles_parameters() {
        let mut cfg = RadioConfig::default();
        cfg.ns3_mmwave.gnb_tx_power_dbm = 21.0;
        cfg.threegpp.gnb_tx_power_dbm = 22.0;
        cfg.profile = ProfileName::Ns3Mmwave;
        assert_eq!(of(&cfg).tx_power_dbm(true), 21.0);
        assert_eq!(of(&cfg).default_los_test(), LosTest::Ns32d);
        cfg.profile = ProfileName::ThreeGpp;
        assert_eq!(of(&cfg).tx_power_dbm(true), 22.0);
        assert_eq!(of(&cfg).default_los_test(), LosTest::Exact3d);
    }

    /// Absent, the channel update period is the profile's: the module's 125 us path-loss
    /// period for ns3-mmwave, 1 ms for 3gpp; a given one wins under either.
    #[test]
    fn the_channel_update_period_is_the_profiles_unless_given() {
        use crate::radio::config::channel_update_s;
        let mut cfg = RadioConfig {
            profile: ProfileName::Ns3Mmwave,
            ..Default::default()
        };
        assert_eq!(channel_update_s(&cfg), 125e-6);
        cfg.profile = ProfileName::ThreeGpp;
        assert_eq!(channel_update_s(&cfg), 1e-3);
        cfg.channel_update_s = Some(0.002);
        assert_eq!(channel_update_s(&cfg), 0.002);
        cfg.profile = ProfileName::Ns3Mmwave;
        assert_eq!(channel_update_s(&cfg), 0.002);
    }

    /// ns3-mmwave's scheduler drops a CQI report after `CqiTimerThreshold`; the 3GPP
    /// profile has no such scheduler, so its runs keep link adaptation's MCS.
    #[test]
    fn only_the_ns3_mmwave_profile_lets_a_cqi_report_expire() {
        let mut cfg = RadioConfig {
            profile: ProfileName::Ns3Mmwave,
            ..Default::default()
        };
        let e = of(&cfg).cqi_expiry().expect("ns3-mmwave expires reports");
        assert_eq!((e.validity, e.report_delay), (10_000_000, 300_000));
        cfg.ns3_mmwave.cqi_timer_subframes = 7;
        assert_eq!(of(&cfg).cqi_expiry().unwrap().validity, 700_000);
        cfg.profile = ProfileName::ThreeGpp;
        assert_eq!(of(&cfg).cqi_expiry(), None);
    }

    /// Only the module's downlink carries its headers and is sized from its
    /// scheduler's copy of the queue, its uplink under grants from reports carries
    /// them too, and only its RLC has a buffer-status timer; the switches and the
    /// timer are the profile's keys.
    #[test]
    fn only_the_ns3_mmwave_profile_has_downlink_headers_and_a_buffer_status_timer() {
        let mut cfg = RadioConfig {
            profile: ProfileName::Ns3Mmwave,
            ..Default::default()
        };
        assert!(of(&cfg).downlink_headers(), "on by default");
        assert!(of(&cfg).uplink_headers(), "on by default");
        cfg.ns3_mmwave.uplink_grants = UplinkGrantModel::Delay;
        assert!(
            !of(&cfg).uplink_headers(),
            "only the grants' TBs are filled whole"
        );
        cfg.ns3_mmwave.uplink_grants = UplinkGrantModel::Bsr;
        cfg.ns3_mmwave.uplink_headers = false;
        assert!(!of(&cfg).uplink_headers());
        assert_eq!(of(&cfg).buffer_status_timer(), Some(4_000_000));
        cfg.ns3_mmwave.buffer_status_timer_s = 0.02;
        assert_eq!(of(&cfg).buffer_status_timer(), Some(20_000_000));
        cfg.ns3_mmwave.buffer_status_timer_s = 0.0;
        assert_eq!(of(&cfg).buffer_status_timer(), None);
        cfg.ns3_mmwave.downlink_headers = false;
        assert!(!of(&cfg).downlink_headers());
        cfg.profile = ProfileName::ThreeGpp;
        assert!(!of(&cfg).downlink_headers());
        assert!(!of(&cfg).uplink_headers());
        assert_eq!(of(&cfg).buffer_status_timer(), None);
    }
}
