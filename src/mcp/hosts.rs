//! `agg mcp --print-config HOST`: the server entry each MCP host needs, in that host's own
//! file format and key names, with where the file lives and the step the host asks for
//! before it starts a project's servers. One row of [`HOSTS`] holds every fact about a
//! host; rendering is a pure function of the row, the scope and the command, so the CLI
//! decides which command starts agg and this module never looks anything up.

use clap::ValueEnum;
use serde_json::{Value, json};

/// MCP hosts agg knows how to configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Host {
    /// Claude Code
    Claude,
    /// Cursor
    Cursor,
    /// VS Code
    Vscode,
    /// Codex CLI
    Codex,
    /// Gemini CLI
    Gemini,
    /// Qwen Code
    Qwen,
    /// opencode
    Opencode,
    /// Zed
    Zed,
    /// Windsurf (user scope only)
    Windsurf,
}

/// Where the entry goes: the repository (shared with everyone who opens it) or the user's
/// own configuration (every project).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// A file in the repository.
    Project,
    /// The user's configuration, for every project.
    User,
}

/// How the host starts agg.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Via {
    /// The installed `agg` binary.
    Agg,
    /// The npm package, through `npx --yes --prefix=/ --package=task-agg agg`: never
    /// anything the project installs (see [`Via::command`]).
    Npx,
    /// The Python package, through `uvx --from task-agg agg`.
    Uvx,
}

impl Via {
    /// The program and arguments that start `agg mcp`; `agg` is the installed binary's
    /// command (`agg`, or its absolute path when PATH finds another one or none).
    ///
    /// `npx -y task-agg` would run the project's own `node_modules/.bin/task-agg` (or a
    /// `node_modules/task-agg` it ships) before anything is listed or allowed, and read the
    /// project's `.npmrc` (a `registry` of its choosing). Naming the package (`--package`)
    /// stops npx from looking for a program of that name in the project, and `--prefix=/`
    /// makes npm look for installed packages and project settings in `/`, which no
    /// repository controls: the package comes from the registry the user configured, into
    /// npx's cache (no `--` before `agg`: some hosts' `mcp add` drop it, and npx passes
    /// everything after the command on anyway). The launcher then drops what npm added to
    /// the environment (the project's `node_modules/.bin` on `PATH`, `npm_config_*`) before
    /// it starts agg.
    pub fn command(self, agg: &str) -> Vec<String> {
        let words: &[&str] = match self {
            Via::Agg => &[agg, "mcp"],
            Via::Npx => &[
                "npx",
                "--yes",
                "--prefix=/",
                "--package=task-agg",
                "agg",
                "mcp",
            ],
            Via::Uvx => &["uvx", "--from", "task-agg", "agg", "mcp"],
        };
        words.iter().map(|w| (*w).to_owned()).collect()
    }
}

/// The shape of a host's configuration file.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// `{"mcpServers": {"agg": {"command", "args"}}}`, with `"type": "stdio"` when `typed`.
    McpServers { typed: bool },
    /// VS Code: `{"servers": {"agg": {"type": "stdio", "command", "args"}}}`.
    Servers,
    /// Codex: `[mcp_servers.agg]` in TOML.
    CodexToml,
    /// opencode: `{"mcp": {"agg": {"type": "local", "command": [...], "enabled": true}}}`.
    Opencode,
    /// Zed: `{"context_servers": {"agg": {"command", "args", "env"}}}`.
    ContextServers,
}

