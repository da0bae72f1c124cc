//! Checking signatures against their own examples: every example must produce a hit (with the
//! captures it lists) and no counterexample may. Examples go through the same scanner as a paste, so
//! a literal the prefilter misses or a prefix that is not stripped fails here, not in production.

use std::collections::{BTreeMap, HashMap};

use crate::doc::{Diagnostic, Runbook};

use super::{Engine, Scanner};

/// All problems with the signatures of `runbooks` as compiled into `engine`.
pub fn check_signatures(runbooks: &[Runbook], engine: &Engine) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for problem in &engine.problems {
        let runbook = &runbooks[problem.runbook];
        let spec = &runbook.signatures[problem.signature];
        let mut d = Diagnostic::error(
            &runbook.path,
            spec.line,
            format!("signature `{}`: {}", spec.id, problem.message),
        );
        d.hint = problem.hint.clone();
        out.push(d);
    }
    let failed: HashMap<usize, String> = engine.compile_all().into_iter().collect();
    let mut seen: HashMap<&str, &Runbook> = HashMap::new();
    for runbook in runbooks {
        for spec in &runbook.signatures {
            if let Some(first) = seen.insert(&spec.id, runbook) {
                out.push(
                    Diagnostic::error(
                        &runbook.path,
                        spec.line,
                        format!("signature id `{}` is used twice", spec.id),
                    )
                    .with_hint(format!(
                        "also in {}; signature ids are unique across the library",
                        first.path.display()
                    )),
                );
            }
        }
    }
    for (index, sig) in engine.sigs.iter().enumerate() {
        let runbook = &runbooks[sig.runbook];
        let spec = &runbook.signatures[sig.spec];
        let at = |message: String| Diagnostic::error(&runbook.path, spec.line, message);
        if let Some(why) = failed.get(&index) {
            out.push(at(format!("signature `{}`: pattern cannot be compiled: {why}", spec.id)).with_hint(
                "the compiled pattern may be too large: avoid large counted repetitions like .{1,1000}",
            ));
            continue;
        }
        if !sig.has_literal() {
            out.push(
                Diagnostic::warning(
                    &runbook.path,
                    spec.line,
                    format!("signature `{}` has no literal text of 3 or more characters; it is tried on every line", spec.id),
                )
                .with_hint("add a distinctive word the message always contains"),
            );
        }
        if let Some(common) = super::ordinary::share(&sig.required, &sig.also)
            && common.share >= super::ordinary::COMMONPLACE
        {
            out.push(
                Diagnostic::warning(
                    &runbook.path,
                    spec.line,
                    format!(
                        "signature `{}`: its regex would run on {:.0}% of ordinary log lines: its literal `{}` is commonplace (as in {})",
                        spec.id,
                        100.0 * common.share,
                        common.literal,
                        preview(common.line)
                    ),
                )
                .with_hint("matching a busy log slows down; build the pattern around a phrase only this message prints"),
            );
        }
        if spec.examples.is_empty() {
            out.push(
                Diagnostic::warning(
                    &runbook.path,
                    spec.line,
                    format!("signature `{}` has no examples", spec.id),
                )
                .with_hint("add a real log line under `examples:`"),
            );
        }
        for (n, example) in spec.examples.iter().enumerate() {
            let hits = hits_of(engine, index as u32, &example.text);
            let Some(captures) = hits.first() else {
                out.push(
                    at(format!("signature `{}`: example {} does not match: {}", spec.id, n + 1, preview(&example.text)))
                        .with_hint("the line is matched after its log prefix is stripped; check escaping and case"),
                );
                continue;
            };
            for (name, want) in &example.captures {
                // Captures are reported trimmed, so compare trimmed.
                let got = captures.get(name);
                if got.map(|g| g.trim()) != Some(want.trim()) {
                    out.push(at(format!(
                        "signature `{}`: example {}: capture `{name}` is {} but should be `{want}`",
                        spec.id,
                        n + 1,
                        got.map_or("missing".to_string(), |g| format!("`{g}`"))
                    )));
                }
            }
        }
        for (n, counter) in spec.counterexamples.iter().enumerate() {
            if !hits_of(engine, index as u32, counter).is_empty() {
                out.push(at(format!(
                    "signature `{}`: counterexample {} matches but must not: {}",
                    spec.id,
                    n + 1,
                    preview(counter)
                )));
            }
        }
    }
    out
}

/// The captures of each hit of signature `sig` in `text`.
fn hits_of(engine: &Engine, sig: u32, text: &str) -> Vec<BTreeMap<String, String>> {
    let mut scanner = Scanner::new(engine);
    scanner.feed(text.as_bytes());
    let out = scanner.finish();
    out.sigs[sig as usize]
        .hits
        .iter()
        .map(|h| h.captures.iter().cloned().collect())
        .collect()
}

fn preview(text: &str) -> String {
    let one_line = text.trim().replace('\n', "⏎");
    let shown = crate::format::cut(&one_line, 100);
    if shown.len() < one_line.len() {
        format!("{shown:?}…")
    } else {
        format!("{one_line:?}")
    }
}
