//! Compiling every runbook's signatures into one matcher: the required literals of all patterns go
//! into one Aho-Corasick automaton; each regex is compiled the first time a line needs it.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::{RegexSet, RegexSetBuilder};

use super::cache::{Literals, PatternCache};
use super::condition::{Condition, capture_names};
use super::literal::{also_required, required_literals};
use super::portable;
pub(crate) use super::prefilter::Prefilter;
use crate::doc::{Runbook, SignatureSpec};

/// Compiled program size allowed for one pattern; bigger patterns are refused.
const SIZE_LIMIT: usize = 2 << 20;
/// Lazy-DFA cache allowed for one pattern (sets get four times as much). A cache fills as it
/// meets new text and stays full, one per pattern and direction: at 2 MiB each, a thousand
/// patterns let a 2 GB input grow the process to 79 MB; at 32 KiB, 63 MB. Patterns run only on
/// candidate lines (few, short), so a small cache that is cleared and refilled costs nothing
/// measurable (and a pattern too big for it runs on the regex crate's other engines).
const DFA_SIZE_LIMIT: usize = 32 << 10;
/// A line that is a candidate for this many single-line signatures is tried with a set.
pub const SET_MIN: usize = 6;
/// Sets kept per engine (each distinct list of signatures is one).
const MAX_SETS: usize = 256;
/// Longest pattern text accepted.
const MAX_PATTERN_LEN: usize = 8 << 10;

/// Words that make a line look like trouble; lines with them that no signature explains are shown as
/// "unexplained". Lowercase; matched ASCII case-insensitively.
pub const ERROR_WORDS: &[&str] = &[
    "error",
    "fail",
    "fatal",
    "panic",
    "bug:",
    "call trace",
    "xid",
    "nvrm",
    "timeout",
    "timed out",
    "refused",
    "denied",
    "segfault",
    "oops",
    "exception",
    "traceback",
    "abort",
    "killed",
    "unable to",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "not found",
    "hardware error",
    "corrupt",
    "hung",
    "lockup",
    "stuck",
    "unreachable",
    "mismatch",
    "nccl warn",
    "out of memory",
    "no space left",
    "i/o error",
    "invalid",
    " fault",
    "too old",
    "not detected",
    "unsupported",
    "not supported",
    "no such",
    "missing",
    "insufficient",
    "exceeded",
    "rejected",
    "unavailable",
    "not responding",
    "no cuda",
    // The OOM killer names no error in words of its own ("python invoked oom-killer", "Reason:
    // OOMKilled"), nor does the driver when a GPU drops off the bus. (The hung-task report's
    // "blocked for more than" is left out: held out, its lines' most similar runbook was
    // filesystem-io-error for 20 tuning cases and hung-task-io-stall for none.)
    "oom-kill",
    "oom_kill",
    "oomkill",
    "oom_reaper",
    "fallen off the bus",
    "fell off the bus",
    // A shell, coreutils or glibc in a Chinese locale (zh_CN catalogues): 错误 (error: 段错误,
    // 总线错误, 输入/输出错误), 失败 (failed), 超时 (timed out), 无法 (cannot), 已杀死 (Killed),
    // 核心已转储 (core dumped), 没有那个 (no such file / device), 设备上没有空间 (no space left),
    // 权限不够 (permission denied), 拒绝 (refused), 未找到 (not found), 不支持 (not supported),
    // 内存不足 (out of memory), 异常 (exception), 已放弃 (Aborted).
    "错误",
    "失败",
    "超时",
    "无法",
    "已杀死",
    "核心已转储",
    "没有那个",
    "设备上没有空间",
    "权限不够",
    "拒绝",
    "未找到",
    "不支持",
    "内存不足",
    "异常",
    "已放弃",
];

/// A problem with one signature found while compiling; the signature is skipped.
#[derive(Debug, Clone)]
pub struct CompileProblem {
    pub runbook: usize,
    pub signature: usize,
    pub message: String,
    pub hint: Option<String>,
}

