//! Adding one signature to a runbook file without touching anything else: the new item is
//! appended to the `signatures:` list of the front matter as text, in the indentation and line
//! endings the file already uses. Comments, key order, quoting and the body stay byte for byte
//! as they were. (Re-serialising the YAML would lose all of that.)

/// A signature to append, as it will be written.
#[derive(Debug, Clone)]
pub struct Item<'a> {
    pub id: &'a str,
    pub pattern: &'a str,
    pub example: &'a str,
    pub captures: &'a std::collections::BTreeMap<String, String>,
}

/// `text` with `item` appended to its `signatures:` list (created at the end of the front matter
/// when there is none). Refuses what it cannot edit safely: no front matter, or a list written
/// in flow style (`signatures: [{...}]`).
pub fn add_signature(text: &str, item: &Item<'_>) -> Result<String, String> {
    if item.pattern.chars().any(char::is_control) || item.id.chars().any(char::is_control) {
        return Err("the pattern and the id must be one line without control characters".into());
    }
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let bare = |l: &str| l.trim_end_matches(['\n', '\r']).to_string();
    if lines.first().map(|l| bare(l)) != Some("---".to_string()) {
        return Err("the runbook has no front matter (it must start with a `---` line)".into());
    }
    let close = lines
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, l)| bare(l) == "---")
        .map(|(i, _)| i)
        .ok_or("the runbook's front matter is not closed by a `---` line")?;
    let key = (1..close).find(|&i| {
        let l = bare(lines[i]);
        l.strip_prefix("signatures")
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    });
    let mut out = String::with_capacity(text.len() + 512);
    match key {
        None => {
            // No list yet: a new key at the end of the front matter.
            for l in &lines[..close] {
                out.push_str(l);
            }
            out.push_str("signatures:");
            out.push_str(newline);
            out.push_str(&render(item, "  ", newline));
            for l in &lines[close..] {
                out.push_str(l);
            }
        }
        Some(k) => {
            let line = bare(lines[k]);
            let value = line["signatures".len()..].trim_start()[1..].trim();
            let (value, comment) = match value.find(" #").or(value.starts_with('#').then_some(0)) {
                Some(at) => (value[..at].trim(), Some(value[at..].trim())),
                None => (value, None),
            };
            let key_line = match value {
                "" | "~" | "null" | "[]" => {
                    let mut l = "signatures:".to_string();
                    if let Some(c) = comment {
                        l.push(' ');
                        l.push_str(c);
                    }
                    l.push_str(newline);
                    l
                }
                _ => {
                    return Err(
                        "`signatures:` is written as a flow list on one line; add the signature by hand"
                            .into(),
                    );
                }
            };
            // The list runs while lines are indented, blank, comments, or items at column 0.
            let mut last = k;
            let mut item_indent: Option<String> = None;
            for (i, l) in lines.iter().enumerate().take(close).skip(k + 1) {
                let b = bare(l);
                let content = b.trim_start();
                if content.is_empty() || content.starts_with('#') {
                    continue;
                }
                let indent = &b[..b.len() - content.len()];
                let is_item = content == "-" || content.starts_with("- ");
                if indent.is_empty() && !is_item {
                    break;
                }
                if is_item && item_indent.is_none() {
                    item_indent = Some(indent.to_string());
                }
                last = i;
            }
            let indent = item_indent.unwrap_or_else(|| "  ".to_string());
            for l in &lines[..k] {
                out.push_str(l);
            }
            if last == k {
                out.push_str(&key_line);
            } else {
                out.push_str(lines[k]);
                for l in &lines[k + 1..=last] {
                    out.push_str(l);
                }
                if !lines[last].ends_with('\n') {
                    out.push_str(newline);
                }
            }
            out.push_str(&render(item, &indent, newline));
            for l in &lines[last + 1..] {
                out.push_str(l);
            }
        }
    }
    Ok(out)
}

/// The item's lines, its dash at `indent`.
fn render(item: &Item<'_>, indent: &str, newline: &str) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(indent);
        out.push_str(&text);
        out.push_str(newline);
    };
    line(format!("- id: {}", quote(item.id)));
    line(format!("  pattern: '{}'", item.pattern.replace('\'', "''")));
    line("  examples:".to_string());
    if item.captures.is_empty() {
        line(format!("    - {}", quote(item.example)));
    } else {
        line(format!("    - line: {}", quote(item.example)));
        let captures: Vec<String> = item
            .captures
            .iter()
            .map(|(k, v)| format!("{}: {}", quote(k), quote(v)))
            .collect();
        line(format!("      captures: {{{}}}", captures.join(", ")));
    }
    out
}

