//! The collector table: what `lore doctor` runs and `/collect.sh` prints, in one place. Each
//! entry is a short POSIX `sh` snippet (dash- and busybox-safe) that reads files under `$R` (the
//! sysroot: empty for the live system) and runs read-only commands. Kernel-side truth comes
//! first, so the bundle says something useful when the driver is what broke; everything that
//! goes through NVML is guarded and comes after the kernel log.

/// One step of the collection.
#[derive(Debug, Clone, Copy)]
pub struct Collector {
    /// Stable id, `group.name`: the bundle's section marker and what checks look up.
    pub id: &'static str,
    /// What a reader sees as the command (the marker's `cmd=`).
    pub shown: &'static str,
    /// The snippet, run by `sh -c` with `R` set to the sysroot.
    pub sh: &'static str,
    /// Seconds before the step is killed.
    pub timeout: u32,
    /// The program the step needs; missing means `skipped=not-found`.
    pub needs: Option<&'static str>,
    /// Only root can read it (`skipped=no-root` otherwise).
    pub root: bool,
    /// Goes through NVML or the GPU: not run after "fallen off the bus" or Xid 79 in the kernel
    /// log, which would hang it (`skipped=guard`).
    pub guarded: bool,
    /// Runs only when asked for (`--python`).
    pub python: bool,
}

const fn step(id: &'static str, shown: &'static str, sh: &'static str) -> Collector {
    Collector {
        id,
        shown,
        sh,
        timeout: 5,
        needs: None,
        root: false,
        guarded: false,
        python: false,
    }
}

const fn needs(mut c: Collector, program: &'static str) -> Collector {
    c.needs = Some(program);
    c
}

const fn timeout(mut c: Collector, seconds: u32) -> Collector {
    c.timeout = seconds;
    c
}

const fn guarded(mut c: Collector) -> Collector {
    c.guarded = true;
    c
}

const fn root(mut c: Collector) -> Collector {
    c.root = true;
    c
}