/// One usable signature.
#[derive(Debug)]
pub struct Sig {
    pub runbook: usize,
    /// Index into the runbook's `signatures`.
    pub spec: usize,
    pub id: String,
    pub pattern: String,
    pub lines: usize,
    pub weight: f64,
    /// The literals one of which every match contains (lowercase; empty: none, the pattern is
    /// tried on every line): its specificity, and `lore check`'s measure of how often the regex
    /// would run on ordinary text.
    pub required: Vec<Vec<u8>>,
    /// Further literal sets a matching line must contain one of each (lowercase; checked ignoring
    /// ASCII case before the regex is tried).
    pub also: Vec<Vec<Vec<u8>>>,
    /// The comparison of its captures a match must satisfy (`when:`).
    pub when: Option<Condition>,
    regex: OnceLock<Option<SigRegex>>,
}

impl Sig {
    /// The compiled regex; `None` if it cannot be compiled within the limits.
    pub fn regex(&self) -> Option<&SigRegex> {
        self.regex
            .get_or_init(|| build_regex(&self.pattern).ok())
            .as_ref()
    }

    /// In [0.5, 1]: how specific the pattern is (long literal text counts more than
    /// wildcards). Worked out when a ranking asks, for the few signatures that matched.
    pub fn specificity(&self) -> f64 {
        let shortest = self.required.iter().map(Vec::len).min().unwrap_or(0);
        specificity(&self.pattern, shortest)
    }

    /// Whether the pattern has a literal the prefilter can find.
    pub fn has_literal(&self) -> bool {
        !self.required.is_empty()
    }

    /// Whether one match's captures satisfy the signature's `when:` (always, without one).
    pub fn accepts(&self, captures: &[(String, String)]) -> bool {
        self.when.as_ref().is_none_or(|when| {
            when.holds(|name| {
                captures
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.as_str())
            })
        })
    }

    /// Whether [`Sig::regex`] has been called already.
    pub fn compiled(&self) -> bool {
        self.regex.get().is_some()
    }
}

