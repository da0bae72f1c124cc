//! The operator's hand checks, built in: each reads the bundle's sections and answers with a
//! level, the lines it rests on and the runbook to open. A check whose input was not collected
//! says so (`unknown`, naming what is missing); it never passes for lack of evidence.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::bundle::{Bundle, Section};
use crate::env::Fingerprint;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckLevel {
    Ok,
    /// The input the check needs was not collected (skipped, or the tool is missing).
    Unknown,
    Warn,
    Fail,
}

impl CheckLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckLevel::Ok => "ok",
            CheckLevel::Unknown => "unknown",
            CheckLevel::Warn => "warn",
            CheckLevel::Fail => "fail",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub id: &'static str,
    pub level: CheckLevel,
    pub message: String,
    pub evidence: Vec<Evidence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runbook: Option<&'static str>,
}

fn check(
    id: &'static str,
    level: CheckLevel,
    message: impl Into<String>,
    runbook: Option<&'static str>,
) -> Check {
    Check {
        id,
        level,
        message: message.into(),
        evidence: Vec::new(),
        runbook,
    }
}

impl Check {
    fn with(mut self, evidence: impl IntoIterator<Item = (u64, String)>) -> Check {
        self.evidence.extend(
            evidence
                .into_iter()
                .take(8)
                .map(|(line, text)| Evidence { line, text }),
        );
        self
    }
}

/// What a check says when the section it reads is missing: why, from the marker.
fn missing(bundle: &Bundle, id: &str) -> String {
    match bundle.section(id) {
        None => format!("`{id}` was not collected"),
        Some(s) if s.skipped.is_some() => format!(
            "`{}` was skipped ({}{})",
            s.cmd,
            s.skipped.as_deref().unwrap_or_default(),
            s.why
                .as_deref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default()
        ),
        Some(s) => format!(
            "`{}` failed (exit {}){}",
            s.cmd,
            s.rc.unwrap_or(-1),
            s.complaint()
                .map(|l| format!(": {}", crate::format::chars_prefix(l, 100)))
                .unwrap_or_default()
        ),
    }
}

/// The section when it ran.
fn ran<'b>(bundle: &'b Bundle, id: &str) -> Option<&'b Section> {
    bundle.section(id).filter(|s| s.ran())
}

fn lines_matching<'s>(
    section: &'s Section,
    test: impl Fn(&str) -> bool + 's,
) -> impl Iterator<Item = (u64, String)> + 's {
    section
        .lines()
        .filter(move |(_, l)| test(l))
        .map(|(n, l)| (n, l.to_string()))
}

/// Runs every check over `bundle`; `fp` is the bundle's fingerprint.
pub fn run(bundle: &Bundle, fp: &Fingerprint) -> Vec<Check> {
    let mut checks = vec![
        driver_loaded(bundle),
        uvm(bundle),
        module_equals_user_space(bundle, fp),
        dkms(bundle, fp),
        secure_boot(bundle),
        nouveau(bundle),
        persistenced(bundle),
        fabric_manager(bundle, fp),
        pcie_links(bundle),
        libcuda(bundle),
        memory(bundle),
        container_runtime(bundle),
    ];
    checks.retain(|c| !c.message.is_empty());
    // Failed checks first, then warnings, unknowns, passes; table order within a level.
    checks.sort_by_key(|c| std::cmp::Reverse(c.level));
    checks
}

fn module_loaded(modules: &Section, name: &str) -> Option<(u64, String)> {
    lines_matching(modules, move |l| l.split_whitespace().next() == Some(name)).next()
}

/// Lines anywhere in the bundle that contain `needle`.
fn anywhere(bundle: &Bundle, needle: &str) -> Option<(u64, String)> {
    bundle
        .sections
        .iter()
        .flat_map(|s| s.lines())
        .find(|(_, l)| l.contains(needle))
        .map(|(n, l)| (n, l.to_string()))
}

