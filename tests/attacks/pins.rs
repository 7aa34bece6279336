//! Attacks through what an MCP client sends: pins.
