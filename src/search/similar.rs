//! "Similar" causes: what the signatures have never seen, answered from the runbooks' own words.
//!
//! A signature needs its exact wording; the same cause written by another framework, another
//! distribution's installer or a person typing from memory is missed. The error-looking lines
//! no signature explains (and a short paste as a whole) are compared here with what the library
//! says about each runbook: its title, summary, aliases, Symptoms and Chinese summary (prose),
//! the example lines of its signatures and the `log` blocks of the incidents that cite it (real
//! log lines).
//!
//! Raw relevance scores do not say whether a suggestion is right: a Python traceback or a pip
//! conflict shares words with many runbooks. So the confidence of a runbook for a line is a
//! fraction of that line's own information: each term (a word, or a pair of words adjacent or
//! one apart that some runbook also has) weighs its inverse document frequency over
//! the runbooks (a word every runbook uses, or one no runbook knows, tells little about which
//! one; a word no runbook knows still counts in what the line says, so a line that is mostly
//! about something else scores low), generic log words weigh less, and agreement with a real
//! example line counts more than agreement with prose. Lines are combined per runbook (the best
//! line, plus a little for other lines that agree), and a suggestion must clear a threshold and
//! a margin over the runner-up. The threshold and margin were chosen on the tuning split of the
//! evaluation (`eval/README.md`) and are reported on the test split.
//!
//! Everything is built in memory from the parsed library (no I/O, a few milliseconds), so
//! `lore match` needs no index on disk.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::doc::{Incident, Runbook, log_blocks};
use crate::search::tokenizer::tokenize;

/// A suggestion needs at least this confidence (0..1) ...
const MIN_SCORE: f64 = 0.5;
/// ... and this much more than the next runbook (0: a tie shows both). Chosen on the tuning split
/// with `LORE_TUNE_SIMILAR=1 cargo test --release --test it similar_tier -- --nocapture`, by the
/// similar tier alone (as if no signature existed, which is what a paste in unseen wording
/// meets): the most right answers while at most 1 tuning negative in 25 gets a suggestion.
/// With 490 tuning positives and 90 negatives (2026-12-01): 0.5 and 0 answer 398 right, 16 wrong,
/// 3 negatives; a margin of 0.01 answers 348 (2 negatives), 0.03 335 (1); a threshold of 0.45
/// with no margin raises 7 negatives. (The earlier choice, 0.5 and 0.03, was made on 66
/// negatives with signatures and similar together.) Held out (each case's own thread's examples
/// left out of the index), with 603 positives and 153 negatives (2026-12-02), after pairs of
/// words (adjacent, and one apart) became terms: 0.5 and 0 answer 326 right, 38 wrong, 4
/// negatives; 0.45 and 0 raise 9; 0.55 and 0 answer 289 (3), 0.6 and 0 260 (1). With words only
/// the most within the same budget was 291 right with 69 wrong (0.45 and 0, 6 negatives).
/// Triples and quadruples of words answered more (358 at 0.5, 385 at 0.45 with 6 negatives) but
/// doubled the index and took a 64 KiB paste from about 27 ms to 40-45 ms, near its 50 ms goal.
const MIN_MARGIN: f64 = 0.0;
/// Suggestions listed per report.
const MAX_SUGGESTIONS: usize = 3;
/// Lines looked up per report (the most frequent unexplained ones come first).
const MAX_LINES: usize = 200;
/// Agreement with prose counts this much of agreement with a real log line.
const PROSE: f64 = 0.75;
/// A line needs this many informative terms to be looked up at all.
const MIN_TERMS: usize = 2;

