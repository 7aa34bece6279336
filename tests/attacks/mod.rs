//! Attacks on agg's promise that an agent runs only what a person allowed, one module per
//! area, each written as the attacker would: real processes and runners, a refused attack
//! leaves no marker file behind and the server keeps answering.

mod args;
mod backpressure;
mod bounds;
mod data;
mod env;
mod files;
mod harness;
mod npx;
mod orphans;
mod pin_runners;
mod pins;
mod places;
mod question;
mod socket;
mod symlinks;
mod terminal;
mod tools;
