//! Congestion control written in Python (`wavecc.CongestionControl`), run by the core
//! through its registry of hosted algorithms (`wavecc_core::cc::hosted`). The core
//! stays free of Python: [`PythonCc`] is an ordinary `CongestionControl` that calls
//! the Python object's hooks with the GIL held.
//!
//! A hook sees the socket as a [`SocketView`] (and an ACK as an [`AckView`]), one
//! object of each per connection, refreshed before every call; what the hook wrote
//! to `cwnd`, `ssthresh` and `pacing_rate_bps` is checked and copied back. The first
//! hook that raises, or writes a value the socket cannot take, is kept as this
//! thread's [`HookFailure`]; from then on every Python algorithm of the thread stands
//! still (the core's defaults, no Python) until the run's watch stops the run.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use wavecc_core::cc::{
    self, CaState, CongestionControl, CwndEvent, LossResponse, RateSample, Socket,
};
use wavecc_core::engine::to_secs;

/// The part of the socket a Python hook sees: `cwnd`, `ssthresh` (segments) and
/// `pacing_rate_bps` are the hook's to write, the rest is read-only. Valid only
/// during the call: the same object is refreshed for the next one.
#[pyclass(module = "wavecc._core", name = "Socket")]
pub struct SocketView {
    /// Congestion window, segments.
    #[pyo3(get, set)]
    cwnd: f64,
    /// Slow-start threshold, segments (`inf` until the first loss).
    #[pyo3(get, set)]
    ssthresh: f64,
    /// Pacing rate, bit/s, used when the socket paces; 0 lets the socket derive it.
    #[pyo3(get, set)]
    pacing_rate_bps: f64,
    /// Maximum segment size, bytes.
    #[pyo3(get)]
    mss: u32,
    /// The configured initial window, segments.
    #[pyo3(get)]
    initial_cwnd: f64,
    /// cwnd before the current reduction started, segments.
    #[pyo3(get)]
    prior_cwnd: f64,
    /// Simulated time, seconds.
    #[pyo3(get)]
    now_s: f64,
    /// Smoothed RTT, seconds (0 before the first sample).
    #[pyo3(get)]
    srtt_s: f64,
    /// Minimum RTT of the connection, seconds (`inf` before the first sample).
    #[pyo3(get)]
    min_rtt_s: f64,
    /// Packets in flight.
    #[pyo3(get)]
    in_flight: u32,
    /// Segments delivered so far.
    #[pyo3(get)]
    delivered: u64,
    /// Highest sequence number sent plus one, and the oldest unacknowledged, bytes.
    #[pyo3(get)]
    snd_nxt: u64,
    #[pyo3(get)]
    snd_una: u64,
    /// The window, not the application or the receiver, limited sending lately.
    #[pyo3(get)]
    is_cwnd_limited: bool,
    /// When the last segment was sent, seconds.
    #[pyo3(get)]
    last_send_s: f64,
    /// The socket paces its transmissions.
    #[pyo3(get)]
    pacing: bool,
    ca_state: CaState,
    /// SINR of the serving mmWave link, dB (None on wired paths).
    #[pyo3(get)]
    sinr_db: Option<f64>,
    /// Bytes the receiving application has received (an oracle no real sender has).
    #[pyo3(get)]
    receiver_delivered_bytes: u64,
}

#[pymethods]
impl SocketView {
    /// "open", "disorder", "recovery" or "loss".
    #[getter]
    fn ca_state(&self) -> &'static str {
        self.ca_state.as_str()
    }

    /// cwnd < ssthresh.
    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

impl SocketView {
    fn new(sock: &Socket) -> Self {
        let mut view = SocketView {
            cwnd: 0.0,
            ssthresh: 0.0,
            pacing_rate_bps: 0.0,
            mss: 0,
            initial_cwnd: 0.0,
            prior_cwnd: 0.0,
            now_s: 0.0,
            srtt_s: 0.0,
            min_rtt_s: 0.0,
            in_flight: 0,
            delivered: 0,
            snd_nxt: 0,
            snd_una: 0,
            is_cwnd_limited: false,
            last_send_s: 0.0,
            pacing: false,
            ca_state: CaState::Open,
            sinr_db: None,
            receiver_delivered_bytes: 0,
        };
        view.load(sock);
        view
    }

