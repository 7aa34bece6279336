//! Services: tasks that keep running and serve (dev servers, watchers), and what "ready"
//! means for them.
//!
//! A task is a service when its file says so, or by the name rule ([`SERVICE_WORDS`]).
//! A service started without an explicit condition is ready at the first line matching a
//! known framework message ([`BANNERS`]) or the first TCP port its process group listens
//! on. This module turns a caller's `ready` condition, or these rules, into the
//! [`Probe`] that [`super::probe::wait`] waits on; the README lists the same rules from these tables.

use std::sync::LazyLock;
use std::time::Duration;

use regex::{RegexBuilder, RegexSet};
use schemars::JsonSchema;
use serde::Deserialize;

use super::probe::{HttpUrl, Probe};
use crate::table::Task;

/// Words that make a task a service when its name starts or ends with one of them
/// (`dev`, `dev:api`, `start-server`, `docs:serve`, `watch_css`).
pub const SERVICE_WORDS: [&str; 9] = [
    "dev",
    "develop",
    "serve",
    "server",
    "start",
    "watch",
    "preview",
    "storybook",
    "runserver",
];

/// Known readiness messages: `(who prints it, pattern)`.
pub const BANNERS: [(&str, &str); 18] = [
    ("Vite", r"VITE v\S+\s+ready in"),
    ("Vite, Astro, Next.js, Nuxt", r"Local:\s+https?://"),
    ("Next.js", r"(?i)ready - started server on|✓ Ready in"),
    ("webpack-dev-server", r"Project is running at"),
    ("webpack", r"compiled successfully"),
    ("Astro", r"astro\s+v\S+\s+ready in"),
    ("Rails/Puma", r"Listening on (tcp|http|https|ssl|unix)://"),
    ("Puma", r"Use Ctrl-C to stop"),
    ("Django", r"Starting development server at https?://"),
    ("Flask/Werkzeug", r"Running on https?://"),
    ("Uvicorn", r"Uvicorn running on https?://"),
    (
        "Uvicorn, Starlette, FastAPI",
        r"Application startup complete",
    ),
    (
        "Phoenix",
        r"Running \S+\.Endpoint with .+ at|Access \S+\.Endpoint at https?://",
    ),
    ("Python http.server", r"Serving HTTP on"),
    ("many servers", r"(?i)\blistening on\b"),
    (
        "many servers",
        r"(?i)\bserver (is )?(running|listening|started) (on|at)\b",
    ),
    ("tsc --watch", r"Watching for file changes"),
    ("Storybook", r"Storybook \S+ for \S+ started"),
];

/// Milliseconds a readiness wait lasts unless the caller says otherwise (30 s).
pub const DEFAULT_READY_TIMEOUT_MS: u64 = 30_000;
/// The longest readiness wait a caller may ask for (10 minutes).
pub const MAX_READY_TIMEOUT_MS: u64 = 600_000;
/// Bytes a `line` pattern may have.
const MAX_PATTERN_BYTES: usize = 1024;

static BANNER_SET: LazyLock<Option<RegexSet>> =
    LazyLock::new(|| RegexSet::new(BANNERS.iter().map(|(_, p)| *p)).ok());

/// When a started task counts as ready. Give any of `line`, `port` or `url` (the first
/// that holds wins); give none to use the service rules (framework messages, a new
/// listening port).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadySpec {
    /// A regular expression (Rust syntax) matched against each output line as it arrives.
    pub line: Option<String>,
    /// A TCP port on this machine that starts accepting connections.
    pub port: Option<u16>,
    /// An `http://` URL that answers with a status below 500.
    pub url: Option<String>,
    /// How long to wait in milliseconds (default 30000, at most 600000); the task keeps
    /// running after a timeout.
    pub timeout_ms: Option<u64>,
}

impl ReadySpec {
    /// Whether a condition was given (otherwise the service rules apply).
    pub fn is_explicit(&self) -> bool {
        self.line.is_some() || self.port.is_some() || self.url.is_some()
    }

    /// The engine's probe for this spec. Without a condition, the service rules.
    pub fn probe(&self) -> Result<Probe, ProbeError> {
        let timeout_ms = self.timeout_ms.unwrap_or(DEFAULT_READY_TIMEOUT_MS);
        if timeout_ms > MAX_READY_TIMEOUT_MS {
            return Err(ProbeError::TimeoutTooLong);
        }
        if !self.is_explicit() {
            return Ok(service_probe(Duration::from_millis(timeout_ms)));
        }
        let line = match &self.line {
            Some(p) if p.len() > MAX_PATTERN_BYTES => {
                return Err(ProbeError::LineTooLong);
            }
            Some(p) => Some(
                RegexBuilder::new(p)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(ProbeError::Line)?,
            ),
            None => None,
        };
        let url = match &self.url {
            Some(u) => Some(HttpUrl::parse(u).map_err(ProbeError::Url)?),
            None => None,
        };
        if self.port == Some(0) {
            return Err(ProbeError::PortZero);
        }
        Ok(Probe {
            line,
            port: self.port,
            url,
            timeout: Duration::from_millis(timeout_ms),
            ..Probe::default()
        })
    }
}

