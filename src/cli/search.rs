//! `lore search`: find runbooks and incidents by words, identifiers or Chinese phrases. The index
//! under `.lore/index` is brought up to date first (only changed files are re-read).

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use super::output::{self, Style};
use crate::search::{SearchIndex, SearchResults, WhenBusy};

#[derive(clap::Args)]
pub struct Args {
    /// What to look for; `"quoted phrases"`, `kind:`, `tag:` and `severity:` are understood
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
    /// At most N results
    #[arg(long, default_value_t = 10, value_name = "N")]
    limit: usize,
    /// Only runbooks or only incidents
    #[arg(long, value_parser = ["runbook", "incident", "stack", "compat"])]
    kind: Option<String>,
}

/// The index of `root`, synced: the one way every command and the server open it
/// (`SearchIndex::open_for_root`). Another lore writing it (a running `serve`) is not an error:
/// the index is searched as it is.
fn open_synced(
    root: &Path,
    rebuild: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> anyhow::Result<SearchIndex> {
    let (index, warning) =
        SearchIndex::open_for_root(root, WhenBusy::SearchAsIs, rebuild, progress)?;
    if let Some(warning) = warning {
        eprintln!("lore: {warning}");
    }
    Ok(index)
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let index = open_synced(root, false, &mut |_, _| {})?;
    let text = args.query.join(" ");
    let results = index.search(&text, args.limit, args.kind.as_deref())?;
    output::print(|out| {
        if args.json {
            serde_json::to_writer(&mut *out, &results)?;
            writeln!(out)?;
        } else {
            print_human(
                &mut *out,
                &results,
                Style::for_stdout(),
                io::stdout().is_terminal(),
            )?;
        }
        Ok(())
    })?;
    Ok(if results.hits.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_human(
    out: &mut impl Write,
    results: &SearchResults,
    style: Style,
    tty: bool,
) -> io::Result<()> {
    for (n, hit) in results.hits.iter().enumerate() {
        let severity = if hit.severity.is_empty() {
            String::new()
        } else {
            format!("  {}", hit.severity)
        };
        writeln!(
            out,
            "{} {}  {}{severity}",
            style.bold(&format!("{}.", n + 1)),
            style.bold(&hit.id),
            hit.kind
        )?;
        writeln!(out, "   {}", hit.title)?;
        let section = hit
            .section
            .as_deref()
            .map(|s| format!("  § {s}"))
            .unwrap_or_default();
        writeln!(out, "   {}{section}", style.dim(&hit.url))?;
        writeln!(out, "   {}", terminal_snippet(&hit.snippet, tty))?;
        writeln!(out)?;
    }
    let shown = results.hits.len();
    writeln!(
        out,
        "{}",
        style.dim(&format!(
            "{shown} of {} matching document(s), {:.1} ms",
            results.total, results.elapsed_ms
        ))
    )
}

/// The snippet's HTML as terminal text: `<b>` becomes bold on a terminal, entities are decoded.
fn terminal_snippet(html: &str, tty: bool) -> String {
    let (on, off) = if tty {
        ("\x1b[1;33m", "\x1b[0m")
    } else {
        ("", "")
    };
    html.replace("<b>", on)
        .replace("</b>", off)
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