/// The table, in the order it runs.
pub const COLLECTORS: &[Collector] = &[
    // 1. The OS and the kernel.
    step(
        "os.release",
        "cat /etc/os-release",
        r#"cat "$R/etc/os-release""#,
    ),
    step(
        "os.uname",
        "uname -a",
        r#"if [ -n "$R" ]; then echo "Linux $(cat "$R/proc/sys/kernel/hostname" 2>/dev/null || echo unknown) $(cat "$R/proc/sys/kernel/osrelease") $(cat "$R/proc/sys/kernel/version" 2>/dev/null) $(uname -m) GNU/Linux"; else uname -a; fi"#,
    ),
    step(
        "os.cmdline",
        "cat /proc/cmdline",
        r#"cat "$R/proc/cmdline""#,
    ),
    // 2. The driver as the kernel sees it.
    step(
        "driver.proc",
        "cat /proc/driver/nvidia/version",
        r#"cat "$R/proc/driver/nvidia/version""#,
    ),
    step(
        "driver.gpus",
        "cat /proc/driver/nvidia/gpus/*/information",
        r#"found=0; for f in "$R"/proc/driver/nvidia/gpus/*/information; do [ -r "$f" ] || continue; found=1; echo "== ${f#"$R"}"; cat "$f"; done; [ "$found" = 1 ]"#,
    ),
    step(
        "modules.loaded",
        "lsmod (from /proc/modules)",
        r#"[ -r "$R/proc/modules" ] || { echo '### lore-collect note cannot read /proc/modules'; exit 1; }; grep -E '^(nvidia|nouveau|nvidia_[a-z]+) ' "$R/proc/modules"; true"#,
    ),
    needs(
        step(
            "modules.info",
            "modinfo nvidia nvidia_uvm nvidia_peermem",
            r#"for m in nvidia nvidia_uvm nvidia_peermem; do echo "== $m"; modinfo "$m" 2>&1 | grep -E '^(filename|version|license|signer|sig_key|sig_hashalgo|vermagic|ERROR|modinfo):'; done"#,
        ),
        "modinfo",
    ),
    step(
        "dev.nodes",
        "ls -l /dev/nvidia*",
        r#"ls -l "$R"/dev/nvidia* 2>&1 | sed "s#$R/dev/#/dev/#""#,
    ),
    needs(
        step("dkms.status", "dkms status", "dkms status 2>&1"),
        "dkms",
    ),
    needs(
        step(
            "secureboot",
            "mokutil --sb-state",
            "mokutil --sb-state 2>&1",
        ),
        "mokutil",
    ),
    // 3. Installed packages and their history: an unattended driver upgrade shows here.
    step(
        "packages.installed",
        "dpkg-query -W / rpm -qa (nvidia, cuda, nccl, cudnn)",
        r#"if command -v dpkg-query >/dev/null 2>&1; then dpkg-query --admindir="$R/var/lib/dpkg" -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' 2>/dev/null | grep -iE 'nvidia|cuda|nccl|cudnn'; elif command -v rpm >/dev/null 2>&1; then rpm --root "${R:-/}" -qa 2>/dev/null | grep -iE 'nvidia|cuda|nccl|cudnn'; else echo '### lore-collect note neither dpkg-query nor rpm is installed'; exit 127; fi; true"#,
    ),
    step(
        "packages.history",
        "nvidia lines of /var/log/apt/history.log, /var/log/dnf.rpm.log",
        r#"for f in "$R/var/log/apt/history.log.1" "$R/var/log/apt/history.log"; do [ -r "$f" ] && awk '/^Start-Date:/ {d=$0; shown=0} /^(Install|Upgrade|Remove|Purge|Commandline):/ && /nvidia|cuda|nccl|cudnn/ {if (!shown) {print d; shown=1}; print substr($0, 1, 2000)}' "$f"; done; [ -r "$R/var/log/dnf.rpm.log" ] && grep -iE 'nvidia|cuda' "$R/var/log/dnf.rpm.log" | tail -n 100; true"#,
    ),
    // 4. CUDA in user space.
    needs(
        step(
            "cuda.libcuda",
            "ldconfig -p | grep libcuda",
            r#"ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libnvidia-ml\.so'; for d in "$R"/usr/local/cuda*/compat; do [ -d "$d" ] && echo "forward-compat directory: ${d#"$R"}" && ls "$d"; done; true"#,
        ),
        "ldconfig",
    ),
    step(
        "cuda.nvcc",
        "nvcc --version",
        r#"if command -v nvcc >/dev/null 2>&1; then nvcc --version; elif [ -x /usr/local/cuda/bin/nvcc ]; then /usr/local/cuda/bin/nvcc --version; else echo '### lore-collect note nvcc is not installed'; exit 127; fi"#,
    ),
    step(
        "cuda.version",
        "cat /usr/local/cuda/version.json",
        r#"for f in "$R"/usr/local/cuda/version.json "$R"/usr/local/cuda/version.txt; do [ -r "$f" ] && grep -E '"cuda"|"version"|CUDA Version' "$f" | head -n 3 && exit 0; done; exit 1"#,
    ),
    // 5. Services.
    needs(
        step(
            "services.active",
            "systemctl is-active nvidia-persistenced nvidia-fabricmanager dcgm",
            r#"[ -d "$R/run/systemd/system" ] || { echo '### lore-collect note systemd is not running here'; exit 3; }; for s in nvidia-persistenced nvidia-fabricmanager nvidia-dcgm dcgm; do printf '%s %s\n' "$s" "$(systemctl is-active "$s" 2>&1 | head -n 1)"; done"#,
        ),
        "systemctl",
    ),
    needs(
        step(
            "services.journal",
            "journalctl -u nvidia-persistenced -u nvidia-fabricmanager -n 40",
            "journalctl -u nvidia-persistenced -u nvidia-fabricmanager -n 40 --no-pager 2>&1",
        ),
        "journalctl",
    ),
    // 6. The PCIe links.
    needs(
        step(
            "pci.links",
            "lspci -d 10de: -vv",
            r#"lspci -d 10de: -vv 2>&1 | grep -E '^[0-9a-f]|LnkCap:|LnkSta:|UESta:|CESta:|Kernel driver in use|Kernel modules'"#,
        ),
        "lspci",
    ),
    // 7. The kernel log, before anything touches the GPU.
    timeout(
        step(
            "kernel.log",
            "journalctl -k -b 0 (or dmesg -T), last 4000 lines",
            r#"if [ -n "$R" ]; then for f in "$R/var/log/kern.log" "$R/var/log/dmesg" "$R/var/log/messages"; do [ -r "$f" ] && tail -n 4000 "$f" && exit 0; done; exit 1; elif command -v journalctl >/dev/null 2>&1 && journalctl -k -b 0 -n 1 --no-pager >/dev/null 2>&1; then journalctl -k -b 0 --no-pager -o short-iso | tail -n 4000; else dmesg -T 2>&1 | tail -n 4000; fi"#,
        ),
        10,
    ),
    needs(
        step(
            "kernel.previous",
            "journalctl -k -b -1, last 200 lines",
            "journalctl -k -b -1 --no-pager -o short-iso -n 200 2>&1",
        ),
        "journalctl",
    ),
    // 8. NVML, guarded.
    guarded(timeout(
        needs(
            step("smi.summary", "nvidia-smi", "nvidia-smi 2>&1"),
            "nvidia-smi",
        ),
        10,
    )),
    guarded(timeout(
        needs(
            step("smi.query", "nvidia-smi -q", "nvidia-smi -q 2>&1"),
            "nvidia-smi",
        ),
        15,
    )),
    guarded(timeout(
        needs(
            step(
                "smi.memory",
                "nvidia-smi -q -d MEMORY (3 samples, 2 s apart)",
                r#"for i in 1 2 3; do echo "== sample $i"; out=$(nvidia-smi -q -d MEMORY 2>&1); rc=$?; if [ "$rc" != 0 ]; then printf '%s\n' "$out" | head -n 5; exit "$rc"; fi; printf '%s\n' "$out" | grep -E '^GPU |Total|Used|Free|FB Memory'; [ "$i" = 3 ] || sleep 2; done"#,
            ),
            "nvidia-smi",
        ),
        15,
    )),
    guarded(timeout(
        needs(
            step("smi.topo", "nvidia-smi topo -m", "nvidia-smi topo -m 2>&1"),
            "nvidia-smi",
        ),
        10,
    )),
    guarded(timeout(
        needs(
            step(
                "smi.nvlink",
                "nvidia-smi nvlink -s",
                "nvidia-smi nvlink -s 2>&1",
            ),
            "nvidia-smi",
        ),
        10,
    )),
    // 9. Containers.
    needs(
        step(
            "container.ctk",
            "nvidia-ctk --version",
            "nvidia-ctk --version 2>&1",
        ),
        "nvidia-ctk",
    ),
    guarded(needs(
        step(
            "container.cli",
            "nvidia-container-cli info",
            "nvidia-container-cli info 2>&1",
        ),
        "nvidia-container-cli",
    )),
    step(
        "container.runtime",
        "runtime configuration (docker, containerd, nvidia-container-runtime, CDI)",
        r#"any=0; for f in "$R/etc/docker/daemon.json" "$R/etc/nvidia-container-runtime/config.toml"; do [ -r "$f" ] && any=1 && echo "== ${f#"$R"}" && grep -v '^[[:space:]]*#' "$f" | grep -v '^[[:space:]]*$' | head -n 60; done; f="$R/etc/containerd/config.toml"; [ -r "$f" ] && any=1 && echo "== /etc/containerd/config.toml" && grep -n -i 'nvidia' "$f" | head -n 20; for d in "$R/etc/cdi" "$R/var/run/cdi"; do [ -d "$d" ] && any=1 && echo "== ${d#"$R"}" && ls -l "$d"; done; [ "$any" = 1 ]"#,
    ),
    step(
        "env.vars",
        "environment (CUDA_*, NCCL_*, NVIDIA_*, LD_LIBRARY_PATH only)",
        r#"env | grep -E '^(CUDA_[A-Z0-9_]*|NCCL_[A-Z0-9_]*|NVIDIA_[A-Z0-9_]*|LD_LIBRARY_PATH)=' | sort; true"#,
    ),
    // 10. Optional.
    Collector {
        python: true,
        timeout: 60,
        ..step(
            "python.collect_env",
            "$PYTHON -m torch.utils.collect_env",
            r#""$PYTHON" -m torch.utils.collect_env 2>&1"#,
        )
    },
    Collector {
        python: true,
        timeout: 20,
        ..step(
            "python.packages",
            "$PYTHON -m pip list (torch, nvidia, cuda, nccl, jax, tensorflow...)",
            r#""$PYTHON" -m pip list 2>/dev/null | grep -iE '^(torch|nvidia-|cuda|cupy|jax|tensorflow|paddle|vllm|deepspeed|triton|xformers|flash)'; true"#,
        )
    },
    guarded(root(timeout(
        needs(
            step("dcgm.diag", "dcgmi diag -r 1 -j", "dcgmi diag -r 1 -j 2>&1"),
            "dcgmi",
        ),
        60,
    ))),
];

