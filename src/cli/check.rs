//! `lore check`: validate the whole library without writing anything: front matter, patterns
//! (syntax, portability, size), examples and counterexamples, captures, ids and links.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;

use super::output::{self, Style};
use crate::doc::{Diagnostic, Level};
use crate::library::Library;
use crate::signature::{Engine, check::check_signatures};

#[derive(clap::Args)]
pub struct Args {
    /// Print the problems as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Summary<'a> {
    ok: bool,
    runbooks: usize,
    incidents: usize,
    stacks: usize,
    signatures: usize,
    errors: usize,
    warnings: usize,
    problems: &'a [Diagnostic],
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let library = Library::load(root)?;
    let engine = Engine::new(&library.runbooks);
    let mut problems = library.diagnostics.clone();
    problems.extend(check_signatures(&library.runbooks, &engine));
    problems.extend(crate::env::compat::check_examples(&library.compat));
    problems.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    let errors = problems.iter().filter(|d| d.level == Level::Error).count();
    let summary = Summary {
        ok: errors == 0,
        runbooks: library.runbooks.len(),
        incidents: library.incidents.len(),
        stacks: library.stacks.len(),
        signatures: library.runbooks.iter().map(|r| r.signatures.len()).sum(),
        errors,
        warnings: problems.len() - errors,
        problems: &problems,
    };
    output::print(|out| {
        if args.json {
            serde_json::to_writer_pretty(&mut *out, &summary)?;
            writeln!(out)?;
        } else {
            let style = Style::for_stdout();
            for d in &problems {
                let level = match d.level {
                    Level::Error => style.error("error"),
                    Level::Warning => style.warning("warning"),
                };
                write!(
                    out,
                    "{}:{}: {level}: {}",
                    d.path.display(),
                    d.line,
                    d.message
                )?;
                match &d.hint {
                    Some(hint) => writeln!(out, "\n    hint: {hint}")?,
                    None => writeln!(out)?,
                }
            }
            writeln!(
                out,
                "{} runbooks, {} signatures, {} incident(s), {} stack(s): {} error(s), {} warning(s)",
                summary.runbooks,
                summary.signatures,
                summary.incidents,
                summary.stacks,
                summary.errors,
                summary.warnings
            )?;
        }
        Ok(())
    })?;
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
