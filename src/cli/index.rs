//! `lore index`: bring the search index up to date (or rebuild it), with progress on a terminal.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use super::output;
use crate::search::SearchIndex;

#[derive(clap::Args)]
pub struct Args {
    /// Re-index every file, not only the changed ones
    #[arg(long)]
    rebuild: bool,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let dir = SearchIndex::dir_for(root);
    let index = SearchIndex::open(&dir)?;
    let tty = std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize| {
        if tty {
            let width = 30;
            let filled = (done * width).checked_div(total).unwrap_or(width);
            eprint!(
                "\rindexing [{}{}] {done}/{total}",
                "#".repeat(filled),
                " ".repeat(width - filled)
            );
            let _ = std::io::stderr().flush();
        }
    };
    let stats = index.sync(root, args.rebuild, &mut progress)?;
    if tty {
        eprintln!();
    }
    output::print(|out| {
        if let Some(why) = &stats.rebuilt {
            writeln!(out, "rebuilt the index ({why})")?;
        }
        writeln!(
            out,
            "{} file(s) indexed: {} added, {} updated, {} removed, {} unchanged, in {:.1} ms",
            index.len(),
            stats.added,
            stats.updated,
            stats.removed,
            stats.unchanged,
            stats.elapsed_ms
        )
    })?;
    Ok(ExitCode::SUCCESS)
}