fn driver_loaded(bundle: &Bundle) -> Check {
    let Some(modules) = ran(bundle, "modules.loaded") else {
        // Without the module list: /proc says a module is loaded, or nvidia-smi says it cannot
        // reach one.
        if let Some(line) = ran(bundle, "driver.proc")
            .and_then(|s| lines_matching(s, |l| l.starts_with("NVRM version:")).next())
        {
            return check(
                "driver-loaded",
                CheckLevel::Ok,
                "the nvidia kernel module is loaded (/proc/driver/nvidia/version)",
                None,
            )
            .with([line]);
        }
        if let Some(line) = anywhere(bundle, "couldn't communicate with the NVIDIA driver")
            .or_else(|| anywhere(bundle, "Module nvidia not found"))
        {
            return check(
                "driver-loaded",
                CheckLevel::Fail,
                "no nvidia kernel module is loaded: nvidia-smi cannot reach the driver (see why in the kernel log: a module not built for this kernel, Secure Boot, nouveau)",
                Some("driver-not-loaded"),
            )
            .with([line]);
        }
        return check(
            "driver-loaded",
            CheckLevel::Unknown,
            format!(
                "cannot tell whether the driver is loaded: {}",
                missing(bundle, "modules.loaded")
            ),
            Some("driver-not-loaded"),
        );
    };
    match module_loaded(modules, "nvidia") {
        Some(line) => check(
            "driver-loaded",
            CheckLevel::Ok,
            "the nvidia kernel module is loaded",
            None,
        )
        .with([line]),
        None => check(
            "driver-loaded",
            CheckLevel::Fail,
            "the nvidia kernel module is not loaded: nothing CUDA can work (see why in the kernel log: a failed DKMS build, Secure Boot, nouveau)",
            Some("driver-not-loaded"),
        ),
    }
}

fn uvm(bundle: &Bundle) -> Check {
    let Some(modules) = ran(bundle, "modules.loaded") else {
        return check(
            "nvidia-uvm",
            CheckLevel::Unknown,
            format!(
                "cannot tell whether nvidia_uvm is loaded: {}",
                missing(bundle, "modules.loaded")
            ),
            Some("nvidia-uvm-missing"),
        );
    };
    if module_loaded(modules, "nvidia").is_none() {
        return check("nvidia-uvm", CheckLevel::Ok, "", None);
    }
    let module = module_loaded(modules, "nvidia_uvm");
    let device = ran(bundle, "dev.nodes").and_then(|s| {
        lines_matching(s, |l| {
            l.contains("/dev/nvidia-uvm")
                && !l.contains("nvidia-uvm-tools")
                && !l.contains("No such file")
        })
        .next()
    });
    match (module, device) {
        (Some(m), Some(d)) => check(
            "nvidia-uvm",
            CheckLevel::Ok,
            "nvidia_uvm is loaded and /dev/nvidia-uvm exists",
            None,
        )
        .with([m, d]),
        (None, _) => check(
            "nvidia-uvm",
            CheckLevel::Fail,
            "nvidia is loaded but nvidia_uvm is not: CUDA programs fail to initialise (error 999 or \"no CUDA-capable device\") while nvidia-smi looks fine",
            Some("nvidia-uvm-missing"),
        ),
        (Some(m), None) => check(
            "nvidia-uvm",
            if ran(bundle, "dev.nodes").is_some() {
                CheckLevel::Fail
            } else {
                CheckLevel::Unknown
            },
            "nvidia_uvm is loaded but /dev/nvidia-uvm is missing: run nvidia-modprobe -u -c=0 (or nvidia-persistenced) to create it",
            Some("nvidia-uvm-missing"),
        )
        .with([m]),
    }
}

static HISTORY_UPGRADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:Upgrade|Install): .*?(nvidia-(?:driver|utils|compute-utils|kernel-common|dkms|headless)[\w-]*|libnvidia-(?:compute|common|gl)[\w-]*):\w+ \(([^)]*)\)")
        .expect("valid")
});

/// The time the packages history last moved the driver to `version`: `(line, when, text)`.
fn upgraded_at(bundle: &Bundle, version: &str) -> Option<(u64, String, String)> {
    let history = ran(bundle, "packages.history")?;
    let mut when = String::new();
    let mut found = None;
    for (n, line) in history.lines() {
        if let Some(date) = line.strip_prefix("Start-Date:") {
            when = date.trim().to_string();
        } else if HISTORY_UPGRADE.is_match(line) && line.contains(version) {
            found = Some((n, when.clone(), line.chars().take(240).collect()));
        } else if line.to_ascii_lowercase().contains("nvidia")
            && line.contains(version)
            && line.len() > 20
            && line.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        {
            // dnf.rpm.log: `2025-10-01T06:25:12+0000 SUBDEBUG Upgrade: nvidia-driver-...`.
            found = Some((
                n,
                line.split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                line.chars().take(240).collect(),
            ));
        }
    }
    found
}

