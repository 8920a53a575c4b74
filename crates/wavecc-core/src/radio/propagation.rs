//! The per-(gNB, UE) channel: the bookkeeping every profile shares (the pair's
//! random stream, time since the last update, the blockage at the previous update,
//! the last gain and its parts) around the profile's [`ChannelModel`]
//! (`profile/`), and the normal draws the models share.
//!
//! [`Channel::update`] is called about every 1 ms per pair: it does not allocate and
//! calls at most a few transcendental functions (one `log10` per update; `exp`/`ln`
//! only while a ramp runs or when shadowing is advanced).

use super::geometry::{ObstacleClass, Point};
use super::profile::{ChannelModel, Gain, Profile, Update};
use crate::engine::{Rng, RngExt};

/// The channel between one gNB and one UE: the downlink's gain, and the uplink's
/// where a profile makes it differ ([`Gain::uplink_offset_db`]).
#[derive(Debug)]
pub struct Channel {
    rng: Rng,
    model: Box<dyn ChannelModel>,
    started: bool,
    last_t_s: f64,
    prev_blocked: bool,
    last: Gain,
}

impl Channel {
    /// A fresh channel; all its randomness comes from `rng` (one stream per pair).
    /// The profile's parameters are assumed valid (the scenario checks them).
    pub fn new(profile: &dyn Profile, mut rng: Rng) -> Self {
        let model = profile.channel(&mut rng);
        Channel {
            rng,
            model,
            started: false,
            last_t_s: 0.0,
            prev_blocked: false,
            last: Gain {
                gain_db: 0.0,
                path_loss_db: 0.0,
                shadowing_db: 0.0,
                excess_db: 0.0,
                nlos: false,
                uplink_offset_db: None,
            },
        }
    }

    /// Advances the channel's processes (blockage ramps, beamforming redraws, correlated
    /// shadowing) to `t_s` (increasing times, typically every 1 ms) and returns the
    /// channel gain in dB: antenna/beamforming gains minus path loss, shadowing and
    /// blockage loss (ns3, LoS: about 28.2 - 61.4 - 20 log10(d)). `blockers` are the
    /// classes of the obstacles on the path ([`super::geometry::blockers`]); empty = LoS.
    pub fn update(&mut self, t_s: f64, gnb: Point, ue: Point, blockers: &[ObstacleClass]) -> f64 {
        let first = !self.started;
        let dt_s = if first {
            0.0
        } else {
            (t_s - self.last_t_s).max(0.0)
        };
        let at = Update {
            t_s,
            dt_s,
            first,
            gnb,
            ue,
            blockers,
            prev_blocked: self.prev_blocked,
        };
        self.last = self.model.update(&mut self.rng, &at);
        self.started = true;
        self.last_t_s = t_s;
        self.prev_blocked = !blockers.is_empty();
        self.last.gain_db
    }

    /// True while the channel counts as NLoS: blocked now (ns3: including the drop
    /// ramp) or, ns3 only, in the recovery ramp after a blockage.
    pub fn is_nlos(&self) -> bool {
        self.last.nlos
    }

    /// The last gain returned by [`Channel::update`] (dB).
    pub fn gain_db(&self) -> f64 {
        self.last.gain_db
    }

    /// Blockage loss in the last gain (dB): ns3 ramp/steady value, 3gpp per-class sum.
    pub fn excess_loss_db(&self) -> f64 {
        self.last.excess_db
    }

    /// The gain (dB) a transmission meets if the path, blocked at the last update,
    /// clears before the next, from the instant it clears
    /// ([`ChannelModel::loss_if_cleared_db`]); `None` for a path clear at the last
    /// update, or when the last gain holds until the next.
    pub fn gain_if_cleared_db(&self) -> Option<f64> {
        if !self.prev_blocked {
            return None;
        }
        let loss = self.model.loss_if_cleared_db()?;
        Some(self.last.gain_db + self.last.excess_db - loss)
    }

    /// Shadowing in the last gain (dB, 3gpp; 0 for ns3).
    pub fn shadowing_db(&self) -> f64 {
        self.last.shadowing_db
    }

    /// Path loss in the last gain (dB).
    pub fn path_loss_db(&self) -> f64 {
        self.last.path_loss_db
    }

    /// Per-chunk gain over the wideband gain (`multipath` channel), else none (flat).
    pub fn chunk_gain_ratios(&self) -> Option<&[f64]> {
        self.model.chunk_gain_ratios()
    }

    /// The uplink's gain over the last downlink gain (dB): 0 where the channel is
    /// reciprocal.
    pub fn uplink_offset_db(&self) -> f64 {
        self.last.uplink_offset_db.unwrap_or(0.0)
    }

    /// Per-chunk gain over the uplink's wideband gain, else none (flat).
    pub fn uplink_chunk_gain_ratios(&self) -> Option<&[f64]> {
        self.model.uplink_chunk_gain_ratios()
    }

    /// Both directions meet the same gain and chunks now.
    pub fn is_reciprocal(&self) -> bool {
        self.last.uplink_offset_db.is_none()
    }

    /// Current beamforming gain (dB): the ns3 draw (multipath: its wideband mean), or
    /// the 3gpp array gains.
    pub fn beamforming_gain_db(&self) -> f64 {
        self.model.beamforming_gain_db()
    }
}

/// One standard normal by Box-Muller (the pair's second value is kept for the next call).
pub(super) fn std_normal(rng: &mut Rng, spare: &mut Option<f64>) -> f64 {
    if let Some(z) = spare.take() {
        return z;
    }
    // u1 in (0, 1] so ln(u1) is finite.
    let u1 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    *spare = Some(r * s);
    r * c
}
