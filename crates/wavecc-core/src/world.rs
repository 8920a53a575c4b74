//! Builds the simulated world from a validated config and runs it: the wired path
//! (a shared bottleneck, each flow's optional access link, the reverse path for
//! ACKs), the endpoints of every flow, the event loop and the sampler.

use crate::app::Source;
use crate::cc::Socket;
use crate::engine::{EventQueue, RngExt as _, RngStreams, Time, Timer, from_secs, to_secs};
use crate::net::{
    Body, GilbertElliottParams, Link, LossModel, Packet, QueueLimit, UDP_HEADER_BYTES, Verdict,
};
use crate::radio::{RadioEvent, Ran};
use crate::scenario::{AppKind, Config, FlowConfig, LossDirection};
use crate::tcp::{
    AckPolicy, AppSink, FlowEvent, FlowTimer, Io, Outbox, Receiver, ReceiverConfig, RttEstimator,
    Sender, SenderConfig, TimerEvent,
};
use crate::trace::{
    EventLog, FlowSampler, FlowState, FlowSummary, QueueSummary, RadioEventTrace, RunOutput,
    Sampler, Summary, UeTrace,
};
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

/// Link indices of the mmWave core network (after the Internet link's two).
const S1U: u32 = 2;
const S1U_REVERSE: u32 = 3;

/// A flow's endpoints.
enum Endpoints {
    Tcp {
        sender: Box<Sender>,
        receiver: Receiver,
        delayed_ack: Timer,
        delayed_ack_timeout: Time,
    },
    Udp {
        source: Source,
        sent: u64,
        chunk: u32,
        sink: AppSink,
        timer: Timer,
        sampler: FlowSampler,
    },
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
            Endpoints::Udp { sink, .. } => sink.bytes,
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

fn data_only(p: &Packet) -> bool {
    p.is_forward()
}

fn acks_only(p: &Packet) -> bool {
    !p.is_forward()
}

impl World {
    pub fn new(cfg: &Config) -> Self {
        let rng = RngStreams::new(cfg.seed);
        let p = &cfg.path;
        let limit = if p.buffer_packets > 0 {
            QueueLimit::Packets(p.buffer_packets)
        } else {
            QueueLimit::Bytes(p.buffer_bytes)
        };
        let delay = from_secs(p.one_way_delay_s);
        let reverse_rate = if p.reverse_rate_bps > 0.0 {
            p.reverse_rate_bps
        } else {
            p.rate_bps
        };
        let loss = |name: &str| {
            LossModel::new(
                p.loss.per_byte,
                p.loss.per_packet,
                p.loss
                    .gilbert_elliott
                    .as_ref()
                    .map(|g| GilbertElliottParams {
                        p_good_to_bad: g.p_good_to_bad,
                        p_bad_to_good: g.p_bad_to_good,
                        loss_good: g.loss_good,
                        loss_bad: g.loss_bad,
                    }),
                rng.stream(name),
            )
        };
        // With a radio, the wired path is the Internet link from the server to the PGW.
        let name = if cfg.radio.is_some() {
            "internet"
        } else {
            "bottleneck"
        };
        let mut forward = Link::new(name, p.rate_bps, delay, limit);
        let mut reverse = Link::new(format!("{name}-reverse"), reverse_rate, delay, limit);
        if matches!(p.loss.direction, LossDirection::Data | LossDirection::Both) {
            forward = forward.with_loss(loss(&format!("loss/{name}")), data_only);
        }
        if matches!(p.loss.direction, LossDirection::Ack | LossDirection::Both) {
            reverse = reverse.with_loss(loss(&format!("loss/{name}-reverse")), acks_only);
        }
        let mut links = vec![forward, reverse];
        if let Some(r) = &cfg.radio {
            let s1u_delay = from_secs(r.s1u_delay_s);
            links.push(Link::new(
                "s1u",
                r.s1u_rate_bps,
                s1u_delay,
                QueueLimit::Unlimited,
            ));
            links.push(Link::new(
                "s1u-reverse",
                r.s1u_rate_bps,
                s1u_delay,
                QueueLimit::Unlimited,
            ));
        }
        let mut world = World {
            now: 0,
            duration: from_secs(cfg.duration_s),
            queue: EventQueue::default(),
            wire: Wire {
                links,
                link_heads: Vec::new(),
                first_hops: Vec::new(),
                pending: Vec::new(),
                created: 0,
            },
            arrivals: 0,
            last_sample: 0,
            delivered: 0,
            flows: Vec::new(),
            log: EventLog::new(cfg.trace.events, cfg.trace.max_events),
            sampler: Sampler::new(from_secs(cfg.trace.interval_s)),
            ran: cfg.radio.as_ref().map(|r| Ran::new(r, &rng)),
            ue_trace: UeTrace::default(),
            radio_log: RadioEventTrace::default(),
            radio_out: Vec::new(),
            radio_events: Vec::new(),
            radio_dropped: Vec::new(),
        };
        if world.ran.is_some() {
            world.queue.push(0, Event::ChannelUpdate);
        }
        for (i, f) in cfg.flows.iter().enumerate() {
            let flow = world.build_flow(cfg, i as u32, f, &rng);
            world
                .wire
                .first_hops
                .push((flow.forward[0], flow.reverse[0]));
            world.flows.push(flow);
            world
                .queue
                .push(from_secs(f.start_s), Event::Start(i as u32));
        }
        world.queue.push(world.sampler.interval, Event::Sample);
        world.wire.link_heads = vec![Time::MAX; world.wire.links.len()];
        world
    }

