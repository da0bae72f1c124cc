//! The signature engine: compile the signatures of all runbooks, scan pasted logs for them in one
//! pass, rank the causes found, attach the incidents that hit the same cause, and list the
//! error-looking lines that nothing explains.

mod cache;
pub mod check;
mod compile;
pub mod condition;
pub mod draft;
pub mod follow;
pub mod foreign;
mod incidents;
pub(crate) mod literal;
pub mod normalize;
pub mod ordinary;
pub mod portable;
mod prefilter;
mod rank;
mod report;
mod scan;
#[cfg(test)]
mod tests;

pub use cache::PatternCache;
pub(crate) use compile::without_prefilter;
pub use compile::{CompileProblem, Engine, Sig, Target};
pub use follow::{Alert, Follower};
pub use report::{
    Cause, HitReport, IncidentRef, Report, SimilarCause, SimilarLine, Stats, Unexplained,
};
pub use scan::{Hit, ScanOutput, Scanner, SigHits, UnexplainedLine};

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::doc::{Incident, Runbook, Severity};

pub use crate::search::similar::Params as SimilarParams;

/// A paste of at most this many lines is also read as a whole by the similar tier.
pub const SHORT_LINES: usize = 6;

/// Hits listed per cause in a report (all are counted in `hit_count`).
pub const MAX_HITS_PER_CAUSE: usize = 200;

/// A library's signatures, compiled, with what a report needs to say about each runbook.
pub struct Matcher {
    pub engine: Engine,
    runbooks: Vec<RunbookInfo>,
    /// Past incidents, newest first.
    incidents: Vec<PastIncident>,
    /// For each runbook: the incidents linked to it, once worked out for all runbooks at once
    /// (a long-running server does that up front; a one-off `lore match` only for its causes).
    all_links: std::sync::OnceLock<Vec<Vec<IncidentRef>>>,
    /// What the runbooks say, for the causes no signature found.
    similar: crate::search::similar::SimilarIndex,
}

struct PastIncident {
    reference: IncidentRef,
    /// Runbooks (by index) its front matter names as causes.
    cites: Vec<usize>,
    /// Its `log` blocks, which count as evidence like a paste.
    logs: Vec<String>,
}

struct RunbookInfo {
    id: String,
    title: String,
    summary: String,
    severity: Severity,
    path: PathBuf,
    action: Option<String>,
    explains: Vec<Option<String>>,
}

impl Matcher {
    /// Compiles the signatures of `runbooks` (taking pattern analyses from `cache` where it has
    /// them; `Library::matcher` reads and saves the cache) and learns what `incidents` say.
    pub fn new(runbooks: &[Runbook], incidents: &[Incident], cache: &PatternCache) -> Matcher {
        Matcher::with_similar(runbooks, incidents, cache, None)
    }

    /// [`Matcher::new`] with the similar tier's index given when one is at hand (read from
    /// `.lore/similar.cache` for the same documents); else it is built beside the engine, on the
    /// other core.
    pub fn with_similar(
        runbooks: &[Runbook],
        incidents: &[Incident],
        cache: &PatternCache,
        similar: Option<crate::search::similar::SimilarIndex>,
    ) -> Matcher {
        let (engine, similar) = match similar {
            Some(similar) => (Engine::with_cache(runbooks, cache), similar),
            None => std::thread::scope(|scope| {
                let similar =
                    scope.spawn(|| crate::search::similar::SimilarIndex::new(runbooks, incidents));
                let engine = Engine::with_cache(runbooks, cache);
                (
                    engine,
                    similar.join().expect("the similar index does not panic"),
                )
            }),
        };
        let library_incidents = incidents;
        let runbooks: Vec<RunbookInfo> = runbooks
            .iter()
            .map(|r| RunbookInfo {
                id: r.id.clone(),
                title: r.title.clone(),
                summary: r.summary.clone(),
                severity: r.severity,
                path: r.path.clone(),
                action: r.action.clone(),
                explains: r.signatures.iter().map(|s| s.explain.clone()).collect(),
            })
            .collect();
        let index: HashMap<&str, usize> = runbooks
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.as_str(), i))
            .collect();
        let mut ordered: Vec<_> = library_incidents.iter().collect();
        ordered.sort_by(|a, b| {
            b.started_at
                .cmp(&a.started_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        let incidents = ordered
            .into_iter()
            .map(|incident| PastIncident {
                reference: IncidentRef {
                    id: incident.id.clone(),
                    title: incident.title.clone(),
                    started_at: incident.started_at.map(|t| t.to_rfc3339()),
                    hosts: incident.hosts.clone(),
                },
                cites: incident
                    .runbooks
                    .iter()
                    .filter_map(|id| index.get(id.as_str()).copied())
                    .collect(),
                logs: incident.logs(),
            })
            .collect();
        Matcher {
            engine,
            runbooks,
            incidents,
            all_links: std::sync::OnceLock::new(),
            similar,
        }
    }

    /// The similar tier's index (to be kept for the next start-up).
    pub fn similar_index(&self) -> &crate::search::similar::SimilarIndex {
        &self.similar
    }

    /// How many signatures compiled (the others were reported and left out).
    pub fn signature_count(&self) -> usize {
        self.engine.sigs.len()
    }

    /// Whether a runbook of this id was compiled into the matcher.
    pub fn knows_runbook(&self, id: &str) -> bool {
        self.runbooks.iter().any(|r| r.id == id)
    }

    /// The pattern analyses of this matcher, for the next start-up.
    pub fn pattern_cache(&self) -> &PatternCache {
        &self.engine.cache
    }

    pub fn scanner(&self) -> Scanner<'_> {
        Scanner::new(&self.engine)
    }
}