fn module_equals_user_space(bundle: &Bundle, fp: &Fingerprint) -> Check {
    let (Some(driver), Some(module)) = (fp.get("driver"), fp.get("kernel_module")) else {
        return check(
            "driver-matches-module",
            CheckLevel::Unknown,
            if fp.get("kernel_module").is_none() {
                format!(
                    "the loaded module's version is not known: {}",
                    missing(bundle, "driver.proc")
                )
            } else {
                "no user-space driver version was found (packages, modinfo or nvidia-smi)".into()
            },
            Some("driver-version-mismatch"),
        );
    };
    let line_of = |n: u64| bundle.line(n).to_string();
    if crate::env::compare_versions(&driver.value, &module.value) == std::cmp::Ordering::Equal {
        return check(
            "driver-matches-module",
            CheckLevel::Ok,
            format!("user space and the loaded module are both {}", module.value),
            None,
        )
        .with([(module.line, line_of(module.line))]);
    }
    let mut evidence = vec![
        (module.line, line_of(module.line)),
        (driver.line, line_of(driver.line)),
    ];
    let when = upgraded_at(bundle, &driver.value).map(|(n, when, text)| {
        evidence.push((n, text));
        when
    });
    check(
        "driver-matches-module",
        CheckLevel::Fail,
        format!(
            "the installed driver is {} ({}) but the loaded kernel module is {}{}: a driver upgrade was not finished; NVML and CUDA refuse the mismatch until the modules are reloaded or the node reboots",
            driver.value,
            driver.source,
            module.value,
            when.map(|w| format!(", upgraded at {w} per the package history"))
                .unwrap_or_default()
        ),
        Some("driver-version-mismatch"),
    )
    .with(evidence)
}

/// The running kernel's release as `uname -a` prints it, and as the fingerprint keeps it
/// (without the architecture suffix).
fn running_kernel(bundle: &Bundle, fp: &Fingerprint) -> Vec<String> {
    let mut names: Vec<String> = bundle
        .text("os.uname")
        .split_whitespace()
        .nth(2)
        .map(str::to_string)
        .into_iter()
        .collect();
    names.extend(fp.get("kernel").map(|k| k.value.clone()));
    names
}

fn dkms(bundle: &Bundle, fp: &Fingerprint) -> Check {
    // modprobe looks in /lib/modules/<running kernel>: "not found" means no module was built
    // or installed for this kernel, whatever DKMS says.
    if let Some(line) = anywhere(bundle, "Module nvidia not found") {
        return check(
            "dkms-built",
            CheckLevel::Fail,
            "there is no nvidia module for the running kernel (modprobe: Module nvidia not found): after a kernel update DKMS did not build it, or the driver was installed for another kernel",
            Some("dkms-build-failed"),
        )
        .with([line]);
    }
    let Some(status) = ran(bundle, "dkms.status") else {
        return check("dkms-built", CheckLevel::Ok, "", None);
    };
    let nvidia: Vec<(u64, String)> = lines_matching(status, |l| l.starts_with("nvidia")).collect();
    if nvidia.is_empty() {
        return check("dkms-built", CheckLevel::Ok, "", None);
    }
    let kernels = running_kernel(bundle, fp);
    let Some(kernel) = kernels.first().cloned() else {
        return check(
            "dkms-built",
            CheckLevel::Unknown,
            "the running kernel is not known (uname -a)",
            Some("dkms-build-failed"),
        );
    };
    // `uname -a`'s release may carry the architecture (`.x86_64`) that DKMS leaves out.
    // `nvidia/535.104.05, 5.15.0-84-generic, x86_64: installed` (older: `nvidia, 535.104.05, ...`).
    let built = nvidia.iter().find(|(_, l)| {
        l.contains("installed")
            && l.split([',', ':'])
                .map(str::trim)
                .any(|w| kernels.iter().any(|k| k == w))
    });
    match built {
        Some(line) => check(
            "dkms-built",
            CheckLevel::Ok,
            format!("DKMS has built nvidia for the running kernel {kernel}"),
            None,
        )
        .with([line.clone()]),
        None => check(
            "dkms-built",
            CheckLevel::Fail,
            format!(
                "DKMS has no installed nvidia module for the running kernel {kernel}: after a kernel update the build failed or never ran, so the driver cannot load on this kernel"
            ),
            Some("dkms-build-failed"),
        )
        .with(nvidia),
    }
}

