//! What the server knows: the library as last loaded, its matcher and rendered pages, and the
//! search index. A change on disk builds a new snapshot and swaps it in; requests in flight keep
//! the one they started with.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use crate::doc::markdown::to_html;
use crate::library::{Library, LibraryError};
use crate::search::{SearchIndex, WhenBusy};
use crate::signature::Matcher;

pub struct Snapshot {
    pub library: Library,
    pub matcher: Matcher,
    /// Rendered body HTML of each runbook and incident, by id.
    pub runbook_html: HashMap<String, String>,
    pub incident_html: HashMap<String, String>,
    /// Tag → how many documents carry it.
    pub tags: BTreeMap<String, usize>,
}

impl Snapshot {
    pub fn build(root: &Path) -> Result<Snapshot, LibraryError> {
        Ok(Snapshot::from_library(Library::load(root)?, None))
    }

    /// The snapshot after a change on disk: only files that changed (or are named in `changed`)
    /// are read again, and only documents whose text changed are rendered again.
    pub fn rebuild(&self, changed: &[String]) -> Result<Snapshot, LibraryError> {
        Ok(Snapshot::from_library(
            self.library.reload(changed)?,
            Some(self),
        ))
    }

    /// Compiles now what the first paste would otherwise wait for: every signature's regex, the
    /// line-prefix and environment readers, and the literal automaton. A long-running server
    /// calls this on another thread after each load; each piece is kept once built, so a
    /// request that arrives meanwhile only waits for the pieces it needs.
    pub fn warm(&self) {
        crate::signature::warm_up();
        crate::env::fingerprint::warm();
        // Each signature's own compile-once cell: those a request or the incident links
        // compiled already are not compiled again.
        for sig in &self.matcher.engine.sigs {
            sig.regex();
        }
        let _ = self.matcher.match_bytes(
            b"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n",
            None,
        );
    }

    fn from_library(library: Library, previous: Option<&Snapshot>) -> Snapshot {
        let matcher = library.matcher();
        // Pages show each runbook's incidents: work the links out once, not per request.
        matcher.link_all_incidents();
        let runbook_html = library
            .runbooks
            .iter()
            .map(|r| {
                let kept = previous.and_then(|p| {
                    let same = p.library.runbook(&r.id)?.body == r.body;
                    same.then(|| p.runbook_html.get(&r.id).cloned())?
                });
                (r.id.clone(), kept.unwrap_or_else(|| to_html(&r.body)))
            })
            .collect();
        let incident_html = library
            .incidents
            .iter()
            .map(|i| {
                let kept = previous.and_then(|p| {
                    let same = p.library.incident(&i.id)?.body == i.body;
                    same.then(|| p.incident_html.get(&i.id).cloned())?
                });
                (i.id.clone(), kept.unwrap_or_else(|| to_html(&i.body)))
            })
            .collect();
        let mut tags = BTreeMap::new();
        for tag in library
            .runbooks
            .iter()
            .flat_map(|r| r.tags.iter())
            .chain(library.incidents.iter().flat_map(|i| i.tags.iter()))
        {
            *tags.entry(tag.to_lowercase()).or_insert(0) += 1;
        }
        Snapshot {
            library,
            matcher,
            runbook_html,
            incident_html,
            tags,
        }
    }
}

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub root: PathBuf,
    pub read_only: bool,
    /// If set, writes need it (`Authorization: Bearer`, or the form field `token`).
    pub token: Option<Arc<str>>,
    /// Commit each saved postmortem when the root is a git work tree.
    pub git_commit: bool,
    snapshot: Arc<RwLock<Arc<Snapshot>>>,
    /// One reload at a time, so a later one always starts from the earlier one's result.
    reloading: Arc<Mutex<()>>,
    pub search: Arc<SearchIndex>,
    /// Warm each new snapshot on another thread (`lore serve`; see [`Snapshot::warm`]).
    pub warm: bool,
}

impl AppState {
    /// Loads the library and opens (or builds) the search index under `root/.lore`.
    pub fn load(root: &Path, read_only: bool) -> anyhow::Result<AppState> {
        let snapshot = Snapshot::build(root)?;
        // Another lore holding the index must not leave this server's search behind its pages.
        let (search, warning) =
            SearchIndex::open_for_root(root, WhenBusy::BuildInMemory, false, &mut |_, _| {})?;
        if let Some(warning) = warning {
            tracing::warn!(%warning, "search index");
        }
        Ok(AppState::new(root, read_only, snapshot, search))
    }

    pub fn new(root: &Path, read_only: bool, snapshot: Snapshot, search: SearchIndex) -> AppState {
        AppState {
            root: root.to_path_buf(),
            read_only,
            token: None,
            git_commit: false,
            snapshot: Arc::new(RwLock::new(Arc::new(snapshot))),
            reloading: Arc::new(Mutex::new(())),
            search: Arc::new(search),
            warm: false,
        }
    }

    /// Warms the current snapshot on another thread, then hands the memory the previous one
    /// freed back to the system.
    pub fn warm_in_background(&self) {
        let snapshot = self.snapshot();
        std::thread::spawn(move || {
            snapshot.warm();
            release_freed_memory();
        });
    }

    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot.read().expect("not poisoned").clone()
    }

    /// Re-reads what changed in the library (the files named, and any whose size, time or inode
    /// moved) and brings the index up to date with the files named, or all of them. Returns how
    /// many files were read again.
    pub fn reload(&self, files: Option<&[String]>) -> Result<usize, LibraryError> {
        let _one_at_a_time = self.reloading.lock().unwrap_or_else(|e| e.into_inner());
        let snapshot = self.snapshot().rebuild(files.unwrap_or(&[]))?;
        let read = snapshot.library.files_read();
        // Index first, then swap: once a page shows the change, search finds it too. An index
        // that cannot be updated (another lore holds it) must not fail a save that succeeded.
        let indexed = match files {
            Some(files) => self.search.sync_files(&self.root, files),
            None => self.search.sync(&self.root, false, &mut |_, _| {}),
        };
        if let Err(e) = indexed {
            tracing::warn!(error = %e, "the search index was not updated");
        }
        *self.snapshot.write().expect("not poisoned") = Arc::new(snapshot);
        if self.warm {
            self.warm_in_background();
        } else {
            release_freed_memory();
        }
        Ok(read)
    }
}

/// A reload builds a whole new snapshot (signatures, search structures) on whichever threads
/// ran it and frees the old one. glibc's allocator keeps freed memory in per-thread arenas, so
/// without this a long-running server's resident memory grows with reloads towards the peak of
/// several snapshots at once (measured: 85 MB at start, 190-230 MB after 40 reloads).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's arenas to the system; it
    // takes no pointer and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