    fn build_flow(&mut self, cfg: &Config, id: u32, f: &FlowConfig, rng: &RngStreams) -> Flow {
        let (mut forward, mut reverse) = (vec![Hop::Link(0)], vec![Hop::Link(1)]);
        let ue = cfg.radio.as_ref().map(|_| f.ue);
        if let Some(ue) = ue {
            forward.extend([Hop::Link(S1U), Hop::Downlink(ue)]);
            reverse.splice(0..0, [Hop::Uplink(ue), Hop::Link(S1U_REVERSE)]);
        }
        if f.access_delay_s > 0.0 || f.access_rate_bps.is_some() {
            let rate = f.access_rate_bps.unwrap_or(f64::INFINITY);
            let delay = from_secs(f.access_delay_s);
            let n = self.wire.links.len() as u32;
            self.wire.links.push(Link::new(
                format!("access/flow{id}"),
                rate,
                delay,
                QueueLimit::Unlimited,
            ));
            self.wire.links.push(Link::new(
                format!("access-reverse/flow{id}"),
                rate,
                delay,
                QueueLimit::Unlimited,
            ));
            forward.insert(0, Hop::Link(n));
            reverse.push(Hop::Link(n + 1));
        }
        let t = &cfg.tcp;
        let duration = from_secs(cfg.duration_s);
        let source = Source::new(
            f,
            t.mss_bytes,
            duration,
            rng.stream(&format!("app/flow{id}")),
        );
        let endpoints = if f.app == AppKind::Udp {
            Endpoints::Udp {
                source,
                sent: 0,
                chunk: f.write_bytes_or(t.mss_bytes),
                sink: AppSink::default(),
                timer: Timer::default(),
                sampler: FlowSampler::default(),
            }
        } else {
            let mut cc =
                crate::cc::build(&f.cca, f.cc.as_ref().unwrap_or(&serde_json::Value::Null))
                    .expect("validated");
            cc.seed(rng.stream(&format!("cc/flow{id}")).random());
            let ssthresh = t.initial_ssthresh_segments.map_or(f64::INFINITY, f64::from);
            let sock = Socket::new(t.mss_bytes, t.initial_cwnd_segments as f64, ssthresh);
            let sender_cfg = SenderConfig {
                mss: t.mss_bytes,
                sack: t.sack,
                timestamps: t.timestamps,
                dupthresh: t.dupthresh,
                snd_buf: t.snd_buf_bytes,
                pacing: t.pacing,
                pacing_burst: from_secs(t.pacing_burst_s),
                undo: t.undo,
                cwnd_validation: t.cwnd_validation,
                rtt_granularity: from_secs(t.rtt_granularity_s),
                cc_rtt: t.cc_rtt,
                recovery: t.recovery,
                recovery_sends: t.recovery_sends,
                partial_ack_rto: t.partial_ack_rto,
                rate_samples: t.rate_samples,
                pipe: t.pipe,
            };
            let rtt = RttEstimator::new(t.initial_rto_s, t.min_rto_s, t.max_rto_s);
            let receiver = Receiver::new(ReceiverConfig {
                sack: t.sack,
                delayed_ack: t.delayed_ack,
                ack_every: t.ack_every_segments,
                rcv_buf: t.rcv_buf_bytes,
                quickack: t.quickack_segments,
                window: t.receive_window,
            });
            Endpoints::Tcp {
                sender: Box::new(Sender::new(id, sender_cfg, cc, sock, rtt, source)),
                receiver,
                delayed_ack: Timer::default(),
                delayed_ack_timeout: from_secs(t.delayed_ack_timeout_s),
            }
        };
        let start = from_secs(f.start_s);
        Flow {
            cca: if f.app == AppKind::Udp {
                "udp".into()
            } else {
                f.cca.clone()
            },
            app: f.app,
            start,
            stop: f.stop_s.map_or(duration, from_secs).min(duration),
            forward,
            reverse,
            ue,
            endpoints,
            losses: BTreeMap::new(),
        }
    }

