//! The one non-cryptographic hash lore keeps for stable names: FNV-1a, 64 bits. Its value never
//! depends on the build, the platform or the process (unlike std's `DefaultHasher`), so it can name
//! asset versions in URLs and file contents in etags.

/// A strong validator of a file's content (FNV-1a, hex, quoted as HTTP wants it): what an edit
/// of a postmortem or a runbook sends back in `If-Match`.
pub fn etag(bytes: &[u8]) -> String {
    format!("\"{:016x}\"", fnv1a(bytes))
}

/// FNV-1a (64-bit) of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_extend(0xcbf2_9ce4_8422_2325, bytes)
}

/// Continues an FNV-1a hash over more bytes: `fnv1a_extend(fnv1a(a), b) == fnv1a(a ++ b)`.
pub fn fnv1a_extend(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// For maps whose keys are already [`fnv1a`] hashes: the key is its own hash, so a lookup does
/// not hash the bytes a second time.
#[derive(Debug, Default, Clone, Copy)]
pub struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are meant; anything else is still hashed, never ignored.
        self.0 = fnv1a_extend(self.0 ^ 0xcbf2_9ce4_8422_2325, bytes);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub type BuildPrehashed = std::hash::BuildHasherDefault<Prehashed>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_extension() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_extend(fnv1a(b"foo"), b"bar"), fnv1a(b"foobar"));
    }
}
