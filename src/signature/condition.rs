//! A signature's `when:`: a comparison of the numbers in its named captures, for facts a regex
//! alone cannot read. `kubectl describe node` printing fewer allocatable than installed GPUs, or
//! p2pBandwidthLatencyTest's peer-to-peer bandwidth below the bandwidth without it, are matched by
//! a pattern that captures both numbers and a condition that compares them:
//!
//! ```text
//! when: allocatable < capacity
//! when: p2p_enabled < 0.5 * p2p_disabled
//! ```
//!
//! One comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`) of two operands, each a capture name, a
//! number, or a number times a capture name. A capture's value is the first decimal number in its
//! text (`7`, `13.15`, `-3`); a capture that did not take part in the match or holds no number
//! makes the condition false, so a match that cannot be judged is no hit.

use std::fmt;

/// A parsed `when:`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    left: Operand,
    op: Op,
    right: Operand,
}

#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Number(f64),
    /// `factor * name` (factor 1 when written as a bare name).
    Capture {
        factor: f64,
        name: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
        }
    }
}

/// Longest `when:` accepted.
const MAX_LEN: usize = 200;

impl Condition {
    /// Parses `left op right`; the error says what is wrong, in words a runbook author can act on.
    pub fn parse(text: &str) -> Result<Condition, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("`when` is empty".into());
        }
        if text.len() > MAX_LEN {
            return Err(format!("`when` is longer than {MAX_LEN} characters"));
        }
        // Two-character operators first, so `<=` is not read as `<` followed by `=`.
        let ops = [
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        let mut found: Option<(usize, &str, Op)> = None;
        for (symbol, op) in ops {
            if let Some(at) = text.find(symbol)
                && found.is_none_or(|(first, _, _)| at < first)
            {
                found = Some((at, symbol, op));
            }
        }
        let Some((at, symbol, op)) = found else {
            return Err(format!(
                "`when: {text}` has no comparison (<, <=, >, >=, == or !=)"
            ));
        };
        let (left, right) = (&text[..at], &text[at + symbol.len()..]);
        if ops.iter().any(|(s, _)| right.contains(s)) {
            return Err(format!("`when: {text}` holds more than one comparison"));
        }
        let left = Operand::parse(left).map_err(|e| format!("`when: {text}`: {e}"))?;
        let right = Operand::parse(right).map_err(|e| format!("`when: {text}`: {e}"))?;
        if !left.is_capture() && !right.is_capture() {
            return Err(format!(
                "`when: {text}` compares two numbers; name a capture of the pattern"
            ));
        }
        Ok(Condition { left, op, right })
    }

    /// The capture names the condition reads.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        [&self.left, &self.right]
            .into_iter()
            .filter_map(|operand| match operand {
                Operand::Capture { name, .. } => Some(name.as_str()),
                Operand::Number(_) => None,
            })
    }

    /// Whether the captures of one match satisfy the condition.
    pub fn holds<'a>(&self, captures: impl Fn(&str) -> Option<&'a str>) -> bool {
        let (Some(left), Some(right)) = (self.left.value(&captures), self.right.value(&captures))
        else {
            return false;
        };
        match self.op {
            Op::Lt => left < right,
            Op::Le => left <= right,
            Op::Gt => left > right,
            Op::Ge => left >= right,
            Op::Eq => left == right,
            Op::Ne => left != right,
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.left, self.op.as_str(), self.right)
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Number(n) => write!(f, "{n}"),
            Operand::Capture { factor, name } if *factor == 1.0 => write!(f, "{name}"),
            Operand::Capture { factor, name } => write!(f, "{factor} * {name}"),
        }
    }
}

impl Operand {
    fn parse(text: &str) -> Result<Operand, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("a side of the comparison is empty".into());
        }
        if let Some((factor, name)) = text.split_once('*') {
            let factor = number(factor.trim())
                .ok_or_else(|| format!("`{}` before `*` is not a number", factor.trim()))?;
            let name = name.trim();
            if !is_name(name) {
                return Err(format!("`{name}` after `*` is not a capture name"));
            }
            return Ok(Operand::Capture {
                factor,
                name: name.to_string(),
            });
        }
        if let Some(n) = number(text) {
            return Ok(Operand::Number(n));
        }
        if is_name(text) {
            return Ok(Operand::Capture {
                factor: 1.0,
                name: text.to_string(),
            });
        }
        Err(format!(
            "`{text}` is neither a number nor a capture name (letters, digits and `_`)"
        ))
    }

    fn is_capture(&self) -> bool {
        matches!(self, Operand::Capture { .. })
    }

    fn value<'a>(&self, captures: &impl Fn(&str) -> Option<&'a str>) -> Option<f64> {
        match self {
            Operand::Number(n) => Some(*n),
            Operand::Capture { factor, name } => first_number(captures(name)?).map(|v| factor * v),
        }
    }
}

