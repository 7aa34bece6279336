//! agg: find and run every task in a polyglot repository.
//!
//! Data flows one way: [`scan`] walks the repo and hands task files to the pure adapters of
//! the `agg-runners` crate; [`table`] names the tasks ([`naming`]) and marks which runners
//! are installed ([`availability`]); the [`cli`] shows the table.
#![deny(missing_docs)]

pub mod allowlist;
pub mod availability;
pub mod cli;
pub mod control;
pub mod detail;
pub mod engine;
pub mod error;
pub mod invocation;
pub mod live;
pub mod mcp;
pub mod naming;
pub mod places;
pub mod repo_files;
pub mod resolve;
pub mod scan;
pub mod service;
pub mod table;

pub use agg_runners as runners;
