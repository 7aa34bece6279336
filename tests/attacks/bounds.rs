//! Repository files that would cost agg far more than their size: a crafted git index, a
//! task name of tens of kilobytes, a `tox.ini` whose substitutions double. Each is cut or
//! refused with a diagnostic naming the file (and line, where there is one), every other
//! task is still listed, the listing stays within an address space the unbounded reading
//! blew through (`ulimit -v`), and `agg mcp` on the same repository keeps answering within
//! a resident-memory bound.

use std::process::{Command, Output};

use serde_json::{Value, json};

use super::harness::{Attack, text};
use indoc::formatdoc;

/// The address space one `agg` command may take here (`ulimit -v`, KiB): a few times what
/// listing these small repositories takes, well under what each attack cost before its
/// bound (0.9 GB for the index, 470 MB for the long name).
const ADDRESS_SPACE_KIB: u64 = 384 * 1024;

/// The resident memory `agg mcp` may reach on these repositories (KiB).
const SERVER_RSS_KIB: u64 = 128 * 1024;

/// `agg ARGS…` in the repository under [`ADDRESS_SPACE_KIB`] and a two-minute deadline.
fn bounded(attack: &Attack, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec timeout 120 \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_agg"))
        .args(args)
        .current_dir(&attack.root)
        .env("AGG_ALLOWLIST", &attack.allowlist)
        .env("NO_COLOR", "1")
        .output()
        .expect("agg")
}

