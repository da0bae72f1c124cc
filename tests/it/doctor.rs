//! `lore doctor` without a GPU: fake `--sysroot` trees for a healthy node and for each fault,
//! PATH shims for nvidia-smi, lspci, systemctl and the rest (one that never answers, one that
//! prints the NVML mismatch), no root, and `/collect.sh` under dash and busybox.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{library_copy, stdout};

/// A fake node: `root/` is its sysroot, `bin/` its shims (first on PATH).
struct Node {
    dir: tempfile::TempDir,
}

const NVIDIA_SMI_HEALTHY: &str = r#"#!/bin/sh
case "$*" in
  "") cat <<'EOF'
Tue Dec  1 03:00:00 2026
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
|=========================================+======================+======================|
|   0  NVIDIA A100 80GB PCIe          On  | 00000000:17:00.0 Off |                    0 |
| N/A   34C    P0              44W / 300W |      4MiB / 81920MiB |      0%      Default |
+-----------------------------------------+----------------------+----------------------+
EOF
  ;;
  "-q -d MEMORY") cat <<'EOF'
==============NVSMI LOG==============
GPU 00000000:17:00.0
    FB Memory Usage
        Total                             : 81920 MiB
        Reserved                          : 585 MiB
        Used                              : 4 MiB
        Free                              : 81330 MiB
EOF
  ;;
  "-q") cat <<'EOF'
==============NVSMI LOG==============
Driver Version                            : 535.161.08
CUDA Version                              : 12.2
Attached GPUs                             : 1
GPU 00000000:17:00.0
    Product Name                          : NVIDIA A100 80GB PCIe
    Serial Number                         : 1324021005678
    GPU UUID                              : GPU-5ba1c9a0-3b4f-7c66-1d3e-9a2f1e0c4d11
EOF
  ;;
  "topo -m") printf '\tGPU0\tCPU Affinity\nGPU0\t X \t0-31\n' ;;
  *) ;;
esac
"#;

