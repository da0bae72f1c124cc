//! The one place that builds the Markdown parser: plain text and sections for the search index,
//! heading anchors shared with the web pages (so `/runbooks/<id>#fix` always points somewhere).

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Parser options used everywhere Markdown is read.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

pub fn parser(markdown: &str) -> Parser<'_> {
    Parser::new_ext(markdown, options())
}

/// The anchor of a heading: lowercase, words joined by `-`, punctuation dropped; letters of any
/// script are kept (`中文摘要` stays `中文摘要`).
pub fn slug(heading: &str) -> String {
    let mut out = String::with_capacity(heading.len());
    let mut dash = false;
    for c in heading.trim().chars() {
        if c.is_alphanumeric() || c == '_' {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() || c == '-' {
            dash = true;
        }
    }
    if out.is_empty() {
        "section".to_string()
    } else {
        out
    }
}

/// A `##`-or-deeper heading and the plain text under it (up to the next heading of any level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub heading: String,
    pub anchor: String,
    pub level: u8,
    pub text: String,
}

/// The document as plain text (what search indexes and snippets show), and its sections.
/// Anchors are unique within the document: a repeated heading gets `-2`, `-3`, ...
pub fn plain_text(markdown: &str) -> (String, Vec<Section>) {
    let mut whole = String::new();
    let mut sections: Vec<Section> = Vec::new();
    let mut heading: Option<(u8, String)> = None;
    let mut seen: Vec<String> = Vec::new();
    for event in parser(markdown) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((level_number(level), String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text)) = heading.take() {
                    let anchor = unique(slug(&text), &mut seen);
                    push_block(&mut whole, &text);
                    sections.push(Section {
                        heading: text,
                        anchor,
                        level,
                        text: String::new(),
                    });
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                match &mut heading {
                    Some((_, h)) => h.push_str(&t),
                    None => {
                        whole.push_str(&t);
                        if let Some(s) = sections.last_mut() {
                            s.text.push_str(&t);
                        }
                    }
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                let target = match &mut heading {
                    Some((_, h)) => h,
                    None => {
                        if let Some(s) = sections.last_mut() {
                            s.text.push(' ');
                        }
                        &mut whole
                    }
                };
                target.push(' ');
            }
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableRow
                | TagEnd::BlockQuote(_),
            ) => {
                whole.push('\n');
                if let Some(s) = sections.last_mut() {
                    s.text.push('\n');
                }
            }
            Event::End(TagEnd::TableCell) => {
                whole.push(' ');
                if let Some(s) = sections.last_mut() {
                    s.text.push(' ');
                }
            }
            _ => {}
        }
    }
    for s in &mut sections {
        s.text = s.text.trim().to_string();
    }
    (whole.trim().to_string(), sections)
}

fn push_block(whole: &mut String, text: &str) {
    if !whole.is_empty() && !whole.ends_with('\n') {
        whole.push('\n');
    }
    whole.push_str(text);
    whole.push('\n');
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// `anchor`, or `anchor-2`, `anchor-3`, ... if taken.
pub fn unique(anchor: String, seen: &mut Vec<String>) -> String {
    let mut candidate = anchor.clone();
    let mut n = 2;
    while seen.contains(&candidate) {
        candidate = format!("{anchor}-{n}");
        n += 1;
    }
    seen.push(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("Fix"), "fix");
        assert_eq!(slug("Why it happens"), "why-it-happens");
        assert_eq!(slug("中文摘要"), "中文摘要");
        assert_eq!(
            slug("  Step 2: reload `nvidia.ko`!  "),
            "step-2-reload-nvidiako"
        );
        assert_eq!(slug("???"), "section");
    }

    #[test]
    fn sections_and_text() {
        let md = "Intro *text*.\n\n## Symptoms\n\n- `nvidia-smi` fails\n- more\n\n## Fix\n\n```sh\nreboot\n```\n\n## Fix\nagain\n";
        let (text, sections) = plain_text(md);
        assert!(text.starts_with("Intro text."));
        assert!(text.contains("nvidia-smi fails"));
        let anchors: Vec<&str> = sections.iter().map(|s| s.anchor.as_str()).collect();
        assert_eq!(anchors, ["symptoms", "fix", "fix-2"]);
        assert_eq!(sections[1].text, "reboot");
        assert_eq!(sections[0].text, "nvidia-smi fails\nmore");
    }
}
