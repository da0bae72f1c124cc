//! Small helpers for output: colour only when writing to a terminal (and NO_COLOR unset), and a
//! closed standard output treated as the end of the job.

use std::io::{self, IsTerminal};

/// A reader that stopped reading (`lore match big.log | head -1`) ends the job as if it had
/// finished, with no message (as ripgrep does): the print's result becomes `Ok`.
fn done_if_closed(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes a command's result to standard output (locked, flushed at the end); a reader that
/// stopped reading ends the job like finishing it ([`done_if_closed`]).
/// A paste for a command that reads it whole (`lore env`, `lore new stack`): the file, or
/// standard input for `-` or nothing, at most 32 MiB (an environment is a few pages of text).
/// A paste that is not text (a compressed file, a binary) is refused, saying how to get its text.
pub fn read_paste(path: Option<&std::path::Path>) -> anyhow::Result<Vec<u8>> {
    use anyhow::Context;
    use std::io::Read;
    const MAX_PASTE: u64 = 32 << 20;
    let mut bytes = Vec::new();
    let name = match path.filter(|p| *p != std::path::Path::new("-")) {
        None => {
            io::stdin()
                .take(MAX_PASTE)
                .read_to_end(&mut bytes)
                .context("reading standard input")?;
            "standard input".to_string()
        }
        Some(path) => {
            std::fs::File::open(path)
                .and_then(|f| f.take(MAX_PASTE).read_to_end(&mut bytes))
                .with_context(|| format!("reading {}", path.display()))?;
            path.display().to_string()
        }
    };
    if let Some(why) = crate::signature::normalize::refusal(&bytes, &name) {
        anyhow::bail!(why);
    }
    Ok(bytes)
}

/// Standard output for one answer, written in blocks: standard output is line-buffered, and a
/// long answer (`lore match` on a paste with fifty causes) was 880 `write` calls, about 3 ms of
/// its time. Everything is out when this returns.
pub type Out = io::BufWriter<io::StdoutLock<'static>>;

pub fn print(write: impl FnOnce(&mut Out) -> io::Result<()>) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(64 << 10, io::stdout().lock());
    done_if_closed(write(&mut out).and_then(|()| io::Write::flush(&mut out)))
}

/// Whether an error comes from writing to a closed pipe, wherever it is in the chain.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || e.downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(io::ErrorKind::BrokenPipe)
    })
}

#[derive(Clone, Copy)]
pub struct Style {
    on: bool,
}

impl Style {
    pub fn for_stdout() -> Style {
        let on = std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Style { on }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn severity(self, severity: crate::doc::Severity) -> String {
        use crate::doc::Severity::*;
        let code = match severity {
            Critical => "1;31",
            High => "31",
            Medium => "33",
            Low => "36",
            Info => "2",
        };
        self.paint(code, severity.as_str())
    }

    pub fn error(self, text: &str) -> String {
        self.paint("31", text)
    }

    pub fn warning(self, text: &str) -> String {
        self.paint("33", text)
    }
}

pub use crate::format::human_bytes;
