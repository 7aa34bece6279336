//! What a parse learnt from the file system, so that a later scan can tell, with a `stat` or
//! two, whether the parse would still give the same ([`ParsedFile`]).
//!
//! An adapter reads its task file and, through the [`Files`] view, whatever else it needs: an
//! included Makefile, the parent `package.json`, whether a lockfile is there, the entries of a
//! task directory, whether a script is executable. The [`Recorder`] stands between the
//! adapter and the real files and writes each answer down as a [`Fact`]; the parse holds
//! while every fact does. This knows nothing of any one format: a new adapter is covered
//! because it can only reach the disk through the same view.

use std::collections::HashSet;
use std::sync::Mutex;

use agg_runners::{Files, Parsed};
use rustc_hash::FxHashMap;

use super::stamp::Stamp;
use crate::lock::MutexExt;
use crate::repo_files::RepoFiles;

/// A parse result with what it was made from.
#[derive(Debug, Clone, Default, bitcode::Encode, bitcode::Decode)]
pub struct ParsedFile {
    /// The tasks, diagnostics and pulled-in files of the parse.
    pub parsed: Parsed,
    /// The task file's stamp as it was read; `None` when it cannot vouch for what was read
    /// (reached through a symlink, or gone), and the file is then parsed again every time.
    pub main: Option<Stamp>,
    /// Everything else the parse learnt, each once: places in the index's [`FactTable`]
    /// (thousands of parses share a few facts, such as a lockfile up the tree).
    pub facts: Vec<u32>,
}

/// Every fact the parses of an index learnt, each once.
#[derive(Debug, Clone, Default)]
pub struct FactTable {
    facts: Vec<Fact>,
    /// Where each fact is, built when a parse adds facts.
    ids: Option<FxHashMap<Fact, u32>>,
}

impl FactTable {
    /// A table of `facts`, as kept.
    pub fn from_facts(facts: Vec<Fact>) -> FactTable {
        FactTable { facts, ids: None }
    }

    /// The facts, by place.
    pub fn facts(&self) -> &[Fact] {
        &self.facts
    }

    /// The places of `facts`, adding those not in the table yet.
    pub fn intern(&mut self, facts: Vec<Fact>) -> Vec<u32> {
        let known = &self.facts;
        let ids = self.ids.get_or_insert_with(|| {
            known
                .iter()
                .enumerate()
                .map(|(i, f)| (f.clone(), u32::try_from(i).unwrap_or(u32::MAX)))
                .collect()
        });
        facts
            .into_iter()
            .map(|fact| {
                let next = u32::try_from(self.facts.len()).unwrap_or(u32::MAX);
                *ids.entry(fact).or_insert_with_key(|fact| {
                    self.facts.push(fact.clone());
                    next
                })
            })
            .collect()
    }

    /// Drops the facts no parse in `found` refers to, renumbering the rest.
    pub fn compact<'a>(&mut self, found: impl Iterator<Item = &'a mut ParsedFile>) {
        let found: Vec<&mut ParsedFile> = found.collect();
        let mut new_id = vec![u32::MAX; self.facts.len()];
        let mut kept = Vec::new();
        for f in &found {
            for &id in &f.facts {
                let slot = &mut new_id[id as usize];
                if *slot == u32::MAX {
                    *slot = u32::try_from(kept.len()).unwrap_or(u32::MAX);
                    kept.push(self.facts[id as usize].clone());
                }
            }
        }
        for f in found {
            for id in &mut f.facts {
                *id = new_id[*id as usize];
            }
        }
        self.facts = kept;
        self.ids = None;
    }
}

/// One answer the file system gave a parse, besides its own task file. Paths are
/// root-relative, as the adapter asked.
#[derive(Debug, Clone, PartialEq, Eq, Hash, bitcode::Encode, bitcode::Decode)]
pub enum Fact {
    /// A file was read: its stamp then, or `None` when there was no file.
    Read { path: String, stamp: Option<Stamp> },
    /// Whether a file exists.
    Exists { path: String, answer: bool },
    /// Whether a file is executable.
    Executable { path: String, answer: bool },
    /// The entries of a directory.
    Listing { dir: String, names: Vec<String> },
    /// The other candidates of the same format beside a file.
    Siblings { path: String, names: Vec<String> },
    /// An answer no stamp vouches for (a symlink was followed, or a file could not be read
    /// for a reason that is not its absence): the file is parsed again every time.
    Unsteady,
}

/// The [`Files`] view an adapter parses through, writing down every answer.
pub struct Recorder<'a> {
    files: &'a RepoFiles<'a>,
    facts: Mutex<Vec<Fact>>,
}

impl<'a> Recorder<'a> {
    pub fn new(files: &'a RepoFiles<'a>) -> Recorder<'a> {
        Recorder {
            files,
            facts: Mutex::new(Vec::new()),
        }
    }

    fn note(&self, fact: Fact) {
        self.facts.locked().push(fact);
    }

    /// The facts, each once, in the order first learnt.
    pub fn into_facts(self) -> Vec<Fact> {
        let facts = self.facts.unlocked();
        let mut seen = HashSet::new();
        let mut unique: Vec<Fact> = facts
            .into_iter()
            .filter(|f| seen.insert(f.clone()))
            .collect();
        if unique.contains(&Fact::Unsteady) {
            unique = vec![Fact::Unsteady];
        }
        unique
    }
}

impl Files for Recorder<'_> {
    fn read(&self, path: &str) -> Result<String, agg_runners::Unreadable> {
        match self.files.read_opened(path) {
            Ok((text, opened)) => {
                self.note(if opened.linked {
                    Fact::Unsteady
                } else {
                    Fact::Read {
                        path: path.to_owned(),
                        stamp: Some(Stamp::of(&opened.meta)),
                    }
                });
                Ok(text.to_string())
            }
            Err(reason) => {
                self.note(if reason.is_missing() {
                    Fact::Read {
                        path: path.to_owned(),
                        stamp: None,
                    }
                } else {
                    Fact::Unsteady
                });
                Err(agg_runners::Unreadable::from(reason))
            }
        }
    }

    fn exists(&self, path: &str) -> bool {
        let (answer, linked) = self.files.exists_linked(path);
        self.note(if linked {
            Fact::Unsteady
        } else {
            Fact::Exists {
                path: path.to_owned(),
                answer,
            }
        });
        answer
    }

    fn read_dir(&self, dir: &str) -> Vec<String> {
        let names = self.files.read_dir(dir);
        self.note(Fact::Listing {
            dir: dir.to_owned(),
            names: names.clone(),
        });
        names
    }

    fn executable(&self, path: &str) -> bool {
        let answer = self.files.executable(path);
        self.note(Fact::Executable {
            path: path.to_owned(),
            answer,
        });
        answer
    }

    fn siblings(&self, path: &str) -> Vec<String> {
        let names = self.files.siblings(path);
        self.note(Fact::Siblings {
            path: path.to_owned(),
            names: names.clone(),
        });
        names
    }

    fn root_name(&self) -> Option<String> {
        // The root is the cache's key: its name cannot change under a cached parse.
        self.files.root_name()
    }
}
