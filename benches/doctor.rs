//! `lore doctor` benchmark: the wall time of a whole run on a healthy node (the goal is under
//! 5 s, of which three `nvidia-smi -q -d MEMORY` samples two seconds apart take 4), on a node
//! whose nvidia-smi fails at once, and on one whose nvidia-smi never answers (bounded by the
//! budget). Nodes are fake: a `--sysroot` tree and PATH shims, as in `tests/it/doctor.rs`.
//!
//! Run: `cargo bench --bench doctor`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    fs::write(path, text).expect("write");
}

fn shim(bin: &Path, name: &str, body: &str) {
    let path = bin.join(name);
    write(&path, &format!("#!/bin/sh\n{body}\n"));
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Four H100s on driver 570.133.20, everything in order; `smi` is the nvidia-smi shim's body.
fn node(dir: &Path, smi: &str) {
    let root = dir.join("root");
    let bin = dir.join("bin");
    write(
        &root.join("etc/os-release"),
        "PRETTY_NAME=\"Rocky Linux 9.4 (Blue Onyx)\"\n",
    );
    write(
        &root.join("proc/sys/kernel/osrelease"),
        "5.14.0-427.42.1.el9_4.x86_64\n",
    );
    write(&root.join("proc/sys/kernel/hostname"), "h100-bench\n");
    write(&root.join("proc/cmdline"), "ro crashkernel=auto\n");
    write(
        &root.join("proc/driver/nvidia/version"),
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar 25 00:00:00 UTC 2025\n",
    );
    let mut modules = String::from("nvidia_uvm 4960256 0 - Live 0x0 (OE)\n");
    modules.push_str("nvidia 11550720 4 nvidia_uvm, Live 0x0 (OE)\n");
    write(&root.join("proc/modules"), &modules);
    for dev in [
        "nvidia0",
        "nvidia1",
        "nvidia2",
        "nvidia3",
        "nvidiactl",
        "nvidia-uvm",
    ] {
        write(&root.join("dev").join(dev), "");
    }
    fs::create_dir_all(root.join("run/systemd/system")).expect("dir");
    fs::create_dir_all(&bin).expect("bin");
    shim(&bin, "nvidia-smi", smi);
    shim(&bin, "systemctl", "echo active");
}

const HEALTHY_SMI: &str = r#"case "$*" in
  "-q -d MEMORY") for g in 18 2A 3A 5D; do printf 'GPU 00000000:%s:00.0\n    FB Memory Usage\n        Total : 81559 MiB\n        Used : 1 MiB\n' "$g"; done ;;
  *) echo "| NVIDIA-SMI 570.133.20   Driver Version: 570.133.20   CUDA Version: 12.8 |" ;;
esac"#;

fn run(dir: &Path, library: &Path, budget: &str) -> Duration {
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("--root")
        .arg(library)
        .args(["doctor", "--json", "--budget", budget, "--sysroot"])
        .arg(dir.join("root"))
        .env(
            "PATH",
            format!(
                "{}:{}",
                dir.join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("lore doctor");
    assert!(status.code().is_some_and(|c| c < 2), "lore doctor failed");
    started.elapsed()
}

fn main() {
    let library = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, smi, budget, runs) in [
        ("healthy node", HEALTHY_SMI, "60s", 5),
        (
            "nvidia-smi fails at once",
            "echo 'Failed to initialize NVML: Driver/library version mismatch'; exit 18",
            "60s",
            5,
        ),
        ("nvidia-smi never answers", "sleep 600", "5s", 2),
    ] {
        let dir = tempfile::tempdir().expect("temp");
        node(dir.path(), smi);
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| run(dir.path(), library, budget))
            .collect();
        times.sort();
        println!(
            "lore doctor, {name} (budget {budget}): median {:.2} s, max {:.2} s over {runs} runs",
            times[runs / 2].as_secs_f64(),
            times[runs - 1].as_secs_f64()
        );
    }
    let _ = Command::new("pkill").args(["-f", "sleep 600"]).status();
}
