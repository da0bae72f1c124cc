//! The first look at every byte of the input: where a line may hold one of the literals (the
//! required literals of all signatures and the error words).
//!
//! The Aho-Corasick automaton that knows all literals walks every byte through a table of
//! thousands of states, and its case-insensitive build rules out its fast prefilters: with a
//! thousand signatures it ran at about a third of a gigabyte a second. Here each literal is
//! represented by one 4-byte fingerprint, its rarest four bytes, and the input is looked at four
//! bytes at a time: the bytes are case-folded by setting bit 5 (which folds ASCII letters and
//! merges a few punctuation pairs, so it can only give false alarms, never miss), hashed, and
//! tested against two bitmaps of 2^20 bits (a Bloom filter). A position that passes both is
//! checked against the literals that have that fingerprint (compared ignoring ASCII case, as the
//! automaton does); the first literal found there is reported, and the caller runs the
//! automaton over that line alone, so which signatures a line is a candidate for is decided
//! exactly as before. Lines no literal can be on are passed over at the speed of a hash and a
//! bit test per byte.
//!
//! Before the input is read, the two windows of each literal are chosen by a guess at how rare
//! its letters are; once a large input's first megabytes are in, they are chosen again by how
//! often their lead bytes occur there ([`Prefilter::adapted`]), which lets a third as many
//! positions through on a typical log.
//!
//! A 3-byte literal (`xid`) gets the fingerprints of itself followed by every possible byte; the
//! end of the input is padded with spaces for it. A 4-byte one gets itself and every byte
//! followed by its first three. Shorter literals switch the filter off.

/// Each bitmap holds 2^BITS bits (8 KiB): a few thousand fingerprints leave it mostly empty.
const BITS: u32 = 16;
/// ASCII case folding (and a little more) for eight bytes at once.
const FOLD: u64 = 0x2020_2020_2020_2020;
/// Literals longer than this get 8-byte fingerprints, shorter ones 4-byte ones.
const LONG: usize = 8;
/// Fingerprints are looked up at every STRIDE-th position: each literal has fingerprints at
/// STRIDE consecutive positions, so one of them falls on a position that is looked at.
const STRIDE: usize = 2;

/// Fingerprints of one width: a bitmap to rule positions out, and who owns each fingerprint.
#[derive(Debug, Clone)]
struct Table {
    bits: Box<[u64]>,
    /// `(fingerprint, literal, where the fingerprint starts relative to the literal)`, sorted.
    owners: Vec<(u64, u32, i32)>,
    /// For each bucket (the top BUCKET_BITS bits of the hash), the first entry of `owners` in it
    /// or after it: `owners` is sorted by hash, so a lookup reads two slots and a short run.
    first_owner: Vec<u32>,
}

impl Table {
    fn new() -> Table {
        Table {
            bits: vec![0u64; 1 << (BITS - 6)].into_boxed_slice(),
            owners: Vec::new(),
            first_owner: Vec::new(),
        }
    }

    /// Sorts the owners by the hash of their fingerprint and indexes them by it.
    fn seal(&mut self) {
        self.owners
            .sort_unstable_by_key(|o| (hash(o.0), o.0, o.1, o.2));
        self.owners.dedup();
        let mut first_owner = vec![0u32; (1 << BUCKET_BITS) + 1];
        let mut next = 0;
        for (b, slot) in first_owner.iter_mut().enumerate() {
            while next < self.owners.len() && bucket(self.owners[next].0) < b {
                next += 1;
            }
            *slot = next as u32;
        }
        self.first_owner = first_owner;
    }

    /// The owners of fingerprint `x` (and of others with the same hash).
    #[inline(always)]
    fn owners_of(&self, x: u64) -> &[(u64, u32, i32)] {
        let b = bucket(x);
        &self.owners[self.first_owner[b] as usize..self.first_owner[b + 1] as usize]
    }

    fn add(&mut self, x: u64, literal: usize, offset: isize) {
        let h = hash(x);
        self.bits[h >> 6] |= 1 << (h & 63);
        self.owners.push((x, literal as u32, offset as i32));
    }

    #[inline(always)]
    fn may_hold(&self, x: u64) -> bool {
        let h = hash(x);
        self.bits[h >> 6] & (1 << (h & 63)) != 0
    }
}

/// The lead test's bitmap has 2^LEAD_BITS bits (256 KiB, within a core's L2 cache).
const LEAD_BITS: u32 = 21;
/// The lead bitmap's length in words: a fixed size, so that a lookup needs no bounds check.
const LEAD_WORDS: usize = 1 << (LEAD_BITS - 6);