/// Compiles the regexes every scan needs (the line-prefix stripper, the harmless-line test) ahead
/// of the first line that needs them: a one-off command calls it on another core while the
/// library loads, which takes a few milliseconds off a paste's answer.
pub fn warm_up() {
    normalize::warm_up();
    scan::warm_up();
}

/// Fills `{name}` from the captures; a capture that did not take part renders as nothing, and a
/// bracket whose every capture is missing goes with them ("(pid {pid})" or nothing).
pub fn render_explain(template: &str, captures: &BTreeMap<String, String>) -> String {
    let template = drop_empty_brackets(template, captures);
    let mut out = String::with_capacity(template.len());
    let mut rest = template.as_str();
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if after[..close]
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_') =>
            {
                rest = &after[close + 1..];
                // Brackets left empty by missing captures are already gone (see
                // `drop_empty_brackets`): "(7, 5)" or nothing, never "()".
                if let Some(value) = captures.get(&after[..close]) {
                    out.push_str(value);
                }
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `template` without the innermost "( ... )" groups that hold placeholders and no capture that
/// took part: "its child (pid {pid})" reads "its child" when the line gave no pid.
fn drop_empty_brackets(template: &str, captures: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open + 1..].find([')', '(']).map(|c| open + 1 + c) else {
            break;
        };
        if rest.as_bytes()[close] == b'(' {
            out.push_str(&rest[..close]);
            rest = &rest[close..];
            continue;
        }
        let inner = &rest[open + 1..close];
        let names: Vec<&str> = inner
            .split('{')
            .skip(1)
            .filter_map(|part| part.split_once('}').map(|(name, _)| name))
            .filter(|name| {
                !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
            .collect();
        if !names.is_empty() && names.iter().all(|name| !captures.contains_key(*name)) {
            out.push_str(rest[..open].trim_end());
        } else {
            out.push_str(&rest[..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod explain_tests {
    use super::*;

    #[test]
    fn explain_templates() {
        let caps: BTreeMap<String, String> =
            [("client".to_string(), "535.104.05".to_string())].into();
        assert_eq!(
            render_explain("client {client}, kernel {kernel}; {not a capture}", &caps),
            "client 535.104.05, kernel ; {not a capture}"
        );
        let explain = "needs a newer GPU than this one ({cc}{need}); see get_arch_list()";
        assert_eq!(
            render_explain(explain, &BTreeMap::new()),
            "needs a newer GPU than this one; see get_arch_list()"
        );
        let pid: BTreeMap<String, String> = [("pid".to_string(), "12989".to_string())].into();
        let shell = "its child {command} (pid {pid}) was killed (signal 9)";
        assert_eq!(
            render_explain(shell, &pid),
            "its child (pid 12989) was killed (signal 9)"
        );
        let command: BTreeMap<String, String> =
            [("command".to_string(), "python a.py".to_string())].into();
        assert_eq!(
            render_explain(shell, &command),
            "its child python a.py was killed (signal 9)"
        );
        let cc: BTreeMap<String, String> = [("cc".to_string(), "7, 5".to_string())].into();
        assert_eq!(
            render_explain(explain, &cc),
            "needs a newer GPU than this one (7, 5); see get_arch_list()"
        );
    }
}
