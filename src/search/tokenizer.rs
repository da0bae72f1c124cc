//! One tokenizer for Chinese and English in the same field.
//!
//! Runs of CJK characters become overlapping bigrams (a lone character stays a unigram), so
//! `驱动版本不匹配` is found by `版本不匹配` and phrase queries work on consecutive positions.
//! Everything else behaves like a word tokenizer that knows technical identifiers: a run such as
//! `/dev/nvidia-uvm`, `535.104.05` or `NCCL_SOCKET_IFNAME` yields its parts (`dev`, `nvidia`,
//! `uvm`) at consecutive positions and also the whole (`dev/nvidia-uvm`) at the position of the
//! first part, so it is findable both ways.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The name the tokenizer is registered under in the index.
pub const NAME: &str = "lore";
/// Longer tokens (hashes, base64) are dropped: nobody types them.
const MAX_TOKEN: usize = 64;

#[derive(Clone, Copy, Debug, Default)]
pub struct LoreTokenizer;

pub struct LoreTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for LoreTokenizer {
    type TokenStream<'a> = LoreTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> LoreTokenStream {
        LoreTokenStream {
            tokens: tokenize(text),
            next: 0,
        }
    }
}

impl TokenStream for LoreTokenStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // Extensions B..F, compatibility supplement
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// Characters that may join the parts of an identifier.
pub fn is_joiner(c: char) -> bool {
    matches!(c, '-' | '.' | '/' | ':' | '_' | '@' | '+' | '#' | '%' | '=')
}

/// The tokens of `text`, in position order. (Called for every indexed field and every snippet,
/// so it walks the text once and lowercases ASCII without Unicode tables.)
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(text.len() / 6 + 1);
    let mut position = 0;
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if is_cjk(c) {
            // Bigrams over the run: remember the previous character's start.
            chars.next();
            let mut previous = start;
            let mut count = 1;
            while let Some(&(offset, next)) = chars.peek() {
                if !is_cjk(next) {
                    break;
                }
                chars.next();
                let end = offset + next.len_utf8();
                push(&mut tokens, text, previous, end, position);
                position += 1;
                previous = offset;
                count += 1;
            }
            if count == 1 {
                push(&mut tokens, text, start, start + c.len_utf8(), position);
                position += 1;
            }
        } else if is_word(c) || is_joiner(c) {
            // An identifier-like run; its parts are the maximal runs of word characters.
            let mut parts: Vec<(usize, usize)> = Vec::new();
            let mut part_start: Option<usize> = None;
            let mut end = start;
            while let Some(&(offset, next)) = chars.peek() {
                if is_word(next) {
                    part_start.get_or_insert(offset);
                } else if is_joiner(next) {
                    if let Some(p) = part_start.take() {
                        parts.push((p, offset));
                    }
                } else {
                    break;
                }
                chars.next();
                end = offset + next.len_utf8();
            }
            if let Some(p) = part_start {
                parts.push((p, end));
            }
            let (Some(&(first, _)), Some(&(_, last))) = (parts.first(), parts.last()) else {
                continue;
            };
            if parts.len() > 1 {
                push(&mut tokens, text, first, last, position);
            }
            for (from, to) in parts {
                if push(&mut tokens, text, from, to, position) {
                    position += 1;
                }
            }
        } else {
            chars.next();
        }
    }
    tokens
}

/// Adds a lowercased token unless it is too long; returns whether it was added.
fn push(tokens: &mut Vec<Token>, text: &str, from: usize, to: usize, position: usize) -> bool {
    if to - from > MAX_TOKEN {
        return false;
    }
    let slice = &text[from..to];
    let text = if slice.is_ascii() {
        slice.to_ascii_lowercase()
    } else {
        slice.to_lowercase()
    };
    tokens.push(Token {
        offset_from: from,
        offset_to: to,
        position,
        text,
        position_length: 1,
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: &[(&str, usize)]) {
        let got: Vec<(String, usize)> = tokenize(text)
            .into_iter()
            .map(|t| (t.text, t.position))
            .collect();
        let expect: Vec<(String, usize)> =
            expect.iter().map(|(t, p)| (t.to_string(), *p)).collect();
        assert_eq!(got, expect, "for {text:?}");
    }

    #[test]
    fn cjk_bigrams() {
        check(
            "驱动版本不匹配",
            &[
                ("驱动", 0),
                ("动版", 1),
                ("版本", 2),
                ("本不", 3),
                ("不匹", 4),
                ("匹配", 5),
            ],
        );
        check("掉卡", &[("掉卡", 0)]);
        check("卡", &[("卡", 0)]);
        check("GPU掉卡了", &[("gpu", 0), ("掉卡", 1), ("卡了", 2)]);
    }

    #[test]
    fn identifiers_by_parts_and_whole() {
        check(
            "nvidia-smi",
            &[("nvidia-smi", 0), ("nvidia", 0), ("smi", 1)],
        );
        check(
            "535.104.05",
            &[("535.104.05", 0), ("535", 0), ("104", 1), ("05", 2)],
        );
        check(
            "/dev/nvidia-uvm",
            &[("dev/nvidia-uvm", 0), ("dev", 0), ("nvidia", 1), ("uvm", 2)],
        );
        check(
            "NCCL_SOCKET_IFNAME=eth0",
            &[
                ("nccl_socket_ifname=eth0", 0),
                ("nccl", 0),
                ("socket", 1),
                ("ifname", 2),
                ("eth0", 3),
            ],
        );
        check("NVRM: Xid 79,", &[("nvrm", 0), ("xid", 1), ("79", 2)]);
    }

    #[test]
    fn offsets_are_on_char_boundaries() {
        let text = "显存不足 CUDA out-of-memory 显存";
        for token in tokenize(text) {
            assert_eq!(
                text[token.offset_from..token.offset_to].to_lowercase(),
                token.text
            );
        }
    }

    #[test]
    fn long_tokens_are_dropped() {
        let long = "a".repeat(100);
        check(&format!("x {long} y"), &[("x", 0), ("y", 1)]);
    }
}
