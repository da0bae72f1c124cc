//! Full-text search over runbooks and incidents with tantivy, for Chinese and English alike.
//!
//! The index under `<root>/.lore/index` is a cache: it carries a schema version and a manifest of
//! the files it holds (path and stamp); when it is missing, unreadable or of another version it is
//! rebuilt from the files, and otherwise only the files that changed are re-indexed.
//! Each file is indexed whole and once per section, so a hit can point at `#fix`.

mod document;
mod query;
mod results;
mod schema;
pub mod similar;
mod storage;
#[cfg(test)]
mod tests;
pub mod tokenizer;

pub use results::{SearchHit, SearchResults};
pub use storage::{SyncStats, WhenBusy};

use document::IndexDoc;
use query::ParsedQuery;
use schema::Fields;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use tantivy::{Index, IndexReader, IndexWriter};

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

/// The index of one root (or in memory): one writer, opened on first use, and one reader.
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

/// Milliseconds with two decimals, for the stats a sync or a search reports.
fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e5).round() / 100.0
}
