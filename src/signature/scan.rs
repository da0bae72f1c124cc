//! The streaming scan: bytes in, hits and unexplained lines out, in bounded memory.
//!
//! Input is pushed in pieces ([`Scanner::feed`]); complete lines are scanned in chunks with one
//! Aho-Corasick pass for the literals of all signatures (and the error words). Only lines where a
//! literal occurs are cleaned, stripped of their prefix and given to the regexes of the signatures
//! that literal belongs to. Window signatures (`lines: N`) need neighbouring lines, so the last
//! `max_window - 1` lines of a chunk are carried into the next one and window checks near the end of
//! a chunk wait until their lines have arrived.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use memchr::{memchr, memchr_iter, memrchr};

use super::compile::{Engine, Prefilter, SET_MIN, Sig, SigMatch, SigRegex, Target};
use super::normalize::{clean, display, match_text, needs_tidy, tidy, tidy_anyway};

/// Bytes scanned per pass.
const CHUNK: usize = 4 << 20;
/// A line longer than this is scanned in pieces of this size.
const MAX_LINE: usize = 8 << 20;
/// Inputs larger than this are worth building the faster automaton for.
const LARGE_INPUT: u64 = 8 << 20;
/// Regions of a large input at least this large are searched on all cores.
const PARALLEL_MIN: usize = 1 << 20;
/// Pieces a region searched on all cores is cut into.
const PIECES: usize = 8;
/// Hits kept per signature (all are counted).
const MAX_HITS_PER_SIG: usize = 100;
/// How much of a large input's start the prefilter is adapted to (in a simulation on a generated
/// log, half a MiB gave the same pass rate as 4 MiB).
const SAMPLE: usize = 1 << 20;
/// Distinct unexplained lines kept (all are counted).
const MAX_UNEXPLAINED: usize = 50;

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub sig: u32,
    /// 1-based line number of the first line of the match.
    pub line: u64,
    pub last_line: u64,
    /// The original line(s), cleaned, for display.
    pub text: String,
    pub captures: Vec<(String, String)>,
}

#[derive(Debug, Default, Clone)]
pub struct SigHits {
    pub count: u64,
    pub hits: Vec<Hit>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UnexplainedLine {
    pub line: u64,
    pub text: String,
    /// How many lines had this shape.
    pub count: u64,
}

#[derive(Debug, Default)]
pub struct ScanOutput {
    /// Indexed like `Engine::sigs`.
    pub sigs: Vec<SigHits>,
    pub unexplained: Vec<UnexplainedLine>,
    pub unexplained_total: u64,
    pub bytes: u64,
    pub lines: u64,
    /// Lines the literal search stopped at (they hold a literal of a signature or an error
    /// word) and that were then looked at closely: what a scan's speed depends on besides its
    /// size. The benchmark prints it, so that a signature whose literal is common shows.
    pub looked_at: u64,
    /// The whole input, when it is a short paste (at most [`SHORT_PASTE`] bytes).
    pub short: Option<String>,
}

/// Inputs up to this size are also looked at as a whole (a few lines typed from memory).
pub const SHORT_PASTE: usize = 2048;

pub struct Scanner<'e> {
    engine: &'e Engine,
    chunk: usize,
    max_line: usize,
    /// The input is known to be large: use the fast automaton and both cores from the start.
    large: bool,
    /// If set, only these signatures (by index) are tried, and no unexplained lines are kept.
    only: Option<Vec<bool>>,
    /// The prefilter adapted to this input's start, once the input is known to be large (`None`
    /// before that, or if the engine has no prefilter).
    tuned: Option<Prefilter>,
    tuned_yet: bool,
    buf: Window,
    /// Line number of the first line in `buf`.
    base_line: u64,
    /// Bytes of `buf` before this offset were scanned already (kept as window context).
    scanned: usize,
    pending_windows: Vec<(u32, u64)>,
    pending_unexplained: Vec<(u64, String, String)>,
    explained: BTreeSet<u64>,
    last_window_start: HashMap<u32, u64>,
    out: ScanOutput,
    unexplained_index: HashMap<String, usize>,
    /// The first bytes of the input, kept while it may still be a short paste.
    short: Vec<u8>,
}

/// The scanner's bytes: `vec[origin..]`. Scanned bytes are dropped from the front by moving
/// `origin` (the next append moves what is left to the start, a few kept lines); a buffer handed
/// over whole is taken as it is ([`Window::take`]).
#[derive(Default)]
struct Window {
    vec: Vec<u8>,
    origin: usize,
}

impl std::ops::Deref for Window {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.vec[self.origin..]
    }
}

impl Window {
    fn extend_from_slice(&mut self, data: &[u8]) {
        if self.origin > 0 {
            self.vec.drain(..self.origin);
            self.origin = 0;
        }
        // Exactly what is needed: doubling would leave an 8 MiB buffer for a 4 MiB chunk.
        self.vec.reserve_exact(data.len());
        self.vec.extend_from_slice(data);
    }

    fn drop_front(&mut self, n: usize) {
        debug_assert!(n <= self.len());
        self.origin += n;
    }

    /// [`tidy`] (or, with `anyway`, [`tidy_anyway`]) over `self[from..to]`; returns the new end.
    fn tidy(&mut self, from: usize, to: usize, anyway: bool) -> usize {
        let (from, to) = (self.origin + from, self.origin + to);
        let end = if anyway {
            tidy_anyway(&mut self.vec, from, to)
        } else {
            tidy(&mut self.vec, from, to)
        };
        end - self.origin
    }

