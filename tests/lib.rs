//! End-to-end tests of the built `agg` binary: one test binary, one small builder
//! ([`test::Test`]), one module per command.

mod allowlist;
mod architecture;
#[macro_use]
mod common;
// After `common`, whose `require!` it uses.
mod act;
mod attacks;
mod clients;
mod cmake;
mod completions;
mod compose;
mod composer;
mod conformance;
mod control;
mod deno;
mod engine;
mod faults;
mod history;
mod hostile;
mod js;
mod jvm;
mod list;
mod live;
mod mcp;
mod mcp_tasks;
mod mise;
mod output;
mod picker;
mod python;
mod run;
mod scripts;
mod services;
mod test;
mod tokens;
mod vscode;