    /// Runs to the end. At each step the earliest of the link heads and the timer
    /// queue goes next; at equal times links go first, lowest index first, so the
    /// order is fixed and runs are deterministic.
    pub fn run(&mut self) {
        self.run_watched(&mut Unwatched)
            .expect("an unwatched run never stops early");
    }

    /// [`World::run`], polling `watch` every [`POLL_EVENTS`] events.
    fn run_watched(&mut self, watch: &mut impl Watch) -> Result<(), Stopped> {
        let mut until_poll = POLL_EVENTS;
        loop {
            let (link, link_time) =
                self.wire
                    .link_heads
                    .iter()
                    .enumerate()
                    .fold(
                        (0, Time::MAX),
                        |best, (i, &t)| if t < best.1 { (i, t) } else { best },
                    );
            let timer_time = self.queue.next_time();
            let now = link_time.min(timer_time);
            if now > self.duration {
                break;
            }
            self.now = now;
            if link_time <= timer_time {
                self.on_link_arrival(link);
            } else {
                let (_, event) = self.queue.pop().expect("peeked");
                self.dispatch(event);
            }
            self.flush_pending();
            until_poll -= 1;
            if until_poll == 0 {
                until_poll = POLL_EVENTS;
                if watch.poll(to_secs(now), to_secs(self.duration)).is_break() {
                    return Err(Stopped);
                }
            }
        }
        self.now = self.duration;
        Ok(())
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Sample => self.sample(),
            Event::RadioSlot => self.radio_slot(),
            Event::ChannelUpdate => self.channel_update(),
            Event::Flow(FlowEvent { flow, timer }) => self.on_flow_timer(flow, Some(timer)),
            Event::Start(flow) => self.on_flow_timer(flow, None),
        }
    }

    /// Handles what endpoints sent during the event and [`Wire`] left pending:
    /// packets for the radio go to it, packets a link refused are counted lost.
    fn flush_pending(&mut self) {
        for i in 0..self.wire.pending.len() {
            let pkt = self.wire.pending[i];
            let (forward, reverse) = self.wire.first_hops[pkt.flow as usize];
            match if pkt.is_forward() { forward } else { reverse } {
                Hop::Link(_) => self.record_loss(&pkt, "overflow"),
                hop => self.send_to(hop, pkt),
            }
        }
        self.wire.pending.clear();
    }