/// The lead test's bit for a (folded) window: its second and third bytes whole and the low five
/// bits of its fourth (which tell letters apart). Two bytes alone let through over a third of
/// the positions of a log, which spent a third of the scan in the tables.
#[inline(always)]
fn lead_index(x: u64) -> usize {
    ((x >> 8) & ((1 << LEAD_BITS) - 1)) as usize
}

/// Buckets of the owner index: a few thousand fingerprints leave about one in each.
const BUCKET_BITS: u32 = 13;

#[inline(always)]
fn bucket(x: u64) -> usize {
    hash(x) >> (BITS - BUCKET_BITS)
}

#[inline(always)]
fn hash(x: u64) -> usize {
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BITS)) as usize
}

fn fold(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word) | (FOLD >> (8 * (8 - bytes.len())))
}

#[derive(Debug, Clone)]
pub struct Prefilter {
    /// The second and third (folded) bytes and the low bits of the fourth of every fingerprint
    /// (see [`lead_index`]; a wildcard fourth byte sets all its variants): most positions of a
    /// log are ruled out by one bit test here, without hashing.
    lead: Box<[u64; LEAD_WORDS]>,
    short: Table,
    long: Table,
    literals: Vec<Vec<u8>>,
}

/// The eight bytes of `hay` from `p`, space-padded past its end (a fingerprint never extends
/// past its literal, so padding can only add a false alarm, never hide a literal).
fn padded_window(hay: &[u8], p: usize) -> u64 {
    let mut padded = [b' '; 8];
    let n = hay.len().saturating_sub(p).min(8);
    padded[..n].copy_from_slice(&hay[p..p + n]);
    u64::from_le_bytes(padded)
}

/// How common a (folded) byte is in log text: lower is rarer. Letters common in English and in
/// kernel messages, digits, spaces and the usual separators are common; capitals are folded
/// away, so rarity comes from rare letters and punctuation.
fn commonness(b: u8) -> u32 {
    match b | 0x20 {
        b' ' => 60,
        b'0'..=b'9' => 45,
        b':' | b'.' => 40,
        b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 30,
        b',' | b'=' | b'-' | b'/' | b'(' | b')' | b'{' | b'}' => 28,
        b'l' | b'c' | b'd' | b'u' | b'h' | b'm' | b'p' => 22,
        b'f' | b'g' | b'b' | b'y' | b'w' | b'v' => 14,
        b'k' | b'x' => 10,
        b'q' | b'j' | b'z' => 6,
        _ => 8,
    }
}

/// Pairs of bytes every log is full of: English's commonest letter pairs, the month and day
/// names of timestamps, and the digits, spaces and separators of numbers and prefixes. A
/// fingerprint whose lead pair is one of them would let through a large share of positions.
const COMMON_PAIRS: &[&[u8; 2]] = &[
    b"th", b"he", b"in", b"er", b"an", b"re", b"on", b"at", b"en", b"nd", b"ti", b"es", b"or",
    b"te", b"of", b"ed", b"is", b"it", b"al", b"ar", b"st", b"to", b"nt", b"ng", b"se", b"ha",
    b"as", b"ou", b"io", b"le", b"ve", b"co", b"me", b"de", b"hi", b"ri", b"ro", b"ic", b"ne",
    b"ea", b"ra", b"ce", b"li", b"ch", b"ll", b"be", b"ma", b"si", b"om", b"ur", b"no", b"ot",
    b"ja", b"fe", b"eb", b"ap", b"pr", b"ay", b"ju", b"un", b"ul", b"au", b"ug", b"ep", b"oc",
    b"ct", b"ov", b"ec", b"mo", b"tu", b"ue", b"we", b"hu", b"fr", b"sa", b"su", b"00", b"0 ",
    b" 0", b": ", b" :", b"  ", b", ", b". ", b"0:", b":0", b"0.", b".0", b"x0", b"0x", b"=0",
];

fn common_pair(a: u8, b: u8) -> bool {
    let pair = usize::from(a | 0x20) << 8 | usize::from(b | 0x20);
    COMMON_PAIR_BITS[pair >> 6] & (1 << (pair & 63)) != 0
}

/// [`COMMON_PAIRS`] and the digit pairs as a bitmap over the (folded) 16-bit pair: choosing
/// fingerprints asks this for every window of every literal, thousands of times at start-up.
static COMMON_PAIR_BITS: std::sync::LazyLock<Box<[u64]>> = std::sync::LazyLock::new(|| {
    let mut bits = vec![0u64; 1 << 10].into_boxed_slice();
    let mut set = |a: u8, b: u8| {
        let pair = usize::from(a | 0x20) << 8 | usize::from(b | 0x20);
        bits[pair >> 6] |= 1 << (pair & 63);
    };
    for p in COMMON_PAIRS {
        set(p[0], p[1]);
    }
    for a in b'0'..=b'9' {
        for b in b'0'..=b'9' {
            set(a, b);
        }
    }
    bits
});

