//! Signatures → the engines a fleet already runs: node-problem-detector's system-log-monitor
//! ([`npd`]), Loki ruler rules ([`loki`]) and Sigma rules ([`sigma`]).
//!
//! Exporting takes parsed runbooks and returns file names, their contents and the signatures left
//! out with the reason; writing files or printing is the CLI's job. A pattern the target engine
//! cannot run as written is reported and skipped, never emitted broken: one invalid pattern stops
//! node-problem-detector from starting at all.

pub mod loki;
pub mod npd;
pub mod sigma;
mod sigma_regex;

use std::fmt;

use regex_syntax::ast::{self, Ast, Visitor};

use crate::doc::{Runbook, SignatureSpec};
use crate::signature::portable;

/// The engines lore exports to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Npd,
    Loki,
    Sigma,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Npd => "npd",
            Format::Loki => "loki",
            Format::Sigma => "sigma",
        }
    }
}

/// node-problem-detector plugins lore writes configs for: two log watchers and a custom plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NpdPlugin {
    Kmsg,
    Journald,
    /// A custom plugin that runs `lore doctor --npd` on the node.
    Doctor,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Where `lore serve` runs; alerts link to `<base_url>/runbooks/<id>`.
    pub base_url: String,
    /// Loki: the range of `count_over_time`, a Prometheus duration such as `10m`.
    pub window: String,
    /// Loki: the stream selector the line filters run on.
    pub selector: String,
    /// node-problem-detector: the plugins to write a config for.
    pub plugins: Vec<NpdPlugin>,
    /// npd doctor plugin: the lore binary on the node, and the library root it reads.
    pub lore_bin: String,
    pub lore_root: String,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            base_url: "http://127.0.0.1:7070".into(),
            window: "10m".into(),
            selector: r#"{job=~".+"}"#.into(),
            plugins: vec![NpdPlugin::Kmsg, NpdPlugin::Journald],
            lore_bin: "/usr/local/bin/lore".into(),
            lore_root: "/var/lib/lore".into(),
        }
    }
}

/// What an export produced.
#[derive(Debug, Clone, Default)]
pub struct Export {
    pub files: Vec<File>,
    /// Signatures left out, and why.
    pub warnings: Vec<Warning>,
    /// Signatures exported.
    pub exported: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// A bare file name (no directories).
    pub name: String,
    pub contents: String,
}

/// A signature the target cannot run, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: String,
    pub signature: String,
    pub format: Format,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: signature {} skipped for {}: {}",
            self.path,
            self.signature,
            self.format.as_str(),
            self.message
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("--window {0:?} is not a duration like 5m, 1h or 30s")]
    Window(String),
    #[error("--base-url {0:?} must start with http:// or https://")]
    BaseUrl(String),
    #[error("--selector {0:?} is not a LogQL stream selector like {{job=\"varlogs\"}}")]
    Selector(String),
    #[error("writing {format}: {message}")]
    Serialize {
        format: &'static str,
        message: String,
    },
}

/// Exports the signatures of `runbooks` for `format`.
pub fn export(
    runbooks: &[Runbook],
    format: Format,
    options: &Options,
) -> Result<Export, ExportError> {
    let base = options.base_url.trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(ExportError::BaseUrl(options.base_url.clone()));
    }
    let options = Options {
        base_url: base.to_string(),
        ..options.clone()
    };
    match format {
        Format::Npd => npd::export(runbooks, &options),
        Format::Loki => loki::export(runbooks, &options),
        Format::Sigma => sigma::export(runbooks, &options),
    }
}

/// The page of a runbook in `lore serve`.
pub fn runbook_url(base_url: &str, runbook: &Runbook) -> String {
    format!("{}/runbooks/{}", base_url.trim_end_matches('/'), runbook.id)
}

/// `gpu-fallen-off-bus` → `GpuFallenOffBus`, the CamelCase of Kubernetes event reasons and alert
/// names. An id starting with a digit gets a `Sig` prefix, so the name starts with a letter.
pub fn camel_case(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for part in id.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) || out.is_empty() {
        out.insert_str(0, "Sig");
    }
    out
}

/// Collects skipped signatures while an exporter walks the library.
pub(crate) struct Skips {
    format: Format,
    pub(crate) list: Vec<Warning>,
}

