//! xc-style Markdown tasks: the tasks section of a `README.md`, one task per heading in it.
//!
//! Follows xc's documented task syntax (<https://xcfile.dev/task-syntax/>): a tasks heading
//! (named `Tasks`, or marked by `<!-- xc-heading -->`), tasks one level below it, attribute
//! lines (`Requires:`, `Env:`, `Inputs:`, `Dir:`, `Run:`, `RunDeps:`) and one code block as the
//! script. The Markdown is read with pulldown-cmark, so headings, code blocks and line endings
//! mean what the Markdown spec says, not what xc's line scanner happens to see.
//!
//! The parts: [`markdown`] (the document as headings, code blocks and lines), [`context`]
//! (the file being read and its diagnostics), [`draft`] (one task as its body is read) and
//! [`attributes`] (the attribute lines).

use std::collections::HashMap;

use crate::files::file_name;
use crate::files::parent;
use crate::model::Adapter;
use crate::model::{Parsed, Source};
use crate::text::LineIndex;

mod attributes;
mod context;
mod draft;
mod markdown;

use attributes::trim_marks;
use context::Ctx;
use draft::Draft;
use markdown::{Block, Blocks, may_hold_tasks, normalize_newlines};

/// The xc adapter: `README.md` files whose tasks section lists xc tasks.
pub const ADAPTER: Adapter = Adapter {
    name: "xc",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

fn candidate(path: &str) -> Option<u8> {
    (file_name(path) == "README.md").then_some(0)
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    // Most READMEs are prose: skip the Markdown parser unless a tasks section is possible.
    if !may_hold_tasks(src.text) {
        return out;
    }
    let text = normalize_newlines(src.text);
    let mut blocks = Blocks::new(&text);

    let mut marked = false;
    let root = loop {
        match blocks.next_block(false) {
            None => return out,
            Some(Block::Heading { level, text, .. }) => {
                if marked || trim_marks(&text).eq_ignore_ascii_case("tasks") {
                    break level;
                }
                marked = false;
            }
            Some(Block::Marker) => marked = true,
            Some(_) => marked = false,
        }
    };

    let mut ctx = Ctx {
        path: src.path,
        dir: parent(src.path),
        lines: LineIndex::new(&text),
        seen: HashMap::new(),
        out: &mut out,
        refused: None,
    };
    let mut current: Option<Draft> = None;
    while let Some(block) = blocks.next_block(current.is_some()) {
        match block {
            Block::Heading { level, .. } if level <= root => break,
            Block::Heading {
                level,
                text,
                offset,
            } if level == root + 1 => {
                if let Some(done) = current.take() {
                    done.finish(&mut ctx);
                }
                current = Some(Draft::new(trim_marks(&text), ctx.lines.line(offset)));
            }
            Block::Paragraph(lines) => {
                if let Some(task) = current.as_mut() {
                    task.paragraph(&lines, &mut ctx);
                }
            }
            Block::Code(code) => {
                if let Some(task) = current.as_mut() {
                    task.code(&code, &text, &mut ctx);
                }
            }
            // Deeper headings belong to the task body (as in xc); the rest is not xc syntax.
            Block::Heading { .. } | Block::Marker | Block::Other => {}
        }
    }
    if let Some(done) = current {
        done.finish(&mut ctx);
    }
    // xc stops at its first parse error and runs nothing from the file: neither does agg.
    if let Some((line, why)) = ctx.refused.take() {
        ctx.diag(
            line,
            format!("xc refuses this file (xc parse error: {why}); none of its tasks are listed"),
        );
        ctx.out.tasks.clear();
    }
    out
}

#[cfg(test)]
mod tests;