/// `agg list --json` under the bounds, which must succeed: the table.
fn listed(attack: &Attack) -> (Value, usize) {
    let out = bounded(attack, &["list", "--json"]);
    assert!(
        out.status.success(),
        "agg list --json: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let json = serde_json::from_slice(&out.stdout).expect("JSON");
    (json, out.stdout.len())
}

/// The diagnostics of `file` in a table, as (line, message).
fn diagnostics_of(json: &Value, file: &str) -> Vec<(Option<u64>, String)> {
    json["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["file_path"] == file)
        .map(|d| {
            (
                d["line"].as_u64(),
                d["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The unique names of a table, each cut to 40 characters (for a readable failure).
fn names(json: &Value) -> Vec<String> {
    json["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t["unique_name"]
                .as_str()
                .map(|n| n.chars().take(40).collect())
        })
        .collect()
}

/// `agg mcp` on the repository answers `list_tasks` (with `args`) twice, listing `task`,
/// and stays within [`SERVER_RSS_KIB`]; the first answer.
fn server_answers(attack: &Attack, args: &Value, task: &str) -> Value {
    let mut raw = attack.serve();
    let first = raw.call(1, "list_tasks", args);
    assert!(first["result"]["isError"] != true, "{first}");
    let again = raw.call(2, "list_tasks", &json!({}));
    assert!(text(&again).contains(task), "{again}");
    let rss = raw.peak_rss_kib();
    assert!(rss < SERVER_RSS_KIB, "agg mcp peaked at {rss} KiB");
    first
}

/// A version 4 index of `count` entries, each naming the previous path with `a/` put
/// before its file name (`a/Makefile`, `a/a/Makefile`, …): 74 bytes an entry, the path two
/// bytes longer each time, so 1.5 MB names paths of 40 KB.
fn growing_index(count: u32) -> Vec<u8> {
    let mut out = b"DIRC".to_vec();
    out.extend(4u32.to_be_bytes());
    out.extend(count.to_be_bytes());
    for i in 0..count {
        out.extend([0u8; 40 + 20]);
        out.extend(0xfffu16.to_be_bytes());
        out.push(if i == 0 { 0 } else { 8 });
        out.extend(b"a/Makefile\0");
    }
    out.extend([0u8; 20]);
    out
}

#[test]
fn a_crafted_git_index_is_refused_and_the_listing_goes_on() {
    let attack = Attack::new(&[
        ("Makefile", "build:\n\t@echo building\n"),
        (".gitignore", "ignored/\n"),
        (
            "ignored/notes.txt",
            "an ignored file, so the index is read\n",
        ),
    ]);
    std::fs::create_dir(attack.root.join(".git")).expect("mkdir");
    let index = growing_index(20_271);
    assert!(index.len() > 1_500_000);
    std::fs::write(attack.root.join(".git/index"), &index).expect("index");
    let (json, _) = listed(&attack);
    assert_eq!(names(&json), ["build"]);
    let said = diagnostics_of(&json, ".git/index");
    assert!(
        said.len() == 1 && said[0].1.contains("longer than 4096 bytes"),
        "{said:?}"
    );
    server_answers(&attack, &json!({}), "build");
}

#[test]
fn an_overlong_task_name_is_left_out_and_suggestions_stay_cheap() {
    // 40 KB of one dashed name: 20,000 words, each a prefix of the next.
    let long = "a-".repeat(20_000);
    let attack = Attack::new(&[(
        "package.json",
        &formatdoc!(
            "
                {{
                  \"name\": \"p\",
                  \"scripts\": {{
                    \"{long}\": \"echo MARKER\",
                    \"test\": \"echo tested\"
                  }}
                }}
            "
        ),
    )]);
    let (json, _) = listed(&attack);
    assert_eq!(names(&json), ["test"]);
    let said = diagnostics_of(&json, "package.json");
    assert!(
        said.len() == 1
            && said[0].0 == Some(4)
            && said[0].1.contains("is left out: its name of 40000 bytes"),
        "{said:?}"
    );
    // A mistyped query gets its suggestion, from the command line and from the server.
    let out = bounded(&attack, &["list", "-q", "tset"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("test")
            || String::from_utf8_lossy(&out.stdout).contains("test"),
        "{out:?}"
    );
    let found = server_answers(&attack, &json!({"query": "tset"}), "test");
    assert_eq!(
        found["result"]["structuredContent"]["suggestions"],
        json!(["test"]),
        "{found}"
    );
    // The name cannot be run or described through agg: it is not in the table.
    let mut raw = attack.serve();
    let described = raw.call(1, "describe_task", &json!({"unique_name": long}));
    assert!(described["result"]["isError"] == true, "{described}");
    assert!(!attack.marked());
}

#[test]
fn a_tox_ini_whose_substitutions_double_lists_within_a_budget() {
    // 800 bytes: 1,024 environments from ten two-way factors, each described by a chain of
    // references that doubles 29 times.
    let chain: String = (1..30)
        .map(|i| format!("a{i} = {{[x]a{0}}}{{[x]a{0}}}\n", i + 1))
        .collect::<Vec<_>>()
        .concat();
    let factors: Vec<String> = (0..10).map(|i| format!("{{a{i},b{i}}}")).collect();
    let ini = formatdoc!(
        "
            [tox]
            env_list = {}

            [x]
            {chain}a30 = 0123456789abcdef

            [testenv]
            description = {{[x]a1}}
        ",
        factors.join("-")
    );
    assert!(ini.len() < 1024, "{} bytes", ini.len());
    let attack = Attack::new(&[("tox.ini", &ini), ("Makefile", "build:\n\t@true\n")]);
    let (json, size) = listed(&attack);
    let tasks = json["tasks"].as_array().cloned().unwrap_or_default();
    assert_eq!(tasks.len(), 1025);
    // Unbounded, every description was 64 KiB: 34 MB of JSON.
    assert!(size < 2 * 1024 * 1024, "{size} bytes of JSON");
    assert!(
        tasks
            .iter()
            .all(|t| t["description"].as_str().is_none_or(|d| d.len() <= 1024))
    );
    let said = diagnostics_of(&json, "tox.ini");
    assert!(
        said.iter()
            .any(|(line, m)| *line == Some(37)
                && m.contains("tox substitutions stop at `description`")),
        "{said:?}"
    );
    server_answers(&attack, &json!({"runner": "tox", "limit": 5}), "build");
}
