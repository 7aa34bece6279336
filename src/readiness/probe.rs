//! Waiting for readiness: when a started service can take requests.
//!
//! [`wait`] watches one job of the engine until a [`Probe`] holds, the job ends, or the probe's timeout
//! passes. Output is matched as it arrives (the job's progress channel wakes the waiter on
//! every chunk; nothing polls it). Ports, URLs and the listening sockets of the job's
//! process group are looked at every [`PORT_INTERVAL`], and only while someone waits:
//! once the call returns, readiness costs nothing.

use std::collections::BTreeSet;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use regex::{Regex, RegexSet};
use schemars::JsonSchema;
use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::engine::Job;
use crate::engine::ReadRequest;

/// How often ports and URLs are tried while a caller waits for readiness.
pub const PORT_INTERVAL: Duration = Duration::from_millis(250);
/// How long one TCP connect or HTTP request of a probe may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(1);
/// How long a readiness message may wait for the URL a framework prints after it.
const URL_GRACE: Duration = Duration::from_millis(300);
/// URLs reported at most.
const MAX_URLS: usize = 8;

/// What makes a job ready. The first condition that holds wins.
#[derive(Debug, Clone, Default)]
pub struct Probe {
    /// A line of output (stdout or stderr, colours removed) matching this.
    pub line: Option<Regex>,
    /// Lines matching any of these (known framework messages).
    pub banners: Option<&'static RegexSet>,
    /// A TCP port on the local host accepting connections.
    pub port: Option<u16>,
    /// An `http://` URL answering with a status below 500.
    pub url: Option<HttpUrl>,
    /// A TCP port starting to listen in the job's own process group (Linux).
    pub listening: bool,
    /// How long to wait at most.
    pub timeout: Duration,
}

/// An `http://host:port/path` URL, parsed for a plain HTTP/1.0 probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    /// The URL as given.
    pub text: String,
    host: String,
    port: u16,
    path: String,
}

impl HttpUrl {
    /// Parses `http://host[:port][/path]`. `https` is refused: the probe speaks plain HTTP.
    pub fn parse(text: &str) -> Result<HttpUrl, UrlError> {
        let bad = |why| UrlError {
            url: text.to_owned(),
            why,
        };
        let rest = text
            .strip_prefix("http://")
            .ok_or_else(|| bad(BadUrl::NotHttp))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, p) = v6
                .split_once(']')
                .ok_or_else(|| bad(BadUrl::UnclosedBracket))?;
            (h, p.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        let port = match port {
            Some(p) => p.parse().map_err(|_| bad(BadUrl::NotAPort(p.to_owned())))?,
            None => 80,
        };
        if host.is_empty() {
            return Err(bad(BadUrl::NoHost));
        }
        Ok(HttpUrl {
            text: text.to_owned(),
            host: host.to_owned(),
            port,
            path: path.to_owned(),
        })
    }
}

/// Why a readiness URL cannot be probed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlError {
    /// The URL as given.
    pub url: String,
    /// What is wrong with it.
    pub why: BadUrl,
}

/// What is wrong with a readiness URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadUrl {
    /// Not `http://` (the probe speaks plain HTTP).
    NotHttp,
    /// `[` opens an IPv6 host that no `]` closes.
    UnclosedBracket,
    /// What follows the host's `:` is not a port number.
    NotAPort(String),
    /// Nothing between `http://` and the port or path.
    NoHost,
}

impl std::fmt::Display for UrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = &self.url;
        match &self.why {
            BadUrl::NotHttp => write!(f, "`{url}`: only http:// URLs can be probed"),
            BadUrl::UnclosedBracket => write!(f, "`{url}`: unclosed [ in the host"),
            BadUrl::NotAPort(port) => write!(f, "`{url}`: `{port}` is not a port"),
            BadUrl::NoHost => write!(f, "`{url}`: no host"),
        }
    }
}

impl std::error::Error for UrlError {}

/// What held, when the job became ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReadyBy {
    /// A line matched the `line` pattern.
    Line,
    /// A line matched a known framework readiness message.
    Banner,
    /// The `port` accepted a connection.
    Port,
    /// The `url` answered below 500.
    Url,
    /// A process of the job's group started listening on a TCP port.
    Listening,
}

/// The outcome of waiting for readiness.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Readiness {
    /// Whether the condition held before the job ended and before the timeout.
    pub ready: bool,
    /// Which condition held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<ReadyBy>,
    /// The output line that matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// URLs the task printed, and `http://localhost:PORT/` for ports found listening.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<String>,
    /// TCP ports the job's processes listen on (Linux).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<u16>,
    /// Set when the timeout passed first (the job keeps running).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// Milliseconds waited.
    pub waited_ms: u64,
}

