//! Saving postmortems: validated first (nothing written on a problem); a new file gets an id no other
//! save can take (the finished file is hard-linked into place, which fails if the name exists);
//! an edit is checked against the version it was based on and replaces the file by rename. The
//! bytes are written and synced in `.lore/tmp/` first, so `incidents/` only ever holds whole
//! files, whatever happens to the process.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use super::{Postmortem, Problem};
use crate::doc::Incident;
use crate::library::{
    CACHE_DIR, INCIDENTS, Library, MAX_DOCUMENT, write_atomically_via, write_temp,
};

/// Edits compare and replace under this lock: two writes never lose each other.
static WRITES: Mutex<()> = Mutex::new(());

#[derive(Debug)]
pub enum SaveError {
    /// Nothing was written.
    Invalid(Vec<Problem>),
    /// The file changed since the version the edit was based on; nothing was written. Carries
    /// the current text and its etag, so the user can merge.
    Conflict {
        current: String,
        etag: String,
    },
    NotFound,
    Io(std::io::Error),
}

impl From<std::io::Error> for SaveError {
    fn from(e: std::io::Error) -> SaveError {
        SaveError::Io(e)
    }
}

#[derive(Debug, Clone)]
pub struct Saved {
    pub id: String,
    pub etag: String,
    /// Relative to the root: `incidents/<id>.md`.
    pub rel: String,
    pub text: String,
}

pub use crate::hash::etag;

/// An incident's file as it is now.
#[derive(Debug, Clone)]
pub struct Current {
    pub text: String,
    /// What an edit must send back (`If-Match`, the form's `etag`).
    pub etag: String,
}

/// Reads the file of `incident` as it is on disk now, which may be newer than the library.
pub fn current(root: &Path, incident: &Incident) -> std::io::Result<Current> {
    let bytes = fs::read(root.join(&incident.path))?;
    Ok(Current {
        etag: etag(&bytes),
        text: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

/// Saves a new incident. Its id is `<date>-<slug>`, with `-2`, `-3`, ... when taken, even by a
/// save happening at the same moment.
pub fn save_new(
    root: &Path,
    library: &Library,
    postmortem: &Postmortem,
) -> Result<Saved, SaveError> {
    let problems = postmortem.validate(library);
    if !problems.is_empty() {
        return Err(SaveError::Invalid(problems));
    }
    let text = postmortem.render();
    check_parses(&text)?;
    let dir = root.join(INCIDENTS);
    fs::create_dir_all(&dir)?;
    let temp = write_temp(&temp_dir(root)?, "incident", text.as_bytes())?;
    let base = postmortem.base_id();
    let result = (|| {
        for n in 1..10_000 {
            let id = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let path = dir.join(format!("{id}.md"));
            match fs::hard_link(&temp, &path) {
                Ok(()) => {
                    sync_dir(&dir);
                    return Ok(Saved {
                        rel: format!("{INCIDENTS}/{id}.md"),
                        etag: etag(text.as_bytes()),
                        id,
                        text: text.clone(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(SaveError::Io(e)),
            }
        }
        Err(SaveError::Io(std::io::Error::other("no free incident id")))
    })();
    let _ = fs::remove_file(&temp);
    result
}

/// Replaces incident `id` with `postmortem`, if the file is still the version `if_match` names.
/// Unknown front-matter keys of the file are kept when the postmortem brings none.
pub fn save_edit(
    root: &Path,
    library: &Library,
    id: &str,
    postmortem: &Postmortem,
    if_match: &str,
) -> Result<Saved, SaveError> {
    if !crate::doc::is_valid_id(id) {
        return Err(SaveError::NotFound);
    }
    let rel = format!("{INCIDENTS}/{id}.md");
    let path = root.join(&rel);
    let _guard = WRITES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let current = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(SaveError::NotFound),
        Err(e) => return Err(e.into()),
    };
    let current_etag = etag(&current);
    if if_match.trim() != current_etag && if_match.trim() != "*" {
        return Err(SaveError::Conflict {
            current: String::from_utf8_lossy(&current).into_owned(),
            etag: current_etag,
        });
    }
    let mut postmortem = postmortem.clone();
    if postmortem.extra.is_empty()
        && let (Some(existing), _) =
            Incident::parse(Path::new(&rel), &String::from_utf8_lossy(&current))
    {
        postmortem.extra = existing.extra;
    }
    let problems = postmortem.validate(library);
    if !problems.is_empty() {
        return Err(SaveError::Invalid(problems));
    }
    let text = postmortem.render();
    check_parses(&text)?;
    write_atomically_via(&temp_dir(root)?, &path, text.as_bytes())?;
    sync_dir(&root.join(INCIDENTS));
    Ok(Saved {
        id: id.to_string(),
        etag: etag(text.as_bytes()),
        rel,
        text,
    })
}

/// What lore writes, lore must read back without a problem: a file the library would refuse
/// (over its size limit, or not parsing) is not written at all.
fn check_parses(text: &str) -> Result<(), SaveError> {
    if text.len() as u64 > MAX_DOCUMENT {
        return Err(SaveError::Invalid(vec![Problem {
            field: "body".into(),
            message: format!(
                "the postmortem would be {} bytes; documents are limited to {} MiB, so shorten the body (link to long logs instead of pasting them)",
                text.len(),
                MAX_DOCUMENT >> 20
            ),
        }]));
    }
    let (incident, problems) = Incident::parse(Path::new("incidents/check.md"), text);
    let errors: Vec<Problem> = problems
        .into_iter()
        .filter(|d| d.level == crate::doc::Level::Error)
        .map(|d| Problem {
            field: "body".into(),
            message: d.message,
        })
        .collect();
    if incident.is_none() || !errors.is_empty() {
        return Err(SaveError::Invalid(errors));
    }
    Ok(())
}

/// `<root>/.lore/tmp/`, where postmortems are written before they are linked or renamed into
/// `incidents/` (same file system as the root, out of the watcher's sight).
fn temp_dir(root: &Path) -> std::io::Result<PathBuf> {
    let dir = root.join(CACHE_DIR).join("tmp");
    fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Makes a rename or link durable: best effort (not every file system supports it).
fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Commits one file when the root is a git work tree (`serve --git-commit`).
pub fn commit_to_git(
    root: &Path,
    rel: &str,
    message: &str,
    author: Option<&str>,
) -> std::io::Result<()> {
    let git = |args: &[&str]| -> std::io::Result<()> {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()?;
        if out.status.success() {
            Ok(())
        } else {
            Err(std::io::Error::other(
                String::from_utf8_lossy(&out.stderr).trim().to_string(),
            ))
        }
    };
    let _guard = WRITES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    git(&["add", "--", rel])?;
    let author = author.map(|a| {
        let name: String = a
            .chars()
            .filter(|c| !matches!(c, '<' | '>' | '\n'))
            .collect();
        format!("{} <{}@lore.invalid>", name.trim(), slugify_name(&name))
    });
    let mut args = vec![
        "-c",
        "user.name=lore",
        "-c",
        "user.email=lore@localhost",
        "commit",
        "--quiet",
        "-m",
        message,
    ];
    if let Some(author) = &author {
        args.push("--author");
        args.push(author);
    }
    args.push("--");
    args.push(rel);
    git(&args)
}

fn slugify_name(name: &str) -> String {
    let s: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
        .collect();
    if s.is_empty() {
        "someone".into()
    } else {
        s.to_lowercase()
    }
}