    /// Makes `buf` (data in `buf[head..]`) the window, with the bytes kept so far copied in front
    /// of its data, and gives back the old buffer; gives `buf` back unchanged if they do not fit.
    fn take(&mut self, mut buf: Vec<u8>, head: usize) -> Result<Vec<u8>, Vec<u8>> {
        let kept = self.len();
        if kept > head || buf.len() < head {
            return Err(buf);
        }
        let origin = head - kept;
        buf[origin..head].copy_from_slice(self);
        self.origin = origin;
        Ok(std::mem::replace(&mut self.vec, buf))
    }
}

struct Candidate {
    start: usize,
    end: usize,
    line: u64,
    sigs: Vec<u32>,
    error_word: bool,
}

impl<'e> Scanner<'e> {
    pub fn new(engine: &'e Engine) -> Scanner<'e> {
        Scanner::with_sizes(engine, CHUNK, MAX_LINE)
    }

    /// A scanner with other chunk and line limits (tests use tiny ones to cross every boundary).
    pub fn with_sizes(engine: &'e Engine, chunk: usize, max_line: usize) -> Scanner<'e> {
        Scanner {
            engine,
            chunk: chunk.max(1),
            max_line: max_line.max(1),
            large: false,
            only: None,
            tuned: None,
            tuned_yet: false,
            buf: Window::default(),
            base_line: 1,
            scanned: 0,
            pending_windows: Vec::new(),
            pending_unexplained: Vec::new(),
            explained: BTreeSet::new(),
            last_window_start: HashMap::new(),
            out: ScanOutput {
                sigs: vec![SigHits::default(); engine.sigs.len()],
                ..ScanOutput::default()
            },
            unexplained_index: HashMap::new(),
            short: Vec::new(),
        }
    }

    /// Restricts the scan to some signatures (for questions like "does this incident's log hit
    /// any signature of these runbooks?"); error-looking lines are then not collected.
    pub fn only(mut self, signatures: impl IntoIterator<Item = u32>) -> Scanner<'e> {
        let mut only = vec![false; self.engine.sigs.len()];
        for s in signatures {
            if let Some(slot) = only.get_mut(s as usize) {
                *slot = true;
            }
        }
        self.only = Some(only);
        self
    }

    /// Tells the scanner how much input to expect (a file's size), so a large input is scanned
    /// on both cores from its first byte.
    pub fn size_hint(&mut self, bytes: u64) {
        self.large |= bytes > LARGE_INPUT;
    }

    /// Adds input; scans whatever complete lines have piled up.
    pub fn feed(&mut self, data: &[u8]) {
        self.count(data);
        self.push(data);
    }

    /// [`Scanner::feed`] with `buf[head..]`, from a buffer the caller gives up: when the lines
    /// the scanner keeps from before fit in the `head` bytes in front of the data, they are
    /// copied there and the buffer is scanned where it is, instead of the data being copied (a
    /// tenth of a large scan's time, on one core). Returns a buffer for the caller to fill next.
    pub fn feed_owned(&mut self, buf: Vec<u8>, head: usize) -> Vec<u8> {
        self.count(&buf[head..]);
        match self.buf.take(buf, head) {
            // A piece is scanned as it comes, whatever its size: kept for a chunk to fill, it
            // would have to be copied when the next one comes.
            Ok(spare) => {
                if self.buf.len() > self.scanned {
                    self.process(false);
                }
                spare
            }
            Err(buf) => {
                self.push(&buf[head..]);
                buf
            }
        }
    }

    /// Counts input bytes, and keeps the start of what may be a short paste.
    fn count(&mut self, data: &[u8]) {
        if self.out.bytes as usize <= SHORT_PASTE {
            let room = SHORT_PASTE + 1 - self.short.len().min(SHORT_PASTE + 1);
            self.short.extend_from_slice(&data[..data.len().min(room)]);
        }
        self.out.bytes += data.len() as u64;
    }

    /// Appends input and scans each chunk as it fills.
    fn push(&mut self, data: &[u8]) {
        for piece in data.chunks(self.chunk) {
            self.buf.extend_from_slice(piece);
            if self.buf.len() - self.scanned >= self.chunk {
                self.process(false);
            }
        }
    }

    /// Scans the complete lines fed so far now, without waiting for a chunk to fill (a live
    /// stream). A window signature whose lines have not all arrived is also tried on the lines
    /// there are, so a message that is complete is reported without waiting for more lines; it
    /// keeps waiting in case they make a match, and one start line is never reported twice.
    pub fn flush(&mut self) {
        if self.buf.len() > self.scanned {
            self.process(false);
        }
        let waiting = self.pending_windows.clone();
        let last_complete_line = self.out.lines;
        for (sig, line) in waiting {
            // `eof` here means "with what is there": nothing is queued again.
            self.try_window(sig, line, None, last_complete_line, true);
        }
    }

    /// Takes the hits recorded so far, in line order; later hits are recorded afresh, so a scanner
    /// on an endless stream that is drained keeps nothing (counts stay in [`SigHits::count`]).
    pub fn take_hits(&mut self) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self
            .out
            .sigs
            .iter_mut()
            .flat_map(|s| std::mem::take(&mut s.hits))
            .collect();
        hits.sort_by_key(|h| (h.line, h.sig));
        hits
    }

