//! What the config fuzzer exercises (`crates/wavecc-core/fuzz`), here so that a
//! unit test replays the committed corpus through the same function: any input is
//! parsed (JSON, else TOML), validated and, when valid, run for at most 0.1 s of
//! simulated time. It must never panic; a rejection must be one line.

use crate::{Config, ConfigError};

/// Simulated time a valid input runs for, at most.
pub const FUZZ_DURATION_S: f64 = 0.1;

/// Parses, validates and briefly runs `data`. Panics only on a defect: a panic
/// inside the core, or a rejection message that is empty or spans several lines.
pub fn exercise(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse(text) {
        Ok(mut config) => {
            config.duration_s = config.duration_s.min(FUZZ_DURATION_S);
            // A shorter run of a valid config stays valid except for flows that now
            // start after its end, which validation refuses.
            if config.validate().is_ok() {
                crate::run(&config);
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(
                !message.is_empty() && !message.contains('\n'),
                "rejection is not one line: {message:?}"
            );
        }
    }
}

fn parse(text: &str) -> Result<Config, ConfigError> {
    if text.trim_start().starts_with('{') {
        Config::from_json(text)
    } else {
        Config::from_toml(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every file of the committed corpus and of the regressions the fuzzer found
    /// (`fuzz/corpus/config`, `fuzz/regressions`) goes through [`exercise`].
    #[test]
    fn committed_corpus_and_regressions_replay_without_panics() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
        let mut replayed = 0;
        for dir in ["corpus/config", "regressions"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                let data = std::fs::read(&path).unwrap();
                let outcome = std::panic::catch_unwind(|| exercise(&data));
                assert!(outcome.is_ok(), "{} panics", path.display());
                replayed += 1;
            }
        }
        assert!(
            replayed >= crate::scenario::builtin::list().len(),
            "only {replayed} inputs in the corpus"
        );
    }
}