/// A signature's `when:`, parsed and checked against the names the pattern captures.
fn condition_of(text: &str, pattern: &str) -> Result<Condition, (String, String)> {
    let when = Condition::parse(text).map_err(|e| {
        (
            e,
            "write one comparison of captures and numbers, e.g. `allocatable < capacity` or `a < 0.5 * b`".to_string(),
        )
    })?;
    let names = capture_names(pattern);
    if let Some(missing) = when.names().find(|n| !names.contains(n)) {
        return Err((
            format!("`when: {text}` reads `{missing}`, which the pattern does not capture"),
            format!(
                "name a group of the pattern: {}",
                if names.is_empty() {
                    "it has none; capture a number with `(?P<name>\\d+)`".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ));
    }
    Ok(when)
}

/// A signature's regex, as every scan, `lore check` and the editor's test run it.
pub fn build_regex(pattern: &str) -> Result<SigRegex, regex::Error> {
    without_prefilter(
        &ascii_classes(pattern),
        regex_automata::util::syntax::Config::new(),
        SIZE_LIMIT,
        DFA_SIZE_LIMIT,
    )
    .map(|meta| SigRegex { meta })
}

/// `pattern` compiled as the regex crate compiles a `Regex` (or, when `syntax` is not UTF-8, a
/// `bytes::Regex`): leftmost-first, with the given program size limit and lazy-DFA cache, but
/// without the regex's own literal prefilter. Signatures and `lore env`'s rules both run only
/// on lines that a literal search has already picked, where the prefilter saves nothing, while
/// building it was a third of compiling the shipped patterns (61 ms for the 623 of them, 43 ms
/// without it). Its errors are the regex crate's, as `lore check` has always reported them.
pub(crate) fn without_prefilter(
    pattern: &str,
    syntax: regex_automata::util::syntax::Config,
    size_limit: usize,
    cache: usize,
) -> Result<regex_automata::meta::Regex, regex::Error> {
    use regex_automata::{MatchKind, meta};
    let config = meta::Config::new()
        .match_kind(MatchKind::LeftmostFirst)
        .utf8_empty(syntax.get_utf8())
        .nfa_size_limit(Some(size_limit))
        .hybrid_cache_capacity(cache)
        .auto_prefilter(false);
    meta::Builder::new()
        .configure(config)
        .syntax(syntax)
        .build(pattern)
        .map_err(|e| match (e.size_limit(), e.syntax_error()) {
            (Some(limit), _) => regex::Error::CompiledTooBig(limit),
            (None, Some(syntax)) => regex::Error::Syntax(syntax.to_string()),
            (None, None) => regex::Error::Syntax(e.to_string()),
        })
}

/// A compiled signature pattern (see [`build_regex`]).
#[derive(Debug, Clone)]
pub struct SigRegex {
    meta: regex_automata::meta::Regex,
}

/// One match of a [`SigRegex`] in a haystack, with its groups.
pub struct SigMatch<'h> {
    haystack: &'h str,
    caps: regex_automata::util::captures::Captures,
}

impl SigRegex {
    pub fn is_match(&self, haystack: &str) -> bool {
        self.meta.is_match(haystack)
    }

    /// The leftmost-first match, if any.
    pub fn captures<'h>(&self, haystack: &'h str) -> Option<SigMatch<'h>> {
        let mut caps = self.meta.create_captures();
        self.meta.captures(haystack, &mut caps);
        caps.is_match().then_some(SigMatch { haystack, caps })
    }

    /// Every match, left to right, not overlapping.
    pub fn captures_iter<'r, 'h: 'r>(
        &'r self,
        haystack: &'h str,
    ) -> impl Iterator<Item = SigMatch<'h>> + 'r {
        self.meta
            .captures_iter(haystack)
            .map(move |caps| SigMatch { haystack, caps })
    }

    /// The names of the pattern's named groups, in order.
    pub fn capture_names(&self) -> impl Iterator<Item = &str> {
        self.meta
            .group_info()
            .pattern_names(regex_automata::PatternID::ZERO)
            .flatten()
    }
}

impl<'h> SigMatch<'h> {
    /// Where the whole match starts and ends in the haystack.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.caps.get_match().map_or(0..0, |m| m.range())
    }

    /// The text of the group `name`, if it took part in the match.
    pub fn name(&self, name: &str) -> Option<&'h str> {
        self.caps
            .get_group_by_name(name)
            .map(|span| &self.haystack[span.range()])
    }
}