/// The marker that opens every section of a bundle, and the bundle's first line.
pub const MARKER: &str = "### lore-collect ";

/// Quotes a value for a marker: `"..."` with `"` and `\` escaped, on one line.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Quotes `text` for a POSIX shell, between single quotes.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The whole table as one POSIX `sh` script: the `/collect.sh` lore serve offers. It prints the
/// same bundle `lore doctor --out` writes (the answer is computed where it is pasted). It uses
/// `timeout` when present, else runs each step in the background and kills it; each step's
/// output goes to a temporary file first, so a step that never ends cannot hold the pipe to
/// whatever reads the script's output.
pub fn script(version: &str) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        r####"#!/bin/sh
# lore {version}: collect a GPU node's evidence, read-only, in bounded time.
#   curl -fsS http://HOST:7070/collect.sh | sh | curl --data-binary @- http://HOST:7070/api/match
# Options (environment): LORE_SYSROOT=DIR reads /proc, /sys, /etc, /var/log and /dev under DIR;
# LORE_BUDGET=SECONDS (default 60); PYTHON=/path/to/python adds collect_env and pip list.
# Nothing here changes the node: no nvidia-smi -r, no modprobe, no dkms install.
R="${{LORE_SYSROOT:-}}"
R="${{R%/}}"
BUDGET="${{LORE_BUDGET:-60}}"
START=$(date +%s)
TMP=$(mktemp -d 2>/dev/null || echo "/tmp/lore-collect.$$")
mkdir -p "$TMP" || exit 2
trap 'rm -rf "$TMP"' EXIT
export R PYTHON
FALLEN=""
if [ "$(id -u 2>/dev/null)" = 0 ]; then ROOT=1; else ROOT=""; fi
have_timeout=""
if command -v timeout >/dev/null 2>&1 && [ -z "${{LORE_NO_TIMEOUT:-}}" ]; then have_timeout=1; fi
echo "### lore-collect bundle=1 lore={version} via=collect.sh host=\"$(hostname 2>/dev/null || uname -n)\" date=\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\" root=${{ROOT:-0}} sysroot=\"$R\""
now() {{ date +%s; }}
# run ID CMD TIMEOUT NEEDS ROOTONLY GUARDED PYTHONONLY SNIPPET
run() {{
  id=$1; cmd=$2; t=$3; need=$4; rootonly=$5; guard=$6; py=$7; snippet=$8
  left=$((BUDGET - ($(now) - START)))
  if [ -n "$py" ] && [ -z "${{PYTHON:-}}" ]; then return 0; fi
  if [ "$left" -le 0 ]; then echo "### lore-collect id=$id cmd=\"$cmd\" skipped=budget why=\"the budget of ${{BUDGET}}s was spent\""; return 0; fi
  if [ -n "$guard" ] && [ -n "$FALLEN" ]; then echo "### lore-collect id=$id cmd=\"$cmd\" skipped=guard why=\"$FALLEN\""; return 0; fi
  if [ -n "$rootonly" ] && [ -z "$ROOT" ]; then echo "### lore-collect id=$id cmd=\"$cmd\" skipped=no-root why=\"needs root\""; return 0; fi
  if [ -n "$need" ] && ! command -v "$need" >/dev/null 2>&1; then echo "### lore-collect id=$id cmd=\"$cmd\" skipped=not-found why=\"$need is not installed\""; return 0; fi
  [ "$t" -gt "$left" ] && t=$left
  out="$TMP/$id"
  s0=$(now)
  if [ -n "$have_timeout" ]; then
    timeout -s KILL "$t" sh -c "$snippet" >"$out" 2>&1 </dev/null; rc=$?
  else
    sh -c "$snippet" >"$out" 2>&1 </dev/null &
    pid=$!
    ( sleep "$t"; kill -9 "$pid" 2>/dev/null ) >/dev/null 2>&1 &
    killer=$!
    wait "$pid"; rc=$?
    kill "$killer" 2>/dev/null
  fi
  ms=$((($(now) - s0) * 1000))
  if [ "$rc" = 137 ] || [ "$rc" = 124 ]; then
    echo "### lore-collect id=$id cmd=\"$cmd\" skipped=timeout why=\"no answer within ${{t}}s\" ms=$ms"
  else
    echo "### lore-collect id=$id cmd=\"$cmd\" rc=$rc ms=$ms"
  fi
  head -c 4194304 "$out"
  [ -n "$(tail -c 1 "$out")" ] && echo
  if [ "$id" = kernel.log ] && grep -qE '{FALLEN_OFF}' "$out"; then FALLEN="{GUARD_WHY}"; fi
  rm -f "$out"
  return 0
}}
"####
    ));
    for c in COLLECTORS {
        s.push_str(&format!(
            "run {} {} {} {} {} {} {} {}\n",
            c.id,
            sh_quote(c.shown),
            c.timeout,
            sh_quote(c.needs.unwrap_or("")),
            sh_quote(if c.root { "1" } else { "" }),
            sh_quote(if c.guarded { "1" } else { "" }),
            sh_quote(if c.python { "1" } else { "" }),
            sh_quote(c.sh),
        ));
    }
    s.push_str("exit 0\n");
    s
}