    /// Hands a packet to a hop: a link's queue or the radio's RLC buffer.
    fn send_to(&mut self, hop: Hop, pkt: Packet) {
        let (ue, downlink) = match hop {
            Hop::Link(link) => return self.enqueue(link, pkt),
            Hop::Downlink(ue) => (ue, true),
            Hop::Uplink(ue) => (ue, false),
        };
        let ran = self
            .ran
            .as_mut()
            .expect("radio hops exist only with a radio");
        let accepted = if downlink {
            ran.enqueue_downlink(self.now, ue, pkt)
        } else {
            ran.enqueue_uplink(self.now, ue, pkt)
        };
        match accepted {
            Ok(()) if !ran.slot_pending => {
                ran.slot_pending = true;
                self.queue.push(ran.next_slot(self.now), Event::RadioSlot);
            }
            Ok(()) => {}
            Err(p) => self.record_loss(&p, "rlc_overflow"),
        }
    }

    /// A radio slot: packets the radio hands up go on along their routes.
    fn radio_slot(&mut self) {
        let mut out = std::mem::take(&mut self.radio_out);
        let ran = self.ran.as_mut().expect("slots only with a radio");
        let busy = ran.run_slot(self.now, &mut out);
        if busy {
            self.queue.push(self.now + ran.slot(), Event::RadioSlot);
        } else {
            ran.slot_pending = false;
        }
        for pkt in out.drain(..) {
            self.arrivals += 1;
            self.forward(pkt);
        }
        self.radio_out = out;
    }

    /// The periodic channel update; packets a handover dropped are counted here.
    fn channel_update(&mut self) {
        let ran = self
            .ran
            .as_mut()
            .expect("channel updates only with a radio");
        ran.update_channels(self.now, &mut self.radio_events, &mut self.radio_dropped);
        self.queue
            .push(self.now + ran.update_interval(), Event::ChannelUpdate);
        for ev in self.radio_events.drain(..) {
            let (ue, kind, cell, from) = match ev {
                RadioEvent::Handover { ue, from, to } => (ue, "handover", to, i64::from(from)),
                RadioEvent::NlosStart { ue, cell } => (ue, "nlos_start", cell, -1),
                RadioEvent::NlosEnd { ue, cell } => (ue, "nlos_end", cell, -1),
            };
            let r = &mut self.radio_log;
            r.t_s.push(to_secs(self.now));
            r.ue.push(ue);
            r.kind.push(kind);
            r.cell.push(cell);
            r.from_cell.push(from);
        }
        let dropped = std::mem::take(&mut self.radio_dropped);
        for p in &dropped {
            self.record_loss(p, "handover");
        }
        self.radio_dropped = dropped;
        self.radio_dropped.clear();
    }

    fn enqueue(&mut self, link: u32, pkt: Packet) {
        if !self.wire.enqueue(self.now, link, pkt) {
            self.record_loss(&pkt, "overflow");
        }
    }

    fn record_loss(&mut self, pkt: &Packet, cause: &'static str) {
        let flow = &mut self.flows[pkt.flow as usize];
        *flow.losses.entry(cause).or_default() += 1;
        let seq = match pkt.body {
            Body::Data(s) => Some(s.seq),
            Body::Ack(a) => Some(a.ack),
            Body::Datagram { seq, .. } => Some(seq),
        };
        let kind = if pkt.is_forward() { "drop" } else { "ack_drop" };
        self.log.log(self.now, pkt.flow, kind, cause, seq);
    }

    fn on_link_arrival(&mut self, link: usize) {
        let l = &mut self.wire.links[link];
        let (pkt, lost) = l.pop_arrived(self.now).expect("the head has arrived");
        self.wire.link_heads[link] = l.head_time().unwrap_or(Time::MAX);
        self.arrivals += 1;
        if lost {
            self.record_loss(&pkt, "random");
        } else {
            self.forward(pkt);
        }
    }

    /// A packet left a hop: on to the next one, or to its endpoint.
    fn forward(&mut self, mut pkt: Packet) {
        pkt.hop += 1;
        let flow = &self.flows[pkt.flow as usize];
        let route = if pkt.is_forward() {
            &flow.forward
        } else {
            &flow.reverse
        };
        match route.get(pkt.hop as usize) {
            // Wired hops inline: the packet is not copied once more on its way.
            Some(&Hop::Link(link)) => self.enqueue(link, pkt),
            Some(&next) => self.send_to(next, pkt),
            None => self.deliver(pkt),
        }
    }