/// The probe for a service started without a condition: a framework message or a new
/// listening port of its process group, within `timeout`.
pub fn service_probe(timeout: Duration) -> Probe {
    Probe {
        banners: BANNER_SET.as_ref(),
        listening: true,
        timeout,
        ..Probe::default()
    }
}

/// Why `task` is a service, or `None`. `declared` is the task file's own word where its
/// format has one (turbo `persistent`, nx `continuous`, VS Code `isBackground`): it wins
/// over the name rule either way.
pub fn service_reason(task: &Task, declared: Option<bool>) -> Option<String> {
    match declared {
        Some(true) => return Some(format!("{} declares it long-running", task.file_path)),
        Some(false) => return None,
        None => {}
    }
    service_word(&task.source_name).map(|w| format!("its name has `{w}`"))
}

/// The [`SERVICE_WORDS`] entry that `name` starts or ends with, as a word.
pub fn service_word(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase();
    let words: Vec<&str> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let first = *words.first()?;
    let last = *words.last()?;
    SERVICE_WORDS
        .iter()
        .find(|w| **w == first || **w == last)
        .copied()
}

/// Whether `text` is a known framework readiness message.
/// Why a readiness condition cannot be used.
#[derive(Debug)]
pub enum ProbeError {
    /// `timeout_ms` over [`MAX_READY_TIMEOUT_MS`].
    TimeoutTooLong,
    /// `line` over [`MAX_PATTERN_BYTES`].
    LineTooLong,
    /// `line` is not a regular expression (or one too large to build).
    Line(regex::Error),
    /// `url` cannot be probed.
    Url(super::probe::UrlError),
    /// `port` 0.
    PortZero,
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeError::TimeoutTooLong => write!(
                f,
                "ready.timeout_ms is at most {MAX_READY_TIMEOUT_MS} (10 minutes)"
            ),
            ProbeError::LineTooLong => {
                write!(f, "ready.line is at most {MAX_PATTERN_BYTES} bytes long")
            }
            ProbeError::Line(e) => write!(f, "ready.line is not a valid regular expression: {e}"),
            ProbeError::Url(e) => write!(f, "ready.url {e}"),
            ProbeError::PortZero => f.write_str("ready.port must be between 1 and 65535"),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProbeError::Line(e) => Some(e),
            ProbeError::Url(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
pub fn is_banner(text: &str) -> bool {
    BANNER_SET.as_ref().is_some_and(|s| s.is_match(text))
}

/// A `Regex` for a pattern known to be valid (used by tests of the banner table).
#[cfg(test)]
pub fn compile(pattern: &str) -> Option<regex::Regex> {
    regex::Regex::new(pattern).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_banner_pattern_compiles() {
        for (who, p) in BANNERS {
            assert!(compile(p).is_some(), "{who}: {p}");
        }
        assert!(BANNER_SET.is_some());
    }

    #[test]
    fn framework_messages_are_recognised() {
        for line in [
            "  VITE v5.4.2  ready in 312 ms",
            "  ➜  Local:   http://localhost:5173/",
            "   - Local:        http://localhost:3000",
            " ✓ Ready in 1.2s",
            "<i> [webpack-dev-server] Project is running at:",
            "* Listening on http://127.0.0.1:3000",
            "Starting development server at http://127.0.0.1:8000/",
            " * Running on http://127.0.0.1:5000",
            "INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)",
            "[info] Running MyAppWeb.Endpoint with Bandit 1.5.0 at 127.0.0.1:4000 (http)",
            "Server listening on port 8080",
            "Listening on :8080",
        ] {
            assert!(is_banner(line), "{line}");
        }
        for line in [
            "building for production...",
            "error: cannot find module",
            "ok",
        ] {
            assert!(!is_banner(line), "{line}");
        }
    }

    #[test]
    fn the_name_rule_takes_the_first_or_last_word() {
        for name in [
            "dev",
            "dev:api",
            "start-server",
            "docs:serve",
            "watch_css",
            "Storybook",
            "web/dev",
        ] {
            assert!(service_word(name).is_some(), "{name}");
        }
        for name in [
            "build",
            "test",
            "devtools",
            "restart-db",
            "lint:watcher",
            "prestart-check",
        ] {
            assert!(service_word(name).is_none(), "{name}");
        }
    }

    #[test]
    fn bad_conditions_are_refused_with_the_field_named() {
        let bad = ReadySpec {
            line: Some("(".to_owned()),
            ..ReadySpec::default()
        };
        assert!(
            bad.probe()
                .is_err_and(|e| e.to_string().starts_with("ready.line"))
        );
        let bad = ReadySpec {
            url: Some("https://x/".to_owned()),
            ..ReadySpec::default()
        };
        assert!(
            bad.probe()
                .is_err_and(|e| e.to_string().starts_with("ready.url"))
        );
        let bad = ReadySpec {
            timeout_ms: Some(MAX_READY_TIMEOUT_MS + 1),
            ..ReadySpec::default()
        };
        assert!(bad.probe().is_err());
    }
}
