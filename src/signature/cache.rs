//! A cache of pattern analyses (the required literals of each pattern), so that start-up does not
//! parse every pattern again. It lives in `<root>/.lore/` like every cache: keyed by the pattern
//! text itself, versioned, and thrown away whole if anything about it looks wrong.

use std::collections::HashMap;

/// Bump when literal extraction or the validity rules change: old caches are then ignored.
const VERSION: &[u8] = b"lore-pattern-cache 6\n";
const NO_LITERAL: u16 = u16::MAX;

/// What the scan needs to know of a pattern's text: the literal set one of which every match
/// contains (`None`: no usable literal), and further sets a match must also contain.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Literals {
    pub required: Option<Vec<Vec<u8>>>,
    pub also: Vec<Vec<Vec<u8>>>,
}

/// Pattern text → its [`Literals`]. Only patterns that passed every check are stored.
///
/// A cache read from disk stays the bytes it was read as, with an index from each pattern's hash
/// to its record: an entry is decoded only when asked for. Decoding all of them into a map up
/// front, and freeing that map afterwards, cost more of a paste's start-up than the analyses the
/// cache saves the matcher from.
#[derive(Debug, Default, Clone)]
pub struct PatternCache {
    /// The file as read (the version line, then its records), or empty.
    raw: Vec<u8>,
    /// Hash of a pattern's text → where its record starts in `raw`. Two patterns with the same
    /// hash keep the first: the other is then analysed again, as if it were not stored.
    index: HashMap<u64, usize, crate::hash::BuildPrehashed>,
    /// Entries added since the file was read (none of them in `raw`).
    added: HashMap<String, Literals>,
    dirty: bool,
}

impl PatternCache {
    pub fn get(&self, pattern: &str) -> Option<Literals> {
        if let Some(found) = self.added.get(pattern) {
            return Some(found.clone());
        }
        let at = *self.index.get(&crate::hash::fnv1a(pattern.as_bytes()))?;
        let mut rest = &self.raw[at..];
        let (stored, literals) = record(&mut rest)?;
        (stored == pattern.as_bytes()).then_some(literals)
    }

    pub fn insert(&mut self, pattern: String, literals: Literals) {
        self.added.insert(pattern, literals);
        self.dirty = true;
    }

