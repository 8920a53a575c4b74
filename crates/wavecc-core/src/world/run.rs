//! Running a world: the event loop, and the routing of packets between links,
//! radio and endpoints.

use super::radio_times::{RadioTick, RadioTimes};
use super::{Endpoints, Event, Flow, Hop, WakeHold, World};
use crate::engine::{EventQueue, POLL_EVENTS, Stopped, Time, Unwatched, Watch, to_secs};
use crate::net::{Body, Link, Packet, Verdict};
use crate::radio::{RadioEvent, Ran};
use crate::tcp::{FlowEvent, FlowTimer, Io, Outbox, Sender};

impl World {
    /// Runs to the end. At each step the earliest of the link heads, the radio's
    /// times and the timer queue goes next; at equal times links go first, lowest
    /// index first, then the radio and the queue in the order they were scheduled,
    /// so the order is fixed and runs are deterministic.
    pub fn run(&mut self) {
        self.run_watched(&mut Unwatched)
            .expect("an unwatched run never stops early");
    }

    /// [`World::run`], polling `watch` every [`POLL_EVENTS`] events.
    pub fn run_watched(&mut self, watch: &mut impl Watch) -> Result<(), Stopped> {
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
            let radio_time = self.radio_times.next_time();
            let now = link_time.min(self.queue.next_time()).min(radio_time);
            if now > self.duration {
                break;
            }
            self.now = now;
            if link_time == now {
                self.on_link_arrival(link);
            } else if radio_time == now && self.radio_times.goes_before(&self.queue) {
                match self.radio_times.take() {
                    RadioTick::Slot => self.radio_slot(),
                    RadioTick::Landing => self.hand_up(),
                    RadioTick::ChannelUpdate => self.channel_update(),
                }
            } else {
                let (_, event) = self.queue.pop().expect("peeked");
                self.dispatch(event, &mut until_poll);
            }
            // Most events leave nothing pending: test before the call.
            if !self.wire.pending.is_empty() {
                self.flush_pending();
            }
            until_poll -= 1;
            if until_poll == 0 {
                until_poll = POLL_EVENTS;
                // `self.now`: a writer's held wake-ups may have moved it on.
                if watch
                    .poll(to_secs(self.now), to_secs(self.duration))
                    .is_break()
                {
                    return Err(Stopped);
                }
            }
        }
        self.now = self.duration;
        self.take_parked();
        Ok(())
    }

    /// Lets the radio feed's arrivals wait for the radio's next look while a slot is
    /// pending and its downlink buffers have room for every packet that reaches
    /// the gNB before that slot: such an arrival only queues an SDU, which nothing
    /// reads before the slot (or a landing, a sample, a channel update) hands it
    /// over ([`World::take_parked`]), at its own time and in order. Otherwise the
    /// feed's head is an event again, so that a refusal is logged when it
    /// happens. The feed's delay exceeds a slot, so no packet entering it later
    /// reaches the gNB before the pending slot.
    fn park(&mut self) {
        let Some(l) = self.radio_feed else { return };
        let li = l as usize;
        let ran = self.ran.as_ref().expect("a radio feed feeds a radio");
        let link = &self.wire.links[li];
        let parked = ran.slot_pending && {
            let (room, extra) = ran.downlink_room();
            let by = self.now + ran.slot();
            // The bound holds while the buffers have room for a slot's worth at the
            // feed's rate, and spares reading some ten packets at each slot.
            link.bytes_arriving_bound(by, extra)
                .is_some_and(|b| b <= room)
                || link.bytes_arriving_by(by, extra) <= room
        };
        self.wire.link_heads[li] = if parked {
            Time::MAX
        } else {
            link.head_time().unwrap_or(Time::MAX)
        };
    }

    /// Hands the radio the feed's packets that have reached the gNB by now, each
    /// at its arrival, as their arrival events would have; a refusal is logged at
    /// the refused packet's arrival.
    pub(super) fn take_parked(&mut self) {
        let Some(l) = self.radio_feed else { return };
        let now = self.now;
        while let Some((t, refused)) = self.feed_radio(l as usize, now) {
            self.now = t;
            self.record_loss(&refused, "rlc_overflow");
        }
        self.now = now;
    }

    /// Queues the packets that reached the far end of the radio feed (link `li`)
    /// by `now` into the downlink of the radio's one UE, in order and each at its
    /// arrival, up to one the RLC refuses, returned with that arrival. Read in
    /// place and dropped from the link together, and not routed one by one: the
    /// feed's every packet goes on into that downlink ([`World::find_radio_feed`]).
    /// Through the link's arrival and [`World::forward`], each cost about 80
    /// instructions more.
    fn feed_radio(&mut self, li: usize, now: Time) -> Option<(Time, Packet)> {
        let ran = self.ran.as_mut().expect("a radio feed feeds a radio");
        let link = &mut self.wire.links[li];
        let (mut n, mut refused) = (0, None);
        while let Some(&(t, mut pkt)) = link.arrived(n, now) {
            n += 1;
            pkt.hop += 1;
            match ran.enqueue_downlink(t, 0, pkt) {
                Ok(()) => start_slots(ran, &mut self.radio_times, &mut self.queue, t),
                Err(p) => {
                    refused = Some((t, p));
                    break;
                }
            }
        }
        link.drop_arrived(n);
        self.arrivals += n as u64;
        refused
    }

    /// Inlined into the loop, as is [`Self::on_flow_timer`]: most events are a
    /// paced writer's wake-ups, and two calls' register saves cost them about 20
    /// instructions each.
    /// `until_poll` counts the loop's turns to the next poll, which a paced
    /// writer's held wake-ups take too.
    #[inline(always)]
    fn dispatch(&mut self, event: Event, until_poll: &mut u32) {
        match event {
            Event::Sample => self.sample(),
            Event::Flow(FlowEvent { flow, timer }) => {
                self.on_flow_timer(flow, Some(timer), until_poll)
            }
            Event::Start(flow) => self.on_flow_timer(flow, None, until_poll),
        }
    }

    /// Handles what endpoints sent during the event and [`Wire`] left pending:
    /// packets for the radio go to it, packets a link refused are counted lost.
    /// Then the UEs whose uplink took packets report their buffers, once each
    /// ([`Ran::report_uplinks`]): an uplink hop is always the first of a reverse
    /// route, so only this hands packets to an uplink.
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
        if let Some(ran) = &mut self.ran {
            ran.report_uplinks(self.now);
        }
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
            Ok(()) => start_slots(ran, &mut self.radio_times, &mut self.queue, self.now),
            Err(p) => self.record_loss(&p, "rlc_overflow"),
        }
    }

    /// A radio slot: packets the radio hands up go on along their routes, and what
    /// their hosts answer at once reaches the radio before it schedules the slot;
    /// then the landings inside the slot are scheduled.
    fn radio_slot(&mut self) {
        self.hand_up();
        let ran = self.ran.as_mut().expect("slots only with a radio");
        let next = self.now + ran.slot();
        if ran.schedule_slot(self.now) {
            self.radio_times.set_slot(next, &mut self.queue);
        } else {
            ran.slot_pending = false;
        }
        let mut landings = std::mem::take(&mut self.radio_landings);
        ran.landings_within(self.now, next, &mut landings);
        landings.sort_unstable();
        landings.dedup();
        self.radio_times.add_landings(&landings, &mut self.queue);
        landings.clear();
        self.radio_landings = landings;
        self.park();
    }

    /// Packets the radio hands up now go on along their routes, and what their hosts
    /// answer at once reaches the radio.
    fn hand_up(&mut self) {
        self.take_parked();
        let mut out = std::mem::take(&mut self.radio_out);
        let ran = self.ran.as_mut().expect("hand-ups only with a radio");
        ran.hand_up_slot(self.now, &mut out);
        // Read in place and cleared together: `drain` kept its own cursor and moved
        // each packet out through it.
        self.arrivals += out.len() as u64;
        for &pkt in &out {
            self.forward(pkt);
        }
        out.clear();
        self.radio_out = out;
        // Only `flush_pending` hands packets to an uplink, so with nothing pending no
        // uplink report waits either (as after any event, `run_watched`).
        if !self.wire.pending.is_empty() {
            self.flush_pending();
        }
    }

    /// The periodic channel update; packets a handover dropped are counted here.
    fn channel_update(&mut self) {
        self.take_parked();
        let ran = self
            .ran
            .as_mut()
            .expect("channel updates only with a radio");
        let at = ran.update_channels(self.now, &mut self.radio_events, &mut self.radio_dropped);
        let next = ran.next_update(self.now);
        self.radio_times.set_update(next, &mut self.queue);
        for ev in self.radio_events.drain(..) {
            let (ue, kind, cell, from) = match ev {
                RadioEvent::Handover { ue, from, to } => (ue, "handover", to, i64::from(from)),
                RadioEvent::NlosStart { ue, cell } => (ue, "nlos_start", cell, -1),
                RadioEvent::NlosEnd { ue, cell } => (ue, "nlos_end", cell, -1),
            };
            let r = &mut self.radio_log;
            r.t_s.push(to_secs(at));
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
        // A handover's forwarded SDUs take room in the target's buffer.
        self.park();
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
            Body::Syn | Body::SynAck => None,
        };
        let kind = if pkt.is_forward() { "drop" } else { "ack_drop" };
        self.log.log(self.now, pkt.flow, kind, cause, seq);
    }

    fn on_link_arrival(&mut self, link: usize) {
        let l = &mut self.wire.links[link];
        let lost = l.arrived_head(self.now).expect("the head has arrived");
        let pkt = l.take_head();
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
        let mut io = Io {
            now,
            queue: &mut self.queue,
            out: &mut self.wire,
            log: &mut self.log,
        };
        match (&mut flow.endpoints, &pkt.body) {
            (Endpoints::Tcp { sender, receiver }, Body::Data(seg)) => {
                sender.on_receiver_segment(now, receiver.sink.bytes);
                receiver.receive(seg, &mut io);
            }
            (Endpoints::Tcp { sender, receiver }, Body::Ack(ack)) => {
                // Read here, not for every delivery: only an ACK passes it on.
                let sinr_db = self.ran.as_ref().zip(flow.ue).map(|(r, ue)| r.sinr_db(ue));
                sender.set_link_hints(receiver.sink.bytes, sinr_db);
                sender.on_ack(ack, &mut io)
            }
            (Endpoints::Tcp { receiver, .. }, Body::Syn) => receiver.on_syn(&mut io),
            (Endpoints::Tcp { sender, .. }, Body::SynAck) => sender.on_syn_ack(&mut io),
            (Endpoints::Udp(udp), Body::Datagram { seq, len }) => udp.deliver(*seq, *len),
            _ => unreachable!("a packet of the wrong kind for its flow"),
        }
    }

    /// Flow `flow_id`'s timer `which` fired, or (`None`) the flow starts.
    #[inline(always)]
    fn on_flow_timer(&mut self, flow_id: u32, which: Option<FlowTimer>, until_poll: &mut u32) {
        let mut io = Io {
            now: self.now,
            queue: &mut self.queue,
            out: &mut self.wire,
            log: &mut self.log,
        };
        match (&mut self.flows[flow_id as usize].endpoints, which) {
            (Endpoints::Tcp { sender, .. }, None) => sender.start(&mut io),
            (Endpoints::Tcp { sender, .. }, Some(FlowTimer::Rto)) => sender.on_rto_timer(&mut io),
            (Endpoints::Tcp { sender, .. }, Some(FlowTimer::Pace)) => sender.on_pace_timer(&mut io),
            (Endpoints::Tcp { sender, .. }, Some(FlowTimer::AppWake)) => {
                // The wake-up, then each one it held ([`WakeHold`]), a turn of the
                // loop each; none is held in a turn that polls. Nothing here
                // changes the radio's times.
                let bound = (self.radio_times.next_time()).min(self.duration.saturating_add(1));
                let mut held = None;
                loop {
                    io.out.hold.open(if *until_poll > 1 { bound } else { 0 });
                    match held {
                        None => sender.on_app_timer(&mut io),
                        Some(_) => sender.send(&mut io),
                    }
                    held = io.out.hold.take();
                    let Some(t) = held else { break };
                    *until_poll -= 1;
                    io.now = t;
                }
                self.now = io.now;
            }
            (Endpoints::Tcp { receiver, .. }, Some(FlowTimer::DelayedAck)) => {
                receiver.on_delayed_ack_timer(&mut io)
            }
            (Endpoints::Udp(udp), None) => udp.start(&mut io),
            (Endpoints::Udp(udp), Some(FlowTimer::AppWake)) => udp.on_app_timer(&mut io),
            (Endpoints::Udp(_), Some(timer)) => unreachable!("UDP has no {timer:?} timer"),
        }
    }

    /// Runs until simulated time `t` (or the end), for tests that look inside a run.
    pub fn run_until(&mut self, t: Time) {
        self.advance(t, &mut Unwatched)
            .expect("an unwatched run never stops early");
    }

    /// Runs the events up to simulated time `until` (at most the end), polling
    /// `watch` as [`super::run_watched`] does: the stepping entry point for a caller
    /// that acts between steps (a learning agent). Steps of any lengths give the same
    /// events as one run to the end, since only where the loop pauses differs.
    pub fn advance(&mut self, until: Time, watch: &mut impl Watch) -> Result<(), Stopped> {
        let end = self.duration;
        self.duration = until.min(end);
        let out = self.run_watched(watch);
        self.duration = end;
        out
    }

    /// The simulated time reached.
    pub fn now(&self) -> Time {
        self.now
    }

    /// The simulated time the run ends at.
    pub fn duration(&self) -> Time {
        self.duration
    }

    /// Flow `flow`'s TCP sender (None for a UDP flow or an index out of range), for a
    /// caller that reads or sets its socket between steps.
    pub fn sender_mut(&mut self, flow: usize) -> Option<&mut Sender> {
        match &mut self.flows.get_mut(flow)?.endpoints {
            Endpoints::Tcp { sender, .. } => Some(sender),
            Endpoints::Udp(_) => None,
        }
    }

    /// Bytes flow `flow`'s receiving application has received so far.
    pub fn delivered_bytes(&self, flow: usize) -> Option<u64> {
        self.flows.get(flow).map(Flow::delivered_bytes)
    }
}

