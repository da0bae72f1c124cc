//! Documents of a library: runbooks, incidents and stacks, parsed from Markdown with YAML front matter.
//!
//! Everything here takes `&str` and returns values; reading files is `library`'s job. Parsing never
//! panics and never stops at the first problem: each problem becomes a [`Diagnostic`] with the line it
//! is on and, where we can guess, a hint.

pub mod compat;
mod frontmatter;
pub mod incident;
pub mod markdown;
pub mod runbook;
pub mod stack;

pub use incident::{ActionItem, Incident, IncidentSeverity, IncidentStatus};
pub use runbook::{Example, Runbook, Severity, SignatureSpec};
pub use stack::{Stack, Verdict};

use std::fmt;
use std::path::PathBuf;

/// How bad a problem is: errors make `lore check` fail and the document (or the part) unusable;
/// warnings are shown but change nothing.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Warning,
    Error,
}

/// One problem in one file, at one line (1-based; 0 when the whole file is meant).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    pub path: PathBuf,
    pub line: usize,
    pub level: Level,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(path: impl Into<PathBuf>, line: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            line,
            level: Level::Error,
            message: message.into(),
            hint: None,
        }
    }

    pub fn warning(
        path: impl Into<PathBuf>,
        line: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            level: Level::Warning,
            ..Diagnostic::error(path, line, message)
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        write!(
            f,
            "{}:{}: {level}: {}",
            self.path.display(),
            self.line,
            self.message
        )?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

/// Collects problems while a document is parsed; every problem is kept.
#[derive(Debug)]
pub struct Problems {
    path: PathBuf,
    pub list: Vec<Diagnostic>,
}

impl Problems {
    pub fn new(path: impl Into<PathBuf>) -> Problems {
        Problems {
            path: path.into(),
            list: Vec::new(),
        }
    }

    pub fn error(&mut self, line: usize, message: impl Into<String>) -> &mut Diagnostic {
        self.list
            .push(Diagnostic::error(self.path.clone(), line, message));
        self.list.last_mut().expect("just pushed")
    }

    pub fn warning(&mut self, line: usize, message: impl Into<String>) -> &mut Diagnostic {
        self.list
            .push(Diagnostic::warning(self.path.clone(), line, message));
        self.list.last_mut().expect("just pushed")
    }
}

/// `[a-z0-9][a-z0-9-]*`: ids become file names and URL path segments, so nothing else is allowed.
pub fn is_valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && id.len() <= 120
}

/// Fenced code blocks whose info string is `log`: incidents keep the evidence there, and the matcher
/// scans them like a paste.
pub fn log_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None; // (fence, text)
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None => {
                let fence: String = trimmed
                    .chars()
                    .take_while(|&c| c == '`' || c == '~')
                    .collect();
                if fence.len() >= 3
                    && fence
                        .chars()
                        .all(|c| c == fence.chars().next().unwrap_or('`'))
                {
                    let info = trimmed[fence.len()..].trim();
                    let lang = info.split_whitespace().next().unwrap_or("");
                    if lang == "log" {
                        current = Some((fence, String::new()));
                    } else {
                        current = Some((fence, String::from("\0skip")));
                    }
                }
            }
            Some((fence, text)) => {
                let closing = trimmed.starts_with(fence.as_str())
                    && trimmed
                        .trim_start_matches(fence.chars().next().unwrap_or('`'))
                        .trim()
                        .is_empty();
                if closing {
                    let text = std::mem::take(text);
                    if !text.starts_with('\0') {
                        blocks.push(text);
                    }
                    current = None;
                } else if !text.starts_with('\0') {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert!(is_valid_id("driver-version-mismatch"));
        assert!(is_valid_id("2026-04-03-a100"));
        assert!(!is_valid_id("-x"));
        assert!(!is_valid_id("Upper"));
        assert!(!is_valid_id("../etc"));
        assert!(!is_valid_id(""));
    }

    #[test]
    fn finds_log_blocks_only() {
        let md =
            "text\n```log\nNVRM: Xid 79\nsecond\n```\n```sh\nnvidia-smi\n```\n~~~log\nthird\n~~~\n";
        assert_eq!(
            log_blocks(md),
            vec!["NVRM: Xid 79\nsecond\n".to_string(), "third\n".to_string()]
        );
    }

    #[test]
    fn unclosed_log_block_is_dropped() {
        assert!(log_blocks("```log\nnever closed\n").is_empty());
    }
}
