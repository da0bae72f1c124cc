//! Loading a library root: every runbook and incident under it, parsed, with every problem found.
//!
//! A broken file is reported and skipped; the others load. Links between documents (`related`,
//! an incident's `runbooks`) and duplicate ids are checked once everything is read.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::doc::compat::Compat;
use crate::doc::{Diagnostic, Incident, Runbook, Stack};
use crate::signature::{Matcher, PatternCache};

/// Documents larger than this are refused (a runbook is a page of text, not a log dump).
pub const MAX_DOCUMENT: u64 = 4 << 20;

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("{path}: cannot read the library root: {source}")]
    Root {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[derive(Debug, Default)]
pub struct Library {
    pub root: PathBuf,
    pub runbooks: Vec<Runbook>,
    pub incidents: Vec<Incident>,
    /// `stacks/*.md`: the combinations a team tested, with verdicts.
    pub stacks: Vec<Stack>,
    /// `compat/*.md`: vendors' compatibility facts and the rules that read them.
    pub compat: Vec<Compat>,
    pub diagnostics: Vec<Diagnostic>,
    /// What each file parsed to, by path relative to the root, so that a reload re-reads only
    /// the files that changed.
    files: HashMap<String, Kept>,
    read: usize,
}

/// What the library keeps about each file once its document is in `runbooks` or `incidents`.
#[derive(Debug, Clone)]
struct Kept {
    identity: Identity,
    etag: Option<String>,
    /// It parsed to a document (which may still have been left out as a duplicate).
    had_document: bool,
    diagnostics: Vec<Diagnostic>,
}

/// One document file as last read: its identity on disk and what it parsed to.
#[derive(Debug, serde::Deserialize)]
struct Parsed {
    identity: Identity,
    /// The file's etag (`hash::etag` of its bytes), for edits that must not overwrite a change.
    etag: Option<String>,
    document: Option<Document>,
    diagnostics: Vec<Diagnostic>,
}

/// Modification time, size and inode: an edit in place changes the first two, an editor's
/// save-by-rename or a checkout the third.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Identity {
    modified: u128,
    len: u64,
    inode: u64,
}

impl Identity {
    fn of(meta: &fs::Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity {
            modified: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos()),
            len: meta.len(),
            inode: meta.ino(),
        }
    }
}

/// The folders of a root and what they hold.
pub const RUNBOOKS: &str = "runbooks";
pub const INCIDENTS: &str = "incidents";
pub const STACKS: &str = "stacks";
pub const COMPAT: &str = "compat";
/// Every folder of documents, in the order they are read.
pub const DOCUMENT_FOLDERS: [&str; 4] = [RUNBOOKS, INCIDENTS, STACKS, COMPAT];
/// Caches only: deletable at any time.
pub const CACHE_DIR: &str = ".lore";
const PATTERN_CACHE: &str = "patterns.cache";
const DOCUMENT_CACHE: &str = "documents.cache";
/// The similar tier's index, for the same documents and build (see [`Library::matcher`]).
const SIMILAR_CACHE: &str = "similar.cache";
const LINKS_CACHE: &str = "links.cache";

impl Library {
    /// Reads `root/runbooks/*.md` and `root/incidents/*.md`. Only an unreadable root is an error;
    /// problems with files are in `diagnostics`.
    ///
    /// What each file parsed to is kept in `.lore/documents.cache`, by the file's identity, so a
    /// start-up parses only the files that changed since the last one (parsing YAML is most of a
    /// short `lore match`). The cache belongs to the binary that wrote it: any other build, or a
    /// cache that cannot be read, parses everything; one that cannot be written only costs speed.
    pub fn load(root: &Path) -> Result<Library, LibraryError> {
        let path = root.join(CACHE_DIR).join(DOCUMENT_CACHE);
        let cached = fs::read(&path)
            .ok()
            .and_then(|bytes| DocumentCache::parse(&bytes))
            .unwrap_or_default();
        let cached_files: Vec<String> = cached.keys().cloned().collect();
        let library = Library::read(root, cached, &[])?;
        let same_files = library.files.len() == cached_files.len()
            && cached_files.iter().all(|k| library.files.contains_key(k));
        if library.read > 0 || !same_files {
            keep_cache(root, &path, &DocumentCache::bytes(&library));
        }
        Ok(library)
    }