    /// A packet reached the end of its route.
    fn deliver(&mut self, pkt: Packet) {
        self.delivered += 1;
        let now = self.now;
        let flow_id = pkt.flow;
        let flow = &mut self.flows[flow_id as usize];
        let sinr_db = self
            .ran
            .as_ref()
            .zip(flow.ue)
            .map(|(ran, ue)| ran.sinr_db(ue));
        let mut io = Io {
            now,
            queue: &mut self.queue,
            out: &mut self.wire,
            log: &mut self.log,
        };
        match (&mut flow.endpoints, &pkt.body) {
            (
                Endpoints::Tcp {
                    sender,
                    receiver,
                    delayed_ack,
                    delayed_ack_timeout,
                    ..
                },
                Body::Data(seg),
            ) => {
                sender
                    .sock
                    .link
                    .receiver_grid
                    .advance(now, receiver.sink.bytes);
                match receiver.on_segment(seg) {
                    AckPolicy::Now => send_ack(flow_id, receiver, delayed_ack, &mut io),
                    AckPolicy::Delay => {
                        if !delayed_ack.is_set() {
                            delayed_ack.set(
                                now + *delayed_ack_timeout,
                                io.queue,
                                Event::from(FlowEvent {
                                    flow: flow_id,
                                    timer: FlowTimer::DelayedAck,
                                }),
                            );
                        }
                    }
                }
            }
            (
                Endpoints::Tcp {
                    sender, receiver, ..
                },
                Body::Ack(ack),
            ) => {
                sender.sock.link.receiver_delivered_bytes = receiver.sink.bytes;
                sender.sock.link.sinr_db = sinr_db;
                sender.on_ack(ack, &mut io)
            }
            (Endpoints::Udp { sink, .. }, Body::Datagram { seq, len }) => {
                sink.deliver_datagram(*seq, *len as u64)
            }
            _ => unreachable!("a packet of the wrong kind for its flow"),
        }
    }

    /// Flow `flow_id`'s timer `which` fired, or (`None`) the flow starts.
    fn on_flow_timer(&mut self, flow_id: u32, which: Option<FlowTimer>) {
        let mut io = Io {
            now: self.now,
            queue: &mut self.queue,
            out: &mut self.wire,
            log: &mut self.log,
        };
        match &mut self.flows[flow_id as usize].endpoints {
            Endpoints::Tcp {
                sender,
                receiver,
                delayed_ack,
                ..
            } => match which {
                Some(FlowTimer::Rto) => sender.on_rto_timer(&mut io),
                Some(FlowTimer::Pace) => sender.on_pace_timer(&mut io),
                Some(FlowTimer::AppWake) => sender.on_app_timer(&mut io),
                None => sender.send(&mut io),
                Some(FlowTimer::DelayedAck) => {
                    let event = FlowEvent {
                        flow: flow_id,
                        timer: FlowTimer::DelayedAck,
                    };
                    if delayed_ack.fire(io.now, io.queue, event.into()) {
                        send_ack(flow_id, receiver, delayed_ack, &mut io);
                    }
                }
            },
            Endpoints::Udp {
                source,
                sent,
                chunk,
                timer,
                ..
            } => {
                let due = match which {
                    None => true,
                    Some(kind) => {
                        let event = FlowEvent {
                            flow: flow_id,
                            timer: kind,
                        };
                        timer.fire(io.now, io.queue, event.into())
                    }
                };
                if due {
                    udp_send(flow_id, source, sent, *chunk, timer, &mut io);
                }
            }
        }
    }

    /// The periodic sample, which schedules the next one.
    fn sample(&mut self) {
        self.record_sample();
        self.queue
            .push(self.now + self.sampler.interval, Event::Sample);
    }