fn number(text: &str) -> Option<f64> {
    let ok = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
        && text.chars().any(|c| c.is_ascii_digit());
    if ok { text.parse().ok() } else { None }
}

fn is_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The first decimal number in `text` (an optional `-`, digits, an optional fraction).
fn first_number(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let start = bytes.iter().position(u8::is_ascii_digit)?;
    let mut end = start;
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
        end += 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
    }
    let negative = start > 0 && bytes[start - 1] == b'-';
    let value: f64 = text[start..end].parse().ok()?;
    Some(if negative { -value } else { value })
}

/// The named groups of a pattern (`(?P<name>` and `(?<name>`), for checking that a condition
/// reads captures the pattern has.
pub fn capture_names(pattern: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = pattern;
    while let Some(at) = rest.find("(?") {
        let after = &rest[at + 2..];
        let body = after.strip_prefix("P<").or_else(|| {
            after
                .strip_prefix('<')
                .filter(|b| !b.starts_with(['=', '!']))
        });
        if let Some(body) = body
            && let Some(end) = body.find('>')
        {
            names.push(&body[..end]);
        }
        rest = after;
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    #[test]
    fn comparisons_read_the_numbers_in_captures() {
        let c = Condition::parse("allocatable < capacity").unwrap();
        assert!(c.holds(caps(&[("allocatable", "7"), ("capacity", "8")])));
        assert!(!c.holds(caps(&[("allocatable", "8"), ("capacity", "8")])));
        // Units and padding around the number do not matter.
        assert!(c.holds(caps(&[("allocatable", " 7  "), ("capacity", "8 GPUs")])));
        let half = Condition::parse("p2p_enabled < 0.5*p2p_disabled").unwrap();
        assert!(half.holds(caps(&[("p2p_enabled", "2.60"), ("p2p_disabled", "13.15")])));
        assert!(!half.holds(caps(&[("p2p_enabled", "7.0"), ("p2p_disabled", "13.15")])));
        assert_eq!(half.to_string(), "p2p_enabled < 0.5 * p2p_disabled");
        let le = Condition::parse("a<=-2").unwrap();
        assert!(le.holds(caps(&[("a", "-2")])));
        assert!(!le.holds(caps(&[("a", "2")])));
        assert!(
            Condition::parse("a != b")
                .unwrap()
                .holds(caps(&[("a", "1"), ("b", "2")]))
        );
        assert!(
            Condition::parse("a >= 3")
                .unwrap()
                .holds(caps(&[("a", "3.0")]))
        );
    }

    #[test]
    fn a_missing_or_numberless_capture_makes_the_condition_false() {
        let c = Condition::parse("a < b").unwrap();
        assert!(!c.holds(caps(&[("a", "1")])));
        assert!(!c.holds(caps(&[("a", "1"), ("b", "N/A")])));
        // `!=` too: what cannot be read is not "different".
        assert!(
            !Condition::parse("a != b")
                .unwrap()
                .holds(caps(&[("a", "x"), ("b", "2")]))
        );
    }

    #[test]
    fn bad_conditions_say_what_is_wrong() {
        for (text, says) in [
            ("", "empty"),
            ("a b", "no comparison"),
            ("a < b < c", "more than one"),
            ("1 < 2", "two numbers"),
            ("a < b-c", "neither a number nor a capture name"),
            ("x * a < b", "not a number"),
            ("2 * 3 < b", "not a capture name"),
            ("< b", "empty"),
        ] {
            let err = Condition::parse(text).unwrap_err();
            assert!(err.contains(says), "{text:?}: {err}");
        }
    }

    #[test]
    fn capture_names_are_read_from_the_pattern() {
        assert_eq!(
            capture_names(r"gpu:\s+(?P<capacity>\d+)(?:x)(?<alloc>\d+)(?=y)(?!z)(?<=w)"),
            vec!["capacity", "alloc"]
        );
    }
}
