//! The simulated world: the wired path (a shared bottleneck, each flow's optional
//! access link, the reverse path for ACKs), the radio, the endpoints of every flow,
//! and the events that drive them. Three jobs, one file each: `build` makes a world
//! from a validated config, `run` is the event loop and the routing of packets
//! between links, radio and endpoints, `output` samples the traces and assembles
//! the result. Only this module knows every other; nothing imports it but `lib.rs`.

mod build;
mod output;
mod radio_times;
mod run;
mod wake_hold;

use crate::engine::{EventQueue, Time};
use crate::net::Packet;
use crate::radio::{Deliveries, RadioEvent, Ran};
use crate::scenario::AppKind;
use crate::tcp::{FlowEvent, Receiver, Sender};
use crate::trace::{EventLog, RadioEventTrace, Sampler, UeTrace};
use crate::udp::UdpFlow;
use radio_times::RadioTimes;
use run::Wire;
use std::collections::BTreeMap;
use wake_hold::WakeHold;

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
    /// Scratch for the landings of the slot about to start.
    radio_landings: Vec<Time>,
    /// The radio's pending slot (scheduled only while the radio holds packets),
    /// the instants TBs land at inside a slot (`Ran::landings_within`) and the next
    /// channel update.
    radio_times: RadioTimes,
    radio_events: Vec<RadioEvent>,
    radio_dropped: Vec<Packet>,
    /// The link whose every packet goes into the radio's downlink (the S1-U), if
    /// its arrivals may wait for the radio's next look (`World::park`).
    radio_feed: Option<u32>,
}

impl World {
    /// Records what UE `ue`'s downlink hands up in each slot from now on
    /// ([`Ran::record_deliveries`]). Panics without a radio.
    pub fn record_deliveries(&mut self, ue: u32) {
        let ran = self.ran.as_mut().expect("a radio scenario");
        ran.record_deliveries(ue);
    }

    /// The record [`World::record_deliveries`] started.
    pub fn take_deliveries(&mut self) -> Deliveries {
        let ran = self.ran.as_mut().expect("a radio scenario");
        ran.take_deliveries().expect("recording was started")
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
