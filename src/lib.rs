//! agg: find and run every task in a polyglot repository.
//!
//! Data flows one way: [`scan`] walks the repository and hands task files to the pure
//! adapters of the `agg-runners` crate; [`table`] names the tasks ([`naming`]) and marks
//! which runners are installed ([`availability`]); [`search`] finds tasks by words or by
//! path; [`resolve`] turns the names people and agents give into tasks and [`invocation`] turns a task into a process, which the
//! [`engine`] runs and [`readiness`] watches until a service is ready; [`watched_table`]
//! keeps the table current; [`allowlist`] decides what agents may
//! run; [`history`] keeps how past runs ended and how long they took; [`describe`] describes
//! one task; [`terminal_text`], at the bottom, makes what a repository
//! or a task wrote safe to print on a person's terminal. The [`cli`] (`agg list`, `run`,
//! `describe`, `allow`) and the [`mcp`] server sit on top; neither imports the other.
//!
//! Only what the `agg` binary, the integration tests and the benchmarks use is public.
#![deny(missing_docs)]

mod admission;
mod affected;
pub mod allowlist;
mod availability;
mod cache;
mod changes;
pub mod cli;
mod control;
mod describe;
pub mod engine;
mod error;
mod graph;
mod history;
mod human;
mod invocation;
mod lock;
mod mcp;
mod named;
mod naming;
mod own_dirs;
mod readiness;
mod repo_files;
mod resolve;
mod results;
mod runs;
pub mod sandbox;
mod scan;
pub mod search;
pub mod table;
mod terminal_text;
mod watched_table;