static URL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"https?://[^\s'"<>`)\]]+"#).ok());

/// Waits until `probe` holds, `job` ends, or the timeout passes.
pub async fn wait(job: &Job, probe: &Probe) -> Readiness {
    let start = Instant::now();
    let deadline = tokio::time::Instant::now() + probe.timeout;
    let mut progress = job.subscribe();
    let mut cursor = 1u64;
    let mut seen = Readiness::default();
    let ticking = probe.port.is_some() || probe.url.is_some() || probe.listening;
    let mut tick = tokio::time::interval(PORT_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // A message seen before any URL: frameworks print the URL on the next lines.
    let mut matched: Option<(ReadyBy, tokio::time::Instant)> = None;
    loop {
        progress.borrow_and_update();
        if let Some(by) = scan_lines(job, probe, &mut cursor, &mut seen)
            && matched.is_none()
        {
            matched = Some((by, tokio::time::Instant::now() + URL_GRACE));
        }
        if let Some((by, until)) = matched
            && (!seen.urls.is_empty() || tokio::time::Instant::now() >= until || !job.is_running())
        {
            return finish(seen, by, start);
        }
        if !job.is_running() {
            return finish_waiting(seen, start, false);
        }
        let grace_end = matched.map_or(deadline, |(_, until)| until.min(deadline));
        tokio::select! {
            changed = progress.changed() => {
                if changed.is_err() {
                    return finish_waiting(seen, start, false);
                }
            }
            _ = tick.tick(), if ticking => {
                if let Some(by) = check_sockets(job, probe, &mut seen).await {
                    return finish(seen, by, start);
                }
            }
            () = tokio::time::sleep_until(grace_end) => {
                if let Some((by, _)) = matched {
                    return finish(seen, by, start);
                }
                // A last look: the condition may have held in the final moment.
                if let Some(by) = scan_lines(job, probe, &mut cursor, &mut seen) {
                    return finish(seen, by, start);
                }
                return finish_waiting(seen, start, job.is_running());
            }
        }
    }
}

fn finish(mut seen: Readiness, by: ReadyBy, start: Instant) -> Readiness {
    seen.ready = true;
    seen.by = Some(by);
    seen.waited_ms = millis(start.elapsed());
    seen
}

fn finish_waiting(mut seen: Readiness, start: Instant, timed_out: bool) -> Readiness {
    seen.timed_out = timed_out;
    seen.waited_ms = millis(start.elapsed());
    seen
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Looks at the lines written since `cursor`; returns what matched, if anything did.
fn scan_lines(job: &Job, probe: &Probe, cursor: &mut u64, seen: &mut Readiness) -> Option<ReadyBy> {
    let page = job.read(&ReadRequest {
        from: Some(*cursor),
        ..ReadRequest::default()
    });
    let mut found = None;
    for line in &page.lines {
        let text = clean(&line.text);
        note_urls(&text, seen);
        if found.is_some() || seen.line.is_some() {
            continue;
        }
        let by = if probe.line.as_ref().is_some_and(|r| r.is_match(&text)) {
            Some(ReadyBy::Line)
        } else if probe.banners.is_some_and(|b| b.is_match(&text)) {
            Some(ReadyBy::Banner)
        } else {
            None
        };
        if let Some(by) = by {
            seen.line = Some(text.trim().to_owned());
            found = Some(by);
        }
    }
    // A partial line is read again once it is complete.
    *cursor = page.next_offset.max(*cursor);
    found
}

/// A line as a person would see it: the last `\r` redraw, no ANSI colours.
pub fn clean(text: &str) -> String {
    let last = text.rsplit('\r').find(|s| !s.is_empty()).unwrap_or("");
    anstream::adapter::strip_str(last).to_string()
}

fn note_urls(text: &str, seen: &mut Readiness) {
    let Some(re) = URL.as_ref() else { return };
    for m in re.find_iter(text) {
        let url = m.as_str().trim_end_matches(['.', ',', ';', ':']);
        if seen.urls.len() < MAX_URLS && !seen.urls.iter().any(|u| u == url) {
            seen.urls.push(url.to_owned());
        }
    }
}

async fn check_sockets(job: &Job, probe: &Probe, seen: &mut Readiness) -> Option<ReadyBy> {
    if probe.listening
        && let Some(pgid) = job.pgid
    {
        let ports = tokio::task::spawn_blocking(move || listening_ports(pgid))
            .await
            .unwrap_or_default();
        for port in &ports {
            if !seen.ports.contains(port) {
                seen.ports.push(*port);
                let printed = seen.urls.iter().any(|u| url_port(u) == Some(*port));
                if !printed && seen.urls.len() < MAX_URLS {
                    seen.urls.push(format!("http://localhost:{port}/"));
                }
            }
        }
        if !ports.is_empty() {
            return Some(ReadyBy::Listening);
        }
    }
    if let Some(port) = probe.port
        && connects(port).await
    {
        if !seen.ports.contains(&port) {
            seen.ports.push(port);
        }
        if !seen.urls.iter().any(|u| url_port(u) == Some(port)) && seen.urls.len() < MAX_URLS {
            seen.urls.push(format!("http://localhost:{port}/"));
        }
        return Some(ReadyBy::Port);
    }
    if let Some(url) = &probe.url
        && http_status(url).await.is_some_and(|s| s < 500)
    {
        if !seen.urls.contains(&url.text) {
            seen.urls.insert(0, url.text.clone());
        }
        return Some(ReadyBy::Url);
    }
    None
}

fn url_port(url: &str) -> Option<u16> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    authority.rsplit_once(':')?.1.parse().ok()
}

async fn connects(port: u16) -> bool {
    for host in ["127.0.0.1", "::1"] {
        let attempt = tokio::time::timeout(ATTEMPT_TIMEOUT, TcpStream::connect((host, port)));
        if matches!(attempt.await, Ok(Ok(_))) {
            return true;
        }
    }
    false
}

/// The status code of a plain `GET`, or `None` when there is no HTTP answer.
async fn http_status(url: &HttpUrl) -> Option<u16> {
    let attempt = async {
        let mut stream = TcpStream::connect((url.host.as_str(), url.port))
            .await
            .ok()?;
        let request = format!(
            "GET {} HTTP/1.0\r\nHost: {}\r\nUser-Agent: agg\r\nConnection: close\r\n\r\n",
            url.path, url.host
        );
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut head = [0u8; 64];
        let mut got = 0;
        while got < head.len() {
            let n = stream.read(&mut head[got..]).await.ok()?;
            if n == 0 {
                break;
            }
            got += n;
            if head[..got].contains(&b'\n') {
                break;
            }
        }
        let line = String::from_utf8_lossy(&head[..got]).into_owned();
        let mut parts = line.split_whitespace();
        parts.next().filter(|v| v.starts_with("HTTP/"))?;
        parts.next()?.parse().ok()
    };
    tokio::time::timeout(ATTEMPT_TIMEOUT, attempt)
        .await
        .ok()
        .flatten()
}

/// TCP ports on which a process of group `pgid` listens: socket inodes found in
/// `/proc/PID/fd` matched against the `LISTEN` rows of `/proc/net/tcp` and `tcp6`.
/// Empty where there is no `/proc`.
pub fn listening_ports(pgid: u32) -> Vec<u16> {
    let inodes = crate::engine::process::group_socket_inodes(pgid);
    if inodes.is_empty() {
        return Vec::new();
    }
    let mut ports = BTreeSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for (port, inode) in listen_rows(&text) {
            if inodes.contains(&inode) {
                ports.insert(port);
            }
        }
    }
    ports.into_iter().collect()
}

/// `(port, inode)` of each listening socket in a `/proc/net/tcp` table.
fn listen_rows(text: &str) -> impl Iterator<Item = (u16, u64)> + '_ {
    text.lines().skip(1).filter_map(|row| {
        let fields: Vec<&str> = row.split_whitespace().collect();
        // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
        if fields.len() < 10 || fields[3] != "0A" {
            return None;
        }
        let port = u16::from_str_radix(fields[1].rsplit_once(':')?.1, 16).ok()?;
        let inode = fields[9].parse().ok()?;
        Some((port, inode))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_and_without_port_and_path() {
        let u = HttpUrl::parse("http://localhost:5173/health").expect("url");
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("localhost", 5173, "/health")
        );
        let u = HttpUrl::parse("http://[::1]:8000").expect("url");
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("::1", 8000, "/")
        );
        assert!(HttpUrl::parse("https://example.com/").is_err());
        assert!(HttpUrl::parse("http://host:http/").is_err());
    }

    #[test]
    fn listen_rows_keep_only_listening_sockets() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0\n   1: 0100007F:9C40 0100007F:1F40 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 20 4 30 10 -1\n";
        assert_eq!(listen_rows(table).collect::<Vec<_>>(), vec![(8000, 4242)]);
    }

    #[test]
    fn urls_are_collected_once_without_trailing_punctuation() {
        let mut seen = Readiness::default();
        note_urls("  ➜  Local:   http://localhost:5173/", &mut seen);
        note_urls("Serving on http://localhost:5173/.", &mut seen);
        note_urls("(http://0.0.0.0:8000/) ...", &mut seen);
        assert_eq!(
            seen.urls,
            vec!["http://localhost:5173/", "http://0.0.0.0:8000/"]
        );
    }
}