    /// What the scanner holds: buffered bytes, kept hits, lines remembered as explained.
    #[cfg(test)]
    pub(crate) fn retained(&self) -> (usize, usize, usize) {
        let hits = self.out.sigs.iter().map(|s| s.hits.len()).sum();
        (self.buf.len(), hits, self.explained.len())
    }

    /// Scans the rest and returns everything found.
    pub fn finish(mut self) -> ScanOutput {
        self.process(true);
        if self.out.bytes as usize <= SHORT_PASTE && self.only.is_none() {
            self.out.short = Some(String::from_utf8_lossy(&self.short).into_owned());
        }
        let mut out = self.out;
        for sig in &mut out.sigs {
            sig.hits.sort_by_key(|h| h.line);
        }
        out
    }

    fn process(&mut self, eof: bool) {
        let region_start = self.scanned;
        let (end, cut) = if eof {
            (self.buf.len(), false)
        } else {
            match memrchr(b'\n', &self.buf[region_start..]) {
                Some(p) => (region_start + p + 1, false),
                None if self.buf.len() - region_start >= self.max_line => {
                    (region_start + self.max_line, true)
                }
                None => return,
            }
        };
        let large = self.large || self.out.bytes > LARGE_INPUT;
        let parallel = large && end - region_start >= PARALLEL_MIN;
        // Only complete lines are tidied, so no text is ever tidied twice. Whether there is
        // anything to tidy is asked on both cores when the region is searched on both.
        let end = if !parallel {
            self.buf.tidy(region_start, end, false)
        } else if either_half(&self.buf[region_start..end], needs_tidy) {
            self.buf.tidy(region_start, end, true)
        } else {
            end
        };
        // Line numbers: newlines before the region (a few lines of context), then the region's
        // own, counted by the pass that looks for candidates.
        let lines_before = memchr_iter(b'\n', &self.buf[..region_start]).count() as u64;
        let first_region_line = self.base_line + lines_before;

        if large && !self.tuned_yet {
            self.tuned_yet = true;
            let sample = &self.buf[region_start..end.min(region_start + SAMPLE)];
            self.tuned = self.engine.tuned_prefilter(sample);
        }
        let search = Search {
            engine: self.engine,
            large,
            tuned: self.tuned.as_ref(),
            only: self.only.as_deref(),
        };
        // What the region's lines hold is worked out before any state changes (on both cores
        // for a large region); windows still waiting for lines go first after that, so hits are
        // applied in line order.
        let (examined, region_newlines, looked_at) = if parallel {
            let pieces = pieces_of(&self.buf, region_start, end);
            examine_pieces(&search, &self.buf, &pieces, first_region_line)
        } else {
            examine_range(&search, &self.buf, region_start, end, first_region_line)
        };
        self.out.looked_at += looked_at;
        let last_complete_line = if eof || cut {
            first_region_line + region_newlines
        } else {
            first_region_line + region_newlines - 1
        };
        if eof {
            let partial = end > region_start && self.buf[end - 1] != b'\n';
            let total = first_region_line - 1 + region_newlines + u64::from(partial);
            self.out.lines = self.out.lines.max(total);
        }

        // Windows that were waiting for lines of this chunk.
        let waiting = std::mem::take(&mut self.pending_windows);
        for (sig, line) in waiting {
            self.try_window(sig, line, None, last_complete_line, eof);
        }
        for line in examined {
            self.apply(line, last_complete_line, eof);
        }
        if !self.engine.fallback.is_empty() {
            self.fallback_pass(region_start, end, first_region_line);
        }

        if !eof {
            self.out.lines = self.out.lines.max(last_complete_line);
        }
        self.resolve_unexplained(last_complete_line, eof);

        // Keep the last `max_window - 1` complete lines as context, and the partial line.
        let keep_from = if cut {
            end
        } else {
            let mut keep = end;
            for _ in 1..self.engine.max_window {
                if keep == 0 {
                    break;
                }
                keep = memrchr(b'\n', &self.buf[..keep - 1]).map_or(0, |p| p + 1);
            }
            // A window still waiting for lines also needs the lines before its literal's line,
            // which may lie before that context when the literal is not on the last line.
            self.first_needed_line()
                .map_or(keep, |first| keep.min(self.line_offset(first)))
        };
        // The newlines before `keep_from`: all up to `end` less the few kept.
        let kept = memchr_iter(b'\n', &self.buf[keep_from..end]).count() as u64;
        let dropped_lines = lines_before + region_newlines - kept;
        self.buf.drop_front(keep_from);
        self.base_line += dropped_lines;
        self.scanned = end - keep_from;
        if let Some(&(first, _, _)) = self.pending_unexplained.first() {
            self.explained = self.explained.split_off(&first);
        } else {
            let floor = self.base_line.saturating_sub(self.engine.max_window as u64);
            self.explained = self.explained.split_off(&floor);
        }
    }

    /// The first line a waiting window check will look at.
    fn first_needed_line(&self) -> Option<u64> {
        self.pending_windows
            .iter()
            .map(|&(s, line)| line.saturating_sub(self.engine.sigs[s as usize].lines as u64 - 1))
            .min()
    }

    /// Where line `line` starts in `buf` (the start for lines before it, the end for lines past it).
    fn line_offset(&self, line: u64) -> usize {
        let mut offset = 0;
        for _ in self.base_line..line {
            match memchr(b'\n', &self.buf[offset..]) {
                Some(p) => offset += p + 1,
                None => return self.buf.len(),
            }
        }
        offset
    }