    fn load(&mut self, s: &Socket) {
        self.cwnd = s.cwnd;
        self.ssthresh = s.ssthresh;
        self.pacing_rate_bps = s.pacing_rate_bps;
        self.mss = s.mss;
        self.initial_cwnd = s.initial_cwnd;
        self.prior_cwnd = s.prior_cwnd;
        self.now_s = to_secs(s.now);
        self.srtt_s = s.srtt_s;
        self.min_rtt_s = s.min_rtt_s;
        self.in_flight = s.in_flight;
        self.delivered = s.delivered;
        self.snd_nxt = s.snd_nxt;
        self.snd_una = s.snd_una;
        self.is_cwnd_limited = s.is_cwnd_limited;
        self.last_send_s = to_secs(s.last_send);
        self.pacing = s.pacing;
        self.ca_state = s.ca_state;
        self.sinr_db = s.link.sinr_db;
        self.receiver_delivered_bytes = s.link.receiver_delivered_bytes;
    }

    /// Copies what the hook may write back into the socket, refusing what the socket
    /// cannot take (a NaN window would stall it without an error).
    fn store(&self, s: &mut Socket) -> Result<(), String> {
        let (cwnd, ssthresh, rate) = (self.cwnd, self.ssthresh, self.pacing_rate_bps);
        if !(cwnd.is_finite() && cwnd > 0.0) {
            return Err(format!(
                "sock.cwnd = {cwnd}: must be a finite number of segments > 0"
            ));
        }
        if ssthresh.is_nan() || ssthresh <= 0.0 {
            return Err(format!(
                "sock.ssthresh = {ssthresh}: must be a number of segments > 0 (inf allowed)"
            ));
        }
        if !(rate.is_finite() && rate >= 0.0) {
            return Err(format!(
                "sock.pacing_rate_bps = {rate}: must be a finite rate in bit/s >= 0"
            ));
        }
        s.cwnd = cwnd;
        s.ssthresh = ssthresh;
        s.pacing_rate_bps = rate;
        Ok(())
    }
}

/// What one ACK delivered, for `on_ack` and `cong_control` (Linux `struct
/// rate_sample`). Valid only during the call.
#[pyclass(module = "wavecc._core", name = "AckSample")]
#[derive(Default)]
pub struct AckView {
    /// Segments newly acknowledged, cumulatively or by SACK.
    #[pyo3(get)]
    acked: u32,
    /// The same in bytes (segments x MSS).
    #[pyo3(get)]
    acked_bytes: u64,
    /// Segments newly marked lost while processing this ACK (the loss events; the
    /// simulator does not model ECN, so there are no ECN marks).
    #[pyo3(get)]
    losses: u32,
    /// RTT measured from this ACK, seconds (None when it gave none).
    #[pyo3(get)]
    rtt_s: Option<f64>,
    /// Minimum RTT of the connection, seconds (`inf` before the first sample).
    #[pyo3(get)]
    min_rtt_s: f64,
    /// Packets in flight before this ACK was processed, and after.
    #[pyo3(get)]
    prior_in_flight: u32,
    #[pyo3(get)]
    in_flight: u32,
    /// Segments delivered over `interval_s` (0 when the sample is invalid).
    #[pyo3(get)]
    delivered: u64,
    /// The delivery-rate sampling interval, seconds (0 when invalid).
    #[pyo3(get)]
    interval_s: f64,
    /// Delivery rate, bit/s (None when this ACK gave no valid sample).
    #[pyo3(get)]
    delivery_rate_bps: Option<f64>,
    /// The socket's delivered count when the newest packet this ACK delivered was sent.
    #[pyo3(get)]
    prior_delivered: u64,
    /// That packet was sent while the application limited sending.
    #[pyo3(get)]
    is_app_limited: bool,
}

impl AckView {
    fn load(&mut self, sock: &Socket, rs: &RateSample) {
        self.acked = rs.acked_sacked;
        self.acked_bytes = u64::from(rs.acked_sacked) * u64::from(sock.mss);
        self.losses = rs.losses;
        self.rtt_s = rs.rtt_s;
        self.min_rtt_s = sock.min_rtt_s;
        self.prior_in_flight = rs.prior_in_flight;
        self.in_flight = sock.in_flight;
        self.delivered = rs.delivered;
        self.interval_s = rs.interval_s;
        self.delivery_rate_bps = rs.delivery_rate_bps(sock.mss);
        self.prior_delivered = rs.prior_delivered;
        self.is_app_limited = rs.is_app_limited;
    }
}

/// The first error of this thread's Python algorithms in the current run.
pub struct HookFailure {
    /// What was raised, or the `ValueError` describing a value the socket refused.
    pub error: PyErr,
    /// "mycc (MyCC.on_ack)".
    pub hook: String,
    /// Simulated time of the call, seconds.
    pub now_s: f64,
}