    /// Appends one row per flow and per queue for the interval ending now.
    fn record_sample(&mut self) {
        let now = self.now;
        let dt = now - self.last_sample;
        self.last_sample = now;
        let s = &mut self.sampler;
        for (i, f) in self.flows.iter_mut().enumerate() {
            let delivered = f.delivered_bytes();
            match &mut f.endpoints {
                Endpoints::Tcp { sender, .. } => {
                    let st = sender.state();
                    s.flow_row(now, dt, i as u32, delivered, &mut sender.sampler, st);
                    sender.cc_state(&mut s.scratch);
                    s.cc_rows(now, i as u32);
                }
                Endpoints::Udp { sampler, .. } => {
                    s.flow_row(now, dt, i as u32, delivered, sampler, FlowState::NONE)
                }
            }
        }
        for l in &mut self.wire.links {
            let occ = l.occupancy(now);
            s.queue_row(
                now,
                &l.name,
                occ,
                (l.stats.dropped_overflow, l.stats.dropped_random),
            );
        }
        if let Some(ran) = &self.ran {
            for u in 0..ran.ue_count() {
                let (snap, t) = (ran.snapshot(u), &mut self.ue_trace);
                t.t_s.push(to_secs(now));
                t.ue.push(u as u32);
                t.x_m.push(snap.position.x);
                t.y_m.push(snap.position.y);
                t.cell.push(snap.cell);
                t.sinr_db.push(snap.sinr_db);
                t.mcs.push(snap.mcs);
                t.los.push(snap.los);
                t.rlc_bytes.push(snap.rlc_bytes);
                t.rlc_packets.push(snap.rlc_packets);
                t.rlc_drops.push(snap.rlc_drops);
                t.harq_retx.push(snap.harq_retx);
            }
        }
    }

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
                Endpoints::Udp { sink, .. } => {
                    assert_eq!(sink.order_violations, 0, "flow {i}: datagrams reordered")
                }
            }
        }
    }

    /// Runs until simulated time `t` (or the end), for tests that look inside a run.
    pub fn run_until(&mut self, t: Time) {
        let end = self.duration;
        self.duration = t.min(end);
        self.run();
        self.duration = end;
    }

    fn finish(mut self, cfg: &Config, wall_time_s: f64) -> RunOutput {
        if self.last_sample < self.now {
            // The last stretch, when the duration is not a multiple of the interval.
            self.record_sample();
        }
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| flow_summary(i as u32, f, self.now))
            .collect();
        let queues = self
            .wire
            .links
            .iter()
            .map(|l| QueueSummary {
                queue: l.name.clone(),
                enqueued: l.stats.enqueued,
                dequeued: l.stats.dequeued,
                dropped_overflow: l.stats.dropped_overflow,
                dropped_random: l.stats.dropped_random,
                max_bytes: l.stats.max_bytes,
            })
            .collect();
        let summary = Summary {
            name: cfg.name.clone(),
            seed: cfg.seed,
            sim_time_s: to_secs(self.now),
            wall_time_s,
            events: self.queue.events_processed() + self.arrivals,
            flows,
            queues,
            ues: self.ran.as_ref().map_or_else(Vec::new, |ran| {
                (0..ran.ue_count())
                    .map(|u| ran.ue_summary(u, self.now))
                    .collect()
            }),
            cells: self.ran.as_ref().map_or_else(Vec::new, |ran| {
                (0..ran.cell_count()).map(|g| ran.cell_summary(g)).collect()
            }),
        };
        RunOutput {
            summary,
            flows: self.sampler.flows,
            queues: self.sampler.queues,
            cc: self.sampler.cc,
            events: self.log.trace,
            ues: self.ue_trace,
            radio_events: self.radio_log,
        }
    }
}

/// The links and the endpoints' outbox into them. A packet whose route starts with
/// a wired link goes straight into the link's queue, so it is written once, where
/// the link keeps it (written field by field into a scratch list and then copied
/// whole, it stalled the copy on store forwarding). Packets for the radio, and
/// packets the link refuses, wait in `pending` for [`World::flush_pending`], in
/// order. Owned by the world, so handing it to an endpoint costs one reference.
struct Wire {
    links: Vec<Link>,
    /// `links[i].head_time()`, or `Time::MAX` when link i is empty, kept dense so
    /// that finding the next arrival is a scan of a few words.
    link_heads: Vec<Time>,
    /// Each flow's first hops, forward and reverse.
    first_hops: Vec<(Hop, Hop)>,
    /// Packets endpoints sent that could not be placed during the event (radio
    /// first hops, tail drops), handled once the event is over.
    pending: Vec<Packet>,
    /// Packets endpoints created, for the conservation check.
    created: u64,
}

