//! `wavecc._core`: the thin binding between the Rust core and the Python package.
//! Configs come in and results go out as JSON text, so the schema lives once, in
//! the core (`wavecc_core::scenario`), and Python never re-implements it.

mod hosted;
mod stepping;

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use wavecc_core::net::LinkTrace;
use wavecc_core::{Config, Stopped, Watch, scenario};

create_exception!(
    _core,
    ConfigError,
    PyValueError,
    "A scenario that cannot run: the message names the key."
);

create_exception!(
    _core,
    AlgorithmError,
    PyRuntimeError,
    "A Python congestion-control algorithm raised, or set a value the socket cannot \
     take: the message names the algorithm, the hook and the simulated time, and the \
     original exception (with its traceback) is the cause."
);

/// The error a run stops with when a Python algorithm fails.
fn algorithm_error(py: Python<'_>, failure: hosted::HookFailure) -> PyErr {
    let err = AlgorithmError::new_err(failure.message(py));
    err.set_cause(py, Some(failure.error));
    err
}

/// The error a watch stopped a run for (a signal or the progress callback).
fn stopped_error(watch: &mut PythonWatch) -> PyErr {
    watch
        .error
        .take()
        .expect("a run stops only on a Python error")
}

fn parse(config_json: &str) -> PyResult<Config> {
    Config::from_json(config_json).map_err(|e| ConfigError::new_err(e.to_string()))
}

/// Validates a config (JSON text) and runs it; returns the whole result as JSON text:
/// {"summary": ..., "flows": {...columns}, "queues": ..., "cc": ..., "events": ...}.
///
/// The run can be stopped: Python's signal handlers run every `SIGNAL_CHECK` of wall
/// time, so Ctrl-C raises KeyboardInterrupt here promptly. `progress`, if given, is
/// called as `progress(sim_time_s, duration_s)` every `PROGRESS_EVERY` of wall time;
/// whatever it raises stops the run and is raised here.
#[pyfunction]
#[pyo3(signature = (config_json, progress = None))]
fn run(py: Python<'_>, config_json: &str, progress: Option<Py<PyAny>>) -> PyResult<String> {
    let config = parse(config_json)?;
    let mut watch = PythonWatch::new(progress);
    hosted::take_failure();
    let out = py.detach(|| wavecc_core::run_watched(&config, &mut watch));
    if let Some(failure) = hosted::take_failure() {
        return Err(algorithm_error(py, failure));
    }
    match out {
        Ok(out) => serde_json::to_string(&out).map_err(|e| PyValueError::new_err(e.to_string())),
        Err(Stopped) => Err(stopped_error(&mut watch)),
    }
}

/// The link trace of a config's path (`wavecc trace export`, docs/traces.md) as JSON
/// text: {"slot_s", "bytes": [per slot], "forward_delay_s", "reverse_delay_s",
/// "buffer_bytes" (null: unbounded), "loss_per_packet", "loss_per_byte",
/// "reverse_rate_bps" (null: unlimited)}. A radio path is measured by a run, which
/// Ctrl-C and `progress` can stop as in [`run`].
#[pyfunction]
#[pyo3(signature = (config_json, progress = None))]
fn export_trace(
    py: Python<'_>,
    config_json: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let config = parse(config_json)?;
    let mut watch = PythonWatch::new(progress);
    match py.detach(|| wavecc_core::export::link_trace(&config, &mut watch)) {
        Ok(Ok(trace)) => Ok(trace_json(&trace)),
        Ok(Err(e)) => Err(ConfigError::new_err(e.to_string())),
        Err(Stopped) => Err(watch
            .error
            .take()
            .expect("a run stops only on a Python error")),
    }
}

/// Parses a link trace's text with the core's parser (the one `path.trace` uses);
/// returns it as JSON text like [`export_trace`], or raises ConfigError naming the
/// line at fault.
#[pyfunction]
fn parse_trace(text: &str) -> PyResult<String> {
    LinkTrace::parse(text)
        .map(|trace| trace_json(&trace))
        .map_err(ConfigError::new_err)
}

fn trace_json(trace: &LinkTrace) -> String {
    serde_json::to_string(trace).expect("a trace always serialises")
}

/// How often a run lets Python handle signals: well under the one second within which
/// a command must stop, and rare enough (taking the GIL costs microseconds) to be free.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);
/// How often a run reports its progress: as often as a progress bar redraws.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Runs Python's signal handlers and the progress callback at their pace, keeping the
/// error that stops the run.
struct PythonWatch {
    progress: Option<Py<PyAny>>,
    last_check: Instant,
    last_progress: Instant,
    error: Option<PyErr>,
}

impl PythonWatch {
    fn new(progress: Option<Py<PyAny>>) -> Self {
        let now = Instant::now();
        PythonWatch {
            progress,
            last_check: now,
            last_progress: now,
            error: None,
        }
    }