    /// The library as it is on disk now, re-reading only the files whose identity (modification
    /// time, size, inode) changed since this one was loaded, plus the files named in `changed`
    /// (paths relative to the root, as the watcher reports them), which are always re-read.
    pub fn reload(&self, changed: &[String]) -> Result<Library, LibraryError> {
        Library::read(&self.root, self.parsed_files(), changed)
    }

    /// What each file parsed to, with its document taken from this library's lists (a file
    /// whose document is not among them, a duplicate id, is left out and so read again).
    fn parsed_files(&self) -> HashMap<String, Parsed> {
        let mut documents: HashMap<&Path, Document> = self
            .documents()
            .map(|(path, d)| (path, d.to_owned()))
            .collect();
        self.files
            .iter()
            .filter_map(|(rel, kept)| {
                let document = documents.remove(Path::new(rel));
                if kept.had_document && document.is_none() {
                    return None;
                }
                Some((
                    rel.clone(),
                    Parsed {
                        identity: kept.identity,
                        etag: kept.etag.clone(),
                        document,
                        diagnostics: kept.diagnostics.clone(),
                    },
                ))
            })
            .collect()
    }

    fn read(
        root: &Path,
        mut previous: HashMap<String, Parsed>,
        changed: &[String],
    ) -> Result<Library, LibraryError> {
        fs::metadata(root).map_err(|source| LibraryError::Root {
            path: root.to_path_buf(),
            source,
        })?;
        let mut diagnostics = Vec::new();
        let mut listed: Vec<(String, Identity)> = Vec::new();
        for folder in DOCUMENT_FOLDERS {
            match list_folder(root, folder) {
                Ok(paths) => {
                    for path in paths {
                        let name = path.file_name().unwrap_or_default().to_string_lossy();
                        let rel = format!("{folder}/{name}");
                        match fs::metadata(&path) {
                            Ok(meta) => listed.push((rel, Identity::of(&meta))),
                            Err(e) => diagnostics.push(Diagnostic::error(
                                &rel,
                                0,
                                format!("cannot read: {e}"),
                            )),
                        }
                    }
                }
                Err(e) => diagnostics.push(Diagnostic::error(
                    folder,
                    0,
                    format!("cannot read the folder: {e}"),
                )),
            }
        }
        // Unchanged files keep what they parsed to; the others are read and parsed on all cores.
        let stale: Vec<&(String, Identity)> = listed
            .iter()
            .filter(|(rel, identity)| {
                changed.contains(rel) || previous.get(rel).is_none_or(|p| p.identity != *identity)
            })
            .collect();
        let mut fresh: HashMap<String, Parsed> = crate::par::map(&stale, |(rel, identity)| {
            let (document, diagnostics, etag) = read_document(root, rel);
            (
                rel.clone(),
                Parsed {
                    identity: *identity,
                    etag,
                    document,
                    diagnostics,
                },
            )
        })
        .into_iter()
        .collect();
        let read = fresh.len();
        let mut files = HashMap::with_capacity(listed.len());
        let (mut runbooks, mut incidents, mut stacks) = (Vec::new(), Vec::new(), Vec::new());
        let mut compat = Vec::new();
        for (rel, _) in listed {
            let Some(parsed) = fresh.remove(&rel).or_else(|| previous.remove(&rel)) else {
                continue;
            };
            diagnostics.extend(parsed.diagnostics.iter().cloned());
            // The document moves into the lists; the file keeps the rest.
            let had_document = parsed.document.is_some();
            match parsed.document {
                Some(Document::Runbook(r)) => runbooks.push(r),
                Some(Document::Incident(i)) => incidents.push(i),
                Some(Document::Stack(s)) => stacks.push(s),
                Some(Document::Compat(c)) => compat.push(c),
                None => {}
            }
            files.insert(
                rel,
                Kept {
                    identity: parsed.identity,
                    etag: parsed.etag,
                    had_document,
                    diagnostics: parsed.diagnostics,
                },
            );
        }
        let mut library = Library::from_documents(root, runbooks, incidents, diagnostics);
        library.add_stacks(stacks);
        library.compat = compat;
        library.files = files;
        library.read = read;
        Ok(library)
    }