    /// Applies what [`examine`] found on one line, in line order: hits, window checks, and
    /// error-looking lines that wait to be declared unexplained.
    fn apply(&mut self, examined: Examined, last_complete_line: u64, eof: bool) {
        let explained = !examined.hits.is_empty();
        for hit in examined.hits {
            let sig = hit.sig as usize;
            record(&mut self.out.sigs[sig], hit);
        }
        for s in examined.windows {
            self.try_window(
                s,
                examined.line,
                Some(examined.start),
                last_complete_line,
                eof,
            );
        }
        if explained {
            self.explained.insert(examined.line);
        } else if let Some((text, key)) = examined.unexplained {
            self.pending_unexplained.push((examined.line, text, key));
        }
    }

    /// Signatures without literals: every line goes through their set.
    fn fallback_pass(&mut self, start: usize, end: usize, first_line: u64) {
        let Some(set) = &self.engine.fallback_set else {
            return;
        };
        let mut line = first_line;
        let mut pos = start;
        while pos < end {
            let line_end = memchr(b'\n', &self.buf[pos..end]).map_or(end, |p| pos + p + 1);
            let cleaned = clean(&self.buf[pos..line_end]);
            let text = match_text(&cleaned);
            let matched: Vec<usize> = set.matches(&text).into_iter().collect();
            for i in matched {
                let s = self.engine.fallback[i];
                let sig = &self.engine.sigs[s as usize];
                let Some(regex) = sig.regex() else { continue };
                if let Some(captures) = first_accepted(sig, regex, &text) {
                    record(
                        &mut self.out.sigs[s as usize],
                        Hit {
                            sig: s,
                            line,
                            last_line: line,
                            text: display(&cleaned),
                            captures,
                        },
                    );
                    self.explained.insert(line);
                }
            }
            line += 1;
            pos = line_end;
        }
    }

    /// Checks window signature `s` around `line`, now if its lines are all here, else later.
    /// `at` is where `line` starts in the buffer when the caller knows it: the lines around it
    /// are then found from there, not by counting lines from the start of a 4 MiB buffer.
    fn try_window(
        &mut self,
        s: u32,
        line: u64,
        at: Option<usize>,
        last_complete_line: u64,
        eof: bool,
    ) {
        let width = self.engine.sigs[s as usize].lines as u64;
        let want_last = line + width - 1;
        if !eof && want_last > last_complete_line {
            self.pending_windows.push((s, line));
            return;
        }
        let want_first = line.saturating_sub(width - 1).max(self.base_line);
        let want_last = want_last.min(last_complete_line);
        // Byte ranges of lines want_first..=want_last.
        let (mut pos, mut n) = match at {
            Some(mut pos) => {
                let mut n = line;
                while n > want_first && pos > 0 {
                    pos = memrchr(b'\n', &self.buf[..pos - 1]).map_or(0, |p| p + 1);
                    n -= 1;
                }
                (pos, n)
            }
            None => (0, self.base_line),
        };
        let mut spans = Vec::new();
        while pos < self.buf.len() && n <= want_last {
            let line_end = memchr(b'\n', &self.buf[pos..]).map_or(self.buf.len(), |p| pos + p + 1);
            if n >= want_first {
                spans.push((n, pos, line_end));
            }
            n += 1;
            pos = line_end;
        }
        let sig = &self.engine.sigs[s as usize];
        let Some(regex) = sig.regex() else { return };
        let cleaned: Vec<String> = spans
            .iter()
            .map(|&(_, a, b)| clean(&self.buf[a..b]).into_owned())
            .collect();
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(spans.len());
        for (i, c) in cleaned.iter().enumerate() {
            if i > 0 {
                joined.push('\n');
            }
            starts.push(joined.len());
            joined.push_str(&match_text(c));
        }
        let line_at = |offset: usize| starts.partition_point(|&s| s <= offset).saturating_sub(1);
        for caps in regex.captures_iter(&joined) {
            let m = caps.range();
            let first = line_at(m.start);
            let last = line_at(m.end.saturating_sub(1).max(m.start));
            let first_no = spans[first].0;
            if self
                .last_window_start
                .get(&s)
                .is_some_and(|&l| l >= first_no)
            {
                continue;
            }
            let captures = named_captures(regex, &caps);
            if !sig.accepts(&captures) {
                continue;
            }
            self.last_window_start.insert(s, first_no);
            let text = cleaned[first..=last]
                .iter()
                .map(|c| display(c))
                .collect::<Vec<_>>()
                .join("\n");
            record(
                &mut self.out.sigs[s as usize],
                Hit {
                    sig: s,
                    line: first_no,
                    last_line: spans[last].0,
                    text,
                    captures,
                },
            );
            for l in first_no..=spans[last].0 {
                self.explained.insert(l);
            }
        }
    }

