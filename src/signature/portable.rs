//! The portable regex subset: patterns must work in Rust `regex` and in RE2 alike, because `lore
//! export` hands them to node-problem-detector and Loki (RE2) and to Sigma. Rust's parser already
//! refuses look-around and back-references; this refuses what Rust accepts and RE2 does not.

use regex_syntax::ast::{self, Ast, ClassSetItem, Visitor};

/// `Ok` if the pattern is in the subset, else what is outside it.
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
            Ast::Flags(flags) => check_flags(&flags.flags),
            Ast::Group(group) => match &group.kind {
                ast::GroupKind::CaptureName {
                    starts_with_p: false,
                    name,
                } => Err(format!(
                    "named group `(?<{}>` (write `(?P<{}>`)",
                    name.name, name.name
                )),
                ast::GroupKind::NonCapturing(flags) => check_flags(flags),
                _ => Ok(()),
            },
            Ast::Assertion(assertion) => match assertion.kind {
                ast::AssertionKind::StartLine
                | ast::AssertionKind::EndLine
                | ast::AssertionKind::StartText
                | ast::AssertionKind::EndText
                | ast::AssertionKind::WordBoundary
                | ast::AssertionKind::NotWordBoundary => Ok(()),
                _ => Err("special word boundaries (`\\<`, `\\>`, `\\b{start}`, ...)".into()),
            },
            Ast::Repetition(rep) => {
                let text = &self.pattern[rep.op.span.start.offset..rep.op.span.end.offset];
                if text.starts_with("{,") {
                    Err(format!(
                        "repetition `{text}` without a lower bound (write `{{0,`)"
                    ))
                } else {
                    Ok(())
                }
            }
            Ast::ClassUnicode(class) => check_unicode_class(class),
            _ => Ok(()),
        }
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), String> {
        match item {
            ClassSetItem::Bracketed(_) => Err("a class nested in a class (`[a[b]]`)".into()),
            ClassSetItem::Unicode(class) => check_unicode_class(class),
            _ => Ok(()),
        }
    }

    fn visit_class_set_binary_op_pre(&mut self, _op: &ast::ClassSetBinaryOp) -> Result<(), String> {
        Err("class set operations (`&&`, `--`, `~~`)".into())
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

fn check_unicode_class(class: &ast::ClassUnicode) -> Result<(), String> {
    match &class.kind {
        ast::ClassUnicodeKind::NamedValue { .. } => {
            Err("Unicode property values (`\\p{name=value}`)".into())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

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
        ] {
            assert!(check(p).is_err(), "{p} should be refused");
        }
    }
}
