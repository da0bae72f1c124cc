//! Integration tests: the real `lore` binary over small library roots in temp dirs.

mod browser;
mod check;
mod doctor;
mod eval;
mod export;
mod learn;
mod matching;
mod postmortem;
mod reload;
mod repository;
mod search;
mod stacks;
mod support;
mod watch;
mod web;
