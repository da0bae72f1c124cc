//! How often a signature's regex would run on ordinary log text. The scanner runs a signature's
//! regex only on lines that hold one of its required literals (and one of each further set), so a
//! literal that healthy lines carry (`docker0`, `mlx5_`, `nccl`) sends a busy log's lines to a
//! regex one by one: matching that ran at a gigabyte a second ran at megabytes. `lore check` warns
//! about such a signature, measured on `ordinary.log`, a sample of healthy output.

use std::sync::LazyLock;

/// At or above this share of ordinary lines, a signature's literals are commonplace. The shipped
/// library's signatures stay under it; the literals that once slowed matching two-hundredfold
/// (`docker0`, `mlx5_`) are each on more than it.
pub const COMMONPLACE: f64 = 0.02;

static SAMPLE: &str = include_str!("ordinary.log");

/// The sample's lines, as written and lowercased (literals are lowercase; the scan ignores ASCII
/// case).
static LINES: LazyLock<Vec<(&'static str, String)>> = LazyLock::new(|| {
    SAMPLE
        .lines()
        .filter(|l| !l.starts_with("# ") && !l.trim().is_empty())
        .map(|l| (l, l.to_ascii_lowercase()))
        .collect()
});

/// What a signature's literals let through on ordinary text.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    /// The share of the sample's lines the regex would run on.
    pub share: f64,
    /// The required literal found on most of those lines.
    pub literal: String,
    /// One such line.
    pub line: &'static str,
}

/// The share of ordinary lines that hold one of `required` and one of each set in `also`, and
/// which literal lets most of them through. `None` if no line does (or there is no literal: that
/// case has its own warning).
pub fn share(required: &[Vec<u8>], also: &[Vec<Vec<u8>>]) -> Option<Share> {
    if required.is_empty() {
        return None;
    }
    let contains =
        |hay: &str, needle: &[u8]| memchr::memmem::find(hay.as_bytes(), needle).is_some();
    let mut by_literal = vec![0usize; required.len()];
    let mut first_line: Vec<Option<&'static str>> = vec![None; required.len()];
    let mut through = 0;
    for (line, lower) in LINES.iter() {
        let Some(at) = required.iter().position(|l| contains(lower, l)) else {
            continue;
        };
        if !also
            .iter()
            .all(|set| set.iter().any(|l| contains(lower, l)))
        {
            continue;
        }
        through += 1;
        by_literal[at] += 1;
        first_line[at].get_or_insert(line);
    }
    let (most, _) = by_literal.iter().enumerate().max_by_key(|(_, n)| **n)?;
    Some(Share {
        share: through as f64 / LINES.len().max(1) as f64,
        literal: String::from_utf8_lossy(&required[most]).into_owned(),
        line: first_line[most]?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn a_commonplace_literal_is_measured_and_named() {
        let s = share(&set(&["docker0", "no such phrase here"]), &[]).unwrap();
        assert!(s.share >= COMMONPLACE, "{s:?}");
        assert_eq!(s.literal, "docker0");
        assert!(s.line.contains("docker0: port"), "{}", s.line);
        // A further required set narrows what gets through.
        let narrowed = share(&set(&["docker0"]), &[set(&["blocking state"])]).unwrap();
        assert!(narrowed.share < s.share, "{narrowed:?}");
        // The words that once sent a third of a busy log's lines to large regexes.
        for word in ["mlx5_", "nccl", "nvrm:"] {
            assert!(
                share(&set(&[word]), &[]).unwrap().share >= COMMONPLACE,
                "{word}"
            );
        }
        assert_eq!(share(&set(&["docker0"]), &[set(&["never printed"])]), None);
    }

    #[test]
    fn a_specific_phrase_is_rare() {
        assert_eq!(
            share(&set(&["api mismatch: the client has the version"]), &[]),
            None
        );
        assert_eq!(share(&[], &[]), None);
    }

    #[test]
    fn the_sample_is_lines_of_ordinary_output() {
        assert!(LINES.len() >= 300, "{}", LINES.len());
        assert!(LINES.iter().all(|(l, _)| !l.starts_with("# ")));
    }
}
