//! `lore watch`: follow a stream (`journalctl -kf | lore watch`, `kubectl logs -f pod | lore
//! watch`) and print one line per cause as it fires, at most once per cause per window. Each line
//! is flushed at once, so a pipe or a terminal sees it while the stream goes on.
//!
//! A FILE is followed like `tail -F`: read from its start, then polled for what is appended,
//! reopened from the start when it is truncated or replaced (log rotation). `--no-follow` reads it
//! to its end and exits.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::output::Style;
use crate::signature::{Alert, Follower};

/// How often a followed file is checked for new lines.
const POLL: Duration = Duration::from_millis(250);

#[derive(clap::Args)]
pub struct Args {
    /// The log to follow; `-` or nothing for standard input
    file: Option<PathBuf>,
    /// Print one JSON object per line
    #[arg(long)]
    json: bool,
    /// Report a cause again only after this many seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    window: u64,
    /// Read FILE to its end and exit instead of following it
    #[arg(long)]
    no_follow: bool,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let library = super::load_library(root)?;
    let matcher = library.matcher();
    let mut follower = Follower::new(&matcher, Duration::from_secs(args.window));
    let mut printer = Printer {
        json: args.json,
        style: Style::for_stdout(),
    };
    let mut buf = vec![0u8; 64 << 10];
    let result = match args.file.as_deref() {
        None => stream(
            &mut io::stdin().lock(),
            &mut follower,
            &mut printer,
            &mut buf,
        ),
        Some(p) if p == Path::new("-") => stream(
            &mut io::stdin().lock(),
            &mut follower,
            &mut printer,
            &mut buf,
        ),
        Some(path) => follow_file(path, !args.no_follow, &mut follower, &mut printer, &mut buf),
    };
    match result {
        Ok(()) => {}
        // The reader of our output went away (`lore watch | head -1`): nothing left to do.
        Err(e) if is_broken_pipe(&e) => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(e),
    }
    match printer.print(&follower.finish(Instant::now())) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// Reads until the end of input, reporting after every read (a pipe's read returns what has
/// arrived, so a line is reported as soon as it is written).
fn stream(
    reader: &mut dyn Read,
    follower: &mut Follower<'_>,
    printer: &mut Printer,
    buf: &mut [u8],
) -> anyhow::Result<()> {
    loop {
        let n = match reader.read(buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).context("reading standard input"),
        };
        printer.print(&follower.push(&buf[..n], Instant::now()))?;
    }
}

fn follow_file(
    path: &Path,
    follow: bool,
    follower: &mut Follower<'_>,
    printer: &mut Printer,
    buf: &mut [u8],
) -> anyhow::Result<()> {
    let open = || File::open(path).with_context(|| format!("opening {}", path.display()));
    let mut file = open()?;
    let mut identity = file_identity(&file);
    let mut position: u64 = 0;
    loop {
        let n = match file.read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        if n > 0 {
            position += n as u64;
            printer.print(&follower.push(&buf[..n], Instant::now()))?;
            continue;
        }
        if !follow {
            return Ok(());
        }
        std::thread::sleep(POLL);
        // Rotated (another file at the path) or truncated: start again from the top.
        let replaced = std::fs::metadata(path)
            .ok()
            .is_some_and(|m| identity_of(&m) != identity);
        let truncated = file.metadata().is_ok_and(|m| m.len() < position);
        if replaced && let Ok(new) = File::open(path) {
            file = new;
            identity = file_identity(&file);
            position = 0;
        } else if truncated {
            file.rewind()
                .with_context(|| format!("rewinding {}", path.display()))?;
            position = 0;
        }
    }
}

fn file_identity(file: &File) -> Option<(u64, u64)> {
    file.metadata().ok().as_ref().and_then(identity_of)
}

#[cfg(unix)]
fn identity_of(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity_of(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

struct Printer {
    json: bool,
    style: Style,
}

impl Printer {
    /// One line per alert, flushed at once.
    fn print(&mut self, alerts: &[Alert]) -> io::Result<()> {
        if alerts.is_empty() {
            return Ok(());
        }
        let stdout = io::stdout();
        let mut out = stdout.lock();
        for alert in alerts {
            if self.json {
                serde_json::to_writer(&mut out, alert)?;
                writeln!(out)?;
            } else {
                writeln!(out, "{}", self.human(alert))?;
            }
        }
        out.flush()
    }

    fn human(&self, alert: &Alert) -> String {
        let style = self.style;
        let time = chrono::Local::now().format("%Y-%m-%dT%H:%M:%S%:z");
        let text = alert.text.replace('\n', " ⏎ ");
        let detail = match alert.explain.as_deref().filter(|e| !e.is_empty()) {
            Some(explain) => format!(" → {explain}"),
            None => String::new(),
        };
        format!(
            "{}  {}  {}  {}{}  {}",
            style.dim(&time.to_string()),
            style.severity(alert.severity),
            style.bold(&alert.runbook),
            alert.title,
            detail,
            style.dim(&format!("line {}: {text}", alert.line)),
        )
    }
}