fn secure_boot(bundle: &Bundle) -> Check {
    let Some(state) = ran(bundle, "secureboot") else {
        return check("secure-boot", CheckLevel::Ok, "", None);
    };
    let Some(enabled) = lines_matching(state, |l| l.contains("SecureBoot enabled")).next() else {
        return check(
            "secure-boot",
            CheckLevel::Ok,
            "Secure Boot is off: the module needs no signature",
            None,
        )
        .with(lines_matching(state, |l| l.contains("SecureBoot")).take(1));
    };
    let Some(info) = ran(bundle, "modules.info") else {
        return check(
            "secure-boot",
            CheckLevel::Unknown,
            format!(
                "Secure Boot is on and the module's signer is not known: {}",
                missing(bundle, "modules.info")
            ),
            Some("secure-boot-unsigned-module"),
        )
        .with([enabled]);
    };
    // The first block of modinfo is nvidia's.
    let nvidia: Vec<(u64, String)> = info
        .lines()
        .skip_while(|(_, l)| *l != "== nvidia")
        .skip(1)
        .take_while(|(_, l)| !l.starts_with("== "))
        .map(|(n, l)| (n, l.to_string()))
        .collect();
    if nvidia.is_empty()
        || nvidia
            .iter()
            .all(|(_, l)| l.starts_with("modinfo:") || l.starts_with("ERROR"))
    {
        return check("secure-boot", CheckLevel::Ok, "", None);
    }
    match nvidia.iter().find(|(_, l)| l.starts_with("signer:") || l.starts_with("sig_key:")) {
        Some(signer) => check(
            "secure-boot",
            CheckLevel::Ok,
            "Secure Boot is on and the nvidia module is signed",
            None,
        )
        .with([enabled, signer.clone()]),
        None => check(
            "secure-boot",
            CheckLevel::Fail,
            "Secure Boot is on but the nvidia module carries no signature: the kernel refuses to load it; sign it with an enrolled key (MOK) or use signed precompiled modules",
            Some("secure-boot-unsigned-module"),
        )
        .with(std::iter::once(enabled).chain(nvidia.into_iter().take(2))),
    }
}

static NOUVEAU_BOUND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\]\s|kernel:\s)nouveau [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: |Kernel driver in use: nouveau")
        .expect("valid")
});

fn nouveau(bundle: &Bundle) -> Check {
    let Some(modules) = ran(bundle, "modules.loaded") else {
        // Without the module list: nouveau driving a GPU in the kernel log or in lspci.
        let bound = ["kernel.log", "pci.links"]
            .iter()
            .filter_map(|id| ran(bundle, id))
            .find_map(|s| lines_matching(s, |l| NOUVEAU_BOUND.is_match(l)).next());
        return match bound {
            Some(line) => check(
                "nouveau",
                CheckLevel::Fail,
                "nouveau drives the GPU: the nvidia module cannot bind it; blacklist nouveau and rebuild the initramfs",
                Some("nouveau-conflict"),
            )
            .with([line]),
            None => check("nouveau", CheckLevel::Ok, "", None),
        };
    };
    match module_loaded(modules, "nouveau") {
        Some(line) => check(
            "nouveau",
            CheckLevel::Fail,
            "nouveau is loaded: it holds the GPU and the nvidia module cannot bind it; blacklist nouveau and rebuild the initramfs",
            Some("nouveau-conflict"),
        )
        .with([line]),
        None => check("nouveau", CheckLevel::Ok, "nouveau is not loaded", None),
    }
}

/// `systemctl is-active` of a unit, from the services section: `(line, state)`. The lines are
/// read whatever the step's status (is-active exits non-zero for a unit that is not active);
/// only a state systemd prints counts.
fn service_state(bundle: &Bundle, unit: &str) -> Option<(u64, String)> {
    const STATES: &[&str] = &[
        "active",
        "inactive",
        "failed",
        "activating",
        "deactivating",
        "reloading",
        "maintenance",
    ];
    let services = bundle
        .section("services.active")
        .filter(|s| s.skipped.is_none())?;
    services.lines().find_map(|(n, l)| {
        let mut words = l.split_whitespace();
        (words.next() == Some(unit))
            .then(|| words.next())
            .flatten()
            .filter(|state| STATES.contains(state))
            .map(|state| (n, state.to_string()))
    })
}

