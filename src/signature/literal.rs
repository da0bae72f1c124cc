//! Required literals: for each pattern, a small set of strings such that every match contains at
//! least one of them. The scanner looks for these with one Aho-Corasick pass over the input and runs
//! a signature's regex only on lines where one of its literals occurs.
//!
//! Literals are lowercased; the scan is ASCII case-insensitive, so a literal is a superset filter for
//! both `(?i)` and case-sensitive patterns. The regex always has the last word.

use regex_syntax::hir::{Class, Hir, HirKind};

/// At most this many alternatives in one literal set: more and the set is too weak to be worth it.
const MAX_SET: usize = 64;
/// A pattern that is an alternation of phrases (an operator's retyped wordings) may keep this many:
/// their union is as selective as its members, where falling back to each branch's small set
/// picks a commonplace word (`nccl`) that sends every line of a busy log to a large regex.
const MAX_UNION: usize = 256;
/// Literals longer than this are truncated to a prefix (still required, since any prefix of a
/// required string is required).
const MAX_LEN: usize = 48;
/// A set whose shortest member is shorter than this is not selective enough to prefilter with.
const MIN_USEFUL: usize = 3;

type Set = Vec<Vec<u8>>;

#[derive(Debug, Default, Clone)]
struct Info {
    /// Every string the expression can match, if that is a small finite set.
    exact: Option<Set>,
    /// The best set of strings one of which every match contains.
    required: Option<Set>,
    /// The best such set with at most `SMALL` members, for alternations that would overflow.
    small: Option<Set>,
}

const SMALL: usize = 4;

impl Info {
    fn exact(set: Option<Set>) -> Info {
        let required = set.clone().and_then(normalize);
        Info {
            small: required.clone().filter(|r| r.len() <= SMALL),
            exact: set,
            required,
        }
    }

    fn nothing() -> Info {
        Info::default()
    }
}

/// Keeps the best candidate overall and the best small one (and, when asked, every one).
#[derive(Default)]
struct Best {
    any: Option<Set>,
    small: Option<Set>,
    every: Option<Vec<Set>>,
}

impl Best {
    fn offer(&mut self, set: Option<Set>) {
        if let Some(set) = set {
            if let Some(every) = &mut self.every {
                every.push(set.clone());
            }
            if set.len() <= SMALL {
                self.small = better(self.small.take(), Some(set.clone()));
            }
            self.any = better(self.any.take(), Some(set));
        }
    }
}

/// The required literal set of a parsed pattern, if a useful one exists.
pub fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let info = analyze(hir);
    let best = better(info.exact.and_then(normalize), info.required)?;
    let shortest = best.iter().map(Vec::len).min().unwrap_or(0);
    (shortest >= MIN_USEFUL && best.len() <= MAX_UNION).then_some(best)
}

/// Further sets a match must also contain, besides the required set (each alone, since a
/// pattern's parts are all required): the literal runs and required parts of its top-level
/// concatenation, most selective first, without `primary`. They rule out the candidates of a
/// family of patterns that share their required literal (`NVRM: Xid (PCI:` and a different number
/// or message each) before any regex of the family is built.
pub fn also_required(hir: &Hir, primary: &[Vec<u8>]) -> Vec<Vec<Vec<u8>>> {
    let mut hir = hir;
    while let HirKind::Capture(cap) = hir.kind() {
        hir = &cap.sub;
    }
    let HirKind::Concat(children) = hir.kind() else {
        return Vec::new();
    };
    let mut best = Best {
        every: Some(Vec::new()),
        ..Best::default()
    };
    concat(children, &mut best);
    let mut sets: Vec<Set> = best
        .every
        .unwrap_or_default()
        .into_iter()
        .filter(|set| set.as_slice() != primary)
        .filter(|set| set.iter().all(|l| l.len() >= 2) && set.len() <= MAX_SET)
        .collect();
    sets.sort_by(|a, b| quality(b).total_cmp(&quality(a)).then_with(|| a.cmp(b)));
    // A set that a chosen one (or the required set) implies adds nothing: every member of the
    // other contains one of its literals.
    let implies = |a: &[Vec<u8>], b: &[Vec<u8>]| a.iter().all(|x| b.iter().any(|y| contains(x, y)));
    let mut chosen: Vec<Set> = Vec::new();
    for set in sets {
        if !implies(primary, &set) && !chosen.iter().any(|c| implies(c, &set)) {
            chosen.push(set);
        }
    }
    chosen.truncate(MAX_ALSO);
    chosen
}

/// At most this many further sets per pattern.
const MAX_ALSO: usize = 2;

