//! rustc and cargo diagnostics. Human: `error[E0308]: mismatched types` then
//! ` --> src/main.rs:3:18`, a warning's lint read from its `= note: #[warn(unused_variables)]`
//! line. Short (`--message-format short`): `src/main.rs:3:18: error[E0308]: …`. JSON
//! (`--message-format json`, `--error-format json`): `compiler-message` records whose primary
//! span is the place. Summaries (`error: could not compile`, `warning: … generated 2
//! warnings`) have no place and are not problems.

use serde::Deserialize;

use super::text::loc_prefix;
use super::{Out, Places};
use crate::results::model::{Problem, Severity};

#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    message: Option<Diagnostic>,
}

#[derive(Deserialize)]
struct Diagnostic {
    message: String,
    level: String,
    #[serde(default)]
    code: Option<Code>,
    #[serde(default)]
    spans: Vec<Span>,
}

#[derive(Deserialize)]
struct Code {
    code: String,
}

#[derive(Deserialize)]
struct Span {
    file_name: String,
    line_start: u32,
    column_start: u32,
    is_primary: bool,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    // A header waiting for its ` --> ` line: severity, code, message.
    let mut header: Option<(Severity, Option<String>, String)> = None;
    // The last problem from a human header, whose lint a later `= note:` names.
    let mut last: Option<usize> = None;
    for &line in lines {
        if line.starts_with('{') {
            json(line, places, out);
            continue;
        }
        if let Some((sev, code, msg)) = human_header(line) {
            header = Some((sev, code, msg.to_owned()));
            last = None;
            continue;
        }
        let t = line.trim_start();
        if let Some(place) = t.strip_prefix("--> ") {
            if let Some((sev, code, message)) = header.take()
                && let Some((loc, _)) = loc_prefix(place)
            {
                out.problem_at(places, &loc, sev, message, code);
                last = Some(out.problems.len() - 1);
            }
            continue;
        }
        if let Some(note) = t.strip_prefix("= note: `#[") {
            if let Some(i) = last.take()
                && let Some(lint) = note
                    .split_once('(')
                    .and_then(|(_, r)| r.split_once(')'))
                    .map(|(l, _)| l)
                && let Some(p) = out.problems.get_mut(i)
                && p.code.is_none()
            {
                p.code = Some(lint.to_owned());
            }
            continue;
        }
        if let Some((loc, rest)) = loc_prefix(line)
            && super::text::has_ext(loc.path, &["rs"])
            && let Some((sev, code, msg)) = human_header(rest.trim_start_matches(": "))
        {
            out.problem_at(places, &loc, sev, msg, code);
        }
    }
}

/// `error[E0308]: message` or `warning: message`.
fn human_header(line: &str) -> Option<(Severity, Option<String>, &str)> {
    let (sev, rest) = if let Some(r) = line.strip_prefix("error") {
        (Severity::Error, r)
    } else {
        (Severity::Warning, line.strip_prefix("warning")?)
    };
    let (code, rest) = match rest.strip_prefix('[') {
        Some(r) => {
            let (code, r) = r.split_once(']')?;
            (Some(code.to_owned()), r)
        }
        None => (None, rest),
    };
    let msg = rest.strip_prefix(": ")?;
    Some((sev, code, msg))
}

fn json(line: &str, places: &Places, out: &mut Out) {
    let Ok(record) = serde_json::from_str::<Record>(line) else {
        return;
    };
    let diagnostic = match (record.reason.as_deref(), record.message) {
        (Some("compiler-message"), Some(d)) => d,
        _ => match serde_json::from_str::<Diagnostic>(line) {
            Ok(d) => d,
            Err(_) => return,
        },
    };
    let severity = match diagnostic.level.as_str() {
        "error" | "error: internal compiler error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => return,
    };
    let Some(span) = diagnostic.spans.iter().find(|s| s.is_primary) else {
        return;
    };
    out.problem(Problem {
        file: places.file(&span.file_name),
        line: Some(span.line_start),
        column: Some(span.column_start),
        severity,
        message: diagnostic.message,
        code: diagnostic.code.map(|c| c.code),
    });
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    /// `cargo build` (Rust 1.95): two errors, then a crate with two warnings.
    const HUMAN: &str = include_str!("recorded/rustc.txt");

    /// `cargo build --message-format=json`, one record of each kind (trimmed of its
    /// `rendered` text and child spans).
    const JSON: &str = r#"{"reason":"compiler-artifact","package_id":"x","target":{"name":"rc"}}
{"reason":"compiler-message","package_id":"path+file:///repo#rc@0.1.0","manifest_path":"/repo/Cargo.toml","target":{"kind":["bin"],"name":"rc","src_path":"/repo/src/main.rs"},"message":{"rendered":"error[E0308]: mismatched types\n","$message_type":"diagnostic","children":[],"code":{"code":"E0308","explanation":"x"},"level":"error","message":"mismatched types","spans":[{"byte_end":58,"byte_start":55,"column_end":21,"column_start":18,"expansion":null,"file_name":"src/main.rs","is_primary":true,"label":"expected `u32`, found `&str`","line_end":3,"line_start":3,"suggested_replacement":null,"suggestion_applicability":null,"text":[]},{"byte_end":52,"byte_start":49,"column_end":15,"column_start":12,"expansion":null,"file_name":"src/main.rs","is_primary":false,"label":"expected due to this","line_end":3,"line_start":3,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}]}}
{"reason":"compiler-message","package_id":"path+file:///repo#rc@0.1.0","manifest_path":"/repo/Cargo.toml","target":{"kind":["bin"],"name":"rc","src_path":"/repo/src/main.rs"},"message":{"rendered":"error: aborting","$message_type":"diagnostic","children":[],"code":null,"level":"error","message":"aborting due to 2 previous errors","spans":[]}}
{"reason":"build-finished","success":false}
"#;

    #[test]
    fn cargo_s_human_and_json_diagnostics_give_the_same_problems() {
        assert_eq!(
            problems(&run(parse, HUMAN)),
            [
                "src/main.rs:4:20 Error E0425 cannot find value `y` in this scope",
                "src/main.rs:3:18 Error E0308 mismatched types",
                "src/main.rs:2:9 Warning unused_variables unused variable: `unused`",
            ]
        );
        assert_eq!(
            problems(&run(parse, JSON)),
            ["src/main.rs:3:18 Error E0308 mismatched types"]
        );
        assert_eq!(
            problems(&run(
                parse,
                "src/main.rs:4:20: error[E0425]: cannot find value `y` in this scope\n"
            )),
            ["src/main.rs:4:20 Error E0425 cannot find value `y` in this scope"]
        );
    }
}
