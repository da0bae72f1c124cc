//! `lore doctor`: collect this node's evidence (the collector table, read-only, within a budget)
//! and answer it: failed checks first, then the causes the signatures find, the environment, and
//! what was skipped and why.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::output::{self, Style};
use crate::doctor::{self, Answer, CheckLevel};

#[derive(clap::Args)]
pub struct Args {
    /// Print the answer as JSON
    #[arg(long)]
    json: bool,
    /// Also write the bundle (the collected evidence, a plain-text paste) to FILE
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Total time allowed, like 60s, 2m or 90 (seconds); each step also has its own timeout
    #[arg(long, default_value = "60s", value_parser = parse_budget)]
    budget: Duration,
    /// Also collect `python -m torch.utils.collect_env` and a filtered `pip list` with this Python
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Mask host names, IP and MAC addresses, serial numbers and UUIDs in the bundle
    #[arg(long)]
    redact: bool,
    /// Show what differs from a healthy node's bundle
    #[arg(long, value_name = "BUNDLE")]
    diff: Option<PathBuf>,
    /// Print one line of at most 80 characters and exit 0 (ok), 1 (problem) or 2 (unknown): a
    /// node-problem-detector custom plugin
    #[arg(long)]
    npd: bool,
    /// Read /proc, /sys, /etc, /var/log and /dev under DIR instead of / (a copied tree, a test)
    #[arg(long, value_name = "DIR")]
    sysroot: Option<PathBuf>,
    /// Answer a bundle saved earlier instead of collecting (`-` for standard input)
    #[arg(long, value_name = "BUNDLE", conflicts_with_all = ["sysroot", "python", "budget"])]
    from: Option<PathBuf>,
}

fn parse_budget(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 60s, 2m or 90"))?;
    let seconds = match unit {
        "s" | "" => n,
        "m" => n * 60,
        _ => return Err(format!("`{text}`: the unit is s or m")),
    };
    if seconds == 0 || seconds > 3600 {
        return Err("the budget is between 1 second and 1 hour".into());
    }
    Ok(Duration::from_secs(seconds))
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let result = run_inner(root, &args, started);
    match result {
        Ok(code) => Ok(code),
        // A node-problem-detector plugin never fails loudly: one line, "unknown".
        Err(e) if args.npd && !output::is_closed_pipe(&e) => {
            let line = format!("unknown: {e:#}");
            output::print(|out| writeln!(out, "{}", crate::format::chars_prefix(&line, 80)))?;
            Ok(ExitCode::from(2))
        }
        Err(e) => Err(e),
    }
}