/// Words that say "something went wrong" in every kind of log: they cannot tell GPU failures
/// apart, so they weigh a quarter of what their rarity would give them.
const GENERIC: &[&str] = &[
    "error",
    "errors",
    "failed",
    "failure",
    "fail",
    "fails",
    "fatal",
    "warning",
    "warn",
    "info",
    "exception",
    "traceback",
    "line",
    "file",
    "most",
    "recent",
    "call",
    "last",
    "raise",
    "raised",
    "unable",
    "cannot",
    "could",
    "not",
    "no",
    "invalid",
    "timeout",
    "timed",
    "out",
    "code",
    "status",
    "returned",
    "return",
    "exit",
    "exited",
    "process",
    "python",
    "py",
    "self",
    "main",
    "run",
    "running",
    "version",
    "the",
    "a",
    "an",
    "to",
    "of",
    "in",
    "is",
    "for",
    "on",
    "and",
    "with",
    "at",
    "by",
    "be",
    "this",
    "that",
    "from",
    "or",
    "as",
    "it",
    "are",
    "was",
    "has",
    "have",
    "please",
    "see",
    "check",
    "make",
    "sure",
    "usr",
    "lib",
    "local",
    "site",
    "packages",
    "dist",
    "home",
    "root",
    "var",
    "log",
    "bin",
    "kernel",
    "info",
    "debug",
    "true",
    "false",
    "none",
];

/// A term, by the FNV-1a hash of its text: terms are only ever compared, and with a few tens of
/// thousands of them a 64-bit collision is out of reach. Numbers instead of strings make building
/// the index (every `lore match` does) several times cheaper.
type Term = u64;

fn term(text: &str) -> Term {
    crate::hash::fnv1a(text.as_bytes())
}

/// Terms are hashes already: the map only spreads them over its buckets.
#[derive(Default)]
struct TermHasher(u64);

impl Hasher for TermHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = crate::hash::fnv1a_extend(self.0, bytes);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type TermMap<V> = HashMap<Term, V, BuildHasherDefault<TermHasher>>;
type TermSet = HashSet<Term, BuildHasherDefault<TermHasher>>;

/// What one runbook is known by.
struct Known {
    /// Terms of its prose.
    prose: TermSet,
    /// Each real log line that shows it.
    lines: Vec<LogLine>,
    /// Each line its signatures must not match: known not to be this cause.
    not: Vec<LogLine>,
}

/// A real log line's terms and their total weight (worked out once, when the index is built:
/// every query line is compared with every one of them).
struct LogLine {
    /// Sorted, without repeats.
    terms: Vec<Term>,
    mass: f64,
}

impl LogLine {
    fn new(mut terms: Vec<Term>) -> LogLine {
        terms.sort_unstable();
        terms.dedup();
        LogLine { terms, mass: 0.0 }
    }

    fn has(&self, t: Term) -> bool {
        self.terms.binary_search(&t).is_ok()
    }

    /// How many of its terms are single words (the rest are pairs of them).
    fn words(&self) -> usize {
        self.terms.iter().filter(|&&t| t & PAIR == 0).count()
    }
}

/// The thresholds of a suggestion (the defaults were chosen on the tuning split).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub min_score: f64,
    pub min_margin: f64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            min_score: MIN_SCORE,
            min_margin: MIN_MARGIN,
        }
    }
}

pub struct SimilarIndex {
    known: Vec<Known>,
    /// The weight of each term the runbooks use; a term they do not use weighs `unknown`.
    weights: TermMap<f64>,
    unknown: f64,
    /// The terms of [`GENERIC`].
    generic: TermSet,
}

/// One runbook suggested for a paste.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// Index of the runbook in the slice the index was built from.
    pub runbook: usize,
    pub score: f64,
    /// Indices (into the lines given) of the lines that led to it, best first.
    pub lines: Vec<usize>,
}

/// The terms of a text worth comparing: lowercase words and identifiers, not numbers, hex,
/// addresses or one-letter parts. In text order, possibly repeated.
fn terms(text: &str) -> Vec<Term> {
    let words: Vec<Term> = tokenize(text)
        .iter()
        .map(|t| t.text.as_str())
        .filter(|t| {
            let (mut letters, mut digits, mut chars, mut cjk) = (0, 0, 0, false);
            for c in t.chars() {
                chars += 1;
                letters += usize::from(c.is_alphabetic());
                digits += usize::from(c.is_ascii_digit());
                cjk |= crate::search::tokenizer::is_cjk(c);
            }
            (cjk || letters >= 2) && digits * 2 <= chars && !looks_hex(t)
        })
        .map(|t| term(t) & !PAIR)
        .collect();
    // Pairs of words too, adjacent and one apart: a phrase ("fell off", "out of memory", "fallen
    // off the bus") says more than its words in any order.
    let n = words.len();
    let mut all = Vec::with_capacity(3 * n);
    all.extend_from_slice(&words);
    all.extend(
        words
            .windows(2)
            .map(|w| (w[0].rotate_left(17) ^ w[1]) | PAIR),
    );
    all.extend(
        words
            .windows(3)
            .map(|w| (w[0].rotate_left(29) ^ w[2]) | PAIR),
    );
    all
}