/// A kernel log line that says a GPU is gone, in a syntax both Rust's regex and `grep -E` read.
const FALLEN_OFF: &str = r"fallen off the bus|Xid.{0,40}[ :,]79[ ,]";

/// Why NVML steps are skipped after [`FALLEN_OFF`] matched.
pub const GUARD_WHY: &str =
    "the kernel log says the GPU fell off the bus (Xid 79): NVML would hang";

/// Whether a kernel log says the GPU is gone, in which case NVML must not be touched: the same
/// test the script makes.
pub fn fallen_off(kernel_log: &str) -> bool {
    static RE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(FALLEN_OFF).expect("valid"));
    RE.is_match(kernel_log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_nvml_comes_after_the_kernel_log() {
        let mut seen = std::collections::HashSet::new();
        for c in COLLECTORS {
            assert!(seen.insert(c.id), "{} twice", c.id);
            assert!(!c.sh.contains('\n'), "{}: one line", c.id);
        }
        let log = COLLECTORS
            .iter()
            .position(|c| c.id == "kernel.log")
            .unwrap();
        for (i, c) in COLLECTORS.iter().enumerate() {
            if c.needs == Some("nvidia-smi") {
                assert!(c.guarded && i > log, "{}", c.id);
            }
            for forbidden in ["nvidia-smi -r", "modprobe", "dkms install", "rmmod"] {
                assert!(!c.sh.contains(forbidden), "{}: {forbidden}", c.id);
            }
        }
    }

    #[test]
    fn the_guard_sees_a_gpu_that_is_gone() {
        assert!(fallen_off(
            "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
        ));
        assert!(fallen_off(
            "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."
        ));
        assert!(!fallen_off(
            "NVRM: Xid (PCI:0000:3b:00): 13, pid=1234, Graphics Exception"
        ));
        assert!(!fallen_off(
            "NVRM: Xid (PCI:0000:3b:00): 119, pid=1234, Timeout waiting for RPC"
        ));
    }

    #[test]
    fn quoting() {
        assert_eq!(quote(r#"a "b" \c"#), r#""a \"b\" \\c""#);
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }
}
