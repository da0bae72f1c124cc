//! From what a person typed to a tantivy query. Nothing typed is a syntax error: `NVRM: Xid`,
//! `/dev/nvidia-uvm` or an unbalanced quote are just text. Understood: `"quoted phrases"`, and the
//! filters `kind:`, `tag:` and `severity:`.

use std::collections::BTreeMap;

use tantivy::Term;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, FuzzyTermQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};

use super::Fields;
use super::tokenizer::{is_cjk, tokenize};

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Filters {
    pub kind: Option<String>,
    pub tags: Vec<String>,
    pub severity: Option<String>,
}

/// One word as typed: its tokens (an identifier gives its whole and its parts; a CJK run its
/// bigrams, each of which counts as a word of its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub tokens: Vec<String>,
    /// Latin letters only: eligible for typo tolerance.
    pub alphabetic: bool,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ParsedQuery {
    pub words: Vec<Word>,
    /// The part tokens of the free text in order, for the phrase bonus.
    pub sequence: Vec<String>,
    pub phrases: Vec<Vec<String>>,
    pub filters: Filters,
    /// The text did not end in a space: the last word may be unfinished.
    pub prefix_last: bool,
    pub has_cjk: bool,
}

/// Field boosts: title > aliases > headings > the rest.
const FIELDS: &[(&str, f32)] = &[
    ("title", 4.0),
    ("aliases", 3.0),
    ("headings", 2.0),
    ("more", 1.3),
    ("body", 1.0),
];

fn field(fields: &Fields, name: &str) -> Field {
    match name {
        "title" => fields.title,
        "aliases" => fields.aliases,
        "headings" => fields.headings,
        "body" => fields.body,
        _ => fields.more,
    }
}

impl ParsedQuery {
    pub fn parse(text: &str) -> ParsedQuery {
        let mut parsed = ParsedQuery {
            prefix_last: !text.ends_with(char::is_whitespace),
            has_cjk: text.chars().any(is_cjk),
            ..ParsedQuery::default()
        };
        let mut free = String::new();
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('"') {
                let (phrase, tail) = after.split_once('"').unwrap_or((after, ""));
                let tokens: Vec<String> = part_tokens(phrase);
                if !tokens.is_empty() {
                    parsed.phrases.push(tokens);
                }
                rest = tail;
                free.push(' ');
                continue;
            }
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(rest.len());
            let (word, tail) = rest.split_at(end);
            if !parsed.filter(word) {
                free.push_str(word);
            }
            let spaces = tail.len() - tail.trim_start_matches(char::is_whitespace).len();
            free.push_str(&tail[..spaces]);
            rest = &tail[spaces..];
        }
        let tokens = tokenize(&free);
        let mut i = 0;
        while i < tokens.len() {
            // An identifier's whole comes first, then its parts, all within the whole's span.
            let end = tokens[i].offset_to;
            let mut word = vec![tokens[i].text.clone()];
            i += 1;
            while i < tokens.len() && tokens[i].offset_to <= end && tokens[i].offset_from < end {
                word.push(tokens[i].text.clone());
                i += 1;
            }
            let alphabetic = word.len() == 1 && word[0].chars().all(|c| c.is_ascii_alphabetic());
            parsed.words.push(Word {
                tokens: word,
                alphabetic,
            });
        }
        parsed.sequence = part_tokens(&free);
        parsed
    }

    /// Takes `kind:x`, `tag:x`, `severity:x`; anything else (like `NVRM:`) is text.
    fn filter(&mut self, word: &str) -> bool {
        let Some((name, value)) = word.split_once(':') else {
            return false;
        };
        let value = value.trim().to_lowercase();
        if value.is_empty() {
            return false;
        }
        match name.to_lowercase().as_str() {
            "kind" => self.filters.kind = Some(value.trim_end_matches('s').to_string()),
            "tag" | "tags" => self.filters.tags.push(value),
            "severity" | "sev" => self.filters.severity = Some(value),
            _ => return false,
        }
        true
    }

    /// Terms to highlight in snippets.
    pub fn highlight_terms(&self) -> BTreeMap<String, f32> {
        let mut terms = BTreeMap::new();
        for word in &self.words {
            for token in &word.tokens {
                terms.insert(token.clone(), 1.0);
            }
        }
        for phrase in &self.phrases {
            for token in phrase {
                terms.insert(token.clone(), 1.0);
            }
        }
        terms
    }

    /// The query, or `None` when there is nothing to look for.
    /// `known(field, token)` says whether a token is in the index; typo tolerance is only used for
    /// words that are not (a known word is most likely spelled as meant, and fuzzy expansion of a
    /// common word is the most expensive part of a query).
    pub fn build(
        &self,
        fields: &Fields,
        known: &dyn Fn(Field, &str) -> bool,
    ) -> Option<Box<dyn Query>> {
        let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let last = self.words.len().saturating_sub(1);
        for (i, word) in self.words.iter().enumerate() {
            let mut alternatives: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            // An identifier typed whole (`gpu-a100-23`) is strong evidence; its parts one by one
            // (`gpu`, `a100`, `23`) much weaker.
            let parts = word.tokens.len().saturating_sub(1).max(1) as f32;
            for (k, token) in word.tokens.iter().enumerate() {
                let weight = match (word.tokens.len(), k) {
                    (1, _) => 1.0,
                    (_, 0) => 3.0,
                    _ => 0.5 / parts,
                };
                for &(name, boost) in FIELDS {
                    let term = Term::from_field_text(field(fields, name), token);
                    let query = TermQuery::new(term, IndexRecordOption::WithFreqs);
                    alternatives.push((Occur::Should, boosted(query, boost * weight)));
                }
            }
            let token = &word.tokens[0];
            let chars = token.chars().count();
            if word.alphabetic
                && chars >= 5
                && !known(fields.body, token)
                && !known(fields.title, token)
            {
                let distance = if chars >= 10 { 2 } else { 1 };
                for name in ["title", "aliases", "body"] {
                    let term = Term::from_field_text(field(fields, name), token);
                    alternatives.push((
                        Occur::Should,
                        boosted(FuzzyTermQuery::new(term, distance, true), 0.5),
                    ));
                }
            }
            let latin = !token.chars().any(is_cjk);
            if i == last && self.prefix_last && latin && chars >= 2 {
                // Short prefixes expand to many body words: only titles and headings then.
                let names: &[&str] = if chars >= 4 {
                    &["title", "aliases", "headings", "body"]
                } else {
                    &["title", "aliases", "headings"]
                };
                for &name in names {
                    let term = Term::from_field_text(field(fields, name), token);
                    alternatives.push((
                        Occur::Should,
                        boosted(FuzzyTermQuery::new_prefix(term, 0, false), 0.6),
                    ));
                }
            }
            should.push((Occur::Should, Box::new(BooleanQuery::new(alternatives))));
        }
        // Words in the typed order count extra, most in the title and aliases.
        if self.sequence.len() >= 2 {
            // Short fields only: a phrase over every body is the most expensive thing to evaluate.
            for (name, boost) in [("title", 6.0), ("aliases", 6.0)] {
                let f = field(fields, name);
                let terms: Vec<Term> = self
                    .sequence
                    .iter()
                    .map(|t| Term::from_field_text(f, t))
                    .collect();
                should.push((Occur::Should, boosted(PhraseQuery::new(terms), boost)));
            }
        }
        for phrase in &self.phrases {
            let mut alternatives: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            for &(name, boost) in FIELDS {
                let f = field(fields, name);
                let query: Box<dyn Query> = if phrase.len() == 1 {
                    Box::new(TermQuery::new(
                        Term::from_field_text(f, &phrase[0]),
                        IndexRecordOption::WithFreqs,
                    ))
                } else {
                    Box::new(PhraseQuery::new(
                        phrase.iter().map(|t| Term::from_field_text(f, t)).collect(),
                    ))
                };
                alternatives.push((Occur::Should, Box::new(BoostQuery::new(query, boost))));
            }
            must.push((Occur::Must, Box::new(BooleanQuery::new(alternatives))));
        }
        let has_text = !should.is_empty() || !must.is_empty();
        let filters = self.filter_clauses(fields);
        if !has_text && filters.is_empty() {
            return None;
        }
        let mut clauses = must;
        if !should.is_empty() {
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(should))));
        }
        if !has_text {
            clauses.push((Occur::Must, Box::new(AllQuery)));
        }
        clauses.extend(filters);
        Some(Box::new(BooleanQuery::new(clauses)))
    }

    fn filter_clauses(&self, fields: &Fields) -> Vec<(Occur, Box<dyn Query>)> {
        let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut term = |f: Field, value: &str| {
            let query = TermQuery::new(Term::from_field_text(f, value), IndexRecordOption::Basic);
            out.push((Occur::Must, Box::new(BoostQuery::new(Box::new(query), 0.0))));
        };
        if let Some(kind) = &self.filters.kind {
            term(fields.kind, kind);
        }
        for tag in &self.filters.tags {
            term(fields.tags, tag);
        }
        if let Some(severity) = &self.filters.severity {
            term(fields.severity, severity);
        }
        out
    }
}

