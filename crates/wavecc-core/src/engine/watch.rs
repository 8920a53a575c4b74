//! Following a run from outside and stopping it: the event loop polls a [`Watch`]
//! every [`POLL_EVENTS`] events.

use std::ops::ControlFlow;

/// Follows a run from outside: [`Watch::poll`] is called every [`POLL_EVENTS`] events
/// (packet arrivals and timers), which at the engine's speed is well under a
/// millisecond of wall time, so an implementation can keep its own pace (read a
/// clock, act every so often) and still stop a run promptly.
pub trait Watch {
    /// `now_s` is the simulated time reached, `duration_s` the run's end.
    /// `ControlFlow::Break` stops the run, which then returns [`Stopped`].
    fn poll(&mut self, now_s: f64, duration_s: f64) -> ControlFlow<()>;
}

/// How often, in events, a [`Watch`] is polled: often enough that a stop takes effect
/// within about a millisecond, rarely enough to cost nothing measurable.
pub const POLL_EVENTS: u32 = 1 << 12;

/// A run that its [`Watch`] stopped before the end: it has no output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

/// The watch of a run nobody follows: never stops anything.
pub struct Unwatched;

impl Watch for Unwatched {
    #[inline(always)]
    fn poll(&mut self, _now_s: f64, _duration_s: f64) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}