/// Higher is more selective: the shortest member's length, a little less for larger sets.
fn quality(set: &Set) -> f64 {
    let min = set
        .iter()
        .map(|s| {
            if is_commonplace(s) {
                s.len() as f64 * 0.3
            } else {
                s.len() as f64
            }
        })
        .fold(f64::INFINITY, f64::min);
    min - (set.len() as f64).log2() * 0.5
}

/// Words that start half the lines of a GPU node's logs. A literal made only of them ("nvrm: ",
/// "mlx5_core", "nvme nvme") finds candidates everywhere, so any other literal is preferred.
const COMMONPLACE: &[&str] = &[
    "nvrm",
    "nvidia",
    "kernel",
    "mlx5_core",
    "mlx5",
    "nvme",
    "pcieport",
    "pci",
    "gpu",
    "cuda",
    "nccl",
    "info",
    "debug",
    "notice",
    "systemd",
    "containerd",
    "dockerd",
    "kubelet",
    "python",
    "python3",
    "torch",
    "audit",
    // Every boot loads UVM ("nvidia-uvm: Loaded the UVM driver") and lsmod lists it.
    "uvm",
    // An everyday word ("full", "fully"): a set holding it finds candidates on many lines.
    "full",
    "usb",
    "acpi",
    "scsi",
    "ata",
    "ext4",
    "xfs",
    "ib",
    "eth",
    "net",
    "the",
    "and",
    "for",
    "to",
    "of",
    "in",
    "on",
    "at",
    "is",
    "a",
];

