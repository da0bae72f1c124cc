//! Turning raw log bytes into the text signatures are matched against.
//!
//! Pastes arrive in every shape: invalid UTF-8, CRLF, colours, NUL bytes, and a prefix that each log
//! source adds (dmesg stamps, journal headers, container timestamps). Signatures are written against
//! the message alone, so the prefix is stripped for matching; the original line is kept for display.

use std::borrow::Cow;
use std::sync::LazyLock;

/// Lines longer than this are cut for display (the whole line is still matched).
const DISPLAY_MAX: usize = 4000;

/// One raw line as lore sees it: `shown` is the line as displayed (tidied, cleaned, prefix
/// kept, cut for display), `text` what signatures are matched against (prefix stripped,
/// `#012` escapes split into segments joined by `\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub shown: String,
    pub text: String,
}

/// The one definition of "the text a signature sees", from a raw line: [`tidy`], then
/// [`clean`], then [`match_text`], exactly what the scanner does to its chunks (it runs `tidy`
/// over many lines at once, the same change line by line). `lore check`, every export, drafts,
/// prefill and the pages use this.
pub fn line(raw: &[u8]) -> Line {
    let mut bytes = raw.to_vec();
    let end = tidy(&mut bytes, 0, raw.len());
    let cleaned = clean(&bytes[..end]);
    Line {
        shown: display(&cleaned),
        text: match_text(&cleaned).into_owned(),
    }
}

/// Tidies a whole block (a paste shown as it is): the same changes as [`line`], every line.
pub fn block(raw: &[u8]) -> String {
    let mut bytes = raw.to_vec();
    let end = tidy(&mut bytes, 0, raw.len());
    bytes.truncate(end);
    String::from_utf8_lossy(&bytes).replace('\r', "")
}

/// One physical line of text that [`tidy`] has already been over (so no NUL or ANSI escapes
/// are left), as a string: lossy UTF-8, no CR.
pub(crate) fn clean(raw: &[u8]) -> Cow<'_, str> {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let needs_work = raw.iter().any(|&b| b == b'\r' || b >= 0x80);
    if !needs_work {
        // Pure ASCII: valid UTF-8 as is.
        return Cow::Borrowed(std::str::from_utf8(raw).unwrap_or_default());
    }
    let mut bytes = Vec::with_capacity(raw.len());
    for &b in raw {
        if b != b'\r' {
            bytes.push(b);
        }
    }
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// Undoes what gets between a log and its reader, on complete lines, before the literal prefilter
/// looks at them: NUL bytes and ANSI escapes are dropped, no-break spaces become spaces, the HTML
/// entities of a log copied from a web page are decoded, and a docker json-file line
/// (`{"log":"...\n","stream":...}`) becomes the line it carries. Every change makes the text
/// shorter; returns the new end of `buf[from..to]`. Costs one fast pass ([`needs_tidy`]) when none applies.
pub fn tidy(buf: &mut Vec<u8>, from: usize, to: usize) -> usize {
    if !needs_tidy(&buf[from..to]) {
        return to;
    }
    tidy_anyway(buf, from, to)
}

/// Whether [`tidy`] would change anything in `region`: a NUL, an escape or an `&`, a no-break
/// space, or a docker json-file line's start. Asked of every byte of a large input (on both
/// cores): three searches one after the other took a seventh of a scan's time, so where AVX2 is
/// there the five trigger bytes are looked for in one pass.
pub(crate) fn needs_tidy(region: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just seen to have AVX2.
        return unsafe { needs_tidy_avx2(region) };
    }
    needs_tidy_portable(region)
}

fn needs_tidy_portable(region: &[u8]) -> bool {
    memchr::memchr3(0, 0x1b, b'&', region).is_some()
        || memchr::memmem::find(region, b"\xc2\xa0").is_some()
        || memchr::memmem::find(region, DOCKER_LINE).is_some()
}

/// How a docker json-file line starts.
const DOCKER_LINE: &[u8] = br#"{"log":""#;

