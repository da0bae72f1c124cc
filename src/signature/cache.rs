//! A cache of pattern analyses (the required literals of each pattern), so that start-up does not
//! parse every pattern again. It lives in `<root>/.lore/` like every cache: keyed by the pattern
//! text itself, versioned, and thrown away whole if anything about it looks wrong.

use std::collections::HashMap;

/// Bump when literal extraction or the validity rules change: old caches are then ignored.
const VERSION: &[u8] = b"lore-pattern-cache 4\n";
const NO_LITERAL: u16 = u16::MAX;

/// What the scan needs to know of a pattern's text: the literal set one of which every match
/// contains (`None`: no usable literal), and further sets a match must also contain.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Literals {
    pub required: Option<Vec<Vec<u8>>>,
    pub also: Vec<Vec<Vec<u8>>>,
}

/// Pattern text → its [`Literals`]. Only patterns that passed every check are stored.
#[derive(Debug, Default, Clone)]
pub struct PatternCache {
    map: HashMap<String, Literals>,
    dirty: bool,
}

impl PatternCache {
    pub fn get(&self, pattern: &str) -> Option<&Literals> {
        self.map.get(pattern)
    }

    pub fn insert(&mut self, pattern: String, literals: Literals) {
        self.map.insert(pattern, literals);
        self.dirty = true;
    }

    /// Whether entries were added since it was read.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Keeps only the patterns in `keep` (so a cache does not grow forever as runbooks change).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        let before = self.map.len();
        self.map.retain(|k, _| keep(k));
        self.dirty |= self.map.len() != before;
    }

    /// Reads a cache; anything unreadable gives an empty cache.
    pub fn parse(bytes: &[u8]) -> PatternCache {
        Self::try_parse(bytes).unwrap_or_default()
    }

    fn try_parse(bytes: &[u8]) -> Option<PatternCache> {
        let mut rest = bytes.strip_prefix(VERSION)?;
        let mut map = HashMap::new();
        while !rest.is_empty() {
            let pattern = String::from_utf8(take(&mut rest)?.to_vec()).ok()?;
            let count = take_count(&mut rest)?;
            let required = if count == NO_LITERAL {
                None
            } else {
                Some(take_set(&mut rest, count)?)
            };
            let mut also = Vec::new();
            for _ in 0..take_count(&mut rest)? {
                let count = take_count(&mut rest)?;
                also.push(take_set(&mut rest, count)?);
            }
            map.insert(pattern, Literals { required, also });
        }
        Some(PatternCache { map, dirty: false })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = VERSION.to_vec();
        let mut entries: Vec<_> = self.map.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
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
        let read = PatternCache::parse(&cache.to_bytes());
        assert!(!read.is_dirty());
        assert_eq!(read.len(), 2);
        assert_eq!(read.get(r"\d+"), Some(&Literals::default()));
        assert_eq!(read.get("NVRM: Xid"), Some(&xid));
    }

    #[test]
    fn garbage_is_an_empty_cache() {
        assert!(PatternCache::parse(b"").is_empty());
        assert!(PatternCache::parse(b"lore-pattern-cache 1\n\x05").is_empty());
        let mut bytes = PatternCache::default().to_bytes();
        bytes.extend_from_slice(&[9, 0, 0, 0, b'x']);
        assert!(
            PatternCache::parse(&bytes).is_empty(),
            "a truncated record spoils the file"
        );
    }
}
