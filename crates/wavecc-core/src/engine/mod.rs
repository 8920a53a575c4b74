//! The discrete-event engine: simulated time, the event queue, lazily cancelled
//! timers, seeded per-component random streams, and the containers several
//! components share (a ring buffer, a set of byte ranges).

mod queue;
mod ranges;
mod ring;
mod rng;
mod time;

pub use queue::{EventQueue, Timer};
pub use ranges::RangeSet;
pub use ring::Ring;
pub use rng::{Rng, RngExt, RngStreams};
pub use time::{NS_PER_S, Serialiser, Time, from_secs, fs_per_byte, to_secs, tx_time};
