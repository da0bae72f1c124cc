//! Past incidents of a cause: those that name its runbook, and those whose `log` blocks hit one
//! of its signatures (scanned only for the runbooks a report found, or once for all of them in
//! a long-running server).

use std::collections::HashMap;

use super::Matcher;
use super::Scanner;
use super::report::{Cause, IncidentRef};

impl Matcher {
    /// Fills each cause's past incidents: those that name its runbook, or whose `log` blocks hit
    /// one of its signatures. The logs are scanned only for the runbooks in this report, so the
    /// regexes compiled are the ones the paste needed anyway.
    /// The incidents linked to every runbook (by index), worked out once.
    pub fn link_all_incidents(&self) -> &[Vec<IncidentRef>] {
        self.all_links.get_or_init(|| {
            let all: Vec<usize> = (0..self.runbooks.len()).collect();
            self.incidents_for(&all)
        })
    }

    /// The incidents that name runbook `id` as a cause or whose logs hit its signatures.
    pub fn incidents_of(&self, id: &str) -> Vec<IncidentRef> {
        self.runbooks
            .iter()
            .position(|r| r.id == id)
            .map(|r| self.link_all_incidents()[r].clone())
            .unwrap_or_default()
    }

    /// Every runbook's linked incidents as their ids, one line per runbook, for
    /// `.lore/links.cache` (see [`crate::library::Library::matcher`]): scanning the incidents'
    /// logs compiles the regexes they hit, a few milliseconds of every `lore match` that the
    /// cache saves while the documents stay the same.
    pub fn incident_links_bytes(&self) -> Vec<u8> {
        self.link_all_incidents()
            .iter()
            .map(|refs| {
                refs.iter()
                    .map(|r| r.id.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()
    }

    /// Takes the links [`Matcher::incident_links_bytes`] wrote for this same library; `false`
    /// (nothing taken) if they do not fit its runbooks and incidents.
    pub fn keep_incident_links(&self, bytes: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return false;
        };
        let lines: Vec<&str> = text.split('\n').collect();
        if self.runbooks.is_empty() || lines.len() != self.runbooks.len() {
            return false;
        }
        let by_id: HashMap<&str, &IncidentRef> = self
            .incidents
            .iter()
            .map(|i| (i.reference.id.as_str(), &i.reference))
            .collect();
        let mut links = Vec::with_capacity(lines.len());
        for line in lines {
            let mut refs = Vec::new();
            for id in line.split_whitespace() {
                let Some(&r) = by_id.get(id) else {
                    return false;
                };
                refs.push(r.clone());
            }
            links.push(refs);
        }
        self.all_links.set(links).is_ok()
    }

    pub(super) fn attach_incidents(&self, causes: &mut [Cause]) {
        if causes.is_empty() || self.incidents.is_empty() {
            return;
        }
        if let Some(all) = self.all_links.get() {
            for cause in causes.iter_mut() {
                if let Some(r) = self.runbooks.iter().position(|r| r.id == cause.runbook) {
                    cause.incidents = all[r].clone();
                }
            }
            return;
        }
        let runbooks: Vec<usize> = causes
            .iter()
            .filter_map(|c| self.runbooks.iter().position(|r| r.id == c.runbook))
            .collect();
        let links = self.incidents_for(&runbooks);
        for (cause, incidents) in causes.iter_mut().zip(links) {
            cause.incidents = incidents;
        }
    }

    /// For each of `runbooks` (indexes), the incidents that cite it or whose logs hit it.
    fn incidents_for(&self, runbooks: &[usize]) -> Vec<Vec<IncidentRef>> {
        let mut attached: Vec<Vec<IncidentRef>> = vec![Vec::new(); runbooks.len()];
        if self.incidents.is_empty() {
            return attached;
        }
        let wanted: HashMap<usize, usize> =
            runbooks.iter().enumerate().map(|(i, &r)| (r, i)).collect();
        let sigs: Vec<u32> = self
            .engine
            .sigs
            .iter()
            .enumerate()
            .filter(|(_, sig)| wanted.contains_key(&sig.runbook))
            .map(|(i, _)| i as u32)
            .collect();
        for incident in &self.incidents {
            let mut hit: Vec<usize> = incident
                .cites
                .iter()
                .filter_map(|r| wanted.get(r).copied())
                .collect();
            for log in &incident.logs {
                let mut scanner = Scanner::new(&self.engine).only(sigs.iter().copied());
                scanner.feed(log.as_bytes());
                for (s, hits) in scanner.finish().sigs.iter().enumerate() {
                    if hits.count > 0
                        && let Some(&c) = wanted.get(&self.engine.sigs[s].runbook)
                    {
                        hit.push(c);
                    }
                }
            }
            hit.sort_unstable();
            hit.dedup();
            for c in hit {
                attached[c].push(incident.reference.clone());
            }
        }
        attached
    }
}
