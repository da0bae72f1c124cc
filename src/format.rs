//! Small text formats shared by the CLI, the web pages and the exports, so all say the same thing
//! the same way: sizes, durations and dates for people, text made safe inside a URL, and text cut
//! short without splitting a character.

use chrono::{DateTime, FixedOffset, TimeDelta};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// `1234567` → `1.2 MB` (powers of 1000, up to GB).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KB", "MB", "GB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `2 h 08 min`, `45 min`, `3 d 2 h`.
pub fn duration(d: TimeDelta) -> String {
    let minutes = d.num_minutes();
    if minutes < 60 {
        format!("{minutes} min")
    } else if minutes < 48 * 60 {
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    } else {
        format!("{} d {} h", minutes / 1440, (minutes % 1440) / 60)
    }
}

/// The day of an RFC 3339 time: `2026-04-03T09:12:00+08:00` → `2026-04-03` (the text itself when
/// it is shorter).
pub fn day(rfc3339: &str) -> &str {
    rfc3339.get(..10).unwrap_or(rfc3339)
}

/// `2026-04-03 09:12`, in the time's own offset.
pub fn minute(t: DateTime<FixedOffset>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// `2026-04-03 09:12 +08:00`.
pub fn minute_with_offset(t: DateTime<FixedOffset>) -> String {
    t.format("%Y-%m-%d %H:%M %:z").to_string()
}

/// How often something was seen before, from the count and the latest one's start and first host:
/// "3 times, last 2026-04-03 on gpu-a100-07".
pub fn seen(times: usize, last_started: Option<&str>, last_host: Option<&str>) -> String {
    let times = match times {
        1 => "once".to_string(),
        n => format!("{n} times"),
    };
    let when = last_started.map(day).unwrap_or("?");
    match last_host {
        Some(host) => format!("{times}, last {when} on {host}"),
        None => format!("{times}, last {when}"),
    }
}

/// The longest start of `text` of at most `max` bytes that ends on a character boundary.
pub fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first `n` characters of `text` (all of it when it has fewer).
pub fn chars_prefix(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// At most `n` characters of `text`, cut at a character boundary, with `…` if cut.
pub fn first_chars(text: &str, n: usize) -> String {
    let prefix = chars_prefix(text, n);
    if prefix.len() == text.len() {
        text.to_string()
    } else {
        format!("{prefix}…")
    }
}

/// Everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - _ . ~`) is escaped.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `text` as one URL component (a query value, a path segment): `a b/c` → `a%20b%2Fc`.
pub fn url_component(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(1_500), "1.5 KB");
        assert_eq!(human_bytes(1_234_567), "1.2 MB");
        assert_eq!(human_bytes(5_000_000_000), "5.0 GB");
    }

    #[test]
    fn durations_and_dates() {
        assert_eq!(duration(TimeDelta::minutes(45)), "45 min");
        assert_eq!(duration(TimeDelta::minutes(128)), "2 h 08 min");
        assert_eq!(duration(TimeDelta::minutes(3 * 1440 + 125)), "3 d 2 h");
        assert_eq!(day("2026-04-03T09:12:00+08:00"), "2026-04-03");
        assert_eq!(day("soon"), "soon");
        assert_eq!(
            seen(3, Some("2026-04-03T09:12:00+08:00"), Some("gpu-a100-07")),
            "3 times, last 2026-04-03 on gpu-a100-07"
        );
        assert_eq!(seen(1, None, None), "once, last ?");
    }

    #[test]
    fn cuts_keep_characters_whole() {
        assert_eq!(cut("abc", 5), "abc");
        assert_eq!(cut("abc", 2), "ab");
        // `驱` is three bytes: a cut inside it backs off to before it.
        assert_eq!(cut("a驱动", 2), "a");
        assert_eq!(cut("a驱动", 4), "a驱");
        assert_eq!(chars_prefix("驱动程序", 2), "驱动");
        assert_eq!(chars_prefix("驱动", 5), "驱动");
        assert_eq!(first_chars("驱动程序", 2), "驱动…");
        assert_eq!(first_chars("驱动", 2), "驱动");
    }

    #[test]
    fn url_components() {
        assert_eq!(url_component("AZaz09-_.~"), "AZaz09-_.~");
        assert_eq!(
            url_component("NVRM: Xid 79, 100% /x?y=z&"),
            "NVRM%3A%20Xid%2079%2C%20100%25%20%2Fx%3Fy%3Dz%26"
        );
        assert_eq!(url_component("驱动"), "%E9%A9%B1%E5%8A%A8");
    }
}
