//! The fingerprint of a paste (which driver, kernel module, CUDA, framework, GPU, OS... it shows,
//! each with the line it came from) and what can be said about it: sources that disagree, the
//! rules this build knows, and the recorded stacks it is or is nearest to.
//!
//! Known traps are kept apart by name: nvidia-smi's "CUDA Version" is the highest CUDA the driver
//! supports (`driver_cuda`), not a toolkit; collect_env's "CUDA runtime version" is nvcc's
//! (`cuda_toolkit`), "CUDA used to build PyTorch" the framework's (`cuda_runtime`); the loaded
//! kernel module (`kernel_module`: /proc, dmesg, an API mismatch) is not the user-space driver or
//! the installed packages (`driver`).

pub mod compat;
pub mod fingerprint;

use std::cmp::Ordering;

use serde::Serialize;

pub use fingerprint::{Field, Fingerprint};

use crate::doc::compat::Compat;
use crate::doc::{Stack, Verdict};

/// How bad a finding is; ordered so that the worst is greatest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Unknown,
    Ok,
    Risk,
    Violation,
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: String,
    pub level: Level,
    pub message: String,
    /// Where the rule comes from.
    pub source: String,
}

/// A field where the paste and a stack differ (`stack` empty: the paste does not say).
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub field: String,
    pub paste: String,
    pub stack: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct StackMatch {
    pub id: String,
    pub title: String,
    pub verdict: Verdict,
    /// `exact`: every tested field is in the paste and equal; `near`: the closest others.
    #[serde(rename = "match")]
    pub kind: &'static str,
    pub differences: Vec<Difference>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Assessment {
    pub verdict: Level,
    pub fingerprint: std::collections::BTreeMap<String, Field>,
    pub conflicts: Vec<fingerprint::Conflict>,
    pub findings: Vec<Finding>,
    pub stacks: Vec<StackMatch>,
}

impl Assessment {
    /// A violation, or a stack recorded bad that this paste is exactly.
    pub fn is_bad(&self) -> bool {
        self.verdict == Level::Violation
            || self
                .stacks
                .iter()
                .any(|s| s.kind == "exact" && s.verdict == Verdict::Bad)
    }

    /// No recorded stack is exactly this one.
    pub fn is_untested(&self) -> bool {
        !self.stacks.iter().any(|s| s.kind == "exact")
    }
}

/// Compares versions numerically, part by part (535.104.05 > 535.86.10; 570.124.06 > 570.26);
/// a suffix after the numbers (`+cu121`) is compared as text when the numbers are equal.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let split = |v: &str| -> (Vec<u64>, String) {
        let number: String = v
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let parts = number
            .split('.')
            .filter(|p| !p.is_empty())
            .map(|p| p.parse().unwrap_or(0))
            .collect();
        (parts, v[number.len()..].to_string())
    };
    let (pa, sa) = split(a);
    let (pb, sb) = split(b);
    for i in 0..pa.len().max(pb.len()) {
        let (x, y) = (
            pa.get(i).copied().unwrap_or(0),
            pb.get(i).copied().unwrap_or(0),
        );
        match x.cmp(&y) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    sa.cmp(&sb)
}

/// Two values of one field name the same thing: versions equal as numbers, text ignoring case and
/// spacing, a framework by package and version.
fn same(field: &str, a: &str, b: &str) -> bool {
    match crate::doc::stack::field_kind(field) {
        Some(crate::doc::stack::FieldKind::Version) => compare_versions(a, b) == Ordering::Equal,
        _ => {
            // `A100` is the paste's `A100-SXM4-80GB`; `Rocky Linux 9.2` its `Rocky Linux 9.2`.
            let norm = |s: &str| {
                s.split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase()
            };
            let (a, b) = (norm(a), norm(b));
            let extends = |long: &str, short: &str| {
                long.strip_prefix(short)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', ' ', '.', '+']))
            };
            extends(&a, &b) || extends(&b, &a)
        }
    }
}

const OPEN_MODULES: &str =
    "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/kernel-modules.html";
const NVML_MISMATCH: &str = "https://github.com/lyulyul/shine-cluster/issues/30";
const CONTAINER_REQUIREMENT: &str = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html";
const PTX_VERSION: &str = "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html";
/// cudaErrorInsufficientDriver (35): "the installed NVIDIA CUDA driver is older than the CUDA
/// runtime library", on the same page of the runtime API's error codes.
const INSUFFICIENT_DRIVER: &str = PTX_VERSION;
/// numba's minor-version compatibility: when it is needed and what provides it.
const NUMBA_MVC: &str =
    "https://numba.readthedocs.io/en/stable/cuda/minor_version_compatibility.html";
/// Which GPUs and driver branches forward compatibility is for, and its errors 803 and 804.
const FORWARD_COMPAT: &str =
    "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html";
/// FlashAttention's README: which GPUs FlashAttention-2 supports.
const FLASH_ATTENTION: &str =
    "https://github.com/Dao-AILab/flash-attention#installation-and-features";
/// Ollama's list of the GPUs it supports (compute capability 5.0 and later).
const OLLAMA_GPUS: &str = "https://github.com/ollama/ollama/blob/main/docs/gpu.md";
/// vLLM's GPU requirement (compute capability 7.0 or later in its 0.x documentation).
const VLLM_GPUS: &str = "https://docs.vllm.ai/en/v0.7.2/getting_started/installation/gpu/";
/// NVIDIA's schedule of the legacy branches that keep each retired GPU generation.
const LEGACY_BRANCHES: &str =
    "https://forums.developer.nvidia.com/t/unix-graphics-feature-deprecation-schedule/60588";
/// CUDA.jl's check of a device against the CUDA it runs (`context` in lib/cudadrv/state.jl).
const CUDA_JL: &str = "https://github.com/JuliaGPU/CUDA.jl/blob/master/lib/cudadrv/state.jl";
/// PyTorch Inductor's check of the GPU before it compiles with Triton (`create_backend`).
const TRITON_INDUCTOR: &str =
    "https://github.com/pytorch/pytorch/blob/main/torch/_inductor/scheduler.py";
/// nvcc's list of the architectures it can build for (`--list-gpu-arch`, `--gpu-architecture`).
const NVCC_ARCHITECTURES: &str =
    "https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/index.html#gpu-feature-list";
const MISMATCH: &str = "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/src/nvidia/arch/nvalloc/unix/src/osapi.c";

/// Whether `version` is numbered as NVIDIA's Linux and Windows drivers have been since 2007: a
/// branch of three digits or more (`535.104.05`; macOS's CUDA driver reports `1.1.0`).
fn driver_numbering(version: &str) -> bool {
    version
        .split('.')
        .next()
        .and_then(|branch| branch.parse::<u32>().ok())
        .is_some_and(|branch| branch >= 100)
}

