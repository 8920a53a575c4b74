//! The simulated world: the wired path (a shared bottleneck, each flow's optional
//! access link, the reverse path for ACKs), the radio, the endpoints of every flow,
//! and the events that drive them. Three jobs, one file each: `build` makes a world
//! from a validated config, `run` is the event loop and the routing of packets
//! between links, radio and endpoints, `output` samples the traces and assembles
//! the result. Only this module knows every other; nothing imports it but `lib.rs`.

mod build;
mod output;
mod run;

use crate::Config;
use crate::engine::{EventQueue, Time};
use crate::net::Packet;
use crate::radio::{Deliveries, RadioEvent, Ran};
use crate::scenario::AppKind;
use crate::tcp::{FlowEvent, Receiver, Sender};
use crate::trace::{EventLog, RadioEventTrace, RunOutput, Sampler, UeTrace};
use crate::udp::UdpFlow;
use run::Wire;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::time::Instant;

/// Timers. Packet arrivals are not events: each link knows when its head packet
/// arrives, and the loop polls the links (see [`World::run`]), which spares a heap
/// push and pop per packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A timer of a flow's endpoints (the transport's own event type).
    Flow(FlowEvent),
    /// Flow `n`'s application starts.
    Start(u32),
    Sample,
    /// A radio slot starts (scheduled only while the radio holds packets).
    RadioSlot,
    /// Positions, channels, SINR and MCS are recomputed.
    ChannelUpdate,
}

impl From<FlowEvent> for Event {
    fn from(event: FlowEvent) -> Self {
        Event::Flow(event)
    }
}

/// One hop of a route: a wired link, or the radio down to or up from a UE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hop {
    Link(u32),
    Downlink(u32),
    Uplink(u32),
}

/// A flow's endpoints: each pair keeps its own timers.
enum Endpoints {
    Tcp {
        sender: Box<Sender>,
        receiver: Receiver,
    },
    Udp(UdpFlow),
}

struct Flow {
    cca: String,
    app: AppKind,
    start: Time,
    stop: Time,
    /// Hops from sender to receiver, and back.
    forward: Vec<Hop>,
    reverse: Vec<Hop>,
    /// The UE the receiver runs on, in a radio scenario.
    ue: Option<u32>,
    endpoints: Endpoints,
    /// Packets of this flow dropped in the network, by cause.
    losses: BTreeMap<&'static str, u64>,
}

impl Flow {
    fn delivered_bytes(&self) -> u64 {
        match &self.endpoints {
            Endpoints::Tcp { receiver, .. } => receiver.sink.bytes,
            Endpoints::Udp(udp) => udp.sink.bytes,
        }
    }
}

pub struct World {
    now: Time,
    duration: Time,
    queue: EventQueue<Event>,
    /// The links, and the endpoints' outbox into them.
    wire: Wire,
    /// Packet arrivals handled (counted with timer events in the summary).
    arrivals: u64,
    /// When the last sample was taken.
    last_sample: Time,
    /// Packets handed to endpoints, for the conservation check: created (counted by
    /// the wire) = delivered + dropped + in transit.
    delivered: u64,
    flows: Vec<Flow>,
    log: EventLog,
    sampler: Sampler,
    /// The radio access network, in a mmWave scenario.
    ran: Option<Ran>,
    ue_trace: UeTrace,
    radio_log: RadioEventTrace,
    /// Scratch lists for the radio: packets leaving it, its events, packets it dropped.
    radio_out: Vec<Packet>,
    radio_events: Vec<RadioEvent>,
    radio_dropped: Vec<Packet>,
}

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
/// downlink hands up in each slot ([`Ran::record_deliveries`]): the radio's delivery
/// opportunities, for `wavecc trace export`.
pub fn run_recording_deliveries(
    config: &Config,
    ue: u32,
    watch: &mut impl Watch,
) -> Result<(RunOutput, Deliveries), Stopped> {
    let wall = Instant::now();
    let mut world = World::new(config);
    let ran = world.ran.as_mut().expect("a radio scenario");
    ran.record_deliveries(ue);
    world.run_watched(watch)?;
    let ran = world.ran.as_mut().expect("a radio scenario");
    let deliveries = ran.take_deliveries().expect("recording was started");
    Ok((
        world.finish(config, wall.elapsed().as_secs_f64()),
        deliveries,
    ))
}

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

/// The watch of [`run`]: never stops anything.
struct Unwatched;

impl Watch for Unwatched {
    #[inline(always)]
    fn poll(&mut self, _now_s: f64, _duration_s: f64) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl World {
    /// Checks what must hold at any instant, panicking with what broke: every link
    /// conserves packets, no packet is created or lost outside a counted drop, each
    /// application received its bytes exactly once and in order, and each sender's
    /// scoreboard agrees with its counters. Tests call it; it costs a pass over state.
    pub fn check_invariants(&self) {
        let mut dropped = 0;
        let mut in_transit = 0;
        for l in &self.wire.links {
            assert_eq!(
                l.stats.enqueued,
                l.stats.dequeued + l.in_transit() as u64,
                "link {} leaks packets",
                l.name
            );
            dropped += l.stats.dropped_overflow + l.stats.dropped_random;
            in_transit += l.in_transit() as u64;
        }
        if let Some(ran) = &self.ran {
            dropped += ran.dropped();
            in_transit += ran.in_transit();
        }
        assert_eq!(
            self.wire.created,
            self.delivered + dropped + in_transit,
            "packets created != delivered + dropped + in transit"
        );
        for (i, f) in self.flows.iter().enumerate() {
            match &f.endpoints {
                Endpoints::Tcp {
                    sender, receiver, ..
                } => {
                    assert_eq!(
                        receiver.sink.order_violations, 0,
                        "flow {i}: bytes out of order at the application"
                    );
                    assert_eq!(
                        receiver.sink.bytes, receiver.rcv_nxt,
                        "flow {i}: application bytes != rcv_nxt"
                    );
                    assert!(
                        receiver.rcv_nxt >= sender.acked_bytes(),
                        "flow {i}: acknowledged bytes never received"
                    );
                    sender.check_invariants();
                }
                Endpoints::Udp(udp) => assert_eq!(
                    udp.sink.order_violations, 0,
                    "flow {i}: datagrams reordered"
                ),
            }
        }
    }
}
