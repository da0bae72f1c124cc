//! The signature engine: compile the signatures of all runbooks, scan pasted logs for them in one
//! pass, rank the causes found, attach the incidents that hit the same cause, and list the
//! error-looking lines that nothing explains.

mod cache;
pub mod check;
mod compile;
pub mod draft;
pub mod follow;
mod literal;
pub mod normalize;
pub mod portable;
mod prefilter;
mod scan;
#[cfg(test)]
mod tests;

pub use cache::PatternCache;
pub use compile::{CompileProblem, ERROR_WORDS, Engine, Sig, Target, build_regex};
pub use follow::{Alert, Follower};
pub use literal::required_literals;
pub use scan::{Hit, SHORT_PASTE, ScanOutput, Scanner, SigHits, UnexplainedLine, shape};

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::Serialize;

use crate::doc::{Incident, Runbook, Severity};

pub use crate::search::similar::Params as SimilarParams;

/// A paste of at most this many lines is also read as a whole by the similar tier.
pub const SHORT_LINES: usize = 6;

/// Hits listed per cause in a report (all are counted in `hit_count`).
pub const MAX_HITS_PER_CAUSE: usize = 200;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub causes: Vec<Cause>,
    pub unexplained: Vec<Unexplained>,
    /// Likely causes no signature matched: the unexplained lines (and a short paste as a whole)
    /// compared with what the runbooks say. Never a runbook already in `causes`.
    pub similar: Vec<SimilarCause>,
    /// All unexplained lines, including repeats and those past the cap.
    pub unexplained_total: u64,
    pub stats: Stats,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cause {
    pub runbook: String,
    pub title: String,
    pub summary: String,
    pub severity: Severity,
    pub score: f64,
    pub hits: Vec<HitReport>,
    /// Matched lines in all, including those not listed in `hits`.
    pub hit_count: u64,
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    pub incidents: Vec<IncidentRef>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HitReport {
    pub signature: String,
    pub line: u64,
    /// Last line of a multi-line match (equal to `line` for one line).
    pub last_line: u64,
    pub text: String,
    pub captures: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IncidentRef {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    pub hosts: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimilarCause {
    pub runbook: String,
    pub title: String,
    pub summary: String,
    pub severity: Severity,
    /// Confidence, 0..1 (see `search::similar`).
    pub score: f64,
    /// The lines that led to it.
    pub lines: Vec<SimilarLine>,
    pub path: PathBuf,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimilarLine {
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unexplained {
    pub line: u64,
    pub text: String,
    pub count: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub bytes: u64,
    pub lines: u64,
    pub elapsed_ms: f64,
}

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
        // The similar tier's index is built beside the engine, on the other core.
        let (engine, similar) = std::thread::scope(|scope| {
            let similar =
                scope.spawn(|| crate::search::similar::SimilarIndex::new(runbooks, incidents));
            let engine = Engine::with_cache(runbooks, cache);
            (
                engine,
                similar.join().expect("the similar index does not panic"),
            )
        });
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

    /// Scans a whole text at once (pastes, tests); large inputs should be fed to a scanner.
    pub fn match_bytes(&self, input: &[u8], top: Option<usize>) -> Report {
        self.match_bytes_with(input, top, SimilarParams::default())
    }

    /// [`Matcher::match_bytes`] with other thresholds for the similar tier (for tuning them).
    pub fn match_bytes_with(
        &self,
        input: &[u8],
        top: Option<usize>,
        params: SimilarParams,
    ) -> Report {
        let started = std::time::Instant::now();
        let mut scanner = self.scanner();
        scanner.feed(input);
        self.report_with(scanner.finish(), top, started, params)
    }

    /// Groups the hits of a scan by runbook and ranks the causes.
    pub fn report(
        &self,
        out: ScanOutput,
        top: Option<usize>,
        started: std::time::Instant,
    ) -> Report {
        self.report_with(out, top, started, SimilarParams::default())
    }

    fn report_with(
        &self,
        out: ScanOutput,
        top: Option<usize>,
        started: std::time::Instant,
        params: SimilarParams,
    ) -> Report {
        let engine = &self.engine;
        // How many runbooks explain each line: a line several causes share counts less for each.
        let mut line_owners: HashMap<u64, Vec<usize>> = HashMap::new();
        for (s, hits) in out.sigs.iter().enumerate() {
            let runbook = engine.sigs[s].runbook;
            for hit in &hits.hits {
                for line in hit.line..=hit.last_line {
                    let owners = line_owners.entry(line).or_default();
                    if !owners.contains(&runbook) {
                        owners.push(runbook);
                    }
                }
            }
        }
        let mut evidence: BTreeMap<usize, (f64, u64, Vec<HitReport>)> = BTreeMap::new();
        for (s, hits) in out.sigs.iter().enumerate() {
            if hits.count == 0 {
                continue;
            }
            let sig = &engine.sigs[s];
            let share = hits
                .hits
                .iter()
                .map(|h| {
                    let k = (h.line..=h.last_line)
                        .map(|l| line_owners.get(&l).map_or(1, Vec::len))
                        .max()
                        .unwrap_or(1);
                    1.0 / k as f64
                })
                .sum::<f64>()
                / hits.hits.len().max(1) as f64;
            let e = sig.weight * sig.specificity * share * (1.0 + 0.3 * (hits.count as f64).ln());
            let info = &self.runbooks[sig.runbook];
            let entry = evidence.entry(sig.runbook).or_insert((0.0, 0, Vec::new()));
            entry.0 += e;
            entry.1 += hits.count;
            for hit in &hits.hits {
                let captures: BTreeMap<String, String> = hit.captures.iter().cloned().collect();
                let explain = info.explains[sig.spec]
                    .as_deref()
                    .map(|template| render_explain(template, &captures));
                entry.2.push(HitReport {
                    signature: sig.id.clone(),
                    line: hit.line,
                    last_line: hit.last_line,
                    text: hit.text.clone(),
                    captures,
                    explain,
                });
            }
        }
        let mut causes: Vec<Cause> = evidence
            .into_iter()
            .map(|(r, (e, count, mut hits))| {
                let info = &self.runbooks[r];
                hits.sort_by(|a, b| {
                    a.line
                        .cmp(&b.line)
                        .then_with(|| a.signature.cmp(&b.signature))
                });
                hits.truncate(MAX_HITS_PER_CAUSE);
                let score = severity_factor(info.severity) * (1.0 - (-2.0 * e).exp());
                Cause {
                    runbook: info.id.clone(),
                    title: info.title.clone(),
                    summary: info.summary.clone(),
                    severity: info.severity,
                    score: (score * 1000.0).round() / 1000.0,
                    hits,
                    hit_count: count,
                    path: info.path.clone(),
                    action: info.action.clone(),
                    incidents: Vec::new(),
                }
            })
            .collect();
        causes.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| b.severity.cmp(&a.severity))
                .then_with(|| b.hit_count.cmp(&a.hit_count))
                .then_with(|| a.runbook.cmp(&b.runbook))
        });
        if let Some(top) = top {
            causes.truncate(top);
        }
        self.attach_incidents(&mut causes);
        let similar = self.similar_causes(&out, &causes, params);
        Report {
            causes,
            similar,
            unexplained: out
                .unexplained
                .into_iter()
                .map(|u| Unexplained {
                    line: u.line,
                    text: u.text,
                    count: u.count,
                })
                .collect(),
            unexplained_total: out.unexplained_total,
            stats: Stats {
                bytes: out.bytes,
                lines: out.lines,
                elapsed_ms: (started.elapsed().as_secs_f64() * 1e5).round() / 100.0,
            },
        }
    }
}

impl Matcher {
    /// The second tier: the unexplained lines, most frequent first, and a short paste as a
    /// whole, looked up in what the runbooks say.
    fn similar_causes(
        &self,
        out: &ScanOutput,
        causes: &[Cause],
        params: SimilarParams,
    ) -> Vec<SimilarCause> {
        let mut queries: Vec<(u64, &str)> = Vec::new();
        let mut unexplained: Vec<&crate::signature::UnexplainedLine> =
            out.unexplained.iter().collect();
        unexplained.sort_by(|a, b| b.count.cmp(&a.count).then(a.line.cmp(&b.line)));
        queries.extend(unexplained.iter().map(|u| (u.line, u.text.as_str())));
        // A few lines typed or pasted by hand are also read as a whole; tool output (a table,
        // a report) is not, its many words would resemble some runbook's prose.
        let typed = |text: &str| {
            let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
            (2..=SHORT_LINES).contains(&lines)
        };
        if let Some(short) = out.short.as_deref().filter(|s| typed(s)) {
            queries.push((1, short));
        }
        if queries.is_empty() {
            return Vec::new();
        }
        let exclude: Vec<usize> = causes
            .iter()
            .filter_map(|c| self.runbooks.iter().position(|r| r.id == c.runbook))
            .collect();
        let texts: Vec<&str> = queries.iter().map(|q| q.1).collect();
        self.similar
            .suggest(&texts, &exclude, params)
            .into_iter()
            .map(|s| {
                let info = &self.runbooks[s.runbook];
                SimilarCause {
                    runbook: info.id.clone(),
                    title: info.title.clone(),
                    summary: info.summary.clone(),
                    severity: info.severity,
                    score: s.score,
                    lines: {
                        let mut lines: Vec<SimilarLine> = Vec::new();
                        for &i in &s.lines {
                            let (line, text) = queries[i];
                            if lines.iter().all(|l| l.line != line) {
                                lines.push(SimilarLine {
                                    line,
                                    text: normalize::display(text.lines().next().unwrap_or("")),
                                });
                            }
                        }
                        lines
                    },
                    path: info.path.clone(),
                }
            })
            .collect()
    }

    /// Fills each cause's past incidents: those that name its runbook, or whose `log` blocks hit
    /// one of its signatures. The logs are scanned only for the runbooks in this report, so the
    /// regexes compiled are the ones the paste needed anyway.
    /// The incidents linked to every runbook (by index), worked out once.
    pub fn link_all_incidents(&self) -> &[Vec<IncidentRef>] {
        self.all_links.get_or_init(|| {
            let all: Vec<usize> = (0..self.runbooks.len()).collect();
            self.incidents_for(&all)
        })
    }

    /// The incidents that name runbook `id` as a cause or whose logs hit its signatures.
    pub fn incidents_of(&self, id: &str) -> Vec<IncidentRef> {
        self.runbooks
            .iter()
            .position(|r| r.id == id)
            .map(|r| self.link_all_incidents()[r].clone())
            .unwrap_or_default()
    }

    fn attach_incidents(&self, causes: &mut [Cause]) {
        if causes.is_empty() || self.incidents.is_empty() {
            return;
        }
        if let Some(all) = self.all_links.get() {
            for cause in causes.iter_mut() {
                if let Some(r) = self.runbooks.iter().position(|r| r.id == cause.runbook) {
                    cause.incidents = all[r].clone();
                }
            }
            return;
        }
        let runbooks: Vec<usize> = causes
            .iter()
            .filter_map(|c| self.runbooks.iter().position(|r| r.id == c.runbook))
            .collect();
        let links = self.incidents_for(&runbooks);
        for (cause, incidents) in causes.iter_mut().zip(links) {
            cause.incidents = incidents;
        }
    }

    /// For each of `runbooks` (indexes), the incidents that cite it or whose logs hit it.
    fn incidents_for(&self, runbooks: &[usize]) -> Vec<Vec<IncidentRef>> {
        let mut attached: Vec<Vec<IncidentRef>> = vec![Vec::new(); runbooks.len()];
        if self.incidents.is_empty() {
            return attached;
        }
        let wanted: HashMap<usize, usize> =
            runbooks.iter().enumerate().map(|(i, &r)| (r, i)).collect();
        let sigs: Vec<u32> = self
            .engine
            .sigs
            .iter()
            .enumerate()
            .filter(|(_, sig)| wanted.contains_key(&sig.runbook))
            .map(|(i, _)| i as u32)
            .collect();
        for incident in &self.incidents {
            let mut hit: Vec<usize> = incident
                .cites
                .iter()
                .filter_map(|r| wanted.get(r).copied())
                .collect();
            for log in &incident.logs {
                let mut scanner = Scanner::new(&self.engine).only(sigs.iter().copied());
                scanner.feed(log.as_bytes());
                for (s, hits) in scanner.finish().sigs.iter().enumerate() {
                    if hits.count > 0
                        && let Some(&c) = wanted.get(&self.engine.sigs[s].runbook)
                    {
                        hit.push(c);
                    }
                }
            }
            hit.sort_unstable();
            hit.dedup();
            for c in hit {
                attached[c].push(incident.reference.clone());
            }
        }
        attached
    }
}

fn severity_factor(severity: Severity) -> f64 {
    match severity {
        Severity::Critical => 1.0,
        Severity::High => 0.92,
        Severity::Medium => 0.84,
        Severity::Low => 0.76,
        Severity::Info => 0.5,
    }
}

/// Fills `{name}` from the captures; a capture that did not take part renders as nothing.
pub fn render_explain(template: &str, captures: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if after[..close]
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_') =>
            {
                if let Some(value) = captures.get(&after[..close]) {
                    out.push_str(value);
                }
                rest = &after[close + 1..];
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
    }
}
