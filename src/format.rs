//! Small text formats shared by the CLI and the web pages, so both say the same thing the same
//! way: sizes for people, and text made safe inside a URL.

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
    fn url_components() {
        assert_eq!(url_component("AZaz09-_.~"), "AZaz09-_.~");
        assert_eq!(
            url_component("NVRM: Xid 79, 100% /x?y=z&"),
            "NVRM%3A%20Xid%2079%2C%20100%25%20%2Fx%3Fy%3Dz%26"
        );
        assert_eq!(url_component("驱动"), "%E9%A9%B1%E5%8A%A8");
    }
}
