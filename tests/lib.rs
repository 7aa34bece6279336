//! End-to-end tests of the built `agg` binary: one test binary, one small builder
//! ([`test::Test`]), one module per command.

mod allowlist;
mod clients;
mod conformance;
mod engine;
mod faults;
mod hostile;
mod list;
mod live;
mod mcp;
mod python;
mod run;
mod test;
