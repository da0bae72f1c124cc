//! The index's schema: its fields, kept from the builder (tantivy idiom), and the tokenizer every
//! text field uses. Changing either means bumping [`SCHEMA_VERSION`].

use tantivy::Index;
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::TextAnalyzer;

use super::tokenizer;

/// Bump when the schema, the tokenizer or what is indexed changes: old indexes are rebuilt.
pub const SCHEMA_VERSION: u32 = 5;

/// The fields of the schema, kept from the builder (tantivy idiom).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// `runbook:<id>` for the whole file, `runbook:<id>#<anchor>` for a section.
    pub key: Field,
    pub path: Field,
    /// `file` or `section`.
    pub unit: Field,
    /// 1 for the whole-file entry: lets one pass both rank entries and count documents.
    pub is_file: Field,
    pub kind: Field,
    pub id: Field,
    pub anchor: Field,
    pub section: Field,
    pub title: Field,
    pub aliases: Field,
    pub tags: Field,
    /// Stored for display; its words are searched through `more`.
    pub summary: Field,
    pub headings: Field,
    pub body: Field,
    /// Everything else worth finding, in one field (fewer postings lists per query word): the
    /// summary, tags, signature examples and ids, an incident's hosts, services and runbooks.
    pub more: Field,
    pub severity: Field,
    pub date: Field,
    /// The document's title, stored on every entry (sections do not index it).
    pub display_title: Field,
}
pub(super) fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(tokenizer::NAME)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let text = TextOptions::default().set_indexing_options(indexing);
    let stored_text = text.clone().set_stored();
    let fields = Fields {
        key: builder.add_text_field("key", STRING | STORED),
        path: builder.add_text_field("path", STRING | STORED),
        unit: builder.add_text_field("unit", STRING),
        is_file: builder.add_u64_field("is_file", FAST),
        kind: builder.add_text_field("kind", STRING | STORED),
        id: builder.add_text_field("id", STRING | STORED),
        anchor: builder.add_text_field("anchor", STORED),
        section: builder.add_text_field("section", STORED),
        title: builder.add_text_field("title", stored_text.clone()),
        aliases: builder.add_text_field("aliases", text.clone()),
        tags: builder.add_text_field("tags", STRING | STORED),
        summary: builder.add_text_field("summary", STORED),
        headings: builder.add_text_field("headings", text.clone()),
        body: builder.add_text_field("body", stored_text),
        more: builder.add_text_field("more", text),
        severity: builder.add_text_field("severity", STRING | STORED),
        date: builder.add_text_field("date", STORED),
        display_title: builder.add_text_field("display_title", STORED),
    };
    (builder.build(), fields)
}

pub(super) fn register(index: &mut Index) {
    // Segments are searched on all cores: a query over 100,000 documents is CPU-bound.
    let _ = index.set_default_multithread_executor();
    index.tokenizers().register(
        tokenizer::NAME,
        TextAnalyzer::from(tokenizer::LoreTokenizer),
    );
}
