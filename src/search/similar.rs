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
//! The index is built in memory from the parsed library and kept in `.lore/similar.cache` for
//! the next `lore match` (see [`crate::library::Library::matcher`]). It is inverted (term →
//! lines and runbooks), so a query line costs what its own terms' lists are, not a comparison
//! with every known line.

use std::collections::{HashMap, HashSet};

use crate::doc::{Incident, Runbook, log_blocks};
use crate::search::tokenizer::tokenize;

/// A suggestion needs at least this confidence (0..1), and [`CONFIDENCE`] its weights. Both were
/// chosen on the tuning split with `LORE_TUNE_SIMILAR=1 LORE_TUNE_HELD_OUT=1 LORE_TUNE_FIT=1
/// cargo test --release --test it similar_tier -- --nocapture`, by the similar tier alone (as if no
/// signature existed, which is what a paste in unseen wording meets) and held out (each case's
/// own thread's example lines left out of the index): a logistic regression of whether the best
/// runbook is the case's cause (negatives: never), then the threshold that answers the most
/// positives while raising no more negatives than the bare similarity did.
///
/// The bare similarity (a share of the line's information, the best line plus a tenth of the
/// next three) was the gate until 2026-12-03: at 0.45, 828 of 1,418 held-out tuning positives
/// right, 70 wrong, 16 of 740 negatives raised. The history of that choice: the similarity's
/// weighting was chosen step by step (pairs of words, then triples and quadruples once the index
/// was inverted, generic words weighed down, lines of one telling word not looked up, failures of
/// other kinds not looked up at all), each step held out at the threshold that kept negatives
/// within one in 25; 0.4 raised 30 negatives or more each time. A similarity does not say how
/// sure: the same 0.42 is a right answer when three lines agree and the next runbook is far
/// behind, and a false alarm when one line of a long paste resembles a little of everything.
/// Fitted with five-fold cross-validation on the same cases, the model answered 874 right
/// (at the same 16 negatives) where the similarity answered 832.
const MIN_CONFIDENCE: f64 = 0.62;
/// The bias and weights of the confidence over [`Evidence::features`]: the best line, the next
/// three, log(1 + lines won), the best line's informative words, log(1 + lines with any
/// similarity), the margin over the next runbook and the next runbook's similarity. A runbook
/// that wins several lines and leads by far is likelier; one that many lines resemble a little
/// is less (a long paste resembles everything somewhat).
const CONFIDENCE: (f64, [f64; FEATURES]) =
    (-3.696, [5.968, 1.219, 1.112, 0.023, -1.067, 4.142, 1.950]);
/// Runbooks after the best are listed when their similarity is within this of its ...
const RUNNERS_WITHIN: f64 = 0.25;
/// ... and at least this. Tier alone, held out (2026-12-02): 400 right and 41 wrong with a
/// threshold of 0.45, where listing only those within 0.15 and above 0.45 gave 393 and 48;
/// negatives unchanged (1), since only the best decides whether anything is listed.
const RUNNERS_FLOOR: f64 = 0.315;
/// Suggestions listed per report.
const MAX_SUGGESTIONS: usize = 3;
/// Lines looked up per report (the most frequent unexplained ones come first).
const MAX_LINES: usize = 200;
/// Agreement with prose counts this much of agreement with a real log line.
const PROSE: f64 = 0.75;
/// A line needs this many informative words (not [`GENERIC`]) to be looked up at all: a line of
/// one telling word and generic ones ("Call Trace:", "Fatal error") matches the prose of many
/// runbooks completely and says nothing about which.
const MIN_TERMS: usize = 2;

