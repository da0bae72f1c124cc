//! `lore serve`: the web UI and API over the library root, reloaded when files change.

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::watcher::Watcher;
use crate::web::{self, AppState};

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on; anything but loopback needs LORE_TOKEN or --read-only
    #[arg(long, default_value = "127.0.0.1:7070")]
    addr: SocketAddr,
    /// Refuse every write (postmortems can be read, not written)
    #[arg(long)]
    read_only: bool,
    /// Commit each saved postmortem to git (the root must be a git work tree)
    #[arg(long)]
    git_commit: bool,
}

pub fn run(root: &Path, args: Args) -> anyhow::Result<ExitCode> {
    let token = std::env::var("LORE_TOKEN").ok().filter(|t| !t.is_empty());
    if !args.addr.ip().is_loopback() && token.is_none() && !args.read_only {
        anyhow::bail!(
            "refusing to listen on {} without protection: set LORE_TOKEN (writes then need it) or pass --read-only",
            args.addr
        );
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    let root = std::fs::canonicalize(root)
        .with_context(|| format!("opening the library root {}", root.display()))?;
    let mut state = AppState::load(&root, args.read_only)?;
    state.token = token.map(std::sync::Arc::from);
    if args.git_commit {
        let inside = std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["rev-parse", "--is-inside-work-tree"])
            .output()
            .is_ok_and(|o| o.status.success());
        anyhow::ensure!(
            inside,
            "--git-commit: {} is not a git work tree",
            root.display()
        );
        state.git_commit = true;
    }
    // The first paste must not wait for the regexes to compile (about 60 ms for the shipped
    // library): compile them while the server starts listening.
    state.warm = true;
    state.warm_in_background();
    let snapshot = state.snapshot();
    let problems = snapshot.library.error_count();
    if problems > 0 {
        eprintln!(
            "lore: {problems} problem(s) in the library were skipped; run `lore check` for details"
        );
    }
    let watched = state.clone();
    let _watcher = Watcher::start(&root, move |change| {
        let files = (!change.full).then_some(change.files.as_slice());
        match watched.reload(files) {
            Ok(read) => tracing::info!(
                files = ?change.files,
                full = change.full,
                read,
                "reloaded the library"
            ),
            Err(e) => tracing::warn!(
                error = format!("{e:#}"),
                "reload failed; still serving the previous version"
            ),
        }
    })
    .map_err(|e| tracing::warn!(error = %e, "cannot watch the library; restart to see changes"))
    .ok();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(web::serve(state, args.addr, |bound| {
        // Whoever started the server may have stopped reading its output; it serves on.
        let mut out = std::io::stdout();
        let _ = writeln!(
            out,
            "lore: serving {} runbooks, {} incidents and {} stacks from {} at http://{bound}/",
            snapshot.library.runbooks.len(),
            snapshot.library.incidents.len(),
            snapshot.library.stacks.len(),
            root.display()
        )
        .and_then(|()| out.flush());
    }))?;
    Ok(ExitCode::SUCCESS)
}