    /// Whether entries were added or dropped since it was read.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    pub fn len(&self) -> usize {
        self.index.len() + self.added.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps only the patterns in `keep` (so a cache does not grow forever as runbooks change).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        let before = self.len();
        let mut entries = self.entries();
        entries.retain(|(pattern, _)| keep(pattern));
        self.raw.clear();
        self.index.clear();
        self.added = entries.into_iter().collect();
        self.dirty |= self.len() != before;
    }

    /// Every entry, decoded.
    fn entries(&self) -> Vec<(String, Literals)> {
        let mut entries: Vec<(String, Literals)> = self
            .added
            .iter()
            .map(|(p, l)| (p.clone(), l.clone()))
            .collect();
        for &at in self.index.values() {
            let mut rest = &self.raw[at..];
            if let Some((pattern, literals)) = record(&mut rest)
                && let Ok(pattern) = std::str::from_utf8(pattern)
            {
                entries.push((pattern.to_string(), literals));
            }
        }
        entries
    }

    /// Reads a cache, keeping the bytes as they are (no copy); anything unreadable gives an
    /// empty cache.
    pub fn parse(bytes: Vec<u8>) -> PatternCache {
        Self::try_parse(bytes).unwrap_or_default()
    }

    /// Checks every record's shape (one that does not hold together spoils the whole file) and
    /// indexes where each starts; nothing is decoded.
    fn try_parse(raw: Vec<u8>) -> Option<PatternCache> {
        let mut index: HashMap<u64, usize, crate::hash::BuildPrehashed> =
            HashMap::with_capacity_and_hasher(raw.len() / 128, Default::default());
        let mut rest = raw.strip_prefix(VERSION)?;
        while !rest.is_empty() {
            let at = raw.len() - rest.len();
            let pattern = take(&mut rest)?;
            std::str::from_utf8(pattern).ok()?;
            let count = take_count(&mut rest)?;
            if count != NO_LITERAL {
                skip_set(&mut rest, count)?;
            }
            for _ in 0..take_count(&mut rest)? {
                let count = take_count(&mut rest)?;
                skip_set(&mut rest, count)?;
            }
            index.entry(crate::hash::fnv1a(pattern)).or_insert(at);
        }
        Some(PatternCache {
            raw,
            index,
            added: HashMap::new(),
            dirty: false,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = VERSION.to_vec();
        let mut entries = self.entries();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (pattern, literals) in entries {
            put(&mut out, pattern.as_bytes());
            match &literals.required {
                None => out.extend_from_slice(&NO_LITERAL.to_le_bytes()),
                Some(set) => put_set(&mut out, set),
            }
            out.extend_from_slice(&(literals.also.len() as u16).to_le_bytes());
            for set in &literals.also {
                put_set(&mut out, set);
            }
        }
        out
    }
}

/// One record: the pattern's text and its literals.
fn record<'a>(rest: &mut &'a [u8]) -> Option<(&'a [u8], Literals)> {
    let pattern = take(rest)?;
    let count = take_count(rest)?;
    let required = if count == NO_LITERAL {
        None
    } else {
        Some(take_set(rest, count)?)
    };
    let mut also = Vec::new();
    for _ in 0..take_count(rest)? {
        let count = take_count(rest)?;
        also.push(take_set(rest, count)?);
    }
    Some((pattern, Literals { required, also }))
}

fn skip_set(rest: &mut &[u8], count: u16) -> Option<()> {
    for _ in 0..count {
        take(rest)?;
    }
    Some(())
}

fn take_count(rest: &mut &[u8]) -> Option<u16> {
    let count = u16::from_le_bytes(rest.get(..2)?.try_into().ok()?);
    *rest = &rest[2..];
    Some(count)
}

fn take_set(rest: &mut &[u8], count: u16) -> Option<Vec<Vec<u8>>> {
    let mut set = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        set.push(take(rest)?.to_vec());
    }
    Some(set)
}

fn put_set(out: &mut Vec<u8>, set: &[Vec<u8>]) {
    out.extend_from_slice(&(set.len() as u16).to_le_bytes());
    for literal in set {
        put(out, literal);
    }
}

fn take<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let value = rest.get(4..4 + len)?;
    *rest = &rest[4 + len..];
    Some(value)
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut cache = PatternCache::default();
        let xid = Literals {
            required: Some(vec![b"nvrm: xid".to_vec(), "掉卡".as_bytes().to_vec()]),
            also: vec![vec![b"79".to_vec()], vec![b"gpu".to_vec(), b"bus".to_vec()]],
        };
        cache.insert("NVRM: Xid".into(), xid.clone());
        cache.insert(r"\d+".into(), Literals::default());
        assert!(cache.is_dirty());
        let read = PatternCache::parse(cache.to_bytes());
        assert!(!read.is_dirty());
        assert_eq!(read.len(), 2);
        assert_eq!(read.get(r"\d+"), Some(Literals::default()));
        assert_eq!(read.get("NVRM: Xid"), Some(xid));
    }

    #[test]
    fn garbage_is_an_empty_cache() {
        assert!(PatternCache::parse(Vec::new()).is_empty());
        assert!(PatternCache::parse(b"lore-pattern-cache 1\n\x05".to_vec()).is_empty());
        let mut bytes = PatternCache::default().to_bytes();
        bytes.extend_from_slice(&[9, 0, 0, 0, b'x']);
        assert!(
            PatternCache::parse(bytes).is_empty(),
            "a truncated record spoils the file"
        );
    }
}