/// The offset of the first of STRIDE consecutive `width`-byte windows of `literal` made of the
/// rarest bytes (`literal` has at least `width + STRIDE - 1` bytes).
fn rarest_windows(literal: &[u8], width: usize) -> usize {
    let span = width + STRIDE - 1;
    let rarity: Vec<u32> = literal.iter().map(|&b| commonness(b)).collect();
    // The sum over the span, slid along the literal (start-up runs this for every literal).
    let mut all: u32 = rarity[..span].iter().sum();
    let mut best = (u32::MAX, 0);
    for k in 0..=literal.len() - span {
        if k > 0 {
            all = all - rarity[k - 1] + rarity[k + span - 1];
        }
        // The windows' second and third bytes decide how often the lead test lets a position
        // through: rare ones there count double.
        let lead = rarity[k + 1] + 2 * rarity[k + 2] + rarity[k + 3];
        let common = u32::from(common_pair(literal[k + 1], literal[k + 2]))
            + u32::from(common_pair(literal[k + 2], literal[k + 3]));
        let score = all + 4 * lead + 400 * common;
        if score < best.0 {
            best = (score, k);
        }
    }
    best.1
}

impl Prefilter {
    /// A filter for `literals` (lowercase, as the literal analysis gives them); `None` if one is
    /// shorter than 3 bytes, which the filter cannot represent.
    pub fn new(literals: &[Vec<u8>]) -> Option<Prefilter> {
        Prefilter::with_windows(literals, rarest_windows)
    }

    /// The same filter with its fingerprints chosen for `sample`, the start of the input it is
    /// about to scan: each literal's fingerprints are the two windows whose lead bytes occur least
    /// often there. A guess from letter frequencies lets through every eighth position of a
    /// typical log (a literal like `your kernel headers` has no rare letters, and ` ke` is
    /// everywhere); counting the input's own three-byte leads cuts that to about one in twenty
    /// five. What is found does not change, only how often a position needs a second look.
    pub fn adapted(&self, sample: &[u8]) -> Prefilter {
        // How often each lead occurs in the sample, at every position (both parities).
        let mut seen = vec![0u16; 1 << LEAD_BITS];
        for window in sample.windows(4) {
            let slot = &mut seen[lead_index(fold(window))];
            *slot = slot.saturating_add(1);
        }
        let lead_count = |bytes: &[u8]| u32::from(seen[lead_index(fold(&bytes[..4]))]);
        let choose = |literal: &[u8], width: usize| -> usize {
            (0..literal.len() - width)
                .min_by_key(|&k| lead_count(&literal[k..]) + lead_count(&literal[k + 1..]))
                .unwrap_or(0)
        };
        Prefilter::with_windows(&self.literals, choose).expect("the literals were accepted before")
    }

    /// The filter, with `choose(literal, width)` giving where a literal's first fingerprint
    /// starts (the second starts one byte later).
    fn with_windows(
        literals: &[Vec<u8>],
        choose: impl Fn(&[u8], usize) -> usize,
    ) -> Option<Prefilter> {
        let (mut short, mut long) = (Table::new(), Table::new());
        for (i, literal) in literals.iter().enumerate() {
            let l = literal.as_slice();
            match l.len() {
                0..=2 => return None,
                // Two positions: from the byte before the literal, and from its first byte.
                3 => {
                    for other in 0..=255u8 {
                        short.add(fold(&[other, l[0], l[1], l[2]]), i, -1);
                        short.add(fold(&[l[0], l[1], l[2], other]), i, 0);
                    }
                }
                // Two positions: from its first byte, and from the byte before it (so that the
                // lead test sees three of its own bytes either way; a window from its second byte
                // would leave the test two, and `fail` would let through every `file`).
                4 => {
                    short.add(fold(l), i, 0);
                    for other in 0..=255u8 {
                        short.add(fold(&[other, l[0], l[1], l[2]]), i, -1);
                    }
                }
                n if n <= LONG => {
                    let k = choose(l, 4);
                    short.add(fold(&l[k..k + 4]), i, k as isize);
                    short.add(fold(&l[k + 1..k + 5]), i, k as isize + 1);
                }
                _ => {
                    let k = choose(l, LONG);
                    long.add(fold(&l[k..k + LONG]), i, k as isize);
                    long.add(fold(&l[k + 1..k + 1 + LONG]), i, k as isize + 1);
                }
            }
        }
        short.seal();
        long.seal();
        let mut lead: Box<[u64; LEAD_WORDS]> = vec![0u64; LEAD_WORDS]
            .into_boxed_slice()
            .try_into()
            .expect("LEAD_WORDS words");
        for &(x, _, _) in short.owners.iter().chain(&long.owners) {
            let b = lead_index(x);
            lead[b >> 6] |= 1 << (b & 63);
        }
        Some(Prefilter {
            lead,
            short,
            long,
            literals: literals.to_vec(),
        })
    }