/// Words that say "something went wrong" in every kind of log: they cannot tell GPU failures
/// apart, so they weigh a quarter of what their rarity would give them, and so do runs of them
/// only ("no such file or directory"), and an identifier made of them (`code=exited`) is no term
/// of its own. Tier alone, held out at 0.45 (2026-12-03, 1,008 cases, 416 negatives): 611 right,
/// 50 wrong, 6 negatives before the runs and ENOENT's words; 612, 46 and 6 after. The
/// identifiers (1,054 cases, 456 negatives): 634, 48 and 8 before; 636, 47 and 8 after.
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
    // C++'s wrapper of any uncaught exception, and the words of any refused permission.
    "terminate",
    "called",
    "after",
    "throwing",
    "instance",
    "access",
    "denied",
    "permission",
    // Any missing path's errno text (ENOENT).
    "such",
    "directory",
];

/// A term, by the FNV-1a hash of its text: terms are only ever compared, and with a few tens of
/// thousands of them a 64-bit collision is out of reach. Numbers instead of strings make building
/// the index (every `lore match` does) several times cheaper.
type Term = u64;

fn term(text: &str) -> Term {
    crate::hash::fnv1a(text.as_bytes())
}

type TermMap<V> = HashMap<Term, V, crate::hash::BuildPrehashed>;
type TermSet = HashSet<Term, crate::hash::BuildPrehashed>;

/// What one runbook is known by, while the index is built.
struct Known {
    /// Terms of its prose.
    prose: TermSet,
    /// Each real log line that shows it.
    lines: Vec<LogLine>,
    /// Each line its signatures must not match: known not to be this cause.
    not: Vec<LogLine>,
}

/// A line's terms, sorted and without repeats.
struct LogLine {
    terms: Vec<Term>,
}

impl LogLine {
    fn new(mut terms: Vec<Term>) -> LogLine {
        terms.sort_unstable();
        terms.dedup();
        LogLine { terms }
    }

    /// How many of its terms are single words (the rest are runs of them).
    fn words(&self) -> usize {
        self.terms.iter().filter(|&&t| t & PAIR == 0).count()
    }

    /// How many of its terms are single words that are not generic log words (the rest are
    /// runs of words, or words like "error" and "call" that every kind of log has).
    fn informative_words(&self) -> usize {
        self.terms
            .iter()
            .filter(|&&t| t & PAIR == 0 && !is_generic(t))
            .count()
    }
}

/// A real log line of the index: whose it is, and its terms' total weight (worked out once,
/// when the index is built).
#[derive(Debug, Clone, Copy, PartialEq)]
struct KnownLine {
    runbook: u32,
    /// A counterexample: a line known not to be this runbook's cause.
    not: bool,
    mass: f64,
}

/// The threshold of a suggestion (the default was chosen on the tuning split).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The confidence (see [`Evidence::confidence`]) the best runbook needs for anything to be
    /// listed.
    pub min_confidence: f64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            min_confidence: MIN_CONFIDENCE,
        }
    }
}

/// What a runbook's suggestion rests on: the inputs of its confidence.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Evidence {
    /// The similarity (0..1) of its most similar line ...
    pub best: f64,
    /// ... and of the next three, summed.
    pub support: f64,
    /// The looked-up lines whose most similar runbook this is.
    pub wins: usize,
    /// The informative words (not [`GENERIC`]) of its most similar line.
    pub informative: usize,
    /// The looked-up lines with any similarity to it.
    pub lines: usize,
    /// Its similarity less the next runbook's ...
    pub margin: f64,
    /// ... and the next runbook's similarity.
    pub second: f64,
}

impl Evidence {
    /// The inputs of [`CONFIDENCE`], in its order (counts on a log scale).
    pub fn features(&self) -> [f64; FEATURES] {
        [
            self.best,
            self.support,
            (self.wins as f64).ln_1p(),
            self.informative as f64,
            (self.lines as f64).ln_1p(),
            self.margin,
            self.second,
        ]
    }

    /// How likely (0..1) the runbook is the paste's cause: a logistic model of the evidence,
    /// fitted on the tuning split held out (see [`CONFIDENCE`]).
    pub fn confidence(&self) -> f64 {
        logistic(&CONFIDENCE, &self.features())
    }
}