impl Skips {
    pub(crate) fn new(format: Format) -> Skips {
        Skips {
            format,
            list: Vec::new(),
        }
    }

    /// Skips a signature with a `when:` (no target compares captured numbers); `target` names the
    /// target's matcher. Whether it was skipped.
    pub(crate) fn conditioned(
        &mut self,
        runbook: &Runbook,
        sig: &SignatureSpec,
        target: &str,
    ) -> bool {
        let Some(when) = &sig.when else {
            return false;
        };
        self.skip(
            runbook,
            sig,
            format!("a condition on its captures (when: {when}); {target} cannot compare captured numbers"),
        );
        true
    }

    pub(crate) fn skip(&mut self, runbook: &Runbook, sig: &SignatureSpec, message: String) {
        self.list.push(Warning {
            path: runbook.path.display().to_string(),
            signature: sig.id.clone(),
            format: self.format,
            message,
        });
    }
}

/// Parses a pattern and checks it is in lore's portable subset (what `lore check` demands, and
/// what RE2 runs as lore does: node-problem-detector and Loki take what this takes); the error
/// is why not.
pub(crate) fn parse_portable(pattern: &str) -> Result<Ast, String> {
    let ast = ast::parse::Parser::new()
        .parse(pattern)
        .map_err(|e| format!("pattern does not compile: {}", e.kind()))?;
    regex_syntax::hir::translate::Translator::new()
        .translate(pattern, &ast)
        .map_err(|e| format!("pattern does not compile: {}", e.kind()))?;
    portable::check_ast(pattern, &ast)?;
    Ok(ast)
}

/// Whether the pattern has `^` or `$` (which, without the `m` flag, mean the start and end of
/// the whole text).
pub(crate) fn has_line_anchor(ast: &Ast) -> bool {
    struct Anchors(bool);
    impl Visitor for Anchors {
        type Output = bool;
        type Err = ();
        fn finish(self) -> Result<bool, ()> {
            Ok(self.0)
        }
        fn visit_pre(&mut self, ast: &Ast) -> Result<(), ()> {
            if let Ast::Assertion(a) = ast
                && matches!(
                    a.kind,
                    ast::AssertionKind::StartLine | ast::AssertionKind::EndLine
                )
            {
                self.0 = true;
            }
            Ok(())
        }
    }
    ast::visit(ast, Anchors(false)).unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_names() {
        for (id, expect) in [
            ("fallen-off-bus-xid", "FallenOffBusXid"),
            ("nvml-mismatch", "NvmlMismatch"),
            ("xid", "Xid"),
            ("79-xid", "Sig79Xid"),
            ("a--b", "AB"),
        ] {
            assert_eq!(camel_case(id), expect, "{id}");
        }
    }

    #[test]
    fn anchors() {
        let has = |p: &str| has_line_anchor(&ast::parse::Parser::new().parse(p).unwrap());
        assert!(has("^a"));
        assert!(has("(?:a|b$)"));
        assert!(!has(r"[^a]\Az"));
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use std::path::PathBuf;

    use crate::doc::{Example, Runbook, Severity, SignatureSpec};

    /// A runbook with signatures `(id, pattern, lines)`, each with no examples.
    pub fn runbook(id: &str, severity: Severity, sigs: &[(&str, &str, usize)]) -> Runbook {
        Runbook {
            id: id.into(),
            path: PathBuf::from(format!("runbooks/{id}.md")),
            title: format!("Title of {id}"),
            summary: format!("Summary of {id}."),
            aliases: Vec::new(),
            tags: Vec::new(),
            severity,
            action: None,
            related: Vec::new(),
            references: vec!["https://docs.example.com/xid".into()],
            reviewed_at: None,
            signatures: sigs
                .iter()
                .map(|&(id, pattern, lines)| SignatureSpec {
                    id: id.into(),
                    pattern: pattern.into(),
                    explain: None,
                    lines,
                    weight: 1.0,
                    when: None,
                    examples: vec![Example {
                        text: "example line".into(),
                        captures: Default::default(),
                    }],
                    counterexamples: vec!["not this".into()],
                    line: 1,
                })
                .collect(),
            body: String::new(),
            body_line: 1,
            extra: Default::default(),
            key_lines: Default::default(),
        }
    }
}