    /// Decides the unexplained lines that no window check can still explain.
    fn resolve_unexplained(&mut self, last_complete_line: u64, eof: bool) {
        let reach = self.engine.max_window as u64 - 1;
        let mut limit = if eof {
            u64::MAX
        } else {
            last_complete_line.saturating_sub(reach)
        };
        if let Some(min_pending) = self.pending_windows.iter().map(|&(_, l)| l).min()
            && !eof
        {
            limit = limit.min(min_pending.saturating_sub(reach + 1));
        }
        let pending = std::mem::take(&mut self.pending_unexplained);
        for (line, text, key) in pending {
            if line > limit {
                self.pending_unexplained.push((line, text, key));
                continue;
            }
            if self.explained.contains(&line) {
                continue;
            }
            self.out.unexplained_total += 1;
            match self.unexplained_index.get(&key) {
                Some(&i) => self.out.unexplained[i].count += 1,
                None if self.out.unexplained.len() < MAX_UNEXPLAINED => {
                    self.unexplained_index
                        .insert(key, self.out.unexplained.len());
                    self.out.unexplained.push(UnexplainedLine {
                        line,
                        text,
                        count: 1,
                    });
                }
                None => {}
            }
        }
    }
}

/// Whether `test` holds for either half of `region`, asked on all cores.
fn either_half(region: &[u8], test: impl Fn(&[u8]) -> bool + Sync) -> bool {
    let middle = region.len() / 2;
    // A sequence that the cut splits is looked for across it.
    let seam = middle.saturating_sub(8)..(middle + 8).min(region.len());
    let parts = [0..middle, middle..region.len(), seam];
    crate::par::map(&parts, |range| test(&region[range.clone()]))
        .into_iter()
        .any(|found| found)
}

/// How a scan looks for candidate lines: the engine, which literal search, and which signatures.
struct Search<'a> {
    engine: &'a Engine,
    /// The input is large: the faster automaton (when there is no prefilter).
    large: bool,
    /// The prefilter adapted to the input, if any.
    tuned: Option<&'a Prefilter>,
    /// Only these signatures are tried, and no unexplained lines are kept.
    only: Option<&'a [bool]>,
}

/// [`candidates`] and [`examine`] over `buf[start..end]`, whose first line is `first_line`: what
/// each line that matters holds, in line order, and the number of newlines in the range.
fn examine_range(
    search: &Search,
    buf: &[u8],
    start: usize,
    end: usize,
    first_line: u64,
) -> (Vec<Examined>, u64, u64) {
    let (candidates, newlines, looked_at) = candidates(search, buf, start, end, first_line);
    if !search.large {
        compile_ahead(search.engine, &candidates);
    }
    let examined = candidates
        .iter()
        .map(|c| examine(search.engine, buf, c, search.large))
        .filter(Examined::matters)
        .collect();
    (examined, newlines, looked_at)
}

/// Compiles, on all cores, the regexes of every signature that `candidates` name: a paste meets
/// most of them for the first time, and compiling them one after another was half of its scan.
/// [`examine`] then runs each on its own, and needs no set for the lines with many candidates.
///
/// A set costs more to build than the regexes it holds: it compiles every pattern of its list,
/// each distinct list is one set, and the ones that match are compiled again on their own for
/// their captures. The union of the lists is never larger than their sum, and each regex is
/// compiled once for the whole paste. On 64 KiB of real failure logs (20 distinct lists of
/// candidates on 26 lines, 39 signatures among them, 134 more on other lines), sets for those
/// lines and regexes for the rest took 107 ms end to end, all regexes ahead 68 ms, with the
/// same answers for every log in `eval/`. (A large input keeps the sets: there a set runs once
/// per line instead of each of its regexes.)
fn compile_ahead(engine: &Engine, candidates: &[Candidate]) {
    let mut wanted: Vec<u32> = candidates
        .iter()
        .flat_map(|c| c.sigs.iter().copied())
        .filter(|&s| !engine.sigs[s as usize].compiled())
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    if wanted.len() > 1 {
        crate::par::map(&wanted, |&s| engine.sigs[s as usize].regex().is_some());
    }
}

/// `buf[start..end]` cut into [`PIECES`] pieces at line ends.
fn pieces_of(buf: &[u8], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut pieces = Vec::with_capacity(PIECES);
    let mut from = start;
    for k in 1..=PIECES {
        let at = (start + (end - start) * k / PIECES).max(from);
        let to = memchr(b'\n', &buf[at..end]).map_or(end, |p| at + p + 1);
        pieces.push((from, to));
        from = to;
    }
    pieces
}

/// [`examine_range`] over consecutive `pieces` of `buf` on all cores, the threads taking the
/// pieces in turn ([`crate::par::map`]), so that a thread slowed down (by a busy piece, or by the
/// reader thread taking its core for a moment) leaves more pieces to the others instead of
/// keeping them waiting. Each piece is numbered from 0 and renumbered once the newlines before it
/// are known, so no byte is counted twice.
fn examine_pieces(
    search: &Search,
    buf: &[u8],
    pieces: &[(usize, usize)],
    first_line: u64,
) -> (Vec<Examined>, u64, u64) {
    let done = crate::par::map(pieces, |&(from, to)| {
        examine_range(search, buf, from, to, 0)
    });
    let mut all = Vec::new();
    let mut offset = first_line;
    let mut looked_at = 0;
    for (examined, newlines, looked) in done {
        looked_at += looked;
        all.extend(examined.into_iter().map(|mut e| {
            e.line += offset;
            for hit in &mut e.hits {
                hit.line += offset;
                hit.last_line += offset;
            }
            e
        }));
        offset += newlines;
    }
    (all, offset - first_line, looked_at)
}

