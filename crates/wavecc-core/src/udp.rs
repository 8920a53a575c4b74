//! The UDP endpoints of a flow: a sender without congestion control or send buffer,
//! which puts every application write on the wire at once as datagrams, and the sink
//! that counts what arrives.

use crate::app::Source;
use crate::engine::Timer;
use crate::net::{Body, Packet, UDP_HEADER_BYTES};
use crate::tcp::{AppSink, FlowEvent, FlowTimer, Io, Outbox, TimerEvent};
use crate::trace::FlowSampler;

/// A UDP flow's sender and receiving sink.
pub struct UdpFlow {
    flow: u32,
    source: Source,
    /// Bytes sent so far.
    sent: u64,
    /// Largest datagram payload, bytes.
    chunk: u32,
    /// Wakes the sender at the application's next write.
    timer: Timer,
    pub sink: AppSink,
    /// What the flow accumulates between two samples.
    pub sampler: FlowSampler,
}

impl UdpFlow {
    pub fn new(flow: u32, source: Source, chunk: u32) -> Self {
        UdpFlow {
            flow,
            source,
            sent: 0,
            chunk,
            timer: Timer::default(),
            sink: AppSink::default(),
            sampler: FlowSampler::default(),
        }
    }

    /// The application starts: what it has written goes out.
    pub fn start(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        self.send(io);
    }

    /// The wake-up timer's queue entry popped: sends if the write is really due.
    pub fn on_app_timer(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self.timer.fire(io.now, io.queue, self.timer_event().into()) {
            self.send(io);
        }
    }

    /// A datagram of `len` bytes at offset `seq` reached the sink.
    pub fn deliver(&mut self, seq: u64, len: u32) {
        self.sink.deliver_datagram(seq, len as u64);
    }

    fn timer_event(&self) -> FlowEvent {
        FlowEvent {
            flow: self.flow,
            timer: FlowTimer::AppWake,
        }
    }

    /// Sends everything written so far, one datagram per `chunk`, and wakes at the
    /// next write.
    fn send(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        let written = self.source.written(io.now, self.sent, u64::MAX / 4);
        while self.sent < written {
            let len = (written - self.sent).min(self.chunk as u64) as u32;
            io.out.send(
                io.now,
                Packet {
                    flow: self.flow,
                    size: (len + UDP_HEADER_BYTES) as u16,
                    hop: 0,
                    body: Body::Datagram {
                        seq: self.sent,
                        len,
                    },
                },
            );
            self.sent += len as u64;
        }
        if let Some(t) = self.source.next_write() {
            let event = self.timer_event().into();
            self.timer.set(t.max(io.now + 1), io.queue, event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EventQueue, RngStreams, from_secs};
    use crate::trace::EventLog;

    /// A UDP flow at 8 Mb/s writing 1000-byte chunks: one datagram per ms, each
    /// sent when written, the sink seeing them in order.
    #[test]
    fn sends_each_write_when_it_is_written() {
        let flow = crate::Config::from_toml(
            "[[flows]]\napp = \"udp\"\nrate_bps = 8e6\nwrite_bytes = 1000\n",
        )
        .unwrap()
        .flows[0]
            .clone();
        let source = Source::new(
            &flow.app_spec(1000),
            from_secs(1.0),
            RngStreams::new(1).stream("app"),
        );
        let mut udp = UdpFlow::new(3, source, 1000);
        let (mut queue, mut out, mut log) = (
            EventQueue::<FlowEvent>::default(),
            Vec::new(),
            EventLog::default(),
        );
        let mut io = Io {
            now: 0,
            queue: &mut queue,
            out: &mut out,
            log: &mut log,
        };
        udp.start(&mut io);
        for _ in 0..4 {
            let (now, event) = io.queue.pop().expect("a wake-up is scheduled");
            assert_eq!(event.timer, FlowTimer::AppWake);
            io.now = now;
            udp.on_app_timer(&mut io);
        }
        let sent: Vec<(u64, u32)> = out
            .iter()
            .map(|p| match p.body {
                Body::Datagram { seq, len } => (seq, len),
                _ => unreachable!("UDP sends datagrams only"),
            })
            .collect();
        assert!(sent.len() >= 4, "{sent:?}");
        assert!(sent.iter().all(|&(_, len)| len <= 1000));
        assert!(out.iter().all(|p| p.flow == 3));
        for (seq, len) in sent {
            udp.deliver(seq, len);
        }
        assert_eq!(udp.sink.order_violations, 0);
        assert_eq!(
            udp.sink.bytes,
            out.iter()
                .map(|p| p.size as u64 - UDP_HEADER_BYTES as u64)
                .sum::<u64>()
        );
    }
}