/// Everything agg knows about configuring one host.
struct HostInfo {
    host: Host,
    title: &'static str,
    shape: Shape,
    /// The file in the repository, if the host reads one.
    project: Option<&'static str>,
    /// The user's file.
    user: &'static str,
    /// Whether the host expands `${workspaceFolder}`, so agg is told the project's root
    /// whatever directory the host starts it in.
    workspace_folder: bool,
    /// What the host asks of the user before it starts a project's servers.
    project_step: Option<&'static str>,
    /// What the host asks of the user before it starts a server of the user's file.
    user_step: Option<&'static str>,
    /// The host's own command that writes the entry: `{scope}` and `{command}` are filled
    /// in; `None` when the host has none for that scope.
    add: [Option<&'static str>; 2],
}

const HOSTS: &[HostInfo] = &[
    HostInfo {
        host: Host::Claude,
        title: "Claude Code",
        shape: Shape::McpServers { typed: true },
        project: Some(".mcp.json"),
        user: "~/.claude.json (its top-level \"mcpServers\")",
        workspace_folder: false,
        project_step: Some(
            "Claude Code starts a project's servers only once you approve them: `claude` asks when it \
             first starts in this folder (until then `claude mcp list` says \"Pending approval\"); \
             or list the server in .claude/settings.local.json: {\"enabledMcpjsonServers\": [\"agg\"]}",
        ),
        user_step: None,
        add: [
            Some("claude mcp add --scope project agg -- {command}"),
            Some("claude mcp add --scope user agg -- {command}"),
        ],
    },
    HostInfo {
        host: Host::Cursor,
        title: "Cursor",
        shape: Shape::McpServers { typed: false },
        project: Some(".cursor/mcp.json"),
        user: "~/.cursor/mcp.json",
        workspace_folder: true,
        project_step: None,
        user_step: None,
        add: [None, None],
    },
    HostInfo {
        host: Host::Vscode,
        title: "VS Code",
        shape: Shape::Servers,
        project: Some(".vscode/mcp.json"),
        user: "the profile's mcp.json (command palette: \"MCP: Open User Configuration\"; \
               ~/.config/Code/User/mcp.json on Linux, ~/Library/Application Support/Code/User/mcp.json on macOS)",
        workspace_folder: true,
        project_step: None,
        user_step: None,
        add: [None, Some("code --add-mcp {json}")],
    },
    HostInfo {
        host: Host::Codex,
        title: "Codex",
        shape: Shape::CodexToml,
        project: Some(".codex/config.toml"),
        user: "~/.codex/config.toml (or $CODEX_HOME/config.toml)",
        workspace_folder: false,
        project_step: Some(
            "Codex reads .codex/config.toml only in a trusted project: answer yes when `codex` asks \
             whether to trust this folder (it writes [projects.\"PATH\"] trust_level = \"trusted\" \
             to ~/.codex/config.toml)\n\
             `codex exec` has no one to approve tool calls and fails agg's task_start (\"MCP tool call \
             requires approval\"): add default_tools_approval_mode = \"approve\" to [mcp_servers.agg] \
             there (agg's allowlist still decides what runs)",
        ),
        user_step: Some(
            "`codex exec` has no one to approve tool calls and fails agg's task_start (\"MCP tool call \
             requires approval\"): add default_tools_approval_mode = \"approve\" to [mcp_servers.agg] \
             there (agg's allowlist still decides what runs)",
        ),
        add: [None, Some("codex mcp add agg -- {command}")],
    },
    HostInfo {
        host: Host::Gemini,
        title: "Gemini CLI",
        shape: Shape::McpServers { typed: false },
        project: Some(".gemini/settings.json"),
        user: "~/.gemini/settings.json",
        workspace_folder: false,
        project_step: Some(
            "Gemini CLI starts MCP servers only in a trusted folder (`gemini mcp list` says \
             \"Disabled\" until then): choose \"Trust folder\" when `gemini` asks, or add the \
             folder to ~/.gemini/trustedFolders.json: {\"/path/to/repo\": \"TRUST_FOLDER\"}",
        ),
        user_step: Some(
            "Gemini CLI starts MCP servers, the user's too, only in a trusted folder (`gemini mcp \
             list` says \"Disabled\" until then): choose \"Trust folder\" when `gemini` asks, or add \
             the folder to ~/.gemini/trustedFolders.json: {\"/path/to/repo\": \"TRUST_FOLDER\"}",
        ),
        add: [
            Some("gemini mcp add --scope project agg {command}"),
            Some("gemini mcp add --scope user agg {command}"),
        ],
    },
    HostInfo {
        host: Host::Qwen,
        title: "Qwen Code",
        shape: Shape::McpServers { typed: false },
        project: Some(".qwen/settings.json"),
        user: "~/.qwen/settings.json",
        workspace_folder: false,
        project_step: Some(
            "Qwen Code starts a project's servers only once approved (`qwen mcp list` says \
             \"Pending approval\" until then): run `qwen mcp approve agg` in the repository; the \
             approval is bound to this entry, so approve again after changing it",
        ),
        user_step: None,
        add: [
            Some("qwen mcp add --scope project agg {command}"),
            Some("qwen mcp add --scope user agg {command}"),
        ],
    },
    HostInfo {
        host: Host::Opencode,
        title: "opencode",
        shape: Shape::Opencode,
        project: Some("opencode.json"),
        user: "~/.config/opencode/opencode.json",
        workspace_folder: false,
        project_step: None,
        user_step: None,
        add: [None, None],
    },
    HostInfo {
        host: Host::Zed,
        title: "Zed",
        shape: Shape::ContextServers,
        project: Some(".zed/settings.json"),
        user: "~/.config/zed/settings.json",
        workspace_folder: false,
        project_step: None,
        user_step: None,
        add: [None, None],
    },
    HostInfo {
        host: Host::Windsurf,
        title: "Windsurf",
        shape: Shape::McpServers { typed: false },
        project: None,
        user: "~/.codeium/windsurf/mcp_config.json",
        workspace_folder: false,
        project_step: None,
        user_step: None,
        add: [None, None],
    },
];

fn info(host: Host) -> &'static HostInfo {
    HOSTS
        .iter()
        .find(|row| row.host == host)
        .unwrap_or(&HOSTS[0])
}

