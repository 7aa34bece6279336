//! Services `agg run --until-ready` leaves running are seen by the same commands as what
//! agents run: `agg ps` lists them (pid, state, ports), `agg logs` shows their output and
//! `agg stop` ends their whole process tree; a pid the system gave to another process since
//! is never taken for the service.

use std::path::Path;
use std::time::Duration;

use crate::common::{alive, eventually, repo};
use crate::test::Test;

const MAKEFILE: &str = "serve:\n\t@echo serving; python3 -m http.server 0 --bind 127.0.0.1\n";

/// A repository and the directories agg keeps its state in, all of the test's own.
struct Stand {
    repo: tempfile::TempDir,
    cache: tempfile::TempDir,
    runtime: tempfile::TempDir,
}

impl Stand {
    fn new() -> Stand {
        Stand {
            repo: repo(&[("Makefile", MAKEFILE)]),
            cache: tempfile::tempdir().expect("cache"),
            runtime: tempfile::tempdir().expect("runtime"),
        }
    }

    fn agg<const N: usize>(&self, args: [&str; N]) -> crate::test::Output {
        Test::at(self.repo.path())
            .args(args)
            .env("XDG_STATE_HOME", self.cache.path())
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .run()
    }

    /// Starts the server; its run id and pid.
    fn serve(&self) -> (String, u32, Ended) {
        let out = self.agg(["run", "serve", "--until-ready"]).success();
        let run_id = out
            .stderr
            .split("`agg ps` lists it as ")
            .nth(1)
            .and_then(|s| s.split(';').next())
            .unwrap_or_else(|| panic!("run id in: {}", out.stderr))
            .to_owned();
        let pid = crate::common::until_ready_pid(&out.stderr);
        (run_id, pid, Ended(pid))
    }

    /// The row `agg ps` prints for the job `run_id`.
    fn ps_row(&self, run_id: &str) -> String {
        let ps = self.agg(["ps"]).success();
        ps.stdout
            .lines()
            .find(|l| l.starts_with(run_id))
            .map_or_else(|| panic!("{run_id} in: {}", ps.stdout), str::to_owned)
    }

    fn record(&self) -> std::path::PathBuf {
        let dir = self.runtime.path().join("agg/services");
        std::fs::read_dir(&dir)
            .expect("records")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .unwrap_or_else(|| panic!("no record in {}", dir.display()))
    }
}

/// Ends a process group left running on purpose, whether the test passes or not.
struct Ended(u32);

impl Drop for Ended {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.0) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

#[tokio::test]
async fn a_service_left_by_agg_run_is_listed_followed_and_stopped() {
    require!("make", "python3");
    let stand = Stand::new();
    let (run_id, pid, _group) = stand.serve();

    let row = stand.ps_row(&run_id);
    assert!(row.contains(" serve "), "{row}");
    assert!(row.contains(" running "), "{row}");
    assert!(row.contains(&format!(" {pid} ")), "{row}");
    assert!(row.contains("agg run --until-ready, port "), "{row}");

    let json = stand.agg(["ps", "--json"]).success().json();
    let service = json
        .as_array()
        .and_then(|servers| servers.iter().find(|s| s["by"] == "agg run"))
        .map_or_else(|| panic!("{json}"), |s| s["jobs"][0].clone());
    assert_eq!(service["run_id"], run_id.as_str());
    assert_eq!(service["pid"], pid);
    let port = service["ports"][0]
        .as_u64()
        .and_then(|p| u16::try_from(p).ok())
        .expect("a port");
    // The port ps shows is the one the server answers on.
    let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    std::io::Write::write_all(&mut conn, b"GET /ps-saw-this HTTP/1.0\r\n\r\n").expect("get");
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut conn, &mut answer);
    assert!(answer.starts_with("HTTP/1.0 404"), "{answer}");

    let logs = stand.agg(["logs", &run_id]).success();
    logs.stdout_has("serving\n");
    logs.stdout_has("Serving HTTP on 127.0.0.1");
    let log_path = service["log"].as_str().expect("log").to_owned();
    eventually(Duration::from_secs(5), "the request in the log", || {
        std::fs::read_to_string(&log_path).is_ok_and(|l| l.contains("/ps-saw-this"))
    })
    .await;
    let tail = stand.agg(["logs", &run_id, "-n", "1"]).success();
    assert_eq!(tail.stdout.lines().count(), 1, "{}", tail.stdout);
    tail.stdout_has("GET /ps-saw-this");

    let stop = stand.agg(["stop", &run_id]).success();
    assert_eq!(
        stop.stdout,
        format!("{run_id} (serve) stopped: by SIGTERM\n")
    );
    assert!(!alive(pid), "the server is gone");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "nothing listens on {port} any more"
    );
    let ps = stand.agg(["ps", "--history"]).success();
    let row_says = |start: &str, part: &str| {
        ps.stdout
            .lines()
            .any(|l| l.starts_with(start) && l.contains(part))
    };
    assert!(row_says(&run_id, " stopped "), "{}", ps.stdout);
    assert!(
        row_says("serve ", "■ stopped"),
        "the stop is in the run history: {}",
        ps.stdout
    );
    let again = stand.agg(["stop", &run_id]).success();
    again.stdout_has("stopped: already");
    let unknown = stand.agg(["logs", "no-such-run"]).code(2);
    assert!(
        unknown
            .stderr
            .contains("no running `agg mcp` of yours has a job `no-such-run`"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn a_record_whose_pid_now_names_another_process_stops_nothing() {
    require!("make", "python3");
    let stand = Stand::new();
    let (run_id, pid, _group) = stand.serve();
    // As if the service had ended and its pid gone to a process started at another time.
    let path = stand.record();
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    let started = record["pid_started"]
        .as_u64()
        .expect("a start time on Linux");
    record["pid_started"] = serde_json::json!(started + 1);
    std::fs::write(&path, record.to_string()).expect("write");

    let row = stand.ps_row(&run_id);
    assert!(row.contains(" ended "), "{row}");
    let stop = stand.agg(["stop", &run_id]).success();
    stop.stdout_has("stopped: already");
    assert!(alive(pid), "the other process was left alone");

    // The record of a service that ended a day ago goes.
    let two_days = std::time::SystemTime::now() - Duration::from_secs(2 * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(two_days))
        .expect("age the record");
    let ps = stand.agg(["ps"]).success();
    ps.stdout_lacks(&run_id);
    assert!(!path.exists(), "the old record is removed");
}

#[test]
fn a_broken_record_is_skipped_and_the_others_are_listed() {
    require!("make", "python3");
    let stand = Stand::new();
    let (run_id, _pid, _group) = stand.serve();
    let dir = stand.runtime.path().join("agg/services");
    std::fs::write(dir.join("0000000000000000-1.json"), "{not json").expect("write");
    std::fs::write(dir.join("0000000000000000-2.json"), vec![b' '; 100_000]).expect("write");
    let ps = stand.agg(["ps", "--all"]).success();
    ps.stdout_has(&run_id);
    assert_eq!(
        ps.stdout.lines().count(),
        2,
        "a header and the one service: {}",
        ps.stdout
    );
    assert!(Path::new(&dir).is_dir());
}
