//! wavecc core: a packet-level simulator of TCP congestion control over wired and
//! 5G mmWave paths. No Python in here; `wavecc-py` binds it.
//!
//! Data flows left to right through the modules, as docs/architecture.md draws them:
//! `scenario` (validated config) -> `world` (builds the network, runs the events) ->
//! `trace` (time series, event log, summary). `net` moves packets, `tcp` is the
//! transport, `cc` the congestion-control algorithms, `app` the traffic sources.

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

pub use scenario::{Config, ConfigError};
pub use trace::RunOutput;
pub use world::{POLL_EVENTS, Stopped, Watch, run, run_watched};