/// Lines of `buf[start..end]` that contain a literal, with the signatures to try on each.
///
/// The fast leftmost search finds the next line with any literal; only that line is then searched
/// for all (overlapping) literals, so a busy automaton never slows the scan of quiet lines.
/// Also returns the number of newlines in the range and of lines looked at.
fn candidates(
    search: &Search,
    buf: &[u8],
    start: usize,
    end: usize,
    first_line: u64,
) -> (Vec<Candidate>, u64, u64) {
    let Search {
        engine,
        large,
        tuned,
        only,
    } = *search;
    let mut out: Vec<Candidate> = Vec::new();
    let mut counted_to = start;
    let mut line = first_line;
    let mut pos = start;
    let mut looked_at = 0;
    while pos < end {
        let Some(first) = engine.first_literal(&buf[pos..end], large, tuned) else {
            break;
        };
        looked_at += 1;
        let hit = pos + first;
        let line_start = memrchr(b'\n', &buf[pos..hit]).map_or(pos, |p| pos + p + 1);
        let line_end = memchr(b'\n', &buf[hit..end]).map_or(end, |p| hit + p + 1);
        line += memchr_iter(b'\n', &buf[counted_to..line_start]).count() as u64;
        counted_to = line_start;
        let mut candidate = Candidate {
            start: line_start,
            end: line_end,
            line,
            sigs: Vec::new(),
            error_word: false,
        };
        engine.each_literal(&buf[line_start..line_end], large, tuned, |literal| {
            for target in &engine.targets[literal] {
                match *target {
                    Target::Sig(s) => {
                        let wanted = only.is_none_or(|only| only[s as usize]);
                        if wanted && !candidate.sigs.contains(&s) {
                            candidate.sigs.push(s)
                        }
                    }
                    Target::ErrorWord => candidate.error_word = only.is_none(),
                }
            }
        });
        let raw = &buf[line_start..line_end];
        rule_out_by_other_literals(engine, raw, &mut candidate.sigs);
        // A `lore doctor` bundle's section markers name commands, never failures; lines that
        // only carry an error word are common (every driver banner says NVRM), and the harmless
        // ones are settled here too, before cleaning and without a result to pass on.
        let settled = crate::doctor::bundle::is_marker(raw)
            || (candidate.sigs.is_empty() && (!candidate.error_word || is_benign(raw)));
        if !settled {
            out.push(candidate);
        }
        pos = line_end;
    }
    line += memchr_iter(b'\n', &buf[counted_to..end]).count() as u64;
    (out, line - first_line, looked_at)
}

/// Drops the candidates a literal of theirs rules out: a signature whose pattern has further
/// required literal sets (see `literal::also_required`) can only match a line that holds one
/// literal of each. A family of patterns sharing one literal then costs a few byte searches
/// instead of building and running a regex set over all of them.
fn rule_out_by_other_literals(engine: &Engine, line: &[u8], sigs: &mut Vec<u32>) {
    if sigs
        .iter()
        .all(|&s| engine.sigs[s as usize].also.is_empty())
    {
        return;
    }
    let lower = line.to_ascii_lowercase();
    sigs.retain(|&s| {
        engine.sigs[s as usize].also.iter().all(|set| {
            set.iter()
                .any(|literal| memchr::memmem::find(&lower, literal).is_some())
        })
    });
}

/// What one candidate line holds, worked out without touching the scanner's state (so that it
/// can run on any thread).
struct Examined {
    line: u64,
    /// Where the line starts in the scanner's buffer (valid until the buffer is compacted).
    start: usize,
    hits: Vec<Hit>,
    /// Window signatures whose literal is on this line.
    windows: Vec<u32>,
    /// `(display text, shape)` if the line looks like an error and no single-line signature hit it.
    unexplained: Option<(String, String)>,
}

impl Examined {
    /// Whether there is anything to apply: most candidate lines turn out to hold nothing.
    fn matters(&self) -> bool {
        !self.hits.is_empty() || !self.windows.is_empty() || self.unexplained.is_some()
    }
}

fn examine(engine: &Engine, buf: &[u8], candidate: &Candidate, large: bool) -> Examined {
    let mut examined = Examined {
        line: candidate.line,
        start: candidate.start,
        hits: Vec::new(),
        windows: Vec::new(),
        unexplained: None,
    };
    let raw = &buf[candidate.start..candidate.end];
    let cleaned = clean(raw);
    let text = match_text(&cleaned);
    let mut single: Vec<u32> = Vec::with_capacity(candidate.sigs.len());
    for &s in &candidate.sigs {
        if engine.sigs[s as usize].lines > 1 {
            examined.windows.push(s);
        } else {
            single.push(s);
        }
    }
    // Many candidates at once (a literal a family of patterns shares): one pass of their set
    // says which can match, and only those run on their own for captures. In a small input
    // whose regexes were all compiled ahead, each runs on its own at once.
    if single.len() >= SET_MIN
        && (large || single.iter().any(|&s| !engine.sigs[s as usize].compiled()))
    {
        single.sort_unstable();
        if let Some(set) = engine.set_for(&single) {
            let mut matched = vec![false; single.len()];
            for segment in text.split('\n') {
                for i in set.matches(segment).iter() {
                    matched[i] = true;
                }
            }
            let mut i = 0;
            single.retain(|_| {
                i += 1;
                matched[i - 1]
            });
        }
    }
    for s in single {
        let sig = &engine.sigs[s as usize];
        let Some(regex) = sig.regex() else { continue };
        for segment in text.split('\n') {
            if let Some(captures) = first_accepted(sig, regex, segment) {
                examined.hits.push(Hit {
                    sig: s,
                    line: candidate.line,
                    last_line: candidate.line,
                    text: display(&cleaned),
                    captures,
                });
                break;
            }
        }
    }
    if examined.hits.is_empty() && candidate.error_word && !is_benign_text(&text) {
        examined.unexplained = Some((display(&cleaned), shape(&text)));
    }
    examined
}

