//! wavecc core: a packet-level simulator of TCP congestion control over wired and
//! 5G mmWave paths. No Python in here; `wavecc-py` binds it.
//!
//! Data flows left to right through the modules, as docs/architecture.md draws them:
//! `scenario` (validated config) -> `world` (builds the network, runs the events) ->
//! `trace` (time series, event log, summary). `net` moves packets, `tcp` is the
//! transport, `cc` the congestion-control algorithms, `app` the traffic sources.
//!
//! The entry points that run a whole config are here, and no other module of the core
//! imports `world`: the fuzzer (`fuzz`), the trace export (`export`) and the binding
//! run configs through them (the binding's stepped runs drive a `world::World`).

pub mod app;
pub mod cc;
pub mod engine;
pub mod export;
pub mod fuzz;
pub mod net;
pub mod radio;
pub mod scenario;
pub mod tcp;
pub mod trace;
pub mod udp;
pub mod world;

pub use engine::{POLL_EVENTS, Stopped, Watch};
pub use scenario::{Config, ConfigError};
pub use trace::RunOutput;

use crate::engine::Unwatched;
use crate::radio::Deliveries;
use crate::world::World;
use std::time::Instant;

/// Runs a validated config to the end and returns its traces and summary.
pub fn run(config: &Config) -> RunOutput {
    run_watched(config, &mut Unwatched).expect("an unwatched run never stops early")
}

/// Runs a validated config like [`run`], letting `watch` follow it and stop it:
/// a caller's progress display, Ctrl-C or a deadline. The watch only observes, so a
/// watched run that is not stopped gives exactly the unwatched run's output.
pub fn run_watched(config: &Config, watch: &mut impl Watch) -> Result<RunOutput, Stopped> {
    let wall = Instant::now();
    let mut world = World::new(config);
    world.run_watched(watch)?;
    Ok(world.finish(config, wall.elapsed().as_secs_f64()))
}

/// Runs a validated radio config like [`run_watched`], recording what UE `ue`'s
/// downlink hands up in each slot (`radio::Ran::record_deliveries`): the radio's
/// delivery opportunities, for `wavecc trace export`.
pub fn run_recording_deliveries(
    config: &Config,
    ue: u32,
    watch: &mut impl Watch,
) -> Result<(RunOutput, Deliveries), Stopped> {
    let wall = Instant::now();
    let mut world = World::new(config);
    world.record_deliveries(ue);
    world.run_watched(watch)?;
    let deliveries = world.take_deliveries();
    Ok((
        world.finish(config, wall.elapsed().as_secs_f64()),
        deliveries,
    ))
}