/// `pattern` with `\d`, `\w`, `\D` and `\W` (alone or in a bracketed class) written as the ASCII
/// classes they are in RE2, where `lore export` runs the same patterns: `[0-9]` and
/// `[0-9A-Za-z_]`, and their complements. In the regex crate's Unicode mode they also take every
/// script's digits and letters, which no log line needs, and they are most of what compiling a
/// pattern costs: over the shipped library's 601 patterns, 98 ms with Unicode classes and 59 ms
/// with ASCII ones (`\s`, `\b` and `.` stay as they are). A pattern that does not parse is
/// returned as it is, for the regex crate to report.
pub fn ascii_classes(pattern: &str) -> std::borrow::Cow<'_, str> {
    use regex_syntax::ast;
    use std::borrow::Cow;

    fn kind(perl: &ast::ClassPerl) -> Option<ast::ClassAsciiKind> {
        match perl.kind {
            ast::ClassPerlKind::Digit => Some(ast::ClassAsciiKind::Digit),
            ast::ClassPerlKind::Word => Some(ast::ClassAsciiKind::Word),
            ast::ClassPerlKind::Space => None,
        }
    }
    fn item(class: &mut ast::ClassSetItem) {
        match class {
            ast::ClassSetItem::Perl(perl) => {
                if let Some(kind) = kind(perl) {
                    *class = ast::ClassSetItem::Ascii(ast::ClassAscii {
                        span: perl.span,
                        kind,
                        negated: perl.negated,
                    });
                }
            }
            ast::ClassSetItem::Bracketed(bracketed) => set(&mut bracketed.kind),
            ast::ClassSetItem::Union(union) => union.items.iter_mut().for_each(item),
            _ => {}
        }
    }
    fn set(class: &mut ast::ClassSet) {
        match class {
            ast::ClassSet::Item(i) => item(i),
            ast::ClassSet::BinaryOp(op) => {
                set(&mut op.lhs);
                set(&mut op.rhs);
            }
        }
    }
    fn rewrite(node: &mut ast::Ast) {
        match node {
            ast::Ast::ClassPerl(perl) => {
                if let Some(kind) = kind(perl) {
                    *node = ast::Ast::class_bracketed(ast::ClassBracketed {
                        span: perl.span,
                        negated: perl.negated,
                        kind: ast::ClassSet::Item(ast::ClassSetItem::Ascii(ast::ClassAscii {
                            span: perl.span,
                            kind,
                            negated: false,
                        })),
                    });
                }
            }
            ast::Ast::ClassBracketed(bracketed) => set(&mut bracketed.kind),
            ast::Ast::Repetition(repetition) => rewrite(&mut repetition.ast),
            ast::Ast::Group(group) => rewrite(&mut group.ast),
            ast::Ast::Alternation(alternation) => alternation.asts.iter_mut().for_each(rewrite),
            ast::Ast::Concat(concat) => concat.asts.iter_mut().for_each(rewrite),
            _ => {}
        }
    }

    if !["\\d", "\\w", "\\D", "\\W"]
        .iter()
        .any(|class| pattern.contains(class))
    {
        return Cow::Borrowed(pattern);
    }
    let Ok(mut parsed) = ast::parse::Parser::new().parse(pattern) else {
        return Cow::Borrowed(pattern);
    };
    rewrite(&mut parsed);
    let mut out = String::with_capacity(pattern.len() + 32);
    match ast::print::Printer::new().print(&parsed, &mut out) {
        Ok(()) => Cow::Owned(out),
        Err(_) => Cow::Borrowed(pattern),
    }
}

/// What a literal found by the automaton stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Sig(u32),
    ErrorWord,
}

/// All signatures of a library, ready to scan.
#[derive(Debug)]
pub struct Engine {
    pub sigs: Vec<Sig>,
    /// Quick to build; used for pastes when there is no prefilter (built on first use).
    automaton: OnceLock<AhoCorasick>,
    /// Faster to search, slower to build: built when an input turns out to be large.
    dfa: OnceLock<AhoCorasick>,
    /// Finds the lines that may hold a literal, at several times the automaton's speed; the
    /// automaton then runs over those lines only. `None` if a literal is too short for it.
    prefilter: Option<Prefilter>,
    pub literals: Vec<Vec<u8>>,
    /// For each automaton pattern: the targets it stands for.
    pub targets: Vec<Vec<Target>>,
    /// Signatures without a useful literal, tried on every line through one set.
    pub(crate) fallback: Vec<u32>,
    pub(crate) fallback_set: Option<RegexSet>,
    /// Lines that are candidates for many signatures at once (a common literal shared by a
    /// family of patterns) are tried with one set per distinct list of signatures, compiled
    /// the first time such a line is seen: one pass instead of one regex per signature.
    sets: std::sync::Mutex<std::collections::HashMap<Vec<u32>, Option<std::sync::Arc<RegexSet>>>>,
    /// The largest `lines` window of any signature.
    pub max_window: usize,
    pub problems: Vec<CompileProblem>,
    /// The pattern analyses of this engine, for the next start-up, if the cache given was not
    /// already exactly that (see [`Engine::with_cache`]).
    pub cache: PatternCache,
}

