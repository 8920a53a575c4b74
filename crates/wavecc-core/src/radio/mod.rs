//! The 5G mmWave radio access network (docs/model.md, "The 5G mmWave radio" and
//! "The reference network"): geometry
//! and mobility, propagation profiles (`ns3-mmwave`, `3gpp`), link adaptation,
//! HARQ and RLC AM, the gNB slot scheduler, cells and handover. Packet-level where
//! TCP can see it (every SDU is queued, segmented, retransmitted and reordered),
//! slot-level below (a transport block's size comes from the symbols and MCS).

mod acks;
mod air_states;
mod arq;
mod clearing;
mod config;
mod cqi;
mod geometry;
mod grants;
mod headers;
mod mcs;
mod miesm;
mod mobility;
mod multipath;
mod profile;
mod propagation;
mod ran;
mod rlc;
mod scheduler;
mod segments;
mod status;

pub use config::{
    Forwarding, GnbConfig, HandoverConfig, LegConfig, MAX_HARQ_RETX, ObstacleConfig, ProfileName,
    RadioConfig, UeConfig, WaypointConfig, los_test, obstacle, point, trajectory,
};
pub use geometry::{LosTest, Obstacle, ObstacleClass, Point, blockers};
pub use mcs::{
    McsTable, NR_DEFAULT_DATA_SYMBOLS, NrMcsTable, Numerology, ir_effective_sinr_db,
    thermal_noise_dbm,
};
pub use mobility::{Leg, Trajectory, Waypoint, blocked_intervals};
pub use profile::{
    ChannelModel, Entry, Gain, GppScenario, NS3_TRACE_STEADY_DB, Ns3Channel, Ns3MmwaveParams,
    PROFILES, Profile, ThreeGppParams, Update, UplinkGrantModel, entry,
};
pub use propagation::Channel;
pub use ran::{Deliveries, RadioEvent, Ran};
pub use rlc::{MAX_HARQ_ATTEMPTS, RlcConfig, RlcEntity, RlcStats, SlotChannel};
pub use scheduler::{Demand, SchedulerKind};
