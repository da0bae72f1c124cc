//! `lore learn`: add a line to a runbook as a new signature, checked like `lore check` first.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use super::output;
use crate::learn::{self, LearnError, Request};
use crate::library::Library;

#[derive(clap::Args)]
pub struct Args {
    /// The runbook the line belongs to (its id)
    runbook: String,
    /// The log line, as it appeared (its timestamp and host prefix are left out of the pattern)
    #[arg(long)]
    line: String,
    /// Use this pattern instead of the one drafted from the line
    #[arg(long, value_name = "RE")]
    pattern: Option<String>,
    /// Use this signature id instead of the drafted one
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    /// Show the signature and its checks; write nothing
    #[arg(long)]
    dry_run: bool,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let library = Library::load(root)?;
    let Some(runbook) = library.runbook(&args.runbook) else {
        eprintln!("lore: no runbook `{}` in {}", args.runbook, root.display());
        return Ok(ExitCode::from(2));
    };
    let request = Request {
        line: args.line,
        pattern: args.pattern,
        id: args.id,
    };
    let draft = match learn::draft(&library, runbook, &request) {
        Ok(draft) => draft,
        Err(why) => {
            eprintln!("lore: {why}");
            return Ok(ExitCode::from(2));
        }
    };
    output::print(|out| {
        writeln!(out, "runbook:   {}", draft.runbook)?;
        writeln!(out, "id:        {}", draft.id)?;
        writeln!(out, "pattern:   {}", draft.pattern)?;
        writeln!(out, "example:   {}", draft.example)?;
        for (name, value) in &draft.captures {
            writeln!(out, "capture:   {name}={value}")?;
        }
        Ok(())
    })?;
    let result = if args.dry_run {
        let reasons = learn::validate(root, &library, runbook, &draft);
        if reasons.is_empty() {
            output::print(|out| {
                writeln!(out, "ok: passes every check (dry run: nothing written)")
            })?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(LearnError::Invalid(reasons))
    } else {
        learn::save(root, &library, &draft, None)
    };
    match result {
        Ok(saved) => {
            output::print(|out| writeln!(out, "added to {} (etag {})", saved.path, saved.etag))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(LearnError::Invalid(reasons)) => {
            for reason in reasons {
                eprintln!("lore: {reason}");
            }
            eprintln!("lore: nothing was written");
            Ok(ExitCode::from(1))
        }
        Err(LearnError::Io(e)) => Err(e).context("writing the runbook"),
        Err(other) => anyhow::bail!("{other}"),
    }
}
