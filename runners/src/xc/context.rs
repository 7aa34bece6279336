//! The file being read: where tasks are finished, named and diagnosed.
use std::collections::HashMap;

use crate::model::Parsed;
use crate::text::LineIndex;

/// The per-file state tasks are finished against.
pub(super) struct Ctx<'a> {
    pub(super) path: &'a str,
    pub(super) dir: &'a str,
    pub(super) lines: LineIndex,
    /// Task names seen so far, lowercased (xc looks tasks up case-insensitively), with lines.
    pub(super) seen: HashMap<String, (String, u32)>,
    pub(super) out: &'a mut Parsed,
    /// The first error for which xc refuses the whole file, in xc's words, with its line.
    pub(super) refused: Option<(u32, String)>,
}

impl Ctx<'_> {
    pub(super) fn diag(&mut self, line: u32, message: String) {
        self.out.diag(self.path, Some(line), message);
    }

    /// Records an error for which xc refuses the whole file (the first one counts).
    pub(super) fn refuse(&mut self, line: u32, why: String) {
        if self.refused.is_none() {
            self.refused = Some((line, why));
        }
    }
}
