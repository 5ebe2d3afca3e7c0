//! Settings that cannot be used stop the real binary at once: exit status 2, one
//! line naming the setting (and, for a misspelt name, the nearest valid one), no panic.
//! `turnpost config check` shows the settings with their secrets masked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// An empty working directory (no `config/local.toml` but the test's own).
fn workdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "turnpost-settings-{}",
        hex::encode(rand::random::<[u8; 8]>())
    ));
    std::fs::create_dir_all(dir.join("config")).unwrap();
    dir
}

/// `turnpost <args>` in `dir` with only `envs` among the TURNPOST_* variables. Were a bad
/// setting accepted, `serve` would fail later on the unreachable database (exit 1), or be
/// killed after 60 s: either way not the answer the tests want.
fn run(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    run_without(dir, args, envs, &[])
}

/// [`run`] with the variables in `removed` unset.
fn run_without(dir: &Path, args: &[&str], envs: &[(&str, &str)], removed: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_turnpost"));
    cmd.args(args)
        .current_dir(dir)
        .env("DATABASE_URL", "postgres://turnpost@127.0.0.1:1/none")
        .env(
            "TURNPOST_JWT_SECRET",
            "a-test-secret-of-more-than-32-characters",
        )
        .env("TURNPOST_VAR_DIR", dir.join("var"))
        .env("TURNPOST_BIND", "127.0.0.1:0")
        .env_remove("RUST_BACKTRACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, _) in std::env::vars() {
        if name.starts_with("TURNPOST_")
            && !["TURNPOST_JWT_SECRET", "TURNPOST_VAR_DIR", "TURNPOST_BIND"]
                .contains(&name.as_str())
        {
            cmd.env_remove(name);
        }
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    for name in removed {
        cmd.env_remove(name);
    }
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Exit status 0; standard error says why not.
fn assert_ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Exit status 2 and exactly one line on standard error, containing each of `wanted`.
fn assert_refused(out: &Output, wanted: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    for w in wanted {
        assert!(stderr.contains(w), "{w:?} not in: {stderr}");
    }
}

#[test]
fn every_bad_setting_of_issue_34_stops_serve_with_one_line() {
    let dir = workdir();
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "TURNPOST_TURN_EMAIL_GRACE_SEC",
            "60",
            &[
                "unknown setting TURNPOST_TURN_EMAIL_GRACE_SEC; did you mean TURNPOST_TURN_EMAIL_GRACE_SECS?",
            ],
        ),
        (
            "TURNPOST_PUBLIC_URL",
            "games.example.org",
            &[
                "TURNPOST_PUBLIC_URL must be an absolute http(s) URL",
                "games.example.org",
            ],
        ),
        (
            "TURNPOST_CORS_ORIGINS",
            "https://client.example.org/app",
            &[
                "TURNPOST_CORS_ORIGINS must list origins",
                "https://client.example.org/app",
            ],
        ),
        (
            "TURNPOST_REQUIRE_EMAIL_VERIFICATION",
            "yes",
            &["TURNPOST_REQUIRE_EMAIL_VERIFICATION must be true or false, not \"yes\""],
        ),
        (
            "TURNPOST_DB_POOL_SIZE",
            "0",
            &["TURNPOST_DB_POOL_SIZE must be between 1 and 1000, not 0"],
        ),
        (
            "TURNPOST_TRUSTED_PROXIES",
            "10.0.0.0/33",
            &[
                "TURNPOST_TRUSTED_PROXIES must list CIDRs or addresses",
                "10.0.0.0/33",
            ],
        ),
        (
            "TURNPOST_SSE_KEEP_ALIVE_MS",
            "0",
            &["TURNPOST_SSE_KEEP_ALIVE_MS must be between 1 and"],
        ),
        // A rotation's previous secret needs the end of its grace period, and a time.
        (
            "TURNPOST_JWT_SECRET_PREVIOUS",
            "an-old-secret-of-more-than-thirty-two-characters",
            &["jwt_secret_previous_until must be set with jwt_secret_previous"],
        ),
        (
            "TURNPOST_JWT_SECRET_PREVIOUS_UNTIL",
            "next tuesday",
            &["jwt_secret_previous_until"],
        ),
    ];
    for &(name, value, wanted) in cases {
        let out = run(&dir, &["serve"], &[(name, value)]);
        assert_refused(&out, wanted);
    }
    // A value in range is taken.
    let out = run(
        &dir,
        &["config", "check"],
        &[("TURNPOST_DB_POOL_SIZE", "1")],
    );
    assert_ok(&out);
}

