//! Building a world from a validated config: links, radio, routes and endpoints.

use super::{Endpoints, Event, Flow, Hop, RadioTimes, WakeHold, Wire, World};
use crate::Config;
use crate::app::Source;
use crate::cc::Socket;
use crate::engine::{EventQueue, RngExt as _, RngStreams, Time, from_secs};
use crate::net::{GilbertElliottParams, Link, LinkTrace, LossModel, Packet, QueueLimit};
use crate::radio::Ran;
use crate::scenario::{AppKind, FlowConfig, LossDirection};
use crate::tcp::{Receiver, ReceiverConfig, RttEstimator, Sender, SenderConfig};
use crate::trace::{EventLog, RadioEventTrace, Sampler, UeTrace};
use crate::udp::UdpFlow;
use std::collections::BTreeMap;

/// Link indices of the mmWave core network (after the Internet link's two).
const S1U: u32 = 2;
const S1U_REVERSE: u32 = 3;

fn data_only(p: &Packet) -> bool {
    p.is_forward()
}

fn acks_only(p: &Packet) -> bool {
    !p.is_forward()
}

/// The path's two links from a link trace (`path.trace`): the data direction served
/// by its slots, with its random loss; the ACK direction at its reverse rate.
fn trace_links(name: &str, trace: &LinkTrace, loss_rng: crate::engine::Rng) -> Vec<Link> {
    let limit = trace
        .buffer_bytes
        .map_or(QueueLimit::Unlimited, QueueLimit::Bytes);
    let loss = LossModel::new(trace.loss_per_byte, trace.loss_per_packet, None, loss_rng);
    let forward = Link::with_slots(
        name,
        from_secs(trace.slot_s),
        trace.bytes.as_slice().into(),
        from_secs(trace.forward_delay_s),
        limit,
    )
    .with_loss(loss, data_only);
    let reverse = Link::new(
        format!("{name}-reverse"),
        trace.reverse_rate_bps.unwrap_or(f64::INFINITY),
        from_secs(trace.reverse_delay_s),
        limit,
    );
    vec![forward, reverse]
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
        let mut links = if let Some(trace) = &p.trace_link {
            trace_links(name, trace, rng.stream(&format!("loss/{name}")))
        } else {
            let mut forward = Link::new(name, p.rate_bps, delay, limit);
            let mut reverse = Link::new(format!("{name}-reverse"), reverse_rate, delay, limit);
            if matches!(p.loss.direction, LossDirection::Data | LossDirection::Both) {
                forward = forward.with_loss(loss(&format!("loss/{name}")), data_only);
            }
            if matches!(p.loss.direction, LossDirection::Ack | LossDirection::Both) {
                reverse = reverse.with_loss(loss(&format!("loss/{name}-reverse")), acks_only);
            }
            vec![forward, reverse]
        };
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
                passed: 0,
                hold: WakeHold::new(),
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
            radio_landings: Vec::new(),
            radio_times: RadioTimes::new(),
            radio_events: Vec::new(),
            radio_dropped: Vec::new(),
            radio_feed: None,
        };
        if world.ran.is_some() {
            world.radio_times.set_update(0, &mut world.queue);
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
        world.join_tandems();
        world.radio_feed = world.find_radio_feed();
        world
    }

    /// Marks each tandem: a link whose packets all go on into one other link,
    /// which takes packets from it alone (the Internet link and the S1-U, each
    /// way). The first link then passes the packets that find it idle straight
    /// on (see `Wire::pass_on`). Its random loss would be judged at its far end,
    /// so a lossy first link is left alone, as is one served by a trace's slots;
    /// the second must add a delay, so that a packet queued into it ahead leaves
    /// it strictly after entering, as the handed-over packet would. No link is in
    /// two tandems.
    fn join_tandems(&mut self) {
        /// The hop next to a link on the routes through it: one link on all, or not.
        #[derive(Clone, Copy, PartialEq)]
        enum Next {
            Unseen,
            Link(u32),
            Other,
        }
        fn meet(seen: &mut Next, hop: Option<&Hop>) {
            let next = match hop {
                Some(&Hop::Link(l)) => Next::Link(l),
                _ => Next::Other,
            };
            if *seen == Next::Unseen {
                *seen = next;
            } else if *seen != next {
                *seen = Next::Other;
            }
        }
        let n = self.wire.links.len();
        let (mut before, mut after) = (vec![Next::Unseen; n], vec![Next::Unseen; n]);
        for f in &self.flows {
            for route in [&f.forward, &f.reverse] {
                for (i, hop) in route.iter().enumerate() {
                    if let Hop::Link(l) = *hop {
                        let prev = i.checked_sub(1).and_then(|j| route.get(j));
                        meet(&mut before[l as usize], prev);
                        meet(&mut after[l as usize], route.get(i + 1));
                    }
                }
            }
        }
        let mut joined = vec![false; n];
        for a in 0..n {
            let Next::Link(b) = after[a] else { continue };
            let b = b as usize;
            let (first, second) = (&self.wire.links[a], &self.wire.links[b]);
            if before[b] == Next::Link(a as u32)
                && a != b
                && !joined[a]
                && !joined[b]
                && !first.has_loss()
                && first.constant_rate()
                && second.delay() > 0
            {
                joined[a] = true;
                joined[b] = true;
                self.wire.links[a].feeds = Some(b as u32);
            }
        }
    }

    /// The S1-U, as the radio feed whose arrivals may wait for the radio's next
    /// look (`World::park`): when the radio serves one UE, every route through the
    /// S1-U goes on into the radio's downlink and every downlink hop comes from it,
    /// it has no random loss (judged at the far end) and its delay exceeds a slot.
    /// Its packets then go into that UE's downlink without being routed one by one
    /// (`World::feed_radio`).
    /// With many UEs the least room of their buffers, checked at each slot, costs
    /// more than the hand-offs save.
    fn find_radio_feed(&self) -> Option<u32> {
        let ran = self.ran.as_ref().filter(|r| r.ue_count() == 1)?;
        let link = self.wire.links.get(S1U as usize)?;
        if link.has_loss() || link.delay() <= ran.slot() {
            return None;
        }
        let feeds_radio = self.flows.iter().all(|f| {
            [&f.forward, &f.reverse].iter().all(|route| {
                route.iter().enumerate().all(|(i, hop)| match hop {
                    Hop::Link(S1U) => route.get(i + 1) == Some(&Hop::Downlink(0)),
                    Hop::Downlink(_) => i > 0 && route[i - 1] == Hop::Link(S1U),
                    _ => true,
                })
            })
        });
        feeds_radio.then_some(S1U)
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
            &f.app_spec(t.mss_bytes),
            duration,
            rng.stream(&format!("app/flow{id}")),
        );
        let endpoints = if f.app == AppKind::Udp {
            Endpoints::Udp(UdpFlow::new(id, source, f.write_bytes_or(t.mss_bytes)))
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
                rto_ssthresh: t.rto_ssthresh,
                rate_samples: t.rate_samples,
                pipe: t.pipe,
                rtt_samples: t.rtt_samples,
                handshake: t.handshake.then(|| from_secs(t.syn_timeout_s)),
            };
            let rtt = RttEstimator::new(t.initial_rto_s, t.min_rto_s, t.max_rto_s);
            let receiver = Receiver::new(
                id,
                ReceiverConfig {
                    sack: t.sack,
                    delayed_ack: t.delayed_ack,
                    ack_every: t.ack_every_segments,
                    rcv_buf: t.rcv_buf_bytes,
                    quickack: t.quickack_segments,
                    window: t.receive_window,
                    delayed_ack_timeout: from_secs(t.delayed_ack_timeout_s),
                },
            );
            Endpoints::Tcp {
                sender: Box::new(Sender::new(id, sender_cfg, cc, sock, rtt, source)),
                receiver,
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
}