/// A logistic model's probability for `features`: `model` is its bias and weights.
pub fn logistic(model: &(f64, [f64; FEATURES]), features: &[f64; FEATURES]) -> f64 {
    let (bias, weights) = model;
    let z = bias
        + weights
            .iter()
            .zip(features)
            .map(|(w, x)| w * x)
            .sum::<f64>();
    1.0 / (1.0 + (-z).exp())
}

/// The inputs of the confidence: [`Evidence::features`].
pub const FEATURES: usize = 7;

/// The index, inverted: for each term the runbooks use, its weight, the real log lines that
/// have it and the runbooks whose prose has it. A query line then meets only the lines it shares
/// a term with, instead of every line of every runbook. Flat sorted arrays, not maps: the index
/// is read back from `.lore/similar.cache` by every `lore match`, and arrays read back in one
/// pass where maps are rebuilt entry by entry.
pub struct SimilarIndex {
    runbooks: usize,
    /// Every term some runbook has, sorted (looked up by binary search).
    terms: Vec<Term>,
    /// Per term: its weight ...
    weights: Vec<f64>,
    /// ... the end of its run in `postings` (the start is the previous term's end) ...
    line_ends: Vec<u32>,
    /// ... and the end of its run in `prose`.
    prose_ends: Vec<u32>,
    /// Indices into `lines`.
    postings: Vec<u32>,
    /// Indices of runbooks.
    prose: Vec<u32>,
    lines: Vec<KnownLine>,
    /// The weight of a word no runbook has.
    unknown: f64,
}

/// What a query line's scoring writes to, kept between lines (sized once per paste).
struct Scratch {
    /// Per known line: the weight of the terms it shares with the query (0: none).
    shared: Vec<f64>,
    /// The known lines `shared` is not 0 for.
    touched: Vec<u32>,
    /// Per runbook: the weight of the query's terms its prose has ...
    prose: Vec<f64>,
    /// ... its best real line ...
    best_line: Vec<f64>,
    /// ... and its best counterexample.
    best_not: Vec<f64>,
}

/// Reads the arrays of [`SimilarIndex::to_bytes`] from the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// `n` records of `size` bytes each.
    fn take(&mut self, n: usize, size: usize) -> Option<std::slice::ChunksExact<'a, u8>> {
        let (head, tail) = self.0.split_at_checked(n.checked_mul(size)?)?;
        self.0 = tail;
        Some(head.chunks_exact(size))
    }

    fn u64s(&mut self, n: usize) -> Option<impl Iterator<Item = u64> + 'a> {
        Some(self.take(n, 8)?.map(|c| u64_at(c, 0)))
    }

    /// A length: one `u64`, no larger than what is left to read.
    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.u64s(1)?.next()?).ok()?;
        (n <= self.0.len()).then_some(n)
    }
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// The weight of a term no runbook's prose or real line has (`unknown`: the weight of a
/// document frequency of 0).
fn unknown_weight(t: Term, unknown: f64) -> f64 {
    if t & PAIR != 0 {
        // A pair no runbook has tells nothing either way: its words already count.
        0.0
    } else if is_generic(t) {
        // As rare as can be, but generic words stay cheap.
        unknown * 0.25
    } else {
        unknown
    }
}

/// The first bytes of [`SimilarIndex::to_bytes`], naming its layout.
const MAGIC: &[u8] = b"LORESIM3";

/// One runbook suggested for a paste.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// Index of the runbook in the slice the index was built from.
    pub runbook: usize,
    /// Its confidence (0..1): [`Evidence::confidence`].
    pub score: f64,
    /// Its similarity to the paste (0..1): the best line's, plus a tenth of the next three's.
    pub similarity: f64,
    /// What the confidence rests on.
    pub evidence: Evidence,
    /// Indices (into the lines given) of the lines that led to it, best first.
    pub lines: Vec<usize>,
}