/// A YAML double-quoted scalar (JSON's escapes are YAML's too).
fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    static EMPTY: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();

    fn item() -> Item<'static> {
        Item {
            id: "mismatch-retyped",
            pattern: r"API mismatch: client driver version \d+(?:\.\d+)+ and kernel module version (?P<kernel>\d+(?:\.\d+)+)",
            example: "NVRM: API mismatch: client driver version 535.104.05 and kernel module version 535.86.01",
            captures: &EMPTY,
        }
    }

    const BODY: &str = "\n## Fix\n\nReboot.\n";

    #[test]
    fn appends_to_the_list_and_keeps_every_other_byte() {
        let before = "---\n# a comment that must stay\ntitle: 'Odd ''quoting'' kept'\nsummary: s\nseverity: high\nsignatures:\n  - id: first\n    pattern: \"first\"   # trailing comment\n    examples:\n      - |\n        first line\n\n# between\nrelated: [a]   # after\n---\n";
        let text = format!("{before}{BODY}");
        let after = add_signature(&text, &item()).unwrap();
        let expected_insert = "  - id: \"mismatch-retyped\"\n  ";
        assert!(after.contains(expected_insert), "{after}");
        // Everything before the insertion point and after it is unchanged.
        let at = after.find("  - id: \"mismatch-retyped\"").unwrap();
        assert_eq!(&after[..at], &text[..at]);
        let rest_start = text.find("\n# between").unwrap() + 1;
        assert!(after.ends_with(&text[rest_start..]), "{after}");
        let (runbook, problems) =
            crate::doc::Runbook::parse(std::path::Path::new("runbooks/x.md"), &after);
        let runbook = runbook.unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(runbook.signatures.len(), 2);
        assert_eq!(runbook.signatures[1].pattern, item().pattern);
        assert_eq!(runbook.signatures[1].examples[0].text, item().example);
        assert_eq!(runbook.related, vec!["a".to_string()]);
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "---\r\ntitle: T\r\nsignatures:\r\n- id: first\r\n  pattern: 'first'\r\n---\r\nbody\r\n";
        let after = add_signature(text, &item()).unwrap();
        assert!(!after.replace("\r\n", "").contains('\n'), "{after:?}");
        assert!(
            after.contains("\r\n- id: \"mismatch-retyped\"\r\n"),
            "{after:?}"
        );
        let (runbook, _) =
            crate::doc::Runbook::parse(std::path::Path::new("runbooks/x.md"), &after);
        assert_eq!(runbook.unwrap().signatures.len(), 2);
    }

    #[test]
    fn a_runbook_without_signatures_gets_the_key() {
        for text in [
            "---\ntitle: T\nsummary: s\nseverity: low\n---\nbody\n",
            "---\ntitle: T\nsummary: s\nsignatures: []   # none yet\nseverity: low\n---\nbody\n",
            "---\ntitle: T\nsummary: s\nsignatures:\nseverity: low\n---\nbody\n",
        ] {
            let after = add_signature(text, &item()).unwrap();
            assert!(after.ends_with("---\nbody\n"), "{after}");
            let (runbook, problems) =
                crate::doc::Runbook::parse(std::path::Path::new("runbooks/x.md"), &after);
            let runbook = runbook.unwrap();
            assert!(problems.is_empty(), "{text}: {problems:?}\n{after}");
            assert_eq!(runbook.signatures.len(), 1, "{after}");
            assert_eq!(runbook.title, "T");
        }
    }

    #[test]
    fn captures_and_quotes_survive() {
        let captures: std::collections::BTreeMap<String, String> = [
            ("pci".to_string(), "0000:3b:00.0".to_string()),
            ("y".to_string(), "say \"no\"".to_string()),
        ]
        .into();
        let with = Item {
            id: "q",
            pattern: r"it's (?P<pci>\S+) (?P<y>.+)",
            example: "it's 0000:3b:00.0 say \"no\"",
            captures: &captures,
        };
        let after =
            add_signature("---\ntitle: T\nsummary: s\nseverity: low\n---\n", &with).unwrap();
        let (runbook, problems) =
            crate::doc::Runbook::parse(std::path::Path::new("runbooks/x.md"), &after);
        assert!(problems.is_empty(), "{problems:?}\n{after}");
        let sig = &runbook.unwrap().signatures[0];
        assert_eq!(sig.pattern, with.pattern);
        assert_eq!(sig.examples[0].captures["y"], "say \"no\"");
        assert_eq!(sig.examples[0].captures["pci"], "0000:3b:00.0");
    }

    #[test]
    fn refuses_what_it_cannot_edit_safely() {
        assert!(add_signature("no front matter\n", &item()).is_err());
        assert!(add_signature("---\ntitle: T\n", &item()).is_err());
        assert!(add_signature("---\nsignatures: [{id: a, pattern: b}]\n---\n", &item()).is_err());
    }
}
