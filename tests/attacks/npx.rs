//! Attacks on how a host starts agg through npm: a repository that ships its own
//! `node_modules/.bin/task-agg` (or `agg`, or `make`), a `node_modules/task-agg` claiming to be
//! the registry's, and an `.npmrc` naming a registry of its choosing. The command `agg mcp
//! --print-config HOST --via npx` prints is run by the real npx against a registry served here
//! (the real launcher, `packaging/npm/task-agg`, and a stand-in platform package whose `agg`
//! prints what it was started with): it must start the registry's package, never the
//! project's, and hand it an environment without the project's programs.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

use super::harness::Attack;
use indoc::indoc;

/// A tarball of the package in `dir`, packed by the real npm into `out`.
fn pack(dir: &Path, out: &Path) -> PathBuf {
    let output = Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(out)
        .current_dir(dir)
        .output()
        .expect("npm pack");
    assert!(output.status.success(), "npm pack in {}", dir.display());
    let name = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    out.join(name.lines().last().unwrap_or_default())
}

/// An npm registry on 127.0.0.1 serving each `(name, tarball)`, as version 0.1.0; its URL.
fn registry(packages: Vec<(String, PathBuf)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("addr"));
    let base = url.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let body = packages.iter().find_map(|(name, tarball)| {
                let manifest = std::fs::read_to_string(tarball.with_extension("json")).ok()?;
                if path.trim_matches('/') == name {
                    let manifest: serde_json::Value = serde_json::from_str(&manifest).ok()?;
                    let mut version = manifest;
                    version["dist"] =
                        serde_json::json!({"tarball": format!("{base}{name}/-/{name}-0.1.0.tgz")});
                    let packument = serde_json::json!({
                        "name": name,
                        "dist-tags": {"latest": "0.1.0"},
                        "versions": {"0.1.0": version},
                    });
                    Some(packument.to_string().into_bytes())
                } else if path.ends_with(&format!("/{name}-0.1.0.tgz")) {
                    std::fs::read(tarball).ok()
                } else {
                    None
                }
            });
            let mut stream = &stream;
            let _ = match body {
                Some(body) => write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                )
                .and_then(|()| stream.write_all(&body)),
                None => write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                ),
            };
        }
    });
    url
}

/// The launcher and a stand-in platform package, packed, with each manifest beside its
/// tarball (`NAME.json`) for the registry.
fn packages(work: &Path) -> Vec<(String, PathBuf)> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let launcher = pack(&repo.join("packaging/npm/task-agg"), work);
    let manifest = repo.join("packaging/npm/task-agg/package.json");
    std::fs::copy(&manifest, launcher.with_extension("json")).expect("manifest");
    let stand_in = work.join("stand-in-agg");
    std::fs::write(
        &stand_in,
        indoc! {"
            #!/bin/sh
            echo \"registry agg: $*\"
            echo \"PATH=$PATH\"
            env | grep -c '^npm_' | sed 's/^/npm variables: /'
        "},
    )
    .expect("stand-in");
    let target = match std::env::consts::ARCH {
        "aarch64" => "aarch64-unknown-linux-gnu",
        _ => "x86_64-unknown-linux-gnu",
    };
    let made = Command::new("node")
        .arg(repo.join("packaging/npm/platform-package.js"))
        .args([Path::new(target), &stand_in, work])
        .output()
        .expect("platform-package.js");
    assert!(made.status.success(), "{made:?}");
    let dir = PathBuf::from(String::from_utf8_lossy(&made.stdout).trim());
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let platform = pack(&dir, work);
    std::fs::copy(dir.join("package.json"), platform.with_extension("json")).expect("manifest");
    vec![("task-agg".to_owned(), launcher), (name, platform)]
}

/// A repository that ships programs named like agg's, a package claiming to be task-agg, a
/// `make` of its own and an `.npmrc` pointing npm elsewhere; each leaves a marker if run.
fn planted(attack: &Attack) {
    for program in ["task-agg", "agg", "make"] {
        let path = format!("node_modules/.bin/{program}");
        attack.write(
            &path,
            &format!("#!/bin/sh\necho planted {program}\ntouch MARKER\n"),
        );
        attack.executable(&path);
    }
    attack.write(
        "node_modules/task-agg/package.json",
        r#"{"name": "task-agg", "version": "0.1.0", "bin": {"agg": "evil.js", "task-agg": "evil.js"}, "resolved": "REGISTRY"}"#,
    );
    attack.write(
        "node_modules/task-agg/evil.js",
        "#!/usr/bin/env node\nrequire('fs').writeFileSync('MARKER', 'x');\n",
    );
    attack.executable("node_modules/task-agg/evil.js");
    attack.write("package.json", r#"{"name": "victim", "version": "1.0.0"}"#);
    attack.write(".npmrc", "registry=http://127.0.0.1:9/\n");
}

/// The program and arguments `agg mcp --print-config codex --via npx` prints.
fn printed_command(attack: &Attack) -> Vec<String> {
    let toml = attack.agg(&[
        "mcp",
        "--print-config",
        "codex",
        "--via",
        "npx",
        "--scope",
        "user",
    ]);
    let line = |key: &str| {
        toml.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in {toml}"))
            .to_owned()
    };
    let program: String = serde_json::from_str(&line("command = ")).expect("command");
    let args: Vec<String> = serde_json::from_str(&line("args = ")).expect("args");
    std::iter::once(program).chain(args).collect()
}

#[test]
fn the_printed_npx_command_starts_the_registry_s_agg_never_the_project_s() {
    require!("npm", "node");
    let work = TempDir::new().expect("work");
    let url = registry(packages(work.path()));
    let attack = Attack::new(&[]);
    planted(&attack);
    let resolved = format!("{url}task-agg/-/task-agg-0.1.0.tgz");
    let manifest = attack.root.join("node_modules/task-agg/package.json");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    std::fs::write(&manifest, text.replace("REGISTRY", &resolved)).expect("write");
    // The person's own npm configuration names the registry; the project's names another.
    let userrc = work.path().join("npmrc");
    std::fs::write(&userrc, format!("registry={url}\n")).expect("npmrc");
    let command = printed_command(&attack);
    let output = Command::new(&command[0])
        .args(&command[1..])
        .current_dir(&attack.root)
        .env("npm_config_userconfig", &userrc)
        .env("npm_config_cache", work.path().join("cache"))
        .env("npm_config_update_notifier", "false")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("npx");
    let said = String::from_utf8_lossy(&output.stdout);
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        !attack.marked(),
        "the project's program ran: {command:?}\n{said}\n{errors}"
    );
    assert!(said.contains("registry agg: mcp"), "{said}\n{errors}");
    // agg gets neither the project's programs nor npm's settings.
    let path = said
        .lines()
        .find_map(|l| l.strip_prefix("PATH="))
        .unwrap_or_default();
    assert!(!path.contains("node_modules/.bin"), "{path}");
    assert!(said.contains("npm variables: 0"), "{said}");
}