/// The terms of a text worth comparing: lowercase words and identifiers, not numbers, hex,
/// addresses or one-letter parts. In text order, possibly repeated.
fn terms(text: &str) -> Vec<Term> {
    let worth = |t: &str| {
        let (mut letters, mut digits, mut chars, mut cjk) = (0, 0, 0, false);
        for c in t.chars() {
            chars += 1;
            letters += usize::from(c.is_alphabetic());
            digits += usize::from(c.is_ascii_digit());
            cjk |= crate::search::tokenizer::is_cjk(c);
        }
        (cjk || letters >= 2) && digits * 2 <= chars && !looks_hex(t)
    };
    // An identifier made of generic words only (systemd's `code=exited`, `status=1/FAILURE`)
    // says no more than its parts, which are terms of their own.
    let generic_compound = |t: &str| {
        t.contains(crate::search::tokenizer::is_joiner)
            && t.split(crate::search::tokenizer::is_joiner)
                .filter(|p| worth(p))
                .all(|p| is_generic(term(p) & !PAIR))
    };
    let words: Vec<Term> = tokenize(text)
        .iter()
        .map(|t| t.text.as_str())
        .filter(|t| worth(t) && !generic_compound(t))
        .map(|t| term(t) & !PAIR)
        .collect();
    // Runs of words too: pairs adjacent and one apart, triples and quadruples adjacent. A phrase
    // ("fell off", "out of memory", "fallen off the bus") says more than its words in any order.
    let run = |kind: u64, words: &[Term]| {
        let all_generic = words.iter().all(|&w| is_generic(w));
        run(kind, words, all_generic)
    };
    let mut all = Vec::with_capacity(5 * words.len());
    all.extend_from_slice(&words);
    all.extend(words.windows(2).map(|w| run(1, w)));
    all.extend(words.windows(3).map(|w| run(2, &[w[0], w[2]])));
    all.extend(words.windows(3).map(|w| run(3, w)));
    all.extend(words.windows(4).map(|w| run(4, w)));
    all
}

/// The terms of [`GENERIC`], sorted.
fn generic_terms() -> &'static [Term] {
    static GENERIC_TERMS: std::sync::OnceLock<Vec<Term>> = std::sync::OnceLock::new();
    GENERIC_TERMS.get_or_init(|| {
        let mut generic: Vec<Term> = GENERIC.iter().map(|g| term(g) & !PAIR).collect();
        generic.sort_unstable();
        generic.dedup();
        generic
    })
}

