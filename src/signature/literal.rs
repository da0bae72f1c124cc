//! Required literals: for each pattern, a small set of strings such that every match contains at
//! least one of them. The scanner looks for these with one Aho-Corasick pass over the input and runs
//! a signature's regex only on lines where one of its literals occurs.
//!
//! Literals are lowercased; the scan is ASCII case-insensitive, so a literal is a superset filter for
//! both `(?i)` and case-sensitive patterns. The regex always has the last word.

use regex_syntax::hir::{Class, Hir, HirKind};

/// At most this many alternatives in one literal set: more and the set is too weak to be worth it.
const MAX_SET: usize = 32;
/// Literals longer than this are truncated to a prefix (still required, since any prefix of a
/// required string is required).
const MAX_LEN: usize = 48;
/// A set whose shortest member is shorter than this is not selective enough to prefilter with.
pub const MIN_USEFUL: usize = 3;

type Set = Vec<Vec<u8>>;

#[derive(Debug, Default, Clone)]
struct Info {
    /// Every string the expression can match, if that is a small finite set.
    exact: Option<Set>,
    /// The best set of strings one of which every match contains.
    required: Option<Set>,
}

/// The required literal set of a parsed pattern, if a useful one exists.
pub fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let info = analyze(hir);
    let best = better(info.exact.and_then(normalize), info.required)?;
    (quality(&best) >= MIN_USEFUL as f64).then_some(best)
}

/// Higher is more selective: the shortest member's length, a little less for larger sets.
fn quality(set: &Set) -> f64 {
    let min = set.iter().map(Vec::len).min().unwrap_or(0) as f64;
    min - (set.len() as f64).log2() * 0.5
}

