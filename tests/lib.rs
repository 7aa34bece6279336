//! End-to-end tests of the built `agg` binary: one test binary, one small builder
//! ([`test::Test`]), one module per command.

mod allowlist;
mod architecture;
#[macro_use]
mod common;
// After `common`, whose `require!` it uses.
mod act;
mod attacks;
mod cargo_make;
mod changes;
mod clients;
mod cmake;
mod completions;
mod compose;
mod composer;
mod conformance;
mod control;
mod deno;
mod docs;
mod engine;
mod faults;
mod fits;
mod graph;
mod history;
mod hostile;
mod hosts;
mod ide_tasks;
mod invoke;
mod js;
mod js_build;
mod jvm;
mod list;
mod listings;
mod live;
mod mcp;
mod mcp_tasks;
mod mise;
mod output;
mod picker;
mod procfile;
mod python;
mod python_listing;
mod rake;
mod results;
mod run;
mod run_many;
mod run_services;
mod sandbox;
mod scope;
mod scripts;
mod services;
mod shared_runs;
mod test;
mod tokens;
mod tty;
mod vscode;
