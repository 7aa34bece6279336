//! What a task's definition reads, as an adapter reports it when a file is read for a
//! decision: the parts of its files (a variable, a setting, a hook, a configuration value)
//! beyond the task's own recipe, parameters and environment, and the other tasks it runs.
//!
//! A pin of the task holds exactly these, so an edit of another recipe, a comment, a
//! variable the task does not read or the package's version keeps the allow, and an edit of
//! anything it reads lapses it, naming the part. Where an adapter cannot tell what a
//! definition reads (a construct it does not evaluate), it says why in [`Reads::unknown`],
//! and the task's files are pinned whole.

/// Why a task file is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Purpose {
    /// For the table: adapters leave [`Reads`] out, which costs nothing.
    #[default]
    List,
    /// For a decision about running one of its tasks: adapters that can tell fill in each
    /// task's [`Reads`].
    Decide,
}

/// What a task's definition reads besides its own facts.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reads {
    /// Each part of the files the definition reads, with its text now.
    pub parts: Vec<Part>,
    /// Other tasks of the same file the task runs while it runs, by source name (`npm run
    /// lint` in a script, go-task `task:` commands, a poe sequence); its deps count without
    /// being named here.
    pub runs: Vec<String>,
    /// Why agg cannot tell everything the definition reads, when it cannot: its files are
    /// then pinned whole, and a lapse says so.
    pub unknown: Option<String>,
    /// The parameters whose values the runner splices into code (just `{{name}}` in a recipe
    /// line, poe `${name}` in a command it splits into words): only plain words are data for
    /// them. Without [`Reads`], every declared parameter counts as spliced.
    pub spliced: Vec<String>,
}

/// One part of a task file that a definition reads.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// What it is, in words that stay the same while its text changes: ``variable `CC` ``,
    /// ``setting `shell` ``, ``config `port` ``.
    pub what: String,
    /// Its text now, in a form that reformatting does not change (a value rather than the
    /// bytes that spell it); empty for a part that is not there (a variable never assigned),
    /// so that adding it is a change too.
    pub text: String,
}

/// Most parts one task keeps: past it, the definition reads more than agg follows.
pub const MAX_PARTS: usize = 512;

impl Reads {
    /// Adds a part, once per name; past [`MAX_PARTS`] the definition is unknown.
    pub fn part(&mut self, what: impl Into<String>, text: impl Into<String>) {
        let what = what.into();
        if self.parts.iter().any(|p| p.what == what) {
            return;
        }
        if self.parts.len() >= MAX_PARTS {
            self.unknown.get_or_insert_with(|| {
                format!("it reads more than {MAX_PARTS} parts of its files")
            });
            return;
        }
        self.parts.push(Part {
            what,
            text: text.into(),
        });
    }

    /// Notes a task it runs, once per name.
    pub fn runs(&mut self, name: impl Into<String>) {
        let name = name.into();
        if !self.runs.contains(&name) && self.runs.len() < MAX_PARTS {
            self.runs.push(name);
        }
    }

    /// Marks what the definition reads as unknown, keeping the first reason.
    pub fn unknown(&mut self, why: impl Into<String>) {
        if self.unknown.is_none() {
            self.unknown = Some(why.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_kept_once_and_bounded() {
        let mut reads = Reads::default();
        reads.part("variable `A`", "1");
        reads.part("variable `A`", "2");
        assert_eq!(reads.parts.len(), 1);
        for i in 0..=MAX_PARTS {
            reads.part(format!("p{i}"), "");
        }
        assert_eq!(reads.parts.len(), MAX_PARTS);
        assert!(reads.unknown.is_some());
    }
}
