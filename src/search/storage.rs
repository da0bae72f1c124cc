//! The index on disk: the schema version file and the manifest (path and stamp of each file),
//! opening or rebuilding, the one writer (a lock another lore may hold), and syncing with the
//! files under a root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use tantivy::{Index, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::schema::{Fields, SCHEMA_VERSION, register, schema};
use super::{IndexDoc, SearchError, SearchIndex, ms};
use crate::library::{self, CACHE_DIR, Document};

const VERSION_FILE: &str = "lore-schema-version";
const MANIFEST_FILE: &str = "lore-manifest";
/// Writer memory for incremental updates and for a full build.
const SMALL_HEAP: usize = 30 << 20;
const BULK_HEAP: usize = 200 << 20;

/// What a caller can live with when another lore process holds the index's writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenBusy {
    /// Search the index on disk as it is: a one-off search, the other process keeps it current.
    SearchAsIs,
    /// Build one in memory: a server, where every later change must reach search.
    BuildInMemory,
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
impl SearchIndex {
    /// Where the index of `root` lives.
    pub fn dir_for(root: &Path) -> PathBuf {
        root.join(CACHE_DIR).join("index")
    }

    /// The index of `root`, synced with its files: the one fallback policy for everyone who
    /// searches. When the index on disk cannot be opened (a read-only checkout, a file where the
    /// folder should be) or updated, one is built in memory; when another lore holds its writer,
    /// `when_busy` decides. The second value says what was done instead, for the caller to show.
    pub fn open_for_root(
        root: &Path,
        when_busy: WhenBusy,
        rebuild: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(SearchIndex, Option<String>), SearchError> {
        let dir = SearchIndex::dir_for(root);
        let why = match SearchIndex::open(&dir) {
            Ok(index) => match index.sync(root, rebuild, progress) {
                Ok(_) => return Ok((index, None)),
                Err(SearchError::Busy) if when_busy == WhenBusy::SearchAsIs => {
                    let warning = "the index is being updated by another lore (serve?); searching it as it is";
                    return Ok((index, Some(warning.to_string())));
                }
                Err(e) => format!("cannot update {} ({e})", dir.display()),
            },
            Err(e) => format!("cannot use {} ({e})", dir.display()),
        };
        let index = SearchIndex::in_ram();
        index.sync(root, true, progress)?;
        Ok((
            index,
            Some(format!("{why}; searching an index built in memory")),
        ))
    }

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
                        Some(Document::Stack(s)) => Some(IndexDoc::from_stack(&s)),
                        Some(Document::Compat(c)) => Some(IndexDoc::from_compat(&c)),
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

    /// Indexes documents given directly (the unit tests, without files); replaces any earlier
    /// version of the same path.
    #[cfg(test)]
    pub(super) fn index_documents(&self, docs: &[IndexDoc]) -> Result<(), SearchError> {
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
}
