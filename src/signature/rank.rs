//! Where a cause is ranked: the hits of a scan grouped by runbook, each runbook's evidence
//! (weight, specificity, how many runbooks share a line, how often it matched) turned into a
//! score, the causes sorted, then the second tier (similar causes) and past incidents attached.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::foreign;
use super::report::{Cause, HitReport, Report, SimilarCause, SimilarLine, Stats, Unexplained};
use super::{
    MAX_HITS_PER_CAUSE, Matcher, SHORT_LINES, ScanOutput, SimilarParams, normalize, render_explain,
};
use crate::doc::Severity;

impl Matcher {
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
        // Each signature's evidence, (runbook, evidence, signature), summed per runbook below.
        let mut weighed: Vec<(usize, f64, usize)> = Vec::new();
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
            let e = sig.weight * sig.specificity() * share * (1.0 + 0.3 * (hits.count as f64).ln());
            weighed.push((sig.runbook, e, s));
            let info = &self.runbooks[sig.runbook];
            let entry = evidence.entry(sig.runbook).or_insert((0.0, 0, Vec::new()));
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
        // A line is evidence once per runbook: a signature all of whose hits are on lines a
        // stronger signature of the same runbook already counted (a retyped wording matching the
        // message it paraphrases) adds nothing.
        weighed.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut counted: HashSet<(usize, u64)> = HashSet::new();
        for &(runbook, e, s) in &weighed {
            let lines: Vec<u64> = out.sigs[s]
                .hits
                .iter()
                .flat_map(|h| h.line..=h.last_line)
                .collect();
            if lines.iter().any(|&l| !counted.contains(&(runbook, l)))
                && let Some(entry) = evidence.get_mut(&runbook)
            {
                entry.0 += e;
            }
            counted.extend(lines.into_iter().map(|l| (runbook, l)));
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
        // A failure of another kind (a package manager's, an untrusted TLS peer, a taken port) is
        // not a GPU node's, whatever packages or sockets it names.
        queries.extend(
            unexplained
                .iter()
                .filter(|u| !foreign::is_foreign(&u.text))
                .map(|u| (u.line, u.text.as_str())),
        );
        // A few lines typed or pasted by hand are also read as a whole (without a package
        // manager's lines, and without lines known to be harmless, like the kernel's taint
        // notice for a module that loaded); tool output (a table, a report) is not, its many
        // words would resemble some runbook's prose.
        let typed = |text: &str| {
            let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
            (2..=SHORT_LINES).contains(&lines)
        };
        let short_lines: Vec<(u64, &str)> = out
            .short
            .as_deref()
            .filter(|s| typed(s))
            .map(|s| {
                s.lines()
                    .enumerate()
                    .map(|(n, l)| (n as u64 + 1, l))
                    .filter(|(_, l)| {
                        !l.trim().is_empty()
                            && !foreign::is_foreign(l)
                            && !super::scan::is_benign_text(l)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let short: String = short_lines
            .iter()
            .map(|l| l.1)
            .collect::<Vec<_>>()
            .join("\n");
        // Which query is the paste as a whole: a suggestion it led to shows each of its lines.
        let whole = (!short_lines.is_empty()).then_some(queries.len());
        if whole.is_some() {
            queries.push((1, short.as_str()));
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
                            let led = if Some(i) == whole {
                                short_lines.as_slice()
                            } else {
                                std::slice::from_ref(&queries[i])
                            };
                            for &(line, text) in led {
                                if lines.iter().all(|l| l.line != line) {
                                    lines.push(SimilarLine {
                                        line,
                                        text: normalize::display(text),
                                    });
                                }
                            }
                        }
                        lines
                    },
                    path: info.path.clone(),
                    evidence: s.evidence,
                }
            })
            .collect()
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
