//! Splitting a document into YAML front matter and Markdown body, and typed access to the YAML
//! that records every problem with its line instead of stopping.

use std::collections::BTreeMap;
use std::path::Path;

use serde_yaml_ng::{Mapping, Value};

use super::{Problems, is_valid_id};

/// The front matter of one document: the parsed mapping plus enough of the source text to point a
/// diagnostic at the right line.
pub struct FrontMatter<'a> {
    pub map: Mapping,
    /// The YAML source, split into lines once: diagnostics look lines up often.
    lines: Vec<&'a str>,
    /// 1-based line number of the first YAML line in the file.
    first_line: usize,
}

/// The parts of a document: its YAML text, the Markdown body, and the line numbers where each starts.
#[derive(Debug, PartialEq, Eq)]
pub struct Split<'a> {
    pub yaml: &'a str,
    pub yaml_line: usize,
    pub body: &'a str,
    pub body_line: usize,
}

/// Splits `---\nyaml\n---\nbody`. Errors are `(line, message, hint)`.
pub fn split_front_matter(text: &str) -> Result<Split<'_>, (usize, String, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err((
            1,
            "the file does not start with front matter".into(),
            "the first line must be `---`, then the YAML keys, then another `---`".into(),
        ));
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for (index, line) in lines.enumerate() {
        if line.trim_end() == "---" {
            let yaml = &text[yaml_start..offset];
            let body_start = offset + line.len();
            return Ok(Split {
                yaml,
                yaml_line: 2,
                body: &text[body_start..],
                body_line: index + 3,
            });
        }
        offset += line.len();
    }
    Err((
        1,
        "the front matter is never closed".into(),
        "did you forget the closing `---` line after the YAML keys?".into(),
    ))
}

impl<'a> FrontMatter<'a> {
    /// Parses the YAML of a split document. A syntax error is reported at its line and `None`
    /// returned; a document that is not a mapping likewise.
    pub fn parse(split: &Split<'a>, problems: &mut Problems) -> Option<FrontMatter<'a>> {
        if split.yaml.trim().is_empty() {
            problems
                .error(split.yaml_line, "the front matter is empty")
                .hint = Some("add at least `title:` between the `---` lines".into());
            return None;
        }
        match serde_yaml_ng::from_str::<Value>(split.yaml) {
            Ok(Value::Mapping(map)) => Some(FrontMatter {
                map,
                lines: split.yaml.lines().collect(),
                first_line: split.yaml_line,
            }),
            Ok(_) => {
                problems
                    .error(
                        split.yaml_line,
                        "the front matter is not a set of `key: value` lines",
                    )
                    .hint = Some("each line should look like `title: ...`".into());
                None
            }
            Err(error) => {
                let line = error
                    .location()
                    .map(|l| split.yaml_line + l.line().saturating_sub(1))
                    .unwrap_or(split.yaml_line);
                let message = error.to_string();
                let message = message
                    .split(" at line ")
                    .next()
                    .unwrap_or(&message)
                    .to_string();
                let hint = if message.contains("mapping values are not allowed")
                    || message.contains("did not find expected key")
                {
                    "quote values that contain `: ` or start with a special character, e.g. 'NVRM: Xid ...'"
                } else if message.contains("found character that cannot start any token") {
                    "a tab or a stray character: YAML indents with spaces; quote patterns with single quotes"
                } else if message.contains("unknown escape") {
                    "backslashes in double quotes are escapes: use single quotes around regex patterns"
                } else {
                    "check the indentation and quoting on this line"
                };
                problems.error(line, format!("YAML: {message}")).hint = Some(hint.into());
                None
            }
        }
    }

    /// Line of a top-level `key:` (or the first front matter line if absent).
    pub fn line_of_key(&self, key: &str) -> usize {
        self.lines
            .iter()
            .position(|l| {
                l.strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with(':'))
            })
            .map(|i| self.first_line + i)
            .unwrap_or(self.first_line)
    }

    /// Line of the first occurrence of `needle` at or after `after` (a file line number).
    pub fn line_of(&self, needle: &str, after: usize) -> usize {
        let skip = after.saturating_sub(self.first_line);
        self.lines
            .iter()
            .enumerate()
            .skip(skip)
            .find(|(_, l)| l.contains(needle))
            .map(|(i, _)| self.first_line + i)
            .unwrap_or(after.max(self.first_line))
    }

    pub fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    /// A string value; numbers and booleans are accepted as their text.
    pub fn take_string(&mut self, key: &str, problems: &mut Problems) -> Option<String> {
        let value = self.take(key)?;
        match scalar_string(&value) {
            Some(s) => Some(s),
            None => {
                problems
                    .error(
                        self.line_of_key(key),
                        format!("`{key}` must be a single text value"),
                    )
                    .hint = Some(format!("write `{key}: some text`"));
                None
            }
        }
    }