fn run_inner(root: &Path, args: &Args, started: Instant) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &args.sysroot
        && !dir.is_dir()
    {
        anyhow::bail!("--sysroot {}: not a directory", dir.display());
    }
    // Everything that can fail is checked before the collection, which cannot be repeated.
    if let Some(path) = &args.out {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        if parent.is_some_and(|p| !p.is_dir()) || path.is_dir() {
            anyhow::bail!(
                "--out {}: not a file in an existing directory",
                path.display()
            );
        }
    }
    let healthy = match &args.diff {
        Some(path) => {
            let text =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            let text = String::from_utf8_lossy(&text).into_owned();
            Some(
                doctor::bundle::parse(&text)
                    .with_context(|| format!("{} is not a lore bundle", path.display()))?,
            )
        }
        None => None,
    };
    let bundle = match &args.from {
        Some(path) => {
            let bytes = output::read_paste(Some(path))?;
            if !doctor::bundle::is_bundle(&bytes) {
                anyhow::bail!(
                    "{} is not a lore bundle (it does not start with `### lore-collect bundle=`): use `lore match` for a log",
                    path.display()
                );
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        None => doctor::run::collect(
            &doctor::run::Options {
                budget: args.budget,
                sysroot: args.sysroot.clone(),
                python: args.python.clone(),
            },
            env!("CARGO_PKG_VERSION"),
        ),
    };
    let bundle = if args.redact {
        doctor::redact::redact(&bundle)
    } else {
        bundle
    };
    if let Some(path) = &args.out
        && let Err(e) = std::fs::write(path, &bundle)
    {
        // The collection cannot be repeated: answer it anyway.
        eprintln!(
            "lore: writing {}: {e}; the answer below is all that is kept",
            path.display()
        );
    }
    let library = crate::library::Library::load(root)?;
    if library.runbooks.is_empty() && !args.npd {
        eprintln!(
            "lore: no runbooks under {}: the answer has the checks and the environment but no signature causes (pass --root or set LORE_ROOT to the library)",
            root.display()
        );
    }
    let answer = doctor::answer(bundle.as_bytes(), &library);
    let diff = healthy.map(|healthy| {
        let here = doctor::bundle::parse(&bundle).unwrap_or_default();
        doctor::diff(&here, &healthy, 8)
    });
    let elapsed = started.elapsed();
    output::print(|out| {
        if args.npd {
            writeln!(out, "{}", answer.npd_line())
        } else if args.json {
            let mut value = serde_json::to_value(&answer)?;
            if let Some(diff) = &diff {
                value["diff"] = serde_json::to_value(diff)?;
            }
            value["elapsed_ms"] = serde_json::json!(elapsed.as_millis() as u64);
            serde_json::to_writer(&mut *out, &value)?;
            writeln!(out)
        } else {
            print_human(
                out,
                &answer,
                diff.as_deref(),
                elapsed,
                args,
                Style::for_stdout(),
            )
        }
    })?;
    Ok(if answer.has_problem() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_human(
    out: &mut impl Write,
    answer: &Answer,
    diff: Option<&[doctor::SectionDiff]>,
    elapsed: Duration,
    args: &Args,
    style: Style,
) -> std::io::Result<()> {
    let ran = answer.collected.iter().filter(|s| s.ran()).count();
    let skipped = answer.collected.len() - ran;
    writeln!(
        out,
        "{} {} steps in {:.1} s: {ran} ran, {skipped} skipped{}",
        style.bold("lore doctor:"),
        answer.collected.len(),
        elapsed.as_secs_f64(),
        args.out
            .as_ref()
            .map(|p| format!("; bundle in {}", p.display()))
            .unwrap_or_default()
    )?;
    writeln!(out)?;
    writeln!(out, "{}", style.bold("Checks"))?;
    for check in &answer.checks {
        let level = match check.level {
            CheckLevel::Fail => style.error("FAIL"),
            CheckLevel::Warn => style.warning("WARN"),
            CheckLevel::Unknown => style.dim("????"),
            CheckLevel::Ok => " ok ".to_string(),
        };
        writeln!(out, "  {level} {:<22} {}", check.id, check.message)?;
        if check.level >= CheckLevel::Warn {
            for e in &check.evidence {
                writeln!(
                    out,
                    "       {} {}",
                    style.dim(&format!("line {:>5}", e.line)),
                    crate::format::chars_prefix(&e.text, 160)
                )?;
            }
            if let Some(runbook) = check.runbook {
                writeln!(out, "       runbook: {runbook}")?;
            }
        }
    }
    if !answer.causes.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", style.bold("Causes (signatures)"))?;
        for (n, cause) in answer.causes.iter().enumerate() {
            writeln!(
                out,
                "  {}. {}  {}  {}",
                n + 1,
                style.bold(&cause.runbook),
                style.severity(cause.severity),
                cause.title
            )?;
            let mut shown: Vec<u64> = Vec::new();
            for hit in &cause.hits {
                if shown.len() == 3 || shown.contains(&hit.line) {
                    continue;
                }
                shown.push(hit.line);
                writeln!(
                    out,
                    "       {} {}",
                    style.dim(&format!("line {:>5}", hit.line)),
                    crate::format::chars_prefix(hit.text.lines().next().unwrap_or_default(), 160)
                )?;
            }
        }
    }
    if !answer.similar.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            style.bold("Likely causes (no signature matched)")
        )?;
        for s in &answer.similar {
            writeln!(out, "  {} ({:.2})  {}", s.runbook, s.score, s.title)?;
        }
    }
    if let Some(env) = &answer.environment {
        writeln!(out)?;
        let fields: Vec<String> = env
            .fingerprint
            .iter()
            .map(|(k, f)| format!("{k} {}", f.value))
            .collect();
        let word = |l: crate::env::Level| format!("{l:?}").to_lowercase();
        writeln!(
            out,
            "{} {}  {}",
            style.bold("Environment:"),
            word(env.verdict),
            style.dim(&fields.join(", "))
        )?;
        for f in env
            .findings
            .iter()
            .filter(|f| f.level > crate::env::Level::Ok)
        {
            writeln!(out, "   {}: {}", word(f.level), f.message)?;
        }
        if let Some(s) = env.stacks.first() {
            writeln!(
                out,
                "   {} recorded stack: {} ({})",
                s.kind,
                s.id,
                s.verdict.as_str()
            )?;
        }
    }
    if let Some(diff) = diff {
        writeln!(out)?;
        writeln!(out, "{}", style.bold("Differs from the healthy bundle"))?;
        if diff.is_empty() {
            writeln!(out, "  nothing")?;
        }
        for d in diff {
            writeln!(out, "  {}: {} here, {} there", d.id, d.here, d.healthy)?;
            for (sign, lines, total) in [
                ("+", &d.only_here, d.only_here_total),
                ("-", &d.only_healthy, d.only_healthy_total),
            ] {
                for l in lines {
                    writeln!(out, "     {sign} {}", crate::format::chars_prefix(l, 160))?;
                }
                if total > lines.len() {
                    writeln!(out, "     {sign} ... {} more", total - lines.len())?;
                }
            }
        }
    }
    let skipped: Vec<_> = answer.collected.iter().filter(|s| !s.ran()).collect();
    if !skipped.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", style.bold("Skipped or failed steps"))?;
        for s in skipped {
            let why = s.why_not();
            writeln!(
                out,
                "  {:<20} {}",
                s.id,
                crate::format::chars_prefix(&why, 140)
            )?;
        }
    }
    Ok(())
}