fn is_commonplace(literal: &[u8]) -> bool {
    let mut words = literal
        .split(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .filter(|w| !w.is_empty())
        .peekable();
    words.peek().is_some()
        && words.all(|w| {
            w.len() <= 2
                || w.iter().all(u8::is_ascii_digit)
                || COMMONPLACE.iter().any(|c| c.as_bytes() == w)
        })
}

fn better(a: Option<Set>, b: Option<Set>) -> Option<Set> {
    match (a, b) {
        // A set the prefilter can use beats one it cannot (a member under `MIN_USEFUL`), however
        // commonplace its words: picking `": "` over `"nvme "` would leave the pattern with no
        // literal at all, tried on every line.
        (Some(a), Some(b)) if usable(&a) != usable(&b) => Some(if usable(&a) { a } else { b }),
        (Some(a), Some(b)) => Some(if quality(&b) > quality(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

fn usable(set: &Set) -> bool {
    set.iter().all(|s| s.len() >= MIN_USEFUL)
}

fn normalize(set: Set) -> Option<Set> {
    normalize_up_to(set, MAX_SET)
}

fn normalize_up_to(mut set: Set, max: usize) -> Option<Set> {
    for s in &mut set {
        s.truncate(MAX_LEN);
    }
    set.sort();
    set.dedup();
    // A set containing "" (or nothing) gives no information.
    if set.is_empty() || set.iter().any(Vec::is_empty) || set.len() > max {
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
            ..Info::nothing()
        },
        HirKind::Literal(lit) => Info::exact(Some(vec![lower(&lit.0)])),
        HirKind::Class(class) => Info::exact(class_strings(class)),
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
                    ..Info::nothing()
                }
            } else {
                let once = matches!((rep.min, rep.max), (1, Some(1)));
                Info {
                    exact: if once { sub.exact } else { None },
                    required: sub.required,
                    small: sub.small,
                }
            }
        }
        HirKind::Concat(children) => concat(children, &mut Best::default()),
        HirKind::Alternation(children) => {
            let infos: Vec<Info> = children.iter().map(analyze).collect();
            let exact = infos
                .iter()
                .map(|i| i.exact.clone())
                .collect::<Option<Vec<Set>>>()
                .map(|sets| sets.concat())
                .filter(|s| s.len() <= MAX_SET);
            let union = |pick: fn(&Info) -> Option<Set>| {
                infos
                    .iter()
                    .map(pick)
                    .collect::<Option<Vec<Set>>>()
                    .map(|sets| sets.concat())
                    .and_then(|set| normalize_up_to(set, MAX_UNION))
            };
            let required =
                union(|i| better(i.exact.clone().and_then(normalize), i.required.clone()))
                    .or_else(|| union(|i| i.small.clone()));
            let small = union(|i| i.small.clone()).filter(|s| s.len() <= SMALL);
            Info {
                exact,
                required,
                small,
            }
        }
    }
}

/// A concatenation: runs of exact parts joined into literals, each run and each inexact part's
/// required set offered to `best`. Every set offered here is required of every match.
fn concat(children: &[Hir], best: &mut Best) -> Info {
    let mut run: Option<Set> = Some(vec![Vec::new()]);
    let mut all_exact = true;
    for child in children {
        let info = analyze(child);
        match info.exact {
            Some(exact) => {
                // Every prefix of the run is required too: offer it before it branches.
                if exact.len() > 1 {
                    best.offer(run.clone().and_then(normalize));
                }
                match run.as_ref().and_then(|r| cross(r, &exact)) {
                    Some(joined) => run = Some(joined),
                    None => {
                        all_exact = false;
                        best.offer(run.take().and_then(normalize));
                        run = Some(exact);
                    }
                }
            }
            None => {
                all_exact = false;
                best.offer(run.take().and_then(normalize));
                best.offer(info.required);
                best.offer(info.small);
                run = Some(vec![Vec::new()]);
            }
        }
    }
    let exact = if all_exact { run.clone() } else { None };
    best.offer(run.and_then(normalize));
    Info {
        exact,
        required: best.any.take(),
        small: best.small.take(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn also(pattern: &str) -> Vec<Vec<String>> {
        let hir = regex_syntax::parse(pattern).unwrap();
        let primary = required_literals(&hir).unwrap();
        also_required(&hir, &primary)
            .into_iter()
            .map(|set| {
                set.into_iter()
                    .map(|l| String::from_utf8(l).unwrap())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn further_required_sets_come_from_the_top_level_parts() {
        assert_eq!(
            also(r"NVRM: Xid \(PCI:(?P<pci>[0-9a-f:.]+)\): (?P<xid>79),"),
            vec![vec!["): 79,".to_string()]]
        );
        assert_eq!(
            also(r"(?i)Xid (?P<xid>13|31|43) on \S+ fallen off"),
            vec![vec![
                "xid 13 on ".to_string(),
                "xid 31 on ".to_string(),
                "xid 43 on ".to_string()
            ]],
            "the required set is ` fallen off`; `xid ` is implied by the set chosen"
        );
        // Nothing beyond the required set: one literal, or an alternation at the top.
        assert!(also("fallen off the bus").is_empty());
        assert!(also("fallen off the bus|Xid 79 detected").is_empty());
        // An optional part is not required.
        assert!(also(r"GPU has fallen off the bus(?:\. pid=\d+)?").is_empty());
    }

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

    /// Commonplace words still beat a run too short to search for: with `": "` chosen, the
    /// pattern would have no literal and run on every line.
    #[test]
    fn a_usable_set_beats_one_too_short() {
        check(
            r"(?:mlx5_core|nvme) \S+: (?P<what>.+)",
            &["mlx5_core ", "nvme "],
        );
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
    fn a_branching_run_still_offers_its_common_prefix() {
        // Regression: the optional parts after `cuInit` made 32 variants, and the alternation with
        // two more branches overflowed, leaving the signature without any literal.
        let hir = regex_syntax::parse(
            r"(?:cuInit(?:\(0\))?(?: failed)?:? ?(?:CUDA_ERROR_UNKNOWN|unknown)|failed call to cuInit: CUDA_ERROR_UNKNOWN|cudaGetDeviceCount returned (?:30|999)\b)",
        )
        .unwrap();
        let set = required_literals(&hir).expect("a literal set");
        for literal in set {
            let literal = String::from_utf8(literal).unwrap();
            assert!(
                literal.starts_with("cuinit") || literal.starts_with("cudagetdevicecount"),
                "{literal}"
            );
        }
    }

    #[test]
    fn commonplace_prefixes_lose_to_the_message() {
        check(
            r"mlx5_core \S+: (?:device's health compromised|Fatal error \d+ detected)",
            &["device's health compromised", "fatal error "],
        );
        // Still better than nothing when it is all there is.
        check(r"nvme nvme\d+: \w+", &["nvme nvme"]);
        // Every boot's "nvidia-uvm: Loaded the UVM driver", and an everyday word: the other set
        // is the one to look for (with either, the scan of a large healthy log found candidates
        // on a third more lines).
        check(
            r"(?i)\bnvidia[-_]uvm\b[^\n]{0,20}?\b(?:is |was )?(?:not loaded|missing|not found)\b",
            &["missing", "not found", "not loaded"],
        );
        check(
            r"(?i)(?:/dev/shm|\bshm\b|shared memory)[^\n]{0,20}?\b(?:too small|is full|full)\b",
            &["shared memory", "shm"],
        );
    }

    #[test]
    fn unicode_literals() {
        check("驱动版本不匹配", &["驱动版本不匹配"]);
    }
}
