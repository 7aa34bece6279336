//! Times and durations as a person reads them (`2.3s`, `4m05s`, `5m ago`): one rendering
//! for every place that shows them, the listing's badges, `agg ps`, `agg describe`, the
//! picker and the end-of-run line.

use std::time::SystemTime;

/// A duration for people: `0.4s`, `2.3s`, `23s`, `4m05s`, `1h02m`.
pub fn duration(ms: u64) -> String {
    match ms {
        0..10_000 => format!("{}.{}s", ms / 1000, (ms % 1000) / 100),
        10_000..60_000 => format!("{}s", ms / 1000),
        60_000..3_600_000 => format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000),
        _ => format!("{}h{:02}m", ms / 3_600_000, (ms % 3_600_000) / 60_000),
    }
}

/// How long ago `t` was, for people: `just now`, `5m ago`, `3h ago`, `2d ago`.
pub fn ago(t: SystemTime) -> String {
    let secs = SystemTime::now()
        .duration_since(t)
        .map_or(0, |d| d.as_secs());
    match secs {
        0..60 => "just now".to_owned(),
        60..3_600 => format!("{}m ago", secs / 60),
        3_600..86_400 => format!("{}h ago", secs / 3_600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_compact() {
        assert_eq!(duration(400), "0.4s");
        assert_eq!(duration(2_345), "2.3s");
        assert_eq!(duration(23_000), "23s");
        assert_eq!(duration(61_000), "1m01s");
        assert_eq!(duration(3_720_000), "1h02m");
    }

    #[test]
    fn ago_counts_back_from_now() {
        let now = SystemTime::now();
        assert_eq!(ago(now), "just now");
        assert_eq!(ago(now - std::time::Duration::from_secs(300)), "5m ago");
        assert_eq!(ago(now + std::time::Duration::from_secs(300)), "just now");
    }
}
