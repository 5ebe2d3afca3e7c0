//! The shipped systemd unit (`config/turnpost.service`) is valid and hardened, as
//! `systemd-analyze` judges it.

use std::path::Path;
use std::process::Command;

/// The unit with `ExecStart` pointing at this build's binary (`verify` checks that the
/// program exists), written to a fresh directory; returns its path.
fn unit_copy(edit: impl Fn(&str) -> String) -> std::path::PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("config/turnpost.service"),
    )
    .expect("config/turnpost.service");
    assert!(
        text.contains("ExecStart=/usr/local/bin/turnpost serve"),
        "{text}"
    );
    let text = text.replace(
        "ExecStart=/usr/local/bin/turnpost",
        &format!("ExecStart={}", env!("CARGO_BIN_EXE_turnpost")),
    );
    let dir = std::env::temp_dir().join(format!(
        "turnpost-unit-{}",
        hex::encode(rand::random::<[u8; 6]>())
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("turnpost.service");
    std::fs::write(&path, edit(&text)).expect("write unit");
    path
}

fn analyze(args: &[&str], unit: &Path) -> (bool, String) {
    let out = Command::new("systemd-analyze")
        .args(args)
        .arg(unit)
        .output()
        .expect("systemd-analyze (Debian package systemd)");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn the_systemd_unit_verifies_cleanly_and_is_hardened() {
    let unit = unit_copy(|t| t.to_string());
    let (ok, text) = analyze(&["verify"], &unit);
    assert!(
        ok && text.trim().is_empty(),
        "systemd-analyze verify:\n{text}"
    );
    // The check can fail: a misspelt key is reported.
    let typo = unit_copy(|t| t.replace("Restart=on-failure", "Restartt=on-failure"));
    let (_, text) = analyze(&["verify"], &typo);
    assert!(text.contains("Unknown key"), "a typo passed: {text}");

    let (ok, text) = analyze(&["security", "--offline=true"], &unit);
    assert!(ok, "systemd-analyze security:\n{text}");
    let exposure: f64 = text
        .lines()
        .find_map(|l| {
            l.split("Overall exposure level for turnpost.service:")
                .nth(1)
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no exposure level in:\n{text}"));
    // 0 is a locked-down service, 10 an unprotected one; systemd calls below 2 "OK".
    assert!(exposure < 2.0, "exposure {exposure}:\n{text}");
    for setting in [
        "User=turnpost",
        "StateDirectory=turnpost",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "Restart=on-failure",
    ] {
        assert!(
            std::fs::read_to_string(&unit).unwrap().contains(setting),
            "{setting} missing"
        );
    }
}
