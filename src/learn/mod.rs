//! Teaching lore from a paste: a line no signature explains becomes a signature of a runbook that
//! already exists (a new wording of a known cause), in one step that is safe to leave open to a
//! team.
//!
//! [`draft`] turns the line into a pattern the way "start a runbook from this line" does (numbers,
//! versions, addresses, hex and a user's own paths become classes or named captures; the log
//! prefix is left out) with the line as its example. [`validate`] checks it like `lore check` and
//! more: it compiles within the portable subset, has a literal the prefilter can use, matches its
//! example with those captures, matches none of the runbook's counterexamples, no line of the
//! healthy logs under `eval/`, and no example of another runbook. [`save`] appends it to the
//! runbook's `signatures:` list as text ([`rewrite`]), re-parses the result to prove that nothing
//! else changed, and writes the file atomically; an `If-Match` etag that no longer matches is
//! refused with the current text.

pub mod rewrite;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;

use crate::doc::{Example, Runbook, SignatureSpec, is_valid_id};
use crate::library::Library;
use crate::signature::{Engine, Scanner, check, draft as drafting, normalize};

/// What the user asks for: the line, and optionally their own pattern and id.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Request {
    pub line: String,
    #[serde(default)]
    pub pattern: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
}

/// A signature ready to be added, with the captures its example produces.
#[derive(Debug, Clone, Serialize)]
pub struct Draft {
    pub runbook: String,
    pub id: String,
    pub pattern: String,
    pub example: String,
    pub captures: BTreeMap<String, String>,
}

/// A line of a paste the drafted signature matches.
#[derive(Debug, Clone, Serialize)]
pub struct Matched {
    pub line: u64,
    pub text: String,
    pub captures: BTreeMap<String, String>,
}

#[derive(Debug)]
pub enum LearnError {
    NotFound,
    /// Every reason the signature was refused; nothing was written.
    Invalid(Vec<String>),
    /// The runbook changed since the version the request was based on.
    Conflict {
        etag: String,
        current: String,
    },
    Io(std::io::Error),
}

impl std::fmt::Display for LearnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LearnError::NotFound => write!(f, "no such runbook"),
            LearnError::Invalid(reasons) => write!(f, "{}", reasons.join("; ")),
            LearnError::Conflict { .. } => write!(f, "the runbook changed since it was read"),
            LearnError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Lines of the input that are worth a signature: the first non-blank one.
fn the_line(line: &str) -> Option<&str> {
    line.lines()
        .map(str::trim_end)
        .find(|l| !l.trim().is_empty())
}

/// Drafts the signature for `request` in `runbook`. Only a missing line is an error here; whether
/// the draft is acceptable is [`validate`]'s answer.
pub fn draft(library: &Library, runbook: &Runbook, request: &Request) -> Result<Draft, String> {
    let line = the_line(&request.line).ok_or("the line is empty")?;
    if line.len() > 4096 {
        return Err("the line is longer than 4 KiB; pick the part that names the failure".into());
    }
    let pattern = match request.pattern.as_deref().map(str::trim) {
        Some(p) if !p.is_empty() => p.to_string(),
        _ => drafting::generalize(line),
    };
    let id = match request.id.as_deref().map(str::trim) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => free_id(library, runbook, line),
    };
    let mut draft = Draft {
        runbook: runbook.id.clone(),
        id,
        pattern,
        example: line.to_string(),
        captures: BTreeMap::new(),
    };
    let candidate = candidate(runbook, &draft, false);
    let engine = Engine::new(std::slice::from_ref(&candidate));
    if let Some(first) = hits(&engine, line).into_iter().next() {
        draft.captures = first.captures;
    }
    Ok(draft)
}

