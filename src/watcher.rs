//! Watching a library root for changes (an edit in an editor, a `git pull`), so `serve` picks
//! them up without a restart. Events are debounced: a burst of writes becomes one callback.
//!
//! Only events that can change what a file says count: content written, created, removed,
//! renamed. Reading a file (open, close without write, an access-time update) is not a change;
//! counting it made every reload (which reads the files) trigger the next one.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::event::ModifyKind;
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::library::{CACHE_DIR, DOCUMENT_FOLDERS, RUNBOOKS};

/// Quiet time after the last event before the callback runs.
pub const DEBOUNCE: Duration = Duration::from_millis(120);
/// The longest a burst of events may delay its callback.
const LONGEST_BURST: Duration = Duration::from_secs(2);

/// What changed in one burst: document files (relative to the root, like `runbooks/x.md`), or
/// something bigger (a folder appeared or vanished) that needs a full look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub files: Vec<String>,
    pub full: bool,
}

/// Watches `root/runbooks` and `root/incidents` while alive.
pub struct Watcher {
    _watcher: RecommendedWatcher,
}

impl Watcher {
    /// Calls `on_change` (on a thread of its own) with the changed paths after each burst of
    /// changes to Markdown files.
    pub fn start(
        root: &Path,
        on_change: impl Fn(Change) + Send + 'static,
    ) -> notify::Result<Watcher> {
        let root_path = root.to_path_buf();
        let (tx, rx) = mpsc::channel::<PathBuf>();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event {
                    if event.need_rescan() {
                        // The kernel's queue overflowed: something changed, we do not know what.
                        let _ = tx.send(PathBuf::from(RUNBOOKS));
                    } else if is_change(&event.kind) {
                        for path in event.paths {
                            let _ = tx.send(path);
                        }
                    }
                }
            })?;
        // The root itself too, so a folder created later (or replaced by a checkout) is noticed.
        watcher.watch(root, RecursiveMode::NonRecursive)?;
        for folder in DOCUMENT_FOLDERS {
            let dir = root.join(folder);
            if dir.is_dir() {
                watcher.watch(&dir, RecursiveMode::NonRecursive)?;
            }
        }
        std::thread::Builder::new()
            .name("lore-watch".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let mut paths = vec![first];
                    let started = std::time::Instant::now();
                    // A burst (a checkout of many files) is one change; a writer that never
                    // pauses still gets its changes seen every `LONGEST_BURST`.
                    while started.elapsed() < LONGEST_BURST {
                        match rx.recv_timeout(DEBOUNCE) {
                            Ok(more) => paths.push(more),
                            Err(_) => break,
                        }
                    }
                    paths.retain(|p| relevant(p));
                    paths.sort();
                    paths.dedup();
                    if !paths.is_empty() {
                        on_change(classify(&root_path, &paths));
                    }
                }
            })
            .map_err(|e| notify::Error::generic(&e.to_string()))?;
        Ok(Watcher { _watcher: watcher })
    }
}

/// Whether an event can have changed a file's text or a folder's list of files.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        // Permissions and timestamps (atime moves on reads) do not change the text.
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        // Open, close-without-write and close-after-write (the write itself was a Modify).
        EventKind::Access(_) => false,
        // A backend that cannot say what happened: assume a change rather than miss one.
        EventKind::Any => true,
        EventKind::Other => false,
    }
}

fn classify(root: &Path, paths: &[PathBuf]) -> Change {
    let mut change = Change {
        files: Vec::new(),
        full: false,
    };
    for path in paths {
        let rel = path.strip_prefix(root).unwrap_or(path);
        let parts: Vec<_> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        match parts.as_slice() {
            [folder, name]
                if DOCUMENT_FOLDERS.contains(&folder.as_str()) && name.ends_with(".md") =>
            {
                change.files.push(format!("{folder}/{name}"));
            }
            // The folders themselves: created, removed, replaced by a checkout.
            [name] if DOCUMENT_FOLDERS.contains(&name.as_str()) => change.full = true,
            // Other files at the root (README.md) are not documents.
            [_] => {}
            _ => change.full = true,
        }
    }
    change
}

/// Markdown documents and the folders that hold them; not our own cache, not editor swap files.
fn relevant(path: &Path) -> bool {
    if path.components().any(|c| c.as_os_str() == CACHE_DIR) {
        return false;
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with('.') || name.ends_with('~') {
        return false;
    }
    name.ends_with(".md") || DOCUMENT_FOLDERS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, MetadataKind, RenameMode};

    #[test]
    fn reads_are_not_changes() {
        for kind in [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
        ] {
            assert!(!is_change(&kind), "{kind:?}");
        }
        for kind in [
            EventKind::Create(CreateKind::File),
            EventKind::Modify(ModifyKind::Data(DataChange::Any)),
            EventKind::Modify(ModifyKind::Name(RenameMode::To)),
            EventKind::Remove(notify::event::RemoveKind::File),
        ] {
            assert!(is_change(&kind), "{kind:?}");
        }
    }
}