#[test]
fn a_misspelt_log_filter_database_url_or_environment_stops_serve_and_config_check_alike() {
    let dir = workdir();
    std::fs::write(dir.join("config/production.toml"), "sse_retry_ms = 2500\n").unwrap();
    for args in [&["serve"][..], &["config", "check"]] {
        let out = run(&dir, args, &[("RUST_LOG", "inf0")]);
        assert_refused(&out, &["RUST_LOG", "inf0", "did you mean info?"]);
        let out = run(&dir, args, &[("RUST_LOG", "turnpost=inf0")]);
        assert_refused(&out, &["RUST_LOG", "cannot be read"]);
        let out = run_without(
            &dir,
            args,
            &[("DATABASE_ULR", "postgres://turnpost@127.0.0.1:1/none")],
            &["DATABASE_URL"],
        );
        assert_refused(
            &out,
            &["DATABASE_ULR is set but DATABASE_URL is not; did you mean DATABASE_URL?"],
        );
        let out = run(&dir, args, &[("TURNPOST_ENV", "prodution")]);
        assert_refused(
            &out,
            &[
                "TURNPOST_ENV=\"prodution\" names config/prodution.toml, which does not exist",
                "did you mean TURNPOST_ENV=production?",
            ],
        );
        // A database without a configured secret: what serve refuses, config check does.
        let out = run_without(&dir, args, &[], &["TURNPOST_JWT_SECRET"]);
        assert_refused(
            &out,
            &["TURNPOST_JWT_SECRET must be set (at least 32 characters) when DATABASE_URL is"],
        );
    }
    // The same words, spelt right, are taken.
    let out = run(
        &dir,
        &["config", "check"],
        &[
            ("RUST_LOG", "info,turnpost=debug"),
            ("TURNPOST_ENV", "production"),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_ok(&out);
    assert!(
        stdout.contains("sse_retry_ms = 2500  # config/production.toml"),
        "{stdout}"
    );
}

#[test]
fn unknown_keys_in_local_toml_are_refused_with_the_nearest_one() {
    let dir = workdir();
    std::fs::write(
        dir.join("config/local.toml"),
        "bind = \"127.0.0.1:0\"\nturn_email_grace_sec = 5\n",
    )
    .unwrap();
    for args in [&["serve"][..], &["config", "check"]] {
        let out = run(&dir, args, &[]);
        assert_refused(
            &out,
            &[
                "unknown setting turn_email_grace_sec in config/local.toml; did you mean turn_email_grace_secs?",
            ],
        );
    }
    // A value of the wrong kind in the file names its key and file.
    std::fs::write(dir.join("config/local.toml"), "email_pictures = \"on\"\n").unwrap();
    let out = run(&dir, &["serve"], &[]);
    assert_refused(
        &out,
        &["email_pictures (in config/local.toml) must be true or false"],
    );
}

#[test]
fn config_check_prints_every_setting_with_secrets_masked() {
    let dir = workdir();
    std::fs::write(dir.join("config/local.toml"), "sse_retry_ms = 2500\n").unwrap();
    let secrets = [
        ("TURNPOST_INBOUND_SECRET", "inbound-hunter2-secret"),
        ("TURNPOST_METRICS_TOKEN", "metrics-hunter2-token"),
        (
            "TURNPOST_SMTP_URL",
            "smtps://mailer:smtp-hunter2-pass@mail.example.org:465",
        ),
    ];
    let out = run(&dir, &["config", "check"], &secrets);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_ok(&out);
    assert!(!stdout.contains("hunter2"), "a secret shows: {stdout}");
    assert!(
        !stdout.contains("a-test-secret-of-more-than-32-characters"),
        "the JWT secret shows: {stdout}"
    );
    for line in [
        "jwt_secret = \"********\"  # env TURNPOST_JWT_SECRET",
        "inbound_secret = \"********\"  # env TURNPOST_INBOUND_SECRET",
        "metrics_token = \"********\"  # env TURNPOST_METRICS_TOKEN",
        "smtp_url = \"smtps://mailer:********@mail.example.org:465\"  # env TURNPOST_SMTP_URL",
        "database_url = \"postgres://turnpost@127.0.0.1:1/none\"  # env DATABASE_URL",
        "sse_retry_ms = 2500  # config/local.toml",
        "db_pool_size = 16  # config/default.toml",
        "trusted_proxies = \"\"  # config/default.toml",
        "reply_address = (unset)  # built-in default",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "{line:?} not in:\n{stdout}"
        );
    }
    // Every setting: one line each, plus the verdict.
    assert!(stdout.lines().count() > 45, "{stdout}");
    // An invalid configuration: exit 2 and the reason.
    let out = run(
        &dir,
        &["config", "check"],
        &[("TURNPOST_JWT_SECRET", "short")],
    );
    assert_refused(
        &out,
        &["TURNPOST_JWT_SECRET must have at least 32 characters"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("short"), "{stderr}");
}

/// The account budget's older name is read as the new one (not both at once), and the
/// computer's daily allowance has a range.
#[test]
fn the_request_budget_keeps_its_older_name_and_the_computer_allowance_its_range() {
    let dir = workdir();
    let out = run(
        &dir,
        &["config", "check"],
        &[("TURNPOST_RATE_LIMIT_PER_TOKEN", "77")],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_ok(&out);
    let line = "rate_limit_per_account = 77  # env TURNPOST_RATE_LIMIT_PER_TOKEN";
    assert!(
        stdout.lines().any(|l| l == line),
        "{line:?} not in:\n{stdout}"
    );
    let out = run(
        &dir,
        &["serve"],
        &[
            ("TURNPOST_RATE_LIMIT_PER_TOKEN", "77"),
            ("TURNPOST_RATE_LIMIT_PER_ACCOUNT", "78"),
        ],
    );
    assert_refused(
        &out,
        &["TURNPOST_RATE_LIMIT_PER_ACCOUNT and TURNPOST_RATE_LIMIT_PER_TOKEN are the same setting"],
    );
    let out = run(
        &dir,
        &["serve"],
        &[("TURNPOST_BOT_MOVES_PER_ACCOUNT_PER_DAY", "100000001")],
    );
    assert_refused(
        &out,
        &["TURNPOST_BOT_MOVES_PER_ACCOUNT_PER_DAY must be between 0 and 100000000"],
    );
}