/// Judges a fingerprint against the rules this build knows and the recorded stacks. `today`
/// decides which branches are past their end of life.
pub fn assess(
    fp: &Fingerprint,
    stacks: &[Stack],
    families: &[Compat],
    today: chrono::NaiveDate,
) -> Assessment {
    let mut findings = Vec::new();
    // The vendors' rules, as the compat/ files give them. A driver whose branch has fewer than
    // three digits is not in NVIDIA's Linux and Windows numbering (macOS's CUDA driver reports
    // `1.1.0`), so the rules' minimums do not apply to it: they see no driver.
    let forward_compat = forward_compatibility(fp, families);
    let get = |f: &str| {
        fp.get(f)
            .map(|x| x.value.clone())
            .filter(|v| f != "driver" || driver_numbering(v))
            .or_else(|| match f {
                "cuda_compat" => forward_compat.clone(),
                _ => None,
            })
    };
    for family in families {
        for rule in &family.rules {
            if let Some(outcome) = compat::evaluate(rule, &get, today) {
                findings.push(Finding {
                    rule: rule.id.clone(),
                    level: outcome.level,
                    message: outcome.message,
                    source: outcome.source,
                });
            }
        }
    }
    findings.extend(arch_list_finding(fp));
    findings.extend(extension_arch_finding(fp));
    other_gpus(fp, families, &get, today, &mut findings);
    let driver = fp.get("driver");
    let module = fp.get("kernel_module");
    // The user-space driver must be the loaded kernel module's version: the module refuses any
    // other client ("API mismatch"). The half-finished upgrade, caught before nvidia-smi breaks.
    if let (Some(d), Some(m)) = (driver, module) {
        if compare_versions(&d.value, &m.value) != Ordering::Equal {
            findings.push(Finding {
                rule: "driver-equals-kernel-module".into(),
                level: Level::Violation,
                message: format!(
                    "the user-space driver is {} ({}, line {}) but the loaded kernel module is {} ({}, line {}): a driver upgrade was not finished; reload the modules or reboot (runbook driver-version-mismatch)",
                    d.value, d.source, d.line, m.value, m.source, m.line
                ),
                source: MISMATCH.into(),
            });
        } else if fp.get("nvml_mismatch").is_none() {
            findings.push(Finding {
                rule: "driver-equals-kernel-module".into(),
                level: Level::Ok,
                message: format!(
                    "user-space driver and loaded kernel module are both {}",
                    d.value
                ),
                source: MISMATCH.into(),
            });
        }
    }
    // NVML's own word that the library and the loaded module differ, unless the versions shown
    // already differ: NVML compares them itself, so its word beats two readings that look the
    // same (its "library version: 575.64" is cut to two parts: a 575.64.03 user space on a
    // 575.64 module prints as 575.64 twice).
    if let Some(said) = fp.get("nvml_mismatch")
        && driver
            .zip(module)
            .is_none_or(|(d, m)| compare_versions(&d.value, &m.value) == Ordering::Equal)
    {
        findings.push(Finding {
            rule: "driver-equals-kernel-module".into(),
            level: Level::Violation,
            message: format!(
                "NVML reports that the user-space driver library and the loaded kernel module are different versions (line {}{}): a driver upgrade was not finished; reload the modules or reboot (runbook driver-version-mismatch)",
                said.line,
                driver.map_or(String::new(), |d| format!("; the library is {}", d.value))
            ),
            source: NVML_MISMATCH.into(),
        });
    }
    // TensorFlow's own cuDNN check failing: its message is logged only when the loaded cuDNN
    // does not fit the build (before cuDNN 7 even another minor version did not).
    if let Some(said) = fp.get("cudnn_refused") {
        stated(
            &mut findings,
            "cudnn-not-older-than-build",
            format!(
                "{} says the loaded cuDNN{} does not fit the one it was built with{} (line {}): let it load the cuDNN it was built for (look for another libcudnn on LD_LIBRARY_PATH) or install a matching one (runbook cudnn-version-mismatch)",
                said.source,
                fp.get("cudnn")
                    .map_or(String::new(), |c| format!(" {}", c.value)),
                fp.get("cudnn_built")
                    .map_or(String::new(), |c| format!(" ({})", c.value)),
                said.line
            ),
            TF_CUDNN_CHECK,
        );
    }
    // The open kernel module refusing a GPU without a GSP (pre-Turing): the driver's own word,
    // when the GPU's compute capability is not known to the rule above.
    if let Some(said) = fp.get("open_refused") {
        stated(
            &mut findings,
            "open-modules-need-turing",
            format!(
                "the open kernel module refused the GPU (line {}): it needs the GPU System Processor of Turing or later; install the proprietary flavour of a branch that still supports this GPU",
                said.line
            ),
            OPEN_MODULES,
        );
    }
    // A library refusing the GPU because it is below the library's own floor (FlashAttention's
    // "only supports Ampere GPUs or newer", CUDA.jl's "is not supported on CUDA 13+"), unless
    // that library's floor rule already judged it.
    if let Some(said) = fp.get("library_refused") {
        let &(_, rule, source, advice) = LIBRARY_REFUSALS
            .iter()
            .find(|(by, ..)| *by == said.source)
            .unwrap_or(&LIBRARY_REFUSALS[0]);
        stated(
            &mut findings,
            rule,
            format!(
                "{} refused this GPU (line {}): \"{}\"; its kernels need a newer GPU generation: {advice}",
                said.source, said.line, said.value
            ),
            source,
        );
    }
    // The driver ignoring a GPU that only a legacy branch supports: the branch is past this
    // GPU's generation (the rule `last-branch-for-generation`, in the driver's own words).
    if let Some(said) = fp.get("legacy_branch") {
        stated(
            &mut findings,
            "last-branch-for-generation",
            format!(
                "the driver{} ignores this GPU (line {}): it is supported only by the R{} legacy branch; install that branch (runbook driver-unsupported-gpu)",
                driver.map_or(String::new(), |d| format!(" {}", d.value)),
                said.line,
                said.value
            ),
            LEGACY_BRANCHES,
        );
    }
    // nvcc refusing an architecture it does not know: the toolkit used for the build is older
    // than the GPU generation asked for.
    if let Some(said) = fp.get("nvcc_refused") {
        stated(
            &mut findings,
            "nvcc-knows-architecture",
            format!(
                "{}{} does not know {} (line {}): the toolkit that builds this code is older than that GPU architecture; build with a toolkit that supports it, or leave the architecture out of the build (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES)",
                said.source,
                fp.get("cuda_toolkit")
                    .map_or(String::new(), |t| format!(" {}", t.value)),
                said.value,
                said.line
            ),
            NVCC_ARCHITECTURES,
        );
    }
    // The container runtime refusing an image whose CUDA needs a newer driver.
    if let Some(said) = fp.get("requirement_refused") {
        findings.push(Finding {
            rule: "container-cuda-requirement".into(),
            level: Level::Violation,
            message: format!(
                "the container runtime refused the image (line {}): the CUDA it requires{} is newer than this driver supports; update the driver, or use an image built for an older CUDA",
                said.line,
                fp.get("cuda_runtime")
                    .map_or(String::new(), |c| format!(" ({})", c.value))
            ),
            source: CONTAINER_REQUIREMENT.into(),
        });
    }
    // The CUDA runtime (or PyTorch) saying itself that the driver is older than it needs. With
    // a driver in the paste that the minimum-driver rules do not already judge, that is the
    // broken rule, and so it is without one, by the runtime's own word; but in a container (or
    // with CUDA's stub libcuda) the same error comes when no driver was passed in at all, so
    // there it is only a risk.
    let minimum_driver = |level: Level| {
        findings
            .iter()
            .any(|f| f.rule.ends_with("minimum-driver") && f.level == level)
    };
    if let Some(said) = fp.get("driver_insufficient")
        && !minimum_driver(Level::Violation)
        && !findings
            .iter()
            .any(|f| f.rule == "container-cuda-requirement" && f.level == Level::Violation)
    {
        // A toolkit a person named in a sentence ("Cuda 11.7") is what they think is installed,
        // not the CUDA the failing program carries: its driver being enough says nothing
        // against the program's own word.
        // Nor is an image's tag: the program may bring its own runtime (a pip wheel built for
        // a newer CUDA in an older CUDA image).
        let hearsay = |field: &str| {
            fp.get(field)
                .is_some_and(|t| t.source == "text" || t.source == "the image's tag")
        };
        let judged_ok = findings.iter().any(|f| {
            f.rule.ends_with("minimum-driver")
                && f.level == Level::Ok
                && !(hearsay("cuda_toolkit") && f.rule == "cuda-toolkit-minimum-driver")
                && !(hearsay("cuda_runtime") && f.rule == "cuda-runtime-minimum-driver")
        });
        // A driver the program reached: its version, or the CUDA it supports as PyTorch prints it
        // ("found version 12080").
        let known = driver.or(module).or_else(|| fp.get("driver_cuda"));
        // PyTorch says "too old" only when it found a driver (its version is above zero; with
        // none it says "Found no NVIDIA driver"), so its word alone shows one was reached.
        let reached = known.is_some() || said.source == "PyTorch" || fp.get("container").is_none();
        let level = if reached && !judged_ok {
            Level::Violation
        } else {
            Level::Risk
        };
        findings.push(Finding {
            rule: "runtime-needs-newer-driver".into(),
            level,
            message: format!(
                "{} says the driver is older than its CUDA needs (line {}{}){}",
                said.source,
                said.line,
                match (driver.or(module), known) {
                    (Some(d), _) => format!("; the driver is {}", d.value),
                    (None, Some(c)) => format!("; the driver supports CUDA {}", c.value),
                    (None, None) => String::new(),
                },
                if level == Level::Violation {
                    ": update the driver, or use a build made for an older CUDA (runbook cuda-driver-too-old)"
                } else {
                    ": check that a driver is installed and visible here (in a container, that the NVIDIA runtime passed it in), then compare its version with the CUDA the program was built with"
                }
            ),
            source: INSUFFICIENT_DRIVER.into(),
        });
    }
    // numba saying that its CUDA runtime is newer than the driver's CUDA (minor-version
    // compatibility needed) and that it cannot compile for such a driver (not available: its
    // linker packages are missing): the code it generates will not load.
    if let (Some(needed), Some(_)) = (fp.get("mvc_needed"), fp.get("mvc_unavailable")) {
        findings.push(Finding {
            rule: "numba-minor-version-compatibility".into(),
            level: Level::Violation,
            message: format!(
                "numba says its CUDA runtime is newer than the CUDA this driver supports and that it cannot use minor-version compatibility (line {}): the kernels it compiles need a driver that supports its runtime; update the driver, install the CUDA runtime the driver supports, or numba's minor-version compatibility packages (pynvjitlink for CUDA 12, ptxcompiler and cubinlinker for CUDA 11) (runbook cuda-driver-too-old)",
                needed.line
            ),
            source: NUMBA_MVC.into(),
        });
    }
    // A forward-compatibility libcuda (the `cuda-compat` package, as container images carry it)
    // where it may not be used: on a GPU outside the forward-compatibility list (error 804), or
    // built for another driver branch than the loaded module (error 803).
    if let Some(said) = fp.get("compat_refused") {
        findings.push(Finding {
            rule: "forward-compat-supported-gpu".into(),
            level: Level::Violation,
            message: format!(
                "CUDA tried forward compatibility on a GPU that does not support it (line {}, error 804): a cuda-compat libcuda is on the library path (often from a container image built for a newer CUDA), and forward compatibility is only for data-center GPUs, some NGC-ready RTX boards and Jetson; update the driver to one that supports this CUDA, or use a build made for the driver's CUDA (runbook cuda-forward-compat-mismatch)",
                said.line
            ),
            source: FORWARD_COMPAT.into(),
        });
    }
    if let Some(said) = fp.get("compat_mismatch") {
        findings.push(Finding {
            rule: "forward-compat-matches-driver".into(),
            level: Level::Violation,
            message: format!(
                "the cuda-compat libcuda on the library path does not fit the loaded kernel driver (line {}, error 803): forward compatibility works only on the driver branches NVIDIA lists for it; take cuda-compat off the library path, or install the package that matches this driver (runbook cuda-forward-compat-mismatch)",
                said.line
            ),
            source: FORWARD_COMPAT.into(),
        });
    }
    // The driver's JIT refuses PTX that a newer CUDA wrote.
    if let Some(said) = fp.get("ptx_unsupported") {
        let supports = fp.get("driver_cuda").map_or(String::new(), |c| {
            format!(" (it supports CUDA {})", c.value)
        });
        findings.push(Finding {
            rule: "ptx-newer-than-driver".into(),
            level: Level::Violation,
            message: format!(
                "the driver cannot compile this program's PTX (line {}): it was generated by a newer CUDA than the driver{supports} supports; update the driver, or build for the driver's CUDA with machine code (SASS) for this GPU",
                said.line
            ),
            source: PTX_VERSION.into(),
        });
    }
    // The CUDA in use is what the minimum-driver rules read; nvidia-smi's "CUDA Version" is
    // only the driver's maximum, so a paste without it cannot be judged on that.
    if (driver.is_some() || module.is_some())
        && fp.get("cuda_runtime").is_none()
        && fp.get("cuda_toolkit").is_none()
    {
        findings.push(Finding {
            rule: "cuda-known".into(),
            level: Level::Unknown,
            message: "which CUDA the programs use is not in the paste (nvidia-smi's CUDA Version is the most the driver supports, not the one in use): add `python -m torch.utils.collect_env` or `nvcc --version`".into(),
            source: String::new(),
        });
    }
    if driver.is_none() && module.is_none() {
        findings.push(Finding {
            rule: "driver-known".into(),
            level: Level::Unknown,
            message: "no driver version in the paste: add the output of `nvidia-smi` (or `cat /proc/driver/nvidia/version` when nvidia-smi fails)".into(),
            source: String::new(),
        });
    }
    // Worst first: a violation is what a reader must see before anything else.
    findings.sort_by_key(|f| std::cmp::Reverse(f.level));
    let verdict = findings
        .iter()
        .map(|f| f.level)
        .max()
        .unwrap_or(Level::Unknown);
    Assessment {
        verdict,
        fingerprint: fp.fields.clone(),
        conflicts: fp.conflicts.clone(),
        findings,
        stacks: match_stacks(fp, stacks),
    }
}