    /// Adds stacks: duplicate ids are reported and left out, and evidence that names an incident
    /// must name one of this library's.
    pub fn add_stacks(&mut self, mut stacks: Vec<Stack>) {
        let mut seen: HashMap<String, PathBuf> = HashMap::new();
        stacks.retain(|s| match seen.get(&s.id) {
            Some(first) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        &s.path,
                        s.key_lines["id"],
                        format!("stack id `{}` is already used", s.id),
                    )
                    .with_hint(format!("by {}", first.display())),
                );
                false
            }
            None => {
                seen.insert(s.id.clone(), s.path.clone());
                true
            }
        });
        for stack in &stacks {
            for id in stack.incident_evidence() {
                if self.incident(id).is_none() {
                    self.diagnostics.push(
                        Diagnostic::error(
                            &stack.path,
                            stack.key_lines["evidence"],
                            format!("evidence `{id}` names no incident"),
                        )
                        .with_hint(suggest(id, self.incidents.iter().map(|i| &i.id))),
                    );
                }
            }
        }
        self.stacks = stacks;
    }

    pub fn stack(&self, id: &str) -> Option<&Stack> {
        self.stacks.iter().find(|s| s.id == id)
    }

    /// Every document in the lists, by its path: the one place that knows which lists there are.
    fn documents(&self) -> impl Iterator<Item = (&Path, DocumentRef<'_>)> {
        let runbooks = self.runbooks.iter().map(DocumentRef::Runbook);
        let incidents = self.incidents.iter().map(DocumentRef::Incident);
        let stacks = self.stacks.iter().map(DocumentRef::Stack);
        let compat = self.compat.iter().map(DocumentRef::Compat);
        runbooks
            .chain(incidents)
            .chain(stacks)
            .chain(compat)
            .map(|d| (d.path(), d))
    }

    /// How many files the last load or reload read and parsed (the others were kept as they were).
    pub fn files_read(&self) -> usize {
        self.read
    }

    /// A library from documents already parsed; checks ids and links.
    pub fn from_documents(
        root: &Path,
        mut runbooks: Vec<Runbook>,
        mut incidents: Vec<Incident>,
        mut diagnostics: Vec<Diagnostic>,
    ) -> Library {
        // Duplicate ids: the first file (by path) wins, the others are reported and left out.
        let mut seen: HashMap<String, PathBuf> = HashMap::new();
        runbooks.retain(|r| match seen.get(&r.id) {
            Some(first) => {
                diagnostics.push(
                    Diagnostic::error(
                        &r.path,
                        r.key_lines["id"],
                        format!("runbook id `{}` is already used", r.id),
                    )
                    .with_hint(format!("by {}; ids must be unique", first.display())),
                );
                false
            }
            None => {
                seen.insert(r.id.clone(), r.path.clone());
                true
            }
        });
        let mut seen_incidents: HashMap<String, PathBuf> = HashMap::new();
        incidents.retain(|i| match seen_incidents.get(&i.id) {
            Some(first) => {
                diagnostics.push(
                    Diagnostic::error(
                        &i.path,
                        i.key_lines["id"],
                        format!("incident id `{}` is already used", i.id),
                    )
                    .with_hint(format!("by {}", first.display())),
                );
                false
            }
            None => {
                seen_incidents.insert(i.id.clone(), i.path.clone());
                true
            }
        });
        for runbook in &runbooks {
            for related in &runbook.related {
                if !seen.contains_key(related) {
                    diagnostics.push(
                        Diagnostic::error(
                            &runbook.path,
                            runbook.key_lines["related"],
                            format!("related runbook `{related}` does not exist"),
                        )
                        .with_hint(suggest(related, seen.keys())),
                    );
                }
            }
        }
        for incident in &incidents {
            for id in &incident.runbooks {
                if !seen.contains_key(id) {
                    diagnostics.push(
                        Diagnostic::error(
                            &incident.path,
                            incident.key_lines["runbooks"],
                            format!("runbook `{id}` does not exist"),
                        )
                        .with_hint(suggest(id, seen.keys())),
                    );
                }
            }
        }
        Library {
            root: root.to_path_buf(),
            runbooks,
            incidents,
            stacks: Vec::new(),
            compat: Vec::new(),
            diagnostics,
            files: HashMap::new(),
            read: 0,
        }
    }

    /// The matcher of this library's signatures. The pattern analyses of the last run are read
    /// from `.lore/patterns.cache` (start-up skips parsing the patterns it has seen) and stored
    /// again when there is anything new; a cache that cannot be read or written (a read-only
    /// checkout) only costs speed.
    pub fn matcher(&self) -> Matcher {
        let path = self.root.join(CACHE_DIR).join(PATTERN_CACHE);
        let cache = fs::read(&path).map(PatternCache::parse).unwrap_or_default();
        // The similar tier's index and which incidents each runbook links to, kept for the same
        // documents and the same build of lore.
        let key = self.documents_key().to_le_bytes();
        let similar_path = self.root.join(CACHE_DIR).join(SIMILAR_CACHE);
        let kept = read_keyed(
            &similar_path,
            &key,
            crate::search::similar::SimilarIndex::from_bytes,
        );
        let had_similar = kept.is_some();
        let matcher = Matcher::with_similar(&self.runbooks, &self.incidents, &cache, kept);
        if matcher.pattern_cache().is_dirty() {
            keep_cache(&self.root, &path, &matcher.pattern_cache().to_bytes());
        }
        if !had_similar {
            keep_keyed(
                &self.root,
                &similar_path,
                &key,
                &matcher.similar_index().to_bytes(),
            );
        }
        let links_path = self.root.join(CACHE_DIR).join(LINKS_CACHE);
        let kept_links = read_keyed(&links_path, &key, |links| {
            matcher.keep_incident_links(links).then_some(())
        });
        if kept_links.is_none() && !self.incidents.is_empty() {
            keep_keyed(
                &self.root,
                &links_path,
                &key,
                &matcher.incident_links_bytes(),
            );
        }
        matcher
    }

    /// What the documents and this build of lore are, as one number: each file's content (its
    /// etag) or identity, and the binary's own stamp.
    fn documents_key(&self) -> u64 {
        let mut files: Vec<(&String, &Kept)> = self.files.iter().collect();
        files.sort_by(|a, b| a.0.cmp(b.0));
        let mut key = crate::hash::fnv1a(DocumentCache::build().as_bytes());
        for (rel, kept) in files {
            key = crate::hash::fnv1a_extend(key, rel.as_bytes());
            key = match &kept.etag {
                Some(etag) => crate::hash::fnv1a_extend(key, etag.as_bytes()),
                None => crate::hash::fnv1a_extend(
                    key,
                    format!(
                        "{}-{}-{}",
                        kept.identity.modified, kept.identity.len, kept.identity.inode
                    )
                    .as_bytes(),
                ),
            };
        }
        key
    }

    /// How many problems made files or parts of them unusable (warnings not counted).
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.level == crate::doc::Level::Error)
            .count()
    }

    /// The etag of a document's file as it was loaded (`rel` as in `Runbook::path`).
    pub fn etag(&self, rel: &Path) -> Option<&str> {
        self.files
            .get(rel.to_str()?)
            .and_then(|p| p.etag.as_deref())
    }

    pub fn runbook(&self, id: &str) -> Option<&Runbook> {
        self.runbooks.iter().find(|r| r.id == id)
    }

    pub fn incident(&self, id: &str) -> Option<&Incident> {
        self.incidents.iter().find(|i| i.id == id)
    }
}

