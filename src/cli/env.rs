//! `lore env`: the versions a paste shows, what the known rules say about them, and the recorded
//! stacks it is or is nearest to.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::output::{self, Style};
use crate::env::{self, Assessment, Level};
use crate::library::Library;

#[derive(clap::Args)]
pub struct Args {
    /// The paste (nvidia-smi, /proc/driver/nvidia/version, collect_env, pip list, dpkg -l...);
    /// `-` or nothing for standard input
    file: Option<PathBuf>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
    /// Also exit 1 when no recorded stack is exactly this one
    #[arg(long)]
    strict: bool,
}

/// From this size on a paste is long enough for compiling its rules on a spare thread to pay.
/// (Below it the gain measured from 4 KiB on a quiet machine, 22.0 → 18.1 ms, turned into a
/// loss of a few milliseconds when the machine's cores were shared.)
const WARM_FROM: usize = 16 * 1024;

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let bytes = output::read_paste(args.file.as_deref())?;
    // A long paste needs many of the fingerprint's rules: those it may need are compiled on a
    // spare thread alongside the reading one (not waited for: the process ends with whatever is
    // left).
    if bytes.len() >= WARM_FROM {
        let paste = bytes.clone();
        std::thread::spawn(move || env::fingerprint::warm_for(&paste));
    }
    // The library (stacks and compat rules) loads on the other core while the paste is read.
    let (library, fingerprint) = std::thread::scope(|scope| {
        let library = scope.spawn(|| Library::load(root));
        let fingerprint = env::fingerprint::of(&bytes);
        (library.join(), fingerprint)
    });
    let library = library.map_err(|_| anyhow::anyhow!("loading the library panicked"))??;
    let assessment = env::assess(
        &fingerprint,
        &library.stacks,
        &library.compat,
        chrono::Local::now().date_naive(),
    );
    output::print(|out| {
        if args.json {
            serde_json::to_writer(&mut *out, &assessment)?;
            writeln!(out)
        } else {
            print_human(out, &assessment, Style::for_stdout())
        }
    })?;
    let failed = assessment.is_bad() || (args.strict && assessment.is_untested());
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_human(out: &mut impl Write, a: &Assessment, style: Style) -> std::io::Result<()> {
    let verdict = match a.verdict {
        Level::Violation => style.error("violation"),
        Level::Risk => style.warning("risk"),
        Level::Ok => style.bold("ok"),
        Level::Unknown => style.dim("unknown"),
    };
    writeln!(out, "{} {verdict}", style.bold("Environment:"))?;
    if a.fingerprint.is_empty() {
        writeln!(
            out,
            "   no versions found: paste nvidia-smi, /proc/driver/nvidia/version, uname -a, /etc/os-release, nvcc --version, python -m torch.utils.collect_env or pip list"
        )?;
    }
    for (field, f) in &a.fingerprint {
        writeln!(
            out,
            "   {field:<16} {:<28} {}",
            f.value,
            style.dim(&format!("line {} ({})", f.line, f.source))
        )?;
    }
    for c in &a.conflicts {
        let values: Vec<String> = c
            .values
            .iter()
            .map(|v| format!("{} (line {}, {})", v.value, v.line, v.source))
            .collect();
        writeln!(
            out,
            "   {} {}: {}",
            style.warning("sources disagree on"),
            c.field,
            values.join(" vs ")
        )?;
    }
    if !a.findings.is_empty() {
        writeln!(out, "{}", style.bold("Findings:"))?;
    }
    for f in &a.findings {
        let level = match f.level {
            Level::Violation => style.error("violation"),
            Level::Risk => style.warning("risk"),
            Level::Ok => "ok".to_string(),
            Level::Unknown => style.dim("unknown"),
        };
        writeln!(out, "   {level}  {}", f.message)?;
        if !f.source.is_empty() {
            writeln!(out, "      {}", style.dim(&f.source))?;
        }
    }
    writeln!(out, "{}", style.bold("Recorded stacks:"))?;
    if a.stacks.is_empty() {
        writeln!(
            out,
            "   none comparable (no recorded stack shares a field with this paste)"
        )?;
    }
    for s in &a.stacks {
        writeln!(
            out,
            "   {} {}  {}  {}",
            s.kind,
            style.bold(&s.id),
            s.verdict.as_str(),
            s.title
        )?;
        let (shown, missing): (Vec<_>, Vec<_>) =
            s.differences.iter().partition(|d| !d.paste.is_empty());
        let summary = s.summary();
        writeln!(out, "      {summary}")?;
        if shown.len() > 1 {
            for d in &shown {
                writeln!(
                    out,
                    "      {}: {} here, {} there",
                    d.field, d.paste, d.stack
                )?;
            }
        }
        if !missing.is_empty() {
            writeln!(
                out,
                "      {}",
                style.dim(&format!(
                    "not in the paste: {}",
                    missing
                        .iter()
                        .map(|d| format!("{} ({})", d.field, d.stack))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            )?;
        }
    }
    Ok(())
}