impl HookFailure {
    /// The one-line message the run's error carries; the original exception and
    /// its traceback go along as the cause.
    pub fn message(&self, py: Python<'_>) -> String {
        format!(
            "{} raised at simulated time {:.6} s: {}",
            self.hook,
            self.now_s,
            describe(py, &self.error)
        )
    }
}

/// `Type: message`, as Python prints an exception's last line.
fn describe(py: Python<'_>, error: &PyErr) -> String {
    let name = error
        .get_type(py)
        .name()
        .map_or_else(|_| "Exception".into(), |n| n.to_string());
    let text = error.value(py).to_string();
    if text.is_empty() {
        name
    } else {
        format!("{name}: {text}")
    }
}

thread_local! {
    static FAILURE: RefCell<Option<HookFailure>> = const { RefCell::new(None) };
}

/// True once a Python algorithm of this thread has failed in the current run.
pub fn failed() -> bool {
    FAILURE.with(|f| f.borrow().is_some())
}

/// Takes this thread's failure, leaving none: called when a run starts and ends.
pub fn take_failure() -> Option<HookFailure> {
    FAILURE.with(|f| f.borrow_mut().take())
}

fn record_failure(failure: HookFailure) {
    FAILURE.with(|f| {
        f.borrow_mut().get_or_insert(failure);
    });
}

/// The Python hooks a class overrides, as bound methods of one instance; a hook it
/// does not override keeps the core's default and costs no call.
#[derive(Default)]
struct Hooks {
    init: Option<Py<PyAny>>,
    seed: Option<Py<PyAny>>,
    ssthresh: Option<Py<PyAny>>,
    cong_avoid: Option<Py<PyAny>>,
    on_ack: Option<Py<PyAny>>,
    cong_control: Option<Py<PyAny>>,
    set_state: Option<Py<PyAny>>,
    cwnd_event: Option<Py<PyAny>>,
    loss_window: Option<Py<PyAny>>,
    undo_cwnd: Option<Py<PyAny>>,
    state: Option<Py<PyAny>>,
}

/// The hook names a class may override (`wavecc.CongestionControl`'s methods).
pub const HOOKS: &[&str] = &[
    "init",
    "seed",
    "ssthresh",
    "cong_avoid",
    "on_ack",
    "cong_control",
    "set_state",
    "cwnd_event",
    "loss_window",
    "undo_cwnd",
    "state",
];

impl Hooks {
    fn bind(obj: &Bound<'_, PyAny>, names: &[String]) -> PyResult<Self> {
        let mut hooks = Hooks::default();
        for name in names {
            let slot = match name.as_str() {
                "init" => &mut hooks.init,
                "seed" => &mut hooks.seed,
                "ssthresh" => &mut hooks.ssthresh,
                "cong_avoid" => &mut hooks.cong_avoid,
                "on_ack" => &mut hooks.on_ack,
                "cong_control" => &mut hooks.cong_control,
                "set_state" => &mut hooks.set_state,
                "cwnd_event" => &mut hooks.cwnd_event,
                "loss_window" => &mut hooks.loss_window,
                "undo_cwnd" => &mut hooks.undo_cwnd,
                "state" => &mut hooks.state,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "'{other}' is not a hook; hooks: {}",
                        HOOKS.join(", ")
                    )));
                }
            };
            *slot = Some(obj.getattr(name.as_str())?.unbind());
        }
        Ok(hooks)
    }
}

/// One connection's Python algorithm.
pub struct PythonCc {
    name: &'static str,
    /// The Python class's name, for errors.
    class_name: String,
    hooks: Hooks,
    sock: Py<SocketView>,
    ack: Py<AckView>,
    needs_pacing: bool,
    loss_response: LossResponse,
}

impl PythonCc {
    /// "mycc (MyCC.on_ack)": the algorithm's name and the hook that failed.
    fn hook_label(&self, hook: &str) -> String {
        format!("{} ({}.{hook})", self.name, self.class_name)
    }

