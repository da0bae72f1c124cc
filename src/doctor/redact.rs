//! `--redact`: a bundle that can leave the building. Host names, IP and MAC addresses, serial
//! numbers and UUIDs are replaced by stable placeholders (`<host-1>`, `<ip-2>`, `<uuid-1>`), the
//! same value by the same placeholder everywhere, so the answer (which reads versions, module
//! names and messages) does not change. Sections that list package versions keep their dotted
//! numbers: `9.1.0.70` is cuDNN there, not an address.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::table::MARKER;

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:GPU-|MIG-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    )
    .expect("valid")
});
static MAC: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b").expect("valid"));
static IPV4: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b")
        .expect("valid")
});
static IPV6: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}\b|(?i)\b[0-9a-f]{0,4}::[0-9a-f:]*[0-9a-f]\b",
    )
    .expect("valid")
});
static SERIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)((?:serial(?: number)?|board serial|chassis serial)\s*[:=]\s*)(\S.*?)\s*$")
        .expect("valid")
});

/// Sections whose dotted numbers are versions, never addresses.
const VERSION_SECTIONS: &[&str] = &[
    "packages.installed",
    "packages.history",
    "python.packages",
    "python.collect_env",
    "cuda.nvcc",
    "cuda.version",
    "modules.info",
    "dkms.status",
    "container.ctk",
];

struct Placeholders {
    seen: HashMap<(String, &'static str), String>,
    counts: HashMap<&'static str, usize>,
}

impl Placeholders {
    fn get(&mut self, kind: &'static str, value: &str) -> String {
        let key = (value.to_ascii_lowercase(), kind);
        if let Some(p) = self.seen.get(&key) {
            return p.clone();
        }
        let n = self.counts.entry(kind).or_default();
        *n += 1;
        let p = format!("<{kind}-{n}>");
        self.seen.insert(key, p.clone());
        p
    }
}

/// The bundle with its identifying values replaced.
pub fn redact(bundle: &str) -> String {
    let mut places = Placeholders {
        seen: HashMap::new(),
        counts: HashMap::new(),
    };
    // The host names the bundle itself gives: its header and uname.
    let mut hosts: Vec<String> = Vec::new();
    for line in bundle.lines().take(400) {
        if line.starts_with(MARKER) {
            if let Some(host) = super::bundle::marker_fields(line).get("host")
                && host.len() > 1
            {
                hosts.push(host.clone());
            }
        } else if let Some(rest) = line.strip_prefix("Linux ")
            && let Some(host) = rest.split_whitespace().next()
            && host.len() > 1
            && !host.starts_with(|c: char| c.is_ascii_digit())
        {
            hosts.push(host.to_string());
        }
    }
    hosts.sort_by_key(|h| std::cmp::Reverse(h.len()));
    hosts.dedup();
    let mut section = String::new();
    let mut out = String::with_capacity(bundle.len());
    for line in bundle.split_inclusive('\n') {
        if line.starts_with(MARKER)
            && let Some(id) = super::bundle::marker_fields(line.trim_end()).get("id")
        {
            section = id.clone();
        }
        let mut text = line.to_string();
        for host in &hosts {
            if text.contains(host.as_str()) {
                let p = places.get("host", host);
                text = text.replace(host.as_str(), &p);
            }
        }
        text = UUID
            .replace_all(&text, |c: &regex::Captures<'_>| places.get("uuid", &c[0]))
            .into_owned();
        text = MAC
            .replace_all(&text, |c: &regex::Captures<'_>| places.get("mac", &c[0]))
            .into_owned();
        if !VERSION_SECTIONS.contains(&section.as_str()) && !line.starts_with(MARKER) {
            text = IPV4
                .replace_all(&text, |c: &regex::Captures<'_>| places.get("ip", &c[0]))
                .into_owned();
        }
        // IPv6 needs a letter or `::`, so a time like 12:34:56 is left alone.
        text = IPV6
            .replace_all(&text, |c: &regex::Captures<'_>| {
                let v = &c[0];
                if v.contains("::") || v.chars().any(|ch| ch.is_ascii_alphabetic()) {
                    places.get("ip", v)
                } else {
                    v.to_string()
                }
            })
            .into_owned();
        let trimmed = text.trim_end_matches('\n');
        if let Some(c) = SERIAL.captures(trimmed) {
            let value = c[2].to_string();
            if !value.eq_ignore_ascii_case("N/A") {
                let p = places.get("serial", &value);
                let ending = &text[trimmed.len()..];
                text = format!(
                    "{}{}{}",
                    &trimmed[..c.get(2).map_or(0, |m| m.start())],
                    p,
                    ending
                );
            }
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifying_values_go_versions_stay() {
        let bundle = "### lore-collect bundle=1 host=\"gpu-a100-23\" date=\"2026-12-01T03:00:00Z\"\n\
### lore-collect id=os.uname cmd=\"uname -a\" rc=0 ms=1\n\
Linux gpu-a100-23 5.14.0-284.11.1.el9_2.x86_64 #1 SMP PREEMPT_DYNAMIC Tue May 9 17:09:15 UTC 2023 x86_64 GNU/Linux\n\
### lore-collect id=smi.query cmd=\"nvidia-smi -q\" rc=0 ms=800\n\
    Serial Number                         : 1564720004631\n\
    GPU UUID                              : GPU-5ba1c9a0-3b4f-7c66-1d3e-9a2f1e0c4d11\n\
    Driver Version                        : 535.129.03\n\
Nov 30 12:34:56 gpu-a100-23 sshd[1]: Accepted from 10.20.30.40 port 2222 fe80::1ff:fe23:4567:890a\n\
### lore-collect id=packages.installed cmd=\"dpkg-query\" rc=0 ms=9\n\
ii  libcudnn9-cuda-12 9.1.0.70-1\n";
        let out = redact(bundle);
        assert!(!out.contains("gpu-a100-23"), "{out}");
        assert!(out.contains("Linux <host-1> 5.14.0-284.11.1.el9_2.x86_64"));
        assert!(out.contains("<uuid-1>") && !out.contains("5ba1c9a0"));
        assert!(out.contains("Serial Number                         : <serial-1>"));
        assert!(out.contains("<ip-1> port 2222 <ip-2>"), "{out}");
        assert!(out.contains("12:34:56"));
        assert!(out.contains("535.129.03"));
        assert!(out.contains("9.1.0.70"), "versions in package lists stay");
        assert_eq!(out.lines().count(), bundle.lines().count());
    }
}