/// The libraries whose refusal of a GPU `library_refused` holds, by what printed it: (source, the
/// floor rule it breaks, where the floor is stated, what to do). FlashAttention's is the default.
const LIBRARY_REFUSALS: &[(&str, &str, &str, &str)] = &[
    (
        "FlashAttention",
        "flash-attn-gpu-floor",
        FLASH_ATTENTION,
        "run on such a GPU, or turn the library off (for example attn_implementation=\"sdpa\" in transformers)",
    ),
    (
        "CUDA.jl",
        "cudajl-gpu-floor",
        CUDA_JL,
        "run on a GPU it supports, or pin an older CUDA runtime (`CUDA.set_runtime_version!`) or driver, as its message says",
    ),
    (
        "Ollama",
        "ollama-gpu-floor",
        OLLAMA_GPUS,
        "it runs on the CPU instead; use a GPU it supports",
    ),
    (
        "vLLM",
        "vllm-gpu-floor",
        VLLM_GPUS,
        "run on such a GPU (on a machine with several, leave the older ones out with CUDA_VISIBLE_DEVICES)",
    ),
    (
        "PyTorch Inductor (Triton)",
        "triton-gpu-floor",
        TRITON_INDUCTOR,
        "run torch.compile on a GPU of compute capability 7.0 or later, or without Inductor here (leave torch.compile off, or backend=\"eager\" / \"aot_eager\")",
    ),
];