fn record(hits: &mut SigHits, hit: Hit) {
    hits.count += 1;
    if hits.hits.len() < MAX_HITS_PER_SIG {
        hits.hits.push(hit);
    }
}

/// The captures of the first match of `sig` in `text` that satisfies its `when:`.
fn first_accepted(sig: &Sig, regex: &SigRegex, text: &str) -> Option<Vec<(String, String)>> {
    if sig.when.is_none() {
        return regex
            .captures(text)
            .map(|caps| named_captures(regex, &caps));
    }
    regex
        .captures_iter(text)
        .map(|caps| named_captures(regex, &caps))
        .find(|captures| sig.accepts(captures))
}

fn named_captures(regex: &SigRegex, caps: &SigMatch<'_>) -> Vec<(String, String)> {
    regex
        .capture_names()
        .filter_map(|name| {
            caps.name(name)
                .map(|m| (name.to_string(), display(m.trim())))
        })
        .collect()
}

/// Lines with an error word that are really fine: "0 errors" ("ran without errors"), the
/// driver's load banner, the GPU identity lines the driver prints ([`BANNERS`]).
/// ASCII-only: quicker to compile, and these words are ASCII.
/// Also nvidia-smi -q's counters and flags at zero or "No" (`Uncorrectable Error : 0`, `Remapping
/// Failure Occurred : No`) and its bare section headers (`    ECC Errors`): a healthy report's lines.
/// And NCCL's own INFO lines about its network plugin (`NCCL INFO NET/Plugin : Plugin load
/// (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file`): without a
/// plugin NCCL uses its internal transport, as the same line says. And PyTorch's `collect_env`
/// answering an item it has no tool for (`CUDA runtime version: Could not collect`): a report's
/// line, which `lore env` reads as a missing value. And the kernel marking itself tainted when an
/// out-of-tree or unsigned module *loads* (`module verification failed: signature and/or required
/// key missing - tainting kernel`): what every driver load prints where Secure Boot is off; a
/// module Secure Boot refuses is not loaded and says so in other words. And a boot's noise that
/// names no failure of the node: a floppy or optical drive probed without a medium (`I/O error,
/// dev sr0`), the RAS collector, DPC and the NVMe driver announcing themselves, a mount's `errors=remount-ro`
/// option, a bridge's I/O-port window left unassigned (`BAR 13: failed to assign [io size
/// 0x1000]`; a GPU's BARs are memory windows).
const BENIGN: &str = r"(?-u)(?i)^\s*[a-z][\w /().-]*?\s:\s+(?:0|no|none|n/a|disabled)\s*$|^\s+[a-z][a-z ]*errors?\s*$|\b(?:0|no|zero) (?:errors?|failures?)\b|\bwithout (?:any )?(?:errors?|failures?)\b|\berrors?[:=] ?0\b|\bfail-?over\b|\bfailsafe\b|error[_ ]?(?:count|rate|handling|reporting|injection)\b|\bNCCL INFO NET/Plugin\b|^\s*[a-z][\w /().-]*?:\s*could not collect\s*$|module verification failed: signature and/or required key missing - tainting kernel|loading out-of-tree module taints kernel|module license '[A-Za-z0-9 ./_-]*' taints kernel|inheriting taint\.?\s*$|Disabling lock debugging due to kernel taint|\bdev (?:fd|sr)\d+\b|Correctable Errors collector initiali[sz]ed|\berrors=(?:remount-ro|continue|panic)\b|DPC: error containment capabilities|BAR \d+: (?:failed to assign|no space for) \[io\b|\bnvme\d*: Shutdown timeout set to|\bfaulthandler\b";

/// The driver's harmless lines, as it prints them: part of [`BENIGN`] (matched ignoring case
/// there), and looked for as they are first, several times quicker than the regex on the logs
/// where they are a tenth of the lines.
const BANNERS: [&str; 4] = [
    "NVRM: loading NVIDIA",
    "NVRM version: NVIDIA UNIX",
    "NVRM: GPU at PCI:",
    "NVRM: GPU Board Serial Number",
];

/// [`BENIGN`] with the [`BANNERS`].
fn benign_pattern() -> String {
    BANNERS
        .iter()
        .fold(BENIGN.to_string(), |all, b| all + "|" + &regex::escape(b))
}

/// One regex over bytes serves text too (its pattern is ASCII): building it is a share of a
/// paste's start-up, so it is built once.
static BENIGN_BYTES: LazyLock<regex::bytes::Regex> =
    LazyLock::new(|| regex::bytes::Regex::new(&benign_pattern()).expect("valid"));
/// What every one of the [`BANNERS`] starts with: a banner can only start where this does.
const BANNER_START: &str = "NVRM";
static BANNER_FINDER: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(BANNER_START));