impl Wire {
    /// Offers `pkt` to link `link` at `now`; false when the queue is full.
    #[inline(always)]
    fn enqueue(&mut self, now: Time, link: u32, pkt: Packet) -> bool {
        let l = &mut self.links[link as usize];
        match l.enqueue(now, pkt) {
            Verdict::Accepted { was_idle } => {
                if was_idle {
                    self.link_heads[link as usize] = l.head_time().expect("just queued");
                }
                true
            }
            Verdict::Overflow => false,
        }
    }
}

impl Outbox for Wire {
    #[inline(always)]
    fn send(&mut self, now: Time, pkt: Packet) {
        self.created += 1;
        let (forward, reverse) = self.first_hops[pkt.flow as usize];
        let Hop::Link(link) = (if pkt.is_forward() { forward } else { reverse }) else {
            return self.pending.push(pkt);
        };
        if !self.enqueue(now, link, pkt) {
            self.pending.push(pkt);
        }
    }
}

fn send_ack(
    flow: u32,
    receiver: &mut Receiver,
    delayed_ack: &mut Timer,
    io: &mut Io<impl Outbox, impl TimerEvent>,
) {
    delayed_ack.cancel();
    let ack = receiver.make_ack();
    io.out.send(
        io.now,
        Packet {
            flow,
            size: ack.wire_size(),
            hop: 0,
            body: Body::Ack(ack),
        },
    );
}

fn udp_send(
    flow: u32,
    source: &mut Source,
    sent: &mut u64,
    chunk: u32,
    timer: &mut Timer,
    io: &mut Io<impl Outbox, impl TimerEvent>,
) {
    // No send buffer: every write leaves at once as one datagram.
    let written = source.written(io.now, *sent, u64::MAX / 4);
    while *sent < written {
        let len = (written - *sent).min(chunk as u64) as u32;
        io.out.send(
            io.now,
            Packet {
                flow,
                size: (len + UDP_HEADER_BYTES) as u16,
                hop: 0,
                body: Body::Datagram { seq: *sent, len },
            },
        );
        *sent += len as u64;
    }
    if let Some(t) = source.next_write() {
        let event = FlowEvent {
            flow,
            timer: FlowTimer::AppWake,
        };
        timer.set(t.max(io.now + 1), io.queue, event.into());
    }
}

fn flow_summary(id: u32, f: &Flow, end: Time) -> FlowSummary {
    let active_s = to_secs(f.stop.min(end).saturating_sub(f.start)).max(f64::MIN_POSITIVE);
    let bytes = f.delivered_bytes();
    let mut s = FlowSummary {
        flow: id,
        cca: f.cca.clone(),
        app: f.app.as_str().into(),
        transport: if f.app == AppKind::Udp { "udp" } else { "tcp" },
        goodput_mbps: bytes as f64 * 8.0 / active_s / 1e6,
        bytes_delivered: bytes,
        mean_rtt_ms: f64::NAN,
        p50_rtt_ms: f64::NAN,
        p95_rtt_ms: f64::NAN,
        min_rtt_ms: f64::NAN,
        rtt_samples: 0,
        segments_sent: 0,
        retransmitted_segments: 0,
        rto_events: 0,
        fast_recovery_episodes: 0,
        spurious_retransmissions: 0,
        losses: f.losses.clone(),
    };
    if let Endpoints::Tcp { sender, .. } = &f.endpoints {
        let (r, c) = (&sender.rtt_stats, &sender.counters);
        s.mean_rtt_ms = r.mean_ms();
        s.p50_rtt_ms = r.quantile_ms(0.5);
        s.p95_rtt_ms = r.quantile_ms(0.95);
        s.min_rtt_ms = r.min_ms();
        s.rtt_samples = r.count();
        s.segments_sent = c.segments_sent;
        s.retransmitted_segments = c.retransmitted_segments;
        s.rto_events = c.rto_events;
        s.fast_recovery_episodes = c.fast_recovery_episodes;
        s.spurious_retransmissions = c.spurious_retransmissions;
    }
    s
}