/// The CUDA of a forward-compatibility library the paste shows in use: a driver that reports a
/// newer CUDA than its own release supports runs a libcuda other than its own (the CUDA that
/// nvidia-smi or CUDA.jl's `versioninfo()` then reports is the compat library's). The rules see it
/// as a cuda-compat package, which they name as the exception it is.
fn forward_compatibility(fp: &Fingerprint, families: &[Compat]) -> Option<String> {
    let cuda = fp.get("driver_cuda")?;
    let driver = fp
        .get("driver")
        .filter(|d| driver_numbering(&d.value))
        .or(fp.get("kernel_module"))?;
    let min = compat::minimum_of(families, "cuda-runtime-minimum-driver", &cuda.value)?;
    (compare_versions(&driver.value, &min) == Ordering::Less).then(|| cuda.value.clone())
}

/// TensorFlow's (XLA's) check of the loaded cuDNN against the build.
const TF_CUDNN_CHECK: &str = "https://github.com/tensorflow/tensorflow/blob/master/third_party/xla/xla/stream_executor/cuda/cuda_dnn.cc";

/// A message in the paste that states `rule` broken in its own words, as a violation of it,
/// unless the rule's table already found it broken.
fn stated(findings: &mut Vec<Finding>, rule: &str, message: String, source: &str) {
    if !findings
        .iter()
        .any(|f| f.rule == rule && f.level == Level::Violation)
    {
        findings.push(Finding {
            rule: rule.into(),
            level: Level::Violation,
            message,
            source: source.into(),
        });
    }
}

const BINARY_COMPATIBILITY: &str =
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility";

/// A framework build's printed architecture list against the GPU: code for sm_X.y runs on
/// sm_X.z when z ≥ y, and PTX (`compute_XY`) is compiled for any newer GPU.
fn arch_list_finding(fp: &Fingerprint) -> Option<Finding> {
    // The framework's own word that the build has no code for the GPU (PyTorch's "not
    // compatible", TensorFlow's "minimum required Cuda capability") beats a table of wheels; a
    // list the paste prints is judged below.
    if let Some(refused) = fp.get("arch_refused")
        && fp
            .get("arch_list")
            .is_none_or(|l| l.source == fingerprint::WHEEL_TABLE)
    {
        return Some(Finding {
            rule: "framework-arch-list".into(),
            level: Level::Violation,
            message: format!(
                "{} says the program has no code for this GPU (line {}): \"no kernel image is available\"; check the build's architectures ({}) and install a build for this GPU",
                refused.source,
                refused.line,
                if refused.source == "TensorRT" {
                    "TensorRT's support matrix lists the compute capabilities of each release"
                } else {
                    "torch.cuda.get_arch_list()"
                }
            ),
            source: BINARY_COMPATIBILITY.into(),
        });
    }
    let list = fp.get("arch_list")?;
    let cc = fp.get("cc")?;
    let gpu = capability(&cc.value)?;
    let native = list.value.split_whitespace().any(|arch| {
        arch.strip_prefix("sm_")
            .and_then(capability)
            .is_some_and(|(major, minor)| major == gpu.0 && minor <= gpu.1)
    });
    let ptx = list.value.split_whitespace().any(|arch| {
        arch.strip_prefix("compute_")
            .and_then(capability)
            .is_some_and(|code| code <= gpu)
    });
    // PTX alone is compiled for a newer GPU by the driver, but when the framework itself says
    // the GPU is not compatible (PyTorch counts only machine code, and the libraries it bundles
    // may carry no code for the GPU at all), its word stands.
    if !native
        && ptx
        && let Some(refused) = fp.get("arch_refused")
    {
        return Some(Finding {
            rule: "framework-arch-list".into(),
            level: Level::Violation,
            message: format!(
                "{} says the program has no code for this GPU (line {}): the build's architectures ({}) hold only PTX for compute capability {}, no machine code, and the framework does not count PTX; install a build with this architecture",
                refused.source, refused.line, list.value, cc.value
            ),
            source: BINARY_COMPATIBILITY.into(),
        });
    }
    let runs = native || ptx;
    // A list the paste printed is the build's own word; one from the table (Linux x86_64
    // wheels) is the rule only where the paste shows that platform, else another platform's
    // wheel may carry another list.
    let from_table = list.source == fingerprint::WHEEL_TABLE;
    Some(Finding {
        rule: "framework-arch-list".into(),
        level: match (runs, from_table) {
            (true, _) => Level::Ok,
            (false, false) => Level::Violation,
            (false, true) if linux_x86_64(fp) => Level::Violation,
            (false, true) => Level::Risk,
        },
        message: if runs {
            format!(
                "the build's architectures ({}) include code that runs on compute capability {}",
                list.value, cc.value
            )
        } else if from_table {
            format!(
                "PyTorch's Linux wheels of this build carry code for {} only, none of which runs on this GPU of compute capability {} (line {}): expect \"no kernel image is available\"; check torch.cuda.get_arch_list() and install a build for this architecture",
                list.value, cc.value, cc.line
            )
        } else {
            format!(
                "the build carries code for {} only (line {}), none of which runs on this GPU of compute capability {} (line {}): \"no kernel image is available\"; install a build for this architecture",
                list.value, list.line, cc.value, cc.line
            )
        },
        source: if from_table {
            fp.get("framework")
                .map(|f| fingerprint::wheel_arch_source(&f.value))
                .unwrap_or_else(|| "https://github.com/pytorch/pytorch/blob/main/RELEASE.md".into())
        } else {
            BINARY_COMPATIBILITY.into()
        },
    })
}