/// The term of a run of words: their hashes mixed in order, starting from `kind` (so that a pair
/// one apart is not the adjacent pair of the same words), with the [`PAIR`] bit (not a word) and
/// the [`GENERIC_RUN`] bit when every word of it is generic.
fn run(kind: u64, words: &[Term], all_generic: bool) -> Term {
    let h = words.iter().fold(kind, |h, &w| {
        (h.rotate_left(23) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }) & !GENERIC_RUN;
    if all_generic {
        h | PAIR | GENERIC_RUN
    } else {
        h | PAIR
    }
}

/// The bit that marks a term as a run of words (a pair, triple or quadruple).
const PAIR: Term = 1 << 63;
/// With [`PAIR`]: a run of generic words only ("no such file or directory", "could not"), which
/// says no more than its words do.
const GENERIC_RUN: Term = 1 << 62;

/// A term weighs a quarter of its rarity: a generic word, or a run of generic words.
fn is_generic(t: Term) -> bool {
    if t & PAIR != 0 {
        t & GENERIC_RUN != 0
    } else {
        generic_terms().binary_search(&t).is_ok()
    }
}

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
        // Where each term is: (term, line) and (term, runbook) pairs, sorted by term.
        let mut in_lines: Vec<(Term, u32)> = Vec::new();
        let mut in_prose: Vec<(Term, u32)> = Vec::new();
        let mut lines: Vec<KnownLine> = Vec::new();
        for (r, k) in known.iter().enumerate() {
            in_prose.extend(k.prose.iter().map(|&t| (t, r as u32)));
            for (line, not) in k
                .lines
                .iter()
                .map(|l| (l, false))
                .chain(k.not.iter().map(|l| (l, true)))
            {
                let id = lines.len() as u32;
                in_lines.extend(line.terms.iter().map(|&t| (t, id)));
                lines.push(KnownLine {
                    runbook: r as u32,
                    not,
                    mass: 0.0,
                });
            }
        }
        in_lines.sort_unstable();
        in_prose.sort_unstable();
        // A term's document frequency: the runbooks that have it, in prose or in a real line.
        // Counterexamples do not count: a term only they have weighs what an unknown one does.
        let mut df: TermMap<u32> = TermMap::default();
        let mut seen: TermSet = TermSet::default();
        for k in &known {
            seen.clear();
            seen.extend(k.prose.iter().copied());
            seen.extend(k.lines.iter().flat_map(|l| l.terms.iter().copied()));
            for &t in &seen {
                *df.entry(t).or_insert(0) += 1;
            }
        }
        // A term's weight: its rarity across the runbooks (a word every runbook uses, or one
        // none uses, tells little about which one), a quarter of it for generic log words.
        let n = known.len().max(1) as f64;
        let idf = |df: u32| (1.0 + n / (df as f64 + 1.0)).ln();
        let mut terms: Vec<Term> = in_lines.iter().chain(&in_prose).map(|p| p.0).collect();
        terms.sort_unstable();
        terms.dedup();
        let weights: Vec<f64> = terms
            .iter()
            .map(|t| match df.get(t) {
                Some(&df) if is_generic(*t) => idf(df) * 0.25,
                Some(&df) => idf(df),
                None => unknown_weight(*t, idf(0)),
            })
            .collect();
        // Where each term's run ends in the sorted pairs.
        let ends = |pairs: &[(Term, u32)]| -> Vec<u32> {
            terms
                .iter()
                .map(|&t| pairs.partition_point(|p| p.0 <= t) as u32)
                .collect()
        };
        let (line_ends, prose_ends) = (ends(&in_lines), ends(&in_prose));
        let mut index = SimilarIndex {
            runbooks: known.len(),
            terms,
            weights,
            line_ends,
            prose_ends,
            postings: in_lines.into_iter().map(|(_, l)| l).collect(),
            prose: in_prose.into_iter().map(|(_, r)| r).collect(),
            lines: Vec::new(),
            unknown: idf(0),
        };
        // Each line's mass, its lines visited in the order `lines` was built in.
        let known_lines = known.iter().flat_map(|k| k.lines.iter().chain(&k.not));
        for (line, known) in lines.iter_mut().zip(known_lines) {
            line.mass = known.terms.iter().map(|&t| index.find(t).0).sum();
        }
        index.lines = lines;
        index
    }

    /// The index as bytes, for `.lore/similar.cache`: a few arrays of numbers, read back in a
    /// fraction of the time building takes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::from(MAGIC);
        let put = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u64).to_le_bytes());
        put(&mut out, self.runbooks);
        out.extend_from_slice(&self.unknown.to_le_bytes());
        put(&mut out, self.terms.len());
        for (k, &t) in self.terms.iter().enumerate() {
            out.extend_from_slice(&t.to_le_bytes());
            out.extend_from_slice(&self.weights[k].to_le_bytes());
            out.extend_from_slice(&self.line_ends[k].to_le_bytes());
            out.extend_from_slice(&self.prose_ends[k].to_le_bytes());
        }
        for ids in [&self.postings, &self.prose] {
            put(&mut out, ids.len());
            ids.iter()
                .for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
        }
        put(&mut out, self.lines.len());
        for line in &self.lines {
            out.extend_from_slice(&line.mass.to_le_bytes());
            out.extend_from_slice(&(line.runbook | u32::from(line.not) << 31).to_le_bytes());
        }
        out
    }

    /// Reads [`SimilarIndex::to_bytes`]; `None` for anything else, or for arrays that do not
    /// fit together (the caller builds anew).
    pub fn from_bytes(bytes: &[u8]) -> Option<SimilarIndex> {
        let mut r = Reader(bytes.strip_prefix(MAGIC)?);
        let runbooks = r.count()?;
        let unknown = f64::from_bits(r.u64s(1)?.next()?);
        let n = r.count()?;
        let (mut terms, mut weights) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut line_ends, mut prose_ends) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for row in r.take(n, 24)? {
            terms.push(u64_at(row, 0));
            weights.push(f64::from_bits(u64_at(row, 8)));
            line_ends.push(u32_at(row, 16));
            prose_ends.push(u32_at(row, 20));
        }
        let n = r.count()?;
        let postings = r.take(n, 4)?.map(|c| u32_at(c, 0)).collect();
        let n = r.count()?;
        let prose = r.take(n, 4)?.map(|c| u32_at(c, 0)).collect();
        let n = r.count()?;
        let lines = r
            .take(n, 12)?
            .map(|c| {
                let who = u32_at(c, 8);
                KnownLine {
                    mass: f64::from_bits(u64_at(c, 0)),
                    runbook: who & !(1 << 31),
                    not: who >> 31 == 1,
                }
            })
            .collect();
        if !r.0.is_empty() {
            return None;
        }
        let index = SimilarIndex {
            runbooks,
            terms,
            weights,
            line_ends,
            prose_ends,
            postings,
            prose,
            lines,
            unknown,
        };
        index.consistent().then_some(index)
    }

    /// Whether every index points inside its array (a cache from elsewhere could say anything;
    /// a query must not panic on it).
    fn consistent(&self) -> bool {
        let ends_ok = |ends: &[u32], len: usize| {
            ends.windows(2).all(|w| w[0] <= w[1]) && ends.last().is_none_or(|&e| e as usize == len)
        };
        self.terms.windows(2).all(|w| w[0] < w[1])
            && ends_ok(&self.line_ends, self.postings.len())
            && ends_ok(&self.prose_ends, self.prose.len())
            && self
                .postings
                .iter()
                .all(|&l| (l as usize) < self.lines.len())
            && self.prose.iter().all(|&r| (r as usize) < self.runbooks)
            && self
                .lines
                .iter()
                .all(|l| (l.runbook as usize) < self.runbooks)
    }

    /// How much a term tells about which runbook a line is about, and where it is in the index.
    fn find(&self, t: Term) -> (f64, Option<usize>) {
        match self.terms.binary_search(&t) {
            Ok(k) => (self.weights[k], Some(k)),
            Err(_) => (unknown_weight(t, self.unknown), None),
        }
    }

    /// The confidence (0..1) of each runbook for one line's terms, into `scores`. Only the
    /// lines that share a term with the query are visited.
    fn line_scores(&self, query: &LogLine, scratch: &mut Scratch, scores: &mut [f64]) {
        scores.fill(0.0);
        let Scratch {
            shared,
            touched,
            prose,
            best_line,
            best_not,
        } = scratch;
        let mut mass = 0.0;
        for &t in &query.terms {
            let (w, at) = self.find(t);
            mass += w;
            // A term that weighs nothing (a run only counterexamples have) adds to no line.
            let Some(k) = at.filter(|_| w > 0.0) else {
                continue;
            };
            let from = if k == 0 { 0 } else { self.line_ends[k - 1] } as usize;
            for &l in &self.postings[from..self.line_ends[k] as usize] {
                if shared[l as usize] == 0.0 {
                    touched.push(l);
                }
                shared[l as usize] += w;
            }
            let from = if k == 0 { 0 } else { self.prose_ends[k - 1] } as usize;
            for &r in &self.prose[from..self.prose_ends[k] as usize] {
                prose[r as usize] += w;
            }
        }
        if mass > 0.0 {
            for &l in touched.iter() {
                let line = &self.lines[l as usize];
                // A real line: the weighted Dice coefficient of the two term sets.
                let dice = 2.0 * shared[l as usize] / (mass + line.mass);
                let best = if line.not {
                    &mut *best_not
                } else {
                    &mut *best_line
                };
                let r = line.runbook as usize;
                best[r] = best[r].max(dice);
            }
            for (r, score) in scores.iter_mut().enumerate() {
                // A line like one the runbook's signatures must not match is not this cause.
                if best_not[r] >= 0.6 && best_not[r] >= best_line[r] {
                    continue;
                }
                *score = best_line[r].max(PROSE * prose[r] / mass);
            }
        }
        for &l in touched.iter() {
            shared[l as usize] = 0.0;
        }
        touched.clear();
        prose.fill(0.0);
        best_line.fill(0.0);
        best_not.fill(0.0);
    }

    /// The runbooks `lines` point to, best first, each with the lines that led to it. Nothing
    /// unless the most similar runbook's confidence clears `params`; then the others whose
    /// similarity is within [`RUNNERS_WITHIN`] of it and at least [`RUNNERS_FLOOR`].
    /// `exclude`: runbooks already found by a signature (left out before ranking, so they neither
    /// show nor count as the runner-up).
    pub fn suggest(&self, lines: &[&str], exclude: &[usize], params: Params) -> Vec<Suggestion> {
        let mut per_runbook: Vec<Vec<(f64, usize)>> = vec![Vec::new(); self.runbooks];
        let mut scratch = Scratch {
            shared: vec![0.0; self.lines.len()],
            touched: Vec::new(),
            prose: vec![0.0; self.runbooks],
            best_line: vec![0.0; self.runbooks],
            best_not: vec![0.0; self.runbooks],
        };
        let mut scores = vec![0.0; self.runbooks];
        // Per runbook: the lines it is the most similar runbook of.
        let mut wins = vec![0usize; self.runbooks];
        // Per line looked up: its informative words.
        let mut informative = vec![0usize; lines.len().min(MAX_LINES)];
        for (i, line) in lines.iter().take(MAX_LINES).enumerate() {
            let query = LogLine::new(terms(line));
            informative[i] = query.informative_words();
            if informative[i] < MIN_TERMS {
                continue;
            }
            self.line_scores(&query, &mut scratch, &mut scores);
            // The last of equal bests, as the model was fitted with.
            if let Some((r, _)) = scores
                .iter()
                .enumerate()
                .filter(|(_, s)| **s > 0.0)
                .max_by(|a, b| a.1.total_cmp(b.1))
            {
                wins[r] += 1;
            }
            for (r, &score) in scores.iter().enumerate() {
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
                let (best, line) = *scores.first()?;
                // Other lines that agree add a little, never past 1.
                let support: f64 = scores.iter().skip(1).take(3).map(|s| s.0).sum();
                let similarity = (best + 0.1 * support).min(1.0);
                Some(Suggestion {
                    runbook: r,
                    score: 0.0,
                    similarity: (similarity * 1000.0).round() / 1000.0,
                    evidence: Evidence {
                        best,
                        support,
                        wins: wins[r],
                        informative: informative[line],
                        lines: scores.len(),
                        margin: 0.0,
                        second: 0.0,
                    },
                    lines: scores
                        .iter()
                        .take_while(|s| s.0 >= best * 0.8)
                        .map(|s| s.1)
                        .take(5)
                        .collect(),
                })
            })
            .collect();
        ranked.sort_by(|a, b| {
            b.similarity
                .total_cmp(&a.similarity)
                .then(a.runbook.cmp(&b.runbook))
        });
        let Some(first) = ranked.first() else {
            return Vec::new();
        };
        // The others: close enough to the best, and with a similarity of their own.
        let floor = (first.similarity - RUNNERS_WITHIN).max(RUNNERS_FLOOR);
        let listed = ranked
            .iter()
            .enumerate()
            .take_while(|(k, s)| *k == 0 || s.similarity >= floor)
            .take(MAX_SUGGESTIONS)
            .count();
        // Each listed runbook's lead over the next one (the next need not be listed).
        for k in 0..listed {
            let second = ranked.get(k + 1).map_or(0.0, |s| s.similarity);
            let s = &mut ranked[k];
            s.evidence.second = second;
            s.evidence.margin = s.similarity - second;
        }
        // The model was fitted on the most similar runbook: its confidence is the list's. The
        // others show it scaled by their similarity to the best's (so the list reads in order).
        let confidence = ranked[0].evidence.confidence();
        if confidence < params.min_confidence {
            return Vec::new();
        }
        let top = ranked[0].similarity.max(f64::MIN_POSITIVE);
        ranked.truncate(listed);
        for s in &mut ranked {
            s.score = (confidence * (s.similarity / top).min(1.0) * 1000.0).round() / 1000.0;
        }
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No threshold: every runbook a line resembles is listed.
    const FREE: Params = Params {
        min_confidence: 0.0,
    };

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
        // Arrays that fit in length but point outside each other (a runbook count of 1).
        let mut lying = bytes.clone();
        lying[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&1u64.to_le_bytes());
        assert!(SimilarIndex::from_bytes(&lying).is_none());
        assert!(SimilarIndex::from_bytes(MAGIC).is_none());
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
            FREE,
        );
        assert_eq!(got.first().map(|s| s.runbook), Some(1), "{got:?}");
        assert!(
            got[0].similarity > got.get(1).map_or(0.0, |s| s.similarity),
            "{got:?}"
        );
    }

    #[test]
    fn a_line_of_one_telling_word_is_not_looked_up() {
        let trace = parsed(
            "kernel-trace",
            "---\ntitle: A kernel call trace\nseverity: high\n---\n## Symptoms\nThe kernel prints a Call Trace: after the oops.\n",
        );
        let index = SimilarIndex::new(&[trace], &[]);
        // "call" is a generic log word: the line says no more than "trace".
        assert!(
            index
                .suggest(&["[ 1599.033579] Call Trace:"], &[], FREE)
                .is_empty()
        );
        let got = index.suggest(&["kernel oops with a call trace"], &[], FREE);
        assert_eq!(got.first().map(|s| s.runbook), Some(0), "{got:?}");
    }

    #[test]
    fn a_refused_permission_or_an_uncaught_exception_alone_is_not_looked_up() {
        let selinux = parsed(
            "selinux",
            "---\ntitle: SELinux denies the container access to the GPU\nseverity: high\n---\n## Symptoms\nAccess is denied: permission denied on /dev/nvidia0; terminate called after throwing an instance of std::system_error.\n",
        );
        let index = SimilarIndex::new(&[selinux], &[]);
        // Windows' text for error 5, any refused permission and C++'s wrapper of any uncaught
        // exception say nothing of which cause (tuning negatives: a data loader's file
        // permissions on Windows, a lock file at /).
        for line in [
            "Access is denied.",
            "Permission denied",
            "terminate called after throwing an instance of",
        ] {
            assert!(index.suggest(&[line], &[], FREE).is_empty(), "{line}");
        }
        let got = index.suggest(&["avc: denied for /dev/nvidia0 by selinux"], &[], FREE);
        assert_eq!(got.first().map(|s| s.runbook), Some(0), "{got:?}");
    }

    #[test]
    fn generic_words_in_a_run_or_an_identifier_say_no_more_than_alone() {
        let library =
            crate::library::Library::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
                .expect("the shipped library");
        let index = SimilarIndex::new(&library.runbooks, &library.incidents);
        // gdb's missing source file (a tuning negative) shares only ENOENT's words, and their
        // runs, with the container hook's "cannot open shared object file: no such file or
        // directory": it had been suggested at 0.58.
        let gdb = "360     ../Modules/gcmodule.c: No such file or directory.";
        let got = index.suggest(&[gdb], &[], Params::default());
        assert!(got.is_empty(), "{got:?}");
        // So does an identifier of generic words: systemd's status of any failed unit (a
        // tuning negative's nvidia-powerd) had been the fabric manager's at 0.73.
        let unit = "   Main PID: 1031 (code=exited, status=1/FAILURE)";
        let got = index.suggest(&[unit], &[], Params::default());
        assert!(got.is_empty(), "{got:?}");
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
