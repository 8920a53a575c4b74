//! `_core.Simulation`: a run that advances in steps, read and steered between them
//! (the Gymnasium environment, `wavecc.gym`). It wraps the core's stepping entry
//! point, `World::advance`, so a run stepped to its end gives exactly the output of
//! `_core.run` on the same config.

use crate::{PythonWatch, parse, stopped_error};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::time::Instant;
use wavecc_core::Config;
use wavecc_core::engine::{from_secs, to_secs};
use wavecc_core::world::World;

#[pyclass(module = "wavecc._core", unsendable)]
pub struct Simulation {
    config: Config,
    /// None once `finish` has taken it.
    world: Option<World>,
    /// Wall time spent in the core, for the summary.
    wall_s: f64,
}

/// One TCP flow's counters at the time reached, for observations. Cumulative
/// values (bytes, segments, RTT samples) let a caller take differences over a step.
#[pyclass(module = "wavecc._core", frozen, get_all)]
pub struct FlowStats {
    /// Bytes the receiving application has received.
    delivered_bytes: u64,
    /// Congestion window and slow-start threshold, segments.
    cwnd: f64,
    ssthresh: f64,
    /// Bytes in flight.
    inflight_bytes: f64,
    /// Smoothed and minimum RTT, seconds (0 and inf before the first sample).
    srtt_s: f64,
    min_rtt_s: f64,
    /// RTT samples so far and their sum, seconds.
    rtt_samples: u64,
    rtt_sum_s: f64,
    segments_sent: u64,
    retransmitted_segments: u64,
    rto_events: u64,
    /// SINR of the serving mmWave link at the last ACK, dB (None on wired paths).
    sinr_db: Option<f64>,
    /// Maximum segment size, bytes.
    mss: u32,
}

impl Simulation {
    fn world(&mut self) -> PyResult<&mut World> {
        self.world
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("the simulation has finished"))
    }

    fn sender(&mut self, flow: usize) -> PyResult<&mut wavecc_core::tcp::Sender> {
        let flows = self.config.flows.len();
        self.world()?.sender_mut(flow).ok_or_else(|| {
            PyIndexError::new_err(format!(
                "flow {flow}: not a TCP flow of this scenario ({flows} flows)"
            ))
        })
    }
}

#[pymethods]
impl Simulation {
    /// Validates `config_json` and builds the world at time 0.
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let config = parse(config_json)?;
        let start = Instant::now();
        let world = World::new(&config);
        Ok(Simulation {
            config,
            world: Some(world),
            wall_s: start.elapsed().as_secs_f64(),
        })
    }

    /// Runs the events up to simulated time `until_s` (at most the end). Errors of
    /// Python algorithms and Ctrl-C stop it as they stop `_core.run`.
    fn advance(&mut self, py: Python<'_>, until_s: f64) -> PyResult<()> {
        if !until_s.is_finite() || until_s < 0.0 {
            return Err(PyValueError::new_err(format!(
                "until_s = {until_s}: must be a time >= 0"
            )));
        }
        let start = Instant::now();
        let world = self.world()?;
        let mut watch = PythonWatch::new(None);
        crate::hosted::take_failure();
        let out = py.detach(|| world.advance(from_secs(until_s), &mut watch));
        self.wall_s += start.elapsed().as_secs_f64();
        match crate::hosted::take_failure() {
            Some(failure) => Err(crate::algorithm_error(py, failure)),
            None => out.map_err(|_| stopped_error(&mut watch)),
        }
    }

    /// Simulated time reached, and the run's end, seconds.
    #[getter]
    fn now_s(&self) -> f64 {
        self.world
            .as_ref()
            .map_or(self.config.duration_s, |w| to_secs(w.now()))
    }

    #[getter]
    fn duration_s(&self) -> f64 {
        self.config.duration_s
    }

    /// Flow `flow`'s counters now.
    fn flow_stats(&mut self, flow: usize) -> PyResult<FlowStats> {
        let delivered_bytes = self.world()?.delivered_bytes(flow).unwrap_or(0);
        let sender = self.sender(flow)?;
        let state = sender.state();
        let rtt = &sender.rtt_stats;
        let samples = rtt.count();
        Ok(FlowStats {
            delivered_bytes,
            cwnd: state.cwnd_segments,
            ssthresh: state.ssthresh_segments,
            inflight_bytes: state.inflight_bytes,
            srtt_s: sender.sock.srtt_s,
            min_rtt_s: sender.sock.min_rtt_s,
            rtt_samples: samples,
            rtt_sum_s: if samples > 0 {
                rtt.mean_ms() * 1e-3 * samples as f64
            } else {
                0.0
            },
            segments_sent: sender.counters.segments_sent,
            retransmitted_segments: sender.counters.retransmitted_segments,
            rto_events: sender.counters.rto_events,
            sinr_db: sender.sock.link.sinr_db,
            mss: sender.sock.mss,
        })
    }

    /// Sets flow `flow`'s congestion window (segments, at least 1); its algorithm
    /// sees the new value at its next hook.
    fn set_cwnd(&mut self, flow: usize, cwnd: f64) -> PyResult<()> {
        if !(cwnd.is_finite() && cwnd >= 1.0) {
            return Err(PyValueError::new_err(format!(
                "cwnd = {cwnd}: must be a finite number of segments >= 1"
            )));
        }
        self.sender(flow)?.sock.cwnd = cwnd;
        Ok(())
    }

    /// Ends the run where it is and returns its result as `_core.run` does (JSON text).
    fn finish(&mut self) -> PyResult<String> {
        let world = self
            .world
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the simulation has finished"))?;
        let out = world.finish(&self.config, self.wall_s);
        serde_json::to_string(&out).map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// The algorithm of the flow an agent steers with `Simulation.set_cwnd` (registered
/// as `agent`): the window stays where the agent put it. A loss sets ssthresh to the
/// window and neither PRR nor growth moves it; a timeout still restarts from one
/// segment, as for every flow, until the agent's next step.
struct Held;

/// The name configs give the steered flow's `cca`.
pub const HELD: &str = "agent";

impl wavecc_core::cc::CongestionControl for Held {
    fn name(&self) -> &'static str {
        HELD
    }

    fn ssthresh(&mut self, sock: &wavecc_core::cc::Socket) -> f64 {
        sock.cwnd
    }

    fn cong_avoid(&mut self, _sock: &mut wavecc_core::cc::Socket, _acked: u32) {}

    fn cong_control(
        &mut self,
        _sock: &mut wavecc_core::cc::Socket,
        _rs: &wavecc_core::cc::RateSample,
    ) -> bool {
        true
    }

    fn undo_cwnd(&mut self, sock: &wavecc_core::cc::Socket) -> f64 {
        sock.cwnd
    }
}

/// Registers [`Held`] as [`HELD`]; it takes no parameters.
pub fn host_held() -> Result<(), String> {
    wavecc_core::cc::hosted::host(
        HELD,
        std::sync::Arc::new(|params| match params {
            serde_json::Value::Null => Ok(Box::new(Held) as Box<_>),
            serde_json::Value::Object(m) if m.is_empty() => Ok(Box::new(Held) as Box<_>),
            _ => Err(format!("{HELD} takes no parameters")),
        }),
    )
}