/// `<runbook>-<words of the message>`, numbered if that is taken.
fn free_id(library: &Library, runbook: &Runbook, line: &str) -> String {
    let message = normalize::line(line.as_bytes()).text;
    let words = drafting::suggest_id(message.lines().next().unwrap_or(""));
    let base = format!("{}-{words}", runbook.id);
    let taken = |id: &str| {
        library
            .runbooks
            .iter()
            .any(|r| r.signatures.iter().any(|s| s.id == id))
    };
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|id| !taken(id))
        .expect("a free number")
}

/// `runbook` with the draft as its only signature (so the engine's signature 0 is the draft);
/// with `counterexamples`, every counterexample of the runbook's signatures is the draft's too.
fn candidate(runbook: &Runbook, draft: &Draft, counterexamples: bool) -> Runbook {
    let mut candidate = runbook.clone();
    candidate.signatures = vec![SignatureSpec {
        id: draft.id.clone(),
        pattern: draft.pattern.clone(),
        explain: None,
        lines: 1,
        weight: 1.0,
        when: None,
        examples: vec![Example {
            text: draft.example.clone(),
            captures: draft.captures.clone(),
        }],
        counterexamples: if counterexamples {
            runbook
                .signatures
                .iter()
                .flat_map(|s| s.counterexamples.iter().cloned())
                .collect()
        } else {
            Vec::new()
        },
        line: 0,
    }];
    candidate
}

/// The hits of the engine's signature 0 in `text`.
fn hits(engine: &Engine, text: &str) -> Vec<Matched> {
    if engine.sigs.is_empty() {
        return Vec::new();
    }
    let mut scanner = Scanner::new(engine).only([0]);
    scanner.feed(text.as_bytes());
    let out = scanner.finish();
    out.sigs[0]
        .hits
        .iter()
        .map(|h| Matched {
            line: h.line,
            text: h.text.clone(),
            captures: h.captures.iter().cloned().collect(),
        })
        .collect()
}

/// The lines of `paste` the draft matches (what the preview shows).
pub fn matches_in(runbook: &Runbook, draft: &Draft, paste: &str) -> Vec<Matched> {
    let candidate = candidate(runbook, draft, false);
    hits(&Engine::new(std::slice::from_ref(&candidate)), paste)
}

/// Healthy logs a new signature must stay silent on, when the library has them.
const HEALTHY: &[&str] = &["eval/healthy", "eval/real-healthy"];
/// Reasons of one kind listed before the rest are summed up.
const SHOWN: usize = 3;

/// Every reason `draft` cannot be added to `runbook`; empty when it can.
pub fn validate(root: &Path, library: &Library, runbook: &Runbook, draft: &Draft) -> Vec<String> {
    let mut reasons = Vec::new();
    if !is_valid_id(&draft.id) {
        reasons.push(format!(
            "the id `{}` is not valid: lowercase letters, digits and dashes",
            draft.id
        ));
    }
    if let Some(other) = library
        .runbooks
        .iter()
        .find(|r| r.signatures.iter().any(|s| s.id == draft.id))
    {
        reasons.push(format!(
            "the id `{}` is already used by a signature of `{}`",
            draft.id, other.id
        ));
    }
    if let Some(same) = runbook
        .signatures
        .iter()
        .find(|s| s.pattern == draft.pattern)
    {
        reasons.push(format!(
            "`{}` already has this pattern (signature `{}`)",
            runbook.id, same.id
        ));
    }
    // Nothing to learn when the runbook already explains the line.
    let own = Engine::new(std::slice::from_ref(runbook));
    let mut scanner = Scanner::new(&own);
    scanner.feed(draft.example.as_bytes());
    if let Some(hit) = scanner
        .finish()
        .sigs
        .iter()
        .flat_map(|s| s.hits.iter())
        .next()
    {
        reasons.push(format!(
            "`{}` already explains this line (signature `{}`)",
            runbook.id, own.sigs[hit.sig as usize].id
        ));
    }
    let candidate = candidate(runbook, draft, true);
    let engine = Engine::new(std::slice::from_ref(&candidate));
    // What `lore check` says: compiles, portable (RE2), a literal, matches its example with its
    // captures, none of the runbook's counterexamples.
    for d in check::check_signatures(std::slice::from_ref(&candidate), &engine) {
        let mut reason = d.message;
        if let Some(hint) = d.hint {
            reason.push_str(&format!(" ({hint})"));
        }
        reasons.push(reason);
    }
    if engine.sigs.is_empty() {
        return reasons;
    }
    // Not so generic that it takes the lines of other causes.
    let mut others = Vec::new();
    for other in library.runbooks.iter().filter(|r| r.id != runbook.id) {
        for spec in &other.signatures {
            for example in &spec.examples {
                if !hits(&engine, &example.text).is_empty() {
                    others.push(format!(
                        "it also matches an example of `{}` (signature `{}`): {}",
                        other.id,
                        spec.id,
                        crate::format::cut(example.text.trim(), 120)
                    ));
                }
            }
        }
    }
    summed(&mut reasons, others, "examples of other runbooks");
    // Silent on healthy machines.
    let mut healthy = Vec::new();
    for folder in HEALTHY {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        files.sort();
        for file in files {
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            for hit in hits(&engine, &text).into_iter().take(1) {
                healthy.push(format!(
                    "it matches a healthy log, {folder}/{} line {}: {}",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    hit.line,
                    crate::format::cut(hit.text.trim(), 120)
                ));
            }
        }
    }
    summed(&mut reasons, healthy, "healthy logs");
    reasons
}