/// Writes a cache file under `root/.lore/`; a cache that cannot be written only costs speed.
fn keep_cache(root: &Path, path: &Path, bytes: &[u8]) {
    let _ = fs::create_dir_all(root.join(CACHE_DIR)).and_then(|()| write_atomically(path, bytes));
}

/// What `take` makes of a cache file written by [`keep_keyed`] for `key`; `None` when the file is
/// missing or was written for other documents or another build.
fn read_keyed<T>(path: &Path, key: &[u8], take: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
    fs::read(path).ok()?.strip_prefix(key).and_then(take)
}

/// Writes a cache file that is valid only for `key` (see [`Library::documents_key`]).
fn keep_keyed(root: &Path, path: &Path, key: &[u8], body: &[u8]) {
    let mut bytes = Vec::with_capacity(key.len() + body.len());
    bytes.extend_from_slice(key);
    bytes.extend_from_slice(body);
    keep_cache(root, path, &bytes);
}

/// Writes through a temporary file in the same folder and a rename, so readers see the old file
/// or the new one, never half of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_via(path.parent().unwrap_or(Path::new(".")), path, bytes)
}

/// [`write_atomically`] with the temporary file in `temp_dir`, which must be on the same file
/// system as `path` (postmortems keep theirs out of `incidents/`, which the watcher sees).
pub fn write_atomically_via(temp_dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temp = write_temp(temp_dir, name, bytes)?;
    let result = fs::rename(&temp, path);
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Writes and syncs `bytes` to a new file in `dir`, named after `name`, that no other writer
/// (thread or process) can be using; the caller renames or links it into place.
pub fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        std::io::Write::write_all(&mut file, bytes)?;
        file.sync_all()
    })();
    match result {
        Ok(()) => Ok(path),
        Err(e) => {
            let _ = fs::remove_file(&path);
            Err(e)
        }
    }
}

