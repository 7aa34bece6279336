//! The text copy of a result's `tests`, `problems` and `wait`: one line of counts, then one
//! line per listed failure or problem (`file:line name: first message line`), so the text
//! carries the same facts as the structured result at a fraction of its tokens.

use std::fmt::Write as _;

use crate::engine::until::{Outcome, Waited};
use crate::results::model::thousands;
use crate::results::{Results, Severity};

use super::types::JobResult;

/// Appends the tests and problems of `r` to the text `s`.
pub fn append(s: &mut String, r: &JobResult) {
    let counts = Results {
        tests: r.tests.clone().map(|mut t| {
            t.failures.clear();
            t
        }),
        errors: r
            .problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count() as u64,
        warnings: r
            .problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .count() as u64,
        ..Results::default()
    };
    if let Some(t) = &r.tests {
        let _ = write!(
            s,
            "\ntests: {}",
            counts
                .summary()
                .unwrap_or_default()
                .split("; ")
                .next()
                .unwrap_or("")
        );
        for f in &t.failures {
            let _ = write!(s, "\n✗ {}", place(f.file.as_deref(), f.line, None));
            let _ = write!(s, "{}", f.name);
            if let Some(m) = f.message.as_deref().and_then(|m| m.lines().next()) {
                let _ = write!(s, ": {m}");
            }
        }
        if t.more > 0 {
            let _ = write!(s, "\n… {} more failed", thousands(t.more));
        }
    }
    if !r.problems.is_empty() {
        let shown = Results {
            tests: None,
            ..counts
        };
        let _ = write!(s, "\nproblems: {}", shown.summary().unwrap_or_default());
        if r.problems_more > 0 {
            let _ = write!(s, " listed, {} more", thousands(r.problems_more));
        }
        for p in &r.problems {
            let sev = if p.severity == Severity::Error {
                "error"
            } else {
                "warning"
            };
            let _ = write!(s, "\n{}{sev}", place(Some(&p.file), p.line, p.column));
            if let Some(code) = &p.code {
                let _ = write!(s, " {code}");
            }
            let _ = write!(s, ": {}", p.message.lines().next().unwrap_or(""));
        }
    }
}

/// `file:line:col ` (what is known of it), or nothing.
fn place(file: Option<&str>, line: Option<u32>, column: Option<u32>) -> String {
    let Some(file) = file else {
        return String::new();
    };
    match (line, column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c} "),
        (Some(l), None) => format!("{file}:{l} "),
        _ => format!("{file} "),
    }
}

/// What a wait saw, in words.
pub fn waited(w: &Waited) -> String {
    let secs = format!("{}.{}", w.waited_ms / 1000, (w.waited_ms % 1000) / 100);
    match w.outcome {
        Outcome::Matched => format!(
            "line {} matched after {secs}s: {}",
            w.line_no.unwrap_or(0),
            w.line.as_deref().unwrap_or("")
        ),
        Outcome::Ended => format!("the run ended after {secs}s"),
        Outcome::Timeout => format!("no new line matched within {secs}s; still running"),
    }
}
