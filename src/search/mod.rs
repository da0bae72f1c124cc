//! Full-text search over runbooks and incidents with tantivy, for Chinese and English alike.
//!
//! The index under `<root>/.lore/index` is a cache: it carries a schema version and a manifest of
//! the files it holds (path and stamp); when it is missing, unreadable or of another version it is
//! rebuilt from the files, and otherwise only the files that changed are re-indexed.
//! Each file is indexed whole and once per section, so a hit can point at `#fix`.

mod document;
mod query;
pub mod similar;
#[cfg(test)]
mod tests;
pub mod tokenizer;

pub use document::IndexDoc;
pub use query::{Filters, ParsedQuery};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;
use tantivy::collector::{Count, FilterCollector, TopDocs};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::library::{self, Document};

/// Bump when the schema, the tokenizer or what is indexed changes: old indexes are rebuilt.
pub const SCHEMA_VERSION: u32 = 4;
const VERSION_FILE: &str = "lore-schema-version";
const MANIFEST_FILE: &str = "lore-manifest";
/// Writer memory for incremental updates and for a full build.
const SMALL_HEAP: usize = 30 << 20;
/// How much a section's score counts, against its whole file's, when ranking documents.
const SECTION_WEIGHT: f32 = 0.6;
const BULK_HEAP: usize = 200 << 20;

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
    #[error("search index {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the search index is being updated by another lore process; try again")]
    Busy,
}

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

fn schema() -> (Schema, Fields) {
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

/// What a sync did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncStats {
    pub added: usize,
    pub updated: usize,
    pub removed: usize,
    pub unchanged: usize,
    /// Why the whole index was rebuilt, if it was.
    pub rebuilt: Option<String>,
    pub elapsed_ms: f64,
}

pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    writer: Mutex<Option<IndexWriter>>,
    fields: Fields,
    /// Where the index lives on disk (none for an in-memory index).
    dir: Option<PathBuf>,
    /// path → stamp of the files in the index.
    manifest: Mutex<HashMap<String, String>>,
    /// Set when the index was created fresh (or rebuilt), with the reason.
    fresh: Mutex<Option<String>>,
}

fn register(index: &mut Index) {
    // Segments are searched on all cores: a query over 100,000 documents is CPU-bound.
    let _ = index.set_default_multithread_executor();
    index.tokenizers().register(
        tokenizer::NAME,
        TextAnalyzer::from(tokenizer::LoreTokenizer),
    );
}

impl SearchIndex {
    /// An index in memory (tests).
    pub fn in_ram() -> SearchIndex {
        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        SearchIndex::from_index(index, fields, None, Some("new".into()))
            .expect("an in-memory index opens")
    }

    /// Opens the index in `dir`, or creates it (again) when it is missing, corrupt or of another
    /// schema version.
    pub fn open(dir: &Path) -> Result<SearchIndex, SearchError> {
        let version = std::fs::read_to_string(dir.join(VERSION_FILE)).ok();
        let reason = match version.as_deref().map(str::trim) {
            None if !dir.exists() => Some("no index yet".to_string()),
            None => Some("the index has no version file".to_string()),
            Some(v) if v != SCHEMA_VERSION.to_string() => Some(format!(
                "the index has schema version {v}, this lore needs {SCHEMA_VERSION}"
            )),
            Some(_) => None,
        };
        if reason.is_none() {
            match SearchIndex::open_existing(dir) {
                Ok(index) => return Ok(index),
                Err(SearchError::Busy) => return Err(SearchError::Busy),
                Err(e) => {
                    return SearchIndex::create(dir, format!("the index could not be read ({e})"));
                }
            }
        }
        SearchIndex::create(dir, reason.unwrap_or_default())
    }

    fn open_existing(dir: &Path) -> Result<SearchIndex, SearchError> {
        let (_, fields) = schema();
        let index = Index::open_in_dir(dir)?;
        let (expected, _) = schema();
        if index.schema() != expected {
            return Err(SearchError::Index(tantivy::TantivyError::SchemaError(
                "schema differs".into(),
            )));
        }
        let manifest =
            std::fs::read_to_string(dir.join(MANIFEST_FILE)).map_err(|source| SearchError::Io {
                path: dir.join(MANIFEST_FILE),
                source,
            })?;
        let opened = SearchIndex::from_index(index, fields, Some(dir.to_path_buf()), None)?;
        // A corrupt segment shows when its data is read: touch every segment once.
        let searcher = opened.reader.searcher();
        for segment in searcher.segment_readers() {
            segment.inverted_index(fields.title)?;
            let store = segment
                .get_store_reader(1)
                .map_err(|source| SearchError::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
            if segment.num_docs() > 0 {
                let first = segment.doc_ids_alive().next().unwrap_or(0);
                store.get::<TantivyDocument>(first)?;
            }
        }
        *opened.manifest.lock().expect("not poisoned") = manifest
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(p, s)| (p.to_string(), s.to_string()))
            .collect();
        Ok(opened)
    }