    /// Calls `hook` with the socket view refreshed from `sock`, copies the writable
    /// fields back when `writes` (hooks given `&mut Socket`), and returns what
    /// `extract` made of the result; None when the hook or a value failed, or an
    /// earlier failure stopped every Python algorithm.
    fn call<R>(
        &self,
        hook: &'static str,
        method: &Py<PyAny>,
        sock: &mut Socket,
        writes: bool,
        call: impl for<'py> FnOnce(
            &Bound<'py, PyAny>,
            &Bound<'py, SocketView>,
        ) -> PyResult<Bound<'py, PyAny>>,
        extract: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
    ) -> Option<R> {
        if failed() {
            return None;
        }
        Python::attach(|py| {
            let view = self.sock.bind(py);
            view.borrow_mut().load(sock);
            let outcome = call(method.bind(py), view).and_then(|r| extract(&r));
            let outcome = outcome.and_then(|r| {
                if writes {
                    view.borrow()
                        .store(sock)
                        .map_err(|e| PyValueError::new_err(format!("{hook} set {e}")))?;
                }
                Ok(r)
            });
            outcome
                .map_err(|error| {
                    record_failure(HookFailure {
                        error,
                        hook: self.hook_label(hook),
                        now_s: to_secs(sock.now),
                    })
                })
                .ok()
        })
    }

    /// [`PythonCc::call`] for a hook that reads the socket and returns a window.
    fn window(&self, hook: &'static str, method: &Py<PyAny>, sock: &Socket) -> Option<f64> {
        let mut copy = sock.clone();
        self.call(
            hook,
            method,
            &mut copy,
            false,
            |m, view| m.call1((view,)),
            |r| {
                let w: f64 = r.extract()?;
                if w > 0.0 && (w.is_finite() || hook == "ssthresh") {
                    Ok(w)
                } else {
                    Err(PyValueError::new_err(format!(
                        "{hook} returned {w}: must be a number of segments > 0"
                    )))
                }
            },
        )
    }

    fn with_ack<R>(
        &self,
        hook: &'static str,
        method: &Py<PyAny>,
        sock: &mut Socket,
        rs: &RateSample,
        extract: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
    ) -> Option<R> {
        Python::attach(|py| self.ack.bind(py).borrow_mut().load(sock, rs));
        let ack = &self.ack;
        self.call(
            hook,
            method,
            sock,
            true,
            |m, view| m.call1((view, ack.bind(m.py()))),
            extract,
        )
    }
}

fn ignore(_: &Bound<'_, PyAny>) -> PyResult<()> {
    Ok(())
}

impl CongestionControl for PythonCc {
    fn name(&self) -> &'static str {
        self.name
    }

    fn init(&mut self, sock: &mut Socket) {
        if let Some(m) = &self.hooks.init {
            self.call("init", m, sock, true, |m, v| m.call1((v,)), ignore);
        }
    }

    fn seed(&mut self, seed: u64) {
        if let Some(m) = &self.hooks.seed {
            let mut sock = Socket::new(1, 1.0, 1.0);
            self.call("seed", m, &mut sock, false, |m, _| m.call1((seed,)), ignore);
        }
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let fallback = (sock.cwnd / 2.0).max(2.0);
        match &self.hooks.ssthresh {
            Some(m) => self.window("ssthresh", m, sock).unwrap_or(fallback),
            None => fallback,
        }
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        if let Some(m) = &self.hooks.cong_avoid {
            self.call(
                "cong_avoid",
                m,
                sock,
                true,
                |m, v| m.call1((v, acked)),
                ignore,
            );
        }
    }

    fn on_ack(&mut self, sock: &mut Socket, rs: &RateSample) {
        if let Some(m) = &self.hooks.on_ack {
            self.with_ack("on_ack", m, sock, rs, ignore);
        }
    }

    fn cong_control(&mut self, sock: &mut Socket, rs: &RateSample) -> bool {
        match &self.hooks.cong_control {
            Some(m) => self
                .with_ack("cong_control", m, sock, rs, |r| r.is_truthy())
                .unwrap_or(false),
            None => false,
        }
    }

    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        if let Some(m) = &self.hooks.set_state {
            let new = new.as_str();
            self.call("set_state", m, sock, true, |m, v| m.call1((v, new)), ignore);
        }
    }

    fn cwnd_event(&mut self, sock: &mut Socket, event: CwndEvent) {
        if let Some(m) = &self.hooks.cwnd_event {
            let event = match event {
                CwndEvent::TxStart => "tx_start",
                CwndEvent::Loss => "loss",
                CwndEvent::CompleteRecovery => "complete_recovery",
            };
            self.call(
                "cwnd_event",
                m,
                sock,
                true,
                |m, v| m.call1((v, event)),
                ignore,
            );
        }
    }

    fn loss_window(&self, sock: &Socket) -> f64 {
        match &self.hooks.loss_window {
            Some(m) => self.window("loss_window", m, sock).unwrap_or(1.0),
            None => 1.0,
        }
    }

    fn undo_cwnd(&mut self, sock: &Socket) -> f64 {
        let fallback = sock.cwnd.max(sock.prior_cwnd);
        match &self.hooks.undo_cwnd {
            Some(m) => self.window("undo_cwnd", m, sock).unwrap_or(fallback),
            None => fallback,
        }
    }

    fn needs_pacing(&self) -> bool {
        self.needs_pacing
    }

    fn loss_response(&self) -> LossResponse {
        self.loss_response
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let Some(m) = &self.hooks.state else { return };
        if failed() {
            return;
        }
        Python::attach(|py| {
            let pairs = m.call0(py).and_then(|r| {
                r.extract::<Vec<(String, f64)>>(py).or_else(|_| {
                    let dict = r.bind(py).cast::<PyDict>()?.clone();
                    dict.iter()
                        .map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<f64>()?)))
                        .collect()
                })
            });
            match pairs {
                Ok(pairs) => out.extend(pairs.into_iter().map(|(k, v)| (intern(&k), v))),
                Err(error) => record_failure(HookFailure {
                    error,
                    hook: self.hook_label("state"),
                    now_s: self.sock.bind(py).borrow().now_s,
                }),
            }
        });
    }
}

