//! The portable regex subset: patterns must work in Rust `regex` and in RE2 alike, because `lore
//! export` hands them to node-problem-detector and Loki (RE2) and to Sigma. Rust's parser already
//! refuses look-around and back-references; this refuses what Rust accepts and RE2 does not:
//! flags and named-group forms, class set operations, Unicode class names RE2 does not know and
//! repetition counts above its limit. This is the one definition: `lore check`,
//! the engine and every export use it, so a signature that passes `check` is never dropped by an
//! export for its syntax.

use regex_syntax::ast::{self, Ast, ClassSetItem, Visitor};

/// `Ok` if the pattern is in the subset, else what is outside it, as a message for the user.
pub fn check(pattern: &str) -> Result<(), String> {
    let ast = ast::parse::Parser::new()
        .parse(pattern)
        .map_err(|e| e.kind().to_string())?;
    check_ast(pattern, &ast)
}

/// Like [`check`], for a pattern already parsed.
pub fn check_ast(pattern: &str, ast: &Ast) -> Result<(), String> {
    ast::visit(ast, Portable { pattern })
}

/// What Rust accepts and the subset does not.
fn outside(why: impl std::fmt::Display) -> String {
    format!("pattern uses syntax outside the portable subset: {why}")
}

/// What is portable syntax but RE2 still runs differently or refuses.
fn re2_lacks(why: impl std::fmt::Display) -> String {
    format!("RE2 lacks {why}")
}

struct Portable<'p> {
    pattern: &'p str,
}

impl Visitor for Portable<'_> {
    type Output = ();
    type Err = String;

    fn finish(self) -> Result<(), String> {
        Ok(())
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), String> {
        match ast {
            Ast::Flags(flags) => check_flags(&flags.flags).map_err(outside),
            Ast::Group(group) => match &group.kind {
                ast::GroupKind::CaptureName {
                    starts_with_p: false,
                    name,
                } => Err(outside(format!(
                    "named group `(?<{}>` (write `(?P<{}>`)",
                    name.name, name.name
                ))),
                ast::GroupKind::NonCapturing(flags) => check_flags(flags).map_err(outside),
                _ => Ok(()),
            },
            Ast::Assertion(assertion) => match assertion.kind {
                ast::AssertionKind::StartLine
                | ast::AssertionKind::EndLine
                | ast::AssertionKind::StartText
                | ast::AssertionKind::EndText
                | ast::AssertionKind::WordBoundary
                | ast::AssertionKind::NotWordBoundary => Ok(()),
                _ => Err(outside(
                    "special word boundaries (`\\<`, `\\>`, `\\b{start}`, ...)",
                )),
            },
            Ast::Repetition(rep) => {
                let text = &self.pattern[rep.op.span.start.offset..rep.op.span.end.offset];
                if text.starts_with("{,") {
                    return Err(outside(format!(
                        "repetition `{text}` without a lower bound (write `{{0,`)"
                    )));
                }
                if let ast::RepetitionKind::Range(range) = &rep.op.kind {
                    let (ast::RepetitionRange::Exactly(n)
                    | ast::RepetitionRange::AtLeast(n)
                    | ast::RepetitionRange::Bounded(_, n)) = *range;
                    if n > RE2_MAX_REPEAT {
                        return Err(re2_lacks(format!(
                            "repetition count {n} (RE2 allows at most {RE2_MAX_REPEAT})"
                        )));
                    }
                }
                Ok(())
            }
            Ast::ClassUnicode(class) => check_unicode_class(class),
            _ => Ok(()),
        }
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), String> {
        match item {
            ClassSetItem::Bracketed(_) => Err(outside("a class nested in a class (`[a[b]]`)")),
            ClassSetItem::Unicode(class) => check_unicode_class(class),
            _ => Ok(()),
        }
    }

    fn visit_class_set_binary_op_pre(&mut self, _op: &ast::ClassSetBinaryOp) -> Result<(), String> {
        Err(outside("class set operations (`&&`, `--`, `~~`)"))
    }
}