    /// The literals (index, start) really in `hay` whose fingerprint in `table` is `x` at `p`:
    /// each owner of the fingerprint, compared ignoring ASCII case as the automaton does.
    fn owners_at<'a>(
        &'a self,
        table: &'a Table,
        hay: &'a [u8],
        p: usize,
        x: u64,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        table
            .owners_of(x)
            .iter()
            .filter(move |o| o.0 == x)
            .filter_map(move |&(_, literal, offset)| {
                let text = &self.literals[literal as usize];
                let start = usize::try_from(p as isize - offset as isize).ok()?;
                let there = hay.get(start..start + text.len())?;
                there
                    .eq_ignore_ascii_case(text)
                    .then_some((literal as usize, start))
            })
    }

    /// Calls `found` with every literal that occurs in `line` (ignoring ASCII case), once per
    /// occurrence: the same literals an overlapping Aho-Corasick search would report.
    pub fn each_literal(&self, line: &[u8], mut found: impl FnMut(usize)) {
        self.scan(line, |p, window| {
            // `hits_at`, spelled out (as in `at`): chained iterators cost a third more here.
            let x = window | FOLD;
            let x4 = x & 0xFFFF_FFFF;
            if self.short.may_hold(x4) {
                for (literal, _) in self.owners_at(&self.short, line, p, x4) {
                    found(literal);
                }
            }
            if self.long.may_hold(x) {
                for (literal, _) in self.owners_at(&self.long, line, p, x) {
                    found(literal);
                }
            }
            None::<()>
        });
    }

    /// Whether a window's (folded) second, third and fourth bytes are those of some fingerprint.
    #[inline(always)]
    fn lead(&self, x: u64) -> bool {
        let b = lead_index(x);
        self.lead[b >> 6] & (1 << (b & 63)) != 0
    }

    /// The first literal whose fingerprint is at `p`, once the lead test passed.
    #[inline(never)]
    fn at(&self, hay: &[u8], p: usize, window: u64) -> Option<usize> {
        // The owners of both tables, spelled out: this runs for every position the lead test
        // lets through, and chained iterators cost a third of the scan.
        let x = window | FOLD;
        let x4 = x & 0xFFFF_FFFF;
        if self.short.may_hold(x4)
            && let Some((_, start)) = self.owners_at(&self.short, hay, p, x4).next()
        {
            return Some(start);
        }
        if self.long.may_hold(x) {
            return self.owners_at(&self.long, hay, p, x).next().map(|(_, s)| s);
        }
        None
    }

    /// Where in `hay` a literal starts, or `None` if none occurs (ignoring ASCII case). Not
    /// always the leftmost one, but no literal starts on a line before the one returned: the
    /// fingerprints are tried left to right, and each lies inside its literal.
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        self.scan(hay, |p, window| self.at(hay, p, window))
    }

    /// Calls `visit(p, window)` for each position `p` (every STRIDE-th, up to and including
    /// `hay.len()`) whose window passes the lead test, left to right, until it returns
    /// something. The one loop behind [`Prefilter::find`] and [`Prefilter::each_literal`].
    #[inline(always)]
    fn scan<T>(&self, hay: &[u8], mut visit: impl FnMut(usize, u64) -> Option<T>) -> Option<T> {
        let mut p = 0;
        // Four windows (at every second byte) from two loads of eight bytes.
        while p + 16 <= hay.len() {
            let lo = u64::from_le_bytes(hay[p..p + 8].try_into().expect("8 bytes"));
            let hi = u64::from_le_bytes(hay[p + 8..p + 16].try_into().expect("8 bytes"));
            let windows = [
                lo,
                (lo >> 16) | (hi << 48),
                (lo >> 32) | (hi << 32),
                (lo >> 48) | (hi << 16),
            ];
            for (k, window) in windows.into_iter().enumerate() {
                if self.lead(window | FOLD)
                    && let Some(found) = visit(p + 2 * k, window)
                {
                    return Some(found);
                }
            }
            p += 8;
        }
        while p + 8 <= hay.len() {
            let window = u64::from_le_bytes(hay[p..p + 8].try_into().expect("8 bytes"));
            if self.lead(window | FOLD)
                && let Some(found) = visit(p, window)
            {
                return Some(found);
            }
            p += STRIDE;
        }
        // The last positions (and one past the end, for a 3-byte literal that ends the input),
        // padded with spaces.
        while p <= hay.len() {
            let window = padded_window(hay, p);
            if self.lead(window | FOLD)
                && let Some(found) = visit(p, window)
            {
                return Some(found);
            }
            p += STRIDE;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn finds_every_occurrence_in_any_case_at_any_offset() {
        let filter = Prefilter::new(&literals(&[
            "fallen off the bus",
            "xid",
            "error",
            "nvrm: api",
        ]))
        .unwrap();
        for needle in [
            "fallen off the bus",
            "XID",
            "Xid",
            "ERROR",
            "NVRM: API",
            "xid",
        ] {
            for offset in 0..20 {
                for tail in 0..12 {
                    let hay = format!("{}{needle}{}", "q".repeat(offset), "j".repeat(tail));
                    let found = filter.find(hay.as_bytes());
                    assert!(found == Some(offset), "{hay:?}: {found:?}");
                }
            }
        }
    }

    #[test]
    fn each_literal_finds_what_an_overlapping_automaton_finds() {
        let words = [
            "fallen off the bus",
            "off the",
            "xid",
            "error",
            "nvrm: api",
            "nvrm",
            "bus",
        ];
        let filter = Prefilter::new(&literals(&words)).unwrap();
        let automaton = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(words)
            .unwrap();
        for line in [
            "NVRM: Xid 79: GPU has fallen off the bus.",
            "xid",
            "bus error ERROR xidxid",
            "nvrm: api mismatch",
            " fallen off the BUS",
            "nothing here",
        ] {
            for pad in 0..3 {
                let line = format!("{}{line}", " ".repeat(pad));
                let mut ours = Vec::new();
                filter.each_literal(line.as_bytes(), |l| ours.push(l));
                let mut theirs: Vec<usize> = automaton
                    .find_overlapping_iter(&line)
                    .map(|m| m.pattern().as_usize())
                    .collect();
                ours.sort();
                theirs.sort();
                assert_eq!(ours, theirs, "{line:?}");
            }
        }
    }

    #[test]
    fn an_adapted_filter_finds_the_same_literals() {
        let words = [
            "your kernel headers for kernel ",
            "fallen off the bus",
            "xid",
            "fail",
            "error",
            "nvrm: api",
            "kernel module",
        ];
        let filter = Prefilter::new(&literals(&words)).unwrap();
        let text = "[ 1.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module 550.54.15\n\
                    [ 2.0] your kernel headers for kernel 6.8 cannot be found\n\
                    [ 3.0] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus\n\
                    [ 4.0] nvidia: module verification failed\n"
            .repeat(50);
        // Adapted to a sample of the text itself, and to one with nothing in common with it.
        for sample in [text.as_bytes(), b"zzzz qqqq 0000 ....".as_slice()] {
            let adapted = filter.adapted(sample);
            for line in text.lines().take(4) {
                let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                adapted.each_literal(line.as_bytes(), |l| ours.push(l));
                filter.each_literal(line.as_bytes(), |l| theirs.push(l));
                ours.sort();
                theirs.sort();
                assert_eq!(ours, theirs, "{line:?}");
                assert!(!ours.is_empty());
            }
            let (mut a, mut b) = (0, 0);
            while let Some(p) = adapted.find(&text.as_bytes()[a..]) {
                let q = filter.find(&text.as_bytes()[b..]).expect("found by both");
                let line_end = |hay: &[u8], at: usize| {
                    at + hay[at..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .unwrap_or(hay.len() - at)
                };
                // Either may point at another literal of the line, never at another line.
                assert_eq!(
                    line_end(text.as_bytes(), a + p),
                    line_end(text.as_bytes(), b + q)
                );
                a = line_end(text.as_bytes(), a + p) + 1;
                b = a;
            }
            assert!(filter.find(&text.as_bytes()[b.min(text.len())..]).is_none());
        }
    }

    #[test]
    fn quiet_text_passes() {
        let filter = Prefilter::new(&literals(&["fallen off the bus", "xid", "error"])).unwrap();
        let quiet = "usb 1-2.3: new high-speed USB device number 7 using xhci_hcd\n".repeat(100);
        assert_eq!(filter.find(quiet.as_bytes()), None);
    }

    #[test]
    fn short_literals_switch_it_off() {
        assert!(Prefilter::new(&literals(&["ab"])).is_none());
    }
}