    fn create(dir: &Path, reason: String) -> Result<SearchIndex, SearchError> {
        let io = |source| SearchError::Io {
            path: dir.to_path_buf(),
            source,
        };
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(io)?;
        }
        std::fs::create_dir_all(dir).map_err(io)?;
        let (schema, fields) = schema();
        let index = Index::create_in_dir(dir, schema)?;
        library::write_atomically(
            &dir.join(VERSION_FILE),
            SCHEMA_VERSION.to_string().as_bytes(),
        )
        .map_err(io)?;
        SearchIndex::from_index(index, fields, Some(dir.to_path_buf()), Some(reason))
    }

    fn from_index(
        mut index: Index,
        fields: Fields,
        dir: Option<PathBuf>,
        fresh: Option<String>,
    ) -> Result<SearchIndex, SearchError> {
        register(&mut index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            writer: Mutex::new(None),
            fields,
            dir,
            manifest: Mutex::new(HashMap::new()),
            fresh: Mutex::new(fresh),
        })
    }

    pub fn fields(&self) -> Fields {
        self.fields
    }

    /// Number of files (runbooks and incidents) in the index.
    pub fn len(&self) -> usize {
        self.manifest.lock().expect("not poisoned").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` with the writer, opening it on first use.
    fn with_writer<R>(
        &self,
        heap: usize,
        f: impl FnOnce(&mut IndexWriter) -> Result<R, SearchError>,
    ) -> Result<R, SearchError> {
        let mut guard = self.writer.lock().expect("not poisoned");
        if guard.is_none() {
            let writer = self.index.writer(heap).map_err(|e| match e {
                tantivy::TantivyError::LockFailure(..) => SearchError::Busy,
                other => SearchError::Index(other),
            })?;
            *guard = Some(writer);
        }
        f(guard.as_mut().expect("just set"))
    }

    /// Brings the index in line with the files under `root`: re-indexes changed and new files,
    /// drops deleted ones. With `rebuild`, re-indexes everything.
    pub fn sync(
        &self,
        root: &Path,
        rebuild: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SyncStats, SearchError> {
        let started = Instant::now();
        let io = |source| SearchError::Io {
            path: root.to_path_buf(),
            source,
        };
        let on_disk = library::stamps(root).map_err(io)?;
        let fresh = self.fresh.lock().expect("not poisoned").take();
        let rebuilt = if rebuild {
            Some("asked to rebuild".to_string())
        } else {
            fresh
        };
        let mut manifest = self.manifest.lock().expect("not poisoned");
        if rebuilt.is_some() {
            manifest.clear();
        }
        let mut stats = SyncStats {
            rebuilt: rebuilt.clone(),
            ..SyncStats::default()
        };
        let mut changed: Vec<library::FileStamp> = Vec::new();
        for file in on_disk.iter() {
            match manifest.get(&file.rel) {
                Some(stamp) if *stamp == file.stamp => stats.unchanged += 1,
                Some(_) => {
                    stats.updated += 1;
                    changed.push(file.clone());
                }
                None => {
                    stats.added += 1;
                    changed.push(file.clone());
                }
            }
        }
        let present: std::collections::HashSet<&str> =
            on_disk.iter().map(|f| f.rel.as_str()).collect();
        let removed: Vec<String> = manifest
            .keys()
            .filter(|p| !present.contains(&p[..]))
            .cloned()
            .collect();
        stats.removed = removed.len();
        self.apply(
            root,
            &mut manifest,
            changed,
            removed,
            rebuilt.is_some(),
            progress,
        )?;
        stats.elapsed_ms = ms(started.elapsed());
        Ok(stats)
    }

    /// Like [`SearchIndex::sync`] for a few files known to have changed (what a file watcher
    /// reports): nothing else is looked at. `rels` are paths relative to the root.
    pub fn sync_files(&self, root: &Path, rels: &[String]) -> Result<SyncStats, SearchError> {
        let started = Instant::now();
        let mut manifest = self.manifest.lock().expect("not poisoned");
        let mut stats = SyncStats::default();
        let mut changed = Vec::new();
        let mut removed = Vec::new();
        for rel in rels {
            match (library::stamp(root, rel), manifest.get(rel)) {
                (Some(now), Some(before)) if now.stamp == *before => stats.unchanged += 1,
                (Some(now), before) => {
                    if before.is_some() {
                        stats.updated += 1;
                    } else {
                        stats.added += 1;
                    }
                    changed.push(now);
                }
                (None, Some(_)) => {
                    stats.removed += 1;
                    removed.push(rel.clone());
                }
                (None, None) => {}
            }
        }
        self.apply(root, &mut manifest, changed, removed, false, &mut |_, _| {})?;
        stats.elapsed_ms = ms(started.elapsed());
        Ok(stats)
    }

    /// Re-indexes `changed` and drops `removed` in one commit, then records them in the manifest.
    fn apply(
        &self,
        root: &Path,
        manifest: &mut HashMap<String, String>,
        changed: Vec<library::FileStamp>,
        removed: Vec<String>,
        rebuild: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), SearchError> {
        if changed.is_empty() && removed.is_empty() && !rebuild {
            return Ok(());
        }
        let heap = if changed.len() > 1000 {
            BULK_HEAP
        } else {
            SMALL_HEAP
        };
        let total = changed.len();
        self.with_writer(heap, |writer| {
            if rebuild {
                writer.delete_all_documents()?;
            }
            for path in &removed {
                writer.delete_term(Term::from_field_text(self.fields.path, path));
            }
            // Parse in parallel batches; add in order.
            for (done, batch) in changed.chunks(512).enumerate() {
                let docs = crate::par::map(batch, |file| library::load_document(root, &file.rel).0);
                for (file, doc) in batch.iter().zip(docs) {
                    writer.delete_term(Term::from_field_text(self.fields.path, &file.rel));
                    let doc = match doc {
                        Some(Document::Runbook(r)) => Some(IndexDoc::from_runbook(&r)),
                        Some(Document::Incident(i)) => Some(IndexDoc::from_incident(&i)),
                        None => None,
                    };
                    if let Some(doc) = doc {
                        self.add(writer, &doc)?;
                    }
                }
                progress((done * 512 + batch.len()).min(total), total);
            }
            writer.commit()?;
            Ok(())
        })?;
        for path in &removed {
            manifest.remove(path);
        }
        for file in changed {
            manifest.insert(file.rel, file.stamp);
        }
        self.write_manifest(manifest)?;
        self.reader.reload()?;
        Ok(())
    }

    /// Indexes documents given directly (tests, and callers that already parsed them); replaces
    /// any earlier version of the same path.
    pub fn index_documents(&self, docs: &[IndexDoc]) -> Result<(), SearchError> {
        self.with_writer(SMALL_HEAP, |writer| {
            for doc in docs {
                writer.delete_term(Term::from_field_text(self.fields.path, &doc.path));
                self.add(writer, doc)?;
            }
            writer.commit()?;
            Ok(())
        })?;
        let mut manifest = self.manifest.lock().expect("not poisoned");
        for doc in docs {
            manifest.insert(doc.path.clone(), String::new());
        }
        self.reader.reload()?;
        Ok(())
    }

    fn write_manifest(&self, manifest: &HashMap<String, String>) -> Result<(), SearchError> {
        let Some(dir) = &self.dir else { return Ok(()) };
        let mut text = String::with_capacity(manifest.len() * 64);
        let mut entries: Vec<_> = manifest.iter().collect();
        entries.sort();
        for (path, stamp) in entries {
            text.push_str(path);
            text.push('\t');
            text.push_str(stamp);
            text.push('\n');
        }
        let path = dir.join(MANIFEST_FILE);
        library::write_atomically(&path, text.as_bytes())
            .map_err(|source| SearchError::Io { path, source })
    }

    fn add(&self, writer: &mut IndexWriter, doc: &IndexDoc) -> Result<(), SearchError> {
        let f = self.fields;
        let key = format!("{}:{}", doc.kind, doc.id);
        // Fields every entry has: identity, filters, display.
        let mut common = TantivyDocument::default();
        common.add_text(f.path, &doc.path);
        common.add_text(f.kind, doc.kind);
        common.add_text(f.id, &doc.id);
        common.add_text(f.display_title, &doc.title);
        common.add_text(f.severity, &doc.severity);
        for tag in &doc.tags {
            common.add_text(f.tags, tag.to_lowercase());
        }
        if let Some(date) = &doc.date {
            common.add_text(f.date, date);
        }
        // The whole file carries the words that describe the document as a whole; a section only
        // its heading and text, so a title match never sends the reader to some section.
        let mut whole = common.clone();
        whole.add_text(f.key, &key);
        whole.add_text(f.unit, "file");
        whole.add_u64(f.is_file, 1);
        whole.add_text(f.title, &doc.title);
        whole.add_text(f.summary, &doc.summary);
        whole.add_text(f.more, &doc.summary);
        for tag in &doc.tags {
            whole.add_text(f.more, tag);
        }
        for alias in &doc.aliases {
            whole.add_text(f.aliases, alias);
        }
        for section in &doc.sections {
            whole.add_text(f.headings, &section.heading);
        }
        whole.add_text(f.body, &doc.body);
        for text in doc.examples.iter().chain(&doc.extra) {
            whole.add_text(f.more, text);
        }
        writer.add_document(whole)?;
        for section in &doc.sections {
            let mut part = common.clone();
            part.add_text(f.key, format!("{key}#{}", section.anchor));
            part.add_text(f.unit, "section");
            part.add_u64(f.is_file, 0);
            part.add_text(f.anchor, &section.anchor);
            part.add_text(f.section, &section.heading);
            part.add_text(f.headings, &section.heading);
            part.add_text(f.body, &section.text);
            writer.add_document(part)?;
        }
        Ok(())
    }

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
        let folder = if kind == "incident" {
            "incidents"
        } else {
            "runbooks"
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
            html_escape(&document::first_chars(&text, 200))
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

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e5).round() / 100.0
}

pub fn html_escape(text: &str) -> String {
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
