//! Patterns rewritten into Sigma's regex subset. Sigma's `re` modifier allows a small PCRE
//! subset: `.`, `^`, `$`, `* + ? {n,m}`, `[...]`, `[^...]`, `(...)` and `|`, with the `i`, `m`
//! and `s` flags as sub-modifiers. Each pattern is rewritten into it from its syntax tree:
//! `\d \w \s` become classes, every group a plain group, lazy repetitions greedy (a match is a
//! match either way), inline `(?i)` spelled out as `[aA]`, optional parts at either end dropped
//! (they never decide whether a line matches), and a word boundary at either end turned into the
//! character it requires. What cannot be rewritten exactly is an error saying what.

use regex_syntax::ast::{self, Ast};

/// A Sigma regex and the `re` sub-modifiers it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigmaRegex {
    pub pattern: String,
    /// Some of `i`, `m`, `s`, in that order.
    pub flags: String,
}

impl SigmaRegex {
    /// The detection key: `|re`, `|re|i`, ...
    pub fn key(&self) -> String {
        let mut key = "|re".to_string();
        for f in self.flags.chars() {
            key.push('|');
            key.push(f);
        }
        key
    }
}

/// Rewrites a pattern into Sigma's regex subset; the error says what has no exact rewrite.
pub fn to_sigma(ast: &Ast) -> Result<SigmaRegex, String> {
    let mut root = ast.clone();
    // Leading flags apply to the whole pattern (in Rust a flag holds to the end of its group, so
    // `(?i)a|b` is case-insensitive in both alternatives): they become sub-modifiers.
    let mut global = Flags::default();
    match &mut root {
        Ast::Concat(concat) => take_leading_flags(&mut concat.asts, &mut global)?,
        Ast::Alternation(alt) => {
            if let Some(Ast::Concat(first)) = alt.asts.first_mut() {
                take_leading_flags(&mut first.asts, &mut global)?;
            }
        }
        Ast::Flags(flags) => {
            global.apply(&flags.flags)?;
            root = Ast::empty(flags.span);
        }
        _ => {}
    }
    if global.negated {
        return Err("a negated flag (`(?-i)`) at the start".into());
    }
    if let Ast::Concat(concat) = &mut root {
        // Parts that may match nothing never decide whether a line matches.
        let items = &mut concat.asts;
        while items.len() > 1 && items.last().is_some_and(always_nullable) {
            items.pop();
        }
        while items.len() > 1 && items.first().is_some_and(always_nullable) {
            items.remove(0);
        }
    }
    let ctx = Ctx {
        case_insensitive: false,
        dot_all: false,
        multi_line: global.multi_line,
    };
    let mut out = String::new();
    let whole = Pos {
        start: true,
        end: true,
    };
    print(&root, ctx, whole, &mut out)?;
    let mut flags = String::new();
    if global.case_insensitive {
        flags.push('i');
    }
    if global.multi_line {
        flags.push('m');
    }
    if global.dot_all {
        flags.push('s');
    }
    Ok(SigmaRegex {
        pattern: out,
        flags,
    })
}

fn take_leading_flags(items: &mut Vec<Ast>, global: &mut Flags) -> Result<(), String> {
    while let Some(Ast::Flags(flags)) = items.first() {
        global.apply(&flags.flags)?;
        items.remove(0);
    }
    Ok(())
}

/// Where a part of the pattern sits: `start` if nothing can come before it in a match, `end` if
/// nothing can come after it.
#[derive(Clone, Copy)]
struct Pos {
    start: bool,
    end: bool,
}

const INSIDE: Pos = Pos {
    start: false,
    end: false,
};

const WORD: &str = "A-Za-z0-9_";

/// A `\b` at position `k` of a sequence, as the character it requires (at either end of the
/// whole pattern) or nothing (between a word and a non-word character, where it always holds).
fn boundary(items: &[Ast], k: usize, pos: Pos) -> Result<String, String> {
    let last = items.len() - 1;
    let before = if k == 0 {
        None
    } else {
        edge(&items[k - 1], true)
    };
    let after = if k == last {
        None
    } else {
        edge(&items[k + 1], false)
    };
    let at_start = k == 0 && pos.start;
    let at_end = k == last && pos.end;
    match (at_start, at_end, before, after) {
        (true, true, _, _) => Err("a pattern that is only `\\b`".into()),
        (_, true, Some(true), _) => Ok(format!("([^{WORD}]|$)")),
        (_, true, Some(false), _) => Ok(format!("[{WORD}]")),
        (true, _, _, Some(true)) => Ok(format!("(^|[^{WORD}])")),
        (true, _, _, Some(false)) => Ok(format!("[{WORD}]")),
        (_, _, Some(a), Some(b)) if a != b => Ok(String::new()),
        _ => Err("a word boundary `\\b` Sigma's subset cannot express here".into()),
    }
}