/// A host's configuration: the snippet (stdout) and what to do with it (stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// The file's content (JSON or TOML), ready to write or merge.
    pub snippet: String,
    /// Where it goes and any step the host asks for, one instruction a line.
    pub note: String,
}

/// The host has no file for this scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSuchScope {
    /// The host's name.
    pub host: &'static str,
    /// The only file it reads.
    pub file: &'static str,
}

impl std::fmt::Display for NoSuchScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} has no project configuration; it reads MCP servers only from {} (--scope user)",
            self.host, self.file
        )
    }
}

/// The scope used when none is given: the project's file where the host has one.
pub fn default_scope(host: Host) -> Scope {
    if info(host).project.is_some() {
        Scope::Project
    } else {
        Scope::User
    }
}

/// The configuration of `host` for `scope`, starting agg with `command` (program first).
pub fn host_config(
    host: Host,
    scope: Scope,
    command: &[String],
) -> Result<HostConfig, NoSuchScope> {
    let row = info(host);
    let file = match scope {
        Scope::Project => row.project.ok_or(NoSuchScope {
            host: row.title,
            file: row.user,
        })?,
        Scope::User => row.user,
    };
    let mut argv = command.to_vec();
    if row.workspace_folder {
        argv.extend(["--root".to_owned(), "${workspaceFolder}".to_owned()]);
    }
    let snippet = snippet(row.shape, &argv);
    let mut note = match scope {
        Scope::Project => format!(
            "{}: put this in {file} at the repository root (for every project instead: {}, with --scope user)",
            row.title, row.user
        ),
        Scope::User => format!("{}: put this in {file}", row.title),
    };
    note.push_str(", merging it with what the file already holds\n");
    let step = match scope {
        Scope::Project => row.project_step,
        Scope::User => row.user_step,
    };
    if let Some(step) = step {
        note.push_str(step);
        note.push('\n');
    }
    let add = row.add[usize::from(scope == Scope::User)];
    if let Some(add) = add {
        let (program, args) = argv
            .split_first()
            .map_or(("agg", &[][..]), |(p, a)| (p.as_str(), a));
        let entry = json!({"name": "agg", "command": program, "args": args});
        let line = add
            .replace("{command}", &shell_words(&argv))
            .replace("{json}", &shell_words(&[entry.to_string()]));
        note.push_str("or let it write the entry: ");
        note.push_str(&line);
        note.push('\n');
    }
    if !row.workspace_folder {
        note.push_str(
            "agg serves the repository around the directory the host starts it in (add \"--root\", \"DIR\" to the arguments to choose one)\n",
        );
    }
    Ok(HostConfig { snippet, note })
}