fn check_flags(flags: &ast::Flags) -> Result<(), String> {
    for item in &flags.items {
        if let ast::FlagsItemKind::Flag(flag) = &item.kind {
            let name = match flag {
                ast::Flag::IgnoreWhitespace => "x",
                ast::Flag::CRLF => "R",
                ast::Flag::Unicode => "u",
                _ => continue,
            };
            return Err(format!("the `{name}` flag"));
        }
    }
    Ok(())
}

/// Property values are outside the subset; class names RE2 does not know it lacks.
fn check_unicode_class(class: &ast::ClassUnicode) -> Result<(), String> {
    let name = match &class.kind {
        ast::ClassUnicodeKind::OneLetter(c) => c.to_string(),
        ast::ClassUnicodeKind::Named(name) => name.clone(),
        ast::ClassUnicodeKind::NamedValue { .. } => {
            return Err(outside("Unicode property values (`\\p{name=value}`)"));
        }
    };
    if RE2_UNICODE_NAMES.contains(&name.as_str()) {
        Ok(())
    } else {
        Err(re2_lacks(format!(
            "Unicode class `\\p{{{name}}}` (RE2 knows general categories and scripts by their exact short names)"
        )))
    }
}

/// RE2's largest repetition count (`{n,m}` with n or m above it does not compile).
const RE2_MAX_REPEAT: u32 = 1000;

/// Unicode classes RE2 knows, by their exact names: the general categories and common scripts
/// (Rust also accepts long and loosely spelled names, which RE2 refuses).
const RE2_UNICODE_NAMES: &[&str] = &[
    "Any",
    "C",
    "Cc",
    "Cf",
    "Co",
    "Cs",
    "L",
    "Ll",
    "Lm",
    "Lo",
    "Lt",
    "Lu",
    "M",
    "Mc",
    "Me",
    "Mn",
    "N",
    "Nd",
    "Nl",
    "No",
    "P",
    "Pc",
    "Pd",
    "Pe",
    "Pf",
    "Pi",
    "Po",
    "Ps",
    "S",
    "Sc",
    "Sk",
    "Sm",
    "So",
    "Z",
    "Zl",
    "Zp",
    "Zs",
    "Arabic",
    "Armenian",
    "Bengali",
    "Bopomofo",
    "Common",
    "Cyrillic",
    "Devanagari",
    "Ethiopic",
    "Georgian",
    "Greek",
    "Gujarati",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hebrew",
    "Hiragana",
    "Inherited",
    "Kannada",
    "Katakana",
    "Khmer",
    "Lao",
    "Latin",
    "Malayalam",
    "Mongolian",
    "Myanmar",
    "Oriya",
    "Sinhala",
    "Tamil",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
];

#[cfg(test)]
mod tests {
    use super::check;

    fn re2(pattern: &str) -> Result<(), String> {
        check(pattern)
    }

    #[test]
    fn re2_refuses_what_it_lacks() {
        for ok in [
            r"\pL+",
            r"\p{Greek}",
            r"[\p{Lu}\d]",
            r"a{2,1000}",
            r"(?i)x\b",
        ] {
            assert_eq!(re2(ok), Ok(()), "{ok}");
        }
        for bad in [
            r"\p{Letter}",
            r"\p{greek}",
            r"[\p{Alphabetic}]",
            r"a{1001}",
            r"a{2,}b{0,5000}",
        ] {
            assert!(re2(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn accepts_the_subset() {
        for p in [
            r"NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-f:.]+)\): (?P<xid>\d+)\b",
            r"(?i)failed to initialize nvml",
            r"^a$|\Aend\z",
            r"[^,]{0,3}\s+\pL",
        ] {
            assert_eq!(check(p), Ok(()), "{p}");
        }
    }

    #[test]
    fn refuses_what_re2_lacks() {
        for p in [
            r"(?<name>x)",
            r"(?x) a b",
            r"[a[bc]]",
            r"[a-z&&[^aeiou]]",
            r"\<word\>",
            r"a{,3}",
            r"\p{sc=Greek}",
            r"(?R)x",
            // What RE2 lacks beyond the syntax: one definition, so check refuses them too.
            r"\p{Letter}",
            r"a{1001}",
        ] {
            assert!(check(p).is_err(), "{p} should be refused");
        }
    }
}