    fn call_python(&mut self, now_s: f64, duration_s: f64) -> PyResult<()> {
        Python::attach(|py| {
            py.check_signals()?;
            if let Some(progress) = &self.progress
                && self.last_progress.elapsed() >= PROGRESS_EVERY
            {
                self.last_progress = Instant::now();
                progress.call1(py, (now_s, duration_s))?;
            }
            Ok(())
        })
    }
}

impl Watch for PythonWatch {
    fn poll(&mut self, now_s: f64, duration_s: f64) -> ControlFlow<()> {
        if hosted::failed() {
            return ControlFlow::Break(());
        }
        if self.last_check.elapsed() < SIGNAL_CHECK {
            return ControlFlow::Continue(());
        }
        self.last_check = Instant::now();
        match self.call_python(now_s, duration_s) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

/// Validates a config and returns the effective config (defaults filled in) as JSON text.
#[pyfunction]
fn validate(config_json: &str) -> PyResult<String> {
    Ok(parse(config_json)?.to_json())
}

/// Validates a config and returns the core's estimate, in bytes, of the peak memory
/// its run takes: the traces (the event log at its bound) and the per-flow state, not
/// the copies made of the output afterwards (`scenario::estimate_memory`).
#[pyfunction]
fn estimate_memory(config_json: &str) -> PyResult<u64> {
    Ok(wavecc_core::scenario::estimate_memory(&parse(config_json)?))
}

/// The built-in scenarios as (id, description) pairs.
#[pyfunction]
fn builtin_scenarios() -> Vec<(&'static str, &'static str)> {
    scenario::builtin::list()
}

/// The TOML text of a built-in scenario.
#[pyfunction]
fn builtin_scenario(id: &str) -> PyResult<&'static str> {
    scenario::builtin::get(id).map_err(|e| ConfigError::new_err(e.to_string()))
}

/// The congestion-control algorithms as (name, one-line summary) pairs.
#[pyfunction]
fn algorithms() -> Vec<(&'static str, &'static str)> {
    wavecc_core::cc::ALGORITHMS
        .iter()
        .map(|a| (a.name, a.summary))
        .collect()
}

/// The TCP stacks `tcp.stack` can name, as JSON text: a list of {"name", "summary",
/// "tcp": {key: value}, "cc": {algorithm: {key: value}}}, the default first.
#[pyfunction]
fn stacks() -> String {
    let all: Vec<serde_json::Value> = scenario::stack::STACKS
        .iter()
        .map(|s| s.to_json())
        .collect();
    serde_json::to_string(&all).expect("stacks always serialise")
}

/// The JSON Schema of a scenario config as JSON text, with the validator's limits
/// by key under "x-wavecc-limits" (`scenario::reference`): docs/config.md and editors
/// read it.
#[pyfunction]
fn config_schema() -> String {
    serde_json::to_string_pretty(&scenario::reference::config_schema())
        .expect("the schema always serialises")
}

/// The trace columns as JSON text: {trace: [{"name", "dtype", "unit", "doc"}, ...]},
/// each trace's columns in order (`trace::TRACE_COLUMNS`): Python types its
/// DataFrames from it.
#[pyfunction]
fn trace_columns() -> String {
    let tables: serde_json::Map<String, serde_json::Value> = wavecc_core::trace::TRACE_COLUMNS
        .iter()
        .map(|&(table, columns)| {
            let columns = serde_json::to_value(columns).expect("columns always serialise");
            (table.to_string(), columns)
        })
        .collect();
    serde_json::to_string(&tables).expect("columns always serialise")
}

/// 1 when this build uses x86-64-v3's instructions (`.cargo/config.toml`). A plain
/// exported byte, so that `wavecc._cpu` can read it through ctypes on a CPU without
/// them: loading the library runs none of the module's code, importing it would.
#[unsafe(no_mangle)]
pub static WAVECC_NEEDS_X86_64_V3: u8 =
    cfg!(all(target_arch = "x86_64", target_feature = "avx2")) as u8;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("AlgorithmError", m.py().get_type::<AlgorithmError>())?;
    m.add("AGENT_ALGORITHM", stepping::HELD)?;
    m.add("HOOKS", hosted::HOOKS.to_vec())?;
    stepping::host_held().map_err(PyValueError::new_err)?;
    m.add_class::<hosted::SocketView>()?;
    m.add_class::<hosted::AckView>()?;
    m.add_class::<stepping::Simulation>()?;
    m.add_class::<stepping::FlowStats>()?;
    m.add_function(wrap_pyfunction!(hosted::host_algorithm, m)?)?;
    m.add_function(wrap_pyfunction!(hosted::hosted_algorithms, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_memory, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_scenarios, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(stacks, m)?)?;
    m.add_function(wrap_pyfunction!(config_schema, m)?)?;
    m.add_function(wrap_pyfunction!(export_trace, m)?)?;
    m.add_function(wrap_pyfunction!(parse_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace_columns, m)?)?;
    Ok(())
}
