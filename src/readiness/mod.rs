//! Readiness: which tasks are services, and when a started one can take requests.
//!
//! [`service`] holds the rules (the name rule, the framework messages, the caller's `ready`
//! condition) and turns them into a [`probe::Probe`]; [`probe`] watches one job of the
//! engine until the probe holds, the job ends, or its timeout passes. The MCP server's
//! `task_start` (`mcp::readiness`) and `agg run --until-ready` (`cli::until_ready`) decide
//! which probe a start waits on and how the outcome reads; both come here for the rest.

pub mod probe;
pub mod service;