impl Node {
    fn new() -> Node {
        let dir = tempfile::tempdir().unwrap();
        // Readable by an unprivileged user too (the no-root test).
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let node = Node { dir };
        std::fs::create_dir_all(node.root().join("run/systemd/system")).unwrap();
        std::fs::create_dir_all(node.bin()).unwrap();
        node
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    fn file(&self, rel: &str, text: &str) -> &Node {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    fn shim(&self, name: &str, script: &str) -> &Node {
        let path = self.bin().join(name);
        let script = if script.starts_with("#!") {
            script.to_string()
        } else {
            format!("#!/bin/sh\n{script}\n")
        };
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    fn dpkg(&self, packages: &[(&str, &str)]) -> &Node {
        let mut status = String::new();
        for (name, version) in packages {
            status.push_str(&format!(
                "Package: {name}\nStatus: install ok installed\nPriority: optional\nSection: libs\nInstalled-Size: 10\nMaintainer: Nobody <nobody@example.com>\nArchitecture: amd64\nVersion: {version}\nDescription: {name}\n\n"
            ));
        }
        self.file("var/lib/dpkg/status", &status)
    }

    /// A single-A100 PCIe node on Ubuntu 22.04 with driver 535.161.08, everything in order.
    fn healthy() -> Node {
        let node = Node::new();
        node.file(
            "etc/os-release",
            "PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nID=ubuntu\n",
        )
        .file("proc/sys/kernel/hostname", "gpu-node-07\n")
        .file("proc/sys/kernel/osrelease", "5.15.0-105-generic\n")
        .file("proc/sys/kernel/version", "#115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024\n")
        .file("proc/cmdline", "BOOT_IMAGE=/vmlinuz-5.15.0-105-generic root=/dev/sda1 ro quiet\n")
        .file(
            "proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:15 UTC 2024\nGCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n",
        )
        .file(
            "proc/driver/nvidia/gpus/0000:17:00.0/information",
            "Model: \t\t NVIDIA A100 80GB PCIe\nIRQ:   \t\t 183\nBus Location: \t 0000:17:00.0\n",
        )
        .file(
            "proc/modules",
            "nvidia_uvm 1531904 0 - Live 0x0000000000000000 (POE)\nnvidia_drm 81920 0 - Live 0x0000000000000000 (POE)\nnvidia_modeset 1314816 1 nvidia_drm, Live 0x0000000000000000 (POE)\nnvidia 56713216 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\next4 987136 1 - Live 0x0000000000000000\n",
        )
        .file("dev/nvidia0", "")
        .file("dev/nvidiactl", "")
        .file("dev/nvidia-uvm", "")
        .file("dev/nvidia-uvm-tools", "")
        .dpkg(&[
            ("nvidia-driver-535", "535.161.08-0ubuntu0.22.04.1"),
            ("libnvidia-compute-535", "535.161.08-0ubuntu0.22.04.1"),
            ("nvidia-dkms-535", "535.161.08-0ubuntu0.22.04.1"),
        ])
        .file(
            "var/log/apt/history.log",
            "\nStart-Date: 2024-04-20  10:11:12\nCommandline: apt-get install -y nvidia-driver-535\nInstall: nvidia-driver-535:amd64 (535.161.08-0ubuntu0.22.04.1), libnvidia-compute-535:amd64 (535.161.08-0ubuntu0.22.04.1, automatic)\nEnd-Date: 2024-04-20  10:13:40\n",
        )
        .file(
            "var/log/kern.log",
            "Apr 20 10:20:01 gpu-node-07 kernel: [    4.120311] nvidia: loading out-of-tree module taints kernel.\n\
Apr 20 10:20:01 gpu-node-07 kernel: [    4.301877] nvidia-nvlink: Nvlink Core is being initialized, major device number 509\n\
Apr 20 10:20:01 gpu-node-07 kernel: [    4.305527] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:15 UTC 2024\n\
Apr 20 10:20:01 gpu-node-07 kernel: [    4.381023] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.161.08  Tue Mar  5 22:15:03 UTC 2024\n\
Apr 20 10:20:01 gpu-node-07 kernel: [    4.402915] [drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:17:00.0 on minor 1\n\
Apr 20 10:20:02 gpu-node-07 kernel: [    5.601201] nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint.\n",
        )
        .shim("nvidia-smi", NVIDIA_SMI_HEALTHY)
        .shim(
            "systemctl",
            "case \"$2\" in nvidia-persistenced) echo active ;; *) echo inactive; exit 3 ;; esac",
        )
        .shim(
            "lspci",
            "printf '17:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 80GB] (rev a1)\\n\\t\\tLnkCap:\\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\\n\\t\\tLnkSta:\\tSpeed 2.5GT/s (downgraded), Width x16\\n\\t\\tUESta:\\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-\\n\\tKernel driver in use: nvidia\\n'",
        )
        .shim(
            "modinfo",
            "for m in \"$@\"; do printf 'filename:       /lib/modules/5.15.0-105-generic/updates/dkms/%s.ko\\nversion:        535.161.08\\nlicense:        NVIDIA\\nsigner:         gpu-node-07 Secure Boot Module Signature key\\nsig_key:        1A:2B\\nvermagic:       5.15.0-105-generic SMP mod_unload modversions\\n' \"$m\"; done",
        )
        .shim(
            "dkms",
            "echo 'nvidia/535.161.08, 5.15.0-105-generic, x86_64: installed'",
        )
        .shim("mokutil", "echo 'SecureBoot disabled'")
        .shim(
            "ldconfig",
            "printf '\\tlibnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1\\n\\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1\\n\\tlibcuda.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so\\n'",
        );
        node
    }

    fn path_var(&self) -> String {
        format!(
            "{}:{}",
            self.bin().display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// `lore doctor --sysroot <root> <args>` with the shims first on PATH.
    fn doctor(&self, library: &Path, args: &[&str]) -> (Output, Duration) {
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_lore"))
            .args(["--root"])
            .arg(library)
            .args(["doctor", "--sysroot"])
            .arg(self.root())
            .args(args)
            .env("PATH", self.path_var())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (out, started.elapsed())
    }
}

fn answer(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            stdout(out),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn checks_at(answer: &serde_json::Value, level: &str) -> Vec<String> {
    answer["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["level"] == level)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

fn step<'a>(answer: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    answer["collected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id}"))
}

#[test]
fn a_healthy_node_passes_every_check() {
    let library = library_copy();
    let node = Node::healthy();
    let (out, _) = node.doctor(library.path(), &["--json"]);
    let answer = answer(&out);
    assert_eq!(
        checks_at(&answer, "fail"),
        Vec::<String>::new(),
        "{answer:#}"
    );
    assert_eq!(
        checks_at(&answer, "warn"),
        Vec::<String>::new(),
        "{answer:#}"
    );
    for id in [
        "driver-loaded",
        "nvidia-uvm",
        "driver-matches-module",
        "dkms-built",
        "secure-boot",
        "persistenced",
        "pcie-link",
        "libcuda",
        "gpu-memory-idle",
    ] {
        assert!(
            checks_at(&answer, "ok").contains(&id.to_string()),
            "{id} not ok: {answer:#}"
        );
    }
    assert!(
        answer["causes"].as_array().unwrap().is_empty(),
        "{answer:#}"
    );
    assert_eq!(
        answer["environment"]["fingerprint"]["driver"]["value"],
        "535.161.08"
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // The human answer leads with the checks and names what it skipped.
    let (human, _) = node.doctor(library.path(), &[]);
    let text = stdout(&human);
    assert!(text.starts_with("lore doctor: "), "{text}");
    assert!(text.contains(" ok  driver-matches-module"), "{text}");
    // The node-problem-detector line.
    let (npd, _) = node.doctor(library.path(), &["--npd"]);
    let line = stdout(&npd);
    assert_eq!(npd.status.code(), Some(0));
    assert!(
        line.starts_with("ok: ") && line.trim_end().chars().count() <= 80,
        "{line}"
    );
    assert_eq!(line.lines().count(), 1);
}

/// The operator's outage: an unattended upgrade moved the packages to 535.104.05 while
/// 535.86.01 stayed loaded, and nvidia-smi fails with the NVML mismatch.
#[test]
fn the_half_finished_upgrade_is_named_with_both_versions_and_the_time() {
    let library = library_copy();
    let node = Node::healthy();
    node.file(
        "proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.86.01  Wed Jul 26 23:01:50 UTC 2023\nGCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n",
    )
    .dpkg(&[
        ("nvidia-driver-535", "535.104.05-0ubuntu0.22.04.1"),
        ("libnvidia-compute-535", "535.104.05-0ubuntu0.22.04.1"),
        ("nvidia-dkms-535", "535.104.05-0ubuntu0.22.04.1"),
    ])
    .file(
        "var/log/apt/history.log",
        "\nStart-Date: 2023-08-02  09:00:01\nCommandline: apt-get install -y nvidia-driver-535\nInstall: nvidia-driver-535:amd64 (535.86.01-0ubuntu0.22.04.1)\nEnd-Date: 2023-08-02  09:02:11\n\n\
Start-Date: 2023-09-01  06:25:12\nCommandline: /usr/bin/unattended-upgrade\nUpgrade: libnvidia-compute-535:amd64 (535.86.01-0ubuntu0.22.04.1, 535.104.05-0ubuntu0.22.04.1), nvidia-driver-535:amd64 (535.86.01-0ubuntu0.22.04.1, 535.104.05-0ubuntu0.22.04.1)\nEnd-Date: 2023-09-01  06:27:40\n",
    )
    .file(
        "var/log/kern.log",
        "Sep  1 09:14:02 gpu-node-07 kernel: [4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but\n\
Sep  1 09:14:02 gpu-node-07 kernel: [4216.350214] NVRM: this kernel module has the version 535.86.01.  Please\n\
Sep  1 09:14:02 gpu-node-07 kernel: [4216.350214] NVRM: make sure that this kernel module and all NVIDIA driver\n\
Sep  1 09:14:02 gpu-node-07 kernel: [4216.350214] NVRM: components have the same version.\n",
    )
    .shim(
        "nvidia-smi",
        "echo 'Failed to initialize NVML: Driver/library version mismatch'\necho 'NVML library version: 535.104'\nexit 18",
    )
    .shim(
        "modinfo",
        "for m in \"$@\"; do printf 'filename:       /lib/modules/5.15.0-105-generic/updates/dkms/%s.ko\\nversion:        535.104.05\\nlicense:        NVIDIA\\n' \"$m\"; done",
    );
    let (out, _) = node.doctor(library.path(), &["--json"]);
    let answer = answer(&out);
    let mismatch = answer["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "driver-matches-module")
        .unwrap();
    assert_eq!(mismatch["level"], "fail", "{answer:#}");
    assert_eq!(mismatch["runbook"], "driver-version-mismatch");
    let message = mismatch["message"].as_str().unwrap();
    for needle in ["535.104.05", "535.86.01", "2023-09-01  06:25:12"] {
        assert!(message.contains(needle), "{needle} not in {message}");
    }
    assert!(
        mismatch["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["text"].as_str().unwrap().starts_with("Upgrade: ")),
        "{mismatch:#}"
    );
    assert_eq!(
        answer["causes"][0]["runbook"], "driver-version-mismatch",
        "{answer:#}"
    );
    assert_eq!(out.status.code(), Some(1));
    let (npd, _) = node.doctor(library.path(), &["--npd"]);
    let line = stdout(&npd);
    assert_eq!(npd.status.code(), Some(1));
    assert!(line.starts_with("driver-version-mismatch: "), "{line}");
    assert!(line.trim_end().chars().count() <= 80);
}

#[test]
fn a_hung_nvidia_smi_ends_within_the_budget() {
    let library = library_copy();
    let node = Node::healthy();
    node.shim("nvidia-smi", "sleep 600");
    let (out, took) = node.doctor(library.path(), &["--json", "--budget", "4s"]);
    assert!(took < Duration::from_secs(8), "took {took:?}");
    let answer = answer(&out);
    for id in ["smi.summary", "smi.query", "smi.memory", "smi.topo"] {
        let s = step(&answer, id);
        assert!(
            s["skipped"] == "timeout" || s["skipped"] == "budget",
            "{id}: {s}"
        );
        assert!(s["why"].as_str().is_some_and(|w| !w.is_empty()), "{s}");
    }
    // Kernel-side steps still answered.
    assert_eq!(step(&answer, "driver.proc")["rc"], 0);
    assert!(checks_at(&answer, "ok").contains(&"driver-matches-module".to_string()));
    // No sleeping shim is left behind: the whole process group was killed.
    let left = Command::new("pgrep")
        .args(["-f", "sleep 600"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    assert!(left.trim().is_empty(), "left running: {left}");
}

#[test]
fn no_nvml_after_the_gpu_fell_off_the_bus() {
    let library = library_copy();
    let node = Node::healthy();
    let touched = node.dir.path().join("nvidia-smi-ran");
    node.file(
        "var/log/kern.log",
        "Dec  1 02:58:11 gpu-node-07 kernel: [88211.340112] NVRM: Xid (PCI:0000:17:00): 79, pid=0, GPU has fallen off the bus.\n\
Dec  1 02:58:11 gpu-node-07 kernel: [88211.340150] NVRM: GPU 0000:17:00.0: GPU has fallen off the bus.\n",
    )
    .shim(
        "nvidia-smi",
        &format!("touch {}\nsleep 600", touched.display()),
    );
    let (out, _) = node.doctor(library.path(), &["--json"]);
    let answer = answer(&out);
    for id in [
        "smi.summary",
        "smi.query",
        "smi.memory",
        "smi.topo",
        "smi.nvlink",
        "container.cli",
    ] {
        assert_eq!(step(&answer, id)["skipped"], "guard", "{id}");
    }
    assert!(!touched.exists(), "nvidia-smi was run");
    assert_eq!(
        answer["causes"][0]["runbook"], "gpu-fallen-off-bus",
        "{answer:#}"
    );
}

#[test]
fn each_injected_fault_fires_its_check() {
    let library = library_copy();
    let node = Node::healthy();
    node.file(
        "proc/modules",
        "nouveau 2859008 0 - Live 0x0000000000000000\nnvidia_modeset 1314816 0 - Live 0x0000000000000000 (POE)\nnvidia 56713216 1 nvidia_modeset, Live 0x0000000000000000 (POE)\n",
    )
    .shim(
        "dkms",
        "echo 'nvidia/535.161.08, 5.15.0-102-generic, x86_64: installed'\necho 'nvidia/535.161.08, 5.15.0-105-generic, x86_64: built'",
    )
    .shim("mokutil", "echo 'SecureBoot enabled'")
    .shim(
        "modinfo",
        "for m in \"$@\"; do printf 'filename:       /lib/modules/5.15.0-105-generic/updates/dkms/%s.ko\\nversion:        535.161.08\\nlicense:        NVIDIA\\n' \"$m\"; done",
    )
    .shim(
        "lspci",
        "printf '17:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 80GB] (rev a1)\\n\\t\\tLnkCap:\\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\\n\\t\\tLnkSta:\\tSpeed 16GT/s, Width x8 (downgraded)\\n'",
    )
    .shim(
        "ldconfig",
        "printf '\\tlibcuda.so.1 (libc6,x86-64) => /usr/local/cuda-12.4/compat/libcuda.so.1\\n\\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1\\n'",
    )
    .shim(
        "systemctl",
        "case \"$2\" in nvidia-persistenced) echo failed; exit 3 ;; *) echo inactive; exit 3 ;; esac",
    )
    .file("etc/docker/daemon.json", "{\n  \"log-driver\": \"json-file\"\n}\n")
    .dpkg(&[
        ("nvidia-driver-535", "535.161.08-0ubuntu0.22.04.1"),
        ("nvidia-container-toolkit", "1.14.6-1"),
    ]);
    let (out, _) = node.doctor(library.path(), &["--json"]);
    let answer = answer(&out);
    let fail = checks_at(&answer, "fail");
    for id in [
        "nvidia-uvm",
        "dkms-built",
        "secure-boot",
        "nouveau",
        "pcie-link",
        "container-runtime",
    ] {
        assert!(
            fail.contains(&id.to_string()),
            "{id} did not fail: {answer:#}"
        );
    }
    let warn = checks_at(&answer, "warn");
    for id in ["libcuda", "persistenced"] {
        assert!(
            warn.contains(&id.to_string()),
            "{id} did not warn: {answer:#}"
        );
    }
    // Failed checks come first, each with its runbook and evidence.
    assert_eq!(answer["checks"][0]["level"], "fail");
    for c in answer["checks"].as_array().unwrap() {
        if c["level"] == "fail" {
            assert!(c["runbook"].is_string(), "{c}");
        }
    }
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_bundle_is_a_paste_and_diffs_against_a_healthy_one() {
    let library = library_copy();
    let healthy = Node::healthy();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.txt");
    let (out, _) = healthy.doctor(library.path(), &["--out", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let broken = Node::healthy();
    broken.file(
        "proc/modules",
        "nvidia 56713216 0 - Live 0x0000000000000000 (POE)\n",
    );
    let bad = dir.path().join("bad.txt");
    let (out, _) = broken.doctor(
        library.path(),
        &[
            "--json",
            "--out",
            bad.to_str().unwrap(),
            "--diff",
            good.to_str().unwrap(),
        ],
    );
    let live = answer(&out);
    let diff = live["diff"].as_array().unwrap();
    let modules = diff.iter().find(|d| d["id"] == "modules.loaded").unwrap();
    assert!(
        modules["only_healthy"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().starts_with("nvidia_uvm ")),
        "{modules}"
    );
    // Next week: the saved bundle answers the same, through doctor and through match.
    let again = crate::support::lore_in(
        library.path(),
        &["doctor", "--json", "--from", bad.to_str().unwrap()],
        b"",
    );
    let again = answer(&again);
    assert_eq!(again["checks"], live["checks"]);
    let matched = crate::support::lore_in(
        library.path(),
        &["match", "--json", bad.to_str().unwrap()],
        b"",
    );
    let matched = answer(&matched);
    assert_eq!(matched["checks"], live["checks"]);
    // `lore new incident --from-log` takes a bundle unchanged.
    let text = std::fs::read_to_string(&bad).unwrap();
    assert!(text.starts_with("### lore-collect bundle=1 "));
    let incident = crate::support::lore_in(
        library.path(),
        &[
            "new",
            "incident",
            "--title",
            "gpu-node-07 lost nvidia_uvm",
            "--from-log",
            bad.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(
        incident.status.code(),
        Some(0),
        "{}",
        crate::support::stderr(&incident)
    );
    let written = std::fs::read_to_string(stdout(&incident).trim()).unwrap();
    assert!(
        written.contains("lore-collect id=modules.loaded"),
        "{written}"
    );
    // Redacted: no host name left, the answer unchanged.
    let (red, _) = broken.doctor(
        library.path(),
        &["--json", "--redact", "--out", bad.to_str().unwrap()],
    );
    let red = answer(&red);
    let text = std::fs::read_to_string(&bad).unwrap();
    assert!(!text.contains("gpu-node-07"), "host name left");
    assert!(!text.contains("5ba1c9a0"), "GPU UUID left");
    assert_eq!(red["checks"], live["checks"]);
}

#[test]
fn without_root_it_collects_what_it_can_and_says_what_it_skipped() {
    if !crate::support::is_root() || Command::new("setpriv").arg("--help").output().is_err() {
        eprintln!("skipped: needs root and setpriv to drop privileges");
        return;
    }
    let library = library_copy();
    std::fs::set_permissions(library.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let node = Node::healthy();
    node.shim("dcgmi", "echo '{}'");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_lore"))
        .arg("--root")
        .arg(library.path())
        .args(["doctor", "--json", "--sysroot"])
        .arg(node.root())
        .env("PATH", node.path_var())
        .env("HOME", "/nonexistent")
        .current_dir("/")
        .output()
        .unwrap();
    let answer = answer(&out);
    let dcgm = step(&answer, "dcgm.diag");
    assert_eq!(dcgm["skipped"], "no-root", "{dcgm}");
    assert_eq!(step(&answer, "driver.proc")["rc"], 0);
    assert!(checks_at(&answer, "fail").is_empty(), "{answer:#}");
}

/// The script `lore serve` offers, run by dash and by busybox sh (with and without `timeout`),
/// gives a bundle with the same steps and the same checks as the native run.
#[test]
fn collect_sh_runs_under_dash_and_busybox() {
    let library = library_copy();
    let node = Node::healthy();
    let served = crate::support::serve(library.path());
    let script = crate::support::http_get(&format!("{}/collect.sh", served.url));
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    let view = crate::support::http_get(&format!("{}/collect.sh?view=1", served.url));
    let sha: String = {
        use sha2::Digest;
        sha2::Sha256::digest(script.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert!(view.contains(&sha), "the page shows the script's SHA-256");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.sh");
    std::fs::write(&path, &script).unwrap();
    let (native, _) = node.doctor(library.path(), &["--json"]);
    let native = answer(&native);
    let mut shells: Vec<Vec<&str>> = vec![vec!["dash"]];
    if Command::new("busybox").arg("true").output().is_ok() {
        shells.push(vec!["busybox", "sh"]);
    } else {
        panic!("busybox is not installed (test.sh installs it)");
    }
    for shell in shells {
        for no_timeout in ["", "1"] {
            let out = Command::new(shell[0])
                .args(&shell[1..])
                .arg(&path)
                .env("PATH", node.path_var())
                .env("LORE_SYSROOT", node.root())
                .env("LORE_NO_TIMEOUT", no_timeout)
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{shell:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let bundle = dir.path().join("bundle.txt");
            std::fs::write(&bundle, &out.stdout).unwrap();
            let from = crate::support::lore_in(
                library.path(),
                &["doctor", "--json", "--from", bundle.to_str().unwrap()],
                b"",
            );
            let from = answer(&from);
            let ids = |a: &serde_json::Value| -> Vec<String> {
                a["collected"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["id"].as_str().unwrap().to_string())
                    .collect()
            };
            assert_eq!(ids(&from), ids(&native), "{shell:?}");
            let levels = |a: &serde_json::Value| -> Vec<(String, String)> {
                let mut v: Vec<(String, String)> = a["checks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        (
                            c["id"].as_str().unwrap().to_string(),
                            c["level"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect();
                v.sort();
                v
            };
            assert_eq!(
                levels(&from),
                levels(&native),
                "{shell:?} no_timeout={no_timeout}"
            );
        }
        // A hung nvidia-smi: the script still ends within its budget, with or without `timeout`.
        let hung = Node::healthy();
        hung.shim("nvidia-smi", "sleep 600");
        for no_timeout in ["", "1"] {
            let started = Instant::now();
            let out = Command::new(shell[0])
                .args(&shell[1..])
                .arg(&path)
                .env("PATH", hung.path_var())
                .env("LORE_SYSROOT", hung.root())
                .env("LORE_BUDGET", "3")
                .env("LORE_NO_TIMEOUT", no_timeout)
                .stdout(Stdio::piped())
                .output()
                .unwrap();
            let took = started.elapsed();
            assert!(took < Duration::from_secs(12), "{shell:?} took {took:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.contains("id=smi.summary cmd=\"nvidia-smi\" skipped=timeout")
                    || text.contains("id=smi.summary cmd=\"nvidia-smi\" skipped=budget"),
                "{shell:?}: {text}"
            );
        }
        let _ = Command::new("pkill").args(["-f", "sleep 600"]).status();
    }
}

/// A bundle pasted to the web gets the same checks: in `/api/match`'s JSON and as the match
/// page's Node checks panel; a plain log gets neither.
#[tokio::test]
async fn the_web_answers_a_bundle_with_its_checks() {
    use axum::body::Body;
    use axum::http::{Request, header};
    let library = library_copy();
    let node = Node::healthy();
    node.file(
        "proc/modules",
        "nvidia 56713216 0 - Live 0x0000000000000000 (POE)\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("b.txt");
    let (out, _) = node.doctor(
        library.path(),
        &["--json", "--out", bundle.to_str().unwrap()],
    );
    let native = answer(&out);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let app = lore::web::router(lore::web::AppState::load(library.path(), false).unwrap());
    let reply = crate::support::call(
        &app,
        Request::post("/api/match")
            .body(Body::from(text.clone()))
            .unwrap(),
    )
    .await
    .json();
    assert_eq!(reply["checks"], native["checks"]);
    assert!(reply["collected"].as_array().is_some_and(|c| c.len() > 20));
    let plain = crate::support::call(
        &app,
        Request::post("/api/match")
            .body(Body::from(
                "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n",
            ))
            .unwrap(),
    )
    .await
    .json();
    assert!(plain.get("checks").is_none(), "{plain}");
    let page = crate::support::call(
        &app,
        Request::post("/match")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!(
                "text={}",
                crate::support::urlencode(&text)
            )))
            .unwrap(),
    )
    .await;
    let html = page.body;
    assert!(html.contains("Node checks"), "{html}");
    assert!(
        html.contains("nvidia_uvm is not"),
        "the failed check is on the page"
    );
    assert!(html.contains("/runbooks/nvidia-uvm-missing"));
}

#[test]
fn with_a_python_it_adds_collect_env_and_the_framework() {
    let library = library_copy();
    let node = Node::healthy();
    std::fs::remove_file(node.bin().join("nvidia-smi")).unwrap();
    node.shim(
        "python3.11",
        "case \"$*\" in\n\
  \"-m torch.utils.collect_env\") printf 'PyTorch version: 2.2.1+cu121\\nCUDA used to build PyTorch: 12.1\\nPython version: 3.11.8 (main) [GCC 11.4.0] (64-bit runtime)\\n' ;;\n\
  \"-m pip list\") printf 'Package Version\\n------- -------\\nnumpy 1.26.4\\ntorch 2.2.1+cu121\\nnvidia-nccl-cu12 2.19.3\\n' ;;\n\
esac",
    );
    let python = node.bin().join("python3.11");
    let (out, _) = node.doctor(
        library.path(),
        &["--json", "--python", python.to_str().unwrap()],
    );
    let answer = answer(&out);
    assert_eq!(step(&answer, "python.collect_env")["rc"], 0, "{answer:#}");
    let fp = &answer["environment"]["fingerprint"];
    assert_eq!(fp["framework"]["value"], "torch 2.2.1+cu121", "{fp:#}");
    assert_eq!(fp["nccl"]["value"], "2.19.3", "{fp:#}");
    // Without --python neither step is in the bundle.
    let (plain, _) = node.doctor(library.path(), &["--json"]);
    let plain = self::answer(&plain);
    assert!(
        !plain["collected"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == "python.collect_env")
    );
}

/// An NVSwitch system: the fabric manager must run, at the driver's version.
#[test]
fn an_nvswitch_system_needs_its_fabric_manager() {
    let library = library_copy();
    let node = Node::healthy();
    std::fs::remove_file(node.bin().join("nvidia-smi")).unwrap();
    node.file("dev/nvidia-nvswitch0", "")
        .file("dev/nvidia-nvswitchctl", "");
    node.shim(
        "systemctl",
        "case \"$2\" in nvidia-persistenced) echo active ;; nvidia-fabricmanager) echo failed; exit 3 ;; *) echo inactive; exit 3 ;; esac",
    );
    let (out, _) = node.doctor(library.path(), &["--json"]);
    let answer = answer(&out);
    assert!(
        checks_at(&answer, "fail").contains(&"fabric-manager".to_string()),
        "{answer:#}"
    );
    // Running, but a version behind the driver.
    node.shim(
        "systemctl",
        "case \"$2\" in nvidia-persistenced|nvidia-fabricmanager) echo active ;; *) echo inactive; exit 3 ;; esac",
    )
    .dpkg(&[
        ("nvidia-driver-535", "535.161.08-0ubuntu0.22.04.1"),
        ("nvidia-fabricmanager-535", "535.154.05-1"),
    ]);
    let (out, _) = node.doctor(library.path(), &["--json"]);
    let answer = self::answer(&out);
    let fm = answer["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "fabric-manager")
        .unwrap();
    assert_eq!(fm["level"], "fail", "{fm}");
    assert!(
        fm["message"].as_str().unwrap().contains("535.154.05"),
        "{fm}"
    );
    // At the driver's version: ok.
    node.dpkg(&[
        ("nvidia-driver-535", "535.161.08-0ubuntu0.22.04.1"),
        ("nvidia-fabricmanager-535", "535.161.08-1"),
    ]);
    let (out, _) = node.doctor(library.path(), &["--json"]);
    let answer = self::answer(&out);
    assert!(
        checks_at(&answer, "ok").contains(&"fabric-manager".to_string()),
        "{answer:#}"
    );
}

/// What can fail is refused before collecting, which cannot be repeated.
#[test]
fn bad_arguments_are_refused_before_collecting() {
    let library = library_copy();
    let node = Node::healthy();
    let (out, _) = node.doctor(library.path(), &["--out", "/nonexistent/dir/bundle.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(crate::support::stderr(&out).contains("not a file in an existing directory"));
    let not_bundle = node.dir.path().join("plain.log");
    std::fs::write(&not_bundle, "NVRM: Xid 79\n").unwrap();
    let (out, _) = node.doctor(library.path(), &["--diff", not_bundle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(crate::support::stderr(&out).contains("is not a lore bundle"));
    let from = crate::support::lore_in(
        library.path(),
        &["doctor", "--from", not_bundle.to_str().unwrap()],
        b"",
    );
    assert_eq!(from.status.code(), Some(2));
    assert!(crate::support::stderr(&from).contains("use `lore match` for a log"));
}
