//! `lore match`: scan a log for known causes. Reads the input in pieces, so memory stays bounded
//! whatever its size.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;

use super::output::{Style, human_bytes};
use crate::signature::{Matcher, Report};

#[derive(clap::Args)]
pub struct Args {
    /// The log to scan; `-` or nothing for standard input
    file: Option<PathBuf>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
    /// Show at most N causes
    #[arg(long, value_name = "N")]
    top: Option<usize>,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let library = super::load_library(root)?;
    let matcher = Matcher::new(&library);
    // Only a cost to the next start-up if it fails (e.g. a read-only checkout).
    let _ = library.save_pattern_cache(&matcher.engine.cache);
    let mut scanner = matcher.scanner();
    let mut buf = vec![0u8; 1 << 20];
    let mut feed = |reader: &mut dyn Read, name: &str| -> anyhow::Result<()> {
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e).with_context(|| format!("reading {name}")),
            };
            scanner.feed(&buf[..n]);
        }
    };
    match args.file.as_deref() {
        None => feed(&mut io::stdin().lock(), "standard input")?,
        Some(p) if p == Path::new("-") => feed(&mut io::stdin().lock(), "standard input")?,
        Some(path) => {
            let mut file =
                File::open(path).with_context(|| format!("opening {}", path.display()))?;
            feed(&mut file, &path.display().to_string())?;
        }
    }
    let report = matcher.report(scanner.finish(), args.top, started);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        print_human(&mut out, &report, Style::for_stdout())?;
    }
    Ok(if report.causes.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Hits shown per cause in human output.
const SHOWN_HITS: usize = 5;

fn print_human(out: &mut impl Write, report: &Report, style: Style) -> io::Result<()> {
    for (n, cause) in report.causes.iter().enumerate() {
        writeln!(
            out,
            "{} {}  {}  score {:.2}",
            style.bold(&format!("{}.", n + 1)),
            style.bold(&cause.runbook),
            style.severity(cause.severity),
            cause.score
        )?;
        writeln!(out, "   {}", cause.title)?;
        if !cause.summary.is_empty() {
            writeln!(out, "   {}", style.dim(&cause.summary))?;
        }
        // Show each signature once before repeating any.
        let mut shown: Vec<&crate::signature::HitReport> = Vec::new();
        for hit in &cause.hits {
            if shown.len() < SHOWN_HITS && !shown.iter().any(|h| h.signature == hit.signature) {
                shown.push(hit);
            }
        }
        for hit in &cause.hits {
            if shown.len() >= SHOWN_HITS {
                break;
            }
            if !shown.iter().any(|h| std::ptr::eq(*h, hit)) {
                shown.push(hit);
            }
        }
        shown.sort_by_key(|h| h.line);
        for (i, hit) in shown.iter().enumerate() {
            let label = format!("line {:>5}", hit.line);
            // Two signatures on one line: show the line once, then what each found.
            if i == 0 || shown[i - 1].line != hit.line {
                let mut lines = hit.text.lines();
                writeln!(
                    out,
                    "   {}  {}",
                    style.dim(&label),
                    lines.next().unwrap_or("")
                )?;
                for more in lines {
                    writeln!(out, "   {}  {}", " ".repeat(label.len()), more)?;
                }
            }
            if !hit.captures.is_empty() {
                let caps: Vec<String> = hit
                    .captures
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                writeln!(
                    out,
                    "   {}  {}",
                    " ".repeat(label.len()),
                    style.dim(&caps.join(" "))
                )?;
            }
            if let Some(explain) = hit.explain.as_deref().filter(|e| !e.is_empty()) {
                writeln!(out, "   {}  → {explain}", " ".repeat(label.len()))?;
            }
        }
        let more = cause.hit_count.saturating_sub(shown.len() as u64);
        if more > 0 {
            writeln!(out, "   … and {more} more matching line(s)")?;
        }
        let action = cause
            .action
            .as_deref()
            .map(|a| format!(" (action: {a})"))
            .unwrap_or_default();
        writeln!(out, "   runbook: {}{action}", cause.path.display())?;
        if !cause.incidents.is_empty() {
            let seen: Vec<String> = cause
                .incidents
                .iter()
                .take(3)
                .map(|i| i.id.clone())
                .collect();
            writeln!(
                out,
                "   seen before: {} time(s): {}",
                cause.incidents.len(),
                seen.join(", ")
            )?;
        }
        writeln!(out)?;
    }
    if !report.unexplained.is_empty() {
        writeln!(
            out,
            "{} ({} line(s), {} distinct):",
            style.bold("Error-looking lines no runbook explains"),
            report.unexplained_total,
            report.unexplained.len()
        )?;
        for u in &report.unexplained {
            let count = if u.count > 1 {
                format!("  (×{})", u.count)
            } else {
                String::new()
            };
            writeln!(
                out,
                "   {}  {}{}",
                style.dim(&format!("line {:>5}", u.line)),
                u.text,
                count
            )?;
        }
        writeln!(out)?;
    }
    let causes = match report.causes.len() {
        0 => "no known cause".to_string(),
        1 => "1 cause".to_string(),
        n => format!("{n} causes"),
    };
    writeln!(
        out,
        "{}",
        style.dim(&format!(
            "{causes} in {} line(s), {}, {:.1} ms",
            report.stats.lines,
            human_bytes(report.stats.bytes),
            report.stats.elapsed_ms
        ))
    )
}
