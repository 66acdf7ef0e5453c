//! Headless Chromium for the tests that open what the harness renders (the
//! HTML report, the static site), and waiting on a child with a deadline.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Wait for a child with a deadline; end it if it overstays.
pub fn wait_with_deadline(mut child: std::process::Child, limit: Duration) -> Output {
    let began = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if began.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The DOM of `url` once its scripts ran, from headless Chromium, started
/// with the flags `extra` besides this machine's.
pub fn dump_dom(extra: &[&str], url: &str) -> String {
    let chromium = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect(
            "chromium is not installed: run harness/tests/setup.sh (apt-get install -y chromium)",
        );
    let profile = tempfile::tempdir().unwrap();
    let child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
        ])
        .args(extra)
        .args([
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
            url,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_with_deadline(child, Duration::from_secs(120));
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
