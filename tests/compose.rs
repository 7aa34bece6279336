//! Docker Compose services. There is no Docker daemon here, so no service can start: the
//! exact argv, and which program runs it (`docker compose` only when Docker's Compose plugin
//! is installed, else `docker-compose`), are checked with stand-ins that print what they
//! got; the real `docker-compose` (Debian) is driven as far as it goes without a daemon.

use std::path::Path;

use crate::common::verbatim::{assert_tricky_args_arrive, print_args_program};
use crate::run::argv_json;
use crate::test::{Test, assert_runs_as, task, write_executable};
use indoc::indoc;

const STACK: &str = "\
services:
  web:
    build: ./web
    depends_on: [db]
  db:
    image: postgres:16
";

const OVERRIDE: &str = indoc! {"
    services:
      db:
        image: postgres:17
"};

/// Directories for stand-ins: `bin/` (put on `PATH`) and a Docker config directory.
struct Stand {
    dir: tempfile::TempDir,
}

impl Stand {
    /// Stand-ins at `rels` (below the directory), or `None` where the machine's own Compose
    /// plugin would interfere: the test then skips.
    fn of(rels: &[&str]) -> Option<Stand> {
        if Stand::machine_interferes() {
            return None;
        }
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join("bin")).expect("bin");
        std::fs::create_dir_all(dir.path().join("docker")).expect("config");
        for rel in rels {
            write_executable(&dir.path().join(rel), print_args_program());
        }
        Some(Stand { dir })
    }

    /// Only the stand-ins: the machine's own `docker` or `docker-compose` stay out of sight.
    fn path(&self) -> String {
        self.dir.path().join("bin").display().to_string()
    }

    fn agg(&self, root: &Path) -> Test {
        Test::at(root)
            .env("PATH", self.path())
            .env("DOCKER_CONFIG", self.dir.path().join("docker"))
    }

    /// Whether the machine itself has a Compose plugin where Docker looks for it, which
    /// would make the stand-in `docker` count as having it.
    fn machine_interferes() -> bool {
        let system = [
            "/usr/local/lib/docker/cli-plugins",
            "/usr/local/libexec/docker/cli-plugins",
            "/usr/lib/docker/cli-plugins",
            "/usr/libexec/docker/cli-plugins",
        ]
        .iter()
        .any(|d| Path::new(d).join("docker-compose").exists());
        if system {
            crate::common::skipped(
                "docker-compose installed system-wide (the test needs a PATH without it)",
            );
        }
        system
    }
}

fn stack() -> Test {
    Test::new()
        .write("compose.yaml", STACK)
        .write("compose.override.yml", OVERRIDE)
}

/// The table agg lists for the stack with the stand-ins.
fn listed(test: &Test, stand: &Stand) -> serde_json::Value {
    stand.agg(test.root()).list_json()
}

/// The arguments of `up SERVICE` with both files of the stack.
fn up(service: &str) -> [&str; 6] {
    [
        "-f",
        "compose.yaml",
        "-f",
        "compose.override.yml",
        "up",
        service,
    ]
}

#[test]
fn with_the_compose_plugin_docker_compose_runs_the_service() {
    let Some(stand) = Stand::of(&["bin/docker", "docker/cli-plugins/docker-compose"]) else {
        return;
    };
    let test = stack();
    let json = listed(&test, &stand);
    let command = "docker compose -f compose.yaml -f compose.override.yml up web";
    assert_eq!(assert_runs_as(&json, "web", command)["service"], true);
    let compose_up_web: Vec<&str> = ["compose"].into_iter().chain(up("web")).collect();
    assert_tricky_args_arrive(stand.agg(test.root()), "web", &compose_up_web);
    let out = stand.agg(test.root()).args(["run", "down"]).run().success();
    assert_eq!(
        argv_json(&out.stdout),
        [
            "compose",
            "-f",
            "compose.yaml",
            "-f",
            "compose.override.yml",
            "down"
        ]
    );
}

#[test]
fn docker_without_the_plugin_runs_the_standalone_docker_compose() {
    let Some(stand) = Stand::of(&["bin/docker", "bin/docker-compose"]) else {
        return;
    };
    let test = stack();
    let command = "docker-compose -f compose.yaml -f compose.override.yml up db";
    assert_runs_as(&listed(&test, &stand), "db", command);
    let out = stand
        .agg(test.root())
        .args(["run", "db", "--", "a b"])
        .run()
        .success();
    let mut expected = up("db").to_vec();
    expected.push("a b");
    assert_eq!(argv_json(&out.stdout), expected);
}

#[test]
fn docker_alone_is_not_compose() {
    let Some(stand) = Stand::of(&["bin/docker"]) else {
        return;
    };
    let test = stack();
    assert_eq!(
        task(&listed(&test, &stand), "web")["runner_available"],
        false
    );
    stand
        .agg(test.root())
        .args(["run", "web"])
        .run()
        .fails()
        .stderr_has("not installed")
        .stderr_has("Compose plugin");
}

#[test]
fn the_real_docker_compose_reads_the_file_agg_names() {
    require!("docker-compose");
    // A compose file docker-compose 1.x understands; `down` touches nothing even where a
    // daemon runs.
    let test = Test::new().write(
        "deploy/docker-compose.yml",
        indoc! {"
            version: \"3.8\"
            services:
              cache:
                image: redis:7
        "},
    );
    let names = crate::test::names(&Test::at(test.root()).list_json());
    assert_eq!(names, ["deploy/down", "deploy/up", "deploy/cache"]);
    let out = Test::at(test.root()).args(["run", "deploy/down"]).run();
    // Without a daemon, compose gets as far as asking Docker for its version: it found
    // and read the file.
    assert!(
        out.code == Some(0) || out.stderr.contains("API version") || out.stderr.contains("daemon"),
        "{:?} {}",
        out.code,
        out.stderr
    );
    // A broken file is refused by compose itself, before any daemon is asked.
    let broken = Test::new().write(
        "docker-compose.yml",
        indoc! {"
            version: \"3.8\"
            services:
              cache:
                image: redis:7
                ports: 6379
        "},
    );
    Test::at(broken.root())
        .args(["run", "cache"])
        .run()
        .fails()
        .stderr_has("ports");
}