impl Engine {
    /// Compiles the signatures of `runbooks`. Problems (bad syntax, non-portable syntax, too large)
    /// are collected; the signatures with problems are left out and the rest work.
    pub fn new(runbooks: &[Runbook]) -> Engine {
        Engine::with_cache(runbooks, &PatternCache::default())
    }

    /// Like [`Engine::new`], taking pattern analyses from `cache` where it has them. If it had to
    /// make any (or the cache holds patterns no longer in use), [`Engine::cache`] is the cache to
    /// store, with `is_dirty()`; otherwise it is empty and clean.
    pub fn with_cache(runbooks: &[Runbook], cache: &PatternCache) -> Engine {
        let mut sigs = Vec::new();
        let mut problems = Vec::new();
        let mut literals: Vec<(Vec<u8>, Target)> = ERROR_WORDS
            .iter()
            .map(|w| (w.as_bytes().to_vec(), Target::ErrorWord))
            .collect();
        let mut fallback = Vec::new();
        let mut max_window = 1;
        // Parsing and literal analysis dominate start-up: do them on all cores.
        let specs: Vec<(usize, usize, &SignatureSpec)> = runbooks
            .iter()
            .enumerate()
            .flat_map(|(r, runbook)| {
                runbook
                    .signatures
                    .iter()
                    .enumerate()
                    .map(move |(s, spec)| (r, s, spec))
            })
            .collect();
        sigs.reserve(specs.len());
        // Each analysis, and whether it had to be made (it was not in the cache).
        let analyzed = crate::par::map(&specs, |(_, _, spec)| match cache.get(&spec.pattern) {
            Some(known) if known.required.is_some() || spec.lines == 1 => (Ok(known), false),
            _ => (analyze_pattern(spec), true),
        });
        // The cache to store for next time: none (an empty, clean one) when every pattern was in
        // it and it holds nothing else, which is every start-up after the first. Copying it
        // anyway (thousands of small allocations) and checking each pattern against it took a
        // quarter of a paste's matcher build.
        // Two signatures may share a pattern text (the shipped library has one such pair), so
        // the cache can hold fewer entries than there are signatures and still be exact.
        let all_known = analyzed.iter().all(|(_, made)| !made);
        let (unchanged, mut updated) = if all_known && cache.len() == specs.len() {
            (true, PatternCache::default())
        } else {
            let in_use: std::collections::HashSet<&str> = specs
                .iter()
                .map(|(_, _, spec)| spec.pattern.as_str())
                .collect();
            if all_known && cache.len() == in_use.len() {
                (true, PatternCache::default())
            } else {
                let mut updated = cache.clone();
                updated.retain(|pattern| in_use.contains(pattern));
                (false, updated)
            }
        };
        for ((r, s, spec), (result, _)) in specs.into_iter().zip(analyzed) {
            let analysis = match result {
                Ok(analysis) => analysis,
                Err((message, hint)) => {
                    problems.push(CompileProblem {
                        runbook: r,
                        signature: s,
                        message,
                        hint: Some(hint.to_string()),
                    });
                    continue;
                }
            };
            let when = match spec
                .when
                .as_deref()
                .map(|text| condition_of(text, &spec.pattern))
            {
                None => None,
                Some(Ok(when)) => Some(when),
                Some(Err((message, hint))) => {
                    problems.push(CompileProblem {
                        runbook: r,
                        signature: s,
                        message,
                        hint: Some(hint),
                    });
                    continue;
                }
            };
            if !unchanged && updated.get(&spec.pattern).is_none() {
                updated.insert(spec.pattern.clone(), analysis.clone());
            }
            let Literals {
                required: literal,
                also,
            } = analysis;
            let index = sigs.len() as u32;
            match &literal {
                Some(set) => literals.extend(set.iter().map(|l| (l.clone(), Target::Sig(index)))),
                None => fallback.push(index),
            }
            max_window = max_window.max(spec.lines);
            sigs.push(Sig {
                runbook: r,
                spec: s,
                id: spec.id.clone(),
                pattern: spec.pattern.clone(),
                lines: spec.lines,
                weight: spec.weight,
                required: literal.unwrap_or_default(),
                // Windows are matched over several lines: their literals are checked there.
                also: if spec.lines == 1 { also } else { Vec::new() },
                when,
                regex: OnceLock::new(),
            });
        }
        // Entries equal in full are the same, so the unstable sort gives the stable order.
        literals.sort_unstable();
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut targets: Vec<Vec<Target>> = Vec::new();
        for (literal, target) in literals {
            if patterns.last() == Some(&literal) {
                if let Some(t) = targets.last_mut() {
                    t.push(target);
                }
            } else {
                patterns.push(literal);
                targets.push(vec![target]);
            }
        }
        let prefilter = Prefilter::new(&patterns);
        // Signatures without literals share one set; each one that the set rejects is dropped.
        let fallback_set = if fallback.is_empty() {
            None
        } else {
            let patterns: Vec<_> = fallback
                .iter()
                .map(|&i| ascii_classes(&sigs[i as usize].pattern))
                .collect();
            RegexSetBuilder::new(patterns)
                .size_limit(SIZE_LIMIT * 8)
                .dfa_size_limit(DFA_SIZE_LIMIT * 4)
                .build()
                .ok()
        };
        Engine {
            cache: updated,
            dfa: OnceLock::new(),
            prefilter,
            literals: patterns,
            sigs,
            automaton: OnceLock::new(),
            targets,
            fallback,
            fallback_set,
            sets: Default::default(),
            max_window,
            problems,
        }
    }