/// The bit that marks a term as a pair of words.
const PAIR: Term = 1 << 63;

fn looks_hex(t: &str) -> bool {
    let t = t.strip_prefix("0x").unwrap_or(t);
    t.len() >= 6 && t.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// The text of the `## ` section whose heading slug is `anchor` (runbooks keep their sections at
/// that level); a plain line scan, much cheaper than parsing the Markdown for two sections.
fn section<'a>(body: &'a str, anchor: &str) -> Option<&'a str> {
    let mut start = None;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        if let Some(heading) = line.strip_prefix("## ") {
            if let Some(from) = start {
                return Some(&body[from..offset]);
            }
            if crate::doc::markdown::slug(heading.trim()) == anchor {
                start = Some(offset + line.len());
            }
        }
        offset += line.len();
    }
    start.map(|from| &body[from..])
}

impl SimilarIndex {
    pub fn new(runbooks: &[Runbook], incidents: &[Incident]) -> SimilarIndex {
        // Runbooks are independent: on all cores (start-up of every `lore match` pays for this).
        let mut known: Vec<Known> = crate::par::map(runbooks, |r| {
            let mut prose = String::new();
            for text in [&r.title, &r.summary] {
                prose.push_str(text);
                prose.push('\n');
            }
            for alias in &r.aliases {
                prose.push_str(alias);
                prose.push('\n');
            }
            for anchor in ["symptoms", "中文摘要"] {
                if let Some(text) = section(&r.body, anchor) {
                    prose.push_str(text);
                    prose.push('\n');
                }
            }
            let lines = r
                .signatures
                .iter()
                .flat_map(|s| s.examples.iter())
                .map(|e| terms(&e.text))
                .filter(|t| !t.is_empty())
                .map(LogLine::new)
                .collect();
            let not = r
                .signatures
                .iter()
                .flat_map(|s| s.counterexamples.iter())
                .map(|c| terms(c))
                .filter(|t| !t.is_empty())
                .map(LogLine::new)
                .collect();
            Known {
                prose: terms(&prose).into_iter().collect(),
                lines,
                not,
            }
        });
        let index: HashMap<&str, usize> = runbooks
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.as_str(), i))
            .collect();
        for incident in incidents {
            let cited: Vec<usize> = incident
                .runbooks
                .iter()
                .filter_map(|id| index.get(id.as_str()).copied())
                .collect();
            if cited.len() != 1 {
                // A log block of an incident with several causes cannot say which line is whose.
                continue;
            }
            for block in log_blocks(&incident.body) {
                for line in block.lines() {
                    let t = LogLine::new(terms(line));
                    if t.words() >= MIN_TERMS {
                        known[cited[0]].lines.push(t);
                    }
                }
            }
        }
        let mut df: TermMap<u32> = TermMap::default();
        for k in &known {
            let mut all: TermSet = k.prose.clone();
            all.extend(k.lines.iter().flat_map(|l| l.terms.iter().copied()));
            for t in all {
                *df.entry(t).or_insert(0) += 1;
            }
        }
        // A term's weight: its rarity across the runbooks (a word every runbook uses, or one
        // none uses, tells little about which one), a quarter of it for generic log words.
        let n = known.len().max(1) as f64;
        let generic: TermSet = GENERIC.iter().map(|g| term(g) & !PAIR).collect();
        let idf = |df: u32| (1.0 + n / (df as f64 + 1.0)).ln();
        let weights: TermMap<f64> = df
            .into_iter()
            .map(|(t, df)| {
                let w = idf(df) * if generic.contains(&t) { 0.25 } else { 1.0 };
                (t, w)
            })
            .collect();
        let mut index = SimilarIndex {
            known: Vec::new(),
            weights,
            unknown: idf(0),
            generic,
        };
        for k in &mut known {
            for line in k.lines.iter_mut().chain(&mut k.not) {
                line.mass = line.terms.iter().map(|&t| index.weight(t)).sum();
            }
        }
        index.known = known;
        index
    }

    /// The index as bytes, for `.lore/similar.cache`: terms are already numbers, so it is a few
    /// arrays of them, read back in a fraction of the time building takes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::from(&b"LORESIM1"[..]);
        let u64s = |out: &mut Vec<u8>, xs: &mut dyn Iterator<Item = u64>, n: usize| {
            out.extend_from_slice(&(n as u64).to_le_bytes());
            for x in xs {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
        let sorted = |set: &TermSet| {
            let mut v: Vec<Term> = set.iter().copied().collect();
            v.sort_unstable();
            v
        };
        let generic = sorted(&self.generic);
        u64s(&mut out, &mut generic.iter().copied(), generic.len());
        out.extend_from_slice(&self.unknown.to_le_bytes());
        let mut weights: Vec<(Term, f64)> = self.weights.iter().map(|(&t, &w)| (t, w)).collect();
        weights.sort_unstable_by_key(|&(t, _)| t);
        u64s(
            &mut out,
            &mut weights.iter().flat_map(|&(t, w)| [t, w.to_bits()]),
            weights.len(),
        );
        out.extend_from_slice(&(self.known.len() as u64).to_le_bytes());
        for k in &self.known {
            let prose = sorted(&k.prose);
            u64s(&mut out, &mut prose.iter().copied(), prose.len());
            for lines in [&k.lines, &k.not] {
                out.extend_from_slice(&(lines.len() as u64).to_le_bytes());
                for line in lines {
                    out.extend_from_slice(&line.mass.to_le_bytes());
                    u64s(&mut out, &mut line.terms.iter().copied(), line.terms.len());
                }
            }
        }
        out
    }

    /// Reads [`SimilarIndex::to_bytes`]; `None` for anything else (the caller builds anew).
    pub fn from_bytes(bytes: &[u8]) -> Option<SimilarIndex> {
        let mut rest = bytes.strip_prefix(b"LORESIM1")?;
        let mut next = || -> Option<u64> {
            let (head, tail) = rest.split_first_chunk::<8>()?;
            rest = tail;
            Some(u64::from_le_bytes(*head))
        };
        let count = |n: u64| usize::try_from(n).ok().filter(|&n| n <= bytes.len() / 8);
        let mut generic = TermSet::default();
        for _ in 0..count(next()?)? {
            generic.insert(next()?);
        }
        let unknown = f64::from_bits(next()?);
        let mut weights = TermMap::default();
        for _ in 0..count(next()?)? {
            let t = next()?;
            weights.insert(t, f64::from_bits(next()?));
        }
        let mut known = Vec::new();
        for _ in 0..count(next()?)? {
            let mut prose = TermSet::default();
            for _ in 0..count(next()?)? {
                prose.insert(next()?);
            }
            let mut both: [Vec<LogLine>; 2] = [Vec::new(), Vec::new()];
            for lines in &mut both {
                for _ in 0..count(next()?)? {
                    let mass = f64::from_bits(next()?);
                    let n = count(next()?)?;
                    let mut terms = Vec::with_capacity(n);
                    for _ in 0..n {
                        terms.push(next()?);
                    }
                    lines.push(LogLine { terms, mass });
                }
            }
            let [lines, not] = both;
            known.push(Known { prose, lines, not });
        }
        if !rest.is_empty() {
            return None;
        }
        Some(SimilarIndex {
            known,
            weights,
            unknown,
            generic,
        })
    }

    /// How much a term tells about which runbook a line is about.
    fn weight(&self, t: Term) -> f64 {
        match self.weights.get(&t) {
            Some(&w) => w,
            // A pair no runbook has tells nothing either way: its words already count.
            None if t & PAIR != 0 => 0.0,
            // Not in any runbook: as rare as can be, but generic words stay cheap.
            None if self.generic.contains(&t) => self.unknown * 0.25,
            None => self.unknown,
        }
    }

    /// The confidence (0..1) of each runbook for one line's terms.
    fn line_scores(&self, query: &LogLine) -> Vec<f64> {
        let weights: Vec<(Term, f64)> = query.terms.iter().map(|&t| (t, self.weight(t))).collect();
        let mass: f64 = weights.iter().map(|(_, w)| w).sum();
        if mass <= 0.0 {
            return vec![0.0; self.known.len()];
        }
        self.known
            .iter()
            .map(|k| {
                let prose: f64 = weights
                    .iter()
                    .filter(|(t, _)| k.prose.contains(t))
                    .map(|(_, w)| w)
                    .sum::<f64>()
                    / mass;
                // A real line: the weighted Dice coefficient of the two term sets.
                let dice = |line: &LogLine| {
                    let shared: f64 = weights
                        .iter()
                        .filter(|(t, _)| line.has(*t))
                        .map(|(_, w)| w)
                        .sum();
                    if shared == 0.0 {
                        return 0.0;
                    }
                    2.0 * shared / (mass + line.mass)
                };
                let best_line = k.lines.iter().map(dice).fold(0.0, f64::max);
                // A line like one the runbook's signatures must not match is not this cause.
                let best_not = k.not.iter().map(dice).fold(0.0, f64::max);
                if best_not >= 0.6 && best_not >= best_line {
                    return 0.0;
                }
                best_line.max(PROSE * prose)
            })
            .collect()
    }

    /// The runbooks `lines` point to, best first, each with the lines that led to it. Nothing
    /// unless the best clears [`MIN_SCORE`] and leads the runner-up by [`MIN_MARGIN`]; then the
    /// others within 0.15 of it. `exclude`: runbooks already found by a signature (left out
    /// before ranking, so they neither show nor count as the runner-up).
    pub fn suggest(&self, lines: &[&str], exclude: &[usize], params: Params) -> Vec<Suggestion> {
        let mut per_runbook: Vec<Vec<(f64, usize)>> = vec![Vec::new(); self.known.len()];
        for (i, line) in lines.iter().take(MAX_LINES).enumerate() {
            let query = LogLine::new(terms(line));
            if query.words() < MIN_TERMS {
                continue;
            }
            for (r, score) in self.line_scores(&query).into_iter().enumerate() {
                if score > 0.0 {
                    per_runbook[r].push((score, i));
                }
            }
        }
        let mut ranked: Vec<Suggestion> = per_runbook
            .into_iter()
            .enumerate()
            .filter(|(r, _)| !exclude.contains(r))
            .filter_map(|(r, mut scores)| {
                scores.sort_by(|a, b| b.0.total_cmp(&a.0));
                let (best, _) = *scores.first()?;
                // Other lines that agree add a little, never past 1.
                let support: f64 = scores.iter().skip(1).take(3).map(|s| s.0).sum();
                let score = (best + 0.1 * support).min(1.0);
                Some(Suggestion {
                    runbook: r,
                    score: (score * 1000.0).round() / 1000.0,
                    lines: scores
                        .iter()
                        .take_while(|s| s.0 >= best * 0.8)
                        .map(|s| s.1)
                        .take(5)
                        .collect(),
                })
            })
            .collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.runbook.cmp(&b.runbook)));
        let Some(first) = ranked.first() else {
            return Vec::new();
        };
        let runner_up = ranked.get(1).map_or(0.0, |s| s.score);
        if first.score < params.min_score || first.score - runner_up < params.min_margin {
            return Vec::new();
        }
        let floor = first.score - 0.15;
        ranked
            .into_iter()
            .filter(|s| s.score >= params.min_score.max(floor))
            .take(MAX_SUGGESTIONS)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_index_answers_as_the_built_one() {
        let library =
            crate::library::Library::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
                .expect("the shipped library");
        let built = SimilarIndex::new(&library.runbooks, &library.incidents);
        let bytes = built.to_bytes();
        let kept = SimilarIndex::from_bytes(&bytes).expect("reads its own bytes");
        assert_eq!(kept.to_bytes(), bytes);
        let pastes = [
            "NVRM: API mismatch: client driver version 535.104.05 and kernel module version 535.86.01",
            "nvidia-modprobe: failed to load module nvidia",
            "RuntimeError: CUDA error: an illegal memory access was encountered",
            "NCCL WARN Net : Connection closed by remote peer",
        ];
        let params = Params::default();
        for paste in pastes {
            assert_eq!(
                kept.suggest(&[paste], &[], params),
                built.suggest(&[paste], &[], params),
                "{paste}"
            );
        }
        assert!(SimilarIndex::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        assert!(SimilarIndex::from_bytes(b"LORESIM1").is_none());
        assert!(SimilarIndex::from_bytes(b"something else").is_none());
    }

    #[test]
    fn sections_are_found_by_their_heading_like_the_markdown_parser_does() {
        let body = "## Symptoms\n\n- `nvidia-smi` fails\n\n## Fix\n\nReboot.\n\n## 中文摘要\n\n驱动版本不匹配。\n";
        assert_eq!(
            section(body, "symptoms"),
            Some("\n- `nvidia-smi` fails\n\n")
        );
        assert_eq!(section(body, "中文摘要"), Some("\n驱动版本不匹配。\n"));
        assert_eq!(section(body, "diagnosis"), None);
        for anchor in ["symptoms", "中文摘要"] {
            let ours = section(body, anchor).unwrap();
            let parsed = crate::doc::markdown::section_markdown(body, anchor).unwrap();
            assert_eq!(ours.trim(), parsed.trim(), "{anchor}");
        }
    }

    /// A runbook `runbooks/<id>.md` parsed from `text`.
    fn parsed(id: &str, text: &str) -> Runbook {
        Runbook::parse(std::path::Path::new(&format!("runbooks/{id}.md")), text)
            .0
            .unwrap()
    }

    #[test]
    fn words_in_the_same_order_count_more_than_the_same_words() {
        let runbook = |id: &str, example: &str| {
            parsed(
                id,
                &format!(
                    "---\ntitle: {id}\nseverity: high\nsignatures:\n  - id: {id}-s\n    pattern: 'zzz{id}'\n    examples: ['{example}']\n---\n## Symptoms\nnothing\n"
                ),
            )
        };
        let phrase = runbook(
            "phrase",
            "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
        );
        let scattered = runbook(
            "scattered",
            "bus off: has GPU fallen? the NVRM 0000:3b:00.0",
        );
        let index = SimilarIndex::new(&[scattered, phrase], &[]);
        let got = index.suggest(
            &["kernel: NVRM: GPU at 0000:65:00.0 has fallen off the bus"],
            &[],
            Params {
                min_score: 0.0,
                min_margin: 0.0,
            },
        );
        assert_eq!(got.first().map(|s| s.runbook), Some(1), "{got:?}");
        assert!(
            got[0].score > got.get(1).map_or(0.0, |s| s.score),
            "{got:?}"
        );
    }

    #[test]
    fn a_line_like_a_counterexample_is_not_that_cause() {
        let runbook = parsed;
        let secure = runbook(
            "secure-boot",
            "---\ntitle: Secure Boot rejects the unsigned nvidia module\nseverity: high\nsignatures:\n  - id: key-rejected\n    pattern: 'Key was rejected by service'\n    examples: ['modprobe: ERROR: could not insert nvidia: Key was rejected by service']\n    counterexamples: ['nvidia: module verification failed: signature and/or required key missing - tainting kernel']\n---\n## Symptoms\nmodule signature verification fails, key rejected\n",
        );
        let other = runbook(
            "other",
            "---\ntitle: Something else\nseverity: low\n---\n## Symptoms\nnothing alike\n",
        );
        let index = SimilarIndex::new(&[secure, other], &[]);
        let benign = "[ 4.9] nvidia: module verification failed: signature and/or required key missing - tainting kernel";
        assert!(index.suggest(&[benign], &[], Params::default()).is_empty());
        let real = "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service";
        let got = index.suggest(&[real], &[], Params::default());
        assert_eq!(got.first().map(|s| s.runbook), Some(0), "{got:?}");
    }
}