/// The radio took an SDU at `now`: its slots run from the next boundary on, unless
/// one is pending already.
#[inline(always)]
fn start_slots(ran: &mut Ran, times: &mut RadioTimes, queue: &mut EventQueue<Event>, now: Time) {
    if !ran.slot_pending {
        ran.slot_pending = true;
        times.set_slot(ran.next_slot(now), queue);
    }
}

/// The links and the endpoints' outbox into them. A packet whose route starts with
/// a wired link goes straight into the link's queue, so it is written once, where
/// the link keeps it (written field by field into a scratch list and then copied
/// whole, it stalled the copy on store forwarding). Packets for the radio, and
/// packets the link refuses, wait in `pending` for [`World::flush_pending`], in
/// order. Owned by the world, so handing it to an endpoint costs one reference.
pub(super) struct Wire {
    pub(super) links: Vec<Link>,
    /// `links[i].head_time()`, or `Time::MAX` when link i is empty, kept dense so
    /// that finding the next arrival is a scan of a few words.
    pub(super) link_heads: Vec<Time>,
    /// Each flow's first hops, forward and reverse.
    pub(super) first_hops: Vec<(Hop, Hop)>,
    /// Packets endpoints sent that could not be placed during the event (radio
    /// first hops, tail drops), handled once the event is over.
    pub(super) pending: Vec<Packet>,
    /// Packets endpoints created, for the conservation check.
    pub(super) created: u64,
    /// Far-end arrivals at a tandem's first link taken ahead ([`Wire::pass_on`]),
    /// counted with the world's arrivals once made.
    pub(super) passed: u64,
    /// A paced writer's next wake-up, when it goes before everything else.
    pub(super) hold: WakeHold,
}