fn better(a: Option<Set>, b: Option<Set>) -> Option<Set> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if quality(&b) > quality(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

fn normalize(mut set: Set) -> Option<Set> {
    for s in &mut set {
        s.truncate(MAX_LEN);
    }
    set.sort();
    set.dedup();
    // A set containing "" (or nothing) gives no information.
    if set.is_empty() || set.iter().any(Vec::is_empty) || set.len() > MAX_SET {
        return None;
    }
    // If "abc" and "abcd" are both present, "abc" alone suffices.
    let mut minimal: Set = Vec::new();
    for s in set {
        if !minimal.iter().any(|m| contains(&s, m)) {
            minimal.retain(|m| !contains(m, &s));
            minimal.push(s);
        }
    }
    minimal.sort();
    Some(minimal)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

fn cross(a: &Set, b: &Set) -> Option<Set> {
    if a.len() * b.len() > MAX_SET {
        return None;
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            if x.len() + y.len() > MAX_LEN {
                return None;
            }
            let mut s = x.clone();
            s.extend_from_slice(y);
            out.push(s);
        }
    }
    Some(out)
}

fn lower(bytes: &[u8]) -> Vec<u8> {
    bytes.to_ascii_lowercase()
}

/// A class that, ignoring ASCII case, is one of a few strings.
fn class_strings(class: &Class) -> Option<Set> {
    let mut out: Set = Vec::new();
    match class {
        Class::Unicode(c) => {
            let mut count = 0u32;
            for range in c.ranges() {
                count += range.end() as u32 - range.start() as u32 + 1;
                if count > 8 {
                    return None;
                }
                for ch in range.start()..=range.end() {
                    // Case folding adds the Kelvin sign to k and the long s to s: they fold to ASCII.
                    let ch = match ch {
                        '\u{212a}' => 'k',
                        '\u{17f}' => 's',
                        '\u{212b}' => 'å',
                        c => c,
                    };
                    let mut buf = [0; 4];
                    out.push(lower(ch.encode_utf8(&mut buf).as_bytes()));
                }
            }
        }
        Class::Bytes(c) => {
            let mut count = 0u32;
            for range in c.ranges() {
                count += range.end() as u32 - range.start() as u32 + 1;
                if count > 8 {
                    return None;
                }
                for b in range.start()..=range.end() {
                    out.push(vec![b.to_ascii_lowercase()]);
                }
            }
        }
    }
    out.sort();
    out.dedup();
    (out.len() <= 4).then_some(out)
}

fn analyze(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info {
            exact: Some(vec![Vec::new()]),
            required: None,
        },
        HirKind::Literal(lit) => {
            let s = lower(&lit.0);
            Info {
                exact: Some(vec![s.clone()]),
                required: normalize(vec![s]),
            }
        }
        HirKind::Class(class) => {
            let exact = class_strings(class);
            Info {
                required: exact.clone().and_then(normalize),
                exact,
            }
        }
        HirKind::Capture(cap) => analyze(&cap.sub),
        HirKind::Repetition(rep) => {
            let sub = analyze(&rep.sub);
            if rep.min == 0 {
                // `x?` is exactly x or nothing; longer optional repeats give nothing usable.
                let exact = match (rep.max, sub.exact) {
                    (Some(1), Some(mut set)) => {
                        set.push(Vec::new());
                        Some(set)
                    }
                    _ => None,
                };
                Info {
                    exact,
                    required: None,
                }
            } else {
                let exact = match (rep.min, rep.max) {
                    (1, Some(1)) => sub.exact.clone(),
                    _ => None,
                };
                Info {
                    exact,
                    required: better(sub.exact.and_then(normalize), sub.required),
                }
            }
        }
        HirKind::Concat(children) => {
            let mut candidate: Option<Set> = None;
            let mut run: Option<Set> = Some(vec![Vec::new()]);
            let mut all_exact = true;
            for child in children {
                let info = analyze(child);
                match info.exact {
                    Some(exact) => {
                        let joined = run.as_ref().and_then(|r| cross(r, &exact));
                        match joined {
                            Some(j) => run = Some(j),
                            None => {
                                // The run is full: keep it as a candidate and start again.
                                all_exact = false;
                                let done = run.take().and_then(normalize);
                                candidate = better(candidate, done);
                                run = Some(exact);
                            }
                        }
                    }
                    None => {
                        all_exact = false;
                        let done = run.take().and_then(normalize);
                        candidate = better(candidate, done);
                        candidate = better(candidate, info.required);
                        run = Some(vec![Vec::new()]);
                    }
                }
            }
            let exact = if all_exact { run.clone() } else { None };
            let done = run.and_then(normalize);
            Info {
                exact,
                required: better(candidate, done),
            }
        }
        HirKind::Alternation(children) => {
            let infos: Vec<Info> = children.iter().map(analyze).collect();
            let exact = infos
                .iter()
                .map(|i| i.exact.clone())
                .collect::<Option<Vec<Set>>>()
                .map(|sets| sets.concat())
                .filter(|s| s.len() <= MAX_SET);
            let required = infos
                .into_iter()
                .map(|i| better(i.exact.and_then(normalize), i.required))
                .collect::<Option<Vec<Set>>>()
                .map(|sets| sets.concat())
                .and_then(normalize);
            Info { exact, required }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, expect: &[&str]) {
        let hir = regex_syntax::parse(pattern).unwrap();
        let got = required_literals(&hir);
        let got: Vec<String> = got
            .unwrap_or_default()
            .into_iter()
            .map(|s| String::from_utf8(s).unwrap())
            .collect();
        assert_eq!(got, expect, "for {pattern}");
    }

    #[test]
    fn picks_the_longest_required_run() {
        check(
            r"NVRM: Xid \(PCI:(?P<pci>[0-9a-f:.]+)\): (?P<xid>79),",
            &["nvrm: xid (pci:"],
        );
        check(
            r"GPU has fallen off the bus",
            &["gpu has fallen off the bus"],
        );
        check(
            r"(?P<pci>\S+) PCIe Bus Error: severity=",
            &[" pcie bus error: severity="],
        );
    }

    #[test]
    fn alternations_give_a_set() {
        check(
            r"Clock skew detected|System clock wrong by (?P<skew>[\d.]+)s",
            &["clock skew detected", "system clock wrong by "],
        );
        check(
            r"HW (?:Power Brake |Thermal )?Slowdown: Active",
            &[
                "hw power brake slowdown: active",
                "hw slowdown: active",
                "hw thermal slowdown: active",
            ],
        );
        check(r"(?:NCCL|nccl) WARN", &["nccl warn"]);
    }

    #[test]
    fn case_insensitive_patterns() {
        check(
            r"(?i)failed to initialize nvml",
            &["failed to initialize nvml"],
        );
    }

    #[test]
    fn optional_parts_join_into_variants() {
        check(r"Xid \((?:PCI:)?", &["xid ("]);
    }

    #[test]
    fn nothing_useful() {
        check(r"\d+\s+\w+", &[]);
        check(r"a|bc", &[]);
        check(r".*", &[]);
    }

    #[test]
    fn unicode_literals() {
        check("驱动版本不匹配", &["驱动版本不匹配"]);
    }
}