/// Whether `raw` holds one of the [`BANNERS`]: each place that says "NVRM" is compared with
/// them (a vectorised search, where an automaton over every byte of each candidate line had
/// cost 3% of a large scan).
fn has_banner(raw: &[u8]) -> bool {
    BANNER_FINDER
        .find_iter(raw)
        .any(|p| BANNERS.iter().any(|b| raw[p..].starts_with(b.as_bytes())))
}

/// Whether a raw line is one of the harmless ones [`BENIGN`] describes: its banners as printed,
/// then the regex (which accepts them too, so the answer is the same).
fn is_benign(raw: &[u8]) -> bool {
    has_banner(raw) || BENIGN_BYTES.is_match(raw)
}

/// Compiles the harmless-line regexes now (see `signature::warm_up`).
pub(super) fn warm_up() {
    LazyLock::force(&BENIGN_BYTES);
    LazyLock::force(&BANNER_FINDER);
}

/// Whether a line of text is one of the harmless ones [`BENIGN`] describes.
pub(super) fn is_benign_text(text: &str) -> bool {
    BENIGN_BYTES.is_match(text.as_bytes())
}

/// The shape of a line for de-duplication: tokens with digits (numbers, addresses, pids, versions)
/// all look alike.
pub fn shape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for token in text.split_inclusive(|c: char| !c.is_alphanumeric()) {
        let (word, sep) = match token.char_indices().last() {
            Some((i, c)) if !c.is_alphanumeric() => (&token[..i], &token[i..]),
            _ => (token, ""),
        };
        if word.chars().any(|c| c.is_ascii_digit()) {
            out.push('#');
        } else {
            out.push_str(word);
        }
        out.push_str(sep);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{BANNER_START, BANNERS, BENIGN_BYTES, has_banner, is_benign_text, shape};

    #[test]
    fn banners_are_found_where_the_regex_finds_them() {
        assert!(BANNERS.iter().all(|b| b.starts_with(BANNER_START)));
        for line in [
            "[    5.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05",
            "NVRM: NVRM version: NVIDIA UNIX x86_64 Kernel Module",
            "kernel: NVRM NVRM: GPU at PCI:0000:3b:00: GPU-1234",
            "nvrm: loading nvidia",
            "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
            "NVRM: GPU Board Serial Number: 1234",
            "NVRM",
        ] {
            let regex_says = BENIGN_BYTES.is_match(line.as_bytes());
            if has_banner(line.as_bytes()) {
                assert!(regex_says, "{line}");
            }
            let exact = BANNERS.iter().any(|b| line.contains(b));
            assert_eq!(has_banner(line.as_bytes()), exact, "{line}");
        }
    }

    #[test]
    fn nccls_plugin_notices_are_benign_and_its_other_info_lines_are_not() {
        let benign = |line: &str| BENIGN_BYTES.is_match(line.as_bytes());
        assert!(benign(
            "dgx-3:2152176:2152176 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory"
        ));
        assert!(benign(
            "node1:99:99 [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal implementation"
        ));
        assert!(!benign(
            "gpu-node-3:41233:41290 [0] NCCL INFO Call to connect returned Connection refused, retrying"
        ));
        assert!(!benign(
            "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory"
        ));
    }

    #[test]
    fn taint_notices_and_boot_noise_are_benign_failures_are_not() {
        let benign = is_benign_text;
        for line in [
            "[    4.902113] nvidia: module verification failed: signature and/or required key missing - tainting kernel",
            "[    4.901200] nvidia: loading out-of-tree module taints kernel.",
            "[    4.901300] nvidia: module license 'NVIDIA' taints kernel.",
            "[    4.901400] Disabling lock debugging due to kernel taint",
            "[    5.012345] nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint.",
            "[    5.882121] Buffer I/O error on dev fd0, logical block 0, async page read",
            "[    6.120044] I/O error, dev sr0, sector 0 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0",
            "[    1.401220] RAS: Correctable Errors collector initialized.",
            "[    4.120917] EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none.",
            "[    2.118606] pcieport 0000:16:01.0: DPC: error containment capabilities: Int Msg #0, RPExt+ PoisonedTLP+ SwTrigger+ RP PIO Log 4, DL_ActiveErr+",
            "[    1.312209] pci 0000:00:1c.0: BAR 13: failed to assign [io  size 0x1000]",
            "[    3.001277] nvme nvme0: Shutdown timeout set to 10 seconds",
            "Step 10/10 : RUN python -X faulthandler a.py",
            "This request runs fine without error:",
            "The same job ran without any errors on the other node",
        ] {
            assert!(benign(line), "{line}");
        }
        for line in [
            "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
            "Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7",
            "blk_update_request: I/O error, dev nvme0n1, sector 1234 op 0x1:(WRITE)",
            "pci 0000:3b:00.0: BAR 1: failed to assign [mem size 0x800000000 64bit pref]",
            "EXT4-fs error (device nvme0n1p2): ext4_find_entry:1455: inode #2: comm ls: reading directory lblock 0",
            "Fatal Python error: Segmentation fault",
            "RuntimeError: CUDA error: an illegal memory access was encountered (it ran without NCCL)",
        ] {
            assert!(!benign(line), "{line}");
        }
    }

    #[test]
    fn shapes_ignore_numbers() {
        assert_eq!(
            shape("task python3:1234 blocked for more than 120 seconds"),
            shape("task python3:99 blocked for more than 240 seconds")
        );
        assert_ne!(shape("disk sda failed"), shape("disk sda ok"));
    }
}