    /// The literal automaton, for engines whose literals the prefilter cannot take: the
    /// quick-to-build one for small inputs, the DFA once `large`. Built on first use.
    fn automaton(&self, large: bool) -> &AhoCorasick {
        if large {
            self.dfa
                .get_or_init(|| build_automaton(&self.literals, AhoCorasickKind::DFA))
        } else {
            self.automaton
                .get_or_init(|| build_automaton(&self.literals, AhoCorasickKind::ContiguousNFA))
        }
    }

    /// Where in `hay` the first literal may occur: every literal's first occurrence is on the
    /// line of the position returned or on a later one. `None`: no literal occurs. `tuned` is
    /// the prefilter adapted to the input ([`Engine::tuned_prefilter`]), if there is one.
    pub fn first_literal(
        &self,
        hay: &[u8],
        large: bool,
        tuned: Option<&Prefilter>,
    ) -> Option<usize> {
        match tuned.or(self.prefilter.as_ref()) {
            Some(prefilter) => prefilter.find(hay),
            None => self.automaton(large).find(hay).map(|m| m.start()),
        }
    }

    /// Calls `found` with the index (into `literals`) of every literal occurrence in `line`.
    pub fn each_literal(
        &self,
        line: &[u8],
        large: bool,
        tuned: Option<&Prefilter>,
        mut found: impl FnMut(usize),
    ) {
        match tuned.or(self.prefilter.as_ref()) {
            Some(prefilter) => prefilter.each_literal(line, found),
            None => {
                for m in self.automaton(large).find_overlapping_iter(line) {
                    found(m.pattern().as_usize());
                }
            }
        }
    }

    /// The prefilter with its fingerprints chosen for `sample` (the start of a large input), if
    /// this engine has a prefilter: see [`Prefilter::adapted`].
    pub fn tuned_prefilter(&self, sample: &[u8]) -> Option<Prefilter> {
        self.prefilter.as_ref().map(|p| p.adapted(sample))
    }