fn summed(reasons: &mut Vec<String>, found: Vec<String>, what: &str) {
    let more = found.len().saturating_sub(SHOWN);
    reasons.extend(found.into_iter().take(SHOWN));
    if more > 0 {
        reasons.push(format!("… and {more} more lines of {what}"));
    }
}

/// A signature as stored, and the runbook file's new etag.
#[derive(Debug, Clone, Serialize)]
pub struct Saved {
    pub runbook: String,
    /// Relative to the root: `runbooks/<id>.md`.
    pub path: String,
    pub etag: String,
    pub signature: Draft,
}

/// One save at a time in this process: the read, the check of the etag and the write of a file
/// must not interleave with another save of the same file.
static WRITES: Mutex<()> = Mutex::new(());

/// Validates `draft` and appends it to the runbook's file. `if_match`, when given, must be the
/// etag of the file as it is now.
pub fn save(
    root: &Path,
    library: &Library,
    draft: &Draft,
    if_match: Option<&str>,
) -> Result<Saved, LearnError> {
    let runbook = library
        .runbook(&draft.runbook)
        .ok_or(LearnError::NotFound)?;
    let reasons = validate(root, library, runbook, draft);
    if !reasons.is_empty() {
        return Err(LearnError::Invalid(reasons));
    }
    let rel = runbook.path.clone();
    let path = root.join(&rel);
    let _guard = WRITES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let current = std::fs::read_to_string(&path).map_err(LearnError::Io)?;
    let current_etag = crate::hash::etag(current.as_bytes());
    if let Some(wanted) = if_match
        && wanted.trim() != current_etag
        && wanted.trim() != "*"
    {
        return Err(LearnError::Conflict {
            etag: current_etag,
            current,
        });
    }
    let item = rewrite::Item {
        id: &draft.id,
        pattern: &draft.pattern,
        example: &draft.example,
        captures: &draft.captures,
    };
    let text = rewrite::add_signature(&current, &item).map_err(|e| LearnError::Invalid(vec![e]))?;
    prove_only_the_signature_was_added(&rel, &current, &text, draft)?;
    crate::library::write_atomically(&path, text.as_bytes()).map_err(LearnError::Io)?;
    Ok(Saved {
        runbook: runbook.id.clone(),
        path: rel.to_string_lossy().into_owned(),
        etag: crate::hash::etag(text.as_bytes()),
        signature: draft.clone(),
    })
}