fn suggest<'a>(id: &str, known: impl Iterator<Item = &'a String>) -> String {
    let mut close: Vec<&String> = known
        .filter(|k| k.contains(id) || id.contains(k.as_str()) || common_prefix(k, id) >= 6)
        .collect();
    close.sort();
    match close.first() {
        Some(k) => format!("did you mean `{k}`?"),
        None => "link to the id of a file in runbooks/ (its name without .md)".into(),
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// The `*.md` files of `root/folder`, sorted; a missing folder has none.
fn list_folder(root: &Path, folder: &str) -> std::io::Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(root.join(folder)) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
        .collect();
    paths.sort();
    Ok(paths)
}

/// The text of one document, or the diagnostic saying why it cannot be read.
fn read_text(path: &Path, rel: &Path) -> Result<String, Diagnostic> {
    let meta =
        fs::metadata(path).map_err(|e| Diagnostic::error(rel, 0, format!("cannot read: {e}")))?;
    if meta.len() > MAX_DOCUMENT {
        return Err(Diagnostic::error(
            rel,
            0,
            format!(
                "file is {} bytes; documents are limited to {MAX_DOCUMENT}",
                meta.len()
            ),
        )
        .with_hint("keep long logs out of runbooks; quote the few lines that matter"));
    }
    let bytes =
        fs::read(path).map_err(|e| Diagnostic::error(rel, 0, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        Diagnostic::error(rel, line, "the file is not valid UTF-8").with_hint("save it as UTF-8")
    })
}

/// A document file's identity for change detection: path relative to the root, and a stamp
/// (modification time and size) that changes when the file does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    pub rel: String,
    pub stamp: String,
}

/// The stamps of every document file under `root`, without reading any of them.
pub fn stamps(root: &Path) -> std::io::Result<Vec<FileStamp>> {
    let mut out = Vec::new();
    for folder in DOCUMENT_FOLDERS {
        for path in list_folder(root, folder)? {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            out.extend(stamp(root, &format!("{folder}/{name}")));
        }
    }
    Ok(out)
}

/// The stamp of one document file (`runbooks/x.md`), or `None` if it is not there (or is not a
/// document: the path must be a `.md` file directly in one of [`DOCUMENT_FOLDERS`]).
pub fn stamp(root: &Path, rel: &str) -> Option<FileStamp> {
    let (folder, name) = rel.split_once('/')?;
    if !DOCUMENT_FOLDERS.contains(&folder) || name.contains('/') || !name.ends_with(".md") {
        return None;
    }
    let meta = fs::metadata(root.join(rel)).ok().filter(|m| m.is_file())?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Some(FileStamp {
        rel: rel.to_string(),
        stamp: format!("{modified}:{}", meta.len()),
    })
}

/// A runbook or an incident.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Document {
    Runbook(Runbook),
    Incident(Incident),
    Stack(Stack),
    Compat(Compat),
}

/// `.lore/documents.cache`: what each file parsed to, for this build of lore only. JSON lines: the
/// first names the build, each other one is a file ([`CachedFile`]), so that the lines can be
/// parsed on all cores (one JSON document took half of a paste's library load).
#[derive(serde::Serialize, serde::Deserialize)]
struct DocumentCache {
    build: String,
}

/// One file of the document cache.
#[derive(serde::Deserialize)]
struct CachedFile {
    rel: String,
    parsed: Parsed,
}

/// [`CachedFile`] as written, borrowing the library's documents.
#[derive(serde::Serialize)]
struct CachedFileRef<'a> {
    rel: &'a str,
    parsed: ParsedRef<'a>,
}

#[derive(serde::Serialize)]
struct ParsedRef<'a> {
    identity: Identity,
    etag: &'a Option<String>,
    document: Option<DocumentRef<'a>>,
    diagnostics: &'a [Diagnostic],
}

