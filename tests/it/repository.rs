//! The repository's own library: it must pass `lore check`, so CI fails when a runbook breaks.

use crate::support::{lore_in, repo_root, stdout};

#[test]
fn shipped_library_passes_check() {
    let out = lore_in(&repo_root(), &["check"], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "lore check on the repository:\n{}",
        stdout(&out)
    );
}