/// Parses the file before and after: the new one must have exactly one more signature, the
/// draft, and be the same runbook in every other respect, with no new problem.
fn prove_only_the_signature_was_added(
    rel: &Path,
    before: &str,
    after: &str,
    draft: &Draft,
) -> Result<(), LearnError> {
    let (old, old_problems) = Runbook::parse(rel, before);
    let (new, new_problems) = Runbook::parse(rel, after);
    let unsafe_edit = |why: &str| {
        LearnError::Invalid(vec![format!(
            "the runbook file could not be edited safely ({why}); add the signature by hand"
        )])
    };
    let (Some(mut old), Some(mut new)) = (old, new) else {
        return Err(unsafe_edit("it does not parse"));
    };
    if new_problems.len() > old_problems.len() {
        return Err(unsafe_edit(&format!(
            "the edit would add a problem: {}",
            new_problems
                .iter()
                .find(|p| !old_problems.contains(p))
                .map_or(String::new(), |p| p.message.clone())
        )));
    }
    let Some(added) = new.signatures.pop() else {
        return Err(unsafe_edit("the signature is not in the result"));
    };
    let same_examples = added.examples.len() == 1
        && added.examples[0].text == draft.example
        && added.examples[0].captures == draft.captures;
    if added.id != draft.id || added.pattern != draft.pattern || !same_examples {
        return Err(unsafe_edit("the stored signature differs from the draft"));
    }
    // Where things are in the file moves; what they are must not.
    old.key_lines.clear();
    new.key_lines.clear();
    old.body_line = 0;
    new.body_line = 0;
    for s in old.signatures.iter_mut().chain(new.signatures.iter_mut()) {
        s.line = 0;
    }
    if format!("{old:?}") != format!("{new:?}") {
        return Err(unsafe_edit("something else in the runbook would change"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(files: &[(&str, &str)]) -> (tempfile::TempDir, Library) {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("runbooks")).unwrap();
        for (rel, text) in files {
            let path = root.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let library = Library::load(root.path()).unwrap();
        (root, library)
    }

    const MISMATCH: &str = "---\ntitle: Driver mismatch\nsummary: s\nseverity: high\nsignatures:\n  - id: api-mismatch\n    pattern: 'API mismatch: the client has the version'\n    examples: ['NVRM: API mismatch: the client has the version 535.104.05, but']\n    counterexamples: ['NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.86.01']\n---\n## Fix\nReboot.\n";
    const OOM: &str = "---\ntitle: OOM\nsummary: s\nseverity: high\nsignatures:\n  - id: oom\n    pattern: 'CUDA out of memory'\n    examples: ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB']\n---\n";

    #[test]
    fn drafts_a_portable_pattern_with_captures_from_a_prefixed_line() {
        let (_root, lib) = library(&[("runbooks/driver-version-mismatch.md", MISMATCH)]);
        let runbook = lib.runbook("driver-version-mismatch").unwrap();
        let line = "Dec 01 09:12:44 gpu-node-7 kernel: NVRM: GPU at PCI:0000:3b:00: GPUID mismatch 535.104.05 pid=4411";
        let d = draft(
            &lib,
            runbook,
            &Request {
                line: line.into(),
                ..Request::default()
            },
        )
        .unwrap();
        assert!(
            !d.pattern.contains("Dec"),
            "the prefix is left out: {}",
            d.pattern
        );
        assert!(
            !d.pattern.contains("535"),
            "versions become classes: {}",
            d.pattern
        );
        assert!(d.id.starts_with("driver-version-mismatch-"), "{}", d.id);
        let caps = &d.captures;
        assert_eq!(caps.get("pci").map(String::as_str), Some("PCI:0000:3b:00"));
        assert_eq!(caps.get("pid").map(String::as_str), Some("4411"));
        assert!(validate(_root.path(), &lib, runbook, &d).is_empty());
        // A sibling line (other numbers) matches too.
        let sibling = "NVRM: GPU at PCI:0000:5e:00: GPUID mismatch 550.54.15 pid=17";
        assert_eq!(matches_in(runbook, &d, sibling).len(), 1);
    }

    #[test]
    fn refuses_generic_counterexample_healthy_and_taken() {
        let (root, lib) = library(&[
            ("runbooks/driver-version-mismatch.md", MISMATCH),
            ("runbooks/cuda-out-of-memory.md", OOM),
            (
                "eval/healthy/boot.log",
                "[ 4.1] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.86.01\n",
            ),
        ]);
        let runbook = lib.runbook("driver-version-mismatch").unwrap();
        let ask = |line: &str, pattern: Option<&str>, id: Option<&str>| {
            let d = draft(
                &lib,
                runbook,
                &Request {
                    line: line.into(),
                    pattern: pattern.map(str::to_string),
                    id: id.map(str::to_string),
                },
            )
            .unwrap();
            validate(root.path(), &lib, runbook, &d).join("\n")
        };
        let generic = ask("CUDA out of memory. Tried", Some("out of memory"), None);
        assert!(
            generic.contains("example of `cuda-out-of-memory`"),
            "{generic}"
        );
        let counter = ask(
            "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.86.01",
            None,
            None,
        );
        assert!(counter.contains("counterexample"), "{counter}");
        let healthy = ask(
            "Loading NVIDIA Kernel Mode Setting Driver",
            Some("Kernel Mode Setting"),
            None,
        );
        assert!(
            healthy.contains("healthy log, eval/healthy/boot.log line 1"),
            "{healthy}"
        );
        let taken = ask("NVRM: something new 1.2", None, Some("oom"));
        assert!(
            taken.contains("already used by a signature of `cuda-out-of-memory`"),
            "{taken}"
        );
        let known = ask(
            "NVRM: API mismatch: the client has the version 1.2.3, but",
            None,
            None,
        );
        assert!(
            known.contains("already explains this line (signature `api-mismatch`)"),
            "{known}"
        );
        let broken = ask("x", Some("(unclosed"), None);
        assert!(!broken.is_empty());
        let no_literal = ask("12 34", Some(r"\d+ \d+"), None);
        assert!(no_literal.contains("literal"), "{no_literal}");
        let unportable = ask("aaa bbb", Some(r"(aaa) \1"), None);
        assert!(!unportable.is_empty());
    }

    #[test]
    fn saves_only_the_signature_and_refuses_a_stale_etag() {
        let (root, lib) = library(&[("runbooks/driver-version-mismatch.md", MISMATCH)]);
        let runbook = lib.runbook("driver-version-mismatch").unwrap();
        let line = "NVRM: API mismatch: client driver version 535.104.05 and kernel module version 535.86.01";
        let d = draft(
            &lib,
            runbook,
            &Request {
                line: line.into(),
                ..Request::default()
            },
        )
        .unwrap();
        let stale = save(root.path(), &lib, &d, Some("\"0000000000000000\""));
        assert!(
            matches!(stale, Err(LearnError::Conflict { .. })),
            "{stale:?}"
        );
        let etag = lib.etag(&runbook.path).unwrap().to_string();
        let saved = save(root.path(), &lib, &d, Some(&etag)).unwrap();
        let text = std::fs::read_to_string(root.path().join(&saved.path)).unwrap();
        assert!(text.starts_with(&MISMATCH[..MISMATCH.find("---\n## Fix").unwrap()]));
        assert!(text.ends_with("---\n## Fix\nReboot.\n"));
        assert_eq!(saved.etag, crate::hash::etag(text.as_bytes()));
        let reloaded = Library::load(root.path()).unwrap();
        assert!(
            reloaded.diagnostics.is_empty(),
            "{:?}",
            reloaded.diagnostics
        );
        let matcher = reloaded.matcher();
        let report = matcher.match_bytes(line.as_bytes(), None);
        assert_eq!(
            report.causes.first().map(|c| c.runbook.as_str()),
            Some("driver-version-mismatch")
        );
        assert!(
            check::check_signatures(&reloaded.runbooks, &Engine::new(&reloaded.runbooks))
                .is_empty()
        );
    }
}
