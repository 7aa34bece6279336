//! End-to-end tests of the built `agg` binary: one test binary, one small builder
//! ([`test::Test`]), one module per command.

mod allowlist;
mod architecture;
#[macro_use]
mod common;
// After `common`, whose `require!` it uses.
mod act;
mod clients;
mod compose;
mod conformance;
mod control;
mod engine;
mod faults;
mod hostile;
mod list;
mod live;
mod mcp;
mod mcp_tasks;
mod python;
mod run;
mod scripts;
mod services;
mod test;
