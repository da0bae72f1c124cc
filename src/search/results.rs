//! Searching: user text to a query (`query`), one pass that ranks entries and counts documents,
//! entries grouped by document (a section shown when it scores nearly as well as its file), and
//! highlighted snippets.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;
use tantivy::collector::{Count, FilterCollector, TopDocs};
use tantivy::schema::{Field, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{TantivyDocument, Term};

use super::{ParsedQuery, SearchError, SearchIndex, ms, tokenizer};
use crate::format::first_chars;

/// How much a section's score counts, against its whole file's, when ranking documents.
const SECTION_WEIGHT: f32 = 0.6;

/// One result: a runbook or incident, pointing at its best-matching section.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub kind: String,
    pub id: String,
    pub title: String,
    pub url: String,
    /// HTML: escaped text with `<b>` around the matched words.
    pub snippet: String,
    pub score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    pub severity: String,
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    pub path: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    /// Documents that match, all of them (not only the hits shown).
    pub total: usize,
    pub elapsed_ms: f64,
}
impl SearchIndex {
    /// Searches; `text` is what the user typed (never a syntax error).
    pub fn search(
        &self,
        text: &str,
        limit: usize,
        kind: Option<&str>,
    ) -> Result<SearchResults, SearchError> {
        let started = Instant::now();
        let mut parsed = ParsedQuery::parse(text);
        if let Some(kind) = kind {
            parsed.filters.kind = Some(kind.to_lowercase());
        }
        let searcher = self.reader.searcher();
        // Typos are only looked for when a word is not in the index as typed.
        let known = |field: Field, token: &str| {
            searcher
                .doc_freq(&Term::from_field_text(field, token))
                .is_ok_and(|n| n > 0)
        };
        let Some(query) = parsed.build(&self.fields, &known) else {
            return Ok(SearchResults {
                hits: Vec::new(),
                total: 0,
                elapsed_ms: ms(started.elapsed()),
            });
        };
        let limit = limit.clamp(1, 1000);
        // One pass ranks the entries and counts the documents (their whole-file entries).
        let files = FilterCollector::new("is_file".to_string(), |v: u64| v == 1, Count);
        let (top, total) = searcher.search(
            &query,
            &(TopDocs::with_limit(limit * 4 + 8).order_by_score(), files),
        )?;
        // Group by document. A section is shown instead of the whole file when it scores nearly
        // as well: the hit then links to `#fix` rather than the top of the page.
        let mut order: Vec<String> = Vec::new();
        let mut entries: HashMap<String, Entry> = HashMap::new();
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            let key = text_of(&doc, self.fields.key);
            let (file_key, is_section) = match key.split_once('#') {
                Some((file, _)) => (file.to_string(), true),
                None => (key, false),
            };
            let entry = entries.entry(file_key.clone()).or_insert_with(|| {
                order.push(file_key);
                Entry::default()
            });
            let slot = if is_section {
                &mut entry.section
            } else {
                &mut entry.file
            };
            if slot.is_none() {
                *slot = Some((score, doc));
            }
        }
        let mut generator = SnippetGenerator::new(
            parsed.highlight_terms(),
            TextAnalyzer::from(tokenizer::LoreTokenizer),
            self.fields.body,
            if parsed.has_cjk { 360 } else { 220 },
        );
        generator.set_max_num_chars(if parsed.has_cjk { 360 } else { 220 });
        // A short section matches a few words more strongly than its whole file does, so sections
        // count for less when documents are ranked.
        let rank = |e: &Entry| {
            let file = e.file.as_ref().map_or(0.0, |(s, _)| *s);
            let section = e.section.as_ref().map_or(0.0, |(s, _)| *s);
            file.max(SECTION_WEIGHT * section)
        };
        order.sort_by(|a, b| rank(&entries[b]).total_cmp(&rank(&entries[a])));
        let hits = order
            .into_iter()
            .take(limit)
            .filter_map(|key| entries.remove(&key))
            .filter_map(|entry| {
                let score = rank(&entry);
                let file_score = entry.file.as_ref().map_or(0.0, |(s, _)| *s);
                let doc = match (entry.file, entry.section) {
                    (Some(_), Some((s, doc))) if s >= 0.7 * file_score => doc,
                    (Some((_, doc)), _) => doc,
                    (None, section) => section?.1,
                };
                Some(self.hit(&doc, score, &generator))
            })
            .collect();
        Ok(SearchResults {
            hits,
            total,
            elapsed_ms: ms(started.elapsed()),
        })
    }

    fn hit(&self, doc: &TantivyDocument, score: f32, generator: &SnippetGenerator) -> SearchHit {
        let f = self.fields;
        let kind = text_of(doc, f.kind);
        let id = text_of(doc, f.id);
        let anchor = doc
            .get_first(f.anchor)
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let folder = match kind.as_str() {
            "incident" => "incidents",
            "stack" => "stacks",
            "compat" => "compat",
            _ => "runbooks",
        };
        let url = match &anchor {
            Some(a) => format!("/{folder}/{id}#{a}"),
            None => format!("/{folder}/{id}"),
        };
        let snippet = generator.snippet_from_doc(doc);
        let snippet = if snippet.highlighted().is_empty() {
            // Nothing to highlight (a hit on the title or aliases): the summary, or for a section
            // its first words.
            let summary = text_of(doc, f.summary);
            let text = if summary.is_empty() {
                text_of(doc, f.body)
            } else {
                summary
            };
            html_escape(&first_chars(&text, 200))
        } else {
            snippet.to_html()
        };
        SearchHit {
            kind,
            id,
            title: text_of(doc, f.display_title),
            url,
            snippet,
            score,
            section: doc
                .get_first(f.section)
                .and_then(|v| v.as_str())
                .map(str::to_string),
            severity: text_of(doc, f.severity),
            tags: doc
                .get_all(f.tags)
                .filter_map(|v| v.as_str())
                .map(str::to_string)
                .collect(),
            date: doc
                .get_first(f.date)
                .and_then(|v| v.as_str())
                .map(str::to_string),
            path: text_of(doc, f.path),
        }
    }
}

/// The best whole-file entry and the best section entry of one document in a result list.
#[derive(Default)]
struct Entry {
    file: Option<(f32, TantivyDocument)>,
    section: Option<(f32, TantivyDocument)>,
}

fn text_of(doc: &TantivyDocument, field: Field) -> String {
    doc.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