    /// The set of the single-line signatures `sigs` (sorted; at least [`SET_MIN`]); `None` if
    /// it cannot be compiled within the limits (then each regex is tried on its own).
    pub fn set_for(&self, sigs: &[u32]) -> Option<std::sync::Arc<RegexSet>> {
        let mut sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(set) = sets.get(sigs) {
            return set.clone();
        }
        if sets.len() >= MAX_SETS {
            return None;
        }
        let set = RegexSetBuilder::new(
            sigs.iter()
                .map(|&s| ascii_classes(&self.sigs[s as usize].pattern)),
        )
        .size_limit(SIZE_LIMIT * 8)
        .dfa_size_limit(DFA_SIZE_LIMIT * 4)
        .build()
        .ok()
        .map(std::sync::Arc::new);
        sets.insert(sigs.to_vec(), set.clone());
        set
    }

    /// Compiles every regex now (normally each is compiled when first needed) and returns the
    /// signatures that fail, with the reason.
    pub fn compile_all(&self) -> Vec<(usize, String)> {
        self.sigs
            .iter()
            .enumerate()
            .filter_map(|(i, sig)| match build_regex(&sig.pattern) {
                Ok(regex) => {
                    let _ = sig.regex.set(Some(regex));
                    None
                }
                Err(e) => {
                    let _ = sig.regex.set(None);
                    Some((i, first_line(&e.to_string()).to_string()))
                }
            })
            .collect()
    }
}

fn build_automaton(literals: &[Vec<u8>], kind: AhoCorasickKind) -> AhoCorasick {
    let builder = |kind| {
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(kind)
            .build(literals)
    };
    builder(Some(kind))
        .or_else(|_| builder(None))
        .expect("a literal automaton always builds")
}

fn first_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| text.lines().next().unwrap_or(text))
}

/// Checks one pattern (length, syntax, portability) and finds its required literals. The error
/// is the problem and a hint.
fn analyze_pattern(spec: &SignatureSpec) -> Result<Literals, (String, &'static str)> {
    if spec.pattern.len() > MAX_PATTERN_LEN {
        return Err((
            format!(
                "pattern is {} bytes long; the limit is {MAX_PATTERN_LEN}",
                spec.pattern.len()
            ),
            "split it into several signatures",
        ));
    }
    // Parse once: the AST for the portability check, then the HIR for the literals.
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(&spec.pattern)
        .map_err(|e| e.to_string());
    let parsed = ast.and_then(|ast| {
        let hir = regex_syntax::hir::translate::Translator::new()
            .translate(&spec.pattern, &ast)
            .map_err(|e| e.to_string())?;
        Ok((ast, hir))
    });
    let (ast, hir) = parsed.map_err(|e| {
        (
            format!("pattern does not compile: {}", first_line(&e)),
            "patterns are Rust `regex` syntax; quote them with single quotes in YAML",
        )
    })?;
    portable::check_ast(&spec.pattern, &ast).map_err(|why| {
        (
            why,
            "patterns must also work in RE2 (export to Loki, node-problem-detector): no look-around, back-references, (?x), class set operations",
        )
    })?;
    let literal = required_literals(&hir);
    if literal.is_none() && spec.lines > 1 {
        return Err((
            "a multi-line signature needs a literal text of 3 or more characters".into(),
            "the scan finds candidate lines by their literal text; add a distinctive word",
        ));
    }
    let also = literal
        .as_deref()
        .map(|primary| also_required(&hir, primary))
        .unwrap_or_default();
    Ok(Literals {
        required: literal,
        also,
    })
}

/// Long literal text makes a signature specific; a short literal plus wildcards much less so.
fn specificity(pattern: &str, literal_len: usize) -> f64 {
    let fixed: usize = pattern
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ')
        .count();
    let score =
        0.5 + (literal_len.min(30) as f64) / 60.0 * 0.6 + (fixed.min(80) as f64) / 80.0 * 0.4 * 0.5;
    score.clamp(0.5, 1.0)
}