fn persistenced(bundle: &Bundle) -> Check {
    let Some((line, state)) = service_state(bundle, "nvidia-persistenced") else {
        return check(
            "persistenced",
            CheckLevel::Unknown,
            format!(
                "the state of nvidia-persistenced is not known: {}",
                missing(bundle, "services.active")
            ),
            Some("persistence-daemon"),
        );
    };
    let text = format!("nvidia-persistenced {state}");
    if state == "active" {
        check(
            "persistenced",
            CheckLevel::Ok,
            "nvidia-persistenced is active",
            None,
        )
        .with([(line, text)])
    } else {
        check(
            "persistenced",
            CheckLevel::Warn,
            format!(
                "nvidia-persistenced is {state}: without it each CUDA start re-initialises the GPUs (slow first calls, and /dev/nvidia-uvm may be missing after boot)"
            ),
            Some("persistence-daemon"),
        )
        .with([(line, text)])
    }
}

fn fabric_manager(bundle: &Bundle, fp: &Fingerprint) -> Check {
    let switch = ran(bundle, "dev.nodes")
        .and_then(|s| lines_matching(s, |l| l.contains("nvidia-nvswitch")).next())
        .or_else(|| {
            ran(bundle, "pci.links").and_then(|s| {
                lines_matching(s, |l| {
                    l.contains("NVSwitch")
                        || (l.contains("Bridge: NVIDIA") && !l.contains("PCI bridge"))
                })
                .next()
            })
        });
    let Some(switch) = switch else {
        return check("fabric-manager", CheckLevel::Ok, "", None);
    };
    let Some((line, state)) = service_state(bundle, "nvidia-fabricmanager") else {
        return check(
            "fabric-manager",
            CheckLevel::Unknown,
            format!(
                "this system has NVSwitches and the fabric manager's state is not known: {}",
                missing(bundle, "services.active")
            ),
            Some("fabric-manager-down"),
        )
        .with([switch]);
    };
    if state != "active" {
        return check(
            "fabric-manager",
            CheckLevel::Fail,
            format!(
                "this system has NVSwitches but nvidia-fabricmanager is {state}: CUDA fails with error 802 (system not yet initialized) until it runs"
            ),
            Some("fabric-manager-down"),
        )
        .with([switch, (line, format!("nvidia-fabricmanager {state}"))]);
    }
    let package = ran(bundle, "packages.installed").and_then(|s| {
        lines_matching(s, |l| {
            l.contains("fabricmanager") || l.contains("fabric-manager")
        })
        .next()
    });
    let driver = fp.get("kernel_module").or(fp.get("driver"));
    if let (Some((n, text)), Some(driver)) = (package, driver) {
        let version = text
            .split_whitespace()
            .find(|w| w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.'))
            .unwrap_or_default()
            .split('-')
            .next()
            .unwrap_or_default()
            .to_string();
        if !version.is_empty()
            && crate::env::compare_versions(&version, &driver.value) != std::cmp::Ordering::Equal
        {
            return check(
                "fabric-manager",
                CheckLevel::Fail,
                format!(
                    "the fabric manager package is {version} but the driver is {}: they must be equal, or the fabric manager refuses to start after its next restart",
                    driver.value
                ),
                Some("fabric-manager-down"),
            )
            .with([switch, (n, text)]);
        }
    }
    check(
        "fabric-manager",
        CheckLevel::Ok,
        "NVSwitch system with nvidia-fabricmanager active",
        None,
    )
    .with([switch, (line, format!("nvidia-fabricmanager {state}"))])
}

static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Lnk(Cap|Sta):.*?Speed ([\d.]+)GT/s[^,]*, Width x(\d+)").expect("valid")
});