    /// A required key whose value is one of a few words, read by `parse`: a missing key or an
    /// unknown word is an error naming the `choices`, and `default` stands in.
    pub fn take_choice<T>(
        &mut self,
        key: &str,
        choices: &[&str],
        parse: impl Fn(&str) -> Option<T>,
        default: T,
        problems: &mut Problems,
    ) -> T {
        let Some(text) = self.take_string(key, problems) else {
            problems
                .error(self.line_of_key(key), format!("`{key}` is missing"))
                .hint = Some(format!("add `{key}: {}`", choices.join("|")));
            return default;
        };
        parse(&text).unwrap_or_else(|| {
            problems
                .error(self.line_of_key(key), format!("unknown {key} `{text}`"))
                .hint = Some(format!("use one of {}", choices.join(", ")));
            default
        })
    }

    /// A date (`YYYY-MM-DD`, a longer timestamp read by its first ten characters); an error
    /// naming `example` when it is not one.
    pub fn take_date(
        &mut self,
        key: &str,
        example: &str,
        problems: &mut Problems,
    ) -> Option<chrono::NaiveDate> {
        let text = self.take_string(key, problems)?;
        match chrono::NaiveDate::parse_from_str(text.get(..10).unwrap_or(&text), "%Y-%m-%d") {
            Ok(date) => Some(date),
            Err(_) => {
                problems
                    .error(
                        self.line_of_key(key),
                        format!("`{key}: {text}` is not a date"),
                    )
                    .hint = Some(format!("write it as {example}"));
                None
            }
        }
    }

    /// A list of strings; a lone string counts as a list of one.
    pub fn take_list(&mut self, key: &str, problems: &mut Problems) -> Vec<String> {
        let Some(value) = self.take(key) else {
            return Vec::new();
        };
        match string_list(&value) {
            Some(list) => list,
            None => {
                problems
                    .error(
                        self.line_of_key(key),
                        format!("`{key}` must be a list of text values"),
                    )
                    .hint = Some(format!("write `{key}: [a, b]`"));
                Vec::new()
            }
        }
    }
}

/// What every document's parse starts with: the YAML read, the line of each key it knows (for
/// diagnostics found later), and its id: the `id:` key, else the file stem; checked.
pub struct Opened<'a> {
    pub split: Split<'a>,
    pub fm: FrontMatter<'a>,
    pub key_lines: BTreeMap<String, usize>,
    pub id: String,
}

/// Opens a document of `kind` (`runbook`, `incident`); `example` is a valid id to suggest.
pub fn open<'a>(
    path: &Path,
    text: &'a str,
    known: &[&str],
    kind: &str,
    example: &str,
    problems: &mut Problems,
) -> Option<Opened<'a>> {
    let split = match split_front_matter(text) {
        Ok(split) => split,
        Err((line, message, hint)) => {
            problems.error(line, message).hint = Some(hint);
            return None;
        }
    };
    let mut fm = FrontMatter::parse(&split, problems)?;
    let key_lines = known
        .iter()
        .map(|k| (k.to_string(), fm.line_of_key(k)))
        .collect();
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let id = fm.take_string("id", problems).unwrap_or(stem);
    if !is_valid_id(&id) {
        problems
            .error(
                fm.line_of_key("id"),
                format!("`{id}` is not a valid {kind} id"),
            )
            .hint = Some(format!(
            "ids are lowercase letters, digits and `-`, like `{example}`; rename the file"
        ));
    }
    Some(Opened {
        split,
        fm,
        key_lines,
        id,
    })
}

pub fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn string_list(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::Sequence(items) => items.iter().map(scalar_string).collect(),
        Value::Null => Some(Vec::new()),
        other => scalar_string(other).map(|s| vec![s]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_counts_lines() {
        let split = split_front_matter("---\ntitle: x\n---\n## Body\n").unwrap();
        assert_eq!(split.yaml, "title: x\n");
        assert_eq!(split.body, "## Body\n");
        assert_eq!(split.body_line, 4);
    }

    #[test]
    fn crlf_and_bom() {
        let split = split_front_matter("\u{feff}---\r\ntitle: x\r\n---\r\nbody").unwrap();
        assert_eq!(split.yaml, "title: x\r\n");
        assert_eq!(split.body, "body");
    }

    #[test]
    fn missing_front_matter_and_missing_close() {
        assert_eq!(split_front_matter("# Title").unwrap_err().0, 1);
        let (_, message, hint) = split_front_matter("---\ntitle: x\n").unwrap_err();
        assert!(message.contains("never closed"));
        assert!(hint.contains("closing `---`"));
    }

    #[test]
    fn yaml_error_points_at_its_line() {
        let text = "---\ntitle: ok\nsummary: [unclosed\nseverity: high\n---\n";
        let split = split_front_matter(text).unwrap();
        let mut problems = Problems::new("x.md");
        assert!(FrontMatter::parse(&split, &mut problems).is_none());
        assert_eq!(problems.list.len(), 1);
        assert!(problems.list[0].line >= 3, "{:?}", problems.list[0]);
    }

    #[test]
    fn key_lines() {
        let split = split_front_matter("---\ntitle: a\ntags: [x]\n---\n").unwrap();
        let mut problems = Problems::new("x.md");
        let fm = FrontMatter::parse(&split, &mut problems).unwrap();
        assert_eq!(fm.line_of_key("tags"), 3);
        assert_eq!(fm.line_of_key("title"), 2);
    }
}
