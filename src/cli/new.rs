//! `lore new incident`: a postmortem file from the command line, optionally started from a log
//! (the same prefill as "start a postmortem from this paste").

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::output;
use crate::library::Library;
use crate::postmortem::{self, Postmortem, SaveError};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Write a new postmortem into incidents/
    Incident(IncidentArgs),
}

#[derive(clap::Args)]
struct IncidentArgs {
    /// What happened, in a few words
    #[arg(long)]
    title: String,
    /// Start from a log: its causes, hosts, timestamps and text (`-` for standard input)
    #[arg(long, value_name = "FILE")]
    from_log: Option<PathBuf>,
    /// SEV1 (worst) .. SEV4
    #[arg(long)]
    severity: Option<String>,
    /// When it started (RFC 3339, e.g. 2026-04-03T14:02:00+08:00)
    #[arg(long)]
    started_at: Option<String>,
    /// A runbook that was the cause (repeatable)
    #[arg(long = "runbook", value_name = "ID")]
    runbooks: Vec<String>,
    /// An affected host (repeatable)
    #[arg(long = "host", value_name = "HOST")]
    hosts: Vec<String>,
    /// An author (repeatable)
    #[arg(long = "author", value_name = "NAME")]
    authors: Vec<String>,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let What::Incident(args) = args.what;
    let library = Library::load(root)?;
    let mut draft = match &args.from_log {
        Some(path) => {
            let mut bytes = Vec::new();
            if path == Path::new("-") {
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .context("reading standard input")?;
            } else {
                bytes =
                    std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            }
            let matcher = library.matcher();
            let report = matcher.match_bytes(&bytes, None);
            postmortem::from_paste(&bytes, &report)
        }
        None => Postmortem::new(),
    };
    draft.title = args.title;
    if let Some(s) = args.severity {
        draft.severity = s;
    }
    if let Some(t) = args.started_at {
        draft.started_at = t;
    }
    for r in args.runbooks {
        if !draft.runbooks.contains(&r) {
            draft.runbooks.push(r);
        }
    }
    for h in args.hosts {
        if !draft.hosts.contains(&h) {
            draft.hosts.push(h);
        }
    }
    draft.authors.extend(args.authors);
    match postmortem::save_new(root, &library, &draft) {
        Ok(saved) => {
            // The file is saved whether or not anybody reads its name.
            output::print(|out| writeln!(out, "{}", root.join(&saved.rel).display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(SaveError::Invalid(problems)) => {
            for p in problems {
                eprintln!("lore: {}: {}", p.field, p.message);
            }
            eprintln!("lore: nothing was written");
            Ok(ExitCode::from(1))
        }
        Err(SaveError::Io(e)) => Err(e).context("writing the postmortem"),
        Err(other) => anyhow::bail!("{other:?}"),
    }
}