/// The file content for `shape` with the server started by `argv`.
fn snippet(shape: Shape, argv: &[String]) -> String {
    let (program, args) = argv
        .split_first()
        .map_or(("agg", &[][..]), |(p, a)| (p.as_str(), a));
    let value: Value = match shape {
        Shape::McpServers { typed: true } => {
            json!({"mcpServers": {"agg": {"type": "stdio", "command": program, "args": args}}})
        }
        Shape::McpServers { typed: false } => {
            json!({"mcpServers": {"agg": {"command": program, "args": args}}})
        }
        Shape::Servers => {
            json!({"servers": {"agg": {"type": "stdio", "command": program, "args": args}}})
        }
        Shape::Opencode => json!({
            "$schema": "https://opencode.ai/config.json",
            "mcp": {"agg": {"type": "local", "command": argv, "enabled": true}}
        }),
        Shape::ContextServers => {
            json!({"context_servers": {"agg": {"command": program, "args": args, "env": {}}}})
        }
        Shape::CodexToml => return codex_toml(program, args),
    };
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// Codex's `[mcp_servers.agg]` table.
fn codex_toml(program: &str, args: &[String]) -> String {
    let quote = |s: &str| toml::Value::String(s.to_owned()).to_string();
    let args: Vec<String> = args.iter().map(|a| quote(a)).collect();
    format!(
        "[mcp_servers.agg]\ncommand = {}\nargs = [{}]\n",
        quote(program),
        args.join(", ")
    )
}

/// `argv` as a POSIX shell would read it back: words with anything but safe characters in
/// single quotes.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            let safe = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,".contains(c));
            if safe {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agg() -> Vec<String> {
        Via::Agg.command("agg")
    }

    #[test]
    fn every_host_has_one_row() {
        for host in Host::value_variants() {
            assert_eq!(
                HOSTS.iter().filter(|row| row.host == *host).count(),
                1,
                "{host:?}"
            );
        }
    }

    #[test]
    fn every_json_snippet_parses_and_names_the_command() {
        for host in Host::value_variants() {
            for via in Via::value_variants() {
                let command = via.command("/opt/agg bin/agg");
                let scope = default_scope(*host);
                let config = host_config(*host, scope, &command).expect("default scope");
                let parsed: Result<Value, _> = serde_json::from_str(&config.snippet);
                let toml: Result<toml::Table, _> = config.snippet.parse();
                assert!(
                    parsed.is_ok() || toml.is_ok(),
                    "{host:?}: {}",
                    config.snippet
                );
                for word in &command {
                    assert!(config.snippet.contains(word.as_str()), "{host:?}: {word}");
                }
            }
        }
    }

    #[test]
    fn windsurf_has_no_project_file() {
        let err = host_config(Host::Windsurf, Scope::Project, &agg()).expect_err("no project");
        assert!(err.to_string().contains("mcp_config.json"), "{err}");
        assert_eq!(default_scope(Host::Windsurf), Scope::User);
    }

    #[test]
    fn a_command_with_spaces_is_quoted_for_the_shell() {
        let config = host_config(
            Host::Claude,
            Scope::Project,
            &Via::Agg.command("/opt/my agg/agg"),
        )
        .expect("claude");
        assert!(
            config
                .note
                .contains("claude mcp add --scope project agg -- '/opt/my agg/agg' mcp"),
            "{}",
            config.note
        );
    }

    #[test]
    fn codex_toml_reads_back_as_the_command() {
        let config =
            host_config(Host::Codex, Scope::User, &Via::Uvx.command("agg")).expect("codex");
        let table: toml::Table = config.snippet.parse().expect("toml");
        let server = &table["mcp_servers"]["agg"];
        assert_eq!(server["command"].as_str(), Some("uvx"));
        let args: Vec<_> = server["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(toml::Value::as_str)
            .collect();
        assert_eq!(args, ["--from", "task-agg", "agg", "mcp"]);
    }
}
