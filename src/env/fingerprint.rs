//! Reading versions out of a paste: each recognised line gives a field, its value, the line
//! number and what printed it. The first value of a field is kept; a later different value from
//! another source is a conflict (a half-finished upgrade shows up exactly so).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

mod needles;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    pub value: String,
    /// 1-based line of the paste.
    pub line: u64,
    /// What printed it: `nvidia-smi`, `/proc/driver/nvidia/version`, `collect_env`...
    pub source: &'static str,
}

/// Two sources that disagree about one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    pub field: String,
    pub values: Vec<Field>,
}

#[derive(Debug, Clone, Default)]
pub struct Fingerprint {
    pub fields: BTreeMap<String, Field>,
    pub conflicts: Vec<Conflict>,
    /// The other GPUs one tool names after the first (nvidia-smi's table, collect_env's `GPU 1`):
    /// a machine with GPUs of two architectures is judged for each.
    pub more_gpus: Vec<Field>,
}

impl Fingerprint {
    pub fn get(&self, field: &str) -> Option<&Field> {
        self.fields.get(field)
    }

    fn add(&mut self, field: &str, value: &str, line: u64, source: &'static str) {
        let mut value = value.trim();
        // nvidia-smi's cut name keeps its mark (`Tesla P100-PCIE...`): it is not the whole.
        if !(field == "gpu" && value.ends_with("...")) {
            value = value.trim_end_matches(['.', ',', ':']).trim_end();
        }
        // "Operating System: Version: win10": a form's answer that repeats a label.
        if field == "os"
            && let Some(rest) = value
                .get(..8)
                .filter(|p| p.eq_ignore_ascii_case("version:"))
                .map(|_| value[8..].trim_start())
        {
            value = rest;
        }
        let value = if field == "gpu" {
            match gpu_name(value) {
                Some(name) => name.into_owned(),
                None => return,
            }
        } else {
            value.to_string()
        };
        if value.is_empty() {
            return;
        }
        let new = Field {
            value,
            line,
            source,
        };
        match self.fields.get(field) {
            None => {
                self.fields.insert(field.to_string(), new);
            }
            // The same version again, printed more fully (NVML's `575.64` and a package's
            // `575.64.03`): the fuller one is kept.
            Some(old) if same_value(field, &old.value, &new.value) => {
                let parts = |v: &str| v.split('.').count();
                // (Not a module: kmods built for two kernels can be two builds.)
                // A GPU's name: the one that says more (not nvidia-smi's cut `Tesla P100-PCIE...`
                // when the whole is printed too), else the better source's.
                let said = |v: &str| v.trim_end_matches("...").trim_end().len();
                let better_gpu = field == "gpu"
                    && (said(&new.value), source_rank(new.source))
                        > (said(&old.value), source_rank(old.source));
                if better_gpu
                    || !["gpu", "os", "kernel_module"].contains(&field)
                        && parts(&new.value) > parts(&old.value)
                        && new.value.starts_with(old.value.as_str())
                {
                    self.fields.insert(field.to_string(), new);
                }
            }
            // Two frameworks (PyTorch and JAX in one environment) are not two values of one: the
            // better source's is shown, and neither is a conflict.
            Some(old)
                if field == "framework"
                    && !framework_parts(&old.value)
                        .0
                        .eq_ignore_ascii_case(framework_parts(&new.value).0) =>
            {
                if source_rank(new.source) > source_rank(old.source) {
                    self.fields.insert(field.to_string(), new);
                }
            }
            // TensorFlow's CUDA runtime beside another framework's: each framework carries its
            // own, so they are not two values of one; the first is kept.
            Some(old)
                if field == "cuda_runtime"
                    && (old.source == TF_CUDART) != (new.source == TF_CUDART) => {}
            // One tool naming two GPUs (nvidia-smi's table of an A100 and a P100, a list's
            // compute capability of each) lists the machine's GPUs: they do not disagree, and
            // the first is kept.
            Some(old) if (field == "gpu" || field == "cc") && old.source == new.source => {
                // (At most a node's worth: a paste of many lines naming GPUs is not a machine.)
                if field == "gpu"
                    && self.more_gpus.len() < 64
                    && !self
                        .more_gpus
                        .iter()
                        .any(|g| same_value("gpu", &g.value, &new.value))
                {
                    self.more_gpus.push(new);
                }
            }
            // A GPU's name as a person wrote it yields to a tool's printing of it ("RTX 4090D"
            // typed, "GeForce RTX 4090 D" in nvidia-smi's table): not two GPUs.
            Some(old) if field == "gpu" && source_rank(new.source) != source_rank(old.source) => {
                if source_rank(new.source) > source_rank(old.source) {
                    self.fields.insert(field.to_string(), new);
                }
            }
            // WSL's form names the Linux distribution the programs run in, and `ver` the Windows
            // that hosts it: two systems, not two readings of one. The distribution is shown.
            Some(old)
                if field == "os"
                    && [old.source, new.source].contains(&"ver")
                    && [old.source, new.source].contains(&"WSL issue form") =>
            {
                if new.source == "WSL issue form" {
                    self.fields.insert(field.to_string(), new);
                }
            }
            // Two values from different sources: both are listed as a conflict, and the field
            // shows the one a tool printed rather than one a person wrote (PaddlePaddle's
            // "Runtime API Version: 10.2" over a list's "CUDA: 11.1"), else the first.
            Some(old) => {
                let old = old.clone();
                let shown =
                    (source_rank(new.source) > source_rank(old.source)).then(|| new.clone());
                match self.conflicts.iter_mut().find(|c| c.field == field) {
                    Some(c) if !c.values.iter().any(|v| v.value == new.value) => c.values.push(new),
                    Some(_) => {}
                    None => self.conflicts.push(Conflict {
                        field: field.to_string(),
                        values: vec![old, new],
                    }),
                }
                if let Some(shown) = shown {
                    self.fields.insert(field.to_string(), shown);
                }
            }
        }
    }
}

/// A GPU's name as a model: without what tools and people write around it (the word "GPU", a
/// sentence before the vendor's name, the memory, the chip's code, the vendor's name). `None`
/// when what is left names no model.
fn gpu_name(mut value: &str) -> Option<std::borrow::Cow<'_, str>> {
    // "Tesla V100-PCIE-32GB GPU": the word is not part of the name, except in a laptop
    // part's ("GeForce RTX 3060 Laptop GPU" is what NVIDIA calls it).
    if !value.ends_with(" Laptop GPU") {
        value = value.strip_suffix(" GPU").unwrap_or(value).trim_end();
    }
    // A name quoted at the end of a sentence ("facing issue like NVIDIA GeForce RTX 5080"):
    // the name is what follows the vendor's.
    if let Some(at) = value.to_ascii_uppercase().rfind(" NVIDIA ") {
        value = value[at + 1..].trim_start();
    }
    // "A100-PCIE-40GB 1gpu", "T4 2 gpus" as typed: how many is not part of the name (a count of
    // one or two digits; "RTX 3090 GPUs" ends in the model's number).
    if let Some(counted) = ["gpus", "gpu", "cards", "card"].iter().find_map(|unit| {
        let at = value.len().checked_sub(unit.len())?;
        value
            .get(at..)
            .filter(|tail| tail.eq_ignore_ascii_case(unit))
            .map(|_| value[..at].trim_end())
    }) && let Some((name, count)) = counted.rsplit_once(' ')
        && (1..=2).contains(&count.len())
        && count.bytes().all(|b| b.is_ascii_digit())
    {
        value = name.trim_end();
    }
    // "GeForce RTX 3090 with 24G" as typed: its memory is not part of the name.
    if let Some((name, memory)) = value.split_once(" with ")
        && memory.starts_with(|c: char| c.is_ascii_digit())
        && memory.trim_end().ends_with(['G', 'B', 'b', 'g'])
    {
        value = name.trim_end();
    }
    // "GeForce RTX 5090 gb202" as a form's answer: the chip's code after the board's name is
    // not part of it.
    if let Some((name, chip)) = value.rsplit_once(' ')
        && chip.len() == 5
        && chip.is_ascii()
        && ["gb", "gh", "ad", "ga", "tu", "gv", "gp", "gm", "gk"]
            .iter()
            .any(|p| chip[..2].eq_ignore_ascii_case(p))
        && chip[2..].bytes().all(|b| b.is_ascii_digit())
    {
        value = name.trim_end();
    }
    // "VIDIA GeForce RTX 5090 with CUDA capability ...": a copy that lost the line's first
    // letter still names the vendor.
    if let Some(rest) = value.strip_prefix("VIDIA ") {
        value = rest;
    }
    // "Nvidia GeForce GTX TITAN X" as typed: the vendor's name is not the model's.
    if value.len() > 7
        && value
            .get(..7)
            .is_some_and(|vendor| vendor.eq_ignore_ascii_case("nvidia "))
    {
        value = value[7..].trim_start();
    }
    // A name without a number is no model ("GPU: none", "integrated"), except the few
    // NVIDIA named so and nvidia-smi's cut of a name (`GeForce GTX TIT...`).
    if !value.bytes().any(|b| b.is_ascii_digit())
        && !value.ends_with("...")
        && !["titan", "orin", "xavier", "thor"]
            .iter()
            .any(|w| value.to_ascii_lowercase().contains(w))
    {
        return None;
    }
    // A mobile part written apart from its number ("GTX 860 M") is the part ("GTX 860M"), not
    // the desktop board of the same number.
    if let Some(number) = value.strip_suffix(" M")
        && number.ends_with(|c: char| c.is_ascii_digit())
    {
        return Some(std::borrow::Cow::Owned(format!("{number}M")));
    }
    Some(std::borrow::Cow::Borrowed(value))
}

/// TensorFlow naming the CUDA runtime it loaded: TensorFlow's own, which another framework in
/// the same environment (PyTorch's `CUDA used to build PyTorch`) need not share.
const TF_CUDART: &str = "TensorFlow's libcudart";

/// How much a source is to be trusted: a sentence least, then a list's or a form's answer (or a
/// command someone typed, which says what was asked for), a bare name line (typed, or
/// `nvidia-smi --query-gpu=name`'s), and a tool's labelled printing most.
fn source_rank(source: &str) -> u8 {
    match source {
        "text" => 0,
        "environment list"
        | "issue form"
        | "TensorFlow issue template"
        | "TensorFlow issue form"
        | "TensorRT issue template"
        | OPEN_FORM
        | "pip install"
        | "conda install" => 1,
        "nvidia-smi --query-gpu=name" => 2,
        _ => 3,
    }
}

/// Two readings of one field agree: versions as numbers, at the precision of the shorter one (the
/// NVML library prints 535.104 for 535.104.05: no evidence of a difference), text ignoring case.
fn same_value(field: &str, a: &str, b: &str) -> bool {
    match crate::doc::stack::field_kind(field) {
        Some(crate::doc::stack::FieldKind::Version) | None if field != "os" && field != "gpu" => {
            let parts = |v: &str| {
                v.chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect::<String>()
                    .split('.')
                    .filter(|p| !p.is_empty())
                    .count()
            };
            let n = parts(a).min(parts(b)).max(1);
            let cut = |v: &str| {
                let number: String = v
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                number.split('.').take(n).collect::<Vec<_>>().join(".")
            };
            super::compare_versions(a, b) == std::cmp::Ordering::Equal
                || super::compare_versions(&cut(a), &cut(b)) == std::cmp::Ordering::Equal
        }
        // A framework named twice, once less fully (`pytorch 2.12` in a list, `2.12.1+cu130` from
        // xformers.info; `torch 2.1.0` and `torch 2.1.0+cu121`): the shorter version is the
        // longer's start, up to one of its parts or its local tag. Two tags are two builds.
        _ if field == "framework" => {
            let prefix = |short: &str, long: &str| {
                long.strip_prefix(short)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '+']))
            };
            let ((na, va), (nb, vb)) = (framework_parts(a), framework_parts(b));
            na.eq_ignore_ascii_case(nb) && (prefix(va, vb) || prefix(vb, va))
        }
        // nvidia-smi's table cuts a long name (`Tesla P100-PCIE...`): the same GPU as the whole.
        _ if field == "gpu" => {
            let cut = |v: &str| {
                v.strip_suffix("...")
                    .map(|p| p.trim_end().to_ascii_lowercase())
            };
            let (la, lb) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
            // "GT 630" typed and "GeForce GT 630" printed: the shorter is the longer's last
            // words, and names a model (it has a number).
            let tail = |long: &str, short: &str| {
                short.bytes().any(|b| b.is_ascii_digit())
                    && long
                        .strip_suffix(short)
                        .is_some_and(|head| head.ends_with(' '))
            };
            la == lb
                || cut(a).is_some_and(|p| lb.starts_with(&p))
                || cut(b).is_some_and(|p| la.starts_with(&p))
                || tail(&la, &lb)
                || tail(&lb, &la)
        }
        _ => a.eq_ignore_ascii_case(b),
    }
}

/// A framework field's name and version (`torch 2.1.0+cu121`: `torch`, `2.1.0+cu121`).
fn framework_parts(value: &str) -> (&str, &str) {
    value.split_once(' ').unwrap_or((value, ""))
}

/// One kind of line: a pattern with the group `v` (the value), the field and the source.
struct Rule {
    pattern: String,
    /// Literals one of which a matching line holds (lowercase), from the same analysis the
    /// signatures use; `None` when the pattern has none.
    needles: Option<Vec<Vec<u8>>>,
    /// Compiled when a line first needs it: most pastes need few of the rules.
    re: std::sync::OnceLock<LineRegex>,
    field: &'static str,
    source: &'static str,
}

impl Rule {
    /// ASCII classes and case folding (`\d`, `\s`, `\w`, `(?i)`): what version lines need, and
    /// several times quicker to compile than their Unicode forms, which were a fifth of `lore
    /// env`'s time on a 64 KiB paste. Non-ASCII words (`版本`) still match as written.
    /// Built as `regex::bytes::RegexBuilder` builds it (with `unicode(false)` and its default
    /// limits), less the regex's own literal prefilter: a rule is tried only on lines that hold
    /// one of its literals already.
    fn re(&self) -> &LineRegex {
        self.re.get_or_init(|| {
            let syntax = regex_automata::util::syntax::Config::new()
                .utf8(false)
                .unicode(false);
            crate::signature::without_prefilter(&self.pattern, syntax, 10 << 20, 2 << 20)
                .map(LineRegex)
                .expect("the rules compile")
        })
    }
}

/// A driver version a sentence names as a bound, not as the driver it runs: "requires driver
/// 525.60.13 or newer", "minimum driver version 418.39", "driver >= 450.80.02". `value` is the
/// version's bytes within `line`. Words before it count only back to the word "driver" before it.
fn driver_bound(line: &str, value: &[u8]) -> bool {
    let start = value.as_ptr() as usize - line.as_ptr() as usize;
    let after = line[start + value.len()..]
        .trim_start()
        .to_ascii_lowercase();
    if after.starts_with('+')
        || ["or ", "and "].iter().any(|joint| {
            after.strip_prefix(joint).is_some_and(|rest| {
                ["newer", "later", "above", "higher", "greater", "up"]
                    .iter()
                    .any(|w| rest.starts_with(w))
            })
        })
    {
        return true;
    }
    let mut from = start.saturating_sub(48);
    while !line.is_char_boundary(from) {
        from += 1;
    }
    let before = line[from..start].to_lowercase();
    let Some(at) = before.rfind("driver").or_else(|| before.rfind("驱动")) else {
        return false;
    };
    let (lead, rest) = before.split_at(at);
    // The word that qualifies "driver", past articles and the like ("requires the NVIDIA
    // driver", "minimum GPU driver"): not any word of the sentence ("I need help: my driver").
    let qualifier = lead
        .split_whitespace()
        .rev()
        .find(|w| !["nvidia", "the", "a", "an", "gpu", "graphics", "display"].contains(w));
    qualifier.is_some_and(|w| {
        [
            "requires",
            "require",
            "required",
            "requiring",
            "minimum",
            "min",
            "min.",
            "needs",
            "need",
            "recommended",
        ]
        .contains(&w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.'))
    }) || lead.trim_end().ends_with("at least")
        || ["最低", "需要"]
            .iter()
            .any(|w| lead.trim_end().ends_with(w))
        || [">=", "≥", "at least", "or newer", "or later"]
            .iter()
            .any(|w| rest.contains(w))
}

/// A rule's compiled pattern, over a line's bytes.
struct LineRegex(regex_automata::meta::Regex);

impl LineRegex {
    fn is_match(&self, line: &[u8]) -> bool {
        self.0.is_match(line)
    }

    /// The text of the first of `groups` that took part in the leftmost match.
    fn group<'h>(&self, line: &'h [u8], groups: &[&str]) -> Option<&'h [u8]> {
        self.group_from(line, 0, groups)
    }

    /// The same, for the leftmost match that starts at `from` or later.
    fn group_from<'h>(&self, line: &'h [u8], from: usize, groups: &[&str]) -> Option<&'h [u8]> {
        let mut caps = self.0.create_captures();
        self.0
            .search_captures(&regex_automata::Input::new(line).range(from..), &mut caps);
        groups
            .iter()
            .find_map(|g| caps.get_group_by_name(g))
            .map(|span| &line[span.range()])
    }
}

/// Every rule's needles in one automaton (over lowercased lines), with the rules each needle
/// belongs to: one pass over a line tells which rules it may match, where asking each rule's
/// needles in turn was a few hundred searches a line and half of a dense paste's time.
struct NeedleIndex {
    automaton: aho_corasick::AhoCorasick,
    /// Needle (pattern id) → the rules holding it.
    rules_of: Vec<Vec<usize>>,
    /// Rules without needles: tried on every line that reaches them.
    always: Vec<usize>,
}

static NEEDLE_INDEX: LazyLock<NeedleIndex> = LazyLock::new(|| {
    let mut needles: Vec<&[u8]> = Vec::new();
    let mut rules_of: Vec<Vec<usize>> = Vec::new();
    let mut always = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        let Some(set) = &rule.needles else {
            always.push(i);
            continue;
        };
        for needle in set {
            match needles.iter().position(|n| *n == needle.as_slice()) {
                Some(at) => rules_of[at].push(i),
                None => {
                    needles.push(needle);
                    rules_of.push(vec![i]);
                }
            }
        }
    }
    NeedleIndex {
        automaton: aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(&needles)
            .expect("the needles build"),
        rules_of,
        always,
    }
});

impl NeedleIndex {
    /// Marks in `held` (one flag per rule, cleared first) the rules whose needles occur in any
    /// of `texts` (lowercased), and those without needles.
    fn mark(&self, texts: &[&[u8]], held: &mut Vec<bool>) {
        held.clear();
        held.resize(RULES.len(), false);
        for &i in &self.always {
            held[i] = true;
        }
        for text in texts {
            for m in self.automaton.find_overlapping_iter(*text) {
                for &i in &self.rules_of[m.pattern().as_usize()] {
                    held[i] = true;
                }
            }
        }
    }
}

/// Compiles every rule now (each is otherwise compiled when a line first needs it). A caller
/// with a core to spare runs this beside [`of`]: a paste dense with versions needs many of the
/// rules, and the two threads then share their compilation (a rule being compiled by one is
/// waited for, not compiled again, by the other).
pub fn warm() {
    LazyLock::force(&ANCHORS);
    LazyLock::force(&NEEDLE_INDEX);
    for rule in RULES.iter() {
        rule.re();
    }
}

/// Compiles the rules `paste` may need, in the order its text first calls for them: those
/// without literals, then each rule whose literal occurs somewhere in the paste. The CLI runs this
/// beside [`of`] on a long paste; compiling every rule instead ([`warm`]) spent about a third of
/// its work on rules the paste never reaches (126 of 414 on 64 KiB of pastes). A rule missed here
/// (its literal only in a line's rewritten form) is compiled by the reader when it needs it.
pub fn warm_for(paste: &[u8]) {
    LazyLock::force(&ANCHORS);
    for i in rules_to_warm(paste) {
        RULES[i].re();
    }
}

/// The rules [`warm_for`] compiles, by index into `RULES`, in the order it compiles them.
fn rules_to_warm(paste: &[u8]) -> Vec<usize> {
    let index = &*NEEDLE_INDEX;
    let lower = paste[..paste.len().min(MAX_SCAN)].to_ascii_lowercase();
    let mut first = vec![usize::MAX; RULES.len()];
    for &i in &index.always {
        first[i] = 0;
    }
    for m in index.automaton.find_overlapping_iter(&lower) {
        for &i in &index.rules_of[m.pattern().as_usize()] {
            first[i] = first[i].min(m.start());
        }
    }
    let mut order: Vec<usize> = (0..RULES.len())
        .filter(|&i| first[i] != usize::MAX)
        .collect();
    order.sort_by_key(|&i| first[i]);
    order
}

/// The literals one of which every line `pattern` matches holds (lowercase): from the table
/// made ahead ([`needles::NEEDLES`], by the pattern's hash), or else worked out now. Working
/// them out for every rule (parsing and analysing 122 patterns) was about half of the fields'
/// time on a paste; the table is checked against the analysis by a test.
fn needles_of(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let hash = crate::hash::fnv1a(pattern.as_bytes());
    match needles::NEEDLES.binary_search_by_key(&hash, |&(h, _)| h) {
        Ok(i) => needles::NEEDLES[i]
            .1
            .map(|set| set.iter().map(|n| n.to_vec()).collect()),
        Err(_) => analyze_needles(pattern),
    }
}

/// [`needles_of`] by the analysis the signatures use, on the pattern parsed as it is compiled
/// (see `Rule::re`).
fn analyze_needles(pattern: &str) -> Option<Vec<Vec<u8>>> {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()
        .and_then(|hir| crate::signature::literal::required_literals(&hir))
}

const VERSION: &str = r"(?P<v>\d+\.\d+(?:\.\d+)*)";
/// A PyTorch version as its builds print it: a release (`2.2.1+cu121`), a nightly
/// (`2.5.0.dev20240614+cu124`), a pre-release or a source build (`2.0.0a0+git7f2b5ea`).
const TORCH_VERSION: &str =
    r"(?P<v>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+[\w.]+)?)";

/// A kernel release with the suffix of a distribution's or a cloud's build
/// (`6.8.0-45-generic`, `5.10.0-23-amd64`, `6.5.0-1025-azure`, `5.15.0-1041-aws`): what `uname -r`
/// prints, and what the login banner and `uname -rv` print before more text.
const KERNEL_RELEASE: &str = r"\d+\.\d+\.\d+(?:[-.+][\w]+)*?[-.](?:generic|amd64|arm64|tegra|lts|azure|aws|gcp|oracle|kvm|lowlatency|microsoft-standard(?:-WSL2)?)";

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let rule = |re: &str, field, source| {
        // A class may hold only bytes without Unicode: its non-ASCII members become alternatives.
        let pattern = re
            .replace("{V}", VERSION)
            .replace("{TORCH}", TORCH_VERSION)
            .replace("{KREL}", KERNEL_RELEASE)
            .replace("[:：=]", "(?::|：|=)")
            .replace("[:：]", "(?::|：)")
            .replace("[x×]", "(?:x|×)");
        let needles = needles_of(&pattern);
        Rule {
            pattern,
            needles,
            re: std::sync::OnceLock::new(),
            field,
            source,
        }
    };
    vec![
        // nvidia-smi's banner and -q.
        // The tool's own version: the driver's too, except when a container or a PATH brings
        // another nvidia-smi (`NVIDIA-SMI 440.64.00  Driver Version: 418.67`); kept for
        // banners cut before "Driver Version" (see `derive`).
        rule(r"NVIDIA-SMI(?:\s+|:\s*){V}", "smi_version", "nvidia-smi"),
        // (A driver has a three-digit branch: a list's `CUDA Driver Version: 12.8` is not one.)
        rule(
            r"Driver Version:\s*(?P<v>[1-9]\d{2}\.\d+(?:\.\d+)*)",
            "driver",
            "nvidia-smi",
        ),
        rule(r"^\s*Driver Version\s+:\s*{V}", "driver", "nvidia-smi -q"),
        // nvidia-smi from R610 names the kernel-mode driver and the CUDA of the user-mode driver:
        // `NVIDIA-SMI 610.43.03  KMD Version: 610.43.03  CUDA UMD Version: 13.3`.
        rule(
            r"\bKMD Version:\s*(?P<v>[1-9]\d{2}\.\d+(?:\.\d+)*)",
            "driver",
            "nvidia-smi",
        ),
        rule(r"\bCUDA UMD Version:\s*{V}", "driver_cuda", "nvidia-smi"),
        // TensorRT's issue template: `**TensorRT Version**: 8.6.1.6`, `**GPU Type**: RTX4070`, and
        // its `**CUDA Version**: 11.3` (the toolkit in use, where nvidia-smi's line of the same
        // words is the driver's; see `derive`), written also as the installer's name
        // (`cuda_11.0.2_451.48_win10`).
        rule(
            r"(?i)^\W*TensorRT Version\W*[:：]\s*v?{V}",
            "tensorrt",
            "TensorRT issue template",
        ),
        rule(
            r"(?i)^\W*GPU Type\W*[:：]\s*(?:NVIDIA )?(?P<v>(?:GeForce |Quadro |Tesla |TITAN )?(?:RTX|GTX|GT|[A-Z])?\s?\d{2,4}\w*(?: ?Ti| ?SUPER)?)\s*$",
            "gpu",
            "TensorRT issue template",
        ),
        rule(
            r"(?i)^\W*CUDA Version\W*[:：]\s*(?:cuda_)?{V}",
            "cuda_template",
            "TensorRT issue template",
        ),
        // hashcat -I's backend header names the CUDA the driver supports: `CUDA API (CUDA 13.0)`.
        rule(r"^CUDA API \(CUDA {V}\)", "driver_cuda", "hashcat"),
        // faceswap's System Information block (`gpu_cuda: 9.1`: the CUDA it found installed).
        rule(r"^gpu_cuda:\s+{V}", "cuda_toolkit", "faceswap sysinfo"),
        rule(r"^gpu_cudnn:\s+{V}", "cudnn", "faceswap sysinfo"),
        // A list's item keyed by the distribution's name (`Ubuntu: 22.04 LTS`, `Pop!_OS
        // Version: 24.04`): the distribution and its release.
        rule(
            r"(?i)^(?P<v>(?:Ubuntu|Debian|Fedora|CentOS|Rocky(?: Linux)?|AlmaLinux|Pop!_OS|Linux Mint|openSUSE(?: Leap| Tumbleweed)?|RHEL)(?:\s+version)?\s*[:：]\s*\d+(?:\.\d+)*(?:\s+LTS)?)\s*\.?\s*$",
            "os_keyed",
            "environment list",
        ),
        // /etc/redhat-release and its kin, printed alone (`CentOS Linux release 7.8.2003
        // (Core)`): the release without its codename.
        rule(
            r"^(?P<v>(?:CentOS(?: Stream)?|Rocky|AlmaLinux|Red Hat Enterprise Linux(?: Server)?|Oracle Linux Server|Scientific Linux|Fedora)(?: Linux)? release \d+(?:\.\d+)*)(?:\s+\([^)]*\))?\s*$",
            "os",
            "/etc/redhat-release",
        ),
        rule(r"^py_version:\s+{V}", "python", "faceswap sysinfo"),
        rule(
            r"^gpu_devices:\s+GPU_0: (?:NVIDIA )?(?P<v>[^,]*?[A-Za-z0-9)])\s*(?:,|$)",
            "gpu",
            "faceswap sysinfo",
        ),
        // text-embeddings-inference refusing a GPU its kernels were not built for: `Runtime compute
        // cap 70 is not compatible with compile time compute cap 80`.
        rule(
            r"Runtime compute cap (?P<v>\d{2,3}) is not compatible with compile time compute cap",
            "cc_sm",
            "text-embeddings-inference",
        ),
        // (A list may say where it read it: `CUDA Version (nvidia-smi): 13.0`.)
        rule(
            r"CUDA Version(?: \(nvidia-smi\))?:\s*{V}",
            "driver_cuda",
            "nvidia-smi",
        ),
        rule(
            r"^\s*CUDA Version\s+:\s*{V}",
            "driver_cuda",
            "nvidia-smi -q",
        ),
        // nvidia-smi when the library and the module differ.
        rule(r"NVML library version:\s*{V}", "driver", "nvidia-smi"),
        // PyTorch names the driver by the CUDA it supports: 11040 is 11.4.
        rule(
            r"driver on your system is too old \(found version (?P<v>\d{4,5})\)",
            "driver_cuda_number",
            "PyTorch",
        ),
        // TensorFlow's CUDA diagnostics.
        rule(
            r"libcuda reported version is:\s*'?{V}",
            "driver",
            "TensorFlow",
        ),
        rule(
            r"kernel reported version is:\s*'?{V}",
            "kernel_module",
            "TensorFlow",
        ),
        // XLA's (JAX's) form of the same diagnosis, and its warning about the PTX compiler
        // (the toolkit's `ptxas`) being newer than the CUDA the driver supports.
        rule(
            r"\bkernel version {V} does not match DSO version",
            "kernel_module",
            "XLA",
        ),
        rule(r"\bdoes not match DSO version {V}", "driver", "XLA"),
        rule(
            r"NVIDIA driver's CUDA version is {V} which is older than the PTX compiler",
            "driver_cuda",
            "XLA (ptxas)",
        ),
        rule(
            r"older than the PTX compiler version {V}",
            "cuda_toolkit",
            "XLA (ptxas)",
        ),
        // The loaded module names itself when it leaves a GPU to a legacy branch.
        rule(r"\bThe {V} NVIDIA driver will ignore", "kernel_module", "NVRM"),
        // lspci names the board.
        rule(
            r"NVIDIA Corporation [\w-]+ \[(?P<v>[^\]]+)\]",
            "gpu",
            "lspci",
        ),
        rule(
            r"^\s*Product Name\s+:\s*(?:NVIDIA\s+)?(?P<v>.+?)\s*$",
            "gpu",
            "nvidia-smi -q",
        ),
        rule(
            r"^\|\s+\d+\s+(?:NVIDIA\s+)?(?P<v>[A-Za-z][\w -]*?\.\.\.|[A-Za-z][\w -]*?\S(?: \(\w+\))?)\s+(?:On|Off|N/A|WDDM|TCC)\s+\|",
            "gpu",
            "nvidia-smi",
        ),
        // The loaded kernel module.
        rule(
            r"NVRM version: NVIDIA UNIX (?:\S+ )?(?:Open )?Kernel Module(?: for \S+)?\s+{V}",
            "kernel_module",
            "/proc/driver/nvidia/version",
        ),
        rule(
            r"NVRM: loading NVIDIA UNIX (?:\S+ )?(?:Open )?Kernel Module(?: for \S+)?\s+{V}",
            "kernel_module",
            "dmesg",
        ),
        rule(
            r"this kernel module has the version {V}",
            "kernel_module",
            "NVRM API mismatch",
        ),
        rule(
            r"API mismatch: the client has the version {V}",
            "driver",
            "NVRM API mismatch",
        ),
        // Installed, not necessarily loaded.
        // (A driver's version has a three-digit branch: Lightning's `- version: 11.3` under its
        // CUDA item, or `10.0.19044` under Windows, is not one.)
        rule(
            r"^version:\s+(?P<v>\d{3}\.\d+(?:\.\d+)?)\s*$",
            "driver",
            "modinfo nvidia",
        ),
        rule(
            r"^(?:ii\s+|.*?\.deb package\s+)?(?:nvidia-driver|nvidia-dkms|nvidia-kernel-common|libnvidia-compute|nvidia-compute-utils|nvidia-utils)(?:-\d+)?(?:-open|-server)*\s+(?:version\s+)?{V}",
            "driver",
            "dpkg",
        ),
        // A driver's version has a three-digit branch: `kmod-nvidia-5.14.0-427.el9_4-575.64-1`
        // names the kernel first (read below).
        rule(
            r"^(?:kmod-nvidia(?:-latest)?(?:-dkms)?|nvidia-driver(?:-latest)?(?:-dkms)?(?:-cuda)?(?:-libs)?|cuda-drivers|xorg-x11-drv-nvidia|(?:dkms|x11-driver-video)-nvidia(?:\d{3}|-current)?|libnvidia-(?:ml|cfg|gpucomp|ptxjitcompiler|nvvm|fbc|encode|decode|opencl|allocator)|nvidia-(?:xconfig|settings|persistenced|modprobe))-(?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "rpm",
        ),
        // A kmod built for one kernel (RHEL's and negativo17's packages): the module's version.
        rule(
            r"^kmod-nvidia(?:-open)?-\d+\.\d+\.\d+-[\w.]+?-(?P<v>\d{3}\.\d+(?:\.\d+)?)-\d",
            "kernel_module",
            "rpm (kmod for a kernel)",
        ),
        // A package named with its version in words (`kmod-nvidia version (575.64.03-1.fc42)`,
        // as image builds compare them): the kmod is the module, nvidia-driver the user space.
        rule(
            r"\bkmod-nvidia(?:-[a-z]+)*\s+version\s*\(?(?P<v>\d{3}\.\d+(?:\.\d+)?)",
            "kernel_module",
            "rpm",
        ),
        rule(
            r"\bnvidia-driver\s+version\s*\(?(?P<v>\d{3}\.\d+(?:\.\d+)?)",
            "driver",
            "rpm",
        ),
        rule(r"^nvidia(?:-open)?/{V}, ", "driver", "dkms status"),
        // The OS and kernel.
        rule(
            r#"^PRETTY_NAME="(?P<v>[^"(]+?)\s*(?:\([^)]*\))?\s*""#,
            "os",
            "/etc/os-release",
        ),
        rule(
            r"(?:^|[:：]\s*)Linux \S+ (?P<v>\d+\.\d+\.\d+\S*?)(?:\.(?:x86_64|aarch64|ppc64le))? #",
            "kernel",
            "uname -a",
        ),
        // `uname -rv`: the release, then the build number.
        rule(
            r"^(?P<v>\d+\.\d+\.\d+-[\w.+~-]*?)(?:\.(?:x86_64|aarch64|ppc64le))? #\d+ SMP\b",
            "kernel",
            "uname",
        ),
        // DKMS building the module: the driver package's version (not the kernel it builds for:
        // often a newly installed one, not the running kernel).
        rule(
            r"Loading new nvidia(?:-current|-open|-tesla)?-{V} DKMS files",
            "driver",
            "dkms",
        ),
        // CUDA and the framework.
        rule(
            r"Cuda compilation tools, release {V}",
            "cuda_toolkit",
            "nvcc --version",
        ),
        // A hand-written list's `NVCC: V7.5.17` (nvcc's own build number, three parts).
        rule(
            r"(?i)^\W*nvcc(?: version)?\s*[:=]\s*V?(?P<v>\d+\.\d+\.\d+)\b",
            "cuda_toolkit",
            "text",
        ),
        rule(
            r"^CUDA runtime version\s*:\s*{V}",
            "cuda_toolkit",
            "collect_env",
        ),
        rule(
            r"^CUDA used to build PyTorch\s*:\s*{V}",
            "cuda_runtime",
            "collect_env",
        ),
        rule(r"^Nvidia driver version\s*:\s*{V}", "driver", "collect_env"),
        rule(
            r"^GPU models and configuration\s*:\s*(?:GPU 0: )?(?:NVIDIA )?(?P<v>[^\n(,]+?(?: \([^)\nU][^)\n]*\))?)\s*(?:\(UUID.*|,.*)?$",
            "gpu",
            "collect_env",
        ),
        // The issue template's answer with the driver after the GPU: `GeForce RTX 2070, driver
        // 450.102.04`.
        rule(
            r"^GPU models and configuration\s*:[^\n]*?,\s*(?:NVIDIA )?driver(?: version)?:?\s*{V}",
            "driver",
            "issue form",
        ),
        rule(
            r"^GPU \d{1,2}[:：] ?(?:NVIDIA )?(?P<v>[^\n(]+?(?: \([^)\nU][^)\n]*\))?)\s*(?:\(UUID.*)?$",
            "gpu",
            "collect_env",
        ),
        rule(
            r"^(?:OS|Os)\s*[:：]\s*(?P<v>[^(;\n]+?)\s*(?:(?:[(;]|；|,\s*kernel\b).*)?$",
            "os",
            "collect_env",
        ),
        // nix-info's `- host os: `Linux 6.12.4-arch1-1, Arch Linux, noversion, rolling`` (the
        // kernel release, then the distribution), as nixpkgs' issue form asks for it.
        rule(
            r"host os: `Linux (?P<v>\d+\.\d+\.\d+[^\s,`]*), ",
            "kernel",
            "nix-info",
        ),
        rule(
            r"host os: `Linux [^\s,`]+, (?P<v>[A-Za-z][^,`]*?)\s*[,`]",
            "os",
            "nix-info",
        ),
        // TensorRT's trtexec names the GPU it runs on (`[I] Selected Device: NVIDIA GeForce RTX
        // 3090`, `[I] Selected Device: Orin`): a tool's word over a list's.
        rule(
            r"\[I\] Selected Device: (?:NVIDIA )?(?P<v>[A-Za-z][^\n]*?)\s*$",
            "gpu",
            "trtexec",
        ),
        // The BOINC client's start-up (`CUDA: NVIDIA GPU 0: GeForce RTX 2070 SUPER (driver version
        // 440.10, CUDA version 10.2, compute capability 7.5, ...)`, an `OpenCL:` line per GPU, and
        // `OS: Linux Fedora: Fedora 32 (Workstation Edition) [5.7.6-201.fc32.x86_64|libc 2.31
        // ...]`). Its "CUDA version" is the driver's (what the driver API reports), and its CUDA
        // line's driver version is an integer cut to two decimals (440.100 prints as 440.10,
        // BOINC#3893): the OpenCL line's is the driver's.
        rule(
            r"CUDA: NVIDIA GPU 0(?: \([^)\n]*\))?: (?:NVIDIA )?(?P<v>[^(\n]+?) \(driver version ",
            "gpu",
            "BOINC",
        ),
        rule(
            r"CUDA: NVIDIA GPU \d+[^:\n]*: [^(\n]+\(driver version [\d.]+, CUDA version {V},",
            "driver_cuda",
            "BOINC",
        ),
        rule(
            r"OpenCL: NVIDIA GPU \d+[^:\n]*: [^(\n]+\(driver version {V},",
            "driver",
            "BOINC (OpenCL)",
        ),
        rule(
            r"(?:^|\] )OS: Linux [^:\n]+: (?P<v>[^\[\n]+?)\s*\[\d",
            "os_boinc",
            "BOINC",
        ),
        rule(
            r"(?:^|\] )OS: Linux [^:\n]+: [^\[\n]+\[(?P<v>\d+\.\d+\.\d+[^|\]\s]*?)(?:\.(?:x86_64|aarch64))?\|",
            "kernel",
            "BOINC",
        ),
        // cuDNN frontend's report (`python -m cudnn.collect_env`): padded keys, and one line per
        // GPU with its SM count (`GPU 0 (CUDA order)   : NVIDIA L40S | SM89 | 142 SMs | 44.4 GiB`).
        rule(r"^Python\s+:\s*{V}", "python", "cudnn.collect_env"),
        rule(
            r"^GPU 0 \(CUDA order\)\s*:\s*(?:NVIDIA )?(?P<v>[^|]+?)\s*\|",
            "gpu",
            "cudnn.collect_env",
        ),
        rule(
            r"^GPU 0 \(CUDA order\)\s*:[^|]*\|\s*SM(?P<v>\d{2,3})\s*\|",
            "cc_sm",
            "cudnn.collect_env",
        ),
        // DGL's issue form: `Backend Library & Version (e.g., PyTorch 0.4.1, MXNet/Gluon 1.3):
        // PyTorch 1.6` (the example in parentheses is the form's, not the machine's).
        rule(
            r"^Backend Library & Version(?: \([^)]*\))?\s*:\s*PyTorch\s+(?P<v>\d+\.\d+(?:\.\d+)?(?:\+\w+)?)",
            "torch",
            "DGL issue form",
        ),
        // An issue's `Host OS: Debian GNU/Linux 11 (bullseye)` (the container toolkit's form).
        rule(
            r"^(?i:host) OS\s*[:：]\s*(?P<v>[A-Za-z][^(;\n]*?)\s*(?:[(;].*)?$",
            "os",
            "environment list",
        ),
        // collect_env's, and issue templates' `Python Version (if applicable): 3.8.10`.
        rule(
            r"^Python (?i:version)(?: \([^)]*\))?\s*[:：]\s*{V}",
            "python",
            "collect_env",
        ),
        rule(
            r"^PyTorch (?i:version)(?: \([^)]*\))?\s*[:：]?\s*{TORCH}",
            "torch",
            "collect_env",
        ),
        rule(
            r"^Python platform\s*:\s*Linux-(?P<v>\d+\.\d+\.\d+\S*?)(?:\.(?:x86_64|aarch64))?-(?:x86_64|aarch64|ppc64le)",
            "kernel",
            "collect_env",
        ),
        // JAX's print_environment_info().
        rule(r"^python:\s*{V}", "python", "jax"),
        rule(
            r"uname_result\(.*\brelease='(?P<v>\d+\.\d+\.\d+[^']*?)(?:\.(?:x86_64|aarch64))?'",
            "kernel",
            "jax",
        ),
        // The API mismatch as people retype it ("client driver version 535.104.05 and kernel
        // module version 535.86.01").
        rule(
            r"API mismatch\b.*?\bclient (?:driver )?version {V}",
            "driver",
            "NVRM API mismatch (retyped)",
        ),
        rule(
            r"API mismatch\b.*?\bkernel module version {V}",
            "kernel_module",
            "NVRM API mismatch (retyped)",
        ),
        // An API mismatch broken over lines, as newer drivers print it.
        rule(
            r"NVRM: has the version {V}, but this kernel module has",
            "driver",
            "NVRM API mismatch",
        ),
        rule(
            r"NVRM: the version {V}\.\s+Please make sure",
            "kernel_module",
            "NVRM API mismatch",
        ),
        // sglang's check_env.
        rule(r"^Python:\s*(?:Python\s*)?{V}", "python", "check_env"),
        rule(
            r"^(?i:pytorch):\s*{TORCH}",
            "torch",
            "check_env",
        ),
        rule(
            r"^GPU 0(?:,\d+)*: (?:NVIDIA )?(?P<v>[^\n(]+?)\s*$",
            "gpu",
            "check_env",
        ),
        // (A person's `CUDA Driver Version: 12.8` is the CUDA the driver supports; see below.)
        rule(
            r"^CUDA Driver Version:\s*(?P<v>\d{3}\.\d+(?:\.\d+)*)",
            "driver",
            "check_env",
        ),
        rule(r"libcudnn\.so\.{V}", "cudnn", "collect_env"),
        // Package lists.
        rule(
            r"(?i)^(?:\[(?:pip3?|conda)\]\s*)?(?:py)?torch\s*(?:==?|\s)\s*{TORCH}(?:\s+<pip>|\s+\S+\s+(?:pypi|pytorch|pytorch-nightly|conda-forge|defaults|nvidia))?\s*$",
            "torch",
            "pip",
        ),
        // xFormers' `python -m xformers.info`.
        rule(r"^pytorch\.version:\s*{TORCH}", "torch", "xformers.info"),
        rule(
            r"^(?:\[(?:pip3?|conda)\]\s*)?nvidia-nccl-cu\d+\s*(?:==|\s)\s*{V}",
            "nccl",
            "pip",
        ),
        rule(
            r"^(?:\[(?:pip3?|conda)\]\s*)?nvidia-cudnn-cu\d+\s*(?:==|\s)\s*{V}",
            "cudnn",
            "pip",
        ),
        // The GPU's compute capability, as PyTorch and deviceQuery print it, and the
        // architectures a PyTorch build carries (what a paste prints beats any table). PyTorch's
        // warning is often pasted wrapped: a line may start where its sentence was broken.
        rule(
            r"(?:with CUDA capability\s+|^)sm_(?P<v>\d{2,3})[a-z]? is not compatible",
            "cc_sm",
            "PyTorch",
        ),
        rule(
            r"CUDA Capability Major/Minor version number:\s*{V}",
            "cc",
            "deviceQuery",
        ),
        rule(
            r"(?:current PyTorch |^)install(?:ation)? supports CUDA capabilities (?P<v>sm_\d+[a-z]?(?:\s+(?:sm|compute)_\d+[a-z]?)*)",
            "arch_list",
            "PyTorch",
        ),
        // Forward compatibility, installed.
        rule(
            r"^(?:ii\s+)?cuda-compat-(?P<v>\d+-\d+)(?:[/.\s]|-\d)",
            "cuda_compat_dashed",
            "packages",
        ),
        // Ollama's GPU discovery: `library=cuda ... compute=7.5 driver=12.1 name="NVIDIA ..."`,
        // where `driver` is the CUDA the driver supports.
        rule(
            r#"library=cuda\b.*\bname="(?:NVIDIA )?(?P<v>[^"]+)""#,
            "gpu",
            "ollama",
        ),
        rule(r"library=cuda\b.*\bcompute={V}", "cc", "ollama"),
        rule(r"library=cuda\b.*\bdriver={V}", "driver_cuda", "ollama"),
        // The install command a report quotes (conda's pins too: `pytorch==1.7.1 ...
        // cudatoolkit=11.0`, the CUDA of the build).
        rule(
            r"\bpytorch==?(?P<v>\d+\.\d+\.\d+)\b.*\bcudatoolkit=",
            "torch",
            "conda install",
        ),
        rule(
            r"\bpytorch==?\d+\.\d+\.\d+\b.*\bcudatoolkit=(?P<v>\d+\.\d+)\b",
            "cuda_runtime",
            "conda install",
        ),
        rule(
            r"pip3? install\b.*\btorch==(?P<v>\d+\.\d+(?:\.\d+)*(?:\+\w+)?)",
            "torch",
            "pip install",
        ),
        // Issue forms and hand-written environment lists (`- Driver: 550.163.01`), read after
        // their list marker and emphasis are taken off.
        rule(
            r"(?i)^(?:installed |nvidia |gpu |opencl/cuda )?driver(?: version)?(?:\*\*)?\s*[:：]\s*(?:[\w.-]+\s+\((?:version\s+)?|(?:Studio|Game Ready|GRD|SD)\s+(?:Driver\s+)?)?{V}",
            "driver",
            "environment list",
        ),
        // A list's kernel (`- Kernel: 6.8.0-45-generic`, `TrueNAS kernel: ...`) and one named in
        // a sentence with its full release (`kernel 7.0.9-200.fc43.x86_64`).
        rule(
            r"(?i)^(?:\w+\s+)?kernel(?: version| release)?\s*[:：]\s*(?P<v>\d+\.\d+(?:\.\d+)*(?:-[\w.+~-]+)?)\s*$",
            "kernel",
            "environment list",
        ),
        rule(
            r"(?i)\bkernel\s+(?P<v>\d+\.\d+\.\d+-(?:[\w.+~-]*[A-Za-z][\w.+~-]*|\d+\b))",
            "kernel",
            "text",
        ),
        // And with its version alone (`kernel version 4.9.0`, `kernel 5.14.14,`): a Linux release
        // has a one-digit major (the NVIDIA module's own "kernel version 535.129.3"
        // has three).
        rule(
            r"(?i)\bkernel(?:\s+version)?:?\s+v?(?P<v>[2-6]\.\d{1,2}\.\d{1,3}(?:-[\w.+~]*\w)?)(?:[\s,;)]|$)",
            "kernel",
            "text",
        ),
        // The kernel DKMS builds for, and the headers a driver installer fetches: usually the
        // running one, but after a kernel upgrade the next one, so used only when nothing else
        // names the kernel (see `derive`).
        rule(
            r"(?:^Building (?:initial module )?for|\bmodule build on kernel:) (?P<v>\d+\.\d+\.\d+-[\w.+~-]+)",
            "kernel_text",
            "DKMS",
        ),
        rule(
            r"\b(?:kernel-(?:headers|devel)|linux-headers)-(?P<v>\d+\.\d+\.\d+-[\w.+~-]*?)(?:\.(?:x86_64|aarch64))?(?:\s|$|[,;:'\x22])",
            "kernel_text",
            "kernel headers package",
        ),
        // jtop's `Release: 5.15.148-tegra`, and `Linux <host> <release>` alone on a line (an
        // issue form's answer with `uname -a` cut after the release).
        rule(r"(?i)^\s*release\s*:\s*(?P<v>{KREL})\s*$", "kernel", "jtop"),
        rule(r"^Linux \S+ (?P<v>\d+\.\d+\.\d+-[\w.+~-]+)\s*$", "kernel", "uname"),
        // "NVIDIA driver v470.182.03" in a sentence: a driver's full version, with its branch.
        rule(
            r"(?i)\bnvidia driver (?:version )?v?(?P<v>\d{3}\.\d+\.\d+)\b",
            "driver",
            "text",
        ),
        rule(
            r"(?i)^cuda[ _-]?toolkit(?: version)?(?:\s*\([^)]*\))?\s*[:：]\s*{V}",
            "cuda_toolkit",
            "environment list",
        ),
        rule(
            r"(?i)^installed cuda(?: toolkit)? version\s*[:：]\s*{V}",
            "cuda_listed",
            "environment list",
        ),
        // "Driver version 435.21, CUDA 10.1" and "driver is 515.43.04": the same without a
        // colon (a driver's version: three-digit branch).
        rule(
            r"(?i)^(?:nvidia |gpu )?driver(?: version)?(?: is)?\s+(?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "environment list",
        ),
        // XLA comparing the driver's CUDA with ptxas's (the toolkit it compiles with).
        rule(
            r"older than the ptxas CUDA version \((?P<v>\d+\.\d+(?:\.\d+)?)\)",
            "cuda_toolkit",
            "XLA (ptxas)",
        ),
        rule(
            r"The NVIDIA driver's CUDA version is (?P<v>\d+\.\d+) which is older than",
            "driver_cuda",
            "XLA (ptxas)",
        ),
        // XLA naming the GPU its ptxas cannot compile for: `ptxas does not support CC 8.6`.
        rule(r"\bptxas does not support CC {V}", "cc", "XLA (ptxas)"),
        // CMake's FindCUDA: `-- Autodetected CUDA architecture(s): 2.1(2.0)`.
        rule(
            r"Autodetected CUDA architecture\(s\):\s*(?P<v>\d+\.\d)\b",
            "cc",
            "CMake",
        ),
        // diffusers-cli env: `- Accelerator: NVIDIA A100-SXM4-40GB, 40960 MiB`.
        rule(
            r"^Accelerator:\s*(?:NVIDIA )?(?P<v>[A-Za-z][^,\n]*?),\s*\d+ MiB",
            "gpu",
            "diffusers-cli env",
        ),
        // Lightning's system info: `pyTorch_version: 1.4.0+cu100`.
        rule(r"^pyTorch_version:\s*{TORCH}", "torch", "Lightning system info"),
        // numba -s says whether the CUDA runtime needs minor-version compatibility (it is newer
        // than the driver's CUDA) and whether numba can provide it (with its linker packages).
        rule(
            r"^CUDA Minor Version Compatibility Needed\s+:\s*(?P<v>True)\s*$",
            "mvc_needed",
            "numba -s",
        ),
        rule(
            r"^CUDA Minor Version Compatibility Available\s+:\s*(?P<v>False)\s*$",
            "mvc_unavailable",
            "numba -s",
        ),
        // numba -s: `CUDA Driver Version : 11.5` (newer releases print a code, read below).
        rule(
            r"^CUDA Driver Version\s+:\s*(?P<v>\d{1,2}\.\d+)\s*$",
            "driver_cuda",
            "numba -s",
        ),
        rule(
            r"\bYou are using ptxas (?P<v>\d+\.\d+)\.\d+, which is older",
            "cuda_toolkit",
            "XLA (ptxas)",
        ),
        // In a sentence: "The current installed driver is `525.147.05`".
        rule(
            r"(?i)\binstalled (?:nvidia )?driver(?: version)? is\s+[`'\x22]?(?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "text",
        ),
        // conda: the cudatoolkit a list shows or an install command asks for is the CUDA the
        // framework runs with.
        rule(
            r"^(?:cudatoolkit|pytorch-cuda)\s+(?P<v>\d+\.\d+(?:\.\d+)*)\s",
            "cuda_runtime",
            "conda list",
        ),
        // The same row in collect_env's `[conda]` lines, when the report's "CUDA used to build
        // PyTorch" does not say it.
        rule(
            r"^\[conda\]\s+(?:cudatoolkit|pytorch-cuda)\s+(?P<v>\d+\.\d+(?:\.\d+)*)\s",
            "cuda_runtime_text",
            "collect_env's conda list",
        ),
        // conda's PyTorch build string (`py3.9_cuda11.3_cudnn8.2.0_0`, `0.4.1_cuda9.2_cudnn7.1.4`)
        // and a pinned `cudatoolkit==10.2.89`: the CUDA of the build, when nothing else says it.
        rule(
            r"_cuda(?P<v>\d+\.\d+)_cudnn\d",
            "cuda_runtime_text",
            "conda build string",
        ),
        rule(
            r"\bcudatoolkit==?(?P<v>\d+\.\d+(?:\.\d+)*)\b",
            "cuda_runtime_text",
            "text",
        ),
        rule(
            r"\bconda install\b.*\b(?:cudatoolkit|pytorch-cuda)=(?P<v>\d+\.\d+)",
            "cuda_runtime",
            "conda install",
        ),
        // pacman -Q / -Qs (Arch, Manjaro): `local/nvidia-450xx-utils 450.80.02-1`.
        rule(
            r"^(?:local/)?(?:lib32-)?nvidia(?:-\d{3}xx)?-utils\s+(?P<v>\d{3}\.\d+(?:\.\d+)?)",
            "driver",
            "pacman",
        ),
        rule(r"^(?:local/)?cuda\s+(?P<v>\d+\.\d+\.\d+)-\d", "cuda_toolkit", "pacman"),
        // Package lists of every kind for the container toolkit, cuDNN, NCCL, fabric manager, the
        // CUDA toolkit and SUSE's driver packages: dpkg -l (`ii  name  version`), apt list
        // (`name/suite,now version`), rpm -qa (`name-version-release.arch`), dnf list
        // (`name.arch  [epoch:]version-release`), pacman -Q (`name version-rel`), zypper
        // (`i | name | package | version |`).
        rule(
            &package(r"(?:golang-github-)?nvidia-container-toolkit(?:-base)?|libnvidia-container(?:1|-tools)", r"\d+\.\d+\.\d+"),
            "container_toolkit",
            "package list",
        ),
        rule(
            &package(r"lib(?:cudnn\d(?:-cuda-\d+)?)|cudnn\d?(?:-cuda-\d+(?:-\d+)?)?", r"\d+\.\d+\.\d+(?:\.\d+)?"),
            "cudnn",
            "package list",
        ),
        rule(&package(r"libnccl2?|nccl", r"\d+\.\d+\.\d+"), "nccl", "package list"),
        rule(
            &package(r"nvidia-fabric-?manager(?:-\d+)?|cuda-drivers-fabricmanager(?:-\d+)?", r"\d{3}\.\d+(?:\.\d+)?"),
            "fabric_manager",
            "package list",
        ),
        rule(&package(r"cuda-nvcc-\d+-\d+", r"\d+\.\d+\.\d+"), "cuda_toolkit", "package list"),
        rule(
            &package(r"cuda-toolkit-\d+-\d+", r"\d+\.\d+\.\d+"),
            "cuda_toolkit_package",
            "package list",
        ),
        rule(
            &package(r"nvidia-driver|nvidia-compute-(?:utils-)?G\d+|nvidia-open-driver-G\d+\S*", r"\d{3}\.\d+(?:\.\d+)?"),
            "driver",
            "package list",
        ),
        // SUSE's open kernel module package.
        rule(r"\bnvidia-(?P<v>open)-driver-G\d+", "driver_flavor", "package name"),
        // A driver a sentence names with its modules' flavour (`Driver: 595.91.07 (open kernel
        // modules)`, `580.95.05 (open-source driver)`, `580.173.02's **proprietary** modules`).
        rule(
            r"(?i)\b[3-6]\d{2}\.\d{2,3}(?:\.\d{2})?\b(?:'s)?\s*\(?(?:\*\*)?(?P<v>open|proprietary)(?:\*\*)?(?:[- ]source)?\s+(?:(?:gpu\s+)?kernel\s+)?(?:modules?|drivers?)\b",
            "flavor_text",
            "text",
        ),
        // Python's platform string (`Linux-5.15.0-91-generic-x86_64-with-glibc2.35`, as
        // transformers-cli env, accelerate env and Ultralytics print it): the kernel release.
        rule(
            r"\bLinux-(?P<v>\d+\.\d+\.\d+[\w.+~-]*?)(?:\.(?:x86_64|aarch64|ppc64le))?-(?:x86_64|aarch64|ppc64le)-with",
            "kernel",
            "platform.platform()",
        ),
        // pip freeze / pip list / Lightning's list: JAX, and the CUDA wheels a framework loads.
        rule(r"(?i)^(?:[-*]\s+)?jax(?:==|:?\s+)(?P<v>\d+\.\d+\.\d+)\s*$", "jax", "pip"),
        // conda list's row (`jax   0.4.28   pypi_0   pypi`: name, version, build, channel).
        rule(
            r"^jax\s+(?P<v>\d+\.\d+\.\d+)\s+\S+\s+[\w./-]+\s*$",
            "jax",
            "conda list",
        ),
        // JAX's issue template, answered by hand: `jax v0.4.11, jaxlib v0.4.11.dev...`, or
        // `jax 0.4.3/jaxlib 0.4.3` under its form's "What jax/jaxlib version are you using?".
        rule(
            r"(?i)^jax\s*(?:v|==)?(?P<v>\d+\.\d+\.\d+)\s*[/,]\s*jaxlib\b",
            "jax",
            "text",
        ),
        rule(
            r"(?i)\bjax (?:v|version:?\s*)(?P<v>\d+\.\d+\.\d+)(?:[,;\s]|$)",
            "jax",
            "text",
        ),
        // Libraries that publish their own GPU floor (compat/library-gpu-floors.md): from pip and
        // collect_env's package lines, vLLM's own report and image tags, Ollama's version lines.
        rule(
            r"(?i)^(?:\[(?:pip3?|conda)\]\s*|[-*]\s+)?flash[-_]attn(?:==|:?\s+)(?P<v>\d+\.\d+\.\d+)",
            "flash_attn",
            "pip",
        ),
        rule(
            r"(?i)^(?:\[(?:pip3?|conda)\]\s*|[-*]\s+)?vllm(?:==|:?\s+)(?P<v>\d+\.\d+\.\d+)",
            "vllm",
            "pip",
        ),
        rule(r"^vLLM Version\s*:\s*{V}", "vllm", "vLLM collect_env"),
        rule(r"\bvLLM API server version {V}", "vllm", "vLLM"),
        // Unsloth's banner: `Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4. Triton: 3.1.0`
        // (older: `Pytorch: 2.1.0+cu121. CUDA = 8.0. CUDA Toolkit = 12.1.`), where "CUDA" is
        // the GPU's compute capability and "CUDA Toolkit" torch.version.cuda; its first line
        // names vLLM when it is installed (`Transformers: 4.49.0. vLLM: 0.7.3.`).
        rule(
            r"(?i:torch): \S+\. CUDA(?::| =) (?P<v>\d{1,2}\.\d)\. CUDA Toolkit",
            "cc",
            "Unsloth banner",
        ),
        rule(
            r"\. CUDA Toolkit(?::| =) {V}\.",
            "cuda_runtime",
            "Unsloth banner",
        ),
        rule(
            r"\bUnsloth [\w.]+: Fast \w+ patching\. Transformers: [\w.]+\. vLLM: {V}",
            "vllm",
            "Unsloth banner",
        ),
        rule(r"\bvllm/vllm-openai:v{V}", "vllm", "image tag"),
        rule(r"\bollama version is {V}", "ollama", "ollama -v"),
        // Ollama's own log in the journal (`ollama[911]: ...`): the program in use, its version
        // unknown unless another line names it (its GPU floor holds for every version).
        rule(r"\b(?P<v>ollama)\[\d+\]:", "ollama_log", "Ollama's log"),
        rule(r#"msg="Listening on \S+ \(version {V}\)"#, "ollama", "Ollama"),
        rule(r"\bollama/ollama:{V}", "ollama", "image tag"),
        rule(
            r"(?i)^(?:\[pip3?\]\s*|[-*]\s+)?nvidia-cuda-runtime-cu\d+(?:==|:?\s+)(?P<v>\d+\.\d+\.\d+)",
            "cuda_runtime_wheel",
            "pip",
        ),
        rule(
            r"(?i)^(?:\[pip3?\]\s*|[-*]\s+)?nvidia-nccl-cu\d+(?:==|:?\s+)(?P<v>\d+\.\d+\.\d+)",
            "nccl",
            "pip",
        ),
        rule(
            r"(?i)^(?:[-*]\s+)?nvidia-cudnn-cu\d+(?:==|:?\s+)(?P<v>\d+\.\d+\.\d+(?:\.\d+)?)",
            "cudnn",
            "pip",
        ),
        // conda list's rows: Python, and the CUDA and cuDNN in a PyTorch build string
        // (`py3.10_cuda12.1_cudnn8.9.2_0` from the pytorch channel, `cuda120_py311h..._300` from
        // conda-forge).
        rule(r"^python\s{2,}(?P<v>\d\.\d+\.\d+)\s+\S+", "python", "conda list"),
        rule(
            r"^pytorch\s{2,}[\d.]+\s+\S*?\bcuda(?P<v>\d{3})_py",
            "wheel_cu",
            "conda list",
        ),
        rule(
            r"^pytorch\s{2,}[\d.]+\s+\S*?_cuda(?P<v>\d+\.\d+(?:\.\d+)?)_cudnn",
            "cuda_runtime",
            "conda list",
        ),
        rule(
            r"^pytorch\s{2,}[\d.]+\s+\S*?_cudnn(?P<v>\d+\.\d+\.\d+)_",
            "cudnn",
            "conda list",
        ),
        // TensorFlow's and XLA's cuDNN at run time (`Loaded cuDNN version 8904`, `90300`).
        rule(r"Loaded cuDNN version (?P<v>\d{4,6})\b", "cudnn_number", "TensorFlow"),
        // jaxlib's CUDA wheels name their CUDA (and cuDNN) in the local version:
        // `jaxlib==0.1.61+cuda111`, `jaxlib==0.4.13+cuda11.cudnn86`.
        rule(
            r"(?i)\bjaxlib(?:==|\s+)\d+\.\d+\.\d+\+cuda(?P<v>\d{3})\b",
            "wheel_cu",
            "jaxlib wheel tag",
        ),
        rule(
            r"(?i)\bjaxlib(?:==|\s+)\d+\.\d+\.\d+\+cuda(?P<v>\d{2})\.cudnn",
            "cuda_runtime",
            "jaxlib wheel tag",
        ),
        rule(
            r"(?i)\bjaxlib(?:==|\s+)\d+\.\d+\.\d+\+cuda\d+\.cudnn(?P<v>\d{2,3})\b",
            "cudnn_digits",
            "jaxlib wheel tag",
        ),
        // CuPy's show_config: `cuDNN Version                : 8600` (the runtime's code).
        rule(r"^cuDNN Version\s*:\s*(?P<v>\d{4,6})\s*$", "cudnn_number", "cupy.show_config()"),
        // TensorFlow creating a device names the GPU: `-> device: 0, name: NVIDIA H100 80GB
        // HBM3, pci bus id: 0000:18:00.0, compute capability: 9.0`.
        rule(
            r"-> device: \d+, name: (?:NVIDIA )?(?P<v>[^,]+), pci bus id",
            "gpu",
            "TensorFlow",
        ),
        // Lightning's and huggingface_hub's environment lists: `- torch:   2.2.1`, `- Torch: 2.3.1`,
        // and Lightning's `- release:   5.15.0-1055-aws` (the kernel release; jetson_release
        // writes `- Release: 5.10.192-tegra`).
        rule(r"(?i)^\s*[-*]\s+torch:\s+{TORCH}\s*$", "torch", "environment list"),
        rule(
            r"(?i)^\s*[-*]\s+release:\s+(?P<v>\d+\.\d+\.\d+-[\w.+~-]+)\s*$",
            "kernel",
            "environment list",
        ),
        // nvidia-bug-report.sh --versions: `| Kernel       : 5.15.0-136-generic` and the GPU rows
        // `| NVIDIA H100 80GB HBM3, 570.133.20, 81559 MiB, ...`.
        rule(
            r"\|\s*Kernel\s+:\s*(?P<v>\d+\.\d+\.\d+-[\w.+~-]+)",
            "kernel",
            "nvidia-bug-report.sh",
        ),
        rule(
            r"\|\s*NVIDIA (?P<v>[A-Za-z][^,|]*?), \d{3}\.\d+(?:\.\d+)?, \d+ MiB",
            "gpu",
            "nvidia-bug-report.sh",
        ),
        // DKMS before 3.0: `nvidia, 470.199.02, 5.4.0-150-generic, x86_64: installed`.
        rule(
            r"^nvidia(?:-current)?, (?P<v>\d{3}\.\d+(?:\.\d+)?), \S+, \S+: installed",
            "driver",
            "dkms status",
        ),
        // paddle.version.show(): `full_version: 2.5.2`, then `cuda: 11.7` and `cudnn: 8.4.1`.
        rule(r"^full_version:\s*{V}\s*$", "paddle", "paddle.version.show()"),
        rule(r"^cudnn:\s*{V}\s*$", "cudnn", "paddle.version.show()"),
        // /etc/os-release without PRETTY_NAME: NAME and VERSION, joined in `derive`.
        rule(r#"^NAME="(?P<v>[^"]+)""#, "os_name", "/etc/os-release"),
        rule(r#"^VERSION="(?P<v>\d[^"]*)""#, "os_version", "/etc/os-release"),
        // torch.__config__.show()'s build settings.
        rule(r"\bTORCH_VERSION=(?P<v>\d+\.\d+\.\d+)", "torch", "torch.__config__.show()"),
        rule(r"\bCUDNN_VERSION=(?P<v>\d+\.\d+\.\d+)", "cudnn", "torch.__config__.show()"),
        // Ollama's device line (0.12 on): `msg="inference compute" ... compute=12.0 ...
        // description="NVIDIA GeForce RTX 5070 Ti" ... driver=13.0`.
        rule(
            r#"msg="inference compute".*?\bdescription="(?:NVIDIA )?(?P<v>[^"]+)""#,
            "gpu",
            "ollama",
        ),
        rule(
            r#"msg="inference compute".*?\blibrary=CUDA\b.*?\bcompute=(?P<v>\d+\.\d+)\b"#,
            "cc",
            "ollama",
        ),
        rule(
            r#"msg="inference compute".*?\blibrary=CUDA\b.*?\bdriver=(?P<v>\d+\.\d+)\b"#,
            "driver_cuda",
            "ollama",
        ),
        // conda env export's specs (`- pytorch=2.0.1=py3.9_cuda11.8_cudnn8.7.0_0`).
        rule(
            r"^\s*-\s+pytorch=(?P<v>\d+\.\d+\.\d+)=",
            "torch",
            "conda env export",
        ),
        rule(
            r"^\s*-\s+pytorch=[\d.]+=\S*?_cuda(?P<v>\d+\.\d+)_",
            "cuda_runtime",
            "conda env export",
        ),
        rule(
            r"^\s*-\s+pytorch=[\d.]+=\S*?_cudnn(?P<v>\d+\.\d+\.\d+)_",
            "cudnn",
            "conda env export",
        ),
        // hostnamectl.
        rule(r"^\s*Operating System:\s*(?P<v>[A-Za-z][^\n]*?)\s*$", "os", "hostnamectl"),
        rule(r"^\s*Kernel:\s*Linux\s+(?P<v>\d+\.\d+\S*)", "kernel", "hostnamectl"),
        // `uname -r` alone: a release with a distribution's or a platform's suffix.
        rule(
            r"^(?P<v>{KREL}|\d+\.\d+\.\d+(?:[-.+][\w]+)*?[-.](?:default|el\d+(?:_\d+)?(?:\.x86_64|\.aarch64)?|fc\d+\.(?:x86_64|aarch64)|rpi-v8))\s*$",
            "kernel",
            "uname -r",
        ),
        // The same release where the running system prints it with more: `uname -rv`
        // (`6.14.0-33-generic #33~24.04.1-Ubuntu SMP`, also without its `#`) and a list's last
        // item (`Python 3.11.3, Debian 11, 5.10.0-23-amd64`).
        rule(
            r"(?:^|,\s+)(?P<v>{KREL})(?:\s+\d+~\S+ SMP\b|\s*$)",
            "kernel",
            "uname",
        ),
        // Ubuntu's login banner (`Welcome to Ubuntu 25.04 (GNU/Linux 6.14.0-35-generic x86_64)`):
        // the running kernel, whatever its build is named (a mainline `(GNU/Linux 5.16.10
        // x86_64)` has no flavour).
        rule(
            r"\(GNU/Linux (?P<v>\d+\.\d+\.\d+\S*?)(?:\s+(?:x86_64|aarch64|ppc64le)\)|\s*$)",
            "kernel",
            "uname",
        ),
        // Slurm's node record (`OS=Linux 5.14.0-362.24.1.el9_3.x86_64 #1 SMP`).
        rule(r"\bOS=Linux (?P<v>\d+\.\d+\.\d+\S*)", "kernel", "scontrol show node"),
        // The container toolkit's own version lines.
        rule(r"^cli-version:\s*{V}", "container_toolkit", "nvidia-container-cli --version"),
        rule(
            r"(?i)\bnvidia-container-cli version\s*[:：]?\s*{V}",
            "container_toolkit",
            "nvidia-container-cli --version",
        ),
        rule(r"^nvidia-ctk\s+v?{V}", "container_toolkit", "nvidia-ctk --version"),
        // The library's debug log (`nvidia-container-cli -k -d /dev/tty info`): `nvc.c:376]
        // initializing library context (version=1.14.3, build=...)`, the cli-version above.
        rule(
            r"\bnvc\.c:\d+\] initializing library context \(version={V}",
            "container_toolkit",
            "nvidia-container-cli -d",
        ),
        // nvidia-container-runtime shares the toolkit's version since 1.13 (its 3.x releases
        // were numbered apart, so only a 1.x is the toolkit's).
        rule(
            r"\bNVIDIA Container Runtime version (?P<v>1\.\d+\.\d+)\b",
            "container_toolkit",
            "nvidia-container-runtime --version",
        ),
        // NixOS's driver option: `hardware.nvidia.open = true;` (false: proprietary).
        rule(
            r"\bhardware\.nvidia\.open\s*=\s*(?P<v>true|false)\b",
            "nixos_open",
            "NixOS configuration",
        ),
        rule(
            r"NVIDIA Container Toolkit CLI version {V}",
            "container_toolkit",
            "nvidia-ctk --version",
        ),
        // The runtime hook, versioned with the toolkit (`nvidia-container-runtime-hook
        // --version`: `NVIDIA Container Runtime Hook version 1.13.3`).
        rule(
            r"NVIDIA Container Runtime Hook version {V}",
            "container_toolkit",
            "nvidia-container-runtime-hook --version",
        ),
        // The toolkit named with its version in a sentence (`container-toolkit version 1.11.0`,
        // `package nvidia-container-toolkit 1.14.3-1`): a 1.x release.
        rule(
            r"(?i)\b(?:nvidia[- ])?container[- ]toolkit(?: version)?\s+v?(?P<v>1\.\d+\.\d+)\b",
            "container_toolkit",
            "text",
        ),
        // Fabric manager's log and `--version`.
        rule(
            r"Fabric ?Manager version(?: is)?\s*:?\s*(?P<v>\d{3}\.\d+(?:\.\d+)?)",
            "fabric_manager",
            "fabric manager",
        ),
        // Fabric manager refusing a driver of another version: its own version, then the loaded
        // driver's as it reads it from the kernel module (`fabric manager NVIDIA GPU driver
        // interface version 595.71.05 don't match with driver version 590.48.01`).
        rule(
            r"fabric manager NVIDIA GPU driver interface version {V}",
            "fabric_manager",
            "fabric manager",
        ),
        rule(
            r"fabric manager NVIDIA GPU driver interface version [\d.]+ (?:don.t|doesn.t|does not|do not) match with driver version {V}",
            "kernel_module",
            "fabric manager",
        ),
        // deviceQuery's CUDA versions: the driver's (the highest it supports) and the runtime's.
        rule(
            r"CUDA Driver Version / Runtime Version\s+(?P<v>\d+\.\d+) / \d+\.\d+",
            "driver_cuda",
            "deviceQuery",
        ),
        rule(
            r"CUDA Driver Version / Runtime Version\s+\d+\.\d+ / (?P<v>\d+\.\d+)",
            "cuda_runtime",
            "deviceQuery",
        ),
        rule(r"\bCUDA Driver Version = {V}", "driver_cuda", "deviceQuery"),
        // deviceQuery's closing summary: `..., NumDevs = 4, Device0 = GRID K520, Device1 = ...`.
        rule(r"\bNumDevs = \d+, Device0 = (?P<v>[^,]+?)\s*(?:,|$)", "gpu", "deviceQuery"),
        // A script's own print of the device (`Device: NVIDIA A100-SXM4-40GB`).
        rule(r"^Device:\s*NVIDIA (?P<v>[^,(]+?)\s*$", "gpu", "text"),
        // cuda_memtest's device line: `Device name=NVIDIA RTX PRO 6000 ..., global memory size=`.
        rule(r"\bDevice name=(?P<v>NVIDIA [^,]+?)\s*,", "gpu", "cuda_memtest"),
        // macOS's system report: `CUDA Driver Version: 7.5.20` (the CUDA driver's own number).
        rule(r"\bCUDA Driver Version:\s*{V}\s*$", "driver_cuda", "macOS system report"),
        // A script printing what PyTorch was built with (`PyTorch build cuDNN version: 7605`).
        rule(r"^PyTorch build CUDA version:\s*{V}", "cuda_runtime", "PyTorch"),
        rule(
            r"^PyTorch build cuDNN version:\s*(?P<v>\d{4,6})\s*$",
            "cudnn_number",
            "PyTorch",
        ),
        rule(
            r"^PyTorch build NCCL version:\s*(?P<v>\d{4,6})\s*$",
            "nccl_number",
            "PyTorch",
        ),
        // A hand-written list of items, each a name and its version
        // (`ubuntu 18.04, python 3.10, tesla V100, cuda 11.7, torch 2.0.1`).
        rule(
            r"(?i)(?:^|,\s*)(?:py)?torch\s+v?(?P<v>\d+\.\d+(?:\.\d+)?)\s*(?:,|$)",
            "torch",
            "text",
        ),
        rule(
            r"(?i)(?:^|,\s*)python\s+v?(?P<v>\d\.\d+(?:\.\d+)?)\s*(?:,|$)",
            "python",
            "text",
        ),
        // CUDA.jl's `CUDA.versioninfo()`: `CUDA toolkit 10.2.89, artifact installation` (older)
        // or `CUDA runtime 12.2, artifact installation`, `CUDA driver 12.3`, `NVIDIA driver
        // 545.29.6`.
        rule(
            r"^CUDA (?:toolkit|runtime) {V}, (?:artifact|local) installation",
            "cuda_runtime",
            "CUDA.jl",
        ),
        rule(r"^CUDA driver {V}\s*$", "driver_cuda", "CUDA.jl"),
        rule(r"^NVIDIA driver (?P<v>\d{3}\.\d+(?:\.\d+)?)\s*$", "driver", "CUDA.jl"),
        // Its newer form (CUDA.jl 5.8 on), under "CUDA toolchain:": `- runtime 13.1, artifact
        // installation`, `- driver 591.44.0 for 13.1` (whose driver a list's "driver X" rule
        // reads).
        rule(
            r"^-\s+runtime {V}, (?:artifact|local) installation",
            "cuda_runtime",
            "CUDA.jl",
        ),
        rule(
            r"^-\s+driver \d{3}\.\d+(?:\.\d+)? for {V}\s*$",
            "driver_cuda",
            "CUDA.jl",
        ),
        // glxinfo names the driver in its OpenGL version (`OpenGL version string: 4.6.0 NVIDIA
        // 465.31`, `GL_VERSION: 3.2.0 NVIDIA 465.31`).
        rule(
            r"(?:OpenGL (?:core profile |ES profile )?version string|GL_VERSION):\s*[\d.]+(?: \w+)? NVIDIA (?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "glxinfo",
        ),
        // `accelerate env` and `transformers-cli env`: `- PyTorch version (GPU?): 1.12.1 (True)`.
        rule(
            r"^PyTorch (?i:version) \(GPU\?\)\s*:\s*{TORCH}",
            "torch",
            "accelerate env",
        ),
        // jetson_release (jtop): `- CUDA Arch BIN: 8.7`, the Jetson's compute capability.
        rule(r"(?i)^CUDA Arch BIN\s*:\s*(?P<v>\d+\.\d+)\s*$", "cc", "jetson_release"),
        // DeepSpeed's op builder: "Installed CUDA version 11.8 does not match the version torch
        // was compiled with 11.7" (nvcc's, then PyTorch's build).
        rule(
            r"Installed CUDA version {V} does not match the version torch was compiled with",
            "cuda_toolkit",
            "DeepSpeed",
        ),
        rule(
            r"Installed CUDA version [\d.]+ does not match the version torch was compiled with {V}",
            "cuda_runtime",
            "DeepSpeed",
        ),
        // cuDNN's samples (mnistCUDNN): `cudnnGetVersion() : 7402 , CUDNN_VERSION from cudnn.h`.
        rule(r"\bcudnnGetVersion\(\) : (?P<v>\d{4,5})\b", "cudnn_number", "cuDNN sample"),
        // A list's bare `NVIDIA: 390.25` (the driver: a three-digit branch).
        rule(
            r"(?i)^nvidia\s*[:：]\s*(?P<v>\d{3}\.\d+(?:\.\d+)?)\s*$",
            "driver",
            "environment list",
        ),
        rule(r"\bCUDA Runtime Version = {V}", "cuda_runtime", "deviceQuery"),
        // nvidia-smi --version (R580 on) and nvidia-bug-report.sh --versions.
        rule(r"(?:^|\|\s*)DRIVER version\s*:\s*{V}", "driver", "nvidia-smi --version"),
        rule(r"(?:^|\|\s*)CUDA Version\s*:\s*{V}\s*$", "driver_cuda", "nvidia-smi --version"),
        // From R610 the two lines above say "Deprecated"; the kernel-mode driver and the CUDA of
        // the user-mode driver take their place (`KMD version : 610.43.02`, `CUDA UMD version :
        // 13.3`).
        rule(r"^KMD version\s*:\s*{V}", "driver", "nvidia-smi --version"),
        rule(r"^CUDA UMD version\s*:\s*{V}\s*$", "driver_cuda", "nvidia-smi --version"),
        // dcgmi discovery's table.
        rule(
            r"^\|\s*\d+\s*\|\s*Name: (?:NVIDIA )?(?P<v>[A-Za-z][\w -]*?\w)\s*\|",
            "gpu",
            "dcgmi discovery",
        ),
        rule(r"^(?:local/)?cudnn\s+(?P<v>\d+\.\d+\.\d+(?:\.\d+)?)-\d", "cudnn", "pacman"),
        // NGC containers' start banner: the driver found, and that forward compatibility cannot
        // make up for it ("compatibility mode is UNAVAILABLE").
        rule(
            r"version (?P<v>\d{3}\.\d+(?:\.\d+)?) was detected and compatibility mode is",
            "driver",
            "NGC container banner",
        ),
        rule(
            r"version \d{3}\.\d+(?:\.\d+)? was detected and (?P<v>compatibility mode is UNAVAILABLE)",
            "requirement_refused",
            "NGC container banner",
        ),
        // Lists in Chinese (PaddlePaddle's issue template and many others): `cuda版本：9.0.176`.
        rule(
            r"(?i)^(?:nvidia-smi|nvidia\s*驱动|显卡驱动|驱动)\s*版本\s*[:：]\s*{V}",
            "driver",
            "environment list",
        ),
        rule(r"(?i)^python\s*版本\s*[:：]\s*{V}", "python", "environment list"),
        // A hand-written list's `CUDA runtime: 11.1` (collect_env's "CUDA runtime version" is
        // nvcc's, read above) and `nvidia-container-toolkit: 1.3.0-1 (via apt)`.
        rule(r"(?i)^cuda runtime\s*[:：]\s*{V}", "cuda_runtime", "environment list"),
        rule(
            r"(?i)^nvidia-container-toolkit(?: version)?\s*[:：]\s*v?{V}",
            "container_toolkit",
            "environment list",
        ),
        rule(
            r"(?i)^cudnn\s*(?:版本|version|ver\.?)?\s*[:：]\s*{V}",
            "cudnn",
            "environment list",
        ),
        // A list's bare "CUDA": nvcc's when it has its build number (9.0.176), else the CUDA the
        // framework is used with (as people write it: `CUDA: 11.8`). "CUDA Version" is left
        // to nvidia-smi's reading.
        rule(r"(?i)^cuda\s*(?:版本)?\s*[:：]\s*{V}", "cuda_listed", "environment list"),
        // A list's "CUDA Runtime Version" (capitalised: collect_env's lowercase line is nvcc's).
        rule(
            r"^(?i:cuda) Runtime Version\s*[:：]\s*{V}",
            "cuda_listed",
            "environment list",
        ),
        // A PyTorch wheel's download address names its CUDA and its version:
        // `download.pytorch.org/whl/cu100/torch-1.0.1.post2-cp35-...whl`.
        rule(
            r"download\.pytorch\.org/whl/(?:[\w.-]+/)*?cu\d{2,3}/torch-(?P<v>\d+\.\d+\.\d+(?:\.post\d+)?)(?:%2B\w+|\+\w+)?-",
            "torch",
            "PyTorch wheel address",
        ),
        rule(
            r"download\.pytorch\.org/whl/(?:[\w.-]+/)*?cu(?P<v>\d{2,3})/torch-",
            "wheel_cu",
            "PyTorch wheel address",
        ),
        // A list's framework given as a PyTorch wheel's version (`Framework: 2.6.0+cu124`):
        // the `+cuNNN` local tag is PyTorch's.
        rule(
            r"(?i)^framework(?:\s*(?:&|and)?\s*version)?\s*[:：]\s*(?:(?:py)?torch\s*)?(?P<v>\d+\.\d+\.\d+\+cu\d+)\b",
            "torch",
            "environment list",
        ),
        // A distribution and its release in a sentence ("on Debian 12", "an Ubuntu 22.04
        // system"): kept apart and used only when nothing else names the OS (see `derive`). An
        // Ubuntu release is YY.04 or YY.10: gcc's "(Ubuntu 11.2.0-19ubuntu1)" names a compiler.
        // Written together too (`centos7`, `ubuntu18.04`), and Debian by its codename.
        rule(
            r"(?i)\b(?P<v>(?:Ubuntu(?: Server)? ?\d{2}\.(?:04|10)(?:\.\d+)?|(?:Debian|Fedora|CentOS Stream|Rocky Linux|AlmaLinux|Red Hat Enterprise Linux|RHEL|openSUSE(?: Leap)?|SLES|Linux Mint|Pop!_OS) \d+(?:\.\d+)*|CentOS(?: Linux)? ?\d+(?:\.\d+)*|Debian (?:jessie|stretch|buster|bullseye|bookworm|trixie)|Arch Linux|Windows (?:1[01]|7|8\.1|Server 20\d\d))(?: LTS)?)\b",
            "os_text",
            "text",
        ),
        // Python's release in a sentence ("Python 3.11.3 on Ubuntu", "on python 3.6.8"), or
        // written the ways people and tools name the interpreter ("python3.8" as a command or in
        // a path, "Python version 3.10", "Python: ver 3.9", "python版本是3.7",
        // `PYTHON_VERSION=3.10.12`), used only when nothing else names it. A bare "Python 3.8"
        // is left alone: in a sentence it is as often what a project requires.
        rule(
            r"(?i)\bpython (?P<v>[23]\.\d{1,2}\.\d{1,2})\b",
            "python_text",
            "text",
        ),
        rule(
            r"(?i)\bpython(?:\s?version\s*(?:is\s*|:\s*)?|版本(?:是|为)?\s*[:：]?\s*|\s?:\s*ver(?:sion)?\.?\s*|_version\s*=\s*)?(?P<v>[23]\.\d{1,2}(?:\.\d{1,2})?)\b",
            "python_text",
            "text",
        ),
        // Versions named in a sentence or a loose list, in English or Chinese ("cuda版本为11.2,
        // cudnn版本为8.2.0", "installed Cuda Toolkit 11.2.1 and cuDNN v8.1.1.33", "cuda 9.2
        // nvidia driver: 396.26"): each used only when nothing else names its field (see
        // `derive`). nvidia-smi's capitalised "CUDA Version" is the driver's, not a toolkit, and
        // a driver needs its full version (a branch, `driver 455`, compares below its releases).
        rule(
            r"(?:^|[\s(,;:]|[^\x00-\x7F])(?i:cuda)(?:\s*(?i:toolkit))?(?:-|\s*(?:版本|version|ver\.?)?)\s*(?:为|是|is|was|=|:|：)?\s*v?(?P<v>(?:7\.[05]|8\.0|9\.[012]|10\.[012]|11\.[0-8]|1[23]\.\d)(?:\.\d{1,3})?)(?:[^\w.]|\.(?:\s|$)|$)",
            "cuda_text",
            "text",
        ),
        // A CUDA that a sentence attributes to nvidia-smi or calls the most the driver takes is
        // the driver's, not a toolkit ("CUDA 13.1 (per nvidia-smi)", "nvidia-smi shows CUDA
        // 12.4", "CUDA: 11.8.89 (up to: 12.8)", "the driver supports up to CUDA 12.2").
        rule(
            r"(?i)\bcuda(?:\s*version)?\s*[:：]?\s*v?(?P<v>1?\d\.\d)(?:\.\d+)?\s*(?:\(\s*(?:(?:per|according to|from|shown by|reported by|via|in|by|as (?:reported|shown|printed) (?:by|in))\s*)?|,?\s*(?:per|according to|from|shown by|reported by|via|in|by|as (?:reported|shown|printed) (?:by|in))\s*)`?nvidia-smi\b",
            "driver_cuda",
            "text",
        ),
        rule(
            r"(?i)\bnvidia-smi`?\s*(?:shows|says|reports|prints|displays|显示)\s*(?:that\s*)?(?:the\s*)?(?:max(?:imum)?\s*)?(?:cuda(?:\s*version)?\s*(?:is\s*|of\s*|[:：]\s*)?)?v?(?P<v>1?\d\.\d)\b",
            "driver_cuda",
            "text",
        ),
        rule(
            r"(?i)\bcuda(?:\s*version)?\s*\(\s*(?:per|according to|from|shown by|reported by|via)\s*`?nvidia-smi`?\s*\)\s*[:：]\s*v?(?P<v>1?\d\.\d)\b",
            "driver_cuda",
            "text",
        ),
        // CUDA.jl naming the CUDA the driver is for (`only supports NVIDIA drivers for CUDA 11.x
        // or 12.x (yours is for CUDA 13.0.0)`).
        rule(
            r"only supports NVIDIA drivers for CUDA .{0,40}\(yours is for CUDA {V}\)",
            "driver_cuda",
            "CUDA.jl",
        ),
        rule(
            r"(?i)\bcuda\s*[:：]?\s*v?\d+\.\d+(?:\.\d+)?\s*\(\s*up to\s*[:：]?\s*(?P<v>1?\d\.\d)\s*\)",
            "driver_cuda",
            "text",
        ),
        rule(
            r"(?i)\bdriver\s*(?:\d{3}(?:\.\d+){0,2}\s*)?supports\s*(?:up to\s*|at most\s*)?cuda(?:\s*version)?\s*(?:up to\s*)?v?(?P<v>1?\d\.\d)\b",
            "driver_cuda",
            "text",
        ),
        // nequip's environment list: "cuda version according to nvcc 10.2" (the toolkit) and
        // "... according to PyTorch 11.7" (the build's).
        rule(
            r"(?i)\bcuda version according to nvcc\s+{V}",
            "cuda_toolkit",
            "environment list",
        ),
        rule(
            r"(?i)\bcuda version according to pytorch\s+{V}",
            "cuda_runtime",
            "environment list",
        ),
        rule(
            r"(?i)(?:^|[\s(,;:]|[^\x00-\x7F])cudnn\s*(?:版本|version|ver\.?)?\s*(?:为|是|is|was|=|:|：)?\s*v?(?P<v>\d\.\d+(?:\.\d+){0,2})(?:[^\w.]|\.(?:\s|$)|$)",
            "cudnn_text",
            "text",
        ),
        // cuDNN's archive as named in a list (`cudnn-11.0-windows-x64-v8.0.4.30`,
        // `cudnn-linux-x86_64-8.9.7.29_cuda12-archive`), and a build string's `_cudnn7.1.4`. (A
        // directory on a library path, `/apps/cudnn/v8.0.3.33`, is not read: it need not be the
        // cuDNN loaded, and a loaded cuDNN older than the build is a violation.)
        rule(
            r"(?i)\bcudnn(?:-\d+\.\d+-(?:windows\d*|linux)-x64-v|-(?:windows|linux)-[a-z0-9_]+-)(?P<v>\d+\.\d+\.\d+(?:\.\d+)?)",
            "cudnn_text",
            "cuDNN archive name",
        ),
        rule(r"(?i)_cudnn(?P<v>\d+\.\d+\.\d+)(?:_|\b)", "cudnn_text", "text"),
        rule(
            r"(?i)(?:nvidia\s*)?(?:driver|驱动)\s*(?:版本|version)?\s*(?:为|是|is|was|=|:|：)?\s*v?(?P<v>\d{3}\.\d{2,3}(?:\.\d{2,3})?)(?:[^\w.]|\.(?:\s|$)|$)",
            "driver_text",
            "text",
        ),
        rule(
            r"(?:飞桨|飞浆|(?i:\bpaddle(?:paddle)?(?:-gpu)?))\s*(?:版本|(?i:version))?\s*(?:为|是|is|==?|:|：)?\s*v?(?P<v>[0-3]\.\d+(?:\.\d+)?)(?:[^\w.]|\.(?:\s|$)|$)",
            "paddle_text",
            "text",
        ),
        rule(
            r"(?i)\btensorflow(?:-gpu)?\s*(?:版本|version)?\s*(?:为|是|is|==?|:|：)?\s*v?(?P<v>[0-2]\.\d+(?:\.\d+)?)(?:[^\w.]|\.(?:\s|$)|$)",
            "tensorflow_text",
            "text",
        ),
        // A build named with its CUDA (`paddle-gpu2.3.0+cuda10.2`).
        rule(
            r"(?i)\d\+cuda(?P<v>\d{1,2}\.\d)\b",
            "cuda_runtime_text",
            "text",
        ),
        // Windows as people write it in a list or a sentence (`win10`, `win11,pycharm,RTX5060`),
        // or alone on a line, answering an issue form's "which OS".
        rule(r"(?i)\b(?P<v>win(?:7|8|10|11))\b", "os_text", "text"),
        rule(
            r"^\W*(?P<v>Windows(?: (?:7|8\.1|10|11))?)\W*$",
            "os_text",
            "text",
        ),
        // An Ubuntu release written without its space (`ubuntu18.04`).
        rule(
            r"(?i)\b(?P<v>ubuntu\d{2}\.(?:04|10))\b",
            "os_text",
            "text",
        ),
        // /proc/version and the first line of dmesg: `Linux version 5.4.91-microsoft-standard-WSL2
        // (oe-user@oe-host) (gcc ...`.
        rule(
            r"^(?:\[\s*\d+\.\d+\]\s*)?Linux version (?P<v>\d+\.\d+\.\d+[\w.+~-]*) \(",
            "kernel",
            "/proc/version",
        ),
        // cmd.exe's `ver`.
        rule(
            r"^(?P<v>Microsoft Windows \[Version \d+\.\d+\.\d+(?:\.\d+)?\])",
            "os",
            "ver",
        ),
        // The GPU Operator's driver container: `Starting installation of NVIDIA driver version
        // 450.80.02 for Linux kernel version 5.4.0-1034-aws`.
        rule(
            r"\bfor Linux kernel version (?P<v>\d+\.\d+\.\d+-[\w.+~-]+)",
            "kernel",
            "driver container",
        ),
        // The driver's own installer: `NVIDIA-Linux-x86_64-450.80.02.run`.
        rule(
            r"\bNVIDIA-Linux-(?:x86_64|aarch64|ppc64le)-(?P<v>\d{3}\.\d+(?:\.\d+)?)",
            "driver",
            "driver installer name",
        ),
        // The CUDA runfile carries a driver: `cuda_12.8.1_570.124.06_linux.run`.
        rule(
            r"\bcuda_\d+\.\d+(?:\.\d+)?_(?P<v>\d{3}\.\d+(?:\.\d+)?)_linux",
            "driver",
            "CUDA runfile name",
        ),
        // A line that is only an Ubuntu release (`Ubuntu 22`, `Ubuntu 22.04 LTS`) in a list.
        rule(
            r"^(?P<v>(?i:ubuntu) ?\d{2}(?:\.\d{2}(?:\.\d+)?)?(?: LTS)?)\s*$",
            "os",
            "environment list",
        ),
        rule(
            r"(?i)^paddle(?:paddle)?(?:-gpu)?\s*(?:版本|version)\s*[:：]\s*(?P<v>\d+\.\d+\.\d+(?:\.post\d{2,3})?)\b",
            "paddle",
            "environment list",
        ),
        // TensorFlow's issue template, and lists that copy it.
        rule(
            r"(?i)^tensorflow(?:-gpu)?(?: version)?(?: \([^)]*\))?\s*(?:(?:==?|[:：])\s*|\s)(?:\('[^']*',\s*')?v?{V}",
            "tensorflow",
            "environment list",
        ),
        rule(
            r"(?i)^OS Platform and Distribution(?: \([^)]*\))?\s*:\s*(?:Linux\s+)?(?P<v>[A-Za-z][^,;(\n]*?)\s*(?:[,;(].*)?$",
            "os",
            "TensorFlow issue template",
        ),
        rule(
            r"(?i)^GPU model and memory(?: \([^)]*\))?\s*:\s*(?:\d+\s*[x×]\s*)?(?:NVIDIA )?(?P<v>[A-Za-z][\w -]*?)\s*(?:[,;(/].*|\s\d+\s*[GM]i?B.*)?$",
            "gpu",
            "TensorFlow issue template",
        ),
        // The template's "CUDA/cuDNN version: 11.2/8.1": what TensorFlow runs with.
        rule(
            r"(?i)^CUDA/cuDNN versions?\s*:\s*(?:CUDA\s*)?{V}",
            "cuda_runtime",
            "TensorFlow issue template",
        ),
        rule(
            r"(?i)^CUDA/cuDNN versions?\s*:\s*(?:CUDA\s*)?\d+(?:\.\d+)*\s*(?:/|,|and)\s*(?:cuDNN\s*)?(?P<v>\d+(?:\.\d+)*)(?:[^\d.]|$)",
            "cudnn",
            "TensorFlow issue template",
        ),
        // Ultralytics' start-up banner: `YOLOv5 🚀 v7.0 Python-3.10.12 torch-2.0.1+cu118 CUDA:0
        // (Tesla T4, 15102MiB)`.
        rule(
            r"(?:YOLOv\d|Ultralytics)\b.*?\btorch[- ](?P<v>\d+\.\d+(?:\.\d+)*(?:\+\w+)?)",
            "torch",
            "Ultralytics banner",
        ),
        rule(r"(?:YOLOv\d|Ultralytics)\b.*?\bPython-{V}", "python", "Ultralytics banner"),
        rule(
            r"(?:YOLOv\d|Ultralytics)\b.*?\bCUDA:0 \((?:NVIDIA )?(?P<v>[^,()]+), \d+ ?Mi?B\)",
            "gpu",
            "Ultralytics banner",
        ),
        rule(
            r"(?i)^(?:NVIDIA )?(?:GPU|GPU model|GPU type|Graphics card|Video card|Compute device name|显卡(?:型号)?)\s*[:：]\s*(?:\d+\s*[x×]\s*)?(?:NVIDIA )?(?P<v>[A-Za-z][^\n(,/]*?(?: \([A-Za-z]+\))?)\s*(?:[(/].*|\s(?i:cuda|driver)\b.*)?$",
            "gpu",
            "environment list",
        ),
        // A list's GPU written as its bare model (`GPU:3090`, `GPU A100`, `GPUs: 8x H100`): a data
        // centre part's letter and number, or a GeForce board's four digits, and nothing after
        // but its memory.
        rule(
            r"(?i)^(?:gpus?|显卡)\s*[:：]?\s*(?:\d+\s*[x×]\s*)?(?:nvidia\s+|英伟达\s*)?(?P<v>[AHLTKPV]\d{1,3}|[1-5]0[5-9]0(?:\s?(?:ti|super|s))?)\s*(?:(?:[,(]|（).*|\d+\s*G[Bi]?B?)?\s*$",
            "gpu",
            "environment list",
        ),
        // llama.cpp's and ollama's device list: `Device 0: NVIDIA GeForce GTX 1080 Ti, compute
        // capability 6.1, VMM: yes`.
        rule(
            r"^\s*Device \d+: (?:NVIDIA )?(?P<v>[A-Za-z][^,]*?), compute capability",
            "gpu",
            "llama.cpp",
        ),
        // TensorFlow's device line: `name: GeForce GTX 960M computeCapability: 5.0`.
        rule(r"\bcomputeCapability:\s*{V}", "cc", "TensorFlow"),
        rule(
            r"\bname: (?:NVIDIA )?(?P<v>[A-Za-z][^:]*?)\s+computeCapability:",
            "gpu",
            "TensorFlow",
        ),
        // nvbandwidth's and other CUDA samples' device list: `Device 0: NVIDIA H100 80GB HBM3
        // (00000000:1b:00)`.
        rule(
            r"^\s*Device \d+: (?:NVIDIA )?(?P<v>[A-Za-z][^(,:]*?) \([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}",
            "gpu",
            "CUDA device list",
        ),
        // lspci's board name after the chip's (`GP104BM [GeForce GTX 1070 Mobile]`), also
        // without the vendor's name.
        rule(
            r"\b(?:G[KMPVAHB]|TU|GA|AD|GH|GB)\d{3}[A-Z0-9]*\s\[(?P<v>(?:GeForce|Quadro|TITAN|Tesla|RTX|[AHLT]\d)[^\]]*)\]",
            "gpu",
            "lspci",
        ),
        // A GPU's name written in a sentence or a list (`2xRTX 5000 16GB`, `a Tesla P100, but`,
        // `RTX2060`, a mobile part's `GTX 860M` or `GTX 860 M`, `GTX TITAN X`, which is not the
        // Pascal TITAN X): the model as written, yielding to any tool's printing of it (see
        // `source_rank`).
        rule(
            r"(?:^|[^A-Za-z0-9_]|\d[x×])(?:(?i:nvidia)\s+)?(?P<v>(?:GeForce\s+)?(?i:RTX|GTX|MX)\s?A?\d{3,4}(?:M\b|\sM\s*$|\s?(?:Ti|TI|ti|SUPER|Super|D)\b)?(?:\s(?:Laptop GPU|Mobile|with Max-Q Design|Max-Q|Ada Generation))?|GeForce\s+(?:GT\s?)?\d{3,4}(?:MX?|\s?(?:Ti|SUPER|Super)\b)?|RTX PRO \d{4}(?: Blackwell)?(?: (?:Server|Workstation|Max-Q Workstation) Edition)?|GRID\s[KM]\d{1,3}[A-Za-z]?|(?:(?:GeForce\s+)?GTX\s+)?(?:TITAN|Titan)\s(?:RTX|Xp|X|V)(?:\s\(Pascal\))?|Tesla\s[KMPVTA]\d{1,3}[A-Za-z]?(?:-\w+)*|(?i:Quadro)\s(?:RTX\s)?[A-Z]?\d{3,4}[A-Za-z]?)(?:[^A-Za-z0-9_]|$)",
            "gpu",
            "text",
        ),
        // A GeForce GT, a Tesla K-series board or a GeForce from the 10 series on written
        // without its family (`GPU is a GT 1030`, `Cards: K80`, `I am using 2080 Ti`, `nvidia
        // 2070显卡`): the model number alone says which, where a bare number needs "Ti" or
        // "nvidia" before it.
        // A data-center or workstation board named after the vendor in a sentence (`launched
        // on NVidia A100 GPU`, `I use NVIDIA A100-40G`, `Nvidia T600`, `NVIDIA Quadro FX
        // 1800M`): a bare `T4` or `A10` says which only beside the vendor's name.
        rule(
            r"(?i:\bnvidia)\s+(?P<v>(?:[AHLT]\d{1,4}[A-Za-z]?(?:-\d+G[B]?)?|GB\d{2,3}|GH\d{3}|Quadro\sFX\s\d{3,4}M?))(?:[^\w.-]|\.(?:\s|$)|$)",
            "gpu",
            "text",
        ),
        rule(r"\b(?P<v>GT\s?(?:[1-9]\d{2}|1030)M?)\b", "gpu", "text"),
        // Quadro's Kepler and Maxwell boards by their model alone (`an old K2000`), and Jetson's
        // TX1 and TX2 (`Can't use GPU on TX2`).
        rule(
            r"\b(?P<v>K(?:80|40m?|20[mXx]?|520|[1-6]200|[2-6]000|620))\b|\b(?P<b>(?:Jetson )?TX[12])\b",
            "gpu",
            "text",
        ),
        rule(
            r"(?:(?i:nvidia)\s+(?P<v>(?:[2-5]0|1[06])[5-9]0(?:\s?Ti)?(?:\s?(?i:super)|s)?)|\b(?P<b>(?:[2-5]0|1[06])[5-9]0\s?Ti(?:\s?(?i:super))?))(?:[^\w.]|$)",
            "gpu",
            "text",
        ),
        // A GeForce's bare model number as the board a sentence talks about (`the 1070 card`,
        // `my 3090 GPU`, `2x 4090 cards`): the word after it says it is a board, the word before
        // that it is not a count of them.
        rule(
            r"(?i:\b(?:the|my|a|an|our|this|that|these|those|one|two|three|four|six|eight|single|dual|new|old|\d{1,2}\s?[x×])\s+)(?P<v>(?:[2-5]0|1[06])[5-9]0(?:\s?Ti)?(?:\s?(?i:super))?)\s+(?i:cards?|gpus?|graphics cards?)\b",
            "gpu",
            "text",
        ),
        rule(
            r"(?i)\bcompute capability:?\s*{V}",
            "cc",
            "environment list",
        ),
        rule(
            r"^Torch version:\s*(?P<v>\d+\.\d+(?:\.\d+)*(?:\+\w+)?)",
            "torch",
            "torch.__version__",
        ),
        // PyTorch's warnings name the GPU and its capability.
        rule(
            r"Found GPU\d+ (?:NVIDIA )?(?P<v>.+?) which is of cuda capability",
            "gpu",
            "PyTorch",
        ),
        rule(r"which is of cuda capability {V}", "cc", "PyTorch"),
        rule(
            r"Detected NVIDIA (?P<v>.+?) GPU, which is not (?:yet )?supported (?:in this version of the|by this) container",
            "gpu",
            "NGC container",
        ),
        rule(
            r"(?P<v>(?:with CUDA capability |^)sm_\d+[a-z]? is not compatible with the current PyTorch install)",
            "arch_refused",
            "PyTorch",
        ),
        rule(
            r"^(?:\[[^\]]*\]\s*)?(?:\w*Warning:\s*)?(?:NVIDIA )?(?P<v>[A-Za-z][\w -]*?) with CUDA capability(?: sm_\d+[a-z]? is not compatible|\s*$)",
            "gpu",
            "PyTorch",
        ),
        // ptxas refusing a newer PTX ISA (see STATEMENTS).
        rule(
            r"(?P<v>Unsupported \.version \d+\.\d+; current version is '\d+\.\d+')",
            "ptx_unsupported",
            "ptxas",
        ),
        // nvcc refusing an architecture it is older than (`nvcc fatal : Unsupported gpu
        // architecture 'compute_86'`).
        rule(
            r"Unsupported gpu architecture '(?P<v>compute_\d+[a-z]?)'",
            "nvcc_refused",
            "nvcc",
        ),
        // ptxas, the toolkit's assembler, refusing the same (`ptxas fatal   : Value 'sm_86' is not
        // defined for option 'gpu-name'`), as XLA and TensorFlow print it.
        rule(
            r"ptxas fatal\s*: Value '(?P<v>sm_\d+[a-z]?)' is not defined for option 'gpu-name'",
            "nvcc_refused",
            "ptxas",
        ),
        // XLA (JAX, TensorFlow) finding that ptxas does not know the GPU's compute capability
        // (asm_compiler.cc: `Falling back to the CUDA driver for PTX compilation; ptxas does not
        // support CC 8.9`): a toolkit older than the GPU (its capability is read above).
        rule(
            r"ptxas does not support (?P<v>CC \d+\.\d+)",
            "nvcc_refused",
            "ptxas (XLA)",
        ),
        // PyTorch's warning since 2.8 (`_warn_unsupported_code`): the GPU and its capability, then
        // one line per architecture of the build (read apart, in `read`).
        rule(
            r"Found GPU\d+ (?:NVIDIA )?(?P<v>.+?) which is of compute capability \(CC\)",
            "gpu",
            "PyTorch",
        ),
        rule(r"which is of compute capability \(CC\) {V}", "cc", "PyTorch"),
        rule(
            r"(?P<v>which is of compute capability \(CC\) \d+\.\d+)",
            "arch_refused",
            "PyTorch",
        ),

        // vLLM's check of every GPU against its floor, in its setup and at start-up (`GPUs with
        // compute capability less than 7.0 are not supported.`).
        rule(
            r"(?P<v>GPUs with compute capability (?:less than|below) \d+\.\d+ are not supported)",
            "library_refused",
            "vLLM",
        ),
        // Ollama's GPU discovery refusing a GPU below its floor (gpu.go: `CUDA GPU is too old.
        // Falling back to CPU mode. Compute Capability detected: 5.2`).
        rule(
            r"(?P<v>CUDA GPU is too old\. Falling back to CPU mode)",
            "library_refused",
            "Ollama",
        ),
        rule(
            r"CUDA GPU is too old\..*Compute Capability detected: {V}",
            "cc",
            "Ollama",
        ),
        // PyTorch Inductor's check before compiling with Triton (`Found NVIDIA GeForce GTX 1080
        // which is too old to be supported by the triton GPU compiler, ... but your device is of
        // CUDA capability 6.1`): the GPU and its compute capability.
        rule(
            r"\bFound (?P<v>[^\n]+?) which is too old to be supported by the triton GPU compiler",
            "gpu",
            "PyTorch Inductor",
        ),
        rule(
            r"Triton only supports devices of CUDA Capability >= [\d.]+, but your device is of CUDA capability {V}",
            "cc",
            "PyTorch Inductor",
        ),
        // Paddle's check of the GPU against its build (gpu_resources.cc: `The GPU architecture in
        // your current machine is Pascal, which is not compatible with Paddle installation with
        // arch: 70 75 80 86`).
        rule(
            r"not compatible with Paddle installation with arch: (?P<v>\d{2,3}(?: \d{2,3})*)",
            "paddle_arch",
            "Paddle",
        ),
        rule(
            r"(?P<v>The GPU architecture in your current machine is \w+, which is not compatible with Paddle installation)",
            "arch_refused",
            "Paddle",
        ),
        // The same check for a compute capability its table of architecture names lacks (`The GPU
        // compute capability in your current machine is 120, which is not supported by Paddle`).
        rule(
            r"(?P<v>The GPU compute capability in your current machine is \d+, which is not supported by Paddle)",
            "arch_refused",
            "Paddle",
        ),
        // Its later wording: `Mismatched GPU Architecture: The installed PaddlePaddle package was
        // compiled for 75 80 86 89 ,but your current GPU is 120`.
        rule(
            r"PaddlePaddle package was compiled for (?P<v>\d{2,3}(?: \d{2,3})*)\s*,\s*but your current GPU is",
            "paddle_arch",
            "Paddle",
        ),
        rule(
            r"PaddlePaddle package was compiled for [\d ]+,\s*but your current GPU is (?P<v>\d{2,3})\b",
            "cc_sm",
            "Paddle",
        ),
        rule(
            r"(?P<v>Mismatched GPU Architecture): The installed PaddlePaddle package",
            "arch_refused",
            "Paddle",
        ),
        // The driver ignoring a GPU only a legacy branch supports (`NVRM: ... supported through
        // the NVIDIA 470.xx Legacy drivers.`), the branch kept as the value; the vendor's name
        // may be retyped wrong (`NVIDA`) or left out.
        rule(
            r"supported through the (?:\w+ )?(?P<v>\d{3})\.xx Legacy drivers",
            "legacy_branch",
            "NVRM",
        ),
        // PyTorch's extension builder comparing nvcc with the CUDA PyTorch was built with
        // (cpp_extension.py: `The detected CUDA version (12.9) mismatches the version that was
        // used to compile PyTorch (11.8).`), often wrapped before "PyTorch".
        rule(
            r"The detected CUDA version \((?P<v>\d+\.\d+)\) mismatches",
            "cuda_toolkit",
            "torch.utils.cpp_extension",
        ),
        rule(
            r"(?:used to compile\s*|^)PyTorch \((?P<v>\d+\.\d+)\)\. Please make sure to use the same CUDA versions",
            "cuda_runtime",
            "torch.utils.cpp_extension",
        ),
        // CUDA.jl refusing a GPU below what it or the CUDA it picked supports (`Your Tesla V100
        // GPU (compute capability 7.0) is not supported on CUDA 13+.`, `... by CUDA.jl`).
        rule(
            r"(?P<v>GPU \(compute capability \d+\.\d+\) is not supported (?:by CUDA\.jl|on CUDA \d+\+))",
            "library_refused",
            "CUDA.jl",
        ),
        // cuDNN loaded at run time against the one the framework was built with (PyTorch's
        // tuples, TensorFlow's versions); the build's is kept at major.minor, the precision the
        // frameworks compare at.
        rule(
            r"PyTorch was compiled\s+against \((?P<v>\d+, \d+), \d+\)",
            "cudnn_built_tuple",
            "PyTorch",
        ),
        rule(
            r"but found runtime version \((?P<v>\d+, \d+, \d+)\)",
            "cudnn_tuple",
            "PyTorch",
        ),
        rule(r"Loaded runtime CuDNN library: {V}", "cudnn", "TensorFlow"),
        // TensorRT's warning names the cuDNN it loaded after the one it was linked against (`TensorRT
        // was linked against cuDNN 8.9.0 but loaded cuDNN 8.7.0`): the loaded one is this machine's.
        rule(
            r"TensorRT was linked against cuDNN [\d.]+ but loaded cuDNN {V}",
            "cudnn",
            "TensorRT",
        ),
        // PaddlePaddle's start-up warning names both cuDNNs.
        rule(
            r"Paddle is compiled with CUDNN {V}, but CUDNN version",
            "cudnn_built",
            "PaddlePaddle",
        ),
        rule(
            r"but CUDNN version in your machine is {V}",
            "cudnn",
            "PaddlePaddle",
        ),
        rule(
            r"but source was compiled with: (?P<v>\d+\.\d+)",
            "cudnn_built",
            "TensorFlow",
        ),
        // Older TensorFlow and JAX give both as version codes: `Loaded runtime CuDNN library:
        // 5005 (compatibility version 5000) but source was compiled with 5103`, `Found cuDNN
        // version 8600, but JAX was built against version 8906`.
        rule(
            r"Loaded runtime CuDNN library: (?P<v>\d{4,5}) \(compatibility version",
            "cudnn_number",
            "TensorFlow",
        ),
        rule(
            r"but source was compiled with (?P<v>\d{4,5}) \(compatibility version",
            "cudnn_built_number",
            "TensorFlow",
        ),
        rule(
            r"Found cuDNN version (?P<v>\d{4,5}), but JAX was built against",
            "cudnn_number",
            "JAX",
        ),
        rule(
            r"but JAX was built against version (?P<v>\d{4,5})\b",
            "cudnn_built_number",
            "JAX",
        ),
        // Debian's and Ubuntu's other driver packages (a driver version has a three-digit
        // branch, which keeps libnvidia-container's own versions out).
        rule(
            r"^ii\s+(?:libnvidia-(?:gl|compute|encode|decode|fbc1|cfg1|ml1|egl-wayland|extra|common)\S*|libcuda1|libegl-nvidia0|libgl1-nvidia\S*|firmware-nvidia-gsp|nvidia-kernel-dkms|nvidia-smi|nvidia-utils-\d+|xserver-xorg-video-nvidia\S*)(?::\w+)?\s+(?P<v>\d{3}\.\d+(?:\.\d+)?)",
            "driver",
            "dpkg",
        ),
        // The open flavour named by its package (Ubuntu's nvidia-driver-580-open, Fedora's
        // kmod-nvidia-open, Arch's nvidia-open).
        rule(
            r"(?i)\b(?:nvidia-(?:driver|dkms|kernel-source)-\d+-(?:server-)?|kmod-nvidia-|nvidia-)(?P<v>open)\b",
            "driver_flavor",
            "package name",
        ),
        // `nvidia-smi --query-gpu=name --format=csv,noheader`: a line that is a GPU's name.
        rule(
            r"^(?:NVIDIA (?P<v>(?:GeForce|Quadro|TITAN|Tesla|RTX|A\d|H\d|L\d|B\d|GH\d|GB\d)[\w -]*?)|(?P<b>(?:GeForce|Quadro|TITAN|Tesla) [\w -]*?\w))\s*$",
            "gpu",
            "nvidia-smi --query-gpu=name",
        ),
        // nvidia-smi -q -x.
        rule(
            r"<driver_version>{V}</driver_version>",
            "driver",
            "nvidia-smi -q -x",
        ),
        rule(
            r"<cuda_version>{V}</cuda_version>",
            "driver_cuda",
            "nvidia-smi -q -x",
        ),
        rule(
            r"<product_name>(?:NVIDIA )?(?P<v>[^<]+?)\s*</product_name>",
            "gpu",
            "nvidia-smi -q -x",
        ),
        // The user-space driver's file name, as loaders print it.
        rule(
            r"libcuda\.so\.(?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "libcuda file name",
        ),
        // nvidia-container-cli info (its columns are aligned with several spaces).
        rule(
            r"^NVRM version:\s+{V}",
            "driver",
            "nvidia-container-cli info",
        ),
        rule(
            r"^CUDA version:\s{2,}{V}",
            "driver_cuda",
            "nvidia-container-cli info",
        ),
        rule(
            r"^Model:\s{4,}(?:NVIDIA )?(?P<v>[A-Za-z].*?)\s*$",
            "gpu",
            "nvidia-container-cli info",
        ),
        // The container runtime refusing an image whose CUDA the driver does not support.
        rule(
            r"unsatisfied condition: cuda\s*>=\s*{V}",
            "cuda_runtime",
            "nvidia-container-cli (the image's CUDA)",
        ),
        rule(
            r"unsupported CUDA version: driver {V} <",
            "driver_cuda",
            "nvidia-docker",
        ),
        rule(
            r"unsupported CUDA version: driver \S+ < image {V}",
            "cuda_runtime",
            "nvidia-docker (the image's CUDA)",
        ),
        // nvidia-container-cli's own verdict that the image needs a newer driver: any unmet
        // clause, since an image's requirement is its CUDA or a list of exceptions (`cuda>=10.0
        // brand=tesla,driver>=384,driver<385`), and the tool names the last clause it tried.
        rule(
            r"(?P<v>requirement error: unsatisfied condition: (?:cuda|brand|driver)\b[^\\\n]*?)\s*(?:,|\\|$)",
            "requirement_refused",
            "nvidia-container-cli",
        ),
        // The CUDA an image requires, as the runtime hands it to nvidia-container-cli or as the
        // image declares it.
        rule(
            r"(?:--require=|NVIDIA_REQUIRE_CUDA=)\x22?cuda>=(?P<v>\d+\.\d+)",
            "cuda_runtime",
            "the image's CUDA requirement",
        ),
        // A driver entry point the program's CUDA calls and libcuda lacks: the driver is older
        // than that CUDA (`libcuda.so.418.74: undefined symbol: cuCtxCreate_v3`).
        rule(
            r"libcuda\.so[\d.]*: (?P<v>undefined symbol: cu[A-Z]\w*)",
            "driver_insufficient",
            "the program's CUDA (an entry point libcuda lacks)",
        ),
        rule(
            r"(?P<v>unsupported CUDA version: (?:driver )?\d+\.\d+(?:\.\d+)? < (?:image )?\d+\.\d+(?:\.\d+)?)",
            "requirement_refused",
            "nvidia-docker",
        ),
        // TensorFlow's hint after cuDNN fails to start: `Possibly insufficient driver version:
        // 390.87.0` (the kernel module's version as the driver reports it).
        rule(
            r"Possibly insufficient driver version:\s*{V}",
            "driver",
            "TensorFlow",
        ),
        // TensorFlow skipping a GPU its build has no code for.
        rule(
            r"Ignoring (?:visible )?gpu device \(device: \d+, name: (?:NVIDIA )?(?P<v>[^,]+),",
            "gpu",
            "TensorFlow",
        ),
        rule(
            r"(?P<v>The minimum required Cuda capability is \d+\.\d+)",
            "arch_refused",
            "TensorFlow",
        ),
        // PaddlePaddle's device banner (`run_check`, any GPU start-up): `GPU Compute Capability:
        // 8.6, Driver API Version: 11.4, Runtime API Version: 10.2`, then `cuDNN Version: 8.2.`
        rule(r"GPU Compute Capability:\s*{V}", "cc", "PaddlePaddle"),
        // Older Paddle releases: `device: 0, CUDA Capability: 61, Driver API Version: 10.1`.
        rule(
            r"device: \d+, CUDA Capability:\s*(?P<v>\d{2,3})\b",
            "cc_sm",
            "PaddlePaddle",
        ),
        // The oldest wording: `CUDA Capability: 61, Driver Version: 9.0, Runtime Version: 8.0`
        // (the driver's CUDA, not its version).
        rule(
            r"CUDA Capability:\s*\d{2,3}, Driver Version:\s*{V}",
            "driver_cuda",
            "PaddlePaddle",
        ),
        rule(
            r"CUDA Capability:\s*\d{2,3}, Driver Version:\s*[\d.]+, Runtime Version:\s*{V}",
            "cuda_runtime",
            "PaddlePaddle",
        ),
        rule(r"Driver API Version:\s*{V}", "driver_cuda", "PaddlePaddle"),
        rule(r"Runtime API Version:\s*{V}", "cuda_runtime", "PaddlePaddle"),
        rule(r"device: \d+, cuDNN Version:\s*{V}", "cudnn", "PaddlePaddle"),
        // nvcc's build line, which mmcv's and mmdet's collect_env print alone (`NVCC: Build
        // cuda_11.0_bu.TC445_37.28540450_0`).
        rule(r"\bBuild cuda_(?P<v>\d+\.\d+)[._]", "cuda_toolkit", "nvcc --version"),
        // PyTorch's build configuration (`torch.__config__.show()`, in mmcv's collect_env).
        rule(r"^\s*- CUDA Runtime {V}\s*$", "cuda_runtime", "PyTorch build configuration"),
        // collect_env as a dictionary (stable-diffusion-webui's sysinfo and others).
        rule(r#""torch_version":\s*"{TORCH}""#, "torch", "collect_env (JSON)"),
        rule(r#""cuda_compiled_version":\s*"{V}""#, "cuda_runtime", "collect_env (JSON)"),
        rule(r#""cuda_runtime_version":\s*"{V}""#, "cuda_toolkit", "collect_env (JSON)"),
        rule(r#""nvidia_driver_version":\s*"{V}""#, "driver", "collect_env (JSON)"),
        rule(r#""(?i:python_version|python)"\s*:\s*"{V}"#, "python", "collect_env (JSON)"),
        rule(r#""os":\s*"(?P<v>[A-Za-z][^"(]*?)\s*(?:\([^"]*)?""#, "os", "collect_env (JSON)"),
        // An OS release as a dictionary (`apiclient get os`, `hostnamectl --json`).
        rule(r#""pretty_name":\s*"(?P<v>[A-Za-z][^"]*?)\s*""#, "os", "os-release (JSON)"),
        // conda list's rows: `pytorch   1.7.1   py3.8_cuda10.2...`, `cudnn   7.6.5   cuda10.2_0`.
        rule(r"^pytorch\s+{TORCH}(?:\s|$)", "torch", "conda list"),
        rule(r"^cudnn\s+(?P<v>\d+\.\d+\.\d+(?:\.\d+)?)\s+\S", "cudnn", "conda list"),
        // conda's nvcc (`cuda-nvcc   12.6.20   hcdd1206_0   conda-forge`): the package's version
        // is nvcc's own.
        rule(r"^cuda-nvcc\s+(?P<v>\d+\.\d+\.\d+)\s+\S", "cuda_toolkit", "conda list"),
        // An environment written as requirements (`python=3.8`, `torch=2.1.1`).
        rule(r"(?i)^python\s*==?\s*{V}\s*$", "python", "environment list"),
        // `conda env export`: `- python=3.9.19=h955ad1f_0`.
        rule(r"^\s*-\s+python={V}=\w", "python", "conda env export"),
        // bitsandbytes' diagnostics (`python -m bitsandbytes`): `PyTorch settings found:
        // CUDA_VERSION=126, Highest Compute Capability: (8, 6).`
        rule(
            r"Highest Compute Capability: \((?P<v>\d+, \d)\)",
            "cc_major_minor",
            "bitsandbytes diagnostics",
        ),
        // NVIDIA's RHEL repository names the proprietary modules' DKMS package
        // `kmod-nvidia-latest-dkms` (the open ones `kmod-nvidia-open-dkms`).
        rule(
            r"^kmod-nvidia-(?P<v>latest)-dkms-\d{3}\.",
            "flavor_rhel",
            "rpm",
        ),
        // The interpreter's own banner: `Python 3.9.18 (main, Sep 11 2023, 13:41:44)`.
        rule(r"^Python (?P<v>\d+\.\d+\.\d+)(?: \(|\s*$)", "python", "python"),
        rule(
            r"(?i)^python\s*(?:version|ver\.?)\s*[:：]\s*{V}",
            "python",
            "environment list",
        ),
        // A list's driver however its key is written (`NVIDIA driver's version:384.130`,
        // `cuda driver:535.86.10`, `Driver==515.86.01`): a driver's version has a three-digit
        // branch, which keeps out the driver API's CUDA (`Driver API Version: 12.2`).
        rule(
            r"(?i)^(?:[\w'/-]+\s+){0,2}driver(?:'s)?(?:\s+version)?\s*(?:[:：]|==?)\s*v?(?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "environment list",
        ),
        // A list's nvcc, as a version or as nvcc's build string (`nvcc==cuda_11.8.r11.8/...`).
        rule(
            r"(?i)^nvcc(?:\s+version)?\s*(?:[:：]|==?)\s*(?:cuda_)?(?P<v>\d+\.\d+(?:\.\d+)?)",
            "cuda_toolkit",
            "environment list",
        ),
        // PaddlePaddle's issue template: `paddle with cuda: 10.2` is the CUDA the build uses.
        rule(
            r"(?i)^paddle(?:paddle)?\s+with\s+cuda\s*[:：]\s*{V}",
            "cuda_runtime",
            "environment list",
        ),
        // The toolkit's own `version.txt` (`cat /usr/local/cuda/version.txt`, CUDA 10 and older).
        rule(r"^CUDA Version (?P<v>\d+\.\d+\.\d+)\s*$", "cuda_toolkit", "version.txt"),
        // conda's environment file (`conda env export`, environment.yml): `- cudatoolkit=11.3`.
        rule(
            r"^\s*(?:-\s*)?(?:cudatoolkit|pytorch-cuda)\s*=\s*(?P<v>\d+\.\d+)",
            "cuda_runtime",
            "conda environment",
        ),
        // A list's name and version written together (`python3.6.2`, `torch1.3.0`).
        rule(r"(?i)^python(?P<v>\d\.\d+\.\d+)\s*$", "python", "environment list"),
        rule(r"(?i)^(?:py)?torch(?P<v>\d\.\d+\.\d+)\s*$", "torch", "environment list"),
        // CuPy's `cupy.show_config()`: CUDA versions as numbers (11030 is 11.3), the GPU and its
        // capability as digits (75 is 7.5), NCCL's version code.
        rule(r"^CuPy Version\s*:\s*(?P<v>\d+\.\d+\.\d+\w*)", "cupy", "cupy.show_config()"),
        rule(
            r"^CUDA (?:Build|Runtime) Version\s*:\s*(?P<v>\d{4,5})\s*$",
            "cuda_runtime_number",
            "cupy.show_config()",
        ),
        rule(
            r"^CUDA Driver Version\s*:\s*(?P<v>\d{4,5})\s*$",
            "driver_cuda_number",
            "cupy.show_config()",
        ),
        rule(
            r"^NCCL Runtime Version\s*:\s*(?P<v>\d{4,5})\s*$",
            "nccl_number",
            "cupy.show_config()",
        ),
        rule(
            r"^Device 0 Name\s*:\s*(?:NVIDIA )?(?P<v>\S.*?)\s*$",
            "gpu",
            "cupy.show_config()",
        ),
        rule(
            r"^Device 0 Compute Capability\s*:\s*(?P<v>\d{2,3})\s*$",
            "cc_sm",
            "cupy.show_config()",
        ),
        rule(
            r"^OS\s*:\s*Linux-(?P<v>\d+\.\d+\.\d+[^\s]*?)-(?:x86_64|aarch64|ppc64le)",
            "kernel",
            "cupy.show_config()",
        ),
        // bitsandbytes' CUDA SETUP lines.
        rule(
            r"CUDA SETUP: Highest compute capability among GPUs detected:\s*{V}",
            "cc",
            "bitsandbytes",
        ),
        rule(
            r"CUDA SETUP: Detected CUDA version (?P<v>\d{2,3})\b",
            "wheel_cu",
            "bitsandbytes",
        ),
        // DeepSpeed's ds_report.
        rule(r"^torch version\s*\.{3,}\s*{TORCH}", "torch", "ds_report"),
        rule(r"^torch cuda version\s*\.{3,}\s*{V}", "cuda_runtime", "ds_report"),
        rule(r"^nvcc version\s*\.{3,}\s*{V}", "cuda_toolkit", "ds_report"),
        // xformers' build warning names the PyTorch installed: `(you have 2.1.2+cpu)`.
        rule(r"PyTorch \S+ with CUDA \d+ \(you have {TORCH}\)", "torch", "xformers"),
        // deviceQuery's device line (`Device 0: "Orin"`), and dorado's (`cuda:0 - NVIDIA GH200`).
        rule(
            r#"^Device \d+: "(?:NVIDIA )?(?P<v>[^"]+)""#,
            "gpu",
            "deviceQuery",
        ),
        rule(r"\bcuda:0 - NVIDIA (?P<v>\S.*?)\s*$", "gpu", "dorado"),
        // A line that is only a PyTorch build with its CUDA tag (`print(torch.__version__)`).
        rule(
            r"^(?P<v>[12]\.\d+\.\d+(?:(?:a|b|rc|\.dev|\.post)\d+)?\+cu\d{2,3})\s*$",
            "torch",
            "torch.__version__",
        ),
        // PaddlePaddle installed or asked for (`paddlepaddle-gpu==1.5.0.post107`, a pip list's
        // `paddlepaddle-gpu   2.2.2.post111`), kept as printed, and its wheel's CUDA in the post
        // tag (post107: CUDA 10.0 with cuDNN 7; post112: CUDA 11.2).
        rule(
            r"(?i)\bpaddlepaddle(?:[-_]gpu)?(?:==|-|\s+)v?(?P<v>\d+\.\d+\.\d+(?:\.post\d{2,3})?)\b",
            "paddle",
            "package",
        ),
        rule(
            r"(?i)\bpaddlepaddle(?:[-_]gpu)?(?:==|-|\s+)\d+\.\d+\.\d+\.post(?P<v>\d{2,3})\b",
            "paddle_post",
            "PaddlePaddle wheel tag",
        ),
        // A Chinese list's system (`系统: ubuntu 18.04`).
        rule(
            r"^(?:操作)?系统\s*[:：]\s*(?P<v>[A-Za-z][\w .!-]*?\d[\w .-]*?)\s*$",
            "os",
            "environment list",
        ),
        // detectron2's collect_env table (keys and values in columns, no colon).
        rule(r"^Python\s{2,}{V}", "python", "detectron2 collect_env"),
        rule(r"^PyTorch\s{2,}{TORCH}(?:\s|$)", "torch", "detectron2 collect_env"),
        // One row per GPU model: `GPU 0,1,2,3   Tesla P40`, then `GPU 4   ...` for another.
        rule(
            r"^GPU \d+(?:,\d+)*\s{2,}(?:NVIDIA )?(?P<v>[A-Za-z]\S*(?: \S+)*?)\s*(?:\(arch=.*)?$",
            "gpu",
            "detectron2 collect_env",
        ),
        // The machine code detectron2's compiled extension carries (cuobjdump's ELF list, `sm_75`
        // in old releases, `6.1, 7.5` since), not a path printed when cuobjdump is missing.
        rule(
            r"^detectron2 arch flags\s{2,}(?P<v>(?:sm_)?\d+(?:\.\d)?(?:,\s*(?:sm_)?\d+(?:\.\d)?)*)\s*$",
            "ext_arch_list",
            "detectron2 collect_env",
        ),
        rule(r"^GPU 0\s{2,}.*\(arch=(?P<v>\d+\.\d+)\)", "cc", "detectron2 collect_env"),
        rule(
            r"^CUDA compiler\s{2,}(?:CUDA\s+)?{V}",
            "cuda_toolkit",
            "detectron2 collect_env",
        ),
        // TensorFlow's build information (`tf.sysconfig.get_build_info()`), as a dict or pairs.
        rule(
            r#"['"]cuda_version['"]\s*[:,]\s*['"](?P<v>\d+(?:\.\d+)*)['"]"#,
            "cuda_runtime",
            "tf.sysconfig.get_build_info()",
        ),
        rule(
            r#"['"]cudnn_version['"]\s*[:,]\s*['"](?P<v>\d+(?:\.\d+)*)['"]"#,
            "cudnn",
            "tf.sysconfig.get_build_info()",
        ),
        // TensorFlow's device lines.
        rule(
            r"StreamExecutor device \(\d+\): (?:NVIDIA )?(?P<v>[^,]+), Compute Capability",
            "gpu",
            "TensorFlow",
        ),
        rule(
            r"\bname: (?:NVIDIA )?(?P<v>\S.*?) major: \d+ minor: \d+",
            "gpu",
            "TensorFlow",
        ),
        rule(
            r"\bmajor: (?P<v>\d{1,2} minor: \d) memoryClockRate",
            "cc_major_minor",
            "TensorFlow",
        ),
        // SD.Next's start-up line: `Device: device=NVIDIA GeForce RTX 4090 n=1 arch=sm_90
        // capability=(8, 9) cuda=12.1 cudnn=8902 driver=537.58` (its PyTorch's CUDA and cuDNN),
        // and its Python line.
        rule(
            r"\bDevice: device=(?:NVIDIA )?(?P<v>[^=]+?) n=\d+ arch=",
            "gpu",
            "SD.Next",
        ),
        rule(
            r"\bDevice: device=.*? capability=\((?P<v>\d{1,2}, \d)\)",
            "cc_major_minor",
            "SD.Next",
        ),
        rule(r"\bDevice: device=.*? cuda=(?P<v>\d+\.\d+)\b", "cuda_runtime", "SD.Next"),
        rule(r"\bDevice: device=.*? cudnn=(?P<v>\d{4,6})\b", "cudnn_number", "SD.Next"),
        rule(r"\bPython: version={V} platform=", "python", "SD.Next"),
        // cuDF's comparison of the two (`Using CUDA toolkit version (12, 3) with CUDA driver
        // version (12, 2) requires minor version compatibility`: its "toolkit" is the CUDA
        // runtime Numba loads), and conda's virtual package
        // (`Your installed CUDA driver is: 11.0`).
        rule(
            r"Using CUDA toolkit version \((?P<v>\d+, \d+)\) with CUDA driver version",
            "cuda_runtime_pair",
            "cuDF",
        ),
        rule(
            r"with CUDA driver version \((?P<v>\d+, \d+)\) requires",
            "driver_cuda_pair",
            "cuDF",
        ),
        rule(r"^Your installed CUDA driver is: {V}", "driver_cuda", "conda"),
        // TensorFlow 1.x and 2.0-2.3 loading the CUDA runtime it was built with: up to CUDA 10
        // the library's name carries major and minor (`libcudart.so.10.0`); from 11 it carries
        // the major alone (11.x all load `libcudart.so.11.0`), so those say nothing of the minor.
        rule(
            r"Successfully opened dynamic library libcudart\.so\.(?P<v>(?:[89]|10)\.\d)\b",
            "cuda_runtime",
            TF_CUDART,
        ),
        // torch.utils.cpp_extension comparing nvcc with the CUDA PyTorch was built with.
        rule(
            r"The detected CUDA version \({V}\) mismatches",
            "cuda_toolkit",
            "torch.utils.cpp_extension",
        ),
        rule(
            r"version that was used to compile\s+PyTorch \({V}\)",
            "cuda_runtime",
            "torch.utils.cpp_extension",
        ),
        // `torch==2.6.0` in a sentence (not another package's name ending in it,
        // `open-clip-torch==2.20.0`).
        rule(
            r"(?i)(?:^|[^\w.-])torch==(?P<v>\d+\.\d+(?:\.\d+)*(?:\+\w+)?)\b",
            "torch",
            "text",
        ),
        // A list's bare lines: `CUDA 10.1.105` (nvcc's, with its build number), `cuDNN 7.6.4`,
        // `Windows 10 Pro`.
        rule(r"(?i)^cuda\s+v?(?P<v>\d+\.\d+\.\d+)\s*$", "cuda_listed", "environment list"),
        rule(r"(?i)^cudnn\s+v?{V}\s*$", "cudnn", "environment list"),
        rule(
            r"^(?P<v>Windows (?:10|11|Server \d{4})(?: (?:Pro|Home|Enterprise|Education))?)\s*$",
            "os",
            "environment list",
        ),
        // ComfyUI's device line: `Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync`.
        rule(
            r"^(?:Device|Name):\s*cuda:\d+ (?:NVIDIA )?(?P<v>[^:]+?)\s*:\s*(?:cudaMallocAsync|native)\b",
            "gpu",
            "ComfyUI",
        ),
        // "(driver version: 590.48.01)" in a sentence.
        rule(
            r"(?i)\bdriver version:\s*(?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "text",
        ),
        // A PyTorch build with its CUDA tag named in a sentence (`the latest PyTorch nightly
        // (2.6.0.dev20241112+cu121)`): used only when nothing else names the framework.
        rule(
            r"(?i)\b(?:py)?torch\b.*?\b(?P<v>[12]\.\d+\.\d+(?:(?:a|b|rc|\.dev|\.post)\d+)?\+cu\d{2,3})\b",
            "torch_text",
            "text",
        ),
        // PyTorch's release named in a sentence or a loose list (`using pytorch version 1.0.0`,
        // `torch1.4.0`, `pytorch 0.4.1_cuda9.2`), or its major and minor as a key's answer
        // (`pytorch=1.7`, `Pytorch: ver 1.9`, `pytorch version 1.3`): used only when nothing else
        // names the framework. A bare `pytorch 1.3` is left alone (as often what a project needs).
        rule(
            r"(?i)\b(?:py)?torch(?:\s?version)?\s?(?:[=:]\s*(?:ver(?:sion)?\.?\s*)?)?v?(?P<v>[012]\.\d+\.\d+(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+[\w.]+)?)(?:\b|_)",
            "torch_text",
            "text",
        ),
        rule(
            r"(?i)\b(?:py)?torch(?:\s?version\s*|\s*[=:]\s*(?:ver(?:sion)?\.?\s*)?)(?P<v>[012]\.\d+)(?:$|[^.\d]|\.(?:$|\D))",
            "torch_text",
            "text",
        ),
        // The driver named in a sentence (`a NVIDIA graphics driver of 535.129.03`, `the latest
        // NVIDIA drivers (version: 576.57)`, `driver container 580.126.20`): used only when
        // nothing else names it. A bound is no reading (`drivers to 531.61 or newer`, `driver
        // >= 525.60.13`): those forms match first and take no value.
        rule(
            r"(?i)\bdrivers?\b(?:\s+(?:to|>=?|at least|of at least)\s+\d{3}\.\d+(?:\.\d+)?|[\sA-Za-z():,]{0,60}?\b(?:\d{3}\.\d{2,3}(?:\.\d{2})?\s*(?:\+|or (?:newer|later|above|higher|greater))|(?P<v>\d{3}\.\d{2,3}(?:\.\d{2})?)\b))",
            "driver_text",
            "text",
        ),
        // A driver named after the vendor (`NVIDIA 455.23.04`, `nvidia-390.138`) or before the
        // word driver or module (`Install 570.144 drivers`, `580.173.02's proprietary modules`):
        // a driver's shape (a three-digit branch, a two- or three-digit minor), which no CUDA,
        // kernel or Python release has. Used only when nothing else names the driver.
        rule(
            r"(?i)\bnvidia[ -](?P<v>[3-6]\d{2}\.\d{2,3}(?:\.\d{2})?)\b(?:[^.\d]|$)",
            "driver_text",
            "text",
        ),
        rule(
            r"(?i)\b(?P<v>[3-6]\d{2}\.\d{2,3}(?:\.\d{2})?)(?:'s)?\s+(?:\*\*)?(?:(?:proprietary|open|nvidia)(?:\*\*)?\s+)?(?:drivers?|kernel modules?|modules?)\b",
            "driver_text",
            "text",
        ),
        // "I have installed cuda 9.1" in a sentence: the toolkit a user installed.
        rule(
            r"(?i)\binstalled cuda(?: toolkit)? v?(?P<v>\d+\.\d+(?:\.\d+)?)\b",
            "cuda_toolkit",
            "text",
        ),
        // "NVRM 580.178.04" in a list: the loaded module's version.
        rule(r"\bNVRM v?(?P<v>\d{3}\.\d+\.\d+)\b", "kernel_module", "environment list"),
        // The module modinfo found is the running kernel's: `filename:
        // /lib/modules/5.15.0-91-generic/updates/dkms/nvidia.ko`.
        rule(
            r"^filename:\s+\S*/lib/modules/(?P<v>\d+\.\d+[^/\s]*)/\S*nvidia\.ko",
            "kernel",
            "modinfo nvidia",
        ),
        // NixOS store paths: the package of the nvidia-smi in use and of the module loaded.
        rule(
            r"-nvidia-x11-(?P<v>\d{3}\.\d+(?:\.\d+)?)-[\w.]+-bin/bin/nvidia-smi\b",
            "driver",
            "Nix store path",
        ),
        rule(
            r"-nvidia-x11-(?P<v>\d{3}\.\d+(?:\.\d+)?)-[\w.]+-bin/lib/modules/\S+/nvidia\.ko\b",
            "kernel_module",
            "Nix store path",
        ),
        // A driver named in a sentence (`a V100 and driver 390.87`, `the 460.73 version driver`,
        // `(Driver 570.181)`): a driver's version has a three-digit branch.
        rule(
            r"(?i)\bdrivers?(?: version)?\s+v?(?P<v>\d{3}\.\d+(?:\.\d+)?)\b",
            "driver",
            "text",
        ),
        rule(
            r"(?i)\b(?P<v>\d{3}\.\d+(?:\.\d+)?) (?:version )?(?:nvidia )?driver\b",
            "driver",
            "text",
        ),
        // The CUDA of an image named by its tag (`nvidia/cuda:10.0-devel-ubuntu18.04`).
        rule(
            r"\bnvidia/cuda:(?P<v>\d+\.\d+(?:\.\d+)?)-",
            "cuda_runtime",
            "the image's tag",
        ),
        // JAX's environment report.
        rule(
            r"^jax:\s+(?P<v>\d+\.\d+\.\d+(?:\.dev\d+)?(?:\+[\w.]+)?)",
            "jax",
            "jax",
        ),
        // NCCL and fabric manager logs.
        rule(r"\bNCCL version:?\s*{V}", "nccl", "NCCL log"),
        // NCCL's start-up names the driver by the CUDA it supports (12020 is 12.2).
        rule(
            r"NCCL INFO cudaDriverVersion (?P<v>\d{4,5})\b",
            "driver_cuda_number",
            "NCCL log",
        ),
        rule(
            r"Fabric Manager version is\s*:\s*{V}",
            "fabric_manager",
            "fabric manager log",
        ),
    ]
    .into_iter()
    // GPU feature discovery's node labels (`nvidia.com/cuda.driver.major=535`, or as JSON), a
    // part of a version each: put together in `derive`.
    .chain(GFD_LABELS.iter().map(|&(label, field)| {
        rule(
            &format!(r#"nvidia\.com/{}"?\s*[:=]\s*"?(?P<v>\d+)"#, label.replace('.', r"\.")),
            field,
            "GPU feature discovery",
        )
    }))
    .chain(std::iter::once(rule(
        r#"nvidia\.com/gpu\.product"?\s*[:=]\s*"?(?:NVIDIA-)?(?P<v>[\w.-]+?)(?:-MIG-[\w.+-]+|-SHARED)?(?:[",\s]|$)"#,
        "gpu",
        "GPU feature discovery",
    )))
    .collect()
});

/// Whether `v`'s major.minor is a CUDA release: 1.0 to 1.1, 2.0 to 2.3, 3.0 to 3.2, 4.0 to 4.2,
/// 5.0 and 5.5, 6.0 and 6.5, 7.0 and 7.5, 8.0, 9.0 to 9.2, 10.0 to 10.2, 11.0 to 11.8, 12.0 to
/// 12.9 (https://developer.nvidia.com/cuda-toolkit-archive), and any 13.x or later.
fn cuda_release(v: &str) -> bool {
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    let (Some(Some(major)), Some(Some(minor))) = (parts.next(), parts.next()) else {
        return false;
    };
    match major {
        1 => minor <= 1,
        2 => minor <= 3,
        3 | 4 => minor <= 2,
        5..=7 => minor == 0 || minor == 5,
        8 => minor == 0,
        9 | 10 => minor <= 2,
        11 => minor <= 8,
        12 => minor <= 9,
        _ => major >= 13,
    }
}

/// What a rule's (or a form answer's) value `v` for `field` is read as: most fields as they
/// are; a framework's version as `name version`; codes, tuples and tags as the versions they
/// stand for. `None` for a value that is not one (a platform string given as an OS).
fn reading(field: &'static str, v: &str) -> Option<(&'static str, String)> {
    Some(match field {
        "torch" => ("framework", format!("torch {}", v)),
        "torch_text" => ("framework_text", format!("torch {}", v)),
        "paddle_text" => ("framework_text", format!("paddlepaddle {}", v)),
        "tensorflow_text" => ("framework_text", format!("tensorflow {}", v)),
        "cc_sm" => ("cc", last_digit_minor(v)),
        "cuda_compat_dashed" => ("cuda_compat", v.replace('-', ".")),
        "cudnn_built_tuple" => ("cudnn_built", v.replace(", ", ".")),
        "cudnn_tuple" => ("cudnn", v.replace(", ", ".")),
        // One digit a part: `86` is 8.6, `805` is 8.0.5.
        "cudnn_digits" => {
            let parts: Vec<String> = v.chars().map(String::from).collect();
            ("cudnn", parts.join("."))
        }
        "nixos_open" if v == "true" => ("driver_flavor", "open".to_string()),
        "nixos_open" => ("driver_flavor", "proprietary".to_string()),
        "flavor_rhel" => ("driver_flavor", "proprietary".to_string()),
        "flavor_text" => ("driver_flavor", v.to_ascii_lowercase()),
        "ollama_log" => ("ollama_log", "version not shown".to_string()),
        // "Ubuntu: 22.04 LTS", "Pop!_OS Version: 24.04": the distribution and its release.
        "os_keyed" => {
            let (name, release) = v.split_once([':', '：']).unwrap_or((v, ""));
            // The distribution's names are ASCII (the rule's alternatives).
            let name = name.trim();
            let name = match name.len().checked_sub(8) {
                Some(at) if name[at..].eq_ignore_ascii_case(" version") => name[..at].trim_end(),
                _ => name,
            };
            ("os", format!("{} {}", name, release.trim()))
        }
        "jax" => ("framework", format!("jax {}", v)),
        "tensorflow" => ("framework", format!("tensorflow {}", v)),
        "mxnet" => ("framework", format!("mxnet {}", v)),
        "paddle" => ("framework", format!("paddlepaddle {}", v)),
        // A list's "CUDA" that names no CUDA release is something else's version (CUDA.jl's
        // `- CUDA: 5.9.5` under "Julia packages").
        "cuda_listed" if !cuda_release(v) => return None,
        "cuda_listed" if v.split('.').count() >= 3 => ("cuda_toolkit", v.to_string()),
        "cuda_listed" => ("cuda_runtime", v.to_string()),
        "wheel_cu" => ("cuda_runtime", last_digit_minor(v)),
        "cupy" => ("framework", format!("cupy {}", v)),
        // `70 75 80 86` is sm_70 sm_75 sm_80 sm_86.
        "paddle_arch" => (
            "arch_list",
            v.split_whitespace()
                .map(|a| format!("sm_{a}"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        // post97: CUDA 9 (cuDNN 7); post107: CUDA 10.0 (cuDNN 7); post112: 11.2.
        "paddle_post" => match (v.len(), v) {
            (2, _) => ("cuda_runtime", format!("{}.0", &v[..1])),
            (_, "107") => ("cuda_runtime", "10.0".to_string()),
            _ => ("cuda_runtime", format!("{}.{}", &v[..2], &v[2..])),
        },
        "cuda_runtime_number" => ("cuda_runtime", cuda_number(v)),
        // Versions printed as a major and a minor apart: cuDF's `(12, 3)`, TensorFlow's
        // `major: 3 minor: 0`, SD.Next's `(12, 0)`.
        "cuda_runtime_pair" => ("cuda_runtime", major_minor(v)),
        "driver_cuda_pair" => ("driver_cuda", major_minor(v)),
        "cc_major_minor" => ("cc", major_minor(v)),
        "cudnn_number" => ("cudnn", version_code(v)),
        // The build's cuDNN is kept at major.minor, the precision frameworks compare at.
        "cudnn_built_number" => {
            let code = version_code(v);
            let built: Vec<&str> = code.split('.').take(2).collect();
            ("cudnn_built", built.join("."))
        }
        // NCCL's version code: 2507 is 2.5.7; from 2.9, 21602 is 2.16.2.
        "nccl_number" => ("nccl", version_code(v)),
        "driver_cuda_number" => ("driver_cuda", cuda_number(v)),
        // `Linux-5.4.0-42-generic-x86_64-with-glibc2.10` is a platform, not an OS.
        "os" if v.starts_with("Linux-") => return None,
        f => (f, v.to_string()),
    })
}

/// `12, 3` or `3 minor: 0` (what the rules capture of a major and a minor printed apart) as
/// `12.3`, `3.0`.
fn major_minor(v: &str) -> String {
    v.replacen(" minor: ", ".", 1).replacen(", ", ".", 1)
}

/// A library's version code, as cuDNN and NCCL number theirs: below 10000 the major is the
/// thousands (cuDNN's 8700 is 8.7.0, NCCL's 2507 is 2.5.7), from 10000 the ten-thousands
/// (cuDNN 9's 90100 is 9.1.0, NCCL's 21602 is 2.16.2).
fn version_code(code: &str) -> String {
    let n: u64 = code.parse().unwrap_or(0);
    let (major, rest) = if n >= 10000 {
        (n / 10000, n % 10000)
    } else {
        (n / 1000, n % 1000)
    };
    format!("{major}.{}.{}", rest / 100, rest % 100)
}

/// Expressions typed at Python's prompt (`>>> torch.version.cuda`) and what each answers.
const REPL_QUESTIONS: &[(&str, &str)] = &[
    ("torch.__version__", "torch"),
    ("torch.version.cuda", "cuda_runtime"),
    ("torch.backends.cudnn.version()", "cudnn"),
    ("torch.cuda.nccl.version()", "nccl"),
    ("torch.cuda.get_device_name(0)", "gpu"),
    ("torch.cuda.get_device_name()", "gpu"),
    ("torch.cuda.get_device_capability(0)", "cc"),
    ("torch.cuda.get_device_capability()", "cc"),
    ("tf.__version__", "tensorflow"),
    ("tensorflow.__version__", "tensorflow"),
    ("tf.version.VERSION", "tensorflow"),
    ("paddle.__version__", "paddle"),
    ("jax.__version__", "jax"),
    ("sys.version", "python"),
    ("platform.python_version()", "python"),
];

/// Python's outputs that a `python -c "...; print(a, b); print(c)"` command waits for: one line
/// per `print`, and what each of its arguments asks ([`repl_asks`]; `None` for an expression
/// lore does not read). Nothing unless some argument asks something.
fn python_c_prints(line: &str) -> Option<Vec<Vec<Option<&'static str>>>> {
    let at = line.find("python")?;
    let rest = &line[at..];
    let code = rest.split_once(" -c ")?.1.trim_start();
    let open = code.chars().next()?;
    let close = match open {
        '"' | '\'' => open,
        '‘' => '’',
        '“' => '”',
        _ => return None,
    };
    let code = &code[open.len_utf8()..];
    let code = code.split(close).next().unwrap_or(code);
    let prints: Vec<Vec<Option<&'static str>>> = top_level(code, ';')
        .into_iter()
        .filter_map(|statement| {
            let inner = statement.trim().strip_prefix("print(")?.strip_suffix(')')?;
            Some(top_level(inner, ',').into_iter().map(repl_asks).collect())
        })
        .collect();
    prints
        .iter()
        .flatten()
        .any(Option::is_some)
        .then_some(prints)
}

/// `text` split at `separator` where it is outside brackets and quotes.
fn top_level(text: &str, separator: char) -> Vec<&str> {
    let (mut parts, mut depth, mut quote, mut from) = (Vec::new(), 0i32, None, 0);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, _) if c == separator && depth == 0 => {
                parts.push(&text[from..i]);
                from = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[from..]);
    parts
}

/// The values one `print` of `args` wrote on `line`: one word per argument (a tuple such as
/// `(8, 6)` is one), the last argument taking the rest of the line (a GPU's name has spaces).
fn printed_values(args: usize, line: &str) -> Vec<&str> {
    let mut values = Vec::new();
    let mut rest = line.trim();
    while values.len() + 1 < args && !rest.is_empty() {
        let end = if rest.starts_with('(') {
            rest.find(')').map_or(rest.len(), |i| i + 1)
        } else {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        };
        values.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    values.push(rest);
    values
}

/// A line a Python program's libraries log on its way to the output (TensorFlow's
/// `2024-03-11 09:12:40.114520: I tensorflow/...`, glog's `I0311 ...`, a warning under a path).
fn library_log_line(line: &str) -> bool {
    let line = line.trim();
    let b = line.as_bytes();
    line.is_empty()
        || line.contains("tensorflow/")
        || line.contains("xla/")
        || line.contains("Warning")
        || line.starts_with('/')
        || line.starts_with("warnings.warn")
        || (b.len() > 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-')
        || (b.len() > 5
            && b"IWEF".contains(&b[0])
            && (b[1] == b' ' || b[1..5].iter().all(u8::is_ascii_digit)))
}

/// What an expression typed at Python's prompt (bare or inside `print(...)`) asks, by
/// [`REPL_QUESTIONS`].
fn repl_asks(typed: &str) -> Option<&'static str> {
    let typed = typed.trim();
    let typed = typed
        .strip_prefix("print(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(typed);
    REPL_QUESTIONS
        .iter()
        .find(|(expr, _)| *expr == typed)
        .map(|&(_, asked)| asked)
}

/// The field and value Python printed for an expression of [`REPL_QUESTIONS`]: a quoted
/// string, a number (cuDNN's 8700 is 8.7.0, 90100 is 9.1.0) or a tuple (`(2, 18, 1)`, `(8, 9)`).
fn repl_answer(asked: &str, line: &str) -> Option<(&'static str, String)> {
    // IPython prints `Out[2]: (8, 9)`.
    let line = line.trim();
    let line = line
        .strip_prefix("Out[")
        .and_then(|rest| rest.split_once("]:"))
        .map_or(line, |(_, value)| value);
    // A report may write the output as a comment under the command (`# 'TITAN X (Pascal)'`).
    let line = line.strip_prefix("# ").unwrap_or(line);
    let value = line.trim().trim_matches(['\'', '"']);
    if value.is_empty() || value.starts_with(">>>") || value.contains("Error") {
        return None;
    }
    let version = || FIRST_VERSION.find(value).map(|v| v.as_str().to_string());
    let tuple = || -> Option<String> {
        let inner = value.strip_prefix('(')?.strip_suffix(')')?;
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| parts.join("."))
    };
    match asked {
        // The whole build (`2.1.0+cu118`), as the framework's own version prints it.
        "torch" => Some((
            "framework",
            format!("torch {}", value.split_whitespace().next()?),
        ))
        .filter(|(_, v)| v[6..].starts_with(|c: char| c.is_ascii_digit())),
        "tensorflow" => Some(("framework", format!("tensorflow {}", version()?))),
        "paddle" => Some(("framework", format!("paddlepaddle {}", version()?))),
        "jax" => Some(("framework", format!("jax {}", version()?))),
        // `sys.version`: `3.10.11 (tags/v3.10.11:7d4cc5a, ...)`.
        "python" => FIRST_VERSION
            .find(value)
            .filter(|v| v.start() == 0)
            .map(|v| ("python", v.as_str().to_string())),
        "cudnn" => value
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| ("cudnn", version_code(value))),
        "nccl" => Some(("nccl", tuple()?)),
        "cc" => Some(("cc", tuple()?)),
        "gpu" => Some(("gpu", value.to_string())),
        _ => Some(("cuda_runtime", version()?)),
    }
}

/// A CSV header naming columns lore reads: the field of each column and what prints it.
fn csv_header(line: &str) -> Option<(Vec<Option<&'static str>>, &'static str)> {
    let line = line.trim();
    // One column is a header only when it is one of nvidia-smi's own query names
    // (`--query-gpu=compute_cap` prints `compute_cap`, then the value).
    let single = ["compute_cap", "driver_version"].contains(&line);
    if !(line.contains(',') || single) || line.len() > 400 {
        return None;
    }
    let column = |name: &str| match name.trim().to_ascii_lowercase().as_str() {
        "name" | "model" => Some("gpu"),
        "driver_version" | "nvrm version" => Some("driver"),
        "compute_cap" | "architecture" => Some("cc"),
        "cuda version" => Some("driver_cuda"),
        _ => None,
    };
    // Every column a name a query or a report prints (lowercase with dots and underscores, or
    // the container CLI's words), and at least one lore reads. Most log lines with a comma fail
    // the first test, before anything is allocated.
    let known = line.split(',').all(|n| {
        let n = n.trim();
        !n.is_empty()
            && n.len() <= 40
            && n.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ' ' | '[' | ']' | '/')
            })
    });
    if !known {
        return None;
    }
    let columns: Vec<Option<&'static str>> = line.split(',').map(column).collect();
    if columns.iter().all(Option::is_none) {
        return None;
    }
    let source = if line.contains("NVRM version") || line.contains("Device Index") {
        "nvidia-container-cli info --csv"
    } else if line.contains('_') || line.contains('.') || line.starts_with("name") {
        "nvidia-smi --query-gpu"
    } else {
        return None;
    };
    Some((columns, source))
}

/// A package list's line for `name` (an alternation) at a version matching `version`, in the
/// forms of dpkg -l, apt list, rpm -qa, dnf list, pacman -Q and zypper.
fn package(name: &str, version: &str) -> String {
    format!(
        r"^(?:ii\s+|(?:local/)?|i\+?\s*\|\s*)(?:{name})(?::\w+)?(?:/\S+|\.(?:x86_64|aarch64|noarch))?(?:\s*\|\s*package\s*\|)?(?:\s+|-)(?:\d+:)?(?P<v>{version})(?:[-+._~\s]|$)"
    )
}

/// GPU feature discovery's labels that hold one part of a version, and the part they are.
const GFD_LABELS: &[(&str, &str)] = &[
    ("cuda.driver.major", "gfd_driver_major"),
    ("cuda.driver.minor", "gfd_driver_minor"),
    ("cuda.driver.rev", "gfd_driver_rev"),
    ("cuda.runtime.major", "gfd_cuda_major"),
    ("cuda.runtime.minor", "gfd_cuda_minor"),
    ("gpu.compute.major", "gfd_cc_major"),
    ("gpu.compute.minor", "gfd_cc_minor"),
];

/// The fields a line without any digit can give: a GPU's name, /etc/os-release's NAME, the
/// module flavour NixOS's option names, and numba's minor-version compatibility answers.
const WORD_FIELDS: &[&str] = &[
    "gpu",
    "os_name",
    "os_text",
    "nixos_open",
    "mvc_needed",
    "mvc_unavailable",
];

/// Words one of which every rule's line contains: a line with none of them (most of a dmesg or a
/// training log) is passed over without building or running any regex, so a paste that shows no
/// environment costs almost nothing.
static ANCHORS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([
            "version",
            "nvidia",
            "nvrm",
            "nvml",
            "linux",
            "pretty_name",
            "cuda",
            "torch",
            "gpu",
            "os:",
            "os：",
            "os**",
            "\"os\"",
            "device 0",
            "arch flags",
            "系统",
            "windows",
            "geforce",
            "quadro",
            "titan",
            "tesla",
            "-generic",
            "-amd64",
            "-tegra",
            ".el7",
            ".el8",
            ".el9",
            "microsoft-standard",
            "rtx",
            "gtx",
            // A board named by its number alone (`the 1070 card`).
            " card",
            "grid k",
            "grid m",
            "major: ",
            "+cu",
            "distribution:",
            "ubuntu",
            "debian",
            "fedora",
            "centos",
            "rocky linux",
            "almalinux",
            "red hat",
            "rhel",
            "opensuse",
            "sles",
            "linux mint",
            "pop!_os",
            "win7",
            "win8",
            "win1",
            "selected device: ",
            // Newer collect_env pads its keys: `OS                           : Ubuntu ...`.
            "os   ",
            "python",
            "libcudnn",
            "nccl",
            "fabric manager",
            "kmod-",
            "dkms",
            "driver",
            "capability",
            "ptx",
            "product",
            "libcuda",
            "model:",
            "jax",
            "nvcc",
            "nvidia.com/",
            "unsupported .version",
            "kernel image",
            "no_binary_for_gpu",
            "cudatoolkit",
            "pytorch-cuda",
            "was detected",
            // CUDA.jl's newer versioninfo: `- runtime 13.1, artifact installation`.
            ", artifact installation",
            ", local installation",
            // nvidia-smi's table rows name the GPU without saying NVIDIA on older drivers.
            " on |",
            // The kernel DKMS builds for or whose headers are fetched; jtop's release.
            "building for",
            "building initial module",
            "module build on",
            "-headers-",
            "kernel-devel",
            "release:",
            // A GPU written without its family: `GT 1030`, `K80`, `2080 Ti`.
            "gt 1",
            "gt 2",
            "gt 4",
            "gt 5",
            "gt 6",
            "gt 7",
            "gt 9",
            "gt1",
            "gt2",
            "gt4",
            "gt5",
            "gt6",
            "gt7",
            "gt9",
            "k80",
            "k40",
            "k20",
            "k520",
            "0 ti",
            "0ti",
            " off |",
            " on  |",
            " off  |",
            "版本",
            "kmd version",
            "insufficientdriver",
            "paddlepaddle package",
            "tensorrt version",
            "gpu type",
            "cuda api",
            "gpu_cuda",
            "py_version",
            "gpu_devices",
            "compute cap",
            "飞桨",
            "飞浆",
            "cudnn",
            "paddle",
            "yolov",
            "ultralytics",
            "tensorflow",
            "kernel",
            "graphics card",
            "video card",
            "compute device",
            "显卡",
            "ubuntu",
            "framework",
            "forward compatibility",
            // `uname -rv`'s "#1 SMP".
            " smp",
            "flash",
            "vllm",
            "ollama",
            // Lightning's `- release: 5.15.0-1055-aws` (the kernel).
            "release:",
            // PyTorch's list of its build's architectures (`- 7.5 which supports hardware CC`).
            "supports hardware cc",
        ])
        .expect("valid anchors")
});

/// Words that place a program in a container, or its libcuda in CUDA's stubs: where the CUDA
/// runtime's error 35 can come from no driver being passed in rather than an old one.
static CONTAINER_WORDS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([
            "docker",
            "podman",
            "containerd",
            "nvidia/cuda:",
            "apptainer",
            "singularity",
            "kubectl",
            "kubelet",
            "enroot",
            "pyxis",
            "/stubs/libcuda",
        ])
        .expect("valid words")
});

/// Messages that state a broken rule themselves, without a number: NVML finds the library and
/// the loaded module at different versions; the driver's JIT cannot read PTX that a newer CUDA
/// wrote. (words, field, what printed it)
/// The words of [`STATEMENTS`] in one automaton: a line is searched once for all of them (each
/// statement is read at its first occurrence, as `str::find` would), where one search each cost
/// a fifth of the fields' time on a dense paste.
static STATEMENT_WORDS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .build(STATEMENTS.iter().map(|(words, _, _)| words))
        .expect("the statements build")
});

const STATEMENTS: &[(&str, &str, &str)] = &[
    // FlashAttention's kernels refusing a GPU below their floor (flash_api.cpp's check).
    (
        "FlashAttention only supports Ampere GPUs or newer",
        "library_refused",
        "FlashAttention",
    ),
    // PyTorch's Inductor refusing to compile with Triton for a GPU below Triton's floor
    // (torch/_inductor/scheduler.py: "Triton only supports devices of CUDA Capability >= 7.0").
    (
        "too old to be supported by the triton GPU compiler",
        "library_refused",
        "PyTorch Inductor (Triton)",
    ),
    (
        "Driver/library version mismatch",
        "nvml_mismatch",
        "nvidia-smi",
    ),
    // TensorFlow's (and XLA's) cuDNN check, logged only when the loaded cuDNN does not fit the
    // build (`Loaded runtime CuDNN library: 5103 (compatibility version 5100) but source was
    // compiled with 4007`).
    (
        "but source was compiled with",
        "cudnn_refused",
        "TensorFlow",
    ),
    (
        "the provided PTX was compiled with an unsupported toolchain",
        "ptx_unsupported",
        "CUDA",
    ),
    (
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        "ptx_unsupported",
        "CUDA",
    ),
    // The runtime API's name for the same error 222.
    ("cudaErrorUnsupportedPtxVersion", "ptx_unsupported", "CUDA"),
    // cuDF's check before Numba compiles PTX with a toolkit newer than the driver
    // (cudf/utils/_numba.py): the driver's JIT would refuse that PTX.
    (
        "CUDA Toolkit is newer than CUDA driver",
        "ptx_unsupported",
        "cuDF",
    ),
    // The CUDA runtime's error 35 (cudaErrorInsufficientDriver), as every framework prints it,
    // and PyTorch's own check of the driver against the CUDA it was built with.
    (
        "CUDA driver version is insufficient for CUDA runtime version",
        "driver_insufficient",
        "CUDA runtime",
    ),
    (
        "NVIDIA driver on your system is too old",
        "driver_insufficient",
        "PyTorch",
    ),
    // The runtime's error 35 by its name (cudaErrorInsufficientDriver), as bindings print it
    // (`CUDAError InsufficientDriver`).
    ("InsufficientDriver", "driver_insufficient", "CUDA runtime"),
    // xmrig-cuda's check of the driver against the CUDA it was built with (`Driver does not
    // support CUDA 12.5 API! Update your nVidia driver!`).
    ("Update your nVidia driver!", "driver_insufficient", "xmrig"),
    // A forward-compatibility libcuda (cuda-compat) in use where it may not be: errors 804
    // (cudaErrorCompatNotSupportedOnDevice) and 803 (cudaErrorSystemDriverMismatch).
    (
        "forward compatibility was attempted on non supported HW",
        "compat_refused",
        "CUDA",
    ),
    (
        "system has unsupported display driver / cuda driver combination",
        "compat_mismatch",
        "CUDA",
    ),
    // The CUDA runtime's error 209 (cudaErrorNoKernelImageForDevice) and the driver API's
    // name for it: the program carries neither machine code for this GPU's architecture nor
    // PTX the driver could compile for it.
    (
        "no kernel image is available for execution on the device",
        "arch_refused",
        "CUDA runtime",
    ),
    (
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "arch_refused",
        "CUDA driver",
    ),
    // The runtime's enum name for error 209, as bindings and tools print it
    // (`cudaErrorNoKernelImageForDevice`, CuPy's `NoKernelImageForDevice`).
    ("NoKernelImageForDevice", "arch_refused", "CUDA runtime"),
    (
        "is not compatible with compile time compute cap",
        "arch_refused",
        "text-embeddings-inference",
    ),
    // PyTorch's older warning (torch/cuda/__init__.py's `old_gpu_warn`) for a GPU below the
    // build's lowest architecture.
    (
        "PyTorch no longer supports this GPU because it is too old",
        "arch_refused",
        "PyTorch",
    ),
    // NGC containers' start-up check (`WARNING: Detected NVIDIA A100-PCIE-40GB GPU, which is not
    // yet supported in this version of the container`; `ERROR: ... not supported by this
    // container` for a GPU the container's CUDA has dropped).
    (
        "which is not yet supported in this version of the container",
        "arch_refused",
        "NGC container",
    ),
    (
        "which is not supported by this container",
        "arch_refused",
        "NGC container",
    ),
    // TensorRT's builder refusing a GPU its release has no kernels for (`Target GPU SM 70 is
    // not supported by this TensorRT release.`, error code 9).
    (
        "is not supported by this TensorRT release",
        "arch_refused",
        "TensorRT",
    ),
    // Its older releases' assertion for the same (`Assertion Error in trtSmToCask: 0
    // (Unsupported SM.)`, TensorRT 7 on an Ampere GPU).
    ("(Unsupported SM.)", "arch_refused", "TensorRT"),
    (
        "Assertion failed: Unsupported SM.",
        "arch_refused",
        "TensorRT",
    ),
];

/// NVIDIA's open-gpu-kernel-modules issue form: a heading, then the answer on a later line.
const OPEN_FORM: &str = "open-gpu-kernel-modules issue form";
/// Lines whose answer is on a later line: issue forms' headings, and commands that print their
/// answer under them (a shell prompt before the command is passed over): (heading, field,
/// source).
const FORM_HEADINGS: &[(&str, &str, &str)] = &[
    // The release installed (its open modules and user space ship together): the driver.
    // `kernel_module` is kept for a loaded module known apart from user space, so a form answer
    // that differs from nvidia-smi is a disagreement between sources, not an API mismatch.
    (
        "NVIDIA Open GPU Kernel Modules Version",
        "driver",
        OPEN_FORM,
    ),
    ("Kernel Release", "kernel", OPEN_FORM),
    ("Operating System and Version", "os", OPEN_FORM),
    // InvokeAI's, TensorFlow's and other projects' forms.
    ("GPU model", "gpu", "issue form"),
    ("TensorFlow version", "tensorflow", "TensorFlow issue form"),
    // TensorFlow's form asks "CUDA/cuDNN version" and takes `12.3/8.9.7` (read as its list
    // item `CUDA/cuDNN version: 12.3/8.9.7` is).
    ("CUDA/cuDNN version", "cuda_cudnn", "TensorFlow issue form"),
    ("Python version", "python", "issue form"),
    // WSL's issue form: the WSL kernel and the Linux distribution (its Windows version is `ver`'s).
    ("Kernel Version", "kernel", "WSL issue form"),
    ("Distro Version", "os", "WSL issue form"),
    // Older `nvidia-container-cli -V` prints a bare `version: 1.3.1` under the command.
    (
        "nvidia-container-cli -V",
        "container_toolkit",
        "nvidia-container-cli --version",
    ),
    (
        "nvidia-container-cli --version",
        "container_toolkit",
        "nvidia-container-cli --version",
    ),
    // MXNet's diagnose.py: `Version      : 1.1.0` under its section's heading.
    ("----------MXNet Info-----------", "mxnet", "diagnose.py"),
];
/// A later line's answer without the key it may start with (`version: 1.3.1`, `Version      :
/// 1.1.0`).
fn without_version_key(answer: &str) -> &str {
    answer
        .get(..7)
        .filter(|key| key.eq_ignore_ascii_case("version"))
        .and_then(|_| answer[7..].trim_start().strip_prefix(':'))
        .map_or(answer, str::trim_start)
}
/// A list item naming the OS: a bullet (or, for a name without a number, none), the key (bold or
/// not; the templates' "OS Platform and Distribution", "Operating System + Version", PaddleOCR's
/// "系统环境/System Environment"), its answer.
static OS_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?P<bullet>[-*]\s+)?\**(?:host |operating system |linux )?(?:(?P<template>os platform and distribution|operating system \+ version)|os|operating system|distribution|distro|系统环境\s*/\s*system environment)(?:\s*/\s*version)?\**\s*[:：]\s*\**\s*(?P<v>[A-Za-z][^(\n*]*?)\s*\**\s*(?:\(.*)?$",
    )
    .expect("valid")
});

/// The answer to TensorFlow's form's "CUDA/cuDNN version": the CUDA, then cuDNN's version or its
/// number (`12.3/8.9.7`, `CUDA 11.8, cuDNN 8600`), or cuDNN's alone when it is named (`cuDNN 8600`).
static CUDA_CUDNN_ANSWER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:CUDA\s*)?(?P<cuda>\d+\.\d+(?:\.\d+)*)\s*(?:/|,|and)\s*(?:cuDNN\s*)?|cuDNN\s*)(?P<cudnn>\d+(?:\.\d+)*)\s*$",
    )
    .expect("valid")
});

/// A line that is only a version (`590.48.01-2`, `6.12.65-1-lts`), or a package's name and
/// version (`nvidia-drivers-530.41.03`).
static LONE_VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Za-z][\w+]*(?:-[A-Za-z][\w+]*)*-)?(?P<v>\d+\.\d+(?:\.\d+)*)(?:-[\w.+-]+)?$")
        .expect("valid")
});

/// A version written without its dot, the last digit the minor (`sm_86`, `cu121`): 8.6, 12.1.
fn last_digit_minor(v: &str) -> String {
    let (major, minor) = v.split_at(v.len() - 1);
    format!("{major}.{minor}")
}

/// A CUDA version as the CUDA API numbers it (`12080` is 12.8, `11040` is 11.4).
fn cuda_number(v: &str) -> String {
    let n: u64 = v.parse().unwrap_or(0);
    format!("{}.{}", n / 1000, (n % 1000) / 10)
}

/// A line of PyTorch's list of the architectures its build carries, as its warning prints it
/// since 2.8: `- 7.5 which supports hardware CC >=7.5,<8.0`.
static BUILT_FOR_CC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*-\s+(?P<major>\d{1,2})\.(?P<minor>\d) which supports hardware CC\b")
        .expect("valid")
});

/// The first version in a line.
static FIRST_VERSION: LazyLock<Regex> = LazyLock::new(|| Regex::new(VERSION).expect("valid"));

/// A line as a hand-written list holds it: without indentation, a list marker (`-`, `*`, `•`),
/// emphasis (`**Driver**: ...`) and code spans.
fn plain_form(raw: &str) -> std::borrow::Cow<'_, str> {
    let mut line = raw.trim();
    for _ in 0..2 {
        line = line
            .trim_start_matches(['-', '*', '•', '>'])
            .trim_start()
            .trim_start_matches("**")
            .trim_start();
    }
    // `code` spans around values (`- Driver: `550.54.15``) and emphasis around a key with its
    // colon (`- **GPU:** Tesla V100`).
    // A full-width colon, as a Chinese input method types it (`CUDA Version：11.3`), is a colon.
    if line.contains('`') || line.contains("**") || line.contains('：') {
        std::borrow::Cow::Owned(line.replace('`', "").replace("**", "").replace('：', ": "))
    } else {
        std::borrow::Cow::Borrowed(line)
    }
}

/// The rows of an nvidia-smi table that lost its line breaks, as a table copied from a web page
/// often does (`|===| | 0 NVIDIA B200 On | 00000000:51:00.0 Off | 0 | | N/A 27C P0 ...`): one row
/// ends with `|` where the next begins with `|`. Each row keeps the line's number. Any other line
/// is itself.
fn table_rows(line: &str) -> TableRows<'_> {
    let joined = (line.contains("NVIDIA-SMI") || line.contains("Bus-Id"))
        && line.matches("| |").nth(1).is_some();
    TableRows {
        rest: Some(line),
        joined,
    }
}

struct TableRows<'a> {
    rest: Option<&'a str>,
    joined: bool,
}

impl<'a> Iterator for TableRows<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest.take()?;
        if self.joined
            && let Some(at) = rest.find("| |")
        {
            self.rest = Some(&rest[at + 2..]);
            return Some(&rest[..at + 1]);
        }
        Some(rest)
    }
}

/// Pastes larger than this are read only in their first part: versions are printed at the start
/// of what carries them, and a paste of megabytes of dmesg should not cost more than its scan.
const MAX_SCAN: usize = 1 << 20;

/// The fields a paste shows.
/// `line` without the examples an issue template gives in its questions (`* OS/Version(e.g.
/// RHEL8.6, Ubuntu22.04): RHEL8.9`, `- Kernel (e.g. `uname -a`): ...`): they are the template's
/// values, not the machine's, and read as fields they would be wrong ones.
fn without_template_examples(line: &str) -> std::borrow::Cow<'_, str> {
    let mut out = std::borrow::Cow::Borrowed(line);
    // Most lines have no parenthesis: one byte search, not five.
    if !line.contains('(') {
        return out;
    }
    while let Some(start) = ["(e.g.", "(e.g,", "(eg.", "(eg ", "(for example"]
        .iter()
        .filter_map(|m| out.find(m))
        .min()
    {
        let Some(len) = out[start..].find(')') else {
            break;
        };
        let mut cut = out.into_owned();
        cut.replace_range(start..start + len + 1, "");
        out = std::borrow::Cow::Owned(cut);
    }
    out
}

pub fn of(paste: &[u8]) -> Fingerprint {
    let text = crate::signature::normalize::decode(&paste[..paste.len().min(MAX_SCAN)]);
    let mut fp = Fingerprint::default();
    // A form heading whose answer is on a later line: (field, what printed it).
    let mut answer_to: Option<(&'static str, &'static str)> = None;
    // A CSV header (`nvidia-smi --query-gpu=name,driver_version --format=csv`,
    // `nvidia-container-cli info --csv`): the field each column holds, for the next row.
    let mut csv_columns: Option<(Vec<Option<&'static str>>, &'static str)> = None;
    // An expression typed at Python's prompt whose value is on the next line.
    let mut repl_question: Option<(&'static str, &'static str)> = None;
    // The `print`s of a `python -c` command still to be answered, and the lines left to look
    // for them in (libraries log between them).
    let mut python_c: Option<(usize, std::collections::VecDeque<Vec<Option<&'static str>>>)> = None;
    // Inside Lightning's `* CUDA:` item, whose `- version:` is the CUDA PyTorch was built with.
    let mut lightning_cuda = false;
    // The line of `modinfo nvidia`'s `filename:` (its `license:` tells the flavour).
    let mut modinfo_nvidia: Option<usize> = None;
    // The architectures PyTorch's warning lists one line each: (first line, `sm_75`, ...).
    let mut built_for: Option<(u64, Vec<String>)> = None;
    // Lines left of JAX's refusal of an outdated cuDNN, which gives its versions one a line.
    let mut jax_cudnn: Option<usize> = None;
    // `pip show <framework>`: its `Name:` line, then `Version:` on the next.
    let mut pip_show: Option<(usize, &'static str)> = None;
    // The line before, for PaddlePaddle's environment summary, whose "CUDA version:" is nvcc's
    // only when nvcc's "Build cuda_..." line follows it.
    let mut previous: (usize, &str) = (usize::MAX, "");
    // Which rules a line may match (see `NeedleIndex`), reused from line to line.
    let mut held: Vec<bool> = Vec::with_capacity(RULES.len());
    let lines = text
        .lines()
        .enumerate()
        .flat_map(|(n, line)| table_rows(line).map(move |row| (n, row)));
    for (n, raw) in lines {
        let whole_line = raw;
        let without_examples = without_template_examples(raw);
        let raw: &str = &without_examples;
        if let Some((columns, source)) = csv_columns.take() {
            let cells: Vec<&str> = raw.split(',').map(str::trim).collect();
            if cells.len() == columns.len() {
                for (field, cell) in columns.iter().zip(&cells) {
                    if let Some(field) = field
                        && !cell.is_empty()
                        && !cell.starts_with('[')
                    {
                        fp.add(field, cell, n as u64 + 1, source);
                    }
                }
                continue;
            }
        }
        if let Some((asked, source)) = repl_question.take()
            && let Some((field, value)) = repl_answer(asked, raw)
        {
            fp.add(field, &value, n as u64 + 1, source);
            continue;
        }
        if let Some((left, mut prints)) = python_c.take() {
            // A Markdown quote of the session (`> 2.1.2+cu118`).
            let raw = raw.trim_start();
            let raw = raw
                .strip_prefix("> ")
                .or_else(|| raw.strip_prefix('>').filter(|r| !r.starts_with('>')))
                .unwrap_or(raw);
            if library_log_line(raw) {
                if left > 1 {
                    python_c = Some((left - 1, prints));
                }
            } else if let Some(args) = prints.pop_front() {
                let values = printed_values(args.len(), raw);
                let mut read = 0;
                for (asked, value) in args.iter().zip(&values) {
                    if let Some(asked) = asked
                        && let Some((field, value)) = repl_answer(asked, value)
                    {
                        fp.add(field, &value, n as u64 + 1, "python -c");
                        read += 1;
                    }
                }
                // A line that answers nothing asked is not this command's output, nor is what
                // follows it.
                if values.len() == args.len() && read == args.iter().flatten().count() {
                    if !prints.is_empty() && left > 1 {
                        python_c = Some((left - 1, prints));
                    }
                    continue;
                }
            }
        }
        // `modinfo nvidia`: the open modules are licensed "Dual MIT/GPL", the proprietary ones
        // "NVIDIA" (a modinfo of nvidia.ko, not of any module: `filename:` comes first).
        let item = raw.trim();
        if let Some(file) = item.strip_prefix("filename:") {
            let file = file.trim();
            let base = file.rsplit('/').next().unwrap_or(file);
            modinfo_nvidia = (base == "nvidia.ko" || base.starts_with("nvidia.ko.")).then_some(n);
        } else if let Some(license) = item.strip_prefix("license:")
            && let Some(at) = modinfo_nvidia.take()
            && n < at + 30
        {
            let flavor = match license.trim() {
                "Dual MIT/GPL" => Some("open"),
                "NVIDIA" => Some("proprietary"),
                _ => None,
            };
            if let Some(flavor) = flavor {
                fp.add("driver_flavor", flavor, n as u64 + 1, "modinfo nvidia");
            }
        }
        // Lightning's environment report (`collect_env_details.py`): `* CUDA:`, then
        // `- GPU:`, `- available:` and `- version: 12.1` (`torch.version.cuda`).
        if item.starts_with("* ") {
            lightning_cuda = item == "* CUDA:";
        } else if lightning_cuda
            && let Some(v) = item.strip_prefix("- version:")
            && let Some(v) = FIRST_VERSION.find(v.trim()).filter(|v| v.start() == 0)
        {
            fp.add(
                "cuda_runtime",
                v.as_str(),
                n as u64 + 1,
                "Lightning environment",
            );
            continue;
        }
        if let Some(prints) = python_c_prints(raw) {
            python_c = Some((12, prints.into()));
            continue;
        }
        // JAX's refusal of an outdated cuDNN (`Outdated cuDNN installation found.` then
        // `Version JAX was built against: 8907`, `Minimum supported: 9100`, `Installed version:
        // 8907`): the minimum is what this jaxlib needs, whatever it was built against.
        if let Some(left) = jax_cudnn.take() {
            let line = raw.trim();
            let read = line
                .strip_prefix("Minimum supported:")
                .map(|v| ("cudnn_built_number", v))
                .or_else(|| {
                    line.strip_prefix("Installed version:")
                        .map(|v| ("cudnn_number", v))
                });
            if left > 1 {
                jax_cudnn = Some(left - 1);
            }
            if let Some((field, v)) = read {
                let v = v.trim().trim_end_matches('.');
                if v.len() >= 4
                    && v.bytes().all(|b| b.is_ascii_digit())
                    && let Some((field, value)) = reading(field, v)
                {
                    fp.add(field, &value, n as u64 + 1, "JAX");
                }
                continue;
            }
        }
        if raw.contains("Outdated cuDNN installation found") {
            jax_cudnn = Some(4);
            continue;
        }
        if let Some((at, key)) = pip_show.take()
            && at + 1 == n
            && let Some(v) = raw.trim().strip_prefix("Version: ")
            && let Some((field, value)) = reading(key, v.trim())
        {
            fp.add(field, &value, n as u64 + 1, "pip show");
            continue;
        }
        if let Some(name) = raw.trim().strip_prefix("Name: ") {
            pip_show = match name.trim().to_ascii_lowercase().as_str() {
                "torch" => Some("torch"),
                "tensorflow" | "tensorflow-gpu" | "tensorflow-cpu" | "tf-nightly" => {
                    Some("tensorflow")
                }
                "jax" => Some("jax"),
                "paddlepaddle" | "paddlepaddle-gpu" => Some("paddle"),
                "nvidia-cudnn-cu11" | "nvidia-cudnn-cu12" | "nvidia-cudnn-cu13" => Some("cudnn"),
                "nvidia-nccl-cu11" | "nvidia-nccl-cu12" | "nvidia-nccl-cu13" => Some("nccl"),
                _ => None,
            }
            .map(|key| (n, key));
        }
        // `>>> expr`, `>>> print(expr)`, IPython's `In [3]: expr`, or a script's
        // `print(expr)` with its output under it.
        let typed = raw
            .trim()
            .strip_prefix(">>>")
            .or_else(|| {
                let rest = raw.trim().strip_prefix("In [")?;
                rest.split_once("]:").map(|(_, expr)| expr)
            })
            .or_else(|| raw.trim().starts_with("print(").then(|| raw.trim()));
        if let Some(asked) = typed.and_then(repl_asks) {
            repl_question = Some((asked, "Python session"));
            continue;
        }
        // The expression with what it printed as a comment on the same line
        // (`tf.__version__  # '2.15.0'`).
        if let Some((expr, said)) = raw.trim().trim_start_matches(">>>").split_once('#')
            && let Some(asked) = repl_asks(expr)
            && let Some((field, value)) = repl_answer(asked, said)
        {
            fp.add(field, &value, n as u64 + 1, "Python session");
            continue;
        }
        if let Some(header) = csv_header(raw) {
            csv_columns = Some(header);
            continue;
        }
        if let Some((field, source)) = answer_to
            && !raw.trim().is_empty()
        {
            answer_to = None;
            // TensorFlow's CUDA/cuDNN answer; any other shape is read like any line.
            if field == "cuda_cudnn"
                && let Some(c) = CUDA_CUDNN_ANSWER.captures(raw.trim())
            {
                // cuDNN's number (`8600`) is its version 8.6.0.
                let cudnn = c.name("cudnn").map(|v| v.as_str()).map(|v| {
                    let number = v.len() >= 4 && !v.contains('.');
                    (if number { "cudnn_number" } else { "cudnn" }, v)
                });
                let cuda = c.name("cuda").map(|v| ("cuda_runtime", v.as_str()));
                for (field, v) in cuda.into_iter().chain(cudnn) {
                    if let Some((field, value)) = reading(field, v) {
                        fp.add(field, &value, n as u64 + 1, source);
                    }
                }
                continue;
            }
            if field == "os" {
                // lsb_release's "Description:" or the answer as written.
                let os = raw.trim();
                let os = os.strip_prefix("Description:").unwrap_or(os).trim();
                fp.add("os", os, n as u64 + 1, source);
                continue;
            }
            if field == "gpu" {
                let gpu = raw.trim();
                let gpu = gpu.strip_prefix("NVIDIA ").unwrap_or(gpu);
                if gpu.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                    fp.add("gpu", gpu, n as u64 + 1, source);
                }
                continue;
            }
            // A tool's answer may name what it is (`version: 1.3.1`).
            let answer = raw.trim();
            let answer = without_version_key(answer);
            if let Some(v) = LONE_VERSION.captures(answer).and_then(|c| c.name("v")) {
                // A kernel release is kept whole (`6.12.65-1-lts`), a driver without its
                // package revision (`590.48.01-2`).
                let read = match field {
                    "kernel" => Some((field, raw.trim().to_string())),
                    _ => reading(field, v.as_str()),
                };
                if let Some((field, value)) = read {
                    fp.add(field, &value, n as u64 + 1, source);
                }
                if source == OPEN_FORM {
                    fp.add("driver_flavor", "open", n as u64 + 1, source);
                }
                continue;
            }
            // TensorFlow's form answers "tf 2.14" or "2.15.0".
            if field == "tensorflow"
                && let Some((field, value)) = FIRST_VERSION
                    .find(raw)
                    .and_then(|v| reading(field, v.as_str()))
            {
                fp.add(field, &value, n as u64 + 1, source);
                continue;
            }
            // Not a bare version (`uname -a` as the kernel's answer): read like any line.
        }
        if raw.trim().is_empty() {
            continue;
        }
        // PaddlePaddle's environment summary prints nvcc's whole version and then its build
        // (`CUDA version: 11.4.239` / `Build cuda_11.4.r11.4/compiler.31294910_0`).
        if let Some(build) = raw.trim().strip_prefix("Build cuda_")
            && previous.0.wrapping_add(1) == n
            && let Some(version) = previous
                .1
                .trim()
                .strip_prefix("CUDA version:")
                .map(str::trim)
            && version.split('.').count() == 3
            && version.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && build.starts_with(&format!(
                "{}.",
                version.rsplit_once('.').map_or("", |v| v.0)
            ))
        {
            fp.add(
                "cuda_toolkit",
                version,
                n as u64,
                "Paddle environment summary",
            );
        }
        previous = (n, whole_line);
        answer_to = FORM_HEADINGS
            .iter()
            .find(|(heading, _, _)| {
                raw.trim_start_matches(['#', '$', ' '])
                    .trim()
                    .trim_end_matches(':')
                    .trim_end()
                    .eq_ignore_ascii_case(heading)
            })
            .map(|&(_, field, form)| (field, form));
        if answer_to.is_some() {
            continue;
        }
        // A container (or a stub libcuda) where the program ran: there the CUDA runtime's "driver
        // is insufficient" may mean no driver reached it at all (see `derive`).
        if fp.get("container").is_none()
            && let Some(m) = CONTAINER_WORDS.find(raw)
        {
            fp.add("container", &raw[m.range()], n as u64 + 1, "text");
        }
        // Only lines that can carry a version or a name are looked at closely.
        if !ANCHORS.is_match(raw) {
            continue;
        }
        if let Some(c) = BUILT_FOR_CC.captures(raw) {
            let arch = format!("sm_{}{}", &c["major"], &c["minor"]);
            built_for
                .get_or_insert_with(|| (n as u64 + 1, Vec::new()))
                .1
                .push(arch);
            continue;
        }
        // Only the open module refuses a GPU for lacking a GSP (a line without a number).
        if raw.contains("not supported by open") || raw.contains("supported by open nvidia.ko") {
            fp.add("driver_flavor", "open", n as u64 + 1, "NVRM");
            fp.add(
                "open_refused",
                "not supported by open nvidia.ko",
                n as u64 + 1,
                "NVRM",
            );
        }
        // Messages that carry no number but state a broken rule.
        let mut stated = [false; STATEMENTS.len()];
        for m in STATEMENT_WORDS.find_overlapping_iter(raw) {
            let i = m.pattern().as_usize();
            if !std::mem::replace(&mut stated[i], true) {
                let (_, field, source) = STATEMENTS[i];
                fp.add(field, &raw[m.range()], n as u64 + 1, source);
            }
        }
        // A list's OS item (`- OS: Gentoo Linux`, `- **Host OS**: Ubuntu 22.04`, `Distribution:
        // Manjaro`): the name may carry no number, so it is read before lines without digits
        // are passed over.
        // A bare "Linux" names no distribution: the next item often does.
        // Without a bullet (`OS: Arch Linux`), and under an issue template's key, only a name
        // without a number is taken: a key followed by a release is read by the rules that know
        // its shape (the template's "Linux Ubuntu 18.04" is Ubuntu 18.04), and a platform string
        // (`OS: Linux-5.15.0-91-generic-x86_64`) is not an OS.
        if let Some(c) = OS_ITEM.captures(raw)
            && let Some(v) = c.name("v")
            && (c.name("bullet").is_some() && c.name("template").is_none()
                || !v.as_str().bytes().any(|b| b.is_ascii_digit()))
            && ![
                "linux",
                "gnu/linux",
                "could not collect",
                "n/a",
                "na",
                "none",
                "unknown",
            ]
            .contains(&v.as_str().to_ascii_lowercase().as_str())
        {
            fp.add("os", v.as_str(), n as u64 + 1, "environment list");
        }
        // A GPU's name can hold no digit (`TITAN RTX`, `Orin (nvgpu)`), nor can os-release's
        // NAME or NixOS's `hardware.nvidia.open = true`: on such a line only the rules of
        // [`WORD_FIELDS`] are tried.
        let digitless = !raw.bytes().any(|b| b.is_ascii_digit());
        let line = crate::signature::normalize::strip_prefix(raw.trim_end());
        let plain = plain_form(raw);
        let marked = raw.contains("**") || raw.contains('`');
        let lower = raw.to_ascii_lowercase();
        // The plain form too where it was rewritten: emphasis can split a key from its colon
        // (`**Python**: 3.12`). A form only trimmed of its marks is part of the line.
        let plain_lower =
            matches!(plain, std::borrow::Cow::Owned(_)).then(|| plain.to_ascii_lowercase());
        match &plain_lower {
            Some(p) => NEEDLE_INDEX.mark(&[lower.as_bytes(), p.as_bytes()], &mut held),
            None => NEEDLE_INDEX.mark(&[lower.as_bytes()], &mut held),
        }
        // Ubuntu's transitional packages (`nvidia-utils-460 470.103.01 ... Transitional package
        // for nvidia-utils-470`) carry whichever version last replaced them, often an older one
        // left behind: the package they point to has the driver.
        let transitional = lower.contains("transitional package");
        for rule in RULES
            .iter()
            .zip(&held)
            .filter(|&(r, &held)| held && (!digitless || WORD_FIELDS.contains(&r.field)))
            .map(|(r, _)| r)
        {
            if transitional && rule.source == "dpkg" {
                continue;
            }
            // The line without a log prefix, without list marks and emphasis, and as it is;
            // emphasis first where there is some, since it can split a value
            // (`2.1.2+**cu121**`).
            let forms: [&str; 3] = if marked {
                [&plain, line, raw]
            } else {
                [line, &plain, raw]
            };
            if let Some((f, mut c)) = forms
                .iter()
                .enumerate()
                .filter(|&(i, f)| i == 0 || forms[..i].iter().all(|g| g != f))
                // Most tries fail: a match test costs no capture slots.
                .find_map(|(_, f)| {
                    let re = rule.re();
                    re.is_match(f.as_bytes())
                        .then(|| re.group(f.as_bytes(), &["v", "b"]))
                        .flatten()
                        .map(|c| (*f, c))
                })
            {
                // A driver a sentence names as a bound is passed over for the next it names
                // ("requires driver version 555.42.02, whereas the script installs driver
                // version 550.90.07").
                if rule.source == "text" && matches!(rule.field, "driver" | "driver_text") {
                    let next = |c: &&[u8]| {
                        let end = c.as_ptr() as usize - f.as_ptr() as usize + c.len();
                        rule.re().group_from(f.as_bytes(), end, &["v", "b"])
                    };
                    match std::iter::successors(Some(c), next)
                        .take(4)
                        .find(|c| !driver_bound(f, c))
                    {
                        Some(named) => c = named,
                        None => continue,
                    }
                }
                let v = String::from_utf8_lossy(c);
                let v: &str = &v;
                let Some((field, value)) = reading(rule.field, v) else {
                    continue;
                };
                fp.add(field, &value, n as u64 + 1, rule.source);
            }
        }
        if line.contains("NVIDIA UNIX") && line.contains("Kernel Module") {
            let flavor = if line.contains("Open Kernel Module") {
                "open"
            } else {
                "proprietary"
            };
            fp.add(
                "driver_flavor",
                flavor,
                n as u64 + 1,
                "/proc/driver/nvidia/version",
            );
        }
    }
    if let Some((line, archs)) = built_for {
        fp.add("arch_list", &archs.join(" "), line, "PyTorch");
    }
    fp.derive();
    fp
}

/// Compute capability by GPU name, as NVIDIA's CUDA GPUs page lists it
/// (https://developer.nvidia.com/cuda-gpus, reviewed 2026-12-01). A name is a whole word of the
/// model (`A10` is not `A100`); the first entry that fits wins, so longer names come first.
const CC_BY_NAME: &[(&str, &str)] = &[
    ("gb300", "10.3"),
    ("b300", "10.3"),
    ("gb200", "10.0"),
    ("b200", "10.0"),
    ("b100", "10.0"),
    ("rtx pro 6000 blackwell", "12.0"),
    ("rtx pro 6000", "12.0"),
    ("rtx pro 5000", "12.0"),
    ("rtx pro 4000", "12.0"),
    ("rtx 5090", "12.0"),
    ("rtx 5080", "12.0"),
    ("rtx 5070", "12.0"),
    ("rtx 5050", "12.0"),
    ("rtx 5060", "12.0"),
    ("gh200", "9.0"),
    ("h200", "9.0"),
    ("h100", "9.0"),
    ("h800", "9.0"),
    ("h20", "9.0"),
    ("l40s", "8.9"),
    ("l40", "8.9"),
    ("l20", "8.9"),
    ("l4", "8.9"),
    ("rtx 5000 ada", "8.9"),
    ("rtx 4500 ada", "8.9"),
    ("rtx 4000 ada", "8.9"),
    ("rtx 2000 ada", "8.9"),
    ("rtx 6000 ada", "8.9"),
    ("rtx 4090", "8.9"),
    ("rtx 4080", "8.9"),
    ("rtx 4070", "8.9"),
    ("rtx 4060", "8.9"),
    ("a100", "8.0"),
    ("a800", "8.0"),
    ("a30", "8.0"),
    ("a10g", "8.6"),
    ("a10", "8.6"),
    ("a40", "8.6"),
    ("a16", "8.6"),
    ("a2", "8.6"),
    ("rtx a5500", "8.6"),
    ("rtx a4500", "8.6"),
    ("rtx a2000", "8.6"),
    ("rtx a6000", "8.6"),
    ("rtx a5000", "8.6"),
    ("rtx a4000", "8.6"),
    ("rtx 3090", "8.6"),
    ("rtx 3080", "8.6"),
    ("rtx 3070", "8.6"),
    ("rtx 3060", "8.6"),
    ("rtx 2050", "8.6"),
    ("rtx 3050", "8.6"),
    ("orin", "8.7"),
    ("xavier", "7.2"),
    ("t4", "7.5"),
    ("titan rtx", "7.5"),
    ("quadro rtx 5000", "7.5"),
    ("quadro rtx 4000", "7.5"),
    ("rtx 5000", "7.5"),
    ("rtx 4000", "7.5"),
    ("t2000", "7.5"),
    ("t1200", "7.5"),
    ("t1000", "7.5"),
    ("t600", "7.5"),
    ("t400", "7.5"),
    ("mx 550", "7.5"),
    ("mx 450", "7.5"),
    ("quadro rtx 8000", "7.5"),
    ("quadro rtx 6000", "7.5"),
    ("rtx 2080", "7.5"),
    ("rtx 2070", "7.5"),
    ("rtx 2060", "7.5"),
    ("gtx 1630", "7.5"),
    ("gtx 1660", "7.5"),
    ("gtx 1650", "7.5"),
    ("v100", "7.0"),
    ("titan v", "7.0"),
    ("tx2", "6.2"),
    ("tegra x2", "6.2"),
    ("p100", "6.0"),
    ("p6000", "6.1"),
    ("p5000", "6.1"),
    ("p4000", "6.1"),
    ("p2000", "6.1"),
    ("p2200", "6.1"),
    ("p620", "6.1"),
    ("p600", "6.1"),
    ("p400", "6.1"),
    ("p1000", "6.1"),
    ("p40", "6.1"),
    ("p4", "6.1"),
    ("titan x (pascal)", "6.1"),
    ("titan xp", "6.1"),
    ("gt 1030", "6.1"),
    ("mx 350", "6.1"),
    ("mx 250", "6.1"),
    ("mx 150", "6.1"),
    ("gtx 1080", "6.1"),
    ("gtx 1070", "6.1"),
    ("gtx 1060", "6.1"),
    ("gtx 1050", "6.1"),
    ("gtx titan x", "5.2"),
    ("gtx 980m", "5.2"),
    ("gtx 970m", "5.2"),
    ("gtx 965m", "5.2"),
    ("gtx 960m", "5.0"),
    ("gtx 950m", "5.0"),
    ("gtx 860m", "5.0"),
    ("gtx 850m", "5.0"),
    ("m60", "5.2"),
    ("m40", "5.2"),
    ("gtx 950", "5.2"),
    ("m4", "5.2"),
    ("gtx 980", "5.2"),
    ("gtx 970", "5.2"),
    ("gtx 960", "5.2"),
    ("m10", "5.0"),
    ("mx 130", "5.0"),
    ("jetson nano", "5.3"),
    ("tegra x1", "5.3"),
    ("tx1", "5.3"),
    ("gtx 750", "5.0"),
    ("gtx titan", "3.5"),
    ("gtx 780", "3.5"),
    ("gt 730", "3.5"),
    ("gt 710", "3.5"),
    ("920m", "3.5"),
    ("k80", "3.7"),
    ("k40", "3.5"),
    ("k20", "3.5"),
    ("gtx 770", "3.0"),
    ("gtx 760", "3.0"),
    ("gtx 680", "3.0"),
    ("gtx 670", "3.0"),
    ("k520", "3.0"),
    ("k2000", "3.0"),
    ("k10", "3.0"),
];

/// The compute capability NVIDIA lists for a GPU name, `None` for a name not in the table.
pub fn cc_of_gpu(name: &str) -> Option<&'static str> {
    // Written together or apart, one model: `RTX2060`, `RTX 3070Ti`, `RTX 4090D`.
    static SPACED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(rtx|gtx|gt|mx) ?(\d{3,4})(?: ?(ti|d|super))?\b").expect("valid")
    });
    // A GeForce named without its series (`GeForce 2080 Ti`, `GeForce 1080`): the number says
    // it, RTX from the 20 series on, GTX for the 10 and 16 series.
    static SERIES_LEFT_OUT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\bgeforce |^)((?:[2-5]0|1[06])[5-9]0)(?:s\b|\b)").expect("valid")
    });
    let lower = name.to_ascii_lowercase();
    let lower = SERIES_LEFT_OUT.replace_all(&lower, |c: &regex::Captures| {
        let series = if c[1].starts_with('1') { "gtx" } else { "rtx" };
        format!("geforce {series} {}", &c[1])
    });
    let lower = SPACED.replace_all(&lower, |c: &regex::Captures| match c.get(3) {
        Some(suffix) => format!("{} {} {}", &c[1], &c[2], suffix.as_str()),
        None => format!("{} {}", &c[1], &c[2]),
    });
    let word = |at: usize, len: usize| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + len..].chars().next();
        before.is_none_or(|c| !c.is_ascii_alphanumeric())
            && after.is_none_or(|c| !c.is_ascii_alphanumeric())
    };
    CC_BY_NAME.iter().find_map(|(model, cc)| {
        lower
            .match_indices(model)
            .any(|(at, m)| word(at, m.len()))
            .then_some(*cc)
    })
}

impl Fingerprint {
    /// Fields that follow from others when the paste does not print them: the compute
    /// capability from the GPU's name, the CUDA a PyTorch wheel was built with from its tag.
    /// Takes out the reading kept under `from`, and keeps it as `field` when nothing else gave
    /// `field`.
    fn fall_back(&mut self, from: &str, field: &str) {
        if let Some(kept) = self.take(from)
            && self.get(field).is_none()
        {
            self.add(field, &kept.value, kept.line, kept.source);
        }
    }

    /// Takes a reading out, with any disagreement recorded about it: two sentences naming two
    /// values, or a reading found to be another field's, are not two tools disagreeing.
    fn take(&mut self, field: &str) -> Option<Field> {
        self.conflicts.retain(|c| c.field != field);
        self.fields.remove(field)
    }

    /// Takes out the reading of `field` from one line (found to be another field's), keeping
    /// what other lines said: the field then shows another line's reading, and a disagreement
    /// only that line made is no disagreement.
    fn drop_line(&mut self, field: &str, line: u64) {
        let others: Vec<Field> = self
            .conflicts
            .iter()
            .filter(|c| c.field == field)
            .flat_map(|c| c.values.iter())
            .filter(|v| v.line != line)
            .cloned()
            .collect();
        if self.get(field).is_some_and(|f| f.line == line) || !others.is_empty() {
            self.take(field);
            for other in others {
                self.add(field, &other.value, other.line, other.source);
            }
        }
    }

    fn derive(&mut self) {
        // numba's minor-version compatibility: needed and not available, or nothing.
        if self.get("mvc_needed").is_none() || self.get("mvc_unavailable").is_none() {
            self.fields.remove("mvc_needed");
            self.fields.remove("mvc_unavailable");
        }
        // Where the program ran says something only of a "driver is insufficient".
        if self.get("driver_insufficient").is_none() {
            self.fields.remove("container");
        }
        // nvidia-smi's own version stands for the driver only when nothing names the driver.
        self.fall_back("smi_version", "driver");
        // A driver named in a sentence, likewise.
        self.fall_back("driver_text", "driver");
        // Ollama's log stands for Ollama when no line names its version.
        self.fall_back("ollama_log", "ollama");
        // The CUDA toolkit's meta-package stands for nvcc only when nvcc's own is not listed.
        self.fall_back("cuda_toolkit_package", "cuda_toolkit");
        // The CUDA runtime wheel beside a framework is its runtime only when the framework's
        // build does not say which CUDA it was built with.
        self.fall_back("cuda_runtime_wheel", "cuda_runtime");
        // GPU feature discovery gives versions a part per label.
        let part = |fp: &mut Fingerprint, name: &str| fp.fields.remove(name);
        let (major, minor, rev) = (
            part(self, "gfd_driver_major"),
            part(self, "gfd_driver_minor"),
            part(self, "gfd_driver_rev"),
        );
        if let (Some(major), Some(minor)) = (&major, &minor) {
            let value = match &rev {
                Some(rev) => format!("{}.{}.{}", major.value, minor.value, rev.value),
                None => format!("{}.{}", major.value, minor.value),
            };
            self.add("driver", &value, major.line, major.source);
        }
        for (m, n, field) in [
            ("gfd_cuda_major", "gfd_cuda_minor", "driver_cuda"),
            ("gfd_cc_major", "gfd_cc_minor", "cc"),
        ] {
            if let (Some(major), Some(minor)) = (part(self, m), part(self, n)) {
                let value = format!("{}.{}", major.value, minor.value);
                self.add(field, &value, major.line, major.source);
            }
        }
        // What a sentence names counts only when nothing else names it.
        self.fall_back("os_text", "os");
        self.fall_back("kernel_text", "kernel");
        self.fall_back("python_text", "python");
        // In TensorRT's template, "CUDA Version" is the toolkit in use; elsewhere the same words
        // alone on a line are read as nvidia-smi's.
        let same_line = |fp: &Fingerprint, a: &str, b: &str| {
            fp.get(a)
                .zip(fp.get(b))
                .is_some_and(|(a, b)| a.line == b.line)
        };
        if self.get("tensorrt").is_none() {
            self.take("cuda_template");
        } else if let Some(line) = self.get("cuda_template").map(|t| t.line) {
            // nvidia-smi's table in the same paste still says what the driver supports.
            self.drop_line("driver_cuda", line);
        }
        self.fall_back("cuda_template", "cuda_toolkit");
        // A CUDA in a line a tool's reader already took as the build's (Unsloth's "CUDA
        // Toolkit: 12.4" is torch.version.cuda) is not a second, installed toolkit.
        if same_line(self, "cuda_text", "cuda_runtime") {
            self.take("cuda_text");
        }
        // Nor is one in a line that named it as the driver's (BOINC's "driver version 440.10,
        // CUDA version 10.2").
        // (Another CUDA on that line is still a toolkit: CodeProject.AI's "CUDA: 11.8.89 (up
        // to: 12.8)".)
        if same_line(self, "cuda_text", "driver_cuda")
            && let (Some(t), Some(d)) = (self.get("cuda_text"), self.get("driver_cuda"))
            && same_value("driver_cuda", &t.value, &d.value)
        {
            self.take("cuda_text");
        }
        // conda's cudatoolkit row is the CUDA runtime's libraries, not nvcc: the sentence rule
        // that reads "cudatoolkit 11.3.1" as a toolkit does not read that line.
        if let Some(line) = self
            .get("cuda_runtime_text")
            .filter(|c| c.source == "collect_env's conda list")
            .map(|c| c.line)
        {
            self.drop_line("cuda_text", line);
            self.drop_line("cuda_toolkit", line);
        }
        // BOINC's OS line is read by the general `OS:` rule too, as "Linux Fedora: Fedora 32".
        if let Some(line) = self.get("os_boinc").map(|o| o.line) {
            self.drop_line("os", line);
        }
        self.fall_back("os_boinc", "os");
        self.fall_back("cuda_text", "cuda_toolkit");
        self.fall_back("cuda_runtime_text", "cuda_runtime");
        self.fall_back("cudnn_text", "cudnn");
        self.fall_back("driver_text", "driver");
        // /etc/os-release's NAME and VERSION stand for its PRETTY_NAME when that is not shown.
        let (name, version) = (
            self.fields.remove("os_name"),
            self.fields.remove("os_version"),
        );
        if self.get("os").is_none()
            && let (Some(name), Some(version)) = (name, version)
        {
            let value = format!("{} {}", name.value, version.value);
            self.add("os", &value, name.line, name.source);
        }
        self.fall_back("framework_text", "framework");
        if self.get("cc").is_none()
            && let Some(gpu) = self.get("gpu").cloned()
            && let Some(cc) = cc_of_gpu(&gpu.value)
        {
            self.add(
                "cc",
                cc,
                gpu.line,
                "GPU name (NVIDIA's compute capability table)",
            );
        }
        if self.get("cuda_runtime").is_none()
            && let Some(framework) = self.get("framework").cloned()
            && let Some(tag) = framework.value.split("+cu").nth(1)
            && tag.len() >= 3
            && tag.bytes().all(|b| b.is_ascii_digit())
        {
            let (major, minor) = tag.split_at(tag.len() - 1);
            self.add(
                "cuda_runtime",
                &format!("{major}.{minor}"),
                framework.line,
                "PyTorch wheel tag",
            );
        }
        if self.get("cuda_runtime").is_none()
            && let Some(framework) = self.get("framework").cloned()
            && let Some(cuda) = tensorflow_build_cuda(&framework.value, self.get("os"))
        {
            self.add("cuda_runtime", cuda, framework.line, TF_BUILDS_SOURCE);
        }
        if self.get("arch_list").is_none()
            && let Some(framework) = self.get("framework").cloned()
            && let Some(list) = wheel_arch_list(&framework.value)
        {
            self.add("arch_list", list, framework.line, WHEEL_TABLE);
        }
    }
}

/// Where a `cuda_runtime` read from [`TF_BUILDS`] says it came from.
const TF_BUILDS_SOURCE: &str = "TensorFlow's tested build configurations";

/// The CUDA each TensorFlow release's GPU packages were built and tested with, as TensorFlow's
/// "Tested build configurations" table publishes it (https://www.tensorflow.org/install/source#gpu;
/// its older rows in tensorflow/docs' `site/en/install/source.md`, 2.1 to 2.9 also in
/// tensorflow/addons' custom-op matrix, 2.11 confirmed in tensorflow/tensorflow#59255, 2.17's
/// release build in tensorflow/tensorflow@9122d7a). Reviewed 2026-12-02. Looked up by the
/// release's major.minor; a new release is one row.
const TF_BUILDS: &[(&str, &str)] = &[
    ("1.0", "8.0"),
    ("1.1", "8.0"),
    ("1.2", "8.0"),
    ("1.3", "8.0"),
    ("1.4", "8.0"),
    ("1.5", "9.0"),
    ("1.6", "9.0"),
    ("1.7", "9.0"),
    ("1.8", "9.0"),
    ("1.9", "9.0"),
    ("1.10", "9.0"),
    ("1.11", "9.0"),
    ("1.12", "9.0"),
    ("1.13", "10.0"),
    ("1.14", "10.0"),
    ("1.15", "10.0"),
    ("2.0", "10.0"),
    ("2.1", "10.1"),
    ("2.2", "10.1"),
    ("2.3", "10.1"),
    ("2.4", "11.0"),
    ("2.5", "11.2"),
    ("2.6", "11.2"),
    ("2.7", "11.2"),
    ("2.8", "11.2"),
    ("2.9", "11.2"),
    ("2.10", "11.2"),
    ("2.11", "11.2"),
    ("2.12", "11.8"),
    ("2.13", "11.8"),
    ("2.14", "11.8"),
    ("2.15", "12.2"),
    ("2.16", "12.3"),
    ("2.17", "12.3"),
    ("2.18", "12.5"),
    ("2.19", "12.5"),
    ("2.20", "12.5"),
];

/// The CUDA a TensorFlow release (`tensorflow 1.14.0`, `tensorflow-gpu 2.4.1`) was built for, by
/// [`TF_BUILDS`]. None for a release the table does not list, and on Windows from 2.11, whose
/// native packages have no GPU support at all.
fn tensorflow_build_cuda(framework: &str, os: Option<&Field>) -> Option<&'static str> {
    let version = framework
        .strip_prefix("tensorflow ")
        .or_else(|| framework.strip_prefix("tensorflow-gpu "))?;
    let mut release = version.split(['.', '-', '+', 'r']);
    let (major, minor) = (release.next()?, release.next()?);
    let key = format!("{major}.{minor}");
    let cuda = TF_BUILDS.iter().find(|(r, _)| *r == key)?.1;
    let windows = os.is_some_and(|o| o.value.to_ascii_lowercase().contains("windows"));
    let minor: u32 = minor.parse().ok()?;
    if windows && (major != "1" && minor >= 11) {
        return None;
    }
    Some(cuda)
}

/// Where an `arch_list` read from [`WHEEL_ARCHS`] says it came from (the rule only where the paste
/// shows Linux on x86_64: the lists differ by platform, and a printed list beats the table).
pub const WHEEL_TABLE: &str = "PyTorch wheel table (Linux x86_64)";

/// The architectures PyTorch's Linux x86_64 wheels carry, by release and CUDA tag, as PyTorch
/// publishes them (RELEASE.md's CUDA support matrix, https://github.com/pytorch/pytorch/blob/main/RELEASE.md)
/// or as the wheels print them (2.0.1+cu117: https://github.com/pytorch/pytorch/issues/110153;
/// 2.8.0+cu128: https://github.com/pytorch/pytorch/issues/157517; 2.8.0+cu129, the same list, with
/// Pascal failing on "no kernel image": https://github.com/easydiffusion/torchruntime/issues/22,
/// https://github.com/jhj0517/Whisper-WebUI/issues/653). Reviewed 2026-12-02. Windows builds of the
/// same release have carried other lists.
///
/// The rows for PyPI's own wheels (1.8.1, 1.9.1, 1.10.2, 1.11.0 and 1.12.1 +cu102, 1.13.1+cu117, 2.1.2 to 2.4.1 +cu121, 2.5.1 and
/// 2.6.0 +cu124, 2.7.1+cu126, 2.9.1 and 2.10.0 +cu128) are the `-gencode` flags each wheel's
/// `torch/lib/libtorch_cuda.so` was built with, read from the wheels as PyPI serves them
/// (`pip download torch==X --no-deps`, manylinux x86_64; reviewed 2026-12-02).
const WHEEL_ARCHS: &[WheelRow] = &[
    ("1.8", "cu102", "sm_37 sm_50 sm_60 sm_70", WheelSource::PyPi),
    ("1.9", "cu102", "sm_37 sm_50 sm_60 sm_70", WheelSource::PyPi),
    (
        "1.10",
        "cu102",
        "sm_37 sm_50 sm_60 sm_70",
        WheelSource::PyPi,
    ),
    (
        "1.11",
        "cu102",
        "sm_37 sm_50 sm_60 sm_70",
        WheelSource::PyPi,
    ),
    (
        "1.12",
        "cu102",
        "sm_37 sm_50 sm_60 sm_70",
        WheelSource::PyPi,
    ),
    (
        "1.13",
        "cu117",
        "sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86",
        WheelSource::PyPi,
    ),
    (
        "2.0",
        "cu117",
        "sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86",
        WheelSource::Matrix,
    ),
    (
        "2.1",
        "cu121",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::PyPi,
    ),
    (
        "2.2",
        "cu121",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::PyPi,
    ),
    (
        "2.3",
        "cu121",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::PyPi,
    ),
    (
        "2.4",
        "cu121",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::PyPi,
    ),
    (
        "2.5",
        "cu124",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::PyPi,
    ),
    (
        "2.6",
        "cu124",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::PyPi,
    ),
    (
        "2.7",
        "cu126",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::PyPi,
    ),
    (
        "2.8",
        "cu128",
        "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
        WheelSource::Matrix,
    ),
    (
        "2.8",
        "cu129",
        "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
        WheelSource::Matrix,
    ),
    (
        "2.9",
        "cu128",
        "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
        WheelSource::PyPi,
    ),
    (
        "2.10",
        "cu128",
        "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
        WheelSource::PyPi,
    ),
    (
        "2.11",
        "cu126",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::Matrix,
    ),
    (
        "2.11",
        "cu128",
        "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
        WheelSource::Matrix,
    ),
    (
        "2.11",
        "cu130",
        "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
        WheelSource::Matrix,
    ),
    (
        "2.12",
        "cu126",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::Matrix,
    ),
    (
        "2.12",
        "cu130",
        "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
        WheelSource::Matrix,
    ),
    (
        "2.13",
        "cu126",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::Matrix,
    ),
    (
        "2.13",
        "cu130",
        "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
        WheelSource::Matrix,
    ),
    (
        "2.14",
        "cu126",
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
        WheelSource::Matrix,
    ),
    (
        "2.14",
        "cu130",
        "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
        WheelSource::Matrix,
    ),
    (
        "2.14",
        "cu132",
        "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
        WheelSource::Matrix,
    ),
];

/// The table's list for `torch X.Y.Z+cuNNN`, `None` for a build it does not know.
/// A row of [`WHEEL_ARCHS`]: release, CUDA tag, architectures, where it was read.
type WheelRow = (&'static str, &'static str, &'static str, WheelSource);

/// Where a row of [`WHEEL_ARCHS`] was read: PyTorch's release matrix (or the wheels' printed
/// lists), or the `-gencode` flags of the wheel PyPI serves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WheelSource {
    Matrix,
    PyPi,
}

/// The row of [`WHEEL_ARCHS`] for a framework reading (`torch 2.10.0+cu128`), with the release.
fn wheel_row(framework: &str) -> Option<(&'static WheelRow, &str)> {
    let version = framework.strip_prefix("torch ")?;
    let (release, tag) = version.split_once('+')?;
    let minor: String = release.split('.').take(2).collect::<Vec<_>>().join(".");
    WHEEL_ARCHS
        .iter()
        .find(|(r, t, _, _)| *r == minor && *t == tag)
        .map(|row| (row, release))
}

/// Where a wheel's architecture list comes from: the wheel on PyPI for the rows read from PyPI's
/// wheels, PyTorch's release matrix for the others.
pub fn wheel_arch_source(framework: &str) -> String {
    match wheel_row(framework) {
        Some(((_, _, _, WheelSource::PyPi), release)) => {
            format!("https://pypi.org/project/torch/{release}/")
        }
        _ => "https://github.com/pytorch/pytorch/blob/main/RELEASE.md".to_string(),
    }
}

pub fn wheel_arch_list(framework: &str) -> Option<&'static str> {
    wheel_row(framework).map(|((_, _, list, _), _)| *list)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of needles made ahead must be what the analysis gives for every rule, and hold
    /// nothing else: `LORE_BLESS=1 cargo test --lib needle_table` writes it again.
    #[test]
    fn tensorflow_names_the_cuda_its_release_was_built_for() {
        let tf = of(b"tensorflow-gpu==1.13.1\ncat /proc/driver/nvidia/version\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  396.26  Mon Apr 30 18:01:39 PDT 2018\n");
        let cuda = tf.get("cuda_runtime").unwrap();
        assert_eq!(
            (cuda.value.as_str(), cuda.source),
            ("10.0", TF_BUILDS_SOURCE)
        );
        // A printed CUDA beats the table.
        let printed = of(b"tensorflow==2.15.0\nCUDA used to build PyTorch: 12.1\n");
        assert_eq!(printed.get("cuda_runtime").unwrap().value, "12.1");
        let os = Field {
            value: "Windows 10 Pro".into(),
            line: 1,
            source: "systeminfo",
        };
        let windows = |tf: &str| tensorflow_build_cuda(tf, Some(&os));
        assert_eq!(windows("tensorflow 2.10.1"), Some("11.2"));
        // Native Windows packages have had no GPU support since 2.11.
        assert_eq!(windows("tensorflow 2.15.0"), None);
        assert_eq!(
            tensorflow_build_cuda("tensorflow 2.16.1", None),
            Some("12.3")
        );
        assert_eq!(
            tensorflow_build_cuda("tensorflow 1.15.5", None),
            Some("10.0")
        );
        assert_eq!(tensorflow_build_cuda("tensorflow 3.0.0", None), None);
        assert_eq!(tensorflow_build_cuda("torch 2.1.0+cu121", None), None);
    }

    /// A list's "CUDA" that is no CUDA release (CUDA.jl's own version, under "Julia packages")
    /// is not read as the toolkit.
    #[test]
    fn a_listed_cuda_must_be_a_cuda_release() {
        let julia = of(b"Julia packages:\n- CUDA: 5.9.5\n- CUDA_Driver_jll: 13.1.0+0\n");
        assert!(julia.get("cuda_toolkit").is_none());
        assert!(julia.get("cuda_runtime").is_none());
        assert_eq!(
            of(b"- CUDA: 11.8\n").get("cuda_runtime").unwrap().value,
            "11.8"
        );
        assert_eq!(
            of(b"CUDA: 10.2.89\n").get("cuda_toolkit").unwrap().value,
            "10.2.89"
        );
        assert!(cuda_release("5.5") && cuda_release("12.9") && cuda_release("13.2"));
        assert!(!cuda_release("5.9.5") && !cuda_release("11.9") && !cuda_release("8.1"));
    }

    #[test]
    fn flash_attention_refusing_the_gpu_is_read() {
        let fa = of(b"RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n");
        assert_eq!(fa.get("library_refused").unwrap().source, "FlashAttention");
    }

    #[test]
    fn needle_table_is_what_the_analysis_gives() {
        let mut rows: Vec<(u64, Option<Vec<Vec<u8>>>)> = RULES
            .iter()
            .map(|r| {
                (
                    crate::hash::fnv1a(r.pattern.as_bytes()),
                    analyze_needles(&r.pattern),
                )
            })
            .collect();
        rows.sort();
        rows.dedup();
        let table: Vec<(u64, Option<Vec<Vec<u8>>>)> = needles::NEEDLES
            .iter()
            .map(|&(h, set)| (h, set.map(|s| s.iter().map(|n| n.to_vec()).collect())))
            .collect();
        if table == rows {
            return;
        }
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/env/fingerprint/needles.rs"
        );
        if std::env::var_os("LORE_BLESS").is_some() {
            let mut text = String::from(
                "//! The literals one of which a line must hold for each rule of `RULES` to match it, by\n\
                 //! the hash (FNV-1a) of the rule's pattern: made by\n\
                 //! `LORE_BLESS=1 cargo test --lib needle_table` from the analysis the signatures use.\n\
                 //! Do not edit; a rule missing here is analysed at start-up.\n\n\
                 #[rustfmt::skip]\n\
                 pub(super) const NEEDLES: &[(u64, Option<&[&[u8]]>)] = &[\n",
            );
            for (hash, set) in &rows {
                let set = match set {
                    None => "None".to_string(),
                    Some(set) => format!(
                        "Some(&[{}])",
                        set.iter()
                            .map(|n| format!("b\"{}\"", n.escape_ascii()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                text.push_str(&format!("    (0x{hash:016x}, {set}),\n"));
            }
            text.push_str("];\n");
            std::fs::write(path, text).expect("write the table");
            return;
        }
        panic!("{path} is out of date: run `LORE_BLESS=1 cargo test --lib needle_table`");
    }

    #[test]
    fn nvidia_smi_names_the_driver_the_cuda_it_supports_and_the_gpu() {
        let paste = "+-----------------------------------------------------------------------------+\n\
| NVIDIA-SMI 535.129.03   Driver Version: 535.129.03   CUDA Version: 12.2     |\n\
|-------------------------------+----------------------+----------------------+\n\
|   0  NVIDIA A100-SXM4-80GB  On   | 00000000:07:00.0 Off |                    0 |\n";
        let fp = of(paste.as_bytes());
        assert_eq!(fp.get("driver").unwrap().value, "535.129.03");
        assert_eq!(fp.get("driver").unwrap().line, 2);
        assert_eq!(fp.get("driver_cuda").unwrap().value, "12.2");
        assert!(
            fp.get("cuda_toolkit").is_none(),
            "CUDA Version is not a toolkit"
        );
        assert_eq!(fp.get("gpu").unwrap().value, "A100-SXM4-80GB");
        assert!(fp.conflicts.is_empty(), "{:?}", fp.conflicts);
    }

    /// One pass of the needle index marks exactly the rules one of whose needles a line holds
    /// (and the rules without needles), as asking each rule's needles in turn did.
    #[test]
    fn warming_for_a_paste_takes_the_rules_its_lines_may_match_in_their_order() {
        let paste = "Collecting environment information...\nPyTorch version: 2.1.0+cu121\nCUDA used to build PyTorch: 12.1\nOS: Ubuntu 22.04.3 LTS (x86_64)\nNvidia driver version: 535.104.05\n";
        let order = rules_to_warm(paste.as_bytes());
        let mut held = Vec::new();
        let mut wanted = std::collections::BTreeSet::new();
        for line in paste.lines() {
            NEEDLE_INDEX.mark(&[line.to_ascii_lowercase().as_bytes()], &mut held);
            wanted.extend(held.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i));
        }
        let warmed: std::collections::BTreeSet<usize> = order.iter().copied().collect();
        assert_eq!(warmed, wanted, "every rule a line may match, and no other");
        assert!(
            order.len() < RULES.len() / 2,
            "{} of {}",
            order.len(),
            RULES.len()
        );
        // Rules without literals first, then by where the paste first calls for them.
        let first_on = |line: &[u8]| {
            order
                .iter()
                .position(|&i| {
                    RULES[i]
                        .needles
                        .as_ref()
                        .is_some_and(|n| n.iter().all(|n| n.starts_with(line)))
                })
                .expect("a rule on that collect_env line")
        };
        let (driver, pytorch) = (first_on(b"nvidia driver"), first_on(b"pytorch version"));
        assert!(pytorch < driver);
    }

    #[test]
    fn the_needle_index_marks_the_rules_each_line_may_match() {
        let sample = include_str!("../signature/ordinary.log");
        let extra = "collect_env: cuda used to build pytorch: 12.1\n\
            - **python**: 3.12\nnvidia-smi 535.129.03 driver version: 535.129.03 cuda version: 12.2\n\
            paddlepaddle-gpu 2.6.1.post120\nlibcudnn8 8.9.7.29-1+cuda12.2\n显卡驱动版本 535";
        let mut held = Vec::new();
        for line in sample.lines().chain(extra.lines()) {
            let lower = line.to_ascii_lowercase();
            NEEDLE_INDEX.mark(&[lower.as_bytes()], &mut held);
            for (i, rule) in RULES.iter().enumerate() {
                let expected = rule.needles.as_ref().is_none_or(|set| {
                    set.iter()
                        .any(|n| memchr::memmem::find(lower.as_bytes(), n).is_some())
                });
                assert_eq!(held[i], expected, "rule {:?} on {line:?}", rule.pattern);
            }
        }
    }

    /// A table copied from a web page with its rows run together on one line is read row by row,
    /// every field on that line.
    #[test]
    fn an_nvidia_smi_table_on_one_line() {
        let paste = "the table:\n+------+ | NVIDIA-SMI 580.95.05 Driver Version: 580.95.05 CUDA Version: 13.0 | \
|---+---| | GPU Name Persistence-M | Bus-Id Disp.A | Volatile Uncorr. ECC | |=====+=====| \
| 0 NVIDIA B200 On | 00000000:51:00.0 Off | 0 | | N/A 27C P0 136W / 1000W | 0MiB / 183359MiB | \
0% Default | | | | Disabled | +---+ | 1 NVIDIA B200 On | 00000000:52:00.0 Off | 0 |\n";
        let fp = of(paste.as_bytes());
        assert_eq!(fp.get("driver").unwrap().value, "580.95.05");
        assert_eq!(fp.get("driver_cuda").unwrap().value, "13.0");
        let gpu = fp.get("gpu").unwrap();
        assert_eq!((gpu.value.as_str(), gpu.line), ("B200", 2));
        assert!(fp.conflicts.is_empty(), "{:?}", fp.conflicts);
        // A line is cut only where two or more rows were joined, and only an nvidia-smi table's.
        assert_eq!(table_rows("x | | y | | NVIDIA-SMI").count(), 3);
        assert_eq!(table_rows("NVIDIA-SMI | | only one").count(), 1);
        assert_eq!(table_rows("a | | b | | c").count(), 1);
    }

    /// Rules compile when a line first needs them: every one must compile (in ASCII mode, where
    /// a class may not hold a non-ASCII character).
    #[test]
    fn every_rule_compiles() {
        for rule in RULES.iter() {
            let _ = rule.re();
        }
    }

    #[test]
    fn hand_written_lists_templates_and_banners() {
        let value = |paste: &str, f: &str| {
            of(paste.as_bytes())
                .get(f)
                .map(|x| x.value.clone())
                .unwrap_or_default()
        };
        // Lists, notes and tool output as people paste them: (paste, field, what it reads).
        let notes = "Ubuntu 22\nCuda 11.7\ndriver is 515.43.04\n";
        let list = "- NVIDIA Driver Version: 575.64.03\n- CUDA Runtime Version: 12.4\n- Framework & Version: 2.6.0+cu124\n";
        let device = "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes\n";
        let wheel = "pip3 install https://download.pytorch.org/whl/cu100/torch-1.0.1.post2-cp35-cp35m-linux_x86_64.whl\n";
        let dkms =
            "Loading new nvidia-current-535.161.08 DKMS files...\nBuilding for 6.1.0-21-amd64\n";
        let kmod = "kmod-nvidia-5.14.0-427.el9_4-575.64-1.el9.x86_64\n";
        // Fabric manager refusing the loaded driver: its own version, then the module's.
        let fm = "Aug 11 06:47:54 sprocket nv-fabricmanager[186868]: fabric manager NVIDIA GPU driver interface version 595.71.05 don't match with driver version 590.48.01. Please update with matching NVIDIA driver package.\n";
        let nix_info = " - host os: `Linux 6.12.4-arch1-1, Arch Linux, noversion, rolling`\n";
        let cudnn_env = "GPU 0 (CUDA order)   : NVIDIA L40S | SM89 | 142 SMs | 44.4 GiB\n";
        // BOINC's start-up (BOINC#3893): its CUDA line's "CUDA version" is the driver's and its
        // driver version is cut (440.100 as 440.10); the OpenCL line has the whole.
        let boinc = "CUDA: NVIDIA GPU 0: GeForce RTX 2070 SUPER (driver version 440.10, CUDA version 10.2, compute capability 7.5, 4096MB, 3968MB available, 9216 GFLOPS peak)\n\
                     OpenCL: NVIDIA GPU 0: GeForce RTX 2070 SUPER (driver version 440.100, device version OpenCL 1.2 CUDA, 7982MB, 3968MB available, 9216 GFLOPS peak)\n\
                     OS: Linux Fedora: Fedora 32 (Workstation Edition) [5.7.6-201.fc32.x86_64|libc 2.31 (GNU libc)]\n";
        let fc42 = "Error: kmod-nvidia version (575.64.03-1.fc42) does not match nvidia-driver version (575.64.05-1.fc42)\n";
        let paddle = "W0120 device_context.cc:447] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.4, Runtime API Version: 10.2\n\
             W0120 device_context.cc:465] device: 0, cuDNN Version: 8.2.\n";
        let mmcv = "NVCC: Build cuda_11.0_bu.TC445_37.28540450_0\nPyTorch: 1.7.0+cu110\nPyTorch compiling details: PyTorch built with:\n  - CUDA Runtime 11.0\n";
        let sysinfo = "    \"Python\": \"3.10.6\",\n        \"torch_version\": \"2.2.0+cu121\",\n        \"cuda_compiled_version\": \"12.1\",\n        \"os\": \"Microsoft Windows 11 Pro\",\n";
        let conda = "cudatoolkit               10.2.89              hfd86e86_1\ncudnn                     7.6.5                cuda10.2_0\npytorch                   1.7.1\n";
        let nix = "/nix/var/nix/profiles/default/bin/nvidia-smi: symbolic link to /nix/store/q3g0-nvidia-x11-460.73.01-5.11.21-bin/bin/nvidia-smi\n\
             filename:       /run/current-system/kernel-modules/lib/modules/5.13.18/misc/nvidia.ko\n\
             nvidia.ko: symbolic link to /nix/store/pkqf-nvidia-x11-470.57.02-5.13.18-bin/lib/modules/5.13.18/misc/nvidia.ko\n";
        let prose = "I installed an RTX 5070 Ti and the latest PyTorch nightly (2.6.0.dev20241112+cu121).\n\
             UserWarning: NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n";
        let bold = "- **GPU:** Tesla V100-SXM2-16GB\n- **NVIDIA Driver:** 535.288.01\n- **Python**: 3.12.3\n";
        let cupy = "OS                           : Linux-5.4.0-42-generic-x86_64-with-glibc2.10\n\
             CuPy Version                 : 9.0.0rc1\nCUDA Build Version           : 11030\n\
             CUDA Driver Version          : 11020\nNCCL Runtime Version         : 2507\n\
             Device 0 Name                : GeForce RTX 2080 Ti\nDevice 0 Compute Capability  : 75\n";
        let bnb = "CUDA SETUP: Highest compute capability among GPUs detected: 8.0\nCUDA SETUP: Detected CUDA version 122\n";
        let ds_report = "torch version .................... 2.1.2+cu121\ntorch cuda version ............... 12.1\nnvcc version ..................... 12.3\n";
        let detectron2 = "Python                  3.7.7 (default, May  7 2020, 21:25:33) [GCC 7.3.0]\n\
             CUDA compiler           Cuda compilation tools, release 9.2, V9.2.148\n\
             PyTorch                 1.6.0 @/home/cl/anaconda3/envs/detectron2/lib/python3.7/site-packages/torch\n\
             GPU 0                   GeForce GTX 1070 (arch=6.1)\n";
        let bare_list = "CUDA 10.1.105\ncuDNN 7.6.4\nWindows 10 Pro\n";
        let extension = "The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.8).\n";
        let smi_version = "$ nvidia-smi --version\nNVIDIA-SMI version  : 610.43.02\nNVML version        : 610.43\nDRIVER version      : Deprecated, see \"KMD version\" instead\nCUDA version        : Deprecated, see \"CUDA UMD version\" instead\nKMD version         : 610.43.02\nCUDA UMD version    : 13.3\n";
        let one_liner = "$ python -c \"import torch; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), torch.cuda.get_device_name(0))\"\n2.4.0+cu124 12.4 90100 NVIDIA H100 PCIe\n";
        let tf_one_liner = "$ python -c \"import tensorflow as tf; print(tf.__version__)\"\n2024-03-11 09:12:40.114520: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on.\n2.15.1\n";
        let quoted_prints = "> C:\\Users\\me>python -c \"import torch; print(torch.__version__); print(torch.version.cuda); print(torch.cuda.get_device_capability())\"\n> 2.1.2+cu118\n> 11.8\n> (8, 9)\n";
        let lightning = "* CUDA:\n\t- GPU:\n\t\t- NVIDIA A10G\n\t- available:         True\n\t- version:           12.1\n* System:\n\t- OS:                Linux\n";
        let modinfo_open = "filename:       /lib/modules/5.14.0-427.13.1.el9_4.x86_64/extra/nvidia.ko.xz\nversion:        550.54.15\nlicense:        Dual MIT/GPL\n";
        let modinfo_proprietary = "filename:       /lib/modules/5.15.0-105-generic/updates/dkms/nvidia.ko\nversion:        535.171.04\nsupported:      external\nlicense:        NVIDIA\n";
        let cases = [
            (notes, "driver", "515.43.04"),
            (notes, "os", "Ubuntu 22"),
            (list, "cuda_runtime", "12.4"),
            (list, "framework", "torch 2.6.0+cu124"),
            // collect_env's lowercase "CUDA runtime version" stays nvcc's.
            ("CUDA runtime version: 12.1\n", "cuda_toolkit", "12.1"),
            ("CUDA runtime version: 12.1\n", "cuda_runtime", ""),
            // A hand-written list's runtime and container toolkit.
            ("  * CUDA runtime: 11.1\n", "cuda_runtime", "11.1"),
            (
                "* nvidia-container-toolkit: 1.3.0-1 (via apt)\n",
                "container_toolkit",
                "1.3.0",
            ),
            // The issue template's GPU with its driver after a comma.
            (
                " - GPU models and configuration: GeForce RTX 2070, driver 450.102.04\n",
                "gpu",
                "GeForce RTX 2070",
            ),
            (
                " - GPU models and configuration: GeForce RTX 2070, driver 450.102.04\n",
                "driver",
                "450.102.04",
            ),
            ("compute_cap\n8.9\n", "cc", "8.9"),
            (
                "paddlepaddle-gpu              2.2.2.post111\n",
                "framework",
                "paddlepaddle 2.2.2.post111",
            ),
            (
                "paddlepaddle-gpu              2.2.2.post111\n",
                "cuda_runtime",
                "11.1",
            ),
            ("Device: NVIDIA A100-SXM4-40GB\n", "gpu", "A100-SXM4-40GB"),
            (
                "- pytorch==1.7.1 torchvision==0.8.2 torchaudio==0.7.2  cudatoolkit=11.0\n",
                "cuda_runtime",
                "11.0",
            ),
            (
                "I have installed Tensorflow 0.12.1 for Python 3.5 with GPU with:\n",
                "framework",
                "tensorflow 0.12.1",
            ),
            (
                "WARNING: Detected NVIDIA A100-PCIE-40GB GPU, which is not yet supported in this version of the container\n",
                "gpu",
                "A100-PCIE-40GB",
            ),
            (
                "The display info on P40 is: `device: 0, CUDA Capability: 61, Driver Version: 9.0, Runtime Version: 8.0`.\n",
                "cuda_runtime",
                "8.0",
            ),
            // Older Paddle's banner, and TensorFlow's hint after cuDNN fails.
            (
                "W0404 device_context.cc:237] Please NOTE: device: 0, CUDA Capability: 61, Driver API Version: 10.1, Runtime API Version: 10.0\n",
                "cc",
                "6.1",
            ),
            (
                "E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Possibly insufficient driver version: 390.87.0\n",
                "driver",
                "390.87.0",
            ),
            (device, "gpu", "GeForce GTX 1080 Ti"),
            (device, "cc", "6.1"),
            (wheel, "framework", "torch 1.0.1.post2"),
            (wheel, "cuda_runtime", "10.0"),
            ("- OS: Gentoo Linux\n", "os", "Gentoo Linux"),
            ("OS: Arch Linux\n", "os", "Arch Linux"),
            (
                "Host OS: Debian GNU/Linux 11 (bullseye)\n",
                "os",
                "Debian GNU/Linux 11",
            ),
            (
                "I1128 17:35:08.651661 1737 nvc.c:376] initializing library context (version=1.14.3, build=1eb5a30a6ad0415550a9df632ac8832bf7e2bbba)\n",
                "container_toolkit",
                "1.14.3",
            ),
            (
                "PaddlePaddle版本： 2.2.2.post112\n",
                "framework",
                "paddlepaddle 2.2.2.post112",
            ),
            ("显卡：英伟达 K80\n", "gpu", "K80"),
            (
                "jax                       0.4.28                   pypi_0    pypi\n",
                "framework",
                "jax 0.4.28",
            ),
            (cudnn_env, "cc", "8.9"),
            (cudnn_env, "gpu", "L40S"),
            (
                "Python            : 3.10.12 (main, Feb  4 2025, 14:57:36) [GCC 11.4.0]\n",
                "python",
                "3.10.12",
            ),
            (
                "Backend Library & Version (e.g., PyTorch 0.4.1, MXNet/Gluon 1.3): PyTorch 1.6\n",
                "framework",
                "torch 1.6",
            ),
            (
                "2022-03-06 00:29:00,458 - mmdeploy - INFO - PyTorch: 1.10.0\n",
                "framework",
                "torch 1.10.0",
            ),
            (fm, "kernel_module", "590.48.01"),
            (fm, "fabric_manager", "595.71.05"),
            (nix_info, "kernel", "6.12.4-arch1-1"),
            (nix_info, "os", "Arch Linux"),
            (
                "[05/27/2023-19:14:07] [TRT] [W] TensorRT was linked against cuDNN 8.9.0 but loaded cuDNN 8.7.0\n",
                "cudnn",
                "8.7.0",
            ),
            ("Nvidia GTX 550 ti\n", "gpu", "GTX 550 ti"),
            (
                "- OS Platform and Distribution: Arch Linux\n",
                "os",
                "Arch Linux",
            ),
            ("**Operating System + Version**: Windows\n", "os", "Windows"),
            ("OS: Could not collect\n", "os", ""),
            (kmod, "kernel_module", "575.64"),
            (kmod, "driver", ""),
            (boinc, "driver", "440.100"),
            (boinc, "driver_cuda", "10.2"),
            (boinc, "cuda_toolkit", ""),
            (boinc, "gpu", "GeForce RTX 2070 SUPER"),
            (boinc, "os", "Fedora 32 (Workstation Edition)"),
            (boinc, "kernel", "5.7.6-201.fc32"),
            (
                "[11/07/2025-06:59:06] [I] Selected Device: NVIDIA GeForce RTX 3090\n",
                "gpu",
                "GeForce RTX 3090",
            ),
            (
                "[01/01/1970-03:47:30] [I] Selected Device: Orin\n",
                "gpu",
                "Orin",
            ),
            ("[I] Selected Device ID: 0\n", "gpu", ""),
            // Windows as people write it: in a list, or alone as a form's answer.
            (
                "win11,pycharm,RTX5060, paddlepaddle-gpu==2.6.2\n",
                "os",
                "win11",
            ),
            ("### OS\n\nWindows\n\n### GPU\n", "os", "Windows"),
            ("I cannot compile it on Windows with a 3090\n", "os", ""),
            (
                "The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version (12.3.107). Because the driver is older\n",
                "cuda_toolkit",
                "12.3.107",
            ),
            (
                "The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version (12.3.107). Because the driver is older\n",
                "driver_cuda",
                "12.2",
            ),
            (
                "### CUDA/cuDNN version\n\n12.3/8.9.7\n\n### GPU model and memory\n",
                "cudnn",
                "8.9.7",
            ),
            (
                "### CUDA/cuDNN version\n\n12.3/8.9.7\n",
                "cuda_runtime",
                "12.3",
            ),
            ("### CUDA/cuDNN version\n\ncuDNN 8600\n", "cudnn", "8.6.0"),
            ("### CUDA/cuDNN version\n\n12.3\n", "cudnn", ""),
            (
                "Paddle With CUDA: True\n\nCUDA version: 11.4.239\nBuild cuda_11.4.r11.4/compiler.31294910_0\ncuDNN version: 8.6.0\n",
                "cuda_toolkit",
                "11.4.239",
            ),
            (
                "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1\n",
                "gpu",
                "GeForce GTX 1080 Ti",
            ),
            (
                "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1\n",
                "cc",
                "6.1",
            ),
            ("- **Host OS**: Ubuntu 22.04\n", "os", "Ubuntu 22.04"),
            (" - OS: Linux\n - Distribution: Manjaro\n", "os", "Manjaro"),
            (
                "With Laptop with RTX 4050, on Debian 12.\n",
                "os",
                "Debian 12",
            ),
            (
                "I am on Ubuntu 20.04 LTS\nOS: Ubuntu 22.04.3 LTS (x86_64)\n",
                "os",
                "Ubuntu 22.04.3 LTS",
            ),
            (fc42, "kernel_module", "575.64.03"),
            (fc42, "driver", "575.64.05"),
            (
                "local/nvidia-450xx-utils 450.80.02-1\n",
                "driver",
                "450.80.02",
            ),
            ("local/cuda 11.1.1-1\n", "cuda_toolkit", "11.1.1"),
            ("local/cudnn 8.0.5.39-1\n", "cudnn", "8.0.5.39"),
            (
                "cudatoolkit               10.2.89              hfd86e86_1\n",
                "cuda_runtime",
                "10.2.89",
            ),
            (
                "conda install pytorch torchvision cudatoolkit=10.2 -c pytorch\n",
                "cuda_runtime",
                "10.2",
            ),
            (
                "The current installed driver is `525.147.05` which is insufficient\n",
                "driver",
                "525.147.05",
            ),
            (
                "ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but\n       version 410.78 was detected and compatibility mode is UNAVAILABLE.\n",
                "driver",
                "410.78",
            ),
            (
                "ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but\n       version 410.78 was detected and compatibility mode is UNAVAILABLE.\n",
                "requirement_refused",
                "compatibility mode is UNAVAILABLE",
            ),
            (
                "exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --require=cuda>=10.0 brand=tesla,driver>=384,driver<385 --pid=6244]\n",
                "cuda_runtime",
                "10.0",
            ),
            (
                "nvidia-driver-latest-dkms-cuda-465.19.01-1.el7.x86_64\n",
                "driver",
                "465.19.01",
            ),
            (
                " - uname -a output: `Linux pop-os 6.18.7-76061807-generic #202601231045 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux`\n",
                "kernel",
                "6.18.7-76061807-generic",
            ),
            (
                "`5.14.0-427.13.1.el9_4.x86_64 #1 SMP PREEMPT_DYNAMIC Wed May 1 19:11:28 UTC 2024 x86_64`\n",
                "kernel",
                "5.14.0-427.13.1.el9_4",
            ),
            // The kernel DKMS builds for need not be the running one, but it is the one a
            // kernel × driver breakage concerns: read when nothing else names the kernel.
            (dkms, "driver", "535.161.08"),
            (dkms, "kernel", "6.1.0-21-amd64"),
            (
                "pciBusID: 0000:02:00.0 name: GeForce GTX 960M computeCapability: 5.0\n",
                "cc",
                "5.0",
            ),
            // TensorFlow 1.x's device line and the CUDA runtime it loads (major and minor up to
            // CUDA 10, the major alone from 11).
            (
                "name: Quadro K4200 major: 3 minor: 0 memoryClockRate(GHz): 0.784\n",
                "cc",
                "3.0",
            ),
            (
                "I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library libcudart.so.10.0\n",
                "cuda_runtime",
                "10.0",
            ),
            (
                "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0\n",
                "cuda_runtime",
                "",
            ),
            // SD.Next's device line.
            (
                "Device: device=NVIDIA GeForce RTX 5090 n=1 arch=sm_90 capability=(12, 0) cuda=12.6 cudnn=90501\n",
                "cudnn",
                "9.5.1",
            ),
            (
                "Device: device=NVIDIA GeForce RTX 4090 n=1 arch=sm_90 capability=(8, 9) cuda=12.1 cudnn=8902 driver=537.58\n",
                "cc",
                "8.9",
            ),
            (
                "Device: device=NVIDIA GeForce RTX 4090 n=1 arch=sm_90 capability=(8, 9) cuda=12.1 cudnn=8902 driver=537.58\n",
                "cuda_runtime",
                "12.1",
            ),
            // cuDF's versions as tuples, and conda's word on the driver.
            (
                "UserWarning: Using CUDA toolkit version (12, 3) with CUDA driver version (12, 2) requires minor version compatibility, which is not yet supported\n",
                "cuda_runtime",
                "12.3",
            ),
            (
                "UserWarning: Using CUDA toolkit version (12, 3) with CUDA driver version (12, 2) requires minor version compatibility, which is not yet supported\n",
                "driver_cuda",
                "12.2",
            ),
            (
                "Your installed CUDA driver is: 11.0\n",
                "driver_cuda",
                "11.0",
            ),
            // conda's nvcc package.
            (
                "cuda-nvcc                 12.6.20              hcdd1206_0    conda-forge\n",
                "cuda_toolkit",
                "12.6.20",
            ),
            (
                "- GPU: Nvidia Tesla V100-PCIE-32GB GPU .\n",
                "gpu",
                "Tesla V100-PCIE-32GB",
            ),
            (
                "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060 Laptop GPU\n",
                "gpu",
                "GeForce RTX 3060 Laptop GPU",
            ),
            (paddle, "cc", "8.6"),
            (paddle, "driver_cuda", "11.4"),
            (paddle, "cuda_runtime", "10.2"),
            (paddle, "cudnn", "8.2"),
            (mmcv, "cuda_toolkit", "11.0"),
            (mmcv, "cuda_runtime", "11.0"),
            (mmcv, "framework", "torch 1.7.0+cu110"),
            (
                "PyTorch version: 2.5.0.dev20240614+cu124\n",
                "framework",
                "torch 2.5.0.dev20240614+cu124",
            ),
            (
                "PyTorch version: 2.0.0a0+git7f2b5ea\n",
                "framework",
                "torch 2.0.0a0+git7f2b5ea",
            ),
            (sysinfo, "framework", "torch 2.2.0+cu121"),
            (sysinfo, "cuda_runtime", "12.1"),
            (sysinfo, "os", "Microsoft Windows 11 Pro"),
            (sysinfo, "python", "3.10.6"),
            ("### Kernel Version\n\n5.15.90.1\n", "kernel", "5.15.90.1"),
            (
                "CUDA toolchain:\n- runtime 13.1, artifact installation\n- driver 591.44.0 for 13.1\n",
                "cuda_runtime",
                "13.1",
            ),
            ("- driver 591.44.0 for 13.1\n", "driver_cuda", "13.1"),
            (
                "Building initial module for 6.1.0-21-amd64\n",
                "kernel",
                "6.1.0-21-amd64",
            ),
            (
                "Error: Unable to find a match: kernel-headers-4.18.0-240.23.2.el8_3.x86_64\n",
                "kernel",
                "4.18.0-240.23.2.el8_3",
            ),
            ("Release: 5.15.148-tegra\n", "kernel", "5.15.148-tegra"),
            (
                "Linux guest 5.19.0-rc6-snp-guest-c4daeffce56e\n",
                "kernel",
                "5.19.0-rc6-snp-guest-c4daeffce56e",
            ),
            (
                "- OS: Ubuntu 24.04, kernel 6.8.0-139\n",
                "kernel",
                "6.8.0-139",
            ),
            // `pip show`, and an expression with its output as a comment.
            ("Name: jax\nVersion: 0.6.1\n", "framework", "jax 0.6.1"),
            (
                "Name: tensorflow-gpu\nVersion: 1.1.0\n",
                "framework",
                "tensorflow 1.1.0",
            ),
            (
                "Name: nvidia-cudnn-cu12\nVersion: 8.9.2.26\n",
                "cudnn",
                "8.9.2.26",
            ),
            ("Name: numpy\nVersion: 1.26.0\n", "framework", ""),
            (
                "tf.__version__  # '2.15.0'\n",
                "framework",
                "tensorflow 2.15.0",
            ),
            // A CUDA in a Chinese sentence, written with a hyphen, or by nequip's list.
            (
                "win11,RTX5060, 使用cuda12.0，paddleocr==2.8.0\n",
                "cuda_toolkit",
                "12.0",
            ),
            ("重新安装了cuda 10.2 cudnn 7.6.5\n", "cudnn", "7.6.5"),
            (
                "I have installed Cuda-10.2. however\n",
                "cuda_toolkit",
                "10.2",
            ),
            (
                "   -  cuda Version according to nvcc 10.2\n",
                "cuda_toolkit",
                "10.2",
            ),
            (
                "   -  cuda version according to PyTorch 11.7\n",
                "cuda_runtime",
                "11.7",
            ),
            // GPUs written without their family, or in capitals.
            ("GPU is a GT 1030.\n", "gpu", "GT 1030"),
            ("GPU is a GT 1030.\n", "cc", "6.1"),
            (
                "I use an Nvidia GeForce GT730 card.\n",
                "gpu",
                "GeForce GT730",
            ),
            ("Cards: K80\n", "gpu", "K80"),
            ("I am using 2080 Ti right now.\n", "cc", "7.5"),
            (
                "the closed drivers no longer support the 1070 card\n",
                "cc",
                "6.1",
            ),
            ("Running it on 2x 3090 GPUs.\n", "gpu", "3090"),
            ("my new 5090 card wasn't found\n", "cc", "12.0"),
            (
                "specifically, Nvidia A5000. Here is my setting\n",
                "gpu",
                "A5000",
            ),
            ("I have an old K2000 in my desktop PC\n", "cc", "3.0"),
            ("Can't use GPU on TX2.\n", "cc", "6.2"),
            ("Nvidia 2070 Super\n", "gpu", "2070 Super"),
            ("安装了两张显卡Nvidia 2070s，Nvidia 3090。\n", "cc", "7.5"),
            ("NVIDIA QUADRO P620 / 4096 MB\n", "cc", "6.1"),
            (
                "deploy on `GPU 0: NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition`\n",
                "gpu",
                "RTX PRO 6000 Blackwell Max-Q Workstation Edition",
            ),
            // What DKMS builds for gives way to the running kernel.
            (
                "Building for 6.8.0-50-generic\nLinux gpu1 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n",
                "kernel",
                "6.8.0-45-generic",
            ),
            (
                "OpenGL version string: 4.6.0 NVIDIA 465.31\n",
                "driver",
                "465.31",
            ),
            (
                "the High performance GPU NVIDIA GeForce 930MX\n",
                "gpu",
                "GeForce 930MX",
            ),
            (
                "- 系统环境/System Environment： Windows11\n",
                "os",
                "Windows11",
            ),
            (
                "### What jax/jaxlib version are you using?\n\njax 0.4.3/jaxlib 0.4.3\n",
                "framework",
                "jax 0.4.3",
            ),
            (conda, "framework", "torch 1.7.1"),
            (conda, "cudnn", "7.6.5"),
            (conda, "cuda_runtime", "10.2.89"),
            (nix, "driver", "460.73.01"),
            (nix, "kernel_module", "470.57.02"),
            (nix, "kernel", "5.13.18"),
            (prose, "framework", "torch 2.6.0.dev20241112+cu121"),
            (prose, "gpu", "GeForce RTX 5070 Ti"),
            (bold, "driver", "535.288.01"),
            (bold, "gpu", "Tesla V100-SXM2-16GB"),
            (bold, "python", "3.12.3"),
            (
                "a V100 and driver 390.87 with nvidia/cuda:10.0-devel-ubuntu18.04\n",
                "driver",
                "390.87",
            ),
            (
                "a V100 and driver 390.87 with nvidia/cuda:10.0-devel-ubuntu18.04\n",
                "cuda_runtime",
                "10.0",
            ),
            // The same version printed more fully later is kept fully.
            (
                "NVML library version: 575.64\nlibnvidia-ml-575.64.03-1.el9.x86_64\n",
                "driver",
                "575.64.03",
            ),
            (
                "Python 3.9.18 (main, Sep 11 2023, 13:41:44)\n",
                "python",
                "3.9.18",
            ),
            ("Python 3.8.5\n", "python", "3.8.5"),
            ("python3.6.2\ntorch1.3.0\n", "python", "3.6.2"),
            ("python3.6.2\ntorch1.3.0\n", "framework", "torch 1.3.0"),
            ("  pytorch: 1.7.0\n", "framework", "torch 1.7.0"),
            // A compiler's banner names no OS release; a sentence can.
            ("gcc (Ubuntu 11.2.0-19ubuntu1) 11.2.0\n", "os", ""),
            (
                "a server running ubuntu server 22.04 with\n",
                "os",
                "ubuntu server 22.04",
            ),
            (detectron2, "python", "3.7.7"),
            (detectron2, "framework", "torch 1.6.0"),
            (detectron2, "gpu", "GeForce GTX 1070"),
            (detectron2, "cc", "6.1"),
            (detectron2, "cuda_toolkit", "9.2"),
            (
                "             ('cuda_version', '11.2'),\n             ('cudnn_version', '8'),\n",
                "cuda_runtime",
                "11.2",
            ),
            (
                "StreamExecutor device (0): NVIDIA A30, Compute Capability 8.0\n",
                "gpu",
                "A30",
            ),
            (extension, "cuda_runtime", "11.8"),
            (extension, "cuda_toolkit", "12.1"),
            (bare_list, "cuda_toolkit", "10.1.105"),
            (bare_list, "cudnn", "7.6.4"),
            (bare_list, "os", "Windows 10 Pro"),
            ("GeForce GTX 1080 Ti\n", "gpu", "GeForce GTX 1080 Ti"),
            // Package lists of every kind.
            (
                "nvidia-container-toolkit/unknown,now 1.14.6-1 amd64 [installed]\n",
                "container_toolkit",
                "1.14.6",
            ),
            (
                "ii  libnccl2   2.21.5-1+cuda12.4   amd64   NVIDIA Collective Communication Library\n",
                "nccl",
                "2.21.5",
            ),
            (
                "libcudnn8-8.9.7.29-1.cuda12.2.x86_64\n",
                "cudnn",
                "8.9.7.29",
            ),
            (
                "nvidia-fabric-manager.x86_64     535.161.08-1    @cuda-rhel9-x86_64\n",
                "fabric_manager",
                "535.161.08",
            ),
            (
                "i+ | nvidia-compute-G06    | package | 550.78-lp155.1   | x86_64 | NVIDIA\n",
                "driver",
                "550.78",
            ),
            (
                "cuda-nvcc-12-2-12.2.140-1.x86_64\ncuda-toolkit-12-2-12.2.2-1.x86_64\n",
                "cuda_toolkit",
                "12.2.140",
            ),
            (
                "ii  cuda-toolkit-12-4   12.4.1-1   amd64\n",
                "cuda_toolkit",
                "12.4.1",
            ),
            // A transitional package left at an older version points to the real one.
            (
                "ii  nvidia-utils-455:amd64  460.91.03-0ubuntu0.20.04.1  amd64  Transitional package for nvidia-utils-460\nii  nvidia-utils-470  470.103.01-0ubuntu0.20.04.1 amd64  NVIDIA driver support binaries\n",
                "driver",
                "470.103.01",
            ),
            // Tools' own version lines.
            ("cli-version: 1.16.1\n", "container_toolkit", "1.16.1"),
            ("- NVCC: V7.5.17\n", "cuda_toolkit", "7.5.17"),
            (
                "NVIDIA Container Runtime version 1.13.5\n",
                "container_toolkit",
                "1.13.5",
            ),
            (
                "jax v0.4.11, jaxlib v0.4.11.dev20230517+cuda11.cudnn86\n",
                "framework",
                "jax 0.4.11",
            ),
            (
                "[07/25/2025 14:49:00][larry][0]:Device name=NVIDIA RTX PRO 6000 Blackwell Workstation Edition, global memory size=101983125504\n",
                "gpu",
                "RTX PRO 6000 Blackwell Workstation Edition",
            ),
            (
                "NVIDIA Container Toolkit CLI version 1.17.8\n",
                "container_toolkit",
                "1.17.8",
            ),
            (
                "[INFO] [tid 1803] Fabric Manager version 535.161.08 is running\n",
                "fabric_manager",
                "535.161.08",
            ),
            (
                "  CUDA Driver Version / Runtime Version          12.2 / 12.1\n",
                "cuda_runtime",
                "12.1",
            ),
            (
                "Operating System: Debian GNU/Linux 12 (bookworm)\n",
                "os",
                "Debian GNU/Linux 12 (bookworm)",
            ),
            (
                "          Kernel: Linux 6.1.0-21-amd64\n",
                "kernel",
                "6.1.0-21-amd64",
            ),
            (
                "4.18.0-513.18.1.el8_9.x86_64\n",
                "kernel",
                "4.18.0-513.18.1.el8_9.x86_64",
            ),
            ("5.15.148-tegra\n", "kernel", "5.15.148-tegra"),
            (
                "- Platform: Linux-6.5.0-1025-azure-x86_64-with-glibc2.35\n",
                "kernel",
                "6.5.0-1025-azure",
            ),
            (
                "| 0      | Name: NVIDIA H100 80GB HBM3                                          |\n",
                "gpu",
                "H100 80GB HBM3",
            ),
            // CSV with its header.
            (
                "name, compute_cap, driver_version\nNVIDIA GeForce RTX 4070 Laptop GPU, 8.9, 560.94\n",
                "driver",
                "560.94",
            ),
            (
                "NVRM version,CUDA version\n550.54.15,12.4\n",
                "driver_cuda",
                "12.4",
            ),
            // conda list's rows and build strings.
            (
                "python                    3.10.14              h955ad1f_1\n",
                "python",
                "3.10.14",
            ),
            (
                "pytorch                   2.3.1           cuda120_py311hf6aebf2_300    conda-forge\n",
                "cuda_runtime",
                "12.0",
            ),
            (
                "pytorch                   2.2.1           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n",
                "cudnn",
                "8.9.2",
            ),
            (
                "pytorch                   1.4.0           py3.7_cuda10.1.243_cudnn7.6.3_0    pytorch\n",
                "cuda_runtime",
                "10.1.243",
            ),
            (
                "- **NVIDIA Driver:** Studio 595.79 (Mar 10, 2026)\n",
                "driver",
                "595.79",
            ),
            (
                "- **CUDA Toolkit (in container):** 13.0\n",
                "cuda_toolkit",
                "13.0",
            ),
            (
                "Welcome to Ubuntu 25.04 (GNU/Linux 6.14.0-35-generic x86_64)\n",
                "kernel",
                "6.14.0-35-generic",
            ),
            (
                "Ubuntu 22.04.1 LTS (GNU/Linux 5.16.10 x86_64)\n",
                "kernel",
                "5.16.10",
            ),
            ("kernel version 4.9.0\n", "kernel", "4.9.0"),
            (
                "Debian 12 on kernel 6.1.0-21-amd64, driver 535\n",
                "kernel",
                "6.1.0-21-amd64",
            ),
            (
                "6.14.0-33-generic 33~24.04.1-Ubuntu SMP PREEMPT_DYNAMIC Fri Sep 19 17:02:30 UTC 2 x86_64 x86_64 x86_64 GNU/Linux\n",
                "kernel",
                "6.14.0-33-generic",
            ),
            (
                "Python 3.11.3, Debian 11, 5.10.0-23-amd64\n",
                "kernel",
                "5.10.0-23-amd64",
            ),
            ("GPU:3090\n", "gpu", "3090"),
            (
                "dkms-nvidia304-304.121-1-omv2014.1.i586\n",
                "driver",
                "304.121",
            ),
            (
                "x11-driver-video-nvidia-current-470.86-1.mga8.x86_64\n",
                "driver",
                "470.86",
            ),
            (
                "* OS/.deb package nvidia-compute-utils-530 version 530.30.02-0ubuntu1\n",
                "driver",
                "530.30.02",
            ),
            ("GPU: GeForce RTX 5090 gb202\n", "gpu", "GeForce RTX 5090"),
            // A letter of more than one byte where the vendor's name would end: no panic.
            ("GPU: Nvidiaé 3090\n", "gpu", "Nvidiaé 3090"),
            ("GPU A100\n", "gpu", "A100"),
            ("GPUs: 8x H100\n", "gpu", "H100"),
            ("GPU 0000:01:00.0\n", "gpu", ""),
            // cuDNN's version code in TensorFlow's and XLA's logs, and PyTorch's build settings.
            (
                "I0000 cuda_dnn.cc:529] Loaded cuDNN version 90300\n",
                "cudnn",
                "9.3.0",
            ),
            (
                "  - Build settings: CUDA_VERSION=12.1, CUDNN_VERSION=9.1.0, TORCH_VERSION=2.4.0, USE_CUDNN=ON\n",
                "framework",
                "torch 2.4.0",
            ),
            (
                "time=2025-10-15T21:49:50.104Z level=INFO source=types.go:112 msg=\"inference compute\" id=GPU-0e6f library=CUDA compute=12.0 name=CUDA0 description=\"NVIDIA GeForce RTX 5070 Ti\" driver=13.0 pci_id=0000:01:00.0\n",
                "driver_cuda",
                "13.0",
            ),
            // pip, conda env export and a Python session.
            ("tensorflow==2.15.1\n", "framework", "tensorflow 2.15.1"),
            (
                "I'm using Python 3.11.3 on Ubuntu 22.04.2 amd64\n",
                "python",
                "3.11.3",
            ),
            (
                "Fresh Windows 10, Epyc 7601 with 512GB RAM\n",
                "os",
                "Windows 10",
            ),
            (
                "Linux version 5.4.91-microsoft-standard-WSL2 (oe-user@oe-host) (gcc version 9.3.0 (GCC)) #1 SMP Mon Jan 25 18:39:31 UTC 2021\n",
                "kernel",
                "5.4.91-microsoft-standard-WSL2",
            ),
            (
                "Microsoft Windows [Version 10.0.21343.1000]\n",
                "os",
                "Microsoft Windows [Version 10.0.21343.1000]",
            ),
            (
                "Starting installation of NVIDIA driver version 450.80.02 for Linux kernel version 5.4.0-1034-aws\n",
                "kernel",
                "5.4.0-1034-aws",
            ),
            (
                "sudo sh cuda_12.8.1_570.124.06_linux.run\n",
                "driver",
                "570.124.06",
            ),
            (
                "OS:Ubuntu 20.04；Nvidia Graphics：1080；Nvidia driver version：NVIDIA-Linux-x86_64-450.80.02(update 2020-12-11)\n",
                "os",
                "Ubuntu 20.04",
            ),
            (
                "sudo sh NVIDIA-Linux-x86_64-535.129.03.run --dkms\n",
                "driver",
                "535.129.03",
            ),
            ("cuDNN Version                : 8600\n", "cudnn", "8.6.0"),
            ("jaxlib==0.1.61+cuda111\n", "cuda_runtime", "11.1"),
            ("jaxlib==0.4.13+cuda11.cudnn86\n", "cuda_runtime", "11"),
            ("jaxlib==0.4.13+cuda11.cudnn86\n", "cudnn", "8.6"),
            ("jaxlib==0.1.57+cuda110.cudnn805\n", "cudnn", "8.0.5"),
            (
                "* nvidia-container-cli version: 1.2.0\n",
                "container_toolkit",
                "1.2.0",
            ),
            (
                "nvidia-ctk 1.13.3 commit: c5a93b8d7063a8b1a04872a4e46d449e788ca4de\n",
                "container_toolkit",
                "1.13.3",
            ),
            ("  hardware.nvidia.open = true;\n", "driver_flavor", "open"),
            (
                "2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. Falling back to CPU mode. Compute Capability detected: 5.2\n",
                "cc",
                "5.2",
            ),
            (
                "W0726 14:31:17.682821 212581 gpu_resources.cc:96] **The GPU architecture in your current machine is Pascal, which is not compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to install the corresponding wheel package according to the installation information on the official Paddle website.\n",
                "arch_list",
                "sm_70 sm_75 sm_80 sm_86",
            ),
            (
                "NVRM: supported through the NVIDIA 470.xx Legacy drivers.\n",
                "legacy_branch",
                "470",
            ),
            (
                "the message in dmesg: \"The NVIDIA GeForce GT 710M installed in this system is supported through the NVIDA 390.xx Legacy drivers\"\n",
                "legacy_branch",
                "390",
            ),
            (
                "ERROR: ../rtSafe/cuda/caskUtils.cpp (80) - Assertion Error in trtSmToCask: 0 (Unsupported SM.)\n",
                "arch_refused",
                "(Unsupported SM.)",
            ),
            (
                "The detected CUDA version (12.9) mismatches the version that was used to compile\n",
                "cuda_toolkit",
                "12.9",
            ),
            ("gpu_cudnn:         7.3.1\n", "cudnn", "7.3.1"),
            ("Operating System: Version: win10\n", "os", "win10"),
            ("cudatoolkit==10.2.89\n", "cuda_runtime", "10.2.89"),
            ("Ubuntu: 22.04 LTS\n", "os", "Ubuntu 22.04 LTS"),
            ("- **Pop!_OS Version**: 24.04.\n", "os", "Pop!_OS 24.04"),
            (
                "- CUDA Version (from nvidia-smi): 13.0 - cuDNN Version: 8.9.7\n",
                "driver_cuda",
                "13.0",
            ),
            (
                "Error: This version of CUDA.jl only supports NVIDIA drivers for CUDA 11.x or 12.x (yours is for CUDA 13.0.0)\n",
                "driver_cuda",
                "13.0.0",
            ),
            ("pytorch 0.4.1_cuda9.2_cudnn7.1.4\n", "cuda_runtime", "9.2"),
            (
                "[conda] cudatoolkit               11.3.1               h2bc3f7f_2    defaults\n",
                "cuda_runtime",
                "11.3.1",
            ),
            (
                "NVIDIA Container Runtime Hook version 1.13.3\n",
                "container_toolkit",
                "1.13.3",
            ),
            (
                "golang-github-nvidia-container-toolkit-1.16.2-1.fc41.x86_64\n",
                "container_toolkit",
                "1.16.2",
            ),
            (
                "Docker version 20.10.4 and container-toolkit version 1.11.0 are installed\n",
                "container_toolkit",
                "1.11.0",
            ),
            (
                "- Driver: 595.91.07 (open kernel modules), CUDA 13.2\n",
                "driver_flavor",
                "open",
            ),
            (
                "With 580.173.02's **proprietary** modules the GPU is found\n",
                "driver_flavor",
                "proprietary",
            ),
            ("NVIDIA A100-PCIE-40GB 1gpu\n", "gpu", "A100-PCIE-40GB"),
            ("GPU: Tesla T4 2 gpus\n", "gpu", "Tesla T4"),
            (
                "CentOS Linux release 7.8.2003 (Core)\n",
                "os",
                "CentOS Linux release 7.8.2003",
            ),
            ("- **CUDA/cuDNN version**: 9.0 / 7\n", "cudnn", "7"),
            // Sentences and loose lists, read when nothing else names the field.
            (
                "Hi, when acemd3 launched on NVidia A100 GPU:\n",
                "gpu",
                "A100",
            ),
            ("I use NVIDIA A100-40G with cuda11.1.\n", "gpu", "A100-40G"),
            (
                "- **CPU & GPU Model**: E3-1230 v5, Nvidia T600\n",
                "gpu",
                "T600",
            ),
            (
                "I have NVIDIA Quadro FX 1800M with latest driver installed\n",
                "gpu",
                "Quadro FX 1800M",
            ),
            (
                "I just installed a 3090, NVIDIA 455.23.04 and installed PyTorch nightly\n",
                "driver",
                "455.23.04",
            ),
            ("- nvidia-390.138\n", "driver", "390.138"),
            (
                "3. Install 570.144 drivers via DoFlicky\n",
                "driver",
                "570.144",
            ),
            (
                "With 580.173.02's **proprietary** modules the GPU is found\n",
                "driver",
                "580.173.02",
            ),
            (
                "cuda版本为11.2，cudnn版本为8.2.0，飞浆版本为2.0.1\n",
                "cuda_toolkit",
                "11.2",
            ),
            (
                "cuda版本为11.2，cudnn版本为8.2.0，飞浆版本为2.0.1\n",
                "cudnn",
                "8.2.0",
            ),
            (
                "cuda版本为11.2，cudnn版本为8.2.0，飞浆版本为2.0.1\n",
                "framework",
                "paddlepaddle 2.0.1",
            ),
            (
                "I've installed Nvidia Cuda Toolkit 11.2.1 and cuDNN v8.1.1.33.\n",
                "cuda_toolkit",
                "11.2.1",
            ),
            (
                "I've installed Nvidia Cuda Toolkit 11.2.1 and cuDNN v8.1.1.33.\n",
                "cudnn",
                "8.1.1.33",
            ),
            (
                "环境： cuda 9.2 nvidia driver: 396.26\n",
                "driver",
                "396.26",
            ),
            (
                "环境： cuda 9.2 nvidia driver: 396.26\n",
                "cuda_toolkit",
                "9.2",
            ),
            ("tensorflow 1.9.0 works\n", "framework", "tensorflow 1.9.0"),
            (
                "安装了paddle-gpu2.3.0+cuda10.2版本\n",
                "framework",
                "paddlepaddle 2.3.0",
            ),
            (
                "安装了paddle-gpu2.3.0+cuda10.2版本\n",
                "cuda_runtime",
                "10.2",
            ),
            ("在ubuntu18.04上运行\n", "os", "ubuntu18.04"),
            (
                "| NVIDIA-SMI 610.43.03              KMD Version: 610.43.03     CUDA UMD Version: 13.3     |\n",
                "driver_cuda",
                "13.3",
            ),
            (
                "| NVIDIA-SMI 610.43.03              KMD Version: 610.43.03     CUDA UMD Version: 13.3     |\n",
                "driver",
                "610.43.03",
            ),
            ("CUDA API (CUDA 13.0)\n", "driver_cuda", "13.0"),
            (
                "E0628 11:38:05.609311 27896 gpu_resources.cc:98] Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 75 80 86 89 ,but your current GPU is 120 Solution: Install the correct wheel package\n",
                "cc",
                "12.0",
            ),
            (
                "E0628 11:38:05.609311 27896 gpu_resources.cc:98] Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 75 80 86 89 ,but your current GPU is 120 Solution: Install the correct wheel package\n",
                "arch_list",
                "sm_75 sm_80 sm_86 sm_89",
            ),
            ("**TensorRT Version**: 7.1.3.4\n", "tensorrt", "7.1.3.4"),
            ("GPU Type: RTX4070\n", "gpu", "RTX4070"),
            ("**GPU Type**: 3080\n", "gpu", "3080"),
            ("gpu_cuda:          9.1\n", "cuda_toolkit", "9.1"),
            ("py_version:        3.6.8\n", "python", "3.6.8"),
            (
                "gpu_devices:       GPU_0: GeForce GTX 1060 6GB\n",
                "gpu",
                "GeForce GTX 1060 6GB",
            ),
            (
                "    Could not start backend: Runtime compute cap 70 is not compatible with compile time compute cap 80\n",
                "cc",
                "7.0",
            ),
            (
                "O^O/ \\_/ \\    Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4. Triton: 3.1.0\n",
                "cc",
                "6.1",
            ),
            (
                "O^O/ \\_/ \\    Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4. Triton: 3.1.0\n",
                "cuda_runtime",
                "12.4",
            ),
            (
                "==((====))==  Unsloth 2025.3.9: Fast Qwen2 patching. Transformers: 4.49.0. vLLM: 0.7.3.\n",
                "vllm",
                "0.7.3",
            ),
            (
                "PyTorch (11.8). Please make sure to use the same CUDA versions.\n",
                "cuda_runtime",
                "11.8",
            ),
            // A full-width colon, as a Chinese input method types it.
            ("pytorch：1.10\n", "framework", "torch 1.10"),
            ("* cudnn版本：7.6.5\n", "cudnn", "7.6.5"),
            (
                "hardware.nvidia.open = false;\n",
                "driver_flavor",
                "proprietary",
            ),
            (
                "I0000 00:00:1733823517.204411   81523 gpu_device.cc:2022] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 78910 MB memory:  -> device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:18:00.0, compute capability: 9.0\n",
                "gpu",
                "H100 80GB HBM3",
            ),
            ("\t- torch:             2.2.1\n", "framework", "torch 2.2.1"),
            ("- Torch: 2.3.1\n", "framework", "torch 2.3.1"),
            (
                "\t- release:           5.15.0-1055-aws\n",
                "kernel",
                "5.15.0-1055-aws",
            ),
            (
                "                                    | Kernel       : 5.15.0-136-generic\n",
                "kernel",
                "5.15.0-136-generic",
            ),
            (
                "NVIDIA GPU Details                  | NVIDIA H100 80GB HBM3, 570.133.20, 81559 MiB, 96.00.99.00.01, 00000000:18:00.0, 1654922014567\n",
                "gpu",
                "H100 80GB HBM3",
            ),
            (
                "nvidia, 470.199.02, 5.4.0-150-generic, x86_64: installed\n",
                "driver",
                "470.199.02",
            ),
            ("full_version: 2.5.2\n", "framework", "paddlepaddle 2.5.2"),
            (
                "NAME=\"Red Hat Enterprise Linux\"\nVERSION=\"8.9 (Ootpa)\"\n",
                "os",
                "Red Hat Enterprise Linux 8.9 (Ootpa)",
            ),
            ("flash-attn==2.6.0.post1\n", "flash_attn", "2.6.0"),
            ("flash_attn                2.5.8\n", "flash_attn", "2.5.8"),
            ("[pip3] flash-attn==2.6.3\n", "flash_attn", "2.6.3"),
            ("vllm==0.7.3\n", "vllm", "0.7.3"),
            ("vLLM Version: 0.6.3.post1\n", "vllm", "0.6.3"),
            ("vLLM Version                 : 0.9.1\n", "vllm", "0.9.1"),
            (
                "INFO 08-01 vLLM API server version 0.5.3.post1\n",
                "vllm",
                "0.5.3",
            ),
            (
                "docker run --gpus all vllm/vllm-openai:v0.7.3 --model x\n",
                "vllm",
                "0.7.3",
            ),
            ("ollama version is 0.1.17\n", "ollama", "0.1.17"),
            (
                "time=2024-06-01T10:00:00.000Z level=INFO source=routes.go:1054 msg=\"Listening on 127.0.0.1:11434 (version 0.1.41)\"\n",
                "ollama",
                "0.1.41",
            ),
            (
                "jax                      0.4.30\n",
                "framework",
                "jax 0.4.30",
            ),
            ("nvidia-nccl-cu12==2.16.5\n", "nccl", "2.16.5"),
            (
                "  - pytorch=2.0.1=py3.9_cuda11.8_cudnn8.7.0_0\n",
                "cudnn",
                "8.7.0",
            ),
            (
                ">>> torch.__version__\n'2.1.0+cu118'\n",
                "framework",
                "torch 2.1.0+cu118",
            ),
            (
                ">>> torch.backends.cudnn.version()\n8700\n",
                "cudnn",
                "8.7.0",
            ),
            (
                ">>> torch.cuda.nccl.version()\n(2, 18, 1)\n",
                "nccl",
                "2.18.1",
            ),
            (
                "In [2]: torch.cuda.get_device_capability(0)\nOut[2]: (8, 9)\n",
                "cc",
                "8.9",
            ),
            // nvidia-smi -L's UUID is not part of the name.
            (
                "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-c3832820-5d0a)\n",
                "gpu",
                "GeForce RTX 3090",
            ),
            // nvidia-smi's cut name, on Linux and under Windows' driver model.
            (
                "|   0  Tesla P100-PCIE...  Off  | 00000000:00:07.0 Off |                    0 |\n",
                "gpu",
                "Tesla P100-PCIE...",
            ),
            (
                "|   0  GeForce GTX 105... WDDM  | 00000000:01:00.0 Off |                  N/A |\n",
                "gpu",
                "GeForce GTX 105...",
            ),
            // A name cut before its number still names the brand (`GeForce GTX TIT...`).
            (
                "|   0  GeForce GTX TIT...  Off  | 0000:02:00.0     N/A |                  N/A |\n",
                "gpu",
                "GeForce GTX TIT...",
            ),
            (
                "|   0  NVIDIA GeForce ...  Off  | 00000000:08:00.0 Off |                  N/A |\n",
                "gpu",
                "GeForce ...",
            ),
            (
                "Device 0: NVIDIA H100 80GB HBM3 (00000000:1b:00)\n",
                "gpu",
                "H100 80GB HBM3",
            ),
            (
                "GPU is GP104BM [GeForce GTX 1070 Mobile]\n",
                "gpu",
                "GeForce GTX 1070 Mobile",
            ),
            (
                "pciBusID: 0000:0a:00.0 name: GeForce GTX 1080 Ti computeCapability: 6.1\n",
                "gpu",
                "GeForce GTX 1080 Ti",
            ),
            ("GPU 0                  TITAN RTX\n", "gpu", "TITAN RTX"),
            // Names as people write them, and names without a digit.
            ("RTX2060\n", "gpu", "RTX2060"),
            ("- 2xRTX 5000 16GB with nvlink\n", "gpu", "RTX 5000"),
            ("- nVidia GT 720M\n", "gpu", "GT 720M"),
            // A mobile part is itself, written with its M together or apart; the Maxwell GTX
            // TITAN X keeps its series; a copy that lost its first letter still names a GPU.
            // An OS written together with its release, or Debian by its codename.
            ("centos7\n", "os", "centos7"),
            ("- Host Debian buster\n", "os", "Debian buster"),
            ("arch linux (latest)\n", "os", "arch linux"),
            ("ubuntu18.04, cuda 10.2\n", "os", "ubuntu18.04"),
            // WSL's form: the distribution the programs run in, not the Windows hosting it.
            (
                "### Version\n\nMicrosoft Windows [Version 10.0.22000.318]\n\n### Distro Version\n\nUbuntu 20.04\n",
                "os",
                "Ubuntu 20.04",
            ),
            // cuDNN's archive by name, and a build string's cuDNN.
            (
                "CUDNN Version: cudnn-11.0-windows-x64-v8.0.4.30\n",
                "cudnn",
                "8.0.4.30",
            ),
            (
                "tar xf cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz\n",
                "cudnn",
                "8.9.7.29",
            ),
            ("pytorch 0.4.1_cuda9.2_cudnn7.1.4\n", "cudnn", "7.1.4"),
            // The driver named in a sentence; a bound is none.
            (
                "a machine with a NVIDIA graphics driver of 535.129.03. The host\n",
                "driver",
                "535.129.03",
            ),
            (
                "Installed the latest NVIDIA drivers (version: 576.57)\n",
                "driver",
                "576.57",
            ),
            // PyTorch named in a sentence or a loose list.
            (
                "Using pytorch version 1.0.0 on python 3.6.8\n",
                "framework",
                "torch 1.0.0",
            ),
            (
                "cuda10.1 torch1.4.0 torchvision0.5.0\n",
                "framework",
                "torch 1.4.0",
            ),
            (
                "pytorch 0.4.1_cuda9.2_cudnn7.1.4\n",
                "framework",
                "torch 0.4.1",
            ),
            (
                "gtx3090，cuda=11.0，pytorch=1.7的环境下\n",
                "framework",
                "torch 1.7",
            ),
            (
                "2. Pytorch: ver 1.9, with cuda 11.1\n",
                "framework",
                "torch 1.9",
            ),
            // Python named as people and tools write it.
            ("python3.8\n", "python", "3.8"),
            ("- Python version 3.10\n", "python", "3.10"),
            ("python版本是3.7\n", "python", "3.7"),
            ("1. Python: ver 3.9\n", "python", "3.9"),
            ("PYTHON_VERSION=3.10.12\n", "python", "3.10.12"),
            (
                "Using pytorch version 1.0.0 on python 3.6.8 on a machine\n",
                "python",
                "3.6.8",
            ),
            ("Nvidia GTX 860 M \n", "gpu", "GTX 860M"),
            ("on a GTX 980M laptop\n", "gpu", "GTX 980M"),
            ("an RTX 3080 M.2 SSD\n", "gpu", "RTX 3080"),
            ("I'm using GTX TITAN X GPU (12GB).\n", "gpu", "GTX TITAN X"),
            (
                "VIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n",
                "gpu",
                "GeForce RTX 5090",
            ),
            // Typed in lower case, or with "TI" in capitals.
            ("GPU gtx 1070\n", "gpu", "gtx 1070"),
            ("### GPU Name\n\nRTX5070TI\n", "gpu", "RTX5070TI"),
            (
                "It allocates a Tesla P100, but the kernel fails\n",
                "gpu",
                "Tesla P100",
            ),
            (
                "My hardware is: NVIDIA TITAN X (Pascal) GPU, driver 535.230.02\n",
                "gpu",
                "TITAN X (Pascal)",
            ),
            (
                "- **GPU model and memory**: Nvidia GeForce GTX TITAN X\n",
                "gpu",
                "GeForce GTX TITAN X",
            ),
            ("- **GPU**: NVIDIA Orin (nvgpu)\n", "gpu", "Orin (nvgpu)"),
            (
                "Compilation Failure Ubuntu 16.04, CUDA 7.5, CuDNN 5.1 running a Titan X (Pascal)\n",
                "gpu",
                "Titan X (Pascal)",
            ),
            // The memory after the name, and PyTorch's warning quoted in a sentence.
            (
                "NVIDIA GeForce RTX 3090 with 24G\n",
                "gpu",
                "GeForce RTX 3090",
            ),
            (
                "facing issue like NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n",
                "gpu",
                "GeForce RTX 5080",
            ),
            // A tool's printing of the name stands over a person's, and the whole over the cut.
            (
                "GPU:RTX 4090D\n|   0  NVIDIA GeForce RTX 4090 D    WDDM  |   00000000:08:00.0 Off |                  Off |\n",
                "gpu",
                "GeForce RTX 4090 D",
            ),
            (
                "|   0  GeForce GTX 108... WDDM  | 00000000:01:00.0 Off |                  N/A |\nGeForce GTX 1080 Ti\n",
                "gpu",
                "GeForce GTX 1080 Ti",
            ),
            ("Python ver:3.11.5\n", "python", "3.11.5"),
            ("python version: 3.7\n", "python", "3.7"),
            (
                "I gpu_device.cc:611] Ignoring gpu device (device: 0, name: GRID K520, pci bus id: 0000:00:03.0) with Cuda compute capability 3.0.\n",
                "gpu",
                "GRID K520",
            ),
            (
                "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 7.5, CUDA Runtime Version = 7.5, NumDevs = 4, Device0 = GRID K520, Device1 = GRID K520\n",
                "gpu",
                "GRID K520",
            ),
            (
                "Active GPU name: GeForce GTX 1650 with Max-Q Design\n",
                "gpu",
                "GeForce GTX 1650 with Max-Q Design",
            ),
            (
                "CUDA CUDA Driver Version: 7.5.20\n",
                "driver_cuda",
                "7.5.20",
            ),
            (
                "CUDA toolkit 10.2.89, artifact installation\nCUDA driver 11.0.0\n",
                "cuda_runtime",
                "10.2.89",
            ),
            (
                "CUDA runtime 12.2, artifact installation\nCUDA driver 12.3\n",
                "driver_cuda",
                "12.3",
            ),
            ("NVIDIA driver 545.29.6\n", "driver", "545.29.6"),
            (
                "cudnnGetVersion() : 7402 , CUDNN_VERSION from cudnn.h : 7402 (7.4.2)\n",
                "cudnn",
                "7.4.2",
            ),
            ("* NVIDIA: 390.25\n", "driver", "390.25"),
            (
                "Nvidia Driver: v550.78 (Quadro RTX 4000)\n",
                "driver",
                "550.78",
            ),
            (
                "- PyTorch version (GPU?): 1.12.1 (True)\n",
                "framework",
                "torch 1.12.1",
            ),
            (" - CUDA Arch BIN: 8.7\n", "cc", "8.7"),
            (" - Release: 5.10.192-tegra\n", "kernel", "5.10.192-tegra"),
            (
                "Installed CUDA version 11.8 does not match the version torch was compiled with 11.7 but since the APIs are compatible, accepting this combination\n",
                "cuda_runtime",
                "11.7",
            ),
            (
                "Installed CUDA version 11.8 does not match the version torch was compiled with 11.7\n",
                "cuda_toolkit",
                "11.8",
            ),
            (
                "$ nvidia-container-cli -V\nversion: 1.3.1\nbuild date: 2020-12-14T14:18+0000\n",
                "container_toolkit",
                "1.3.1",
            ),
            (
                "I got a card Nvidia GT 630\n * GPU #0       PCI:0000:01:00 GeForce GT 630 @ 1620/650 MHz\n",
                "gpu",
                "GeForce GT 630",
            ),
            ("cudnn ver: 7.6.5\n", "cudnn", "7.6.5"),
            (
                "### TensorFlow version\n\n2.15.1\n",
                "framework",
                "tensorflow 2.15.1",
            ),
            (
                "    Found GPU0 GeForce GTX 670M which is of cuda capability 2.1.\n    PyTorch no longer supports this GPU because it is too old.\n",
                "arch_refused",
                "PyTorch no longer supports this GPU because it is too old",
            ),
            (
                "print(torch.cuda.get_device_name(0))\n# 'TITAN X (Pascal)'\n",
                "gpu",
                "TITAN X (Pascal)",
            ),
            (
                "print(torch.cuda.get_device_capability(0))\n# (6, 1)\n",
                "cc",
                "6.1",
            ),
            (
                "W asm_compiler.cc:230] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.6\n",
                "cc",
                "8.6",
            ),
            (
                "-- Autodetected CUDA architecture(s): 2.1(2.0)\n",
                "cc",
                "2.1",
            ),
            (
                "- Accelerator: NVIDIA A100-SXM4-40GB, 40960 MiB\n",
                "gpu",
                "A100-SXM4-40GB",
            ),
            (
                "\tpyTorch_version:     1.4.0+cu100\n",
                "framework",
                "torch 1.4.0+cu100",
            ),
            (
                "CUDA Driver Version                           : 11.5\n",
                "driver_cuda",
                "11.5",
            ),
            ("CUDA Version (nvidia-smi): 13.0\n", "driver_cuda", "13.0"),
            (
                "OS: Ubuntu 24.04.3 LTS, kernel 6.14.0-33-generic\n",
                "os",
                "Ubuntu 24.04.3 LTS",
            ),
            (
                "cudatoolkit               11.3.1               h2bc3f7f_2\n",
                "cuda_runtime",
                "11.3.1",
            ),
            (
                "W asm_compiler.cc:111] *** WARNING *** You are using ptxas 11.0.194, which is older than 11.1.\n",
                "cuda_toolkit",
                "11.0",
            ),
            (
                "E cuda_diagnostics.cc:262] kernel version 535.129.3 does not match DSO version 545.23.8 -- cannot find working devices in this configuration\n",
                "kernel_module",
                "535.129.3",
            ),
            (
                "E cuda_diagnostics.cc:262] kernel version 535.129.3 does not match DSO version 545.23.8 -- cannot find working devices\n",
                "driver",
                "545.23.8",
            ),
            (
                "The NVIDIA driver's CUDA version is 12.2 which is older than the PTX compiler version 12.6.77. Because\n",
                "cuda_toolkit",
                "12.6.77",
            ),
            (
                "NVRM: information.  The 510.47.03 NVIDIA driver will ignore\n",
                "kernel_module",
                "510.47.03",
            ),
            ("PyTorch build cuDNN version: 7605\n", "cudnn", "7.6.5"),
            ("PyTorch build NCCL version: 2708\n", "nccl", "2.7.8"),
            ("PyTorch build CUDA version: 10.2\n", "cuda_runtime", "10.2"),
            (
                "ubuntu 18.04, python 3.10, tesla V100, cuda 11.7, torch 2.0.1\n",
                "framework",
                "torch 2.0.1",
            ),
            (
                "ubuntu 18.04, python 3.10, tesla V100, cuda 11.7, torch 2.0.1\n",
                "python",
                "3.10",
            ),
            (
                "----------MXNet Info-----------\nVersion      : 1.1.0\nDirectory    : /usr/lib\n",
                "framework",
                "mxnet 1.1.0",
            ),
            (
                "nvidia-container-cli -V:\nversion: 1.0.6\nbuild date: 2019-09-25\n",
                "container_toolkit",
                "1.0.6",
            ),
            (
                "- **CUDA Driver Version**: 12.8\n- **NVIDIA Driver**: 570.124.06\n",
                "driver",
                "570.124.06",
            ),
            ("- **CUDA Toolkit**: 12.8.93\n", "cuda_toolkit", "12.8.93"),
            ("-GPU: RTX 3090 CUDA 11.4\n", "gpu", "RTX 3090"),
            (
                "WARNING: device: 0. The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.3, which may cause serious incompatible bug.\n",
                "cudnn",
                "7.3",
            ),
            ("paddle with cuda: 10.2\n", "cuda_runtime", "10.2"),
            ("NVIDIA driver's version:384.130\n", "driver", "384.130"),
            (
                "cuda driver:535.86.10 cuda version: 12.2\n",
                "driver",
                "535.86.10",
            ),
            ("Driver==515.86.01\n", "driver", "515.86.01"),
            (
                "nvcc==cuda_11.8.r11.8/compiler.31833905_0\n",
                "cuda_toolkit",
                "11.8",
            ),
            ("CUDA Version 9.0.176\n", "cuda_toolkit", "9.0.176"),
            ("  - cudatoolkit=11.3\n", "cuda_runtime", "11.3"),
            (
                "print(torch.__version__)\n1.2.0\n",
                "framework",
                "torch 1.2.0",
            ),
            (
                "jax:    0.4.28.dev20240510+f21e3e82c\n",
                "framework",
                "jax 0.4.28.dev20240510+f21e3e82c",
            ),
            (
                "**Python Version (if applicable)**: 3.8.10\n",
                "python",
                "3.8.10",
            ),
            ("**NVIDIA GPU**: V100\n", "gpu", "V100"),
            (
                "PyTorch Version: 2.1.2+**cu121**\n",
                "framework",
                "torch 2.1.2+cu121",
            ),
            ("### GPU model\n\nRTX 5060 TI \n", "gpu", "RTX 5060 TI"),
            (cupy, "framework", "cupy 9.0.0rc1"),
            (cupy, "cuda_runtime", "11.3"),
            (cupy, "driver_cuda", "11.2"),
            (cupy, "nccl", "2.5.7"),
            (cupy, "gpu", "GeForce RTX 2080 Ti"),
            (cupy, "cc", "7.5"),
            (cupy, "kernel", "5.4.0-42-generic"),
            // A platform string is not an OS.
            (cupy, "os", ""),
            (bnb, "cc", "8.0"),
            (bnb, "cuda_runtime", "12.2"),
            (ds_report, "framework", "torch 2.1.2+cu121"),
            (ds_report, "cuda_runtime", "12.1"),
            (ds_report, "cuda_toolkit", "12.3"),
            (
                "Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync\n",
                "gpu",
                "GeForce RTX 4090",
            ),
            (
                "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)\n",
                "framework",
                "torch 2.1.2+cpu",
            ),
            // nvidia-smi --version from R610, where DRIVER and CUDA version are "Deprecated".
            (smi_version, "driver", "610.43.02"),
            (smi_version, "driver_cuda", "13.3"),
            // A `python -c` command's prints: one word per argument, the last taking the rest;
            // libraries' log lines between are passed over; a Markdown quote is read through.
            (one_liner, "framework", "torch 2.4.0+cu124"),
            (one_liner, "cuda_runtime", "12.4"),
            (one_liner, "cudnn", "9.1.0"),
            (one_liner, "gpu", "H100 PCIe"),
            (tf_one_liner, "framework", "tensorflow 2.15.1"),
            (quoted_prints, "framework", "torch 2.1.2+cu118"),
            (quoted_prints, "cuda_runtime", "11.8"),
            (quoted_prints, "cc", "8.9"),
            // Lightning's report: the `- version:` of its CUDA item is PyTorch's CUDA.
            (lightning, "cuda_runtime", "12.1"),
            (
                "$ python -c \"import sys; print(sys.version)\"\n3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)]\n",
                "python",
                "3.10.11",
            ),
            ("  - python=3.9.19=h955ad1f_0\n", "python", "3.9.19"),
            (
                "PyTorch settings found: CUDA_VERSION=126, Highest Compute Capability: (8, 6).\n",
                "cc",
                "8.6",
            ),
            // The modules' flavour: modinfo's license, NVIDIA's RHEL package name.
            (modinfo_open, "driver_flavor", "open"),
            (modinfo_proprietary, "driver_flavor", "proprietary"),
            (
                "kmod-nvidia-latest-dkms-535.154.05-1.el8.x86_64\n",
                "driver_flavor",
                "proprietary",
            ),
        ];
        for (paste, field, want) in cases {
            assert_eq!(value(paste, field), want, "{field} of {paste:?}");
        }
        // nvidia-smi from elsewhere than the driver: the driver is "Driver Version".
        let smi =
            "| NVIDIA-SMI 440.64.00    Driver Version: 418.67       CUDA Version: 10.1     |\n";
        assert_eq!(value(smi, "driver"), "418.67");
        assert!(of(smi.as_bytes()).conflicts.is_empty());
        assert_eq!(value("| NVIDIA-SMI 535.54.03\n", "driver"), "535.54.03");
        // Ollama's journal lines: the program, its version not shown; a version named beside
        // them is the reading, with no disagreement.
        let journal =
            "Jan  1 20:22:43 host ollama[911]:   Device 0: Tesla K80, compute capability 3.7\n";
        assert_eq!(value(journal, "ollama"), "version not shown");
        let both = format!("{journal}$ ollama -v\nollama version is 0.1.17\n");
        assert_eq!(value(&both, "ollama"), "0.1.17");
        assert!(of(both.as_bytes()).conflicts.is_empty());
        assert!(of(b"ollama[x]: not a pid\n").get("ollama").is_none());
        // collect_env's conda row is the runtime's libraries, no nvcc; "CUDA used to build
        // PyTorch" says the runtime first.
        let conda =
            "[conda] cudatoolkit               11.3.1               h2bc3f7f_2    defaults\n";
        assert!(of(conda.as_bytes()).get("cuda_toolkit").is_none());
        assert_eq!(
            value(
                &format!("CUDA used to build PyTorch: 11.3\n{conda}"),
                "cuda_runtime"
            ),
            "11.3"
        );
        // TensorFlow's issue template.
        let tf = "- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Linux Ubuntu 18.04\n\
- TensorFlow version (use command below): v2.4.1\n\
- CUDA/cuDNN version: 11.0/8.0.4\n\
- GPU model and memory: GeForce RTX 2080 SUPER, 8GB\n";
        assert_eq!(value(tf, "os"), "Ubuntu 18.04");
        assert_eq!(value(tf, "framework"), "tensorflow 2.4.1");
        assert_eq!(value(tf, "cuda_runtime"), "11.0");
        assert_eq!(value(tf, "cudnn"), "8.0.4");
        assert_eq!(value(tf, "gpu"), "GeForce RTX 2080 SUPER");
        // A list in Chinese (PaddlePaddle's template).
        let zh = "* python 版本：3.7.4\n* paddle版本：2.4.2\n* cuda版本：11.2.152\n* cudnn版本：8.2.1\n* nvidia-smi版本：470.82.01\n";
        assert_eq!(value(zh, "python"), "3.7.4");
        assert_eq!(value(zh, "framework"), "paddlepaddle 2.4.2");
        assert_eq!(value(zh, "cuda_toolkit"), "11.2.152");
        assert_eq!(value(zh, "cudnn"), "8.2.1");
        assert_eq!(value(zh, "driver"), "470.82.01");
        assert_eq!(value("- CUDA: 11.8\n", "cuda_runtime"), "11.8");
        // Ultralytics' banner.
        let yolo = "YOLOv5 🚀 v7.0-72-g064365d Python-3.10.12 torch-2.0.1+cu118 CUDA:0 (Tesla T4, 15102MiB)\n";
        assert_eq!(value(yolo, "framework"), "torch 2.0.1+cu118");
        assert_eq!(value(yolo, "python"), "3.10.12");
        assert_eq!(value(yolo, "gpu"), "Tesla T4");
        // Code spans, a kernel in a list and in a sentence, a driver in a sentence.
        assert_eq!(
            value("- GPU: `NVIDIA GeForce GTX 1080 Ti` / GP102\n", "gpu"),
            "GeForce GTX 1080 Ti"
        );
        assert_eq!(
            value("- TrueNAS kernel: `6.12.33-production+truenas`\n", "kernel"),
            "6.12.33-production+truenas"
        );
        assert_eq!(
            value(
                "Nobara 43, kernel `7.0.9-200.nobara.fc43.x86_64`\n",
                "kernel"
            ),
            "7.0.9-200.nobara.fc43.x86_64"
        );
        assert_eq!(
            value("works on COS with nvidia driver v470.182.03.\n", "driver"),
            "470.182.03"
        );
        // The open module's form: a package-named version, a `uname -a` answer, the OS.
        let form = "### NVIDIA Open GPU Kernel Modules Version\n\nnvidia-drivers-530.41.03\n\n### Operating System and Version\n\nDescription:    Gentoo Linux\n\n### Kernel Release\n\nLinux localhost 6.3.4-gentoo-x86_64 #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n";
        assert_eq!(value(form, "driver"), "530.41.03");
        assert_eq!(value(form, "os"), "Gentoo Linux");
        assert_eq!(value(form, "kernel"), "6.3.4-gentoo-x86_64");
        // An nvidia-smi row padded with two spaces before its bar.
        assert_eq!(
            value(
                "|   0  GeForce GT 630      Off  | 00000000:02:00.0 N/A |\n",
                "gpu"
            ),
            "GeForce GT 630"
        );
    }

    #[test]
    fn collect_env_keeps_its_traps_apart() {
        let paste = "PyTorch version: 2.2.1+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n\
OS: Ubuntu 22.04.3 LTS (x86_64)\nPython version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)\n\
CUDA runtime version: 12.4.131\nGPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3\nNvidia driver version: 550.54.15\n";
        let fp = of(paste.as_bytes());
        let value = |f: &str| fp.get(f).map(|x| x.value.clone()).unwrap_or_default();
        assert_eq!(value("framework"), "torch 2.2.1+cu121");
        assert_eq!(value("cuda_runtime"), "12.1");
        assert_eq!(value("cuda_toolkit"), "12.4.131");
        assert_eq!(value("driver"), "550.54.15");
        assert_eq!(value("os"), "Ubuntu 22.04.3 LTS");
        assert_eq!(value("python"), "3.10.12");
        assert_eq!(value("gpu"), "H100 80GB HBM3");
        let unknown = of(b"Nvidia driver version: Could not collect\n");
        assert!(unknown.get("driver").is_none());
    }

    #[test]
    fn a_half_finished_upgrade_is_two_drivers() {
        let paste = "[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\n\
NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.86.01  Wed Jul 26 23:01:50 UTC 2023\n\
ii  nvidia-driver-535  535.104.05-0ubuntu0.22.04.1  amd64  NVIDIA driver metapackage\n";
        let fp = of(paste.as_bytes());
        assert_eq!(fp.get("driver").unwrap().value, "535.104.05");
        assert_eq!(fp.get("kernel_module").unwrap().value, "535.86.01");
        assert!(
            fp.conflicts.is_empty(),
            "the same values from two sources agree"
        );
        let open = of(
            b"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build\n",
        );
        assert_eq!(open.get("kernel_module").unwrap().value, "550.54.15");
        assert_eq!(open.get("driver_flavor").unwrap().value, "open");
    }

    #[test]
    fn what_frameworks_and_tools_say_about_the_driver() {
        let torch = of(b"UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update\n");
        assert_eq!(torch.get("driver_cuda").unwrap().value, "11.4");
        let nvml = of(b"Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.178\n");
        assert_eq!(nvml.get("driver").unwrap().value, "580.178");
        let truncated = of(
            b"ii  nvidia-driver-535 535.104.05-0ubuntu0.22.04.1\nNVML library version: 535.104\n",
        );
        assert!(truncated.conflicts.is_empty(), "NVML's short form agrees");
        let tf = of(b"I cuda_diagnostics.cc:185] libcuda reported version is: 361.93.2\nI cuda_diagnostics.cc:189] kernel reported version is: 352.63.0\n");
        assert_eq!(tf.get("driver").unwrap().value, "361.93.2");
        assert_eq!(tf.get("kernel_module").unwrap().value, "352.63.0");
        let platform =
            of(b"Python platform: Linux-6.1.134-1.el8.jane3.x86_64-x86_64-with-glibc2.28\n");
        assert_eq!(platform.get("kernel").unwrap().value, "6.1.134-1.el8.jane3");
        let lspci = of(b"01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3080] [10de:2206]\n");
        assert_eq!(lspci.get("gpu").unwrap().value, "GeForce RTX 3080");
    }

    #[test]
    fn tensorrt_template_cuda_is_the_toolkit() {
        let trt = of(
            b"**TensorRT Version**: 7.1.3.4\n**GPU Type**: 3080\n**Nvidia Driver Version**: 456.38\n**CUDA Version**: 11.0\n**CUDNN Version**: 8.0\n",
        );
        assert_eq!(trt.get("cuda_toolkit").unwrap().value, "11.0");
        assert!(trt.get("driver_cuda").is_none());
        let installer = of(b"TensorRT Version: 7.2.3.4\nCUDA Version: cuda_11.0.2_451.48_win10\n");
        assert_eq!(installer.get("cuda_toolkit").unwrap().value, "11.0.2");
        // With nvidia-smi's table in the same paste, before or after the template, the table's
        // CUDA is the driver's and the two are no conflict.
        let table =
            "| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4     |\n";
        let form = "**TensorRT Version**: 8.6.1.6\n**CUDA Version**: 11.8\n";
        for paste in [format!("{form}{table}"), format!("{table}{form}")] {
            let fp = of(paste.as_bytes());
            assert_eq!(fp.get("cuda_toolkit").unwrap().value, "11.8", "{paste}");
            assert_eq!(fp.get("driver_cuda").unwrap().value, "12.4", "{paste}");
            assert!(fp.conflicts.is_empty(), "{paste}: {:?}", fp.conflicts);
        }
        // Without the template, the same words are nvidia-smi's.
        let smi = of(b"Driver Version: 535.104.05\nCUDA Version: 12.2\n");
        assert_eq!(smi.get("driver_cuda").unwrap().value, "12.2");
        assert!(smi.get("cuda_toolkit").is_none());
    }

    #[test]
    fn sources_that_disagree_are_a_conflict() {
        let paste = "Driver Version: 535.129.03\nNvidia driver version: 525.147.05\n";
        let fp = of(paste.as_bytes());
        assert_eq!(fp.conflicts.len(), 1);
        assert_eq!(fp.conflicts[0].field, "driver");
        assert_eq!(fp.conflicts[0].values[1].value, "525.147.05");
    }

    #[test]
    fn a_framework_written_short_and_printed_whole_is_one() {
        let fp =
            of(b"pytorch 2.12\npytorch.version:                                   2.12.1+cu130\n");
        assert_eq!(fp.get("framework").unwrap().value, "torch 2.12.1+cu130");
        assert!(fp.conflicts.is_empty(), "{:?}", fp.conflicts);
        // Two local tags are two builds.
        let two = of(b"PyTorch version: 2.1.0+cu121\n[pip3] torch==2.1.0+cu118\n");
        assert_eq!(two.conflicts.len(), 1);
        // A conda list's row, with its build and channel (or `<pip>`), names it too.
        for row in [
            "[conda] torch                     1.0.0a0+db5d313           <pip>\n",
            "[conda] pytorch                   2.1.0           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n",
        ] {
            assert!(of(row.as_bytes()).get("framework").is_some(), "{row}");
        }
        assert_eq!(
            of(b"PyTorch Version (if applicable):1.12.1\n")
                .get("framework")
                .unwrap()
                .value,
            "torch 1.12.1"
        );
        // A nightly's version is read whole from collect_env's package list.
        let nightly = of(b"[pip3] torch==2.8.0.dev20250326+cu128\n");
        assert_eq!(
            nightly.get("framework").unwrap().value,
            "torch 2.8.0.dev20250326+cu128"
        );
    }

    #[test]
    fn one_machine_is_not_read_as_sources_that_disagree() {
        // platform.platform()'s kernel keeps its architecture; collect_env's does not.
        let kernel = of(b"OS: CentOS Linux 7 (Core) (x86_64)\nPython platform: Linux-3.10.0-1160.el7.x86_64-x86_64-with-glibc2.17\n[transformers] Platform: Linux-3.10.0-1160.el7.x86_64-x86_64-with-glibc2.17\n");
        assert_eq!(kernel.get("kernel").unwrap().value, "3.10.0-1160.el7");
        assert!(kernel.conflicts.is_empty(), "{:?}", kernel.conflicts);
        // collect_env's second GPU, lscpu's `Model:`, xformers' Python, Lightning's versions.
        for paste in [
            "GPU models and configuration: \nGPU 0: NVIDIA GeForce RTX 3090\nGPU 1: NVIDIA GeForce RTX 3080 Ti\n",
            "GPU models and configuration: GPU 0: NVIDIA L4\nModel:                              1\n",
            "    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.1.0+cu121)\n    Python  3.10.14 (you have 3.10.0)\n",
            "* CUDA:\n\t- version:           11.3\n* System:\n\t- version:           10.0.19044\n",
            "PyTorch version: 2.5.1+cu121\njax 0.4.33\n",
            "PyTorch version: 2.1.2+cu121\n            \"open-clip-torch==2.20.0\",\n",
        ] {
            let fp = of(paste.as_bytes());
            assert!(fp.conflicts.is_empty(), "{paste}: {:?}", fp.conflicts);
            assert!(fp.get("driver").is_none(), "{paste}");
        }
    }

    #[test]
    fn one_table_of_two_gpus_is_no_conflict() {
        let table = "|   0  NVIDIA A100-PCIE-40GB          Off | 00000000:3F:00.0 Off |                    0 |\n|   1  Tesla P100-PCIE-16GB           Off | 00000000:40:00.0 Off |                    0 |\n";
        let fp = of(table.as_bytes());
        assert_eq!(fp.get("gpu").unwrap().value, "A100-PCIE-40GB");
        assert!(fp.conflicts.is_empty(), "{:?}", fp.conflicts);
        // PyTorch's CUDA and the one TensorFlow loads in the same environment.
        let two = of(b"PyTorch build CUDA version: 10.2\n2021-01-07 01:17:28.112165: I tensorflow/stream_executor/platform/default/dso_loader.cc:48] Successfully opened dynamic library libcudart.so.10.1\n");
        assert_eq!(two.get("cuda_runtime").unwrap().value, "10.2");
        assert!(two.conflicts.is_empty(), "{:?}", two.conflicts);
        // vLLM's refusal of the older one states its floor broken.
        let vllm =
            of(b"RuntimeError: GPUs with compute capability less than 7.0 are not supported.\n");
        assert_eq!(vllm.get("library_refused").unwrap().source, "vLLM");
    }

    #[test]
    fn package_flavours_bare_names_and_versions_in_parentheses() {
        let fp = of(b"- **Installed Driver**: nvidia-driver-580-open (version 580.82.09).\nNVIDIA GeForce RTX 3060\n");
        assert_eq!(fp.get("driver").unwrap().value, "580.82.09");
        assert_eq!(fp.get("driver_flavor").unwrap().value, "open");
        assert_eq!(fp.get("gpu").unwrap().value, "GeForce RTX 3060");
        // A repository's name is not a package.
        assert!(
            of(b"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1003\n")
                .get("driver_flavor")
                .is_none()
        );
    }

    #[test]
    fn the_operators_retyped_mismatch() {
        let fp = of(b"NVRM: API mismatch: client driver version 535.104.05 and kernel module version 535.86.01\nnvidia-modprobe: failed to load module nvidia\n");
        assert_eq!(fp.get("driver").unwrap().value, "535.104.05");
        assert_eq!(fp.get("kernel_module").unwrap().value, "535.86.01");
    }

    #[test]
    fn a_tools_printing_is_shown_over_a_persons_list() {
        // A list's "CUDA" and PaddlePaddle's banner disagree: both are a conflict, and the
        // banner's value is the one shown, wherever it comes in the paste.
        let list_first = of("CUDA：11.1\nW0101 gpu_resources.cc:61] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.1, Runtime API Version: 10.2\n".as_bytes());
        assert_eq!(list_first.get("cuda_runtime").unwrap().value, "10.2");
        assert!(
            list_first
                .conflicts
                .iter()
                .any(|c| c.field == "cuda_runtime")
        );
        let banner_first = of("W0101 gpu_resources.cc:61] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.1, Runtime API Version: 10.2\nCUDA: 11.1\n".as_bytes());
        assert_eq!(banner_first.get("cuda_runtime").unwrap().value, "10.2");
        // Two lists that disagree: the first is shown.
        let lists = of(b"- CUDA: 11.1\n- CUDA: 11.3\n");
        assert_eq!(lists.get("cuda_runtime").unwrap().value, "11.1");
    }

    #[test]
    fn labels_container_info_xml_and_tensorflow() {
        let value =
            |fp: &Fingerprint, f: &str| fp.get(f).map(|x| x.value.clone()).unwrap_or_default();
        let gfd = of(b"  \"nvidia.com/cuda.driver.major\": \"515\",\n  \"nvidia.com/cuda.driver.minor\": \"105\",\n  \"nvidia.com/cuda.driver.rev\": \"01\",\n  \"nvidia.com/cuda.runtime.major\": \"11\",\n  \"nvidia.com/cuda.runtime.minor\": \"7\",\n  \"nvidia.com/gpu.compute.major\": \"7\",\n  \"nvidia.com/gpu.compute.minor\": \"0\",\n  \"nvidia.com/gpu.product\": \"Tesla-V100-SXM2-16GB-N\",\n");
        assert_eq!(value(&gfd, "driver"), "515.105.01");
        assert_eq!(value(&gfd, "driver_cuda"), "11.7");
        assert_eq!(value(&gfd, "cc"), "7.0");
        assert_eq!(value(&gfd, "gpu"), "Tesla-V100-SXM2-16GB-N");
        assert!(
            gfd.get("gfd_driver_major").is_none(),
            "the parts are not fields"
        );

        let info = of(b"NVRM version:   465.19.01\nCUDA version:   11.3\n\nDevice Index:   0\nModel:          NVIDIA GeForce RTX 2080 Ti\n");
        assert_eq!(value(&info, "driver"), "465.19.01");
        assert_eq!(value(&info, "driver_cuda"), "11.3");
        assert_eq!(value(&info, "gpu"), "GeForce RTX 2080 Ti");
        // One space after the colon is someone else's CUDA version (torch.version.cuda).
        assert!(of(b"CUDA version: 12.8\n").get("driver_cuda").is_none());
        // A sentence's CUDA that it says nvidia-smi printed, or calls the most the driver takes,
        // is the driver's; another CUDA beside it is still a toolkit.
        for (said, driver_cuda, toolkit) in [
            (
                "- Driver: 592.27, CUDA 13.1 (per nvidia-smi)\n",
                "13.1",
                None,
            ),
            (
                "* CUDA version 12.8 (as reported by `nvidia-smi`).\n",
                "12.8",
                None,
            ),
            ("nvidia-smi shows CUDA Version 12.4\n", "12.4", None),
            ("my driver 535 supports CUDA 12.2\n", "12.2", None),
            ("cuda 11.8, nvidia-smi shows 12.2\n", "12.2", Some("11.8")),
            (
                "Driver: 572.83, CUDA: 11.8.89 (up to: 12.8), Compute: 6.1\n",
                "12.8",
                Some("11.8.89"),
            ),
        ] {
            let fp = of(said.as_bytes());
            assert_eq!(value(&fp, "driver_cuda"), driver_cuda, "{said}");
            assert_eq!(
                fp.get("cuda_toolkit").map(|t| t.value.as_str()),
                toolkit,
                "{said}"
            );
        }
        // What a sentence asks for or points at is no reading: a PyTorch named bare or with a
        // bound, a driver bound, a cuDNN directory on a library path (it need not be the one
        // loaded), what a project asks of Python.
        for (said, field) in [
            ("installed pytorch 1.3 with conda\n", "framework"),
            ("requires torch>=1.8\n", "framework"),
            (
                "users may need to update their GPU drivers to 531.61 or newer.\n",
                "driver",
            ),
            ("CUDA 12 needs driver >= 525.60.13\n", "driver"),
            ("CUDA 12.0 requires driver 525.60.13 or newer\n", "driver"),
            (
                "This release requires NVIDIA driver version 535.54.03 or later\n",
                "driver",
            ),
            ("minimum driver version 418.39\n", "driver"),
            ("ran 2080 steps on 8 GPUs\n", "gpu"),
            ("the cluster has 1050 GPUs\n", "gpu"),
            ("export PATH=/usr/local/cuda-11.8/bin\n", "cuda_toolkit"),
            ("libcuda12.0 loaded\n", "cuda_toolkit"),
            ("the K8s cluster has GT 2 nodes\n", "gpu"),
            ("we run T4 and A10 instances\n", "gpu"),
            ("NVIDIA 535.104.05-0ubuntu1 from the archive\n", "gpu"),
            ("需要驱动版本 525.60.13\n", "driver"),
            (
                "The recommended drivers: 535.161.07 (GameReady)\n",
                "driver",
            ),
            (
                "LD_LIBRARY_PATH=/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64\n",
                "cudnn",
            ),
            ("This project requires Python 3.8 or later\n", "python"),
            // The NVIDIA module's version in libcuda's words is no Linux release.
            (
                "kernel version 535.129.3 does not match DSO version 545.23.8\n",
                "kernel",
            ),
            ("nvidia kernel module version 550.54.15\n", "kernel"),
            // A `python -c` print whose next line is no answer (a prompt, another command): it
            // and what follows are read as any line.
            (
                "$ python -c \"import torch; print(torch.__version__)\"\n$ nvidia-smi\n",
                "framework",
            ),
            // Where a program ran is kept only beside a "driver is insufficient".
            (
                "$ docker run --rm --gpus all nvidia/cuda:12.2.0-base-ubuntu22.04 nvidia-smi\n",
                "container",
            ),
            // Another module's license says nothing of the driver's flavour.
            (
                "filename:       /lib/modules/6.8.0-45-generic/kernel/drivers/gpu/drm/drm.ko.zst\nlicense:        GPL and additional rights\nfilename:       /lib/modules/6.8.0/kernel/virt/vboxguest.ko\nlicense:        Dual MIT/GPL\n",
                "driver_flavor",
            ),
            // Lightning's `- version:` under System is Windows' build, not a CUDA.
            (
                "* System:\n\t- OS:                Windows\n\t- version:           10.0.19044\n",
                "cuda_runtime",
            ),
        ] {
            assert!(
                of(said.as_bytes()).get(field).is_none(),
                "{field} in {said}"
            );
        }

        // A word of the sentence that does not qualify the driver makes no bound.
        let named = of(b"I need help: my nvidia driver 535.104.05 crashes\n");
        assert_eq!(value(&named, "driver"), "535.104.05");
        // A bound is passed over for the driver the sentence names next.
        let next = of(b"the toolkit installed (12.5) requires driver version 555.42.02, whereas the script installs driver version 550.90.07.\n");
        assert_eq!(value(&next, "driver"), "550.90.07");

        let xml = of(b"        <driver_version>390.157</driver_version>\n                <product_name>GeForce 410M</product_name>\n");
        assert_eq!(value(&xml, "driver"), "390.157");
        assert_eq!(value(&xml, "gpu"), "GeForce 410M");

        let tf = of(b"Ignoring visible gpu device (device: 0, name: GeForce GTX 1070, pci bus id: 0000:01:00.0, compute capability: 6.1) with Cuda compute capability 6.1. The minimum required Cuda capability is 7.0\n");
        assert_eq!(value(&tf, "gpu"), "GeForce GTX 1070");
        assert_eq!(value(&tf, "cc"), "6.1");
        assert!(tf.get("arch_refused").is_some());

        let refused = of(b"nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown\nii  libcuda1:amd64  535.247.01-1~deb12u1  amd64  NVIDIA CUDA Driver Library\nii  libnvidia-container1:amd64  1.17.8-1  amd64  NVIDIA container runtime library\n");
        assert_eq!(value(&refused, "cuda_runtime"), "12.8");
        assert_eq!(value(&refused, "driver"), "535.247.01");
        assert!(refused.get("requirement_refused").is_some());
    }

    #[test]
    fn cudnn_at_run_time_against_the_build() {
        let torch = of(b"RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 9, 2) but found runtime version (8, 5, 0). PyTorch already comes bundled with cuDNN.\n");
        assert_eq!(torch.get("cudnn").unwrap().value, "8.5.0");
        assert_eq!(torch.get("cudnn_built").unwrap().value, "8.9");
        // PyTorch's own message has two spaces before "against".
        let torch = of(b"cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime version (8, 3, 3).\n");
        assert_eq!(torch.get("cudnn").unwrap().value, "8.3.3");
        assert_eq!(torch.get("cudnn_built").unwrap().value, "8.5");
        let jax_block = of(b"CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA components:\nOutdated cuDNN installation found.\nVersion JAX was built against: 8907\nMinimum supported: 9100\nInstalled version: 8907\nThe local installation version must be no lower than 9100..\n");
        assert_eq!(jax_block.get("cudnn").unwrap().value, "8.9.7");
        assert_eq!(jax_block.get("cudnn_built").unwrap().value, "9.1");
        let tf = of(b"E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor version.\n");
        assert_eq!(tf.get("cudnn").unwrap().value, "8.1.0");
        assert_eq!(tf.get("cudnn_built").unwrap().value, "8.6");
        let old_tf = of(b"E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 5005 (compatibility version 5000) but source was compiled with 5105 (compatibility version 5100).  If using a binary install, upgrade your CuDNN library to match.\n");
        assert_eq!(old_tf.get("cudnn").unwrap().value, "5.0.5");
        assert_eq!(old_tf.get("cudnn_built").unwrap().value, "5.1");
        let jax = of(b"CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8906, which is newer.\n");
        assert_eq!(jax.get("cudnn").unwrap().value, "8.6.0");
        assert_eq!(jax.get("cudnn_built").unwrap().value, "8.9");
    }

    #[test]
    fn a_templates_examples_are_not_read_as_the_machines() {
        let form = "* OS/Version(e.g. RHEL8.6, Ubuntu22.04): RHEL8.9\n* Kernel Version: 4.18.0-513.24.1.el8.9\n- Driver version (e.g. 535.104.05): 550.54.15\n";
        let fp = of(form.as_bytes());
        let value = |f: &str| fp.get(f).map(|x| x.value.clone()).unwrap_or_default();
        assert_eq!(value("os"), "RHEL8.9");
        assert_eq!(value("driver"), "550.54.15");
        assert_eq!(
            without_template_examples("- Kernel (e.g. `uname -a`): 6.8.0 (e.g., not this)"),
            "- Kernel : 6.8.0 "
        );
        assert_eq!(
            without_template_examples("(e.g. unclosed"),
            "(e.g. unclosed"
        );
    }

    #[test]
    fn hand_written_lists_forms_and_indented_reports() {
        let list = "## Environment\n- OS: Ubuntu 24.04.3 LTS\n- GPU: NVIDIA GeForce GTX 1050 (compute capability 6.1)\n- **Driver**: 550.163.01\n- PyTorch: 2.8.0+cu128\n";
        let fp = of(list.as_bytes());
        let value = |f: &str| fp.get(f).map(|x| x.value.clone()).unwrap_or_default();
        assert_eq!(value("os"), "Ubuntu 24.04.3 LTS");
        assert_eq!(value("gpu"), "GeForce GTX 1050");
        assert_eq!(value("cc"), "6.1");
        assert_eq!(value("driver"), "550.163.01");
        assert_eq!(value("framework"), "torch 2.8.0+cu128");
        assert_eq!(value("cuda_runtime"), "12.8");

        let form = "### NVIDIA Open GPU Kernel Modules Version\n\n590.48.01-2\n\n### Operating System and Version\n\narch linux\n\n### Kernel Release\n\n6.12.65-1-lts\n";
        let fp = of(form.as_bytes());
        let value = |f: &str| fp.get(f).map(|x| x.value.clone()).unwrap_or_default();
        assert_eq!(value("driver"), "590.48.01");
        assert_eq!(value("driver_flavor"), "open");
        assert_eq!(value("kernel"), "6.12.65-1-lts");
        assert_eq!(fp.get("kernel").unwrap().line, 11);

        let indented = "    PyTorch version: 1.3.1\n    Python version: 3.7\n    Nvidia driver version: 430.64\n    [pip3] nvidia-nccl-cu12==2.20.5\n";
        let fp = of(indented.as_bytes());
        let value = |f: &str| fp.get(f).map(|x| x.value.clone()).unwrap_or_default();
        assert_eq!(value("framework"), "torch 1.3.1");
        assert_eq!(value("python"), "3.7");
        assert_eq!(value("driver"), "430.64");
        assert_eq!(value("nccl"), "2.20.5");
    }

    #[test]
    fn os_kernel_nvcc_pip_nccl() {
        let paste = "PRETTY_NAME=\"Rocky Linux 9.2 (Blue Onyx)\"\n\
Linux gpu-a100-23 5.14.0-284.11.1.el9_2.x86_64 #1 SMP PREEMPT_DYNAMIC Tue May 9 17:09:15 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux\n\
Cuda compilation tools, release 11.7, V11.7.99\n\
torch                    1.13.1\n\
nvidia-nccl-cu12         2.19.3\n\
gpu-a100-23:48121:48121 [0] NCCL INFO NCCL version 2.14.3+cuda11.7\n";
        let fp = of(paste.as_bytes());
        let value = |f: &str| fp.get(f).map(|x| x.value.clone()).unwrap_or_default();
        assert_eq!(value("os"), "Rocky Linux 9.2");
        assert_eq!(value("kernel"), "5.14.0-284.11.1.el9_2");
        assert_eq!(value("cuda_toolkit"), "11.7");
        assert_eq!(value("framework"), "torch 1.13.1");
        assert_eq!(value("nccl"), "2.19.3");
        assert_eq!(fp.conflicts.len(), 1, "pip's NCCL and the log's differ");
    }

    #[test]
    fn compute_capability_flavor_and_what_follows() {
        let warning = of(b"UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n");
        assert_eq!(warning.get("cc").unwrap().value, "12.0");
        assert_eq!(
            warning.get("arch_list").unwrap().value,
            "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
        );
        // The same warning as people paste it, wrapped mid-sentence.
        let wrapped = of(b"NVIDIA H100 PCIe with CUDA capability\nsm_90 is not compatible with the current PyTorch installation.\nThe current PyTorch\ninstall supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86.\n");
        assert_eq!(wrapped.get("gpu").unwrap().value, "H100 PCIe");
        assert_eq!(wrapped.get("cc").unwrap().value, "9.0");
        assert_eq!(wrapped.get("arch_refused").unwrap().line, 2);
        assert_eq!(
            wrapped.get("arch_list").unwrap().value,
            "sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86"
        );
        assert_eq!(cc_of_gpu("A100-SXM4-80GB"), Some("8.0"));
        assert_eq!(cc_of_gpu("GeForce 2080 Ti"), Some("7.5"));
        assert_eq!(cc_of_gpu("GeForce 1080"), Some("6.1"));
        assert_eq!(cc_of_gpu("NVIDIA A10"), Some("8.6"));
        assert_eq!(cc_of_gpu("H100 80GB HBM3"), Some("9.0"));
        assert_eq!(cc_of_gpu("Tesla L4"), Some("8.9"));
        assert_eq!(cc_of_gpu("GeForce GTX 1080 Ti"), Some("6.1"));
        assert_eq!(cc_of_gpu("Radeon"), None);
        // Written together or apart, with a suffix: one model.
        assert_eq!(cc_of_gpu("RTX2060"), Some("7.5"));
        // Jetson boards by their module or their SoC's name.
        assert_eq!(cc_of_gpu("Tegra X2"), Some("6.2"));
        assert_eq!(cc_of_gpu("Jetson TX1"), Some("5.3"));
        assert_eq!(cc_of_gpu("RTX 3070Ti"), Some("8.6"));
        assert_eq!(cc_of_gpu("GTX 860M"), Some("5.0"));
        assert_eq!(cc_of_gpu("GTX TITAN X"), Some("5.2"));
        assert_eq!(cc_of_gpu("RTX 4090D"), Some("8.9"));
        assert_eq!(cc_of_gpu("GeForce GTX 1070 Mobile"), Some("6.1"));
        // Two TITAN X: Maxwell's and Pascal's.
        assert_eq!(cc_of_gpu("GeForce GTX TITAN X"), Some("5.2"));
        assert_eq!(cc_of_gpu("TITAN X (Pascal)"), Some("6.1"));
        // A mobile part is not its desktop namesake.
        assert_eq!(cc_of_gpu("GeForce GTX 960M"), Some("5.0"));
        assert_eq!(cc_of_gpu("GeForce GTX 960"), Some("5.2"));
        assert_eq!(cc_of_gpu("RTX 5000 Ada Generation"), Some("8.9"));
        assert_eq!(cc_of_gpu("Quadro RTX 5000"), Some("7.5"));
        let smi = of(b"| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n|   0  Tesla V100-SXM2-16GB  On   | 00000000:07:00.0 Off |   0 |\nPyTorch version: 2.3.1+cu121\n");
        assert_eq!(smi.get("cc").unwrap().value, "7.0");
        assert_eq!(smi.get("cuda_runtime").unwrap().value, "12.1");
        assert_eq!(smi.get("cuda_runtime").unwrap().source, "PyTorch wheel tag");
        let proprietary = of(b"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.86.01  Wed Jul 26 23:01:50 UTC 2023\n");
        assert_eq!(
            proprietary.get("driver_flavor").unwrap().value,
            "proprietary"
        );
        let compat =
            of(b"ii  cuda-compat-12-4   550.54.15-1   amd64   CUDA Compatibility Platform\n");
        assert_eq!(compat.get("cuda_compat").unwrap().value, "12.4");
    }
}
