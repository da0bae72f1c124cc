//! lore: the runbooks and postmortems of a GPU fleet, as Markdown in a git repository, made to
//! answer back. Paste a log and get the known causes; search everything; write postmortems.
//!
//! See ARCHITECTURE.md for the map of modules.

pub mod cli;
pub mod doc;
pub mod doctor;
pub mod env;
pub mod export;
pub mod format;
pub mod hash;
pub mod learn;
pub mod library;
mod par;
pub mod pieces;
pub mod postmortem;
pub mod search;
pub mod signature;
pub mod watcher;
pub mod web;
