//! A world's output: the periodic samples of every trace, and the result a run
//! returns (traces and summary).

use super::{Endpoints, Event, Flow, World};
use crate::Config;
use crate::engine::{Time, to_secs};
use crate::scenario::AppKind;
use crate::trace::{FlowState, FlowSummary, QueueSummary, RunOutput, Summary};

impl World {
    /// The periodic sample, which schedules the next one.
    pub(super) fn sample(&mut self) {
        self.take_parked();
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
                Endpoints::Udp(udp) => s.flow_row(
                    now,
                    dt,
                    i as u32,
                    delivered,
                    &mut udp.sampler,
                    FlowState::NONE,
                ),
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
        if let Some(ran) = &mut self.ran {
            for u in 0..ran.ue_count() {
                self.ue_trace.push(ran.ue_row(u, now));
            }
        }
    }

    /// Takes the last, shorter sample if one is due and assembles the run's output (of
    /// the run so far, when [`World::advance`] has not reached the end).
    pub fn finish(mut self, cfg: &Config, wall_time_s: f64) -> RunOutput {
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
        let now = self.now;
        let mut stats: Vec<_> = self
            .wire
            .links
            .iter_mut()
            .map(|l| l.stats_at(now))
            .collect();
        // A tandem's packets queued ahead that have not yet left its first link.
        let mut ahead = 0;
        for (a, s) in stats.iter_mut().enumerate() {
            if let Some(b) = self.wire.links[a].feeds {
                let not_yet = self.wire.links[b as usize].ahead_of(now);
                s.dequeued -= not_yet;
                ahead += not_yet;
            }
        }
        let queues = self
            .wire
            .links
            .iter()
            .zip(stats)
            .map(|(l, s)| QueueSummary {
                queue: l.name.clone(),
                enqueued: s.enqueued,
                dequeued: s.dequeued,
                dropped_overflow: s.dropped_overflow,
                dropped_random: s.dropped_random,
                max_bytes: s.max_bytes,
            })
            .collect();
        let summary = Summary {
            name: cfg.name.clone(),
            seed: cfg.seed,
            sim_time_s: to_secs(self.now),
            wall_time_s,
            events: self.queue.events_processed()
                + self.radio_times.ticks
                + self.wire.hold.taken
                + self.arrivals
                + self.wire.passed
                - ahead,
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

/// A flow's line of the summary.
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
