//! `lore match`: scan a log for known causes. Reads the input in pieces, so memory stays bounded
//! whatever its size.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;

use super::output::{self, Style, human_bytes};
use crate::signature::Report;

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
    let (mut reader, name, size): (Box<dyn Read + Send>, String, Option<u64>) =
        match args.file.as_deref() {
            None => (Box::new(io::stdin()), "standard input".to_string(), None),
            Some(p) if p == Path::new("-") => {
                (Box::new(io::stdin()), "standard input".to_string(), None)
            }
            Some(path) => {
                let file =
                    File::open(path).with_context(|| format!("opening {}", path.display()))?;
                let size = file.metadata().ok().map(|m| m.len());
                (Box::new(file), path.display().to_string(), size)
            }
        };
    // The start of the input, for its environment (versions are printed at the top of what
    // carries them), is read first: its fields are then read on the other core while the
    // library loads, the matcher is built and the scan runs.
    let mut head: Vec<u8> = Vec::new();
    let whole = read_head(&mut reader, &mut head).with_context(|| format!("reading {name}"))?;
    if let Some(why) = crate::signature::normalize::refusal(&head, &name) {
        anyhow::bail!(why);
    }
    let (library, report, fingerprint, matcher) = std::thread::scope(|scope| {
        // The other core: the regexes every scan uses, then the paste's fields. Neither needs
        // the library, so they overlap its load; the load and the matcher's build spread over
        // both cores and take up whatever this thread leaves.
        let fingerprint = scope.spawn(|| {
            crate::signature::warm_up();
            crate::env::fingerprint::of(&head)
        });
        let library = super::load_library(root)?;
        let matcher = library.matcher();
        let mut scanner = matcher.scanner();
        if let Some(size) = size {
            scanner.size_hint(size);
        }
        if whole {
            scanner.feed(&head);
        } else {
            // The start goes in as a piece of its own, so that the pieces after it are scanned
            // where they are read (see `crate::pieces`).
            let mut first = vec![0; crate::pieces::HEAD];
            first.extend_from_slice(&head);
            scanner.feed_owned(first, crate::pieces::HEAD);
            // The rest is read on a thread of its own, so the kernel's copying overlaps the scan.
            crate::pieces::each_piece(reader, |piece| {
                Ok::<_, io::Error>(scanner.feed_owned(piece, crate::pieces::HEAD))
            })
            .with_context(|| format!("reading {name}"))?;
        }
        let report = matcher.report(scanner.finish(), args.top, started);
        let fingerprint = fingerprint.join().unwrap_or_default();
        anyhow::Ok((library, report, fingerprint, matcher))
    })?;
    let environment = crate::env::of_fingerprint(
        &fingerprint,
        &library.stacks,
        &library.compat,
        chrono::Local::now().date_naive(),
    );
    // A `lore doctor` bundle also gets the doctor's checks.
    let doctor = crate::doctor::bundle_checks(&head);
    output::print(|out| {
        if args.json {
            let mut value = serde_json::to_value(&report)?;
            if let Some(environment) = &environment {
                value["environment"] = serde_json::to_value(environment)?;
            }
            if let Some(doctor) = &doctor {
                value["checks"] = serde_json::to_value(&doctor.checks)?;
                value["collected"] = serde_json::to_value(&doctor.collected)?;
            }
            serde_json::to_writer(&mut *out, &value)?;
            writeln!(out)?;
        } else {
            if let Some(doctor) = &doctor {
                print_checks(&mut *out, &doctor.checks, Style::for_stdout())?;
            }
            print_human(&mut *out, &report, Style::for_stdout())?;
            if let Some(environment) = &environment {
                print_environment(&mut *out, environment, Style::for_stdout())?;
            }
        }
        Ok(())
    })?;
    // The process ends right after this: freeing thousands of compiled patterns and parsed
    // documents one by one took 1.5 ms of a paste's answer time, for memory the exit returns.
    std::mem::forget(matcher);
    std::mem::forget(library);
    Ok(if report.causes.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A bundle's failed and warning checks, before the causes.
fn print_checks(
    out: &mut impl Write,
    checks: &[crate::doctor::Check],
    style: Style,
) -> io::Result<()> {
    use crate::doctor::CheckLevel;
    let bad: Vec<_> = checks
        .iter()
        .filter(|c| c.level >= CheckLevel::Warn)
        .collect();
    writeln!(
        out,
        "{} {} of {} checks failed or warn (lore doctor --from FILE shows them all)",
        style.bold("Checks:"),
        bad.len(),
        checks.len()
    )?;
    for c in bad {
        let level = if c.level == CheckLevel::Fail {
            style.error("FAIL")
        } else {
            style.warning("WARN")
        };
        writeln!(out, "   {level} {}: {}", c.id, c.message)?;
    }
    writeln!(out)
}

/// Reads the first [`ENV_HEAD`] bytes of `reader` into `head`; whether that was all of it.
fn read_head(reader: &mut dyn Read, head: &mut Vec<u8>) -> io::Result<bool> {
    let mut limited = reader.take(ENV_HEAD as u64);
    limited.read_to_end(head)?;
    Ok(head.len() < ENV_HEAD)
}

/// How much of the input is read for its environment.
const ENV_HEAD: usize = 1 << 20;

/// The environment in a few lines: the verdict, what is wrong, and the stack it is (or is near).
fn print_environment(
    out: &mut impl Write,
    environment: &crate::env::Assessment,
    style: Style,
) -> io::Result<()> {
    use crate::env::Level;
    let verdict = match environment.verdict {
        Level::Violation => style.error("violation"),
        Level::Risk => style.warning("risk"),
        Level::Ok => "ok".to_string(),
        Level::Unknown => style.dim("unknown"),
    };
    let fields: Vec<String> = environment
        .fingerprint
        .iter()
        .map(|(k, f)| format!("{k} {}", f.value))
        .collect();
    writeln!(
        out,
        "{} {verdict}  {}",
        style.bold("Environment:"),
        style.dim(&fields.join(", "))
    )?;
    for f in environment.findings.iter().filter(|f| f.level > Level::Ok) {
        writeln!(out, "   {}", f.message)?;
    }
    if let Some(s) = environment.stacks.first() {
        writeln!(
            out,
            "   {} recorded stack: {} ({}), {}",
            s.kind,
            s.id,
            s.verdict.as_str(),
            s.title
        )?;
    }
    writeln!(out, "   (lore env shows it all)")?;
    Ok(())
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
    if !report.similar.is_empty() {
        writeln!(
            out,
            "{}",
            style.bold("Likely causes: no signature matched these lines")
        )?;
        for s in &report.similar {
            writeln!(
                out,
                "   {}  {}  (similar {:.2})",
                style.severity(s.severity),
                style.bold(&s.runbook),
                s.score
            )?;
            writeln!(out, "   {}", s.title)?;
            for l in &s.lines {
                let first = l.text.lines().next().unwrap_or("");
                writeln!(
                    out,
                    "   {}  {first}",
                    style.dim(&format!("line {:>5}", l.line))
                )?;
            }
            writeln!(out, "   runbook: {}", s.path.display())?;
            writeln!(out)?;
        }
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
    let causes = match report.similar.len() {
        0 => causes,
        n => format!("{causes} (and {n} likely by similarity)"),
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
