//! Algorithms that the program embedding the core supplies at run time (the Python
//! package's `wavecc.register_cc`). [`super::build`] finds them after the built-ins,
//! so configs, validation, memory estimates and runs treat them as the core's own,
//! while the core knows nothing of what implements them.

use super::CongestionControl;
use std::sync::{Arc, RwLock};

/// Builds an instance from the `[flows.cc]` table, like [`super::Algorithm::build`].
pub type Builder =
    Arc<dyn Fn(&serde_json::Value) -> Result<Box<dyn CongestionControl>, String> + Send + Sync>;

struct Hosted {
    name: &'static str,
    build: Builder,
}

/// The registrations of this process, in the order they were made.
static HOSTED: RwLock<Vec<Hosted>> = RwLock::new(Vec::new());

/// Registers `build` under `name`, replacing an earlier registration of the same
/// name. A built-in's name is refused: configs that name it must keep meaning it.
pub fn host(name: &str, build: Builder) -> Result<(), String> {
    if super::ALGORITHMS.iter().any(|a| a.name == name) {
        return Err(format!(
            "'{name}' is a built-in algorithm; choose another name"
        ));
    }
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return Err(format!(
            "{name:?} cannot name an algorithm: it must be non-empty, without spaces"
        ));
    }
    let mut hosted = HOSTED.write().unwrap_or_else(|e| e.into_inner());
    match hosted.iter_mut().find(|h| h.name == name) {
        Some(h) => h.build = build,
        // Leaked once per distinct name: `CongestionControl::name` is `&'static str`.
        None => hosted.push(Hosted {
            name: Box::leak(name.to_owned().into_boxed_str()),
            build,
        }),
    }
    Ok(())
}

/// The registered names, in registration order.
pub fn names() -> Vec<&'static str> {
    let hosted = HOSTED.read().unwrap_or_else(|e| e.into_inner());
    hosted.iter().map(|h| h.name).collect()
}

/// The registered name equal to `name`, as the `'static` string instances report.
pub fn static_name(name: &str) -> Option<&'static str> {
    names().into_iter().find(|n| *n == name)
}

/// Builds the algorithm registered as `name`, or None if there is none. The builder
/// runs without the registry's lock held, so it may itself register algorithms.
pub(super) fn build(
    name: &str,
    params: &serde_json::Value,
) -> Option<Result<Box<dyn CongestionControl>, String>> {
    let build = {
        let hosted = HOSTED.read().unwrap_or_else(|e| e.into_inner());
        Arc::clone(&hosted.iter().find(|h| h.name == name)?.build)
    };
    Some(build(params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Socket, build as build_any};

    /// Halves on loss and never grows: enough to tell it from any built-in.
    struct Flat(&'static str);

    impl CongestionControl for Flat {
        fn name(&self) -> &'static str {
            self.0
        }
        fn ssthresh(&mut self, sock: &Socket) -> f64 {
            sock.cwnd / 2.0
        }
        fn cong_avoid(&mut self, _sock: &mut Socket, _acked: u32) {}
    }

    fn flat_builder() -> Builder {
        Arc::new(|params| {
            if params.get("bad").is_some() {
                return Err("bad: not a parameter of flat".into());
            }
            Ok(Box::new(Flat(static_name("test-flat").unwrap())))
        })
    }

    #[test]
    fn a_hosted_algorithm_builds_by_name_with_its_parameter_errors() {
        host("test-flat", flat_builder()).unwrap();
        let cc = build_any("test-flat", &serde_json::json!({})).unwrap();
        assert_eq!(cc.name(), "test-flat");
        let err = build_any("test-flat", &serde_json::json!({"bad": 1}))
            .err()
            .unwrap();
        assert_eq!(err, "bad: not a parameter of flat");
        let err = build_any("test-missing", &serde_json::Value::Null)
            .err()
            .unwrap();
        assert!(err.contains("test-flat") && err.contains("cubic"), "{err}");
    }

    #[test]
    fn built_in_names_and_blank_names_are_refused() {
        let err = host("cubic", flat_builder()).unwrap_err();
        assert!(err.contains("built-in"), "{err}");
        assert!(host("two words", flat_builder()).is_err());
        assert!(host("", flat_builder()).is_err());
    }

    #[test]
    fn registering_a_name_again_replaces_its_builder() {
        host("test-again", Arc::new(|_| Err("first".into()))).unwrap();
        host("test-again", Arc::new(|_| Err("second".into()))).unwrap();
        let err = build_any("test-again", &serde_json::Value::Null)
            .err()
            .unwrap();
        assert_eq!(err, "second");
        assert_eq!(names().iter().filter(|n| **n == "test-again").count(), 1);
    }
}