fn pcie_links(bundle: &Bundle) -> Check {
    let Some(pci) = ran(bundle, "pci.links") else {
        return check("pcie-link", CheckLevel::Ok, "", None);
    };
    let mut device = (0, String::new());
    let mut cap: Option<(u64, String, u32)> = None;
    let mut narrow = Vec::new();
    let mut errors = Vec::new();
    let mut seen = 0;
    for (n, line) in pci.lines() {
        if line.starts_with(|c: char| c.is_ascii_hexdigit()) && line.contains(':') {
            device = (n, line.to_string());
            cap = None;
            continue;
        }
        if let Some(c) = LINK.captures(line) {
            let width: u32 = c[3].parse().unwrap_or(0);
            if &c[1] == "Cap" {
                cap = Some((n, line.trim().to_string(), width));
            } else if let Some((cn, ctext, cap_width)) = &cap {
                seen += 1;
                if width < *cap_width && width > 0 {
                    narrow.push(device.clone());
                    narrow.push((*cn, ctext.clone()));
                    narrow.push((n, line.trim().to_string()));
                }
            }
        }
        if line.contains("UESta:") && line.split_whitespace().any(|w| w.ends_with('+')) {
            errors.push(device.clone());
            errors.push((n, line.trim().to_string()));
        }
    }
    if !narrow.is_empty() {
        return check(
            "pcie-link",
            CheckLevel::Fail,
            "a GPU's PCIe link runs narrower than it can (LnkSta width below LnkCap): reseat the card or riser, check the slot and BIOS settings; bandwidth is cut accordingly",
            Some("pcie-link-instability"),
        )
        .with(narrow);
    }
    if !errors.is_empty() {
        return check(
            "pcie-link",
            CheckLevel::Warn,
            "a GPU's PCIe uncorrectable error status has bits set (UESta): the link has seen errors since boot",
            Some("pcie-link-instability"),
        )
        .with(errors);
    }
    if seen == 0 {
        return check(
            "pcie-link",
            CheckLevel::Unknown,
            "no link capability and status in lspci's output (reading them needs root)",
            Some("pcie-link-instability"),
        );
    }
    check(
        "pcie-link",
        CheckLevel::Ok,
        format!(
            "{seen} NVIDIA link(s) at their full width (a lower speed at idle is power saving)"
        ),
        None,
    )
}

fn libcuda(bundle: &Bundle) -> Check {
    let Some(ldconfig) = ran(bundle, "cuda.libcuda") else {
        return check("libcuda", CheckLevel::Ok, "", None);
    };
    // `libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1`
    // ABI -> (line, directory, the line's text), one per directory.
    let mut by_abi: BTreeMap<String, Vec<(u64, String, String)>> = BTreeMap::new();
    for (n, line) in ldconfig.lines() {
        let t = line.trim();
        if let Some((name, path)) = t.split_once(" => ")
            && name.starts_with("libcuda.so.1 ")
        {
            let abi = name.trim_start_matches("libcuda.so.1").trim().to_string();
            let dir = path.rsplit_once('/').map_or(path, |(d, _)| d).to_string();
            let entry = by_abi.entry(abi).or_default();
            if !entry.iter().any(|(_, d, _)| *d == dir) {
                entry.push((n, dir, t.to_string()));
            }
        }
    }
    if by_abi.is_empty() {
        return check(
            "libcuda",
            CheckLevel::Warn,
            "no libcuda.so.1 in the linker cache: the driver's user-space library is not installed (or ldconfig was not run)",
            Some("driver-not-loaded"),
        );
    }
    if let Some((_, dirs)) = by_abi.iter().find(|(_, dirs)| dirs.len() > 1) {
        let evidence: Vec<(u64, String)> = dirs.iter().map(|(n, _, t)| (*n, t.clone())).collect();
        return check(
            "libcuda",
            CheckLevel::Warn,
            format!(
                "more than one libcuda.so.1 is on the linker path ({}): which one a program gets depends on the order, and a forward-compat or stale copy that does not match the kernel module fails with CUDA error 803 or 804",
                dirs.iter().map(|(_, d, _)| d.as_str()).collect::<Vec<_>>().join(", ")
            ),
            Some("cuda-forward-compat-mismatch"),
        )
        .with(evidence);
    }
    check(
        "libcuda",
        CheckLevel::Ok,
        "one libcuda.so.1 on the linker path",
        None,
    )
}

static MEMORY_USED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(Total|Used)\s*:\s*(\d+)\s*MiB").expect("valid"));