#[derive(Clone, Copy, serde::Serialize)]
enum DocumentRef<'a> {
    Runbook(&'a Runbook),
    Incident(&'a Incident),
    Stack(&'a Stack),
    Compat(&'a Compat),
}

impl<'a> DocumentRef<'a> {
    fn path(self) -> &'a Path {
        match self {
            DocumentRef::Runbook(r) => &r.path,
            DocumentRef::Incident(i) => &i.path,
            DocumentRef::Stack(s) => &s.path,
            DocumentRef::Compat(c) => &c.path,
        }
    }

    /// Front-matter keys lore does not know: YAML tags and non-string keys would not survive
    /// JSON, so such documents stay out of the cache (they are rare).
    fn has_unknown_keys(self) -> bool {
        match self {
            DocumentRef::Runbook(r) => !r.extra.is_empty(),
            DocumentRef::Incident(i) => !i.extra.is_empty(),
            DocumentRef::Stack(s) => !s.extra.is_empty(),
            DocumentRef::Compat(_) => false,
        }
    }

    fn to_owned(self) -> Document {
        match self {
            DocumentRef::Runbook(r) => Document::Runbook(r.clone()),
            DocumentRef::Incident(i) => Document::Incident(i.clone()),
            DocumentRef::Stack(s) => Document::Stack(s.clone()),
            DocumentRef::Compat(c) => Document::Compat(c.clone()),
        }
    }
}

impl DocumentCache {
    /// This binary: its version, and the size and modification time of its executable, so a
    /// rebuild with another parser never reads what an older one wrote. Worked out once per
    /// process (the load and the similar cache's key both ask).
    fn build() -> &'static str {
        static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        BUILD.get_or_init(|| {
            let exe = std::env::current_exe()
                .and_then(fs::metadata)
                .map(|m| format!("{}", Identity::of(&m).modified) + &format!("-{}", m.len()))
                .unwrap_or_default();
            format!("{}-{exe}", env!("CARGO_PKG_VERSION"))
        })
    }

    fn parse(bytes: &[u8]) -> Option<HashMap<String, Parsed>> {
        // Lines found with `memchr`: splitting a megabyte byte by byte was an eighth of the load.
        let mut from = 0;
        let mut lines = memchr::memchr_iter(b'\n', bytes)
            .chain([bytes.len()])
            .map(|end| {
                let line = &bytes[from..end];
                from = end + 1;
                line
            })
            .filter(|l| !l.is_empty());
        let cache: DocumentCache = serde_json::from_slice(lines.next()?).ok()?;
        if cache.build != DocumentCache::build() {
            return None;
        }
        let lines: Vec<&[u8]> = lines.collect();
        let files = crate::par::map(&lines, |line| {
            serde_json::from_slice::<CachedFile>(line).ok()
        });
        // One unreadable line makes the whole cache unusable: every file is then read again.
        files
            .into_iter()
            .map(|f| f.map(|f| (f.rel, f.parsed)))
            .collect()
    }

    /// Documents with front-matter keys lore does not know are left out (see
    /// [`DocumentRef::has_unknown_keys`]).
    fn bytes(library: &Library) -> Vec<u8> {
        let documents: HashMap<&Path, DocumentRef<'_>> = library
            .documents()
            .filter(|(_, d)| !d.has_unknown_keys())
            .collect();
        let mut out = serde_json::to_vec(&DocumentCache {
            build: DocumentCache::build().to_string(),
        })
        .unwrap_or_default();
        for (rel, kept) in &library.files {
            let document = documents.get(Path::new(rel.as_str())).copied();
            // A document left out (duplicate id, unknown keys) is parsed again next time.
            if kept.had_document && document.is_none() {
                continue;
            }
            let file = CachedFileRef {
                rel,
                parsed: ParsedRef {
                    identity: kept.identity,
                    etag: &kept.etag,
                    document,
                    diagnostics: &kept.diagnostics,
                },
            };
            // Compact JSON has no raw newline (strings escape theirs): one file per line.
            out.push(b'\n');
            if serde_json::to_writer(&mut out, &file).is_err() {
                return Vec::new();
            }
        }
        out.push(b'\n');
        out
    }
}

/// Reads and parses one document by its path relative to the root (`runbooks/x.md`).
pub fn load_document(root: &Path, rel: &str) -> (Option<Document>, Vec<Diagnostic>) {
    let (document, diagnostics, _) = read_document(root, rel);
    (document, diagnostics)
}

/// [`load_document`], and the etag of the bytes it parsed.
fn read_document(root: &Path, rel: &str) -> (Option<Document>, Vec<Diagnostic>, Option<String>) {
    let rel_path = PathBuf::from(rel);
    let text = match read_text(&root.join(rel), &rel_path) {
        Ok(text) => text,
        Err(d) => return (None, vec![d], None),
    };
    let etag = Some(crate::hash::etag(text.as_bytes()));
    if rel.starts_with(&format!("{INCIDENTS}/")) {
        let (incident, problems) = Incident::parse(&rel_path, &text);
        (incident.map(Document::Incident), problems, etag)
    } else if rel.starts_with(&format!("{COMPAT}/")) {
        let (family, problems) = Compat::parse(&rel_path, &text);
        (family.map(Document::Compat), problems, etag)
    } else if rel.starts_with(&format!("{STACKS}/")) {
        let (stack, problems) = Stack::parse(&rel_path, &text);
        (stack.map(Document::Stack), problems, etag)
    } else {
        let (runbook, problems) = Runbook::parse(&rel_path, &text);
        (runbook.map(Document::Runbook), problems, etag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped library, plus a runbook whose front matter is broken, in a fresh root.
    fn shipped_copy() -> tempfile::TempDir {
        let root = tempfile::tempdir().expect("temp root");
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        for folder in [RUNBOOKS, INCIDENTS] {
            fs::create_dir_all(root.path().join(folder)).expect("folder");
            for entry in fs::read_dir(repo.join(folder))
                .expect("shipped folder")
                .flatten()
            {
                fs::copy(
                    entry.path(),
                    root.path().join(folder).join(entry.file_name()),
                )
                .expect("copy");
            }
        }
        fs::write(
            root.path().join("runbooks/broken.md"),
            "---\ntitle: [unclosed\n---\nbody\n",
        )
        .expect("write");
        root
    }

    fn same(a: &Library, b: &Library) {
        assert_eq!(format!("{:?}", a.runbooks), format!("{:?}", b.runbooks));
        assert_eq!(format!("{:?}", a.incidents), format!("{:?}", b.incidents));
        assert_eq!(a.diagnostics, b.diagnostics);
    }

    #[test]
    fn a_second_load_parses_nothing_and_gives_the_same_library() {
        let root = shipped_copy();
        let first = Library::load(root.path()).expect("load");
        assert!(first.files_read() > 50, "{}", first.files_read());
        assert!(
            !first.diagnostics.is_empty(),
            "the broken runbook is reported"
        );
        let second = Library::load(root.path()).expect("load");
        assert_eq!(second.files_read(), 0, "everything came from the cache");
        same(&first, &second);
    }

    #[test]
    fn a_reload_keeps_every_document_and_every_problem() {
        let root = shipped_copy();
        let text = fs::read_to_string(root.path().join("runbooks/nouveau-conflict.md")).unwrap();
        // A second file with the same id: reported, left out, and still so after a reload.
        fs::write(
            root.path().join("runbooks/zz-copy.md"),
            format!("---\nid: nouveau-conflict\n{}", &text[4..]),
        )
        .unwrap();
        let first = Library::load(root.path()).expect("load");
        assert!(
            first
                .diagnostics
                .iter()
                .any(|d| d.message.contains("already used")),
            "{:?}",
            first.diagnostics
        );
        let again = first.reload(&[]).expect("reload");
        assert_eq!(again.files_read(), 1, "only the duplicate is read again");
        same(&first, &again);
        let cached = Library::load(root.path()).expect("load");
        same(&first, &cached);
    }

    #[test]
    fn stacks_are_loaded_and_their_evidence_must_exist() {
        let root = shipped_copy();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        fs::create_dir_all(root.path().join(STACKS)).unwrap();
        for entry in fs::read_dir(repo.join(STACKS)).unwrap().flatten() {
            fs::copy(
                entry.path(),
                root.path().join(STACKS).join(entry.file_name()),
            )
            .unwrap();
        }
        let shipped = Library::load(root.path()).expect("load");
        assert!(shipped.stacks.len() >= 4, "{}", shipped.stacks.len());
        assert!(
            !shipped
                .diagnostics
                .iter()
                .any(|d| d.path.starts_with(STACKS)),
            "{:?}",
            shipped.diagnostics
        );
        let bad = shipped.stack("rocky92-535-a100-ib").expect("shipped");
        assert_eq!(bad.verdict, crate::doc::Verdict::Bad);
        assert_eq!(bad.get("driver"), Some("535.129.03"));
        let text = "---\ntitle: t\nverdict: good\nevidence: [2099-01-01-no-such-incident]\ntested:\n  driver: \"550.54.15\"\n---\n## Result\n";
        fs::write(root.path().join("stacks/zz-one.md"), text).unwrap();
        fs::write(
            root.path().join("stacks/zz-two.md"),
            format!("---\nid: zz-one\n{}", &text[4..]),
        )
        .unwrap();
        let broken = Library::load(root.path()).expect("load");
        let messages: Vec<&str> = broken
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert!(
            messages.contains(&"evidence `2099-01-01-no-such-incident` names no incident"),
            "{messages:?}"
        );
        assert!(
            messages.contains(&"stack id `zz-one` is already used"),
            "{messages:?}"
        );
        // From the cache, the same.
        let again = Library::load(root.path()).expect("load");
        assert_eq!(again.files_read(), 1, "only the duplicate is read again");
        assert_eq!(again.diagnostics, broken.diagnostics);
        assert_eq!(
            format!("{:?}", again.stacks),
            format!("{:?}", broken.stacks)
        );
    }

    #[test]
    fn an_edited_file_is_parsed_again_and_a_broken_cache_only_costs_speed() {
        let root = shipped_copy();
        let first = Library::load(root.path()).expect("load");
        let path = root.path().join("runbooks/driver-version-mismatch.md");
        let text = fs::read_to_string(&path).expect("runbook");
        fs::write(&path, text.replacen("\ntitle: ", "\ntitle: Edited ", 1)).expect("edit");
        let edited = Library::load(root.path()).expect("load");
        assert_eq!(edited.files_read(), 1);
        let runbook = edited.runbook("driver-version-mismatch").expect("runbook");
        assert!(runbook.title.starts_with("Edited "), "{}", runbook.title);

        let cache = root.path().join(CACHE_DIR).join(DOCUMENT_CACHE);
        fs::write(&cache, b"\xff not json").expect("spoil the cache");
        let again = Library::load(root.path()).expect("load");
        assert_eq!(again.files_read(), first.files_read());
        same(&edited, &again);

        // One spoilt file line (the build line intact) also means reading everything again.
        let written = fs::read(&cache).expect("cache written again");
        let mut lines: Vec<&[u8]> = written.split(|&b| b == b'\n').collect();
        assert!(lines.len() > 3, "one line per file");
        lines[2] = b"{\"rel\": 7}";
        fs::write(&cache, lines.join(&b'\n')).expect("spoil one line");
        let once_more = Library::load(root.path()).expect("load");
        assert_eq!(once_more.files_read(), first.files_read());
        same(&edited, &once_more);
    }

    fn links(matcher: &crate::signature::Matcher, library: &Library) -> Vec<Vec<String>> {
        library
            .runbooks
            .iter()
            .map(|r| {
                matcher
                    .incidents_of(&r.id)
                    .into_iter()
                    .map(|i| i.id)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn kept_incident_links_are_the_ones_worked_out_and_a_stale_file_is_not_taken() {
        let root = shipped_copy();
        let library = Library::load(root.path()).expect("load");
        let fresh = library.matcher();
        let worked_out = links(&fresh, &library);
        assert!(
            worked_out.iter().any(|l| !l.is_empty()),
            "some runbook has incidents"
        );
        let path = root.path().join(CACHE_DIR).join(LINKS_CACHE);
        assert!(path.exists(), "the links were kept");
        let kept = library.matcher();
        assert_eq!(links(&kept, &library), worked_out);
        // A file written for other documents (here: a line too few) is not taken.
        let bytes = fs::read(&path).expect("read");
        let cut = bytes.iter().rposition(|&b| b == b'\n').expect("lines");
        let unlinked = || {
            crate::signature::Matcher::new(
                &library.runbooks,
                &library.incidents,
                &Default::default(),
            )
        };
        assert!(!unlinked().keep_incident_links(&bytes[8..cut]));
        let unknown = vec!["no-such-incident"; library.runbooks.len()].join("\n");
        assert!(!unlinked().keep_incident_links(unknown.as_bytes()));
        let taken = unlinked();
        assert!(taken.keep_incident_links(&bytes[8..]));
        assert_eq!(links(&taken, &library), worked_out);
    }
}
