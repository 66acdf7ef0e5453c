//! `Provenance`: when a figure was measured, by which command, at which
//! commit and on how many cores. The generated figures files
//! (`docs/figures/bench.md`, `docs/figures/sweep.md`) open with it, so a
//! number always carries the run that produced it and cannot pass for a
//! newer one.
//!
//! In: the command line, the repository root (for the commit), the clock and
//! `/proc/loadavg`. Out: a `Provenance`, its JSON form (`measured` in
//! `bench --json`) and the Markdown table the figures files start with.

use crate::js::json::Json;
use crate::js::string::JsString;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// When the measurement started, `YYYY-MM-DD HH:MM UTC`.
    pub date: String,
    /// The command line that measured, as a shell would take it back.
    pub command: String,
    /// `git rev-parse HEAD` of the repository (`unknown` outside one).
    pub commit: String,
    /// The cores the process could use (its affinity mask and cgroup quota).
    pub cores: usize,
    /// The 1, 5 and 15 minute load averages when the measurement started:
    /// on a shared machine the figures mean little without them. `None`
    /// where there is no `/proc/loadavg`.
    pub load: Option<String>,
}

impl Provenance {
    /// The provenance of a measurement starting now, in `root`.
    pub fn here(command: String, root: &Path) -> Provenance {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
        Provenance {
            date: utc(now),
            commit: crate::run::config::commit(root),
            command,
            cores: crate::observe::pool::available_cores(),
            load,
        }
    }

    pub fn to_json(&self) -> Json {
        Json::object([
            ("date", Json::str(&self.date)),
            ("command", Json::str(&self.command)),
            ("commit", Json::str(&self.commit)),
            ("cores", Json::int(self.cores as i64)),
            (
                "loadAverage",
                self.load.as_deref().map_or(Json::Null, Json::str),
            ),
        ])
    }

    /// Read back what `to_json` wrote; an error names the field.
    pub fn from_json(v: &Json) -> Result<Provenance, String> {
        let text = |k: &str| {
            v.get(k)
                .and_then(Json::as_str)
                .map(JsString::to_lossy)
                .ok_or_else(|| format!("measured.{k}: missing or not a string"))
        };
        let cores = v
            .get("cores")
            .and_then(Json::as_f64)
            .filter(|n| *n >= 1.0 && n.fract() == 0.0)
            .ok_or("measured.cores: missing or not a positive integer")?;
        Ok(Provenance {
            date: text("date")?,
            command: text("command")?,
            commit: text("commit")?,
            cores: cores as usize,
            load: v
                .get("loadAverage")
                .and_then(Json::as_str)
                .map(JsString::to_lossy),
        })
    }

    /// The table a figures file opens with.
    pub fn markdown(&self) -> String {
        format!(
            "| measured | |\n|---|---|\n\
             | date | {} |\n\
             | command | `{}` |\n\
             | commit | `{}` |\n\
             | cores | {} |\n\
             | load average at the start (1, 5, 15 min) | {} |\n",
            self.date,
            self.command.replace('|', "\\|"),
            self.commit,
            self.cores,
            self.load.as_deref().unwrap_or("not known"),
        )
    }
}

/// A command line from its arguments, the program named `mastra-conform`
/// whatever path ran it, and each argument quoted where a shell would split
/// or expand it (`--matrix-versions '>=1.60.0 <1.70.0'`).
pub fn command_line(args: impl IntoIterator<Item = String>) -> String {
    let mut args = args.into_iter();
    let _program = args.next();
    std::iter::once("mastra-conform".to_string())
        .chain(args.map(|a| quote(&a)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// Seconds since the Unix epoch as `YYYY-MM-DD HH:MM UTC` (the proleptic
/// Gregorian calendar, by Howard Hinnant's `civil_from_days`).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let minute = secs % 86_400 / 60;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        minute / 60,
        minute % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        // 2000-02-29, a leap day of a century divisible by 400.
        assert_eq!(utc(951_782_400 + 3_600 + 120), "2000-02-29 01:02 UTC");
        assert_eq!(utc(1_709_164_800), "2024-02-29 00:00 UTC");
        // The last minute of 2026.
        assert_eq!(utc(1_798_761_540), "2026-12-31 23:59 UTC");
        assert_eq!(utc(1_798_761_600), "2027-01-01 00:00 UTC");
    }

    #[test]
    fn a_command_line_is_quoted_as_a_shell_takes_it() {
        let args = [
            "target/release/mastra-conform",
            "bench",
            "--matrix-versions",
            ">=1.60.0 <1.70.0",
            "--route",
            "all",
            "it's",
            "",
        ]
        .map(String::from);
        assert_eq!(
            command_line(args),
            r"mastra-conform bench --matrix-versions '>=1.60.0 <1.70.0' --route all 'it'\''s' ''"
        );
    }

    #[test]
    fn provenance_survives_its_json() {
        let p = Provenance {
            date: "2026-12-01 09:00 UTC".into(),
            command: "mastra-conform bench --repeat 1".into(),
            commit: "2b7db7c".into(),
            cores: 2,
            load: Some("1.46 2.06 1.70".into()),
        };
        assert_eq!(Provenance::from_json(&p.to_json()), Ok(p.clone()));
        let no_load = Provenance { load: None, ..p };
        assert_eq!(Provenance::from_json(&no_load.to_json()), Ok(no_load));
        let bad = Json::object([("date", Json::str("x"))]);
        let err = Provenance::from_json(&bad).unwrap_err();
        assert!(err.contains("measured.cores"), "{err}");
    }

    #[test]
    fn here_names_this_repository_and_this_machine() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let p = Provenance::here("mastra-conform x".into(), root);
        assert!(p.cores >= 1);
        assert!(p.date.ends_with(" UTC") && p.date.len() == 20, "{}", p.date);
        assert!(
            p.commit == "unknown" || p.commit.len() == 40,
            "{}",
            p.commit
        );
        let md = p.markdown();
        assert!(md.contains("| command | `mastra-conform x` |"), "{md}");
    }
}