fn boosted(query: impl Query + 'static, boost: f32) -> Box<dyn Query> {
    Box::new(BoostQuery::new(Box::new(query), boost))
}

/// The tokens of `text` without identifier wholes: the sequence a phrase is made of.
fn part_tokens(text: &str) -> Vec<String> {
    let tokens = tokenize(text);
    let mut out: Vec<String> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let next_same = tokens
            .get(i + 1)
            .is_some_and(|n| n.position == token.position);
        if !next_same {
            out.push(token.text.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_and_phrases() {
        let q = ParsedQuery::parse(
            r#"kind:runbooks tag:PCIe severity:critical "fallen off" NVRM: Xid"#,
        );
        assert_eq!(q.filters.kind.as_deref(), Some("runbook"));
        assert_eq!(q.filters.tags, ["pcie"]);
        assert_eq!(q.filters.severity.as_deref(), Some("critical"));
        assert_eq!(q.phrases, [vec!["fallen".to_string(), "off".to_string()]]);
        let words: Vec<&str> = q.words.iter().map(|w| w.tokens[0].as_str()).collect();
        assert_eq!(words, ["nvrm", "xid"]);
        assert!(q.prefix_last);
    }

    #[test]
    fn identifiers_are_one_word() {
        let q = ParsedQuery::parse("/dev/nvidia-uvm missing ");
        assert_eq!(
            q.words[0].tokens,
            ["dev/nvidia-uvm", "dev", "nvidia", "uvm"]
        );
        assert_eq!(q.words[1].tokens, ["missing"]);
        assert!(!q.prefix_last);
        assert_eq!(q.sequence, ["dev", "nvidia", "uvm", "missing"]);
    }

    #[test]
    fn odd_input_is_text() {
        for text in ["\"unclosed", "kind:", ":::", "\"\"", "a:b:c", "tag:"] {
            let _ = ParsedQuery::parse(text);
        }
        let q = ParsedQuery::parse("\"unclosed phrase");
        assert_eq!(
            q.phrases,
            [vec!["unclosed".to_string(), "phrase".to_string()]]
        );
    }

    #[test]
    fn cjk_words() {
        let q = ParsedQuery::parse("驱动版本不匹配");
        assert!(q.has_cjk);
        assert_eq!(q.words.len(), 6);
        assert_eq!(q.sequence.len(), 6);
    }
}