/// Whether the trigger byte at `region[at]` starts something [`tidy`] changes.
fn triggers(region: &[u8], at: usize) -> bool {
    match region[at] {
        0 | 0x1b | b'&' => true,
        0xc2 => region.get(at + 1) == Some(&0xa0),
        b'{' => region[at..].starts_with(DOCKER_LINE),
        _ => false,
    }
}

/// [`needs_tidy_portable`] in one pass: 32 bytes at a time compared with the five trigger bytes,
/// each hit checked by [`triggers`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn needs_tidy_avx2(region: &[u8]) -> bool {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let wanted = [0u8, 0x1b, b'&', 0xc2, b'{'].map(|b| _mm256_set1_epi8(b as i8));
    let mut i = 0;
    while i + 32 <= region.len() {
        // SAFETY: `i + 32 <= region.len()`, and the load needs no alignment.
        let v = unsafe { _mm256_loadu_si256(region.as_ptr().add(i).cast::<__m256i>()) };
        let hit = wanted
            .iter()
            .map(|w| _mm256_cmpeq_epi8(v, *w))
            .reduce(|a, b| _mm256_or_si256(a, b))
            .expect("five bytes");
        let mut bits = _mm256_movemask_epi8(hit) as u32;
        while bits != 0 {
            if triggers(region, i + bits.trailing_zeros() as usize) {
                return true;
            }
            bits &= bits - 1;
        }
        i += 32;
    }
    (i..region.len()).any(|at| triggers(region, at))
}