impl Wire {
    /// Offers `pkt` to link `link` at `now`; false when the queue is full.
    #[inline(always)]
    fn enqueue(&mut self, now: Time, link: u32, pkt: Packet) -> bool {
        let l = &mut self.links[link as usize];
        if let Some(next) = l.feeds
            && l.idle_at(now)
            && self.pass_on(now, link, next, pkt)
        {
            return true;
        }
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

    /// Link `a`, idle at `now`, feeds link `b` alone (a tandem): `pkt` is served at
    /// once and queued into `b` ahead of its arrival there, which spares its
    /// far-end arrival at `a` (an event) and a copy. `b` then sees the packets
    /// `a` delivers in `a`'s order, each at its own arrival, as if handed over one
    /// by one; what `a` still holds goes first. False, with nothing changed for
    /// `pkt`, when `b` would refuse a packet at its entry: the refusal is a drop
    /// to record then, so that packet and those behind it wait in `a`.
    #[inline(always)]
    fn pass_on(&mut self, now: Time, a: u32, b: u32, mut pkt: Packet) -> bool {
        let (ai, bi) = (a as usize, b as usize);
        if self.links[ai].in_transit() > 0 && !self.hand_over(now, a, b) {
            return false;
        }
        // Both links borrowed once: indexed at each use, every call made the
        // compiler load the list and check the index again.
        let [la, lb] = self
            .links
            .get_disjoint_mut([ai, bi])
            .expect("a tandem joins two links");
        let entry = la.arrival_at_once(now, pkt.size);
        pkt.hop += 1;
        lb.settle_now_and_then(now);
        let Some(was_idle) = lb.enqueue_ahead(entry, pkt) else {
            return false;
        };
        if was_idle {
            self.link_heads[bi] = lb.head_time().expect("just queued");
        }
        la.pass(entry);
        self.passed += 1;
        true
    }

    /// Moves the packets link `a`, idle at `now`, holds (all in flight) into link
    /// `b` ahead of their arrival, in order; false when `b` would refuse one at its
    /// entry, which stays with those behind it. `a` drops the moved ones together
    /// ([`Link::drop_handed_on`]): one by one, its head's bookkeeping cost
    /// `city-100ue` about 30 instructions per delivered segment.
    #[inline(never)]
    fn hand_over(&mut self, now: Time, a: u32, b: u32) -> bool {
        let [la, lb] = self
            .links
            .get_disjoint_mut([a as usize, b as usize])
            .expect("a tandem joins two links");
        let held = la.in_transit();
        let mut moved = 0;
        while moved < held {
            let &(entry, mut pkt) = la.in_flight(moved);
            pkt.hop += 1;
            if lb.enqueue_ahead(entry, pkt).is_none() {
                break;
            }
            moved += 1;
        }
        la.drop_handed_on(now, moved);
        self.passed += moved as u64;
        self.link_heads[a as usize] = la.head_time().unwrap_or(Time::MAX);
        self.link_heads[b as usize] = lb.head_time().unwrap_or(Time::MAX);
        moved == held
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

    #[inline(always)]
    fn hold_wake(&mut self, t: Time, queue_next: Time) -> bool {
        self.hold
            .offer(t, queue_next, &self.link_heads, !self.pending.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use crate::engine::from_secs;
    use crate::scenario::builtin;

    /// `urban` with a bulk flow, a 1.5 Gb/s S1-U and a small Internet buffer, so
    /// that queues build at both links of each tandem, sampled every millisecond.
    fn queueing_urban() -> Config {
        let text = builtin::get("urban").unwrap();
        let body = &text[..text.find("# The papers' server").expect("flows at the end")];
        let toml = format!("{body}[[flows]]\ncca = \"cubic\"\napp = \"bulk\"\n");
        let mut cfg = Config::from_toml(&toml).unwrap();
        cfg.path.buffer_bytes = 30_000;
        cfg.radio.as_mut().unwrap().s1u_rate_bps = 1.5e9;
        cfg.trace.interval_s = 0.001;
        cfg
    }

    /// The output of `cfg` stopped at `stop`, the world built changed by `change`.
    fn output(cfg: &Config, stop: Time, change: fn(&mut World)) -> String {
        let mut world = World::new(cfg);
        change(&mut world);
        world.run_until(stop);
        world.check_invariants();
        let mut out = world.finish(cfg, 0.0);
        out.summary.wall_time_s = 0.0;
        format!("{out:?}")
    }

    #[test]
    fn tandems_change_no_output() {
        let cfg = queueing_urban();
        let mut world = World::new(&cfg);
        let feeds: Vec<_> = world.wire.links.iter().map(|l| l.feeds).collect();
        // The Internet link feeds the S1-U; the S1-U's reverse feeds the Internet's.
        assert_eq!(feeds, [Some(2), None, None, Some(1)]);
        // Queues build at the S1-U, and packets are ahead of their entry at the stop.
        let stop = from_secs(0.4003);
        world.run_until(stop);
        let s1u = &mut world.wire.links[2];
        assert!(s1u.stats.max_bytes > 10_000 && s1u.ahead_of(stop) > 0);
        // Stopped while packets queued ahead have yet to enter, and at the end.
        for stop in [stop, from_secs(1.0)] {
            let untied = |w: &mut World| w.wire.links.iter_mut().for_each(|l| l.feeds = None);
            assert_eq!(output(&cfg, stop, |_| {}), output(&cfg, stop, untied));
        }
    }

    #[test]
    fn a_waiting_radio_feed_changes_no_output() {
        let mut cfg = queueing_urban();
        // A small RLC buffer, so that SDUs are refused and the S1-U's arrivals become
        // events again near its limit.
        let radio = cfg.radio.as_mut().unwrap();
        (radio.rlc_buffer_bytes, radio.s1u_rate_bps) = (300_000, 10e9);
        cfg.path.buffer_bytes = 1_000_000;
        let mut world = World::new(&cfg);
        assert_eq!(world.radio_feed, Some(2));
        // The S1-U's arrivals wait (its head is no event) while it holds packets.
        let mut waiting = 0;
        for ms in 1..=1000 {
            world.run_until(from_secs(f64::from(ms) * 1e-3));
            waiting += u32::from(
                world.wire.link_heads[2] == Time::MAX && world.wire.links[2].in_transit() > 0,
            );
        }
        assert!(waiting > 10, "{waiting}");
        assert!(
            world.flows[0]
                .losses
                .get("rlc_overflow")
                .is_some_and(|&n| n > 0),
            "{:?}",
            world.flows[0].losses
        );
        // Stopped between a slot and the next, when packets wait, and at the end.
        for stop in [from_secs(0.4003), from_secs(1.0)] {
            let eager = |w: &mut World| w.radio_feed = None;
            assert_eq!(output(&cfg, stop, |_| {}), output(&cfg, stop, eager));
        }
    }

    #[test]
    fn held_wake_ups_change_no_output() {
        // `urban`'s 1 Gb/s writer under BBR, whose rate samples see the order of
        // writes and ACKs. It wakes every 11.2 us: in steps of 5 us none of its
        // wake-ups can be held (a held one falls within the step).
        let text = builtin::get("urban").unwrap();
        let body = &text[..text.find("# The papers' server").expect("flows at the end")];
        let flow = "[[flows]]\ncca = \"bbr\"\napp = \"rate\"\nrate_bps = 1e9\n";
        let mut cfg = Config::from_toml(&format!("{body}{flow}")).unwrap();
        cfg.duration_s = 0.5;
        let whole = |w: &mut World| {
            w.run_until(w.duration());
            assert!(w.wire.hold.taken > 10_000, "{}", w.wire.hold.taken);
        };
        let stepped = |w: &mut World| {
            let step = from_secs(5e-6);
            for t in (step..w.duration()).step_by(step as usize) {
                w.run_until(t);
            }
            assert_eq!(w.wire.hold.taken, 0);
        };
        let end = from_secs(cfg.duration_s);
        assert_eq!(output(&cfg, end, whole), output(&cfg, end, stepped));
    }

    #[test]
    fn no_tandem_where_a_link_has_other_neighbours() {
        // Two flows, each with an access link before the bottleneck: the bottleneck
        // is fed by two links, and feeds two.
        let toml = "[[flows]]\naccess_delay_s = 0.001\n[[flows]]\naccess_delay_s = 0.002\n";
        let world = World::new(&Config::from_toml(toml).unwrap());
        assert!(world.wire.links.iter().all(|l| l.feeds.is_none()));
    }
}
