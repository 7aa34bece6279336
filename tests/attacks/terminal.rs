//! Terminal injection: control characters, bidi overrides and newlines in names, descriptions, directories and output.
