//! Running the collector table natively: each step is its snippet under `sh -c`, in a process
//! group of its own, with its output in an anonymous file (a step that never ends cannot block a
//! pipe), killed with its whole group at its timeout or when the budget runs out. Steps run on a
//! few threads at once (they wait on the kernel, not the CPU); the bundle lists them in table
//! order whatever order they finished in.

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::table::{COLLECTORS, Collector, GUARD_WHY, MARKER, fallen_off, quote};

/// A step's output is cut at this size.
const MAX_OUTPUT: u64 = 4 << 20;
/// Steps run at once.
const WORKERS: usize = 4;

#[derive(Debug, Clone)]
pub struct Options {
    pub budget: Duration,
    /// Read /proc, /sys, /etc, /var/log and /dev under this directory.
    pub sysroot: Option<PathBuf>,
    /// The Python whose `torch.utils.collect_env` and `pip list` are collected.
    pub python: Option<PathBuf>,
}

/// One step's result, as its marker and output.
#[derive(Debug, Clone)]
struct Done {
    marker: String,
    output: String,
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Whether `program` is on PATH (or is a path that exists).
fn on_path(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            let candidate = dir.join(program);
            std::fs::metadata(&candidate).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            })
        })
    })
}

fn skipped(c: &Collector, kind: &str, why: &str) -> Done {
    Done {
        marker: format!(
            "{MARKER}id={} cmd={} skipped={kind} why={}",
            c.id,
            quote(c.shown),
            quote(why)
        ),
        output: String::new(),
    }
}

/// Runs one step within `limit`.
fn run_step(c: &Collector, options: &Options, limit: Duration) -> Done {
    let started = Instant::now();
    let file = match tempfile::tempfile() {
        Ok(f) => f,
        Err(e) => return skipped(c, "error", &format!("no temporary file: {e}")),
    };
    let (Ok(out), Ok(err)) = (file.try_clone(), file.try_clone()) else {
        return skipped(c, "error", "no temporary file");
    };
    let sysroot = options
        .sysroot
        .as_deref()
        .map(|p| p.to_string_lossy().trim_end_matches('/').to_string())
        .unwrap_or_default();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(c.sh)
        .env("R", &sysroot)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    if let Some(python) = &options.python {
        command.env("PYTHON", python);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return skipped(c, "error", &format!("sh: {e}")),
    };
    let timeout = Duration::from_secs(u64::from(c.timeout)).min(limit);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= timeout => {
                // The whole group: `sh` and whatever it started.
                // SAFETY: kill has no memory-safety preconditions; a negative pid names the
                // process group this step leads.
                unsafe {
                    libc::kill(-(child.id() as i32), libc::SIGKILL);
                }
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    let ms = started.elapsed().as_millis();
    let mut output = Vec::new();
    let mut file = file;
    let _ = file.seek(SeekFrom::Start(0));
    let _ = file.take(MAX_OUTPUT).read_to_end(&mut output);
    let mut output = String::from_utf8_lossy(&output).into_owned();
    if !output.is_empty() && !output.ends_with('\n') {
        output.push('\n');
    }
    let marker = match status {
        Some(status) => format!(
            "{MARKER}id={} cmd={} rc={} ms={ms}",
            c.id,
            quote(c.shown),
            status.code().unwrap_or(128)
        ),
        None => format!(
            "{MARKER}id={} cmd={} skipped=timeout why={} ms={ms}",
            c.id,
            quote(c.shown),
            quote(&format!("no answer within {}s", timeout.as_secs()))
        ),
    };
    Done { marker, output }
}

/// Runs the table and returns the bundle. Never takes much longer than the budget: a step gets
/// at most what is left of it.
pub fn collect(options: &Options, lore_version: &str) -> String {
    let started = Instant::now();
    let root = is_root();
    let host = std::fs::read_to_string(
        options
            .sysroot
            .as_deref()
            .unwrap_or(Path::new("/"))
            .join("proc/sys/kernel/hostname"),
    )
    .map(|h| h.trim().to_string())
    .unwrap_or_default();
    let mut bundle = format!(
        "{MARKER}bundle=1 lore={lore_version} via=doctor host={} date={} root={} sysroot={}\n",
        quote(&host),
        quote(&chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()),
        u8::from(root),
        quote(
            &options
                .sysroot
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        )
    );
    let steps: Vec<&Collector> = COLLECTORS
        .iter()
        .filter(|c| !c.python || options.python.is_some())
        .collect();
    let results: Vec<Mutex<Option<Done>>> = steps.iter().map(|_| Mutex::new(None)).collect();
    let fallen: Mutex<Option<String>> = Mutex::new(None);
    // Three phases: what reads the kernel's side; then, once the kernel log has been read, what
    // goes through NVML (which the guard may forbid); then the slow optional steps (collect_env,
    // dcgmi diag), so that they never spend the budget the rest needs.
    let phase_of = |c: &Collector| {
        if c.python || c.timeout > 30 {
            2
        } else if c.guarded {
            1
        } else {
            0
        }
    };
    for phase in [0, 1, 2] {
        let next = AtomicUsize::new(0);
        let todo: Vec<usize> = (0..steps.len())
            .filter(|&i| phase_of(steps[i]) == phase)
            .collect();
        std::thread::scope(|scope| {
            for _ in 0..WORKERS.min(todo.len()) {
                scope.spawn(|| {
                    loop {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = todo.get(n) else { return };
                        let c = steps[i];
                        let left = options.budget.saturating_sub(started.elapsed());
                        let done = if left.is_zero() {
                            skipped(
                                c,
                                "budget",
                                &format!("the budget of {}s was spent", options.budget.as_secs()),
                            )
                        } else if let Some(why) = c
                            .guarded
                            .then(|| fallen.lock().ok().and_then(|f| f.clone()))
                            .flatten()
                        {
                            skipped(c, "guard", &why)
                        } else if c.root && !root {
                            skipped(c, "no-root", "needs root")
                        } else if let Some(program) = c.needs.filter(|p| !on_path(p)) {
                            skipped(c, "not-found", &format!("{program} is not installed"))
                        } else {
                            run_step(c, options, left)
                        };
                        if c.id == "kernel.log" && fallen_off(&done.output) {
                            *fallen.lock().expect("not poisoned") = Some(GUARD_WHY.into());
                        }
                        *results[i].lock().expect("not poisoned") = Some(done);
                    }
                });
            }
        });
    }
    for result in results {
        if let Some(done) = result.into_inner().ok().flatten() {
            bundle.push_str(&done.marker);
            bundle.push('\n');
            bundle.push_str(&done.output);
        }
    }
    bundle
}