/// Whether `ast` always ends (`end`) or starts with a word character: `Some(true)`, a non-word
/// character: `Some(false)`, or either (or nothing): `None`.
fn edge(ast: &Ast, end: bool) -> Option<bool> {
    match ast {
        Ast::Literal(lit) => Some(is_word(lit.c)),
        Ast::ClassPerl(class) => match (&class.kind, class.negated) {
            (ast::ClassPerlKind::Digit | ast::ClassPerlKind::Word, false) => Some(true),
            (ast::ClassPerlKind::Space, false) | (ast::ClassPerlKind::Word, true) => Some(false),
            _ => None,
        },
        Ast::ClassBracketed(class) if !class.negated => {
            let mut chars = Vec::new();
            class_chars(&class.kind, &mut chars)?;
            let words = chars.iter().filter(|&&(a, b)| all_word(a, b)).count();
            let others = chars.iter().filter(|&&(a, b)| no_word(a, b)).count();
            if words == chars.len() && !chars.is_empty() {
                Some(true)
            } else if others == chars.len() && !chars.is_empty() {
                Some(false)
            } else {
                None
            }
        }
        Ast::Repetition(rep) if min_repeat(&rep.op.kind) > 0 => edge(&rep.ast, end),
        Ast::Group(group) => edge(&group.ast, end),
        Ast::Concat(concat) => {
            let item = if end {
                concat.asts.last()
            } else {
                concat.asts.first()
            }?;
            if always_nullable(item) {
                None
            } else {
                edge(item, end)
            }
        }
        Ast::Alternation(alt) => {
            let first = edge(alt.asts.first()?, end)?;
            alt.asts
                .iter()
                .all(|a| edge(a, end) == Some(first))
                .then_some(first)
        }
        _ => None,
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn all_word(a: char, b: char) -> bool {
    [('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]
        .iter()
        .any(|&(lo, hi)| lo <= a && b <= hi)
}

fn no_word(a: char, b: char) -> bool {
    b < '\u{80}'
        && [('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]
            .iter()
            .all(|&(lo, hi)| b < lo || a > hi)
}

/// The ranges of a bracketed class's items; `None` for items without a simple answer.
fn class_chars(set: &ast::ClassSet, out: &mut Vec<(char, char)>) -> Option<()> {
    match set {
        ast::ClassSet::Item(item) => class_item_chars(item, out),
        ast::ClassSet::BinaryOp(_) => None,
    }
}

fn class_item_chars(item: &ast::ClassSetItem, out: &mut Vec<(char, char)>) -> Option<()> {
    use ast::ClassSetItem as I;
    match item {
        I::Literal(lit) => out.push((lit.c, lit.c)),
        I::Range(range) => out.push((range.start.c, range.end.c)),
        I::Perl(class) if !class.negated => match class.kind {
            ast::ClassPerlKind::Digit => out.push(('0', '9')),
            ast::ClassPerlKind::Word => {
                out.extend([('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')])
            }
            ast::ClassPerlKind::Space => out.extend([('\t', '\r'), (' ', ' ')]),
        },
        I::Union(union) => {
            for item in &union.items {
                class_item_chars(item, out)?;
            }
        }
        I::Empty(_) => {}
        _ => return None,
    }
    Some(())
}

fn min_repeat(kind: &ast::RepetitionKind) -> u32 {
    match kind {
        ast::RepetitionKind::ZeroOrOne | ast::RepetitionKind::ZeroOrMore => 0,
        ast::RepetitionKind::OneOrMore => 1,
        ast::RepetitionKind::Range(
            ast::RepetitionRange::Exactly(n)
            | ast::RepetitionRange::AtLeast(n)
            | ast::RepetitionRange::Bounded(n, _),
        ) => *n,
    }
}

/// Whether `ast` can match the empty string wherever it is tried (no assertion involved).
fn always_nullable(ast: &Ast) -> bool {
    match ast {
        Ast::Empty(_) => true,
        Ast::Repetition(rep) => min_repeat(&rep.op.kind) == 0,
        Ast::Group(group) => always_nullable(&group.ast),
        Ast::Concat(concat) => concat.asts.iter().all(always_nullable),
        Ast::Alternation(alt) => alt.asts.iter().any(always_nullable),
        _ => false,
    }
}

#[derive(Default, Clone, Copy)]
struct Flags {
    case_insensitive: bool,
    multi_line: bool,
    dot_all: bool,
    negated: bool,
}

impl Flags {
    fn apply(&mut self, flags: &ast::Flags) -> Result<(), String> {
        let mut on = true;
        for item in &flags.items {
            match &item.kind {
                ast::FlagsItemKind::Negation => {
                    on = false;
                    self.negated = true;
                }
                ast::FlagsItemKind::Flag(ast::Flag::CaseInsensitive) => self.case_insensitive = on,
                ast::FlagsItemKind::Flag(ast::Flag::MultiLine) => self.multi_line = on,
                ast::FlagsItemKind::Flag(ast::Flag::DotMatchesNewLine) => self.dot_all = on,
                ast::FlagsItemKind::Flag(ast::Flag::SwapGreed) => {}
                ast::FlagsItemKind::Flag(other) => return Err(format!("the flag {other:?}")),
            }
        }
        Ok(())
    }
}

/// Flags in force inside the pattern, spelled out in the output.
#[derive(Clone, Copy)]
struct Ctx {
    case_insensitive: bool,
    dot_all: bool,
    /// Set for the whole pattern (the `m` sub-modifier); cannot change inside it.
    multi_line: bool,
}

impl Ctx {
    fn apply(&mut self, flags: &ast::Flags) -> Result<(), String> {
        let mut on = true;
        for item in &flags.items {
            match &item.kind {
                ast::FlagsItemKind::Negation => on = false,
                ast::FlagsItemKind::Flag(ast::Flag::CaseInsensitive) => self.case_insensitive = on,
                ast::FlagsItemKind::Flag(ast::Flag::DotMatchesNewLine) => self.dot_all = on,
                ast::FlagsItemKind::Flag(ast::Flag::SwapGreed) => {}
                ast::FlagsItemKind::Flag(ast::Flag::MultiLine) if self.multi_line == on => {}
                ast::FlagsItemKind::Flag(other) => {
                    return Err(format!(
                        "the inline flag {other:?} inside the pattern (Sigma sets flags for a whole pattern)"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Characters with a meaning in a regex, escaped outside classes.
const META: &str = r"\.+*?()|[]{}^$";

fn push_literal(c: char, ctx: Ctx, out: &mut String) -> Result<(), String> {
    if ctx.case_insensitive && c.is_ascii_alphabetic() {
        out.push('[');
        out.push(c.to_ascii_uppercase());
        out.push(c.to_ascii_lowercase());
        out.push(']');
        return Ok(());
    }
    if ctx.case_insensitive && c.to_lowercase().ne(c.to_uppercase()) {
        return Err(format!(
            "a case-insensitive non-ASCII letter {c:?} inside the pattern"
        ));
    }
    if push_control(c, out)? {
        return Ok(());
    }
    if META.contains(c) {
        out.push('\\');
    }
    out.push(c);
    Ok(())
}

/// Whitespace controls as the escapes every regex engine reads (a raw tab or newline in a rule
/// trips up converters); other controls are refused. `false` if `c` is no control.
fn push_control(c: char, out: &mut String) -> Result<bool, String> {
    let escape = match c {
        '\t' => r"\t",
        '\n' => r"\n",
        '\r' => r"\r",
        '\u{c}' => r"\f",
        '\u{b}' => r"\x0b",
        c if c.is_control() => return Err(format!("the control character {c:?}")),
        _ => return Ok(false),
    };
    out.push_str(escape);
    Ok(true)
}

fn push_class_char(c: char, out: &mut String) -> Result<(), String> {
    if push_control(c, out)? {
        return Ok(());
    }
    if matches!(c, '\\' | ']' | '[' | '^' | '-') {
        out.push('\\');
    }
    out.push(c);
    Ok(())
}

const SPACE: &str = r" \t\n\r\f\x0b";

fn print(ast: &Ast, ctx: Ctx, pos: Pos, out: &mut String) -> Result<(), String> {
    match ast {
        Ast::Empty(_) => {}
        Ast::Flags(_) => return Err("inline flags inside an alternative".into()),
        Ast::Literal(lit) => push_literal(lit.c, ctx, out)?,
        Ast::Dot(_) => out.push_str(if ctx.dot_all { r"(.|\n)" } else { "." }),
        Ast::Assertion(a) => match a.kind {
            ast::AssertionKind::StartLine => out.push('^'),
            ast::AssertionKind::EndLine => out.push('$'),
            ast::AssertionKind::StartText if !ctx.multi_line => out.push('^'),
            ast::AssertionKind::EndText if !ctx.multi_line => out.push('$'),
            ast::AssertionKind::WordBoundary => {
                out.push_str(&boundary(std::slice::from_ref(ast), 0, pos)?);
            }
            _ => return Err("an assertion Sigma's subset lacks".into()),
        },
        Ast::ClassUnicode(_) => return Err("a Unicode class (`\\p{..}`)".into()),
        Ast::ClassPerl(class) => {
            let body = match class.kind {
                ast::ClassPerlKind::Digit => "0-9",
                ast::ClassPerlKind::Word => WORD,
                ast::ClassPerlKind::Space => SPACE,
            };
            out.push('[');
            if class.negated {
                out.push('^');
            }
            out.push_str(body);
            out.push(']');
        }
        Ast::ClassBracketed(class) => {
            out.push('[');
            if class.negated {
                out.push('^');
            }
            match &class.kind {
                ast::ClassSet::Item(item) => print_class_item(item, ctx, out)?,
                ast::ClassSet::BinaryOp(_) => return Err("class set operations".into()),
            }
            out.push(']');
        }
        Ast::Repetition(rep) => {
            print(&rep.ast, ctx, INSIDE, out)?;
            match &rep.op.kind {
                ast::RepetitionKind::ZeroOrOne => out.push('?'),
                ast::RepetitionKind::ZeroOrMore => out.push('*'),
                ast::RepetitionKind::OneOrMore => out.push('+'),
                ast::RepetitionKind::Range(range) => match *range {
                    ast::RepetitionRange::Exactly(n) => out.push_str(&format!("{{{n}}}")),
                    ast::RepetitionRange::AtLeast(n) => out.push_str(&format!("{{{n},}}")),
                    ast::RepetitionRange::Bounded(n, m) => out.push_str(&format!("{{{n},{m}}}")),
                },
            }
        }
        Ast::Group(group) => {
            let mut inner = ctx;
            if let ast::GroupKind::NonCapturing(flags) = &group.kind {
                inner.apply(flags)?;
            }
            out.push('(');
            print(&group.ast, inner, pos, out)?;
            out.push(')');
        }
        Ast::Alternation(alt) => {
            for (i, branch) in alt.asts.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                if let Ast::Concat(c) = branch
                    && c.asts.iter().any(|a| matches!(a, Ast::Flags(_)))
                {
                    return Err("inline flags inside an alternative".into());
                }
                print(branch, ctx, pos, out)?;
            }
        }
        Ast::Concat(concat) => {
            // `(?i)` and the like change the flags of what follows, to the end of the group.
            let mut ctx = ctx;
            let items = &concat.asts;
            let last = items.len().saturating_sub(1);
            for (k, item) in items.iter().enumerate() {
                let item_pos = Pos {
                    start: pos.start && k == 0,
                    end: pos.end && k == last,
                };
                match item {
                    Ast::Flags(flags) => ctx.apply(&flags.flags)?,
                    Ast::Assertion(a) if a.kind == ast::AssertionKind::WordBoundary => {
                        out.push_str(&boundary(items, k, pos)?);
                    }
                    _ => print(item, ctx, item_pos, out)?,
                }
            }
        }
    }
    Ok(())
}

fn print_class_item(item: &ast::ClassSetItem, ctx: Ctx, out: &mut String) -> Result<(), String> {
    use ast::ClassSetItem as I;
    match item {
        I::Empty(_) => {}
        I::Literal(lit) => {
            push_class_char(lit.c, out)?;
            if ctx.case_insensitive && lit.c.is_ascii_alphabetic() {
                let other = if lit.c.is_ascii_lowercase() {
                    lit.c.to_ascii_uppercase()
                } else {
                    lit.c.to_ascii_lowercase()
                };
                out.push(other);
            } else if ctx.case_insensitive && lit.c.to_lowercase().ne(lit.c.to_uppercase()) {
                return Err(format!(
                    "a case-insensitive non-ASCII letter {:?} in a class",
                    lit.c
                ));
            }
        }
        I::Range(range) => {
            let (a, b) = (range.start.c, range.end.c);
            push_class_char(a, out)?;
            out.push('-');
            push_class_char(b, out)?;
            if ctx.case_insensitive {
                if a.is_ascii_lowercase() && b.is_ascii_lowercase() {
                    out.push_str(&format!(
                        "{}-{}",
                        a.to_ascii_uppercase(),
                        b.to_ascii_uppercase()
                    ));
                } else if a.is_ascii_uppercase() && b.is_ascii_uppercase() {
                    out.push_str(&format!(
                        "{}-{}",
                        a.to_ascii_lowercase(),
                        b.to_ascii_lowercase()
                    ));
                } else if !no_word(a, b) || b >= '\u{80}' {
                    return Err("a case-insensitive class range across letters".into());
                }
            }
        }
        I::Perl(class) if !class.negated => out.push_str(match class.kind {
            ast::ClassPerlKind::Digit => "0-9",
            ast::ClassPerlKind::Word => WORD,
            ast::ClassPerlKind::Space => SPACE,
        }),
        I::Perl(_) => return Err("a negated class (`\\S`, `\\D`, `\\W`) inside a class".into()),
        I::Union(union) => {
            for item in &union.items {
                print_class_item(item, ctx, out)?;
            }
        }
        I::Ascii(_) => return Err("an ASCII class (`[[:alpha:]]`)".into()),
        I::Unicode(_) => return Err("a Unicode class (`\\p{..}`)".into()),
        I::Bracketed(_) => return Err("a class nested in a class".into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, expect: Result<(&str, &str), ()>) {
        let ast = ast::parse::Parser::new().parse(pattern).unwrap();
        let got = to_sigma(&ast);
        match expect {
            Ok((p, flags)) => assert_eq!(
                got,
                Ok(SigmaRegex {
                    pattern: p.into(),
                    flags: flags.into()
                }),
                "{pattern}"
            ),
            Err(()) => assert!(got.is_err(), "{pattern} should be refused, got {got:?}"),
        }
    }

    #[test]
    fn rewrites_into_the_subset() {
        check(r"NVRM: Xid \d+", Ok((r"NVRM: Xid [0-9]+", "")));
        check(
            r"(?P<pci>[\w.:-]+?) (?:x|y)",
            Ok((r"([A-Za-z0-9_.:\-]+) (x|y)", "")),
        );
        check(r"(?i)failed to init", Ok(("failed to init", "i")));
        check(r"a (?i:nvml) b", Ok(("a ([Nn][Vv][Mm][Ll]) b", "")));
        check(r"(?i)a[b-d]", Ok(("a[b-d]", "i")));
        check(r"x(?i)[b-d]", Ok(("x[b-dB-D]", "")));
        check(r"a\s\S", Ok((r"a[ \t\n\r\f\x0b][^ \t\n\r\f\x0b]", "")));
        check("a\tb[\n]", Ok((r"a\tb[\n]", "")));
        check(r"(?s)a.b", Ok(("a.b", "s")));
        check(r"x(?s:a.b)", Ok((r"x(a(.|\n)b)", "")));
        check(r"a\.b\\c\$", Ok((r"a\.b\\c\$", "")));
        check(r"[\]\[^-]", Ok((r"[\]\[\^\-]", "")));
    }

    #[test]
    fn optional_ends_are_dropped_and_boundaries_become_characters() {
        check(
            r"Xid \((?P<pci>[^)]*)\): (?P<xid>79)\b(?:,\s*pid=(?P<pid>\d+))?",
            Ok((r"Xid \(([^)]*)\): (79)([^A-Za-z0-9_]|$)", "")),
        );
        check(r"\bxid", Ok((r"(^|[^A-Za-z0-9_])xid", "")));
        check(r"xid\b ", Ok(("xid ", "")));
        check(r"(?:\s+)?oom\b", Ok((r"oom([^A-Za-z0-9_]|$)", "")));
        check(r"x(?:a\b|b)", Ok((r"x(a([^A-Za-z0-9_]|$)|b)", "")));
        check(r"x(?:a\b|b)c", Err(()));
        check(
            r"A_B\b|(?:\bnv x|y)",
            Ok((r"A_B([^A-Za-z0-9_]|$)|((^|[^A-Za-z0-9_])nv x|y)", "")),
        );
        check(r"(?i)ab|cd", Ok(("ab|cd", "i")));
        check(r".\b.", Err(()));
    }

    #[test]
    fn refuses_what_has_no_exact_rewrite() {
        for p in [
            r"\pL", r"a\B", r"[^\S]", r"a(?i)ä", r"a(?m)^b", r"(?-i)a", r"a\x00",
        ] {
            check(p, Err(()));
        }
    }
}
