//! `agg mcp --print-config CLIENT`: the exact configuration each MCP client needs.

use clap::ValueEnum;

/// MCP clients agg knows how to configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Client {
    /// Claude Code (`claude mcp add`, or a project `.mcp.json`).
    Claude,
    /// Cursor (`.cursor/mcp.json`).
    Cursor,
    /// VS Code (`.vscode/mcp.json`).
    Vscode,
    /// `OpenAI` Codex CLI (`~/.codex/config.toml`).
    Codex,
}

/// The command that starts agg: `agg` when that is what PATH finds, else the absolute path
/// of this binary, so the snippet works as printed.
fn program() -> String {
    let me = std::env::current_exe().ok();
    let on_path = which::which("agg").ok();
    match (me, on_path) {
        (Some(me), Some(found))
            if std::fs::canonicalize(&found).ok() == std::fs::canonicalize(&me).ok() =>
        {
            "agg".to_owned()
        }
        (Some(me), _) => me.display().to_string(),
        (None, _) => "agg".to_owned(),
    }
}

/// The configuration snippet for `client`, with instructions on where it goes.
pub fn config_snippet(client: Client) -> String {
    let agg = program();
    let json_cmd = serde_json::to_string(&agg).unwrap_or_else(|_| "\"agg\"".to_owned());
    match client {
        Client::Claude => format!(
            "# Claude Code: add agg for this project (writes .mcp.json, share it with your team):\n\
             claude mcp add --scope project agg -- {agg} mcp\n\
             \n\
             # or put this in .mcp.json at the repository root:\n\
             {{\n  \"mcpServers\": {{\n    \"agg\": {{ \"command\": {json_cmd}, \"args\": [\"mcp\"] }}\n  }}\n}}\n"
        ),
        Client::Cursor => format!(
            "// Cursor: .cursor/mcp.json in the repository (or ~/.cursor/mcp.json for every project)\n\
             {{\n  \"mcpServers\": {{\n    \"agg\": {{\n      \"command\": {json_cmd},\n      \"args\": [\"mcp\", \"--root\", \"${{workspaceFolder}}\"]\n    }}\n  }}\n}}\n"
        ),
        Client::Vscode => format!(
            "// VS Code: .vscode/mcp.json in the repository\n\
             {{\n  \"servers\": {{\n    \"agg\": {{\n      \"type\": \"stdio\",\n      \"command\": {json_cmd},\n      \"args\": [\"mcp\", \"--root\", \"${{workspaceFolder}}\"]\n    }}\n  }}\n}}\n"
        ),
        Client::Codex => format!(
            "# Codex: ~/.codex/config.toml (or run: codex mcp add agg -- {agg} mcp)\n\
             [mcp_servers.agg]\n\
             command = {json_cmd}\n\
             args = [\"mcp\"]\n"
        ),
    }
}
