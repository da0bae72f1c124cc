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
    /// Record a tested stack in stacks/ from a paste of its environment
    Stack(StackArgs),
}

#[derive(clap::Args)]
struct StackArgs {
    /// The paste that shows the stack (nvidia-smi, collect_env, uname -a...; `-` for standard input)
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// What it is, in a few words
    #[arg(long)]
    title: String,
    /// good, degraded or bad
    #[arg(long, default_value = "good")]
    verdict: String,
    /// The file's id (default: from the title)
    #[arg(long)]
    id: Option<String>,
}

fn new_stack(root: &Path, args: StackArgs) -> anyhow::Result<ExitCode> {
    let Some(verdict) = crate::doc::Verdict::parse(&args.verdict) else {
        eprintln!("lore: --verdict is good, degraded or bad");
        return Ok(ExitCode::from(2));
    };
    let bytes = output::read_paste(Some(&args.from))?;
    match crate::env::record_stack(root, &bytes, &args.title, verdict, args.id.as_deref()) {
        Ok(rel) => {
            output::print(|out| writeln!(out, "{}", root.join(&rel).display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ crate::env::RecordError::BadId(_)) => {
            eprintln!("lore: {e}; pass --id");
            Ok(ExitCode::from(2))
        }
        Err(crate::env::RecordError::Io(e)) => Err(e).context("writing the stack"),
        Err(e) => {
            eprintln!("lore: {e}; nothing was written");
            Ok(ExitCode::from(1))
        }
    }
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
    let args = match args.what {
        What::Incident(args) => args,
        What::Stack(args) => return new_stack(root, args),
    };
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
