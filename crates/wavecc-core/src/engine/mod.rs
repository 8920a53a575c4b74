//! The discrete-event engine: simulated time, the event queue, lazily cancelled
//! timers, seeded per-component random streams, the containers several components
//! share (a ring buffer, a set of byte ranges), and the [`Watch`] that follows a run.

mod queue;
mod ranges;
mod ring;
mod rng;
mod time;
mod watch;

pub use queue::{EventQueue, Timer};
pub use ranges::RangeSet;
pub use ring::Ring;
pub use rng::{Rng, RngExt, RngStreams};
pub use time::{NS_PER_S, Serialiser, Time, from_secs, fs_per_byte, to_secs, tx_time};
pub use watch::{POLL_EVENTS, Stopped, Unwatched, Watch};
