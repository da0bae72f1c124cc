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

/// Markdown to HTML that is safe to put in a page: headings get their anchors as `id`s, raw HTML
/// in the source is shown as text, and the result goes through a sanitizer so no script, event
/// handler or `javascript:` URL survives whatever the Markdown says.
pub fn to_html(markdown: &str) -> String {
    use pulldown_cmark::{CowStr, html};
    let mut seen = Vec::new();
    let mut events = Vec::new();
    let mut parser = parser(markdown).peekable();
    while let Some(event) = parser.next() {
        match event {
            Event::Start(Tag::Heading {
                level,
                classes,
                attrs,
                ..
            }) => {
                // The anchor needs the heading's text, which follows.
                let mut inner = Vec::new();
                let mut text = String::new();
                for next in parser.by_ref() {
                    if matches!(next, Event::End(TagEnd::Heading(_))) {
                        break;
                    }
                    if let Event::Text(t) | Event::Code(t) = &next {
                        text.push_str(t);
                    }
                    inner.push(next);
                }
                let anchor = unique(slug(&text), &mut seen);
                events.push(Event::Start(Tag::Heading {
                    level,
                    id: Some(CowStr::from(anchor)),
                    classes,
                    attrs,
                }));
                events.extend(inner);
                events.push(Event::End(TagEnd::Heading(level)));
            }
            Event::Html(raw) | Event::InlineHtml(raw) => events.push(Event::Text(raw)),
            other => events.push(other),
        }
    }
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events.into_iter());
    sanitize(&out)
}

/// Keeps the tags Markdown produces, the heading ids and code languages; drops everything else.
fn sanitize(html: &str) -> String {
    use std::collections::{HashMap, HashSet};
    let mut tag_attributes: HashMap<&str, HashSet<&str>> = HashMap::new();
    for heading in ["h1", "h2", "h3", "h4", "h5", "h6"] {
        tag_attributes.insert(heading, ["id"].into());
    }
    tag_attributes.insert("code", ["class"].into());
    tag_attributes.insert("th", ["style"].into());
    tag_attributes.insert("td", ["style"].into());
    tag_attributes.insert("input", ["type", "checked", "disabled"].into());
    tag_attributes.insert("a", ["href", "title"].into());
    ammonia::Builder::default()
        .add_tags(["input"])
        .tag_attributes(tag_attributes)
        .url_schemes(["http", "https", "mailto"].into())
        .link_rel(Some("noopener noreferrer"))
        .clean(html)
        .to_string()
}

/// The Markdown of one section (heading line excluded), up to the next heading of the same or a
/// higher level; `anchor` as [`plain_text`] and [`to_html`] compute it.
pub fn section_markdown<'a>(markdown: &'a str, anchor: &str) -> Option<&'a str> {
    let mut seen = Vec::new();
    let mut found: Option<(u8, usize)> = None;
    let mut heading: Option<(u8, usize, String)> = None;
    for (event, range) in parser(markdown).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let level = level_number(level);
                if let Some((wanted, start)) = found
                    && level <= wanted
                {
                    return Some(markdown[start..range.start].trim());
                }
                heading = Some((level, range.end, String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, text)) = &mut heading {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, end, text)) = heading.take() {
                    let this = unique(slug(&text), &mut seen);
                    if found.is_none() && this == anchor {
                        found = Some((level, end));
                    }
                }
            }
            _ => {}
        }
    }
    found.map(|(_, start)| markdown[start..].trim())
}

#[cfg(test)]
mod html_tests {
    use super::*;

    #[test]
    fn headings_get_anchors() {
        let html = to_html("## Fix\n\ntext\n\n## 中文摘要\n\n## Fix\n");
        assert!(html.contains("<h2 id=\"fix\">Fix</h2>"), "{html}");
        assert!(html.contains("<h2 id=\"中文摘要\">"), "{html}");
        assert!(html.contains("<h2 id=\"fix-2\">"), "{html}");
    }

    #[test]
    fn nothing_executable_survives() {
        let html = to_html(
            "<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n<a href=\"#\" onclick=\"x()\">y</a>\n\n```html\n<script>ok in code</script>\n```\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<a href=\"#\" onclick"), "{html}");
        assert!(
            html.contains("&lt;script&gt;"),
            "raw HTML is shown as text: {html}"
        );
    }

    #[test]
    fn sections() {
        let md = "## Symptoms\nA\n## Fix\n1. reboot\n### Detail\nmore\n## Why it happens\nB\n";
        assert_eq!(
            section_markdown(md, "fix"),
            Some("1. reboot\n### Detail\nmore")
        );
        assert_eq!(section_markdown(md, "why-it-happens"), Some("B"));
        assert_eq!(section_markdown(md, "nope"), None);
    }
}
