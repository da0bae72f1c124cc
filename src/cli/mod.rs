//! The command line: argument parsing, and the only place that prints or exits. Each subcommand is
//! a file with its arguments and a `run` that returns the exit code.

mod check;
mod doctor;
mod env;
mod export;
mod index;
mod learn;
mod matching;
mod new;
mod output;
mod search;
mod serve;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "lore",
    version,
    about = "Paste a GPU node's logs, get the runbook; search runbooks and postmortems"
)]
pub struct Cli {
    /// Library root (holds runbooks/ and incidents/); default $LORE_ROOT, else the current directory
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web UI and JSON API over the library
    Serve(serve::Args),
    /// Find the known causes in a log (a file, or standard input)
    Match(matching::Args),
    /// Validate every runbook and incident: front matter, patterns, examples, links
    Check(check::Args),
    /// Search runbooks and incidents (Chinese, English, identifiers)
    Search(search::Args),
    /// Write a new postmortem (`lore new incident --title ...`)
    New(new::Args),
    /// Teach a runbook a new wording: a log line becomes one of its signatures
    Learn(learn::Args),
    /// Read the versions in a paste (nvidia-smi, collect_env, package lists) and judge them
    Env(env::Args),
    /// Collect this node's evidence (read-only, bounded in time) and answer it
    Doctor(doctor::Args),
    /// Update the search index (only changed files), or rebuild it
    Index(index::Args),
    /// Export the signatures for node-problem-detector, Loki or Sigma
    Export(export::Args),
    /// Follow a log stream and print each known cause as it fires
    Watch(watch::Args),
}

/// Parses the arguments, runs the command, prints any error and returns the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = resolve_root(cli.root);
    let result = match cli.command {
        Command::Serve(args) => serve::run(&root, args),
        Command::Match(args) => matching::run(&root, args),
        Command::Check(args) => check::run(&root, args),
        Command::Search(args) => search::run(&root, args),
        Command::New(args) => new::run(&root, args),
        Command::Learn(args) => learn::run(&root, args),
        Command::Env(args) => env::run(&root, args),
        Command::Doctor(args) => doctor::run(&root, args),
        Command::Index(args) => index::run(&root, args),
        Command::Export(args) => export::run(&root, args),
        Command::Watch(args) => watch::run(&root, args),
    };
    match result {
        Ok(code) => code,
        // Standard output closed by its reader: the job is over, and that is not an error.
        Err(error) if output::is_closed_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("lore: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Loads the library for a command that works with whatever loads: broken files are skipped, and
/// said so in one line (`lore check` has the details).
fn load_library(root: &std::path::Path) -> anyhow::Result<crate::library::Library> {
    let library = crate::library::Library::load(root)?;
    let broken = library.error_count();
    if broken > 0 {
        eprintln!(
            "lore: {broken} problem(s) in the library were skipped; run `lore check` for details"
        );
    }
    Ok(library)
}

fn resolve_root(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| std::env::var_os("LORE_ROOT").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("."))
}