/// A compute capability as (major, minor), written `7.5` or as an architecture (`sm_75`,
/// `sm_120`, `compute_86`, `90a`: the last digit is the minor, a letter after it a variant).
fn capability(text: &str) -> Option<(u64, u64)> {
    let text = text.trim();
    if let Some((major, minor)) = text.split_once('.') {
        return Some((major.parse().ok()?, minor.parse().ok()?));
    }
    let digits = text.trim_start_matches(|c: char| !c.is_ascii_digit());
    let digits = &digits[..digits.bytes().take_while(u8::is_ascii_digit).count()];
    let (major, minor) = digits.split_at(digits.len().checked_sub(1)?);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// A compiled extension's machine code (detectron2's "arch flags", which cuobjdump lists from its
/// library) against the GPU: code for sm_X.y runs on sm_X.z when z ≥ y. The list holds machine
/// code only, so a GPU newer than some listed architecture may still run the extension's PTX (a
/// risk); one older than all of them cannot (PTX is only compiled forward): a violation.
fn extension_arch_finding(fp: &Fingerprint) -> Option<Finding> {
    let list = fp.get("ext_arch_list")?;
    let cc = fp.get("cc")?;
    let gpu = capability(&cc.value)?;
    let archs: Vec<(u64, u64)> = list
        .value
        .split([',', ' '])
        .filter_map(capability)
        .collect();
    if archs.is_empty() {
        return None;
    }
    let native = archs
        .iter()
        .any(|&(major, minor)| major == gpu.0 && minor <= gpu.1);
    let older = archs.iter().any(|&arch| arch < gpu);
    let program = list.source.trim_end_matches(" collect_env");
    let (level, message) = if native {
        (
            Level::Ok,
            format!(
                "{program}'s compiled extension carries machine code ({}) that runs on compute capability {}",
                list.value, cc.value
            ),
        )
    } else {
        (
            if older { Level::Risk } else { Level::Violation },
            format!(
                "{program}'s compiled extension carries machine code for {} only (line {}), none of which runs on this GPU of compute capability {} (line {}){}: rebuild it for this GPU (TORCH_CUDA_ARCH_LIST=\"{}\", then reinstall)",
                list.value,
                list.line,
                cc.value,
                cc.line,
                if older {
                    "; only PTX for an older architecture, if it was built with one, could run here"
                } else {
                    "; its architectures are all newer than this GPU, and no PTX runs on an older one: \"no kernel image is available\""
                },
                cc.value
            ),
        )
    };
    Some(Finding {
        rule: "extension-arch-list".into(),
        level,
        message,
        source: BINARY_COMPATIBILITY.into(),
    })
}

/// A machine with GPUs of several architectures (an RTX 2060 beside a GTX 1070 Ti): each GPU
/// after the first whose compute capability differs is judged by the rules that depend on the
/// GPU, and what it breaks (or risks) is said of it, unless the first GPU already broke that rule.
fn other_gpus(
    fp: &Fingerprint,
    families: &[Compat],
    get: &dyn Fn(&str) -> Option<String>,
    today: chrono::NaiveDate,
    findings: &mut Vec<Finding>,
) {
    let already = |findings: &[Finding], rule: &str, level: Level| {
        findings.iter().any(|f| f.rule == rule && f.level >= level)
    };
    // Each architecture once: the first GPU's, then each later one's first GPU.
    let mut judged: Vec<&str> = fp.get("cc").map(|c| c.value.as_str()).into_iter().collect();
    for other in &fp.more_gpus {
        let Some(cc) = fingerprint::cc_of_gpu(&other.value) else {
            continue;
        };
        if judged.contains(&cc) {
            continue;
        }
        judged.push(cc);
        let said = |message: &str| {
            format!(
                "{} (line {}, compute capability {cc}): {message}",
                other.value, other.line
            )
        };
        let get_other = |f: &str| match f {
            "gpu" => Some(other.value.clone()),
            "cc" => Some(cc.to_string()),
            _ => get(f),
        };
        for rule in families.iter().flat_map(|f| &f.rules) {
            if !rule
                .by
                .iter()
                .chain(&rule.of)
                .any(|f| f == "cc" || f == "gpu")
            {
                continue;
            }
            if let Some(outcome) = compat::evaluate(rule, &get_other, today)
                && matches!(outcome.level, Level::Violation | Level::Risk)
                && !already(findings, &rule.id, outcome.level)
            {
                findings.push(Finding {
                    rule: rule.id.clone(),
                    level: outcome.level,
                    message: said(&outcome.message),
                    source: outcome.source,
                });
            }
        }
        let mut alone = fp.clone();
        for (field, value) in [("gpu", other.value.as_str()), ("cc", cc)] {
            alone.fields.insert(
                field.to_string(),
                fingerprint::Field {
                    value: value.to_string(),
                    line: other.line,
                    source: other.source,
                },
            );
        }
        for finding in [arch_list_finding(&alone), extension_arch_finding(&alone)]
            .into_iter()
            .flatten()
        {
            if finding.level != Level::Ok && !already(findings, &finding.rule, finding.level) {
                findings.push(Finding {
                    message: said(&finding.message),
                    ..finding
                });
            }
        }
    }
}

/// Whether the paste shows a Linux system and nothing of another architecture than x86_64 (the
/// platform of the wheel table): an OS that is not Windows or macOS, and no ARM kernel, Jetson
/// or Grace board.
fn linux_x86_64(fp: &Fingerprint) -> bool {
    let os = match fp.get("os") {
        Some(os) => os.value.to_ascii_lowercase(),
        None => return false,
    };
    let other_os = [
        "windows", "win7", "win8", "win10", "win11", "macos", "darwin", "mac os",
    ];
    let arm = [
        "aarch64", "arm64", "tegra", "jetson", "orin", "xavier", "gh200", "gb200", "gb300",
    ];
    let shows = |field: &str, words: &[&str]| {
        fp.get(field).is_some_and(|f| {
            let v = f.value.to_ascii_lowercase();
            words.iter().any(|w| v.contains(w))
        })
    };
    !other_os.iter().any(|w| os.contains(w))
        && !arm.iter().any(|w| os.contains(w))
        && !shows("kernel", &arm)
        && !shows("gpu", &arm)
}

/// The assessment of a paste that shows at least two fields (a log with one stray version in it
/// says nothing about its environment); `None` otherwise.
pub fn of_paste(
    paste: &[u8],
    stacks: &[Stack],
    families: &[Compat],
    today: chrono::NaiveDate,
) -> Option<Assessment> {
    of_fingerprint(&fingerprint::of(paste), stacks, families, today)
}

/// [`of_paste`] for a fingerprint already read.
pub fn of_fingerprint(
    fp: &Fingerprint,
    stacks: &[Stack],
    families: &[Compat],
    today: chrono::NaiveDate,
) -> Option<Assessment> {
    (fp.fields.len() >= 2).then(|| assess(fp, stacks, families, today))
}

/// The stacks this paste is exactly, or else the nearest three (fewest differences among the
/// fields both name, at least one field in common).
fn match_stacks(fp: &Fingerprint, stacks: &[Stack]) -> Vec<StackMatch> {
    let mut scored: Vec<(usize, usize, StackMatch)> = Vec::new();
    for stack in stacks {
        let mut differences = Vec::new();
        let mut shared = 0;
        for (field, value) in &stack.tested {
            match fp.get(field) {
                Some(found) if same(field, &found.value, value) => shared += 1,
                Some(found) => differences.push(Difference {
                    field: field.clone(),
                    paste: found.value.clone(),
                    stack: value.clone(),
                }),
                None => differences.push(Difference {
                    field: field.clone(),
                    paste: String::new(),
                    stack: value.clone(),
                }),
            }
        }
        // A stack that agrees on nothing the paste shows is not near it: listing it is noise.
        if shared == 0 {
            continue;
        }
        let kind = if differences.is_empty() {
            "exact"
        } else {
            "near"
        };
        let real = differences.iter().filter(|d| !d.paste.is_empty()).count();
        scored.push((
            real,
            differences.len(),
            StackMatch {
                id: stack.id.clone(),
                title: stack.title.clone(),
                verdict: stack.verdict,
                kind,
                differences,
            },
        ));
    }
    scored.sort_by(|a, b| {
        (a.2.kind != "exact", a.0, a.1, &a.2.id).cmp(&(b.2.kind != "exact", b.0, b.1, &b.2.id))
    });
    let exact = scored.iter().filter(|s| s.2.kind == "exact").count();
    scored
        .into_iter()
        .take(if exact > 0 { exact } else { 3 })
        .map(|s| s.2)
        .collect()
}

impl StackMatch {
    /// One line on how the paste stands to this stack: "this exact stack is recorded bad",
    /// "differs only in driver: 535.129.03 here, 525.147.05 there", "agrees on every field the
    /// paste shows", or the fields it differs in.
    pub fn summary(&self) -> String {
        let shown: Vec<&Difference> = self
            .differences
            .iter()
            .filter(|d| !d.paste.is_empty())
            .collect();
        match (self.kind, shown.as_slice()) {
            ("exact", _) => format!("this exact stack is recorded {}", self.verdict.as_str()),
            (_, []) => "agrees on every field the paste shows".to_string(),
            (_, [d]) => format!(
                "differs only in {}: {} here, {} there",
                d.field, d.paste, d.stack
            ),
            (_, many) => format!(
                "differs in {} fields the paste shows: {}",
                many.len(),
                many.iter()
                    .map(|d| d.field.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Why a stack could not be recorded.
#[derive(Debug)]
pub enum RecordError {
    /// The paste shows no field of a stack.
    NothingTested,
    BadId(String),
    Exists(std::path::PathBuf),
    Io(std::io::Error),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::NothingTested => write!(f, "the paste shows no version of a stack field"),
            RecordError::BadId(id) => write!(f, "`{id}` is not a valid stack id"),
            RecordError::Exists(path) => write!(f, "{} exists; choose another id", path.display()),
            RecordError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// The id a title gives: its ASCII words in lower case, joined by `-` (at most 60 characters).
pub fn stack_id(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let id: String = words.join("-").chars().take(60).collect();
    id.trim_end_matches('-').to_string()
}

/// Writes `stacks/<id>.md` for what `paste` shows; never over an existing stack (the finished
/// file is linked into place). Returns the path relative to the root.
pub fn record_stack(
    root: &std::path::Path,
    paste: &[u8],
    title: &str,
    verdict: Verdict,
    id: Option<&str>,
) -> Result<String, RecordError> {
    let fp = fingerprint::of(paste);
    if !fp
        .fields
        .keys()
        .any(|k| crate::doc::stack::field_kind(k).is_some())
    {
        return Err(RecordError::NothingTested);
    }
    let id = id.map_or_else(|| stack_id(title), str::to_string);
    if !crate::doc::is_valid_id(&id) {
        return Err(RecordError::BadId(id));
    }
    let text = stack_file(&fp, title, verdict, chrono::Local::now().date_naive());
    let dir = root.join(crate::library::STACKS);
    std::fs::create_dir_all(&dir).map_err(RecordError::Io)?;
    let path = dir.join(format!("{id}.md"));
    let temp = crate::library::write_temp(&dir, &format!("{id}.md"), text.as_bytes())
        .map_err(RecordError::Io)?;
    let linked = std::fs::hard_link(&temp, &path);
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(format!("{}/{id}.md", crate::library::STACKS)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(RecordError::Exists(path)),
        Err(e) => Err(RecordError::Io(e)),
    }
}

/// A stack file recording what `fp` shows as tested (only the stack vocabulary's fields), with
/// the sections a reader needs left for the team to fill in. `tested_at` is `today`.
pub fn stack_file(
    fp: &Fingerprint,
    title: &str,
    verdict: Verdict,
    today: chrono::NaiveDate,
) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let mut text = format!(
        "---\ntitle: {}\nverdict: {}\ntested_at: {today}\ntested_by: []\nworkload: \"\"\nscope: \"\"\nevidence: []\ntested:\n",
        quote(title),
        verdict.as_str()
    );
    for (field, _, _) in crate::doc::stack::FIELDS {
        if let Some(f) = fp.get(field) {
            text.push_str(&format!(
                "  {field}: {}   # line {} ({})\n",
                quote(&f.value),
                f.line,
                f.source
            ));
        }
    }
    text.push_str(
        "---\n\n## Result\n\nWhat ran, and what was measured.\n\n## How it was tested\n\n## What is not known\n\n## Workaround\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_nvidias_driver_numbering_meets_the_driver_minimums() {
        assert!(driver_numbering("535.104.05"));
        assert!(driver_numbering("1000.1"));
        assert!(!driver_numbering("1.1.0"));
        assert!(!driver_numbering("Could not collect"));
    }

    #[test]
    fn a_compiled_extension_is_judged_by_its_machine_code() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let level = |flags: &str, gpu: &str| {
            let paste =
                format!("detectron2 arch flags     {flags}\nGPU 0                     {gpu}\n");
            let a = assess(&fingerprint::of(paste.as_bytes()), &[], &[], today);
            a.findings
                .iter()
                .find(|f| f.rule == "extension-arch-list")
                .map(|f| f.level)
        };
        // Machine code only for newer GPUs: nothing runs (PTX is compiled forward only).
        assert_eq!(level("sm_75", "GeForce GTX 1070"), Some(Level::Violation));
        // sm_60 code runs on 6.1; 8.0 code on 8.6.
        assert_eq!(level("sm_60", "GeForce GTX 1070"), Some(Level::Ok));
        assert_eq!(
            level("6.1, 8.0", "GeForce RTX 3090 (arch=8.6)"),
            Some(Level::Ok)
        );
        // Older machine code only: the extension's PTX, if it has any, could still run.
        assert_eq!(level("7.0", "GeForce RTX 3090"), Some(Level::Risk));
        // A path (cuobjdump missing) says nothing.
        assert_eq!(
            level("/opt/detectron2/_C.so; cannot find cuobjdump", "Tesla T4"),
            None
        );
        assert_eq!(capability("sm_120"), Some((12, 0)));
        assert_eq!(capability("compute_86"), Some((8, 6)));
        assert_eq!(capability("7.5"), Some((7, 5)));
    }

    #[test]
    fn versions_compare_as_numbers() {
        assert_eq!(
            compare_versions("535.104.05", "535.86.10"),
            Ordering::Greater
        );
        assert_eq!(compare_versions("570.124.06", "570.26"), Ordering::Greater);
        assert_eq!(compare_versions("12.2", "12.2.0"), Ordering::Equal);
        assert_eq!(compare_versions("525.147.05", "535.54.03"), Ordering::Less);
    }

    #[test]
    fn missing_input_is_never_ok() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let smi = fingerprint::of(
            b"| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: 13.0 |\n",
        );
        let a = assess(&smi, &[], &[], today);
        assert_eq!(a.verdict, Level::Unknown);
        assert!(a.findings.iter().any(|f| f.rule == "cuda-known"));
        let with_cuda = fingerprint::of(
            b"| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: 13.0 |\nCuda compilation tools, release 13.0, V13.0.88\n",
        );
        let a = assess(&with_cuda, &[], &[], today);
        assert!(!a.findings.iter().any(|f| f.rule == "cuda-known"));
    }

    #[test]
    fn messages_that_state_a_broken_rule_are_violations() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let rules = |paste: &str| {
            let a = assess(&fingerprint::of(paste.as_bytes()), &[], &[], today);
            a.findings
                .iter()
                .filter(|f| f.level == Level::Violation)
                .map(|f| f.rule.clone())
                .collect::<Vec<_>>()
        };
        // NVML's mismatch with only the library's version shown.
        assert_eq!(
            rules(
                "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 570.86\n"
            ),
            ["driver-equals-kernel-module"]
        );
        // NVML's word beats two readings equal only at the precision NVML prints.
        assert_eq!(
            rules(
                "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 575.64\nkmod-nvidia-5.14.0-427.el9_4-575.64-1.el9.x86_64\n"
            ),
            ["driver-equals-kernel-module"]
        );
        // Paddle's check of the GPU against its build, for a capability its table cannot name.
        assert_eq!(
            rules(
                "W0626 11:47:59.277873 31136 gpu_resources.cc:106] The GPU compute capability in your current machine is 120, which is not supported by Paddle, it is recommended to install the corresponding wheel package according to the installation information on the official Paddle website.\n"
            ),
            ["framework-arch-list"]
        );
        // The driver's JIT refusing newer PTX, in the runtime's words and in ptxas's.
        assert_eq!(
            rules(
                "what():  [FT][ERROR] CUDA runtime error: the provided PTX was compiled with an unsupported toolchain.\nNVIDIA-SMI 470.141.03   Driver Version: 470.141.03   CUDA Version: 11.4\n"
            ),
            ["ptx-newer-than-driver"]
        );
        assert_eq!(
            rules(
                "ptxas application ptx input, line 9; fatal   : Unsupported .version 7.3; current version is '7.2'\n- OpenCL/CUDA driver version: 460.80\n"
            ),
            ["ptx-newer-than-driver"]
        );
        // PyTorch's own refusal beats the wheel table, and a printed list that runs beats it.
        let warning = "Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of cuda capability 6.1.\nNVIDIA GeForce GTX 1080 Ti with CUDA capability sm_61 is not compatible with the current PyTorch installation.\n";
        assert_eq!(rules(warning), ["framework-arch-list"]);
        let listed = format!(
            "{warning}The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
        );
        assert!(rules(&listed).is_empty(), "sm_60 code runs on 6.1");
        // The open module's own refusal of a GPU without a GSP, whatever the GPU.
        assert_eq!(
            rules(
                "NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:139b)\nNVRM: installed in this system is not supported by open\nNVRM: nvidia.ko because it does not include the required GPU\nNVRM: System Processor (GSP).\nNVIDIA-SMI 580.82.09   Driver Version: 580.82.09\n"
            ),
            ["open-modules-need-turing"]
        );
        // The runtime's "driver is insufficient" is the broken rule, with the driver shown or
        // not; in a container (one that sees no driver says the same) without a driver in the
        // paste, a risk.
        let insufficient = "ExternalError:  Cuda error(35), CUDA driver version is insufficient for CUDA runtime version.\n";
        assert_eq!(
            rules(&format!("Driver version 435.21\n{insufficient}")),
            ["runtime-needs-newer-driver"]
        );
        assert_eq!(rules(insufficient), ["runtime-needs-newer-driver"]);
        let in_container = format!("$ docker run --rm my-image python train.py\n{insufficient}");
        assert!(rules(&in_container).is_empty());
        assert_eq!(
            rules(&format!(
                "$ docker run --rm my-image nvidia-smi\nDriver Version: 418.87.01\n{insufficient}"
            )),
            ["runtime-needs-newer-driver"]
        );
        // The image's CUDA is enough for the driver, but the program brought a newer runtime.
        assert_eq!(
            rules(&format!(
                "$ docker run --gpus all nvidia/cuda:11.6.2-runtime-ubuntu20.04 python app.py\n| NVIDIA-SMI 510.85.02    Driver Version: 510.85.02    CUDA Version: 11.6     |\n{insufficient}"
            )),
            ["runtime-needs-newer-driver"]
        );
        let risk = assess(&fingerprint::of(in_container.as_bytes()), &[], &[], today);
        assert!(
            risk.findings
                .iter()
                .any(|f| f.rule == "runtime-needs-newer-driver" && f.level == Level::Risk)
        );
        // numba -s: minor-version compatibility needed and not available.
        let numba = "CUDA Driver Version                           : 11.5\nCUDA Runtime Version                          : 11.8\nCUDA Minor Version Compatibility Available    : False\nCUDA Minor Version Compatibility Needed       : True\nCUDA Minor Version Compatibility In Use       : False\n";
        assert!(rules(numba).contains(&"numba-minor-version-compatibility".to_string()));
        assert!(
            !rules(&numba.replace(
                ": False\nCUDA Minor Version Compatibility Needed",
                ": True\nCUDA Minor Version Compatibility Needed"
            ))
            .contains(&"numba-minor-version-compatibility".to_string())
        );
        // A forward-compatibility libcuda where it may not be used: CUDA's errors 804 and 803.
        assert_eq!(
            rules(
                "CUDA error 804 at ggml-cuda.cu:5522: forward compatibility was attempted on non supported HW\n"
            ),
            ["forward-compat-supported-gpu"]
        );
        assert_eq!(
            rules(
                "RuntimeError: CUDA error: system has unsupported display driver / cuda driver combination\n"
            ),
            ["forward-compat-matches-driver"]
        );
        // The runtime's "no kernel image", with the GPU known or not.
        assert_eq!(
            rules(
                "torch 2.11.0+cu128\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
            ),
            ["framework-arch-list"]
        );
        assert_eq!(
            rules(
                "torch 2.10.0+cu128 on a Tesla P100\nfails with `cudaErrorNoKernelImageForDevice`\n"
            ),
            ["framework-arch-list"]
        );
        // A driver entry point missing from libcuda: the driver is older than the program's CUDA.
        assert_eq!(
            rules(
                "dlerr: /usr/lib64/libcuda.so.418.74: undefined symbol: cuCtxCreate_v3\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  418.74  Wed May  1 21:18:34 PDT 2019\n"
            ),
            ["runtime-needs-newer-driver"]
        );
        // PyTorch's "too old" with the CUDA the driver supports: a driver was reached.
        assert_eq!(
            rules(
                "RuntimeError: The NVIDIA driver on your system is too old (found version 12080). Please update your GPU driver\n"
            ),
            ["runtime-needs-newer-driver"]
        );
        // xmrig's own check, beside deviceQuery's CUDA of the driver.
        assert_eq!(
            rules(
                "Driver does not support CUDA 12.5 API! Update your nVidia driver!\n  CUDA Driver Version / Runtime Version          12.4 / 12.5\n"
            ),
            ["runtime-needs-newer-driver"]
        );
        // ... and without it: PyTorch says "too old" only when it found a driver.
        assert_eq!(
            rules("RuntimeError: The NVIDIA driver on your system is too old\n"),
            ["runtime-needs-newer-driver"]
        );
        // An image refused for an exception clause (the last one tried): its CUDA needs more.
        assert!(
            rules(
                "exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --require=cuda>=10.0 brand=tesla,driver>=384,driver<385 --pid=6244 /var/lib]\\nnvidia-container-cli: requirement error: unsatisfied condition: brand = tesla\\n\nDriver version:  384.130\n"
            )
            .contains(&"container-cuda-requirement".to_string())
        );
    }

    /// The wheel table is the rule where the paste shows Linux on x86_64, and only a risk
    /// elsewhere (another platform's wheels carry other lists).
    /// The level of the architecture-list finding for a paste, if there is one.
    fn arch_level(paste: &str) -> Option<Level> {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 2).unwrap();
        assess(&fingerprint::of(paste.as_bytes()), &[], &[], today)
            .findings
            .into_iter()
            .find(|f| f.rule == "framework-arch-list")
            .map(|f| f.level)
    }

    /// TensorFlow logs its cuDNN check only when it fails, also for pre-7 cuDNN whose minor
    /// versions were not compatible (no compat table row covers those).
    #[test]
    fn tensorflow_saying_the_cudnn_does_not_fit_is_a_violation() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 2).unwrap();
        let paste = "E tensorflow/stream_executor/cuda/cuda_dnn.cc:347] Loaded runtime CuDNN library: 5103 (compatibility version 5100) but source was compiled with 4007 (compatibility version 4000).  If using a binary install, upgrade your CuDNN library to match.\n";
        let found = assess(&fingerprint::of(paste.as_bytes()), &[], &[], today)
            .findings
            .into_iter()
            .find(|f| f.rule == "cudnn-not-older-than-build")
            .unwrap();
        assert_eq!(found.level, Level::Violation);
        assert!(found.message.contains("5.1.3"), "{}", found.message);
    }

    #[test]
    fn the_wheel_table_is_a_rule_on_linux_only() {
        let level = arch_level;
        let stack = "PyTorch version: 2.8.0+cu128\nGPU 0: NVIDIA GeForce GTX 1050\n";
        assert_eq!(
            level(&format!("OS: Ubuntu 24.04.3 LTS (x86_64)\n{stack}")),
            Some(Level::Violation)
        );
        assert_eq!(
            level(&format!("OS: Microsoft Windows 11 Pro\n{stack}")),
            Some(Level::Risk)
        );
        assert_eq!(
            level(stack),
            Some(Level::Risk),
            "no OS: the platform is not known"
        );
        assert_eq!(
            level(&format!(
                "OS: Ubuntu 22.04.4 LTS (aarch64)\nKernel version: 5.15.148-tegra\n{stack}"
            )),
            Some(Level::Risk)
        );
    }

    /// The lists read from PyPI's wheels: Kepler's K80 left with 2.1, Pascal with 2.9, and the
    /// CUDA 10.2 builds of 1.8 to 1.12 stop at Volta, so Ampere gets no code from them.
    #[test]
    fn pypi_wheel_rows_judge_old_gpus() {
        let level = |torch: &str, gpu: &str| {
            arch_level(&format!(
                "OS: Ubuntu 22.04.4 LTS (x86_64)\nPyTorch version: {torch}\nGPU 0: NVIDIA {gpu}\n"
            ))
        };
        assert_eq!(level("1.13.1+cu117", "Tesla K80"), Some(Level::Ok));
        assert_eq!(
            level("1.9.1+cu102", "GeForce RTX 3090"),
            Some(Level::Violation)
        );
        assert_eq!(level("1.11.0+cu102", "Tesla T4"), Some(Level::Ok));
        assert_eq!(level("2.1.2+cu121", "Tesla K80"), Some(Level::Violation));
        assert_eq!(
            level("2.7.1+cu126", "Tesla P100-PCIE-16GB"),
            Some(Level::Ok)
        );
        assert_eq!(
            level("2.9.1+cu128", "Tesla P100-PCIE-16GB"),
            Some(Level::Violation)
        );
        assert_eq!(level("2.10.0+cu128", "GeForce RTX 5090"), Some(Level::Ok));
        assert_eq!(
            fingerprint::wheel_arch_source("torch 2.10.0+cu128"),
            "https://pypi.org/project/torch/2.10.0/"
        );
    }

    /// A printed list whose only code for the GPU is PTX runs by the driver's JIT, unless the
    /// framework itself says the GPU is not compatible: then its word stands.
    #[test]
    fn ptx_alone_does_not_outvote_the_framework() {
        let level = arch_level;
        let list = "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 compute_37.\n";
        let gpu = "GPU 0: NVIDIA GeForce RTX 5070 Ti\n";
        assert_eq!(level(&format!("{gpu}{list}")), Some(Level::Ok));
        let refused = "NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n";
        assert_eq!(level(&format!("{refused}{list}")), Some(Level::Violation));
        // Machine code for the GPU's major architecture is the framework's own count too.
        let native = "The current PyTorch install supports CUDA capabilities sm_80 sm_90 sm_120.\n";
        assert_eq!(level(&format!("{refused}{native}")), Some(Level::Ok));
    }

    #[test]
    fn pytorchs_newer_warning_lists_the_build_one_line_each() {
        // PyTorch 2.8's `_warn_unsupported_code`: a Pascal GPU under a build that starts at 7.5.
        let pascal = "UserWarning: Found GPU0 NVIDIA GeForce GTX 1070 Ti which is of compute capability (CC) 6.1.\n\
            The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:\n\
            - 7.5 which supports hardware CC >=7.5,<8.0\n\
            - 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n\
            - 12.0 which supports hardware CC >=12.0,<13.0\n";
        let fp = fingerprint::of(pascal.as_bytes());
        assert_eq!(fp.get("arch_list").unwrap().value, "sm_75 sm_80 sm_120");
        assert_eq!(fp.get("arch_list").unwrap().line, 3);
        assert_eq!(fp.get("cc").unwrap().value, "6.1");
        assert_eq!(fp.get("gpu").unwrap().value, "GeForce GTX 1070 Ti");
        assert_eq!(arch_level(pascal), Some(Level::Violation));
        // Orin (8.7) under the same warning runs the sm_80 code: binary compatibility holds.
        let orin = "Found GPU0 Orin which is of compute capability (CC) 8.7.\n\
            - 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n\
            - 9.0 which supports hardware CC >=9.0,<10.0\n";
        assert_eq!(arch_level(orin), Some(Level::Ok));
    }

    #[test]
    fn refusals_by_nvcc_ptxas_inductor_and_cuda_jl_are_violations() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let violations = |paste: &str| {
            assess(&fingerprint::of(paste.as_bytes()), &[], &[], today)
                .findings
                .into_iter()
                .filter(|f| f.level == Level::Violation)
                .map(|f| (f.rule, f.message))
                .collect::<Vec<_>>()
        };
        // nvcc's refusal, ptxas's, and XLA's report that its ptxas does not know the GPU.
        for (paste, says) in [
            (
                "Cuda compilation tools, release 9.2, V9.2.148\nnvcc fatal   : Unsupported gpu architecture 'compute_75'\n",
                "nvcc 9.2 does not know compute_75 (line 2)",
            ),
            (
                "W tensorflow/stream_executor/gpu/asm_compiler.cc:235] Your CUDA software stack is old. The ptxas error was: ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'\n",
                "ptxas does not know sm_86 (line 1)",
            ),
            (
                "W external/org_tensorflow/tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9\n",
                "ptxas (XLA) does not know CC 8.9 (line 1)",
            ),
        ] {
            let found = violations(paste);
            assert_eq!(found.len(), 1, "{paste}");
            assert_eq!(found[0].0, "nvcc-knows-architecture");
            assert!(found[0].1.starts_with(says), "{}", found[0].1);
        }
        let inductor = violations(
            "RuntimeError: Found NVIDIA GeForce GTX 1080 which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1\n",
        );
        assert_eq!(inductor.len(), 1);
        assert_eq!(inductor[0].0, "triton-gpu-floor");
        let julia = violations(
            "Error: Your Tesla V100-PCIE-32GB GPU (compute capability 7.0) is not supported on CUDA 13+.\nDriver Version: 580.126.09     CUDA Version: 13.0\n",
        );
        assert_eq!(julia.len(), 1);
        assert_eq!(julia[0].0, "cudajl-gpu-floor");
        assert!(julia[0].1.starts_with("CUDA.jl refused this GPU (line 1)"));
        // CUDA.jl's warnings are not refusals.
        assert!(
            violations("Warning: Your Tesla K80 GPU (compute capability 3.7) is deprecated on CUDA 11+.\nDriver Version: 470.256.02\n").is_empty()
        );
        // FlashAttention's refusal is judged by its own rule only: another library's floor
        // broken too (vLLM's, from the shipped compat files) does not hide it.
        let library =
            crate::library::Library::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
                .expect("the shipped library loads");
        let both = assess(
            &fingerprint::of(
                b"RuntimeError: FlashAttention only supports Ampere GPUs or newer.\nvllm==0.7.3\nGPU 0: Tesla P100-PCIE-16GB\n",
            ),
            &[],
            &library.compat,
            today,
        );
        let ids: Vec<&str> = both
            .findings
            .iter()
            .filter(|f| f.level == Level::Violation)
            .map(|f| f.rule.as_str())
            .collect();
        assert!(ids.contains(&"vllm-gpu-floor"), "{ids:?}");
        assert!(ids.contains(&"flash-attn-gpu-floor"), "{ids:?}");
    }

    /// A driver reporting a newer CUDA than its release supports runs a compat libcuda: a CUDA
    /// past the driver's own minimum is then forward compatibility's risk, not a violation.
    #[test]
    fn a_driver_reporting_a_newer_cuda_is_forward_compatibility() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 2).unwrap();
        let library =
            crate::library::Library::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
                .expect("the shipped library loads");
        let level = |paste: &str| {
            assess(
                &fingerprint::of(paste.as_bytes()),
                &[],
                &library.compat,
                today,
            )
            .findings
            .into_iter()
            .find(|f| f.rule == "cuda-runtime-minimum-driver")
            .map(|f| f.level)
        };
        let julia =
            "CUDA toolchain:\n- runtime 13.0, local installation\n- driver 570.172.8 for 13.0\n";
        assert_eq!(level(julia), Some(Level::Risk));
        // The driver's own CUDA: the runtime past it is the violation it always was.
        let own =
            "CUDA toolchain:\n- runtime 13.0, local installation\n- driver 570.172.8 for 12.8\n";
        assert_eq!(level(own), Some(Level::Violation));
    }
}