fn memory(bundle: &Bundle) -> Check {
    let Some(samples) = ran(bundle, "smi.memory") else {
        return check(
            "gpu-memory-idle",
            CheckLevel::Unknown,
            format!(
                "GPU memory was not sampled: {}",
                missing(bundle, "smi.memory")
            ),
            None,
        );
    };
    // Per sample, the FB memory (the first Total and Used after each `GPU` line).
    let mut by_gpu: BTreeMap<String, Vec<(u64, u64, u64, String)>> = BTreeMap::new();
    let mut gpu = String::new();
    let mut total = 0;
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for (n, line) in samples.lines() {
        if line.starts_with("== sample") {
            taken.clear();
        } else if line.starts_with("GPU ") {
            gpu = line.trim().to_string();
            total = 0;
        } else if let Some(c) = MEMORY_USED.captures(line) {
            let value: u64 = c[2].parse().unwrap_or(0);
            if &c[1] == "Total" {
                if total == 0 {
                    total = value;
                }
            } else if !taken.contains(&gpu) {
                taken.insert(gpu.clone());
                by_gpu.entry(gpu.clone()).or_default().push((
                    n,
                    value,
                    total,
                    line.trim().to_string(),
                ));
            }
        }
    }
    if by_gpu.is_empty() {
        return check(
            "gpu-memory-idle",
            CheckLevel::Unknown,
            "nvidia-smi printed no memory figures",
            None,
        );
    }
    let mut evidence = Vec::new();
    let mut notes = Vec::new();
    for (gpu, values) in &by_gpu {
        let used: Vec<u64> = values.iter().map(|v| v.1).collect();
        let (min, max) = (
            used.iter().copied().min().unwrap_or(0),
            used.iter().copied().max().unwrap_or(0),
        );
        let total = values.first().map_or(0, |v| v.2);
        if max - min > 256 {
            notes.push(format!(
                "{gpu}: used memory moved from {min} to {max} MiB across the samples"
            ));
            evidence.extend(values.iter().map(|v| (v.0, v.3.clone())));
        } else if total > 0 && min * 10 > total {
            notes.push(format!(
                "{gpu}: {min} of {total} MiB in use in every sample"
            ));
            evidence.push((values[0].0, values[0].3.clone()));
        }
    }
    if notes.is_empty() {
        return check(
            "gpu-memory-idle",
            CheckLevel::Ok,
            format!(
                "{} GPU(s): memory steady and under a tenth in use",
                by_gpu.len()
            ),
            None,
        );
    }
    check(
        "gpu-memory-idle",
        CheckLevel::Warn,
        format!(
            "{}: if the node should be idle, a process (or a leaked context) holds GPU memory; see nvidia-smi's process list or `fuser -v /dev/nvidia*`",
            notes.join("; ")
        ),
        Some("cuda-out-of-memory"),
    )
    .with(evidence)
}

fn container_runtime(bundle: &Bundle) -> Check {
    let toolkit = ran(bundle, "container.ctk").is_some()
        || ran(bundle, "packages.installed")
            .is_some_and(|s| s.text.contains("nvidia-container-toolkit"));
    let Some(config) = ran(bundle, "container.runtime") else {
        return check("container-runtime", CheckLevel::Ok, "", None);
    };
    let docker = config.text.contains("== /etc/docker/daemon.json");
    let nvidia_in_docker = config
        .text
        .split("== ")
        .find(|part| part.starts_with("/etc/docker/daemon.json"))
        .is_some_and(|part| part.contains("nvidia"));
    let cdi = config.text.contains("== /etc/cdi") || config.text.contains("== /var/run/cdi");
    let containerd_nvidia = config
        .text
        .split("== ")
        .find(|part| part.starts_with("/etc/containerd/config.toml"))
        .is_some_and(|part| part.contains("nvidia"));
    // A Kubernetes node whose containerd runs the GPUs may keep an unused Docker.
    if docker && !nvidia_in_docker && !cdi && !containerd_nvidia {
        let line = lines_matching(config, |l| l.starts_with("== /etc/docker/daemon.json")).next();
        return check(
            "container-runtime",
            if toolkit { CheckLevel::Fail } else { CheckLevel::Warn },
            "Docker is configured without the NVIDIA runtime (and there are no CDI specs): containers see no GPU; run `nvidia-ctk runtime configure --runtime=docker` and restart Docker",
            Some("container-toolkit-missing"),
        )
        .with(line);
    }
    if docker || containerd_nvidia || cdi {
        return check(
            "container-runtime",
            CheckLevel::Ok,
            "the container runtime is configured for NVIDIA",
            None,
        );
    }
    check("container-runtime", CheckLevel::Ok, "", None)
}
