//! XML read with roxmltree, for the formats that are XML (Maven's `pom.xml`, `JetBrains` run
//! configurations): a read-only tree with byte positions. A DOCTYPE is refused before any
//! entity is read (roxmltree's `allow_dtd: false`), so an entity bomb costs nothing, and the
//! node count is capped.

use roxmltree::{Document, ParsingOptions};

use super::ParseError;
use crate::text::LineIndex;

/// Nodes one document may hold: far above any real POM or run configuration.
const MAX_NODES: u32 = 1_000_000;

/// Reads `text` as XML, or says where and why it cannot; `what` names the file in the
/// DOCTYPE refusal (`a POM`).
pub(crate) fn read_xml<'i>(text: &'i str, what: &str) -> Result<Document<'i>, ParseError> {
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text, options).map_err(|err| problem(text, &err, what))
}

/// A diagnostic's line and message for an XML error.
fn problem(text: &str, err: &roxmltree::Error, what: &str) -> ParseError {
    if matches!(err, roxmltree::Error::DtdDetected) {
        let line = text
            .find("<!DOCTYPE")
            .map(|at| LineIndex::new(&text[..at]).line(at));
        return ParseError {
            line,
            message: format!(
                "{what} may not have a DOCTYPE: agg does not read DTDs or expand their entities"
            ),
        };
    }
    let row = err.pos().row;
    let message = err.to_string();
    // roxmltree ends most messages with ` at ROW:COL`; the line travels on its own.
    let message = message
        .rfind(" at ")
        .filter(|&at| {
            message[at + 4..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':')
        })
        .map_or(message.as_str(), |at| &message[..at]);
    ParseError {
        line: Some(row).filter(|&r| r > 0),
        message: format!("invalid XML: {message}"),
    }
}
