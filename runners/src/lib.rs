//! Pure adapters from task files to task rows.
//!
//! Each adapter is a function from one task file (its root-relative path and text) to the
//! tasks it defines plus diagnostics. Adapters never spawn processes or touch the network;
//! the only outside world they see is the read-only [`Files`] view, used to follow
//! includes (Make `include`, just `import`/`mod`, Taskfile `includes`) and to find a
//! package's lockfile. [`ADAPTERS`] lists every adapter; the `agg` crate walks the repo,
//! offers each file to the registry and builds the unified table from what comes back.
//!
//! The adapters stand on the bottom floor (`model`, `files`, `text`, `token`, `doc`, and
//! `testing` in tests), never on each other; the registry and this file, above them, name them all.
#![deny(missing_docs)]

pub mod act;
pub mod cargo;
pub mod cargo_make;
pub mod cmake;
pub mod compose;
pub mod composer;
pub mod deno;
mod doc;
mod files;
pub mod graph;
pub mod invoke;
pub mod js;
pub mod just;
pub mod jvm;
pub mod make;
pub mod mise;
mod model;
mod passing;
pub mod procfile;
pub mod python;
pub mod rake;
mod reads;
mod registry;
pub mod script;
pub mod taskfile;
#[cfg(test)]
mod testing;
mod text;
mod token;
pub mod vscode;
pub mod xc;
// Build files read as code, and the editors' and IDEs' own task files.
pub mod jetbrains;
pub mod jscode;
pub mod mage;
pub mod zed;

pub use files::{Files, MemFiles, SharedParses, Unreadable, child, join, parent};
pub use model::{
    Adapter, ArgumentData, Arguments, Behaviour, DESCRIPTORS, Descriptor, Diagnostic, Hook,
    HookWhen, MAX_NAME_BYTES, Neighbours, Param, Parsed, Passing, Runner, Source, Syntax, Task,
    Variadic, XcSpec,
};
pub use passing::arguments as param_arguments;
pub use reads::{MAX_PARTS, Part, Purpose, Reads};
pub use registry::{ADAPTERS, surely_not_a_task_file};
pub use text::{LineIndex, quote_command};