/// [`tidy`] without asking [`needs_tidy`] first.
pub(crate) fn tidy_anyway(buf: &mut Vec<u8>, from: usize, to: usize) -> usize {
    let region = &buf[from..to];
    let mut out = Vec::with_capacity(region.len());
    let mut i = 0;
    while i < region.len() {
        let line_start = i == 0 || region[i - 1] == b'\n';
        if line_start && region[i..].starts_with(DOCKER_LINE) {
            let line_end = memchr::memchr(b'\n', &region[i..]).map_or(region.len(), |p| i + p);
            docker_log(&region[i + 8..line_end], &mut out);
            i = line_end;
            continue;
        }
        match region[i] {
            0 => i += 1,
            0x1b => i = skip_escape(region, i),
            0xc2 if region.get(i + 1) == Some(&0xa0) => {
                out.push(b' ');
                i += 2;
            }
            b'&' => match entity(&region[i..]) {
                Some((decoded, len)) => {
                    out.push(decoded);
                    i += len;
                }
                None => {
                    out.push(b'&');
                    i += 1;
                }
            },
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    let end = from + out.len();
    buf.splice(from..to, out);
    end
}

/// The HTML entities logs pasted from web pages carry, and how long each is.
fn entity(text: &[u8]) -> Option<(u8, usize)> {
    const ENTITIES: &[(&[u8], u8)] = &[
        (b"&quot;", b'"'),
        (b"&#34;", b'"'),
        (b"&#x22;", b'"'),
        (b"&apos;", b'\''),
        (b"&#39;", b'\''),
        (b"&#x27;", b'\''),
        (b"&lt;", b'<'),
        (b"&#60;", b'<'),
        (b"&gt;", b'>'),
        (b"&#62;", b'>'),
        (b"&amp;", b'&'),
        (b"&#38;", b'&'),
        (b"&#47;", b'/'),
        (b"&#x2F;", b'/'),
        (b"&nbsp;", b' '),
    ];
    ENTITIES
        .iter()
        .find(|(name, _)| text.len() >= name.len() && text[..name.len()].eq_ignore_ascii_case(name))
        .map(|(name, byte)| (*byte, name.len()))
}

/// The `log` string of a docker json-file line, unescaped; an escaped newline inside it is a
/// space, the one that ends it is dropped (the line's own newline follows).
fn docker_log(escaped: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < escaped.len() {
        match escaped[i] {
            b'"' => return,
            b'\\' if i + 1 < escaped.len() => {
                match escaped[i + 1] {
                    b'n' => {
                        if escaped.get(i + 2) != Some(&b'"') {
                            out.push(b' ');
                        }
                    }
                    b't' => out.push(b'\t'),
                    b'r' => {}
                    b'u' if i + 5 < escaped.len() => {
                        let hex = std::str::from_utf8(&escaped[i + 2..i + 6]).ok();
                        let code = hex
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                            .and_then(char::from_u32);
                        match code {
                            Some(c) if c != '\0' => {
                                let mut tmp = [0; 4];
                                out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                            }
                            _ => {}
                        }
                        i += 6;
                        continue;
                    }
                    other => out.push(other),
                }
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// Skips one ANSI escape sequence starting at `raw[start] == ESC`; returns the index after it.
/// A sequence never runs past a control character such as a newline.
fn skip_escape(raw: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    match raw.get(i) {
        Some(b'[') => {
            // CSI: parameters and intermediates, then one final byte in @..~
            i += 1;
            while i < raw.len() && (0x20..0x40).contains(&raw[i]) {
                i += 1;
            }
            if i < raw.len() && (0x40..=0x7e).contains(&raw[i]) {
                i + 1
            } else {
                i
            }
        }
        Some(b']') => {
            // OSC: up to BEL or ESC \
            i += 1;
            while i < raw.len() && raw[i] != b'\n' {
                if raw[i] == 0x07 {
                    return i + 1;
                }
                if raw[i] == 0x1b && raw.get(i + 1) == Some(&b'\\') {
                    return i + 2;
                }
                i += 1;
            }
            i
        }
        Some(_) => i + 1,
        None => i,
    }
}

/// Compiles [`PREFIX`] now (see `signature::warm_up`).
pub(super) fn warm_up() {
    LazyLock::force(&PREFIX);
}

/// ASCII-only (`(?-u)`): log prefixes are ASCII, and Unicode classes made this regex take 10 ms to
/// compile, most of a paste's answer time.
static PREFIX: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    let month = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
    let day = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
    let iso = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?";
    // A journal/syslog header after the stamp: `host ident[pid]: `. An ident is a program's
    // name, never a number: `GPU 0: NVIDIA Tegra X2` after a stamp is the message.
    let header = r"(?:[\w.\-]+ [A-Za-z_./@()\-][\w.\-/@()]*(?:\[\d+\])?: )?";
    let alternatives = [
        // kubectl logs --timestamps, docker logs -t, containerd CRI files, journalctl -o short-iso;
        // Python's logging in the common `%(asctime)s - %(name)s - %(levelname)s - ` format
        format!(
            r"{iso}\s+(?:(?:stdout|stderr) [FP] |- [\w.\-]+ - (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - )?{header}"
        ),
        // syslog files and journalctl short / short-precise
        format!(r"{month} [ \d]\d \d{{2}}:\d{{2}}:\d{{2}}(?:\.\d+)? {header}"),
        // journalctl -o short-full
        format!(
            r"{day} \d{{4}}-\d{{2}}-\d{{2}} \d{{2}}:\d{{2}}:\d{{2}} [A-Z]{{2,5}}(?:[+-]\d{{1,4}})? {header}"
        ),
        // dmesg (and `dmesg -H` deltas), with an optional `<level>`
        r"(?:<\d>)?\[ *[+-]?\d+\.\d+\] ?".into(),
        // `dmesg -x` facility and level, before a stamp of either kind
        r"[a-z]+ *:[a-z]+ *: ".into(),
        // `dmesg -H` wall clock: [Nov29 03:17]
        format!(r"\[{month}\d{{1,2}} \d{{2}}:\d{{2}}\] ?"),
        // RFC 5424 syslog: <pri>1 time host app procid msgid structured-data
        r"<\d{1,3}>1 \S+ \S+ \S+ \S+ \S+ (?:-|\[[^\]]*\]) ?".into(),
        // Talos / cluster log forwarders: `10.0.0.7: kern: warning: [time]: `
        r"[\w.:\-]+: kern: [a-z]+: \[[^\]]+\]: ?".into(),
        // mpirun --tag-output, srun -l, torchrun --tee, Ray workers
        r"\[\d+,\d+\]<(?:stdout|stderr)>: ?".into(),
        r"\d{1,5}: ".into(),
        r"\[(?:rank|default)\d+\]: ?".into(),
        r"\([\w:.\-]+ pid=\d+(?:, ip=[\d.]+)?\) ".into(),
        // a log quoted in Markdown or e-mail
        r">+ ?".into(),
        // dmesg -T
        format!(r"\[{day} {month} [ \d]\d \d{{2}}:\d{{2}}:\d{{2}} \d{{4}}\] ?"),
        // caller id of newer kernels: [ T1946] / [ C3]
        r"\[ *[TC]\d+\] ?".into(),
        // kubectl logs --prefix
        r"\[pod/[^\]\s]+\] ".into(),
        // docker compose
        r"[\w.\-]+ +\| ".into(),
    ];
    regex::bytes::Regex::new(&format!("(?-u)^(?:{})", alternatives.join("|")))
        .expect("prefix regex is valid")
});

/// The message without the prefixes log sources add (several may stack: a syslog header, then the
/// kernel's dmesg stamp, then a caller id).
pub fn strip_prefix(line: &str) -> &str {
    let mut rest = line;
    for _ in 0..4 {
        match PREFIX.find(rest.as_bytes()) {
            // Every prefix ends in ASCII, but a byte match is only cut where a character ends.
            Some(m) if m.end() > 0 && rest.is_char_boundary(m.end()) => rest = &rest[m.end()..],
            _ => break,
        }
    }
    rest
}

/// rsyslog writes control characters as `#` and three octal digits (`#012` for a newline, `#011` for
/// a tab). Decodes them so a traceback logged through syslog reads as its lines again.
fn decode_syslog_escapes(text: &str) -> Cow<'_, str> {
    if !text.contains("#0") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i + 3 < bytes.len() {
        if bytes[i] == b'#'
            && bytes[i + 1] == b'0'
            && (b'0'..=b'3').contains(&bytes[i + 2])
            && (b'0'..=b'7').contains(&bytes[i + 3])
        {
            let code = (bytes[i + 2] - b'0') * 8 + (bytes[i + 3] - b'0');
            out.push_str(&text[last..i]);
            match code {
                0o12 => out.push('\n'),
                0o11 => out.push('\t'),
                _ => {}
            }
            i += 4;
            last = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// What the matcher sees of one physical line: the message text with prefixes stripped; a line that
/// carried `#012` escapes becomes several segments joined by `\n`, each stripped.
pub fn match_text(cleaned: &str) -> Cow<'_, str> {
    match decode_syslog_escapes(cleaned) {
        Cow::Borrowed(s) => Cow::Borrowed(strip_prefix(s)),
        Cow::Owned(s) => Cow::Owned(
            s.split('\n')
                .map(strip_prefix)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

/// A line shortened for display, cut on a character boundary.
pub fn display(cleaned: &str) -> String {
    if cleaned.len() <= DISPLAY_MAX {
        return cleaned.to_string();
    }
    let shown = crate::format::cut(cleaned, DISPLAY_MAX);
    format!("{shown}… [{} more bytes]", cleaned.len() - shown.len())
}

/// What an input is when it is not text at all: a compressed file, an archive, an executable or
/// core dump, a systemd journal file, or bytes of which many are control characters (text in
/// any encoding has almost none: UTF-8, GBK, Latin-1 and UTF-16, whose NULs are dropped like any
/// NUL, all pass). `None` for text, stray bytes and all. Only the first 64 KiB are looked at.
pub fn not_text(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x1f\x8b", "gzip-compressed data"),
        (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
        (b"\xfd7zXZ\x00", "xz-compressed data"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x7fELF", "an executable or a core dump (ELF)"),
        (b"LPKSHHRH", "a systemd journal file"),
        (b"SQLite format 3\x00", "an SQLite database"),
        (b"\x89PNG\r\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"%PDF-", "a PDF document"),
    ];
    if let Some((_, what)) = MAGIC.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return Some(what);
    }
    // bzip2: `BZh`, the block size, then the block magic (the digits of pi).
    if bytes.len() >= 10
        && bytes.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&bytes[3])
        && &bytes[4..10] == b"1AY&SY"
    {
        return Some("bzip2-compressed data");
    }
    let sample = &bytes[..bytes.len().min(64 << 10)];
    // Too short to judge by its bytes (a line or two).
    if sample.len() < 256 {
        return None;
    }
    // Control characters other than whitespace, NUL (UTF-16's half of every ASCII letter) and
    // ESC (colours): random and compressed bytes have about one in twelve, text next to none.
    let control = sample
        .iter()
        .filter(|&&b| {
            (b < 0x20 && !matches!(b, 0 | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1b)) || b == 0x7f
        })
        .count();
    (control * 20 > sample.len()).then_some("binary data")
}

/// A paste as text: UTF-16 (with its byte-order mark, or without one when every other byte is a
/// NUL, as PowerShell's `>` writes) decoded, a UTF-8 byte-order mark (Notepad's) and NULs dropped,
/// and anything else read as UTF-8 with invalid bytes replaced.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let utf16 = |bytes: &[u8], little: bool| -> Cow<'_, str> {
        let units = bytes.chunks_exact(2).map(|p| {
            if little {
                u16::from_le_bytes([p[0], p[1]])
            } else {
                u16::from_be_bytes([p[0], p[1]])
            }
        });
        Cow::Owned(
            char::decode_utf16(units)
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .filter(|&c| c != '\0')
                .collect(),
        )
    };
    if let Some(rest) = bytes.strip_prefix(b"\xff\xfe") {
        return utf16(rest, true);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xfe\xff") {
        return utf16(rest, false);
    }
    // Without a mark: ASCII in UTF-16 has a NUL in every other byte, and text has no NULs of
    // its own worth counting.
    let sample = &bytes[..bytes.len().min(4096) & !1];
    if sample.len() >= 16 {
        let nuls = |from: usize| {
            sample
                .iter()
                .skip(from)
                .step_by(2)
                .filter(|&&b| b == 0)
                .count()
        };
        let (even, odd, half) = (nuls(0), nuls(1), sample.len() / 2);
        if odd * 10 >= half * 6 && even * 20 < half {
            return utf16(bytes, true);
        }
        if even * 10 >= half * 6 && odd * 20 < half {
            return utf16(bytes, false);
        }
    }
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match String::from_utf8_lossy(bytes) {
        Cow::Borrowed(text) if !text.contains('\0') => Cow::Borrowed(text),
        text => Cow::Owned(text.replace('\0', "")),
    }
}

/// The sentence that refuses an input called `name` when [`not_text`] finds it is not text,
/// saying what it is and how to get its text; `None` for text.
pub fn refusal(bytes: &[u8], name: &str) -> Option<String> {
    let what = not_text(bytes)?;
    let hint = if what.ends_with("compressed data") {
        "decompress it first (`zcat`, `zstdcat`, `xzcat` or `bzcat` FILE, piped in)"
    } else if what == "a systemd journal file" {
        "read it with journalctl first (`journalctl --file FILE`, piped in)"
    } else {
        "send a log, a command's output or a paste"
    };
    Some(format!("{name} is {what}, not text: {hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass check says what the three searches say, wherever the trigger falls (both
    /// sides of each 32-byte block, split across blocks, at the end) and for near misses.
    #[test]
    fn the_one_pass_tidy_check_agrees_with_the_three_searches() {
        let triggers: [&[u8]; 9] = [
            b"\0",
            b"\x1b[0m",
            b"&amp;",
            b"\xc2\xa0",
            br#"{"log":"x"#,
            b"\xc2\xb0",
            br#"{"lo"#,
            br#"{"level":1}"#,
            b"\xc2",
        ];
        for trigger in triggers {
            for len in [0usize, 5, 31, 32, 33, 64, 100] {
                for at in 0..=len {
                    let mut region = vec![b'a'; len];
                    region.splice(at..at, trigger.iter().copied());
                    let portable = needs_tidy_portable(&region);
                    assert_eq!(
                        needs_tidy(&region),
                        portable,
                        "{trigger:?} at {at} of {len}"
                    );
                }
            }
        }
        assert!(!needs_tidy(&[b'x'; 1000]));
    }

    fn check(raw: &str, expect: &str) {
        assert_eq!(line(raw.as_bytes()).text, expect, "for {raw:?}");
    }

    #[test]
    fn prefixes() {
        let msg = "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.";
        check(&format!("[ 2384.559823] {msg}"), msg);
        check(&format!("[2384.559823] {msg}"), msg);
        check(&format!("[Sun Feb 23 16:24:18 2025] {msg}"), msg);
        check(&format!("[Tue Mar  5 10:12:44 2024] {msg}"), msg);
        check(&format!("[  130.456250] [ T1946] {msg}"), msg);
        check(&format!("Feb  1 14:25:31 gpu-a100-07 kernel: {msg}"), msg);
        check(
            &format!("Nov 29 03:17:00 gpu-a100-07 kernel: [ 4216.350214] {msg}"),
            msg,
        );
        check(&format!("Nov 29 03:17:00.123456 gpu01 kernel: {msg}"), msg);
        check(
            "2022-03-06 00:29:00,457 - mmdeploy - INFO - PyTorch: 1.10.0",
            "PyTorch: 1.10.0",
        );
        check(
            &format!("2026-11-29T03:17:00+0800 gpu01 kernel: {msg}"),
            msg,
        );
        check(
            &format!("2026-11-29T03:17:00.123456+08:00 gpu01 containerd[812]: {msg}"),
            msg,
        );
        check(
            &format!("Sun 2026-11-29 03:17:00 CST gpu01 kernel: {msg}"),
            msg,
        );
        check(&format!("2026-11-29T03:17:00.123456789Z {msg}"), msg);
        check(
            &format!("2026-11-29T03:17:00.123456789Z stdout F {msg}"),
            msg,
        );
        check(&format!("<3>[   12.345678] {msg}"), msg);
        check(&format!("kern  :err   : [   12.345678] {msg}"), msg);
        check(&format!("[pod/trainer-0/pytorch] {msg}"), msg);
        check(&format!("trainer-1  | {msg}"), msg);
        check(&format!("[  +0.000013] {msg}"), msg);
        check(&format!("[Nov29 03:17] {msg}"), msg);
        check(
            &format!("kern  :warn  : [Fri Apr  5 21:29:39 2024] {msg}"),
            msg,
        );
        check(
            &format!("<4>1 2024-04-05T21:29:39Z gpu01 kernel - - - {msg}"),
            msg,
        );
        check(
            &format!("192.168.11.119: kern: warning: [2026-04-22T21:27:51.29Z]: {msg}"),
            msg,
        );
        check(&format!("[1,0]<stderr>:{msg}"), msg);
        check(&format!("0: {msg}"), msg);
        check(&format!("[rank0]: {msg}"), msg);
        check(&format!("(RayWorkerVllm pid=4009, ip=10.0.0.1) {msg}"), msg);
        check(&format!("> [Fri Aug 30 11:43:09 2024] {msg}"), msg);
        check(msg, msg);
    }

    #[test]
    fn a_message_that_merely_looks_like_a_header_keeps_its_words() {
        check(
            "RuntimeError: CUDA error: out of memory",
            "RuntimeError: CUDA error: out of memory",
        );
        check(
            "NCCL INFO Bootstrap : Using eth0",
            "NCCL INFO Bootstrap : Using eth0",
        );
        check(
            "2022-03-06 00:29:00,457 - mmdeploy - INFO - GPU 0: NVIDIA Tegra X2",
            "GPU 0: NVIDIA Tegra X2",
        );
        check("Mar  6 00:29:00 GPU 0: Orin", "GPU 0: Orin");
    }

    #[test]
    fn binary_inputs_are_told_apart_from_text_in_any_encoding() {
        assert_eq!(
            not_text(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0]),
            Some("gzip-compressed data")
        );
        assert_eq!(
            not_text(b"\x7fELF\x02\x01\x01"),
            Some("an executable or a core dump (ELF)")
        );
        assert_eq!(not_text(b"BZh91AY&SY\x00"), Some("bzip2-compressed data"));
        assert_eq!(
            not_text(b"LPKSHHRH\x00\x00"),
            Some("a systemd journal file")
        );
        // Pseudo-random bytes (a linear congruential generator): compressed data looks like this.
        let mut x: u32 = 12345;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        assert_eq!(not_text(&noise), Some("binary data"));
        // Text stays text: UTF-8 with colours and a stray byte, GBK, UTF-16 with its NULs, and a
        // short line whatever it holds.
        let log = "[ 12.5] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n\x1b[31mERROR\x1b[0m \u{6bb5}\u{9519}\u{8bef}\n".repeat(20);
        let mut dirty = log.clone().into_bytes();
        dirty.push(0xff);
        assert_eq!(not_text(&dirty), None);
        let gbk: Vec<u8> =
            b"\xb6\xce\xb4\xed\xce\xf3 (\xba\xcb\xd0\xc4\xd2\xd1\xd7\xaa\xb4\xa2)\n".repeat(40);
        assert_eq!(not_text(&gbk), None);
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(log.encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
        assert_eq!(not_text(&utf16), None);
        assert_eq!(not_text(b"\x01\x02 short"), None);
    }

    #[test]
    fn utf16_and_byte_order_marks_decode_to_the_same_text() {
        let text = "NVIDIA-SMI 535.104.05\r\nDriver Version: 535.104.05\r\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        for bytes in [
            [&b"\xff\xfe"[..], &le].concat(),
            [&b"\xfe\xff"[..], &be].concat(),
            le.clone(),
            be.clone(),
            [&b"\xef\xbb\xbf"[..], text.as_bytes()].concat(),
            text.as_bytes().to_vec(),
        ] {
            assert_eq!(decode(&bytes), text, "{bytes:?}");
        }
        assert_eq!(decode(b"NV\0RM \xff"), "NVRM \u{fffd}");
        assert!(matches!(decode(b"plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn dirty_bytes() {
        check("\x1b[31mNVRM: Xid\x1b[0m 79\r\n", "NVRM: Xid 79");
        check("NV\0RM", "NVRM");
        assert_eq!(
            block(b"keep\x1b[1;31mred\x1b[0m\0 done\n"),
            "keepred done\n"
        );
        assert_eq!(
            block(b"a\x1b[31\nb"),
            "a\nb",
            "a broken escape never swallows the newline"
        );
        assert_eq!(line(b"\x1b[31mred\x1b[0m &quot;x&quot;").shown, "red \"x\"");
        check("\x1b]0;title\x07ok", "ok");
        let cleaned = clean(b"bad \xff\xfe utf8");
        assert_eq!(cleaned, "bad \u{fffd}\u{fffd} utf8");
        assert_eq!(clean(b""), "");
    }

    fn tidied(text: &str) -> String {
        let mut buf = text.as_bytes().to_vec();
        let end = tidy(&mut buf, 0, text.len());
        assert_eq!(end, buf.len());
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn what_gets_between_a_log_and_its_reader() {
        assert_eq!(
            tidied("could not select device driver &quot;&quot; with capabilities: [[gpu]]\n"),
            "could not select device driver \"\" with capabilities: [[gpu]]\n"
        );
        assert_eq!(
            tidied("Key was rejected by service&#x27;s &amp;&lt;x&gt; &unknown; a\u{a0}b\n"),
            "Key was rejected by service's &<x> &unknown; a b\n"
        );
        assert_eq!(
            tidied(
                "{\"log\":\"NCCL WARN \\\"x\\\" failed\\tnow\\n\",\"stream\":\"stderr\",\"time\":\"2026\"}\nnext\n"
            ),
            "NCCL WARN \"x\" failed\tnow\nnext\n"
        );
        assert_eq!(
            tidied("plain text, nothing to do\n"),
            "plain text, nothing to do\n"
        );
        assert_eq!(tidied("a\0b\x1b[31mc\n"), "abc\n");
    }

    #[test]
    fn syslog_escapes_become_lines() {
        check(
            "Nov 29 03:17:00 h python[12]: Traceback (most recent call last):#012  File \"x.py\", line 1#012RuntimeError: CUDA error#011x",
            "Traceback (most recent call last):\n  File \"x.py\", line 1\nRuntimeError: CUDA error\tx",
        );
        assert_eq!(
            decode_syslog_escapes("issue #0 is fine"),
            "issue #0 is fine"
        );
    }

    #[test]
    fn display_cuts_long_lines_on_char_boundaries() {
        let long = "掉".repeat(3000);
        let shown = display(&long);
        assert!(shown.len() < 4100);
        assert!(shown.ends_with("more bytes]"));
    }
}