/// A variable name of `state`, as the `'static` string the traces keep: each
/// distinct name is leaked once per process.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(n) = names.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(n);
    n
}

/// The `loss_response` class attribute's values.
fn loss_response(text: &str) -> PyResult<LossResponse> {
    match text {
        "fast_recovery" => Ok(LossResponse::FastRecovery),
        "reno_recovery" => Ok(LossResponse::RenoRecovery),
        "slow_start" => Ok(LossResponse::SlowStart),
        other => Err(PyValueError::new_err(format!(
            "loss_response = {other:?}: expected \"fast_recovery\", \"reno_recovery\" or \"slow_start\""
        ))),
    }
}

/// Instantiates `class` with the flow's `[flows.cc]` table as keyword arguments.
fn instantiate(
    py: Python<'_>,
    name: &'static str,
    class: &Py<PyAny>,
    hooks: &[String],
    params: &serde_json::Value,
) -> PyResult<PythonCc> {
    let class = class.bind(py);
    let kwargs = match params {
        serde_json::Value::Null => None,
        serde_json::Value::Object(_) => {
            let json = py.import("json")?;
            let text = serde_json::to_string(params).expect("JSON values serialise");
            Some(json.call_method1("loads", (text,))?.cast_into::<PyDict>()?)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "expected a table of keyword arguments, not {other}"
            )));
        }
    };
    let obj = class.call((), kwargs.as_ref())?;
    let class_name = class.getattr("__qualname__")?.extract::<String>()?;
    let sock = Socket::new(1, 1.0, f64::INFINITY);
    Ok(PythonCc {
        name,
        class_name,
        hooks: Hooks::bind(&obj, hooks)?,
        sock: Py::new(py, SocketView::new(&sock))?,
        ack: Py::new(py, AckView::default())?,
        needs_pacing: obj.getattr("needs_pacing")?.is_truthy()?,
        loss_response: loss_response(&obj.getattr("loss_response")?.extract::<String>()?)?,
    })
}

/// `_core.host_algorithm(name, cls, hooks)`: registers the Python class `cls` as the
/// algorithm `name`, calling only the hooks named in `hooks` (those it overrides).
/// Each connection gets its own instance, `cls(**flows[i].cc)`; an error there is a
/// config error of `flows[i].cc`.
#[pyfunction]
pub fn host_algorithm(name: &str, class: Py<PyAny>, hooks: Vec<String>) -> PyResult<()> {
    if let Some(bad) = hooks.iter().find(|h| !HOOKS.contains(&h.as_str())) {
        return Err(PyValueError::new_err(format!(
            "'{bad}' is not a hook; hooks: {}",
            HOOKS.join(", ")
        )));
    }
    let static_name = std::sync::OnceLock::new();
    let registered_name = name.to_owned();
    let build: cc::hosted::Builder = Arc::new(move |params| {
        let name = *static_name.get_or_init(|| {
            cc::hosted::static_name(&registered_name).expect("registered before it is built")
        });
        Python::attach(|py| {
            instantiate(py, name, &class, &hooks, params)
                .map(|cc| Box::new(cc) as Box<dyn CongestionControl>)
                .map_err(|e| describe(py, &e))
        })
    });
    cc::hosted::host(name, build).map_err(PyValueError::new_err)
}

/// The names registered by `host_algorithm`.
#[pyfunction]
pub fn hosted_algorithms() -> Vec<&'static str> {
    cc::hosted::names()
}
