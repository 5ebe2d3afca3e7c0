//! The command line: serve, migrate, verify, simulate, openapi, outbox, deliver, config.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use crate::app::Application;
use crate::embedded_pg::PrivateCluster;
use crate::games::Registry;
use crate::settings::{Settings, SettingsError};

/// The exit status for settings that cannot be used, as for a mistyped command line: the
/// operator has something to fix, and retrying will not help.
const EX_BAD_SETTINGS: u8 = 2;

#[derive(Parser)]
#[command(
    name = "turnpost",
    version,
    about = "A server for slow, asynchronous board games, by REST and by email"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server and the email worker. Without DATABASE_URL, starts a private
    /// PostgreSQL cluster under ./var/pg and stops it on shutdown.
    Serve,
    /// Apply pending database migrations and exit (one node at a time: they wait for each
    /// other on an advisory lock).
    Migrate {
        /// Instead, revert the newest N migrations, newest first, printing each; a down
        /// migration that would destroy data refuses and stops there.
        #[arg(long, value_name = "N")]
        down: Option<usize>,
        /// Instead, list every migration, applied (with when) or pending, and change
        /// nothing.
        #[arg(long, conflicts_with = "down")]
        status: bool,
    },
    /// Replay every stored game from its log and compare with its stored snapshot;
    /// exit 1 if any differs.
    Verify,
    /// Play random legal games in-process and report their speed.
    Simulate {
        /// Game type id (see `GET /api/v1/game-types`).
        #[arg(long)]
        game: String,
        /// How many games to play.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Seed of the first game; game i uses seed + i.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Number of players (default: the game's minimum).
        #[arg(long)]
        players: Option<usize>,
        /// Game options as JSON (default: the game's defaults).
        #[arg(long, default_value = "{}")]
        options: String,
        /// Give up on a game after this many actions.
        #[arg(long, default_value_t = 100_000)]
        max_actions: usize,
    },
    /// Print the OpenAPI description (the content of openapi.yaml).
    Openapi,
    /// The delivery agent for a mail server: reads one raw message on standard input and
    /// posts it to the server's inbound endpoint. Exits 0 when the server processed it,
    /// 75 (EX_TEMPFAIL: keep it queued) when the server cannot be reached or refuses the
    /// secret, 65 (EX_DATAERR: bounce it) when the message can never be processed.
    Deliver {
        /// The envelope recipient (Postfix: ${recipient}).
        recipient: String,
        /// The server's base address; default: the settings' public address.
        #[arg(long, env = "TURNPOST_PUBLIC_URL")]
        url: Option<String>,
        /// A file holding the inbound secret (not readable by other users); default: the
        /// environment variable TURNPOST_INBOUND_SECRET. Never pass the secret itself as
        /// an argument: every user sees arguments in `ps`.
        #[arg(long)]
        secret_file: Option<std::path::PathBuf>,
        /// Seconds the server has to answer.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
    },
    /// The settings.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// The server secret (which signs tokens, reply addresses and links in emails).
    Secret {
        #[command(subcommand)]
        command: SecretCommand,
    },
    /// Messages (emails, webhook deliveries) the server gave up on after their last attempt.
    Outbox {
        #[command(subcommand)]
        command: OutboxCommand,
    },
    /// Chat at the table.
    Chat {
        #[command(subcommand)]
        command: ChatCommand,
    },
}

#[derive(Subcommand)]
enum ChatCommand {
    /// List the chat messages players reported, oldest report first: report id, when,
    /// message id, game, author (id and name), reporter id, reason and the message's text.
    Reports {
        /// List at most this many.
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Check the settings and print them as the server would use them (secrets masked),
    /// each with where it came from; exit 2 on a setting that cannot be used.
    Check,
}

#[derive(Subcommand)]
enum SecretCommand {
    /// On the embedded default: generate a new secret in <var_dir>/jwt-secret and keep the
    /// old one in <var_dir>/jwt-secret.previous, accepted for the grace period; restart
    /// the server afterwards. (With TURNPOST_JWT_SECRET set, prints how to rotate it.)
    Rotate {
        /// Days the previous secret is still accepted.
        #[arg(long, default_value_t = 30)]
        grace_days: u32,
    },
}

#[derive(Subcommand)]
enum OutboxCommand {
    /// List the messages given up and not requeued, oldest first.
    Failed {
        /// List at most this many.
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Give messages given up their attempts back, due now (fix the cause first: the
    /// last error of each is in `outbox failed`).
    Requeue {
        /// Every message given up.
        #[arg(long, conflicts_with = "ids", required_unless_present = "ids")]
        all: bool,
        /// The ids of the messages to requeue.
        ids: Vec<i64>,
    },
}

pub fn main() -> ExitCode {
    if let Err(e) = init_tracing() {
        eprintln!("error: {e:#}");
        // The mail server's pipe must keep the message queued, not bounce it.
        if std::env::args().nth(1).as_deref() == Some("deliver") {
            return ExitCode::from(crate::deliver::EX_TEMPFAIL);
        }
        return ExitCode::from(EX_BAD_SETTINGS);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // A mail server bounces the message on any status but the temporary ones: a
            // mistyped argument in its pipe must keep players' replies queued instead.
            let delivering = std::env::args().nth(1).as_deref() == Some("deliver");
            if delivering && e.use_stderr() {
                let _ = e.print();
                return ExitCode::from(crate::deliver::EX_TEMPFAIL);
            }
            e.exit()
        }
    };
    let result = match cli.command {
        Command::Serve => serve(),
        Command::Migrate { status: true, .. } => migrate_status(),
        Command::Migrate { down, .. } => migrate(down),
        Command::Verify => verify(),
        Command::Simulate {
            game,
            games,
            seed,
            players,
            options,
            max_actions,
        } => simulate(&game, games, seed, players, &options, max_actions),
        Command::Outbox { command } => outbox(command),
        Command::Secret {
            command: SecretCommand::Rotate { grace_days },
        } => rotate_secret(grace_days),
        Command::Chat {
            command: ChatCommand::Reports { limit },
        } => chat_reports(limit),
        Command::Config {
            command: ConfigCommand::Check,
        } => config_check(),
        Command::Deliver {
            recipient,
            url,
            secret_file,
            timeout,
        } => {
            return crate::deliver::run(crate::deliver::DeliverArgs {
                recipient,
                url,
                secret_file,
                timeout: std::time::Duration::from_secs(timeout.max(1)),
            });
        }
        Command::Openapi => {
            print!("{}", crate::api::openapi_yaml());
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<SettingsError>().is_some() {
                ExitCode::from(EX_BAD_SETTINGS)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// `turnpost config check`: `name = value  # source`, one setting a line.
fn config_check() -> Result<ExitCode> {
    let sourced = Settings::load_sourced()?;
    // What `serve` would refuse, `config check` refuses too.
    serving_secret(&sourced.settings)?;
    for (name, value, source) in sourced.entries() {
        let shown = match value {
            Value::Null => "(unset)".to_string(),
            other => other.to_string(),
        };
        println!("{name} = {shown}  # {source}");
    }
    println!("# the settings are valid");
    Ok(ExitCode::SUCCESS)
}

/// Logs go to standard error: as text, coloured only on a terminal (escape codes in a
/// log file or the journal are noise), or as one JSON object a line with
/// `TURNPOST_LOG_FORMAT=json`, for a log collector.
fn init_tracing() -> Result<()> {
    use std::io::IsTerminal;
    let filter = log_filter(std::env::var("RUST_LOG").ok().as_deref())?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match log_format(std::env::var("TURNPOST_LOG_FORMAT").ok().as_deref())? {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
    };
    Ok(())
}

const LEVELS: [&str; 6] = ["error", "warn", "info", "debug", "trace", "off"];

/// actix-web's extractors name the raw request path at `debug` when a body or path
/// cannot be read, and a link's path is its token (`/sign-ups/{token}`): those lines
/// stay off whatever `RUST_LOG` asks for.
const PATHS_WITH_TOKENS_OFF: &str = "actix_web::types=info";

/// `RUST_LOG`, read strictly: a directive the filter cannot read, or a bare word that is
/// nearly a level (`inf0`), would otherwise leave the server running with no log at all.
/// A bare word that is not near a level names a target, as `RUST_LOG=turnpost` does.
pub fn log_filter(value: Option<&str>) -> Result<tracing_subscriber::EnvFilter, SettingsError> {
    use tracing_subscriber::EnvFilter;
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(EnvFilter::new("info"));
    };
    for directive in value.split(',').map(str::trim) {
        let bare = !directive.contains(['=', '[', ':']);
        let word = directive.to_ascii_lowercase();
        if !bare || word.is_empty() || LEVELS.contains(&word.as_str()) {
            continue;
        }
        let near = LEVELS
            .iter()
            .map(|l| (strsim::jaro_winkler(&word, l), *l))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((score, level)) = near
            && (score >= 0.75 || !word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            let hint = if score >= 0.75 {
                format!("; did you mean {level}?")
            } else {
                String::new()
            };
            return Err(SettingsError(format!(
                "RUST_LOG: {directive:?} is neither a level ({}) nor a target{hint}",
                LEVELS.join(", ")
            )));
        }
    }
    EnvFilter::builder()
        .parse(value)
        .map_err(|e| SettingsError(format!("RUST_LOG={value:?} cannot be read: {e}")))?;
    EnvFilter::builder()
        .parse(format!("{value},{PATHS_WITH_TOKENS_OFF}"))
        .map_err(|e| SettingsError(format!("RUST_LOG={value:?} cannot be read: {e}")))
}

#[derive(Debug, PartialEq)]
enum LogFormat {
    Text,
    Json,
}

fn log_format(value: Option<&str>) -> Result<LogFormat> {
    match value.map(str::trim) {
        None | Some("") | Some("text") => Ok(LogFormat::Text),
        Some("json") => Ok(LogFormat::Json),
        Some(other) => anyhow::bail!("TURNPOST_LOG_FORMAT must be text or json, not {other:?}"),
    }
}

/// The database every command uses: DATABASE_URL, else the private cluster (started if
/// it is not running; the returned handle stops it if this process started it).
fn database(settings: &Settings) -> Result<(String, Option<PrivateCluster>)> {
    match &settings.database_url {
        Some(url) => Ok((url.expose_secret().to_string(), None)),
        None => {
            let cluster = PrivateCluster::ensure_running(&settings.pg_dir())?;
            Ok((cluster.database_url(), Some(cluster)))
        }
    }
}

/// The configured JWT secret; on the embedded default, one generated on first start
/// and kept under the var directory. `settings` take the previous secret from
/// `<var_dir>/jwt-secret.previous` when a rotation left one and none is configured.
fn jwt_secret(settings: &mut Settings) -> Result<SecretString> {
    if let Some(s) = &settings.jwt_secret {
        return Ok(s.clone());
    }
    serving_secret(settings)?;
    if settings.jwt_secret_previous.is_none()
        && let Some((previous, until)) = previous_secret_file(settings)?
    {
        settings.jwt_secret_previous = Some(previous);
        settings.jwt_secret_previous_until = Some(until);
    }
    let path = settings.var_dir.join("jwt-secret");
    if let Ok(s) = std::fs::read_to_string(&path) {
        return Ok(SecretString::from(s.trim().to_string()));
    }
    std::fs::create_dir_all(&settings.var_dir)?;
    let secret = hex::encode(rand::random::<[u8; 32]>());
    write_private(&path, &secret)?;
    Ok(SecretString::from(secret))
}

/// A server on a database of its own needs a configured secret: one generated under the
/// var directory would differ between nodes, and each would refuse the other's tokens.
fn serving_secret(settings: &Settings) -> Result<(), SettingsError> {
    if settings.database_url.is_some() && settings.jwt_secret.is_none() {
        return Err(SettingsError(
            "TURNPOST_JWT_SECRET must be set (at least 32 characters) when DATABASE_URL is".into(),
        ));
    }
    Ok(())
}

/// `<var_dir>/jwt-secret.previous`: the secret on its first line, the end of its grace
/// period (RFC 3339) on the second.
fn previous_secret_file(
    settings: &Settings,
) -> Result<Option<(SecretString, chrono::DateTime<chrono::Utc>)>> {
    let path = settings.var_dir.join("jwt-secret.previous");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let mut lines = text.lines();
    let (Some(secret), Some(until)) = (lines.next(), lines.next()) else {
        bail!(
            "{} must hold a secret and a time on two lines",
            path.display()
        );
    };
    let until = chrono::DateTime::parse_from_rfc3339(until.trim())
        .with_context(|| format!("the second line of {}", path.display()))?;
    Ok(Some((
        SecretString::from(secret.trim().to_string()),
        until.with_timezone(&chrono::Utc),
    )))
}

fn write_private(path: &std::path::Path, text: &str) -> Result<()> {
    // Written beside and renamed, so that a crash leaves the old file or the new one.
    let partial = path.with_extension("partial");
    std::fs::write(&partial, text).with_context(|| format!("writing {}", partial.display()))?;
    restrict(&partial);
    std::fs::rename(&partial, path).with_context(|| format!("writing {}", path.display()))
}

fn rotate_secret(grace_days: u32) -> Result<ExitCode> {
    rotate_in(&Settings::load()?, grace_days)
}

fn rotate_in(settings: &Settings, grace_days: u32) -> Result<ExitCode> {
    if settings.jwt_secret.is_some() {
        println!(
            "The secret comes from the settings (TURNPOST_JWT_SECRET). To rotate it, set\n\
             TURNPOST_JWT_SECRET_PREVIOUS to the current secret,\n\
             TURNPOST_JWT_SECRET_PREVIOUS_UNTIL to the end of the grace period (RFC 3339),\n\
             TURNPOST_JWT_SECRET to a new secret (e.g. `openssl rand -hex 32`),\n\
             and restart every node."
        );
        return Ok(ExitCode::from(EX_BAD_SETTINGS));
    }
    let path = settings.var_dir.join("jwt-secret");
    let current = std::fs::read_to_string(&path)
        .with_context(|| format!("reading {} (start the server once first)", path.display()))?;
    let until = chrono::Utc::now() + chrono::Duration::days(i64::from(grace_days));
    let until = until.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    if let Some((_, earlier)) = previous_secret_file(settings)?
        && earlier > chrono::Utc::now()
    {
        println!(
            "The secret before the current one (accepted until {earlier}) is no longer accepted."
        );
    }
    write_private(
        &settings.var_dir.join("jwt-secret.previous"),
        &format!("{}\n{until}\n", current.trim()),
    )?;
    write_private(&path, &hex::encode(rand::random::<[u8; 32]>()))?;
    println!(
        "New secret in {}. What the old one signed is accepted until {until}.\n\
         Restart the server for it to take effect.",
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn restrict(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
}

fn serve() -> Result<ExitCode> {
    let mut settings = Settings::load()?;
    let (url, cluster) = database(&settings)?;
    let result = (|| -> Result<()> {
        let secret = jwt_secret(&mut settings)?;
        actix_web::rt::System::new().block_on(async {
            let app = Application::build(&settings, &url, secret).await?;
            tracing::info!(port = app.port(), bind = %settings.bind, "Turnpost is listening");
            app.run_until_stopped().await
        })
    })();
    if let Some(c) = cluster {
        c.stop();
    }
    result.map(|_| ExitCode::SUCCESS)
}

/// One plain connection for one-shot commands. Not a pool: a pool's background threads
/// may still be closing connections while the process exits, and libpq's TLS clean-up at
/// exit then crashes (seen as SIGSEGV after `verify` had printed its report).
fn connect(url: &str) -> Result<diesel::PgConnection> {
    use diesel::Connection;
    diesel::PgConnection::establish(url).context("connecting to the database")
}

fn migrate(down: Option<usize>) -> Result<ExitCode> {
    let settings = Settings::load()?;
    let (url, cluster) = database(&settings)?;
    let result = (|| -> Result<()> {
        let mut conn = connect(&url)?;
        match down {
            None => {
                let applied = crate::store::migrate(&mut conn)?;
                println!("{} migration(s) applied", applied.len());
            }
            Some(n) => {
                // Printed as each one commits: a refusal further down leaves these reverted.
                let reverted =
                    crate::store::revert(&mut conn, n, |name| println!("reverted {name}"))?;
                println!("{} migration(s) reverted", reverted.len());
            }
        }
        Ok(())
    })();
    if let Some(c) = cluster {
        c.stop();
    }
    result.map(|_| ExitCode::SUCCESS)
}

/// `turnpost migrate --status`: one line a migration, `name<TAB>applied <when>` or
/// `name<TAB>pending`, then a count. Read-only: a host runs it before and after an upgrade.
fn migrate_status() -> Result<ExitCode> {
    use crate::store::migrations::MigrationState;
    let settings = Settings::load()?;
    let (url, cluster) = database(&settings)?;
    let result = (|| -> Result<()> {
        let mut conn = connect(&url)?;
        let listed = crate::store::migrations::status(&mut conn)?;
        let (mut applied, mut pending, mut newer) = (0, 0, 0);
        for m in &listed {
            let when = |at: &chrono::NaiveDateTime| at.format("%Y-%m-%d %H:%M:%S").to_string();
            match &m.state {
                MigrationState::Applied(at) => {
                    applied += 1;
                    println!("{}\tapplied {}", m.name, when(at));
                }
                MigrationState::Pending => {
                    pending += 1;
                    println!("{}\tpending", m.name);
                }
                MigrationState::NotInThisBuild(at) => {
                    newer += 1;
                    println!(
                        "{}\tapplied {}, not in this build (a newer release applied it)",
                        m.name,
                        when(at)
                    );
                }
            }
        }
        print!("{applied} applied, {pending} pending");
        if newer > 0 {
            print!(", {newer} not in this build");
        }
        println!();
        Ok(())
    })();
    if let Some(c) = cluster {
        c.stop();
    }
    result.map(|_| ExitCode::SUCCESS)
}

fn outbox(command: OutboxCommand) -> Result<ExitCode> {
    use crate::domain::mail_status::{given_up, requeue};
    let settings = Settings::load()?;
    let (url, cluster) = database(&settings)?;
    let result = (|| -> Result<()> {
        let mut conn = connect(&url)?;
        crate::store::migrate(&mut conn)?;
        match command {
            OutboxCommand::Failed { limit } => {
                let rows = given_up(&mut conn, limit.max(1))?;
                for r in &rows {
                    println!(
                        "{}\t{}\t{}\t{} attempt(s)\tgiven up {}\t{}",
                        r.id,
                        r.kind.map_or("-", |k| k.as_str()),
                        r.to_address,
                        r.attempts,
                        r.failed_at.to_rfc3339(),
                        r.last_error.as_deref().unwrap_or("").replace('\n', " ")
                    );
                }
                println!("{} message(s) given up", rows.len());
            }
            OutboxCommand::Requeue { all, ids } => {
                let n = requeue(&mut conn, (!all).then_some(ids.as_slice()))?;
                println!("{n} message(s) requeued");
            }
        }
        Ok(())
    })();
    if let Some(c) = cluster {
        c.stop();
    }
    result.map(|_| ExitCode::SUCCESS)
}

fn chat_reports(limit: i64) -> Result<ExitCode> {
    let settings = Settings::load()?;
    let (url, cluster) = database(&settings)?;
    let result = (|| -> Result<()> {
        let mut conn = connect(&url)?;
        crate::store::migrate(&mut conn)?;
        let rows = crate::domain::chat::reports(&mut conn, limit.max(1))?;
        // One line each: the stored text has no control characters but line breaks and
        // tabs-made-spaces; line breaks are shown as the two characters \n.
        let flat = |s: &str| s.replace('\n', "\\n");
        for r in &rows {
            println!(
                "{}\t{}\tmessage {}\tgame {}\tauthor {} ({})\treporter {}\treason: {}\ttext: {}",
                r.id,
                r.created_at.to_rfc3339(),
                r.message_id,
                r.game_id,
                r.author_id,
                flat(&r.author_name),
                r.reporter_id,
                flat(&r.reason),
                flat(&r.text)
            );
        }
        println!("{} report(s)", rows.len());
        Ok(())
    })();
    if let Some(c) = cluster {
        c.stop();
    }
    result.map(|_| ExitCode::SUCCESS)
}

fn verify() -> Result<ExitCode> {
    let settings = Settings::load()?;
    let (url, cluster) = database(&settings)?;
    let result = (|| -> Result<crate::domain::verify::VerifyReport> {
        let mut conn = connect(&url)?;
        crate::store::migrate(&mut conn)?;
        drop(conn);
        crate::domain::verify::verify_all(&url, &Registry::standard())
    })();
    if let Some(c) = cluster {
        c.stop();
    }
    let report = result?;
    for line in &report.problems {
        println!("MISMATCH {line}");
    }
    println!(
        "verified {} game(s), {} action(s): {} mismatch(es)",
        report.games,
        report.actions,
        report.problems.len()
    );
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn simulate(
    game: &str,
    games: usize,
    seed: u64,
    players: Option<usize>,
    options: &str,
    max_actions: usize,
) -> Result<ExitCode> {
    let registry = Registry::standard();
    let Some(engine) = registry.get(game) else {
        let ids: Vec<&str> = registry.all().map(|g| g.info().id).collect();
        bail!("unknown game {game:?}; known: {}", ids.join(", "));
    };
    let options: Value = serde_json::from_str(options).context("--options must be JSON")?;
    let players = players.unwrap_or(engine.info().min_players);
    let start = Instant::now();
    let report = engine
        .simulate(&options, players, games, seed, max_actions)
        .map_err(|e| anyhow::anyhow!(e))?;
    let secs = start.elapsed().as_secs_f64();
    println!("game: {game}, players: {players}, games: {games}, seed: {seed}");
    println!("games finished: {} of {}", report.finished, games);
    println!("actions applied: {}", report.actions);
    println!(
        "mean actions per game: {:.1}",
        report.actions as f64 / games.max(1) as f64
    );
    println!("elapsed: {secs:.3} s");
    println!("games/s: {:.1}", games as f64 / secs.max(1e-9));
    println!("actions/s: {:.0}", report.actions as f64 / secs.max(1e-9));
    Ok(if report.finished == games {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod log_format_tests {
    use super::*;

    #[test]
    fn the_log_format_is_text_or_json_and_nothing_else() {
        assert_eq!(log_format(None).ok(), Some(LogFormat::Text));
        assert_eq!(log_format(Some("json")).ok(), Some(LogFormat::Json));
        let e = log_format(Some("yaml")).expect_err("refused");
        assert!(e.to_string().contains("text or json"), "{e}");
    }
}

#[cfg(test)]
mod log_filter_tests {
    use super::*;

    #[test]
    fn levels_targets_and_directives_are_read() {
        for ok in [
            "info",
            "WARN",
            "turnpost",
            "actix_web",
            "tracing_actix_web",
            "info,turnpost::access=off",
            "turnpost=debug,diesel=warn",
            "",
        ] {
            assert!(log_filter(Some(ok)).is_ok(), "{ok}");
        }
        assert!(log_filter(None).is_ok());
    }

    #[test]
    fn a_word_that_is_nearly_a_level_or_a_bad_directive_is_refused() {
        for (bad, says) in [
            ("inf0", "did you mean info?"),
            ("debgu", "did you mean debug?"),
            ("warning", "did you mean warn?"),
            ("info,trce", "did you mean trace?"),
            ("turnpost=inf0", "cannot be read"),
            ("info!", "neither a level"),
        ] {
            let e = log_filter(Some(bad))
                .err()
                .unwrap_or_else(|| panic!("{bad} taken"));
            assert!(e.0.contains(says), "{bad}: {e}");
            assert_eq!(e.0.lines().count(), 1);
        }
    }
}

#[cfg(test)]
mod rotation_tests {
    use super::*;

    #[test]
    fn a_rotation_keeps_the_old_secret_for_the_grace_period_and_serve_accepts_it() {
        let mut settings = Settings::load().unwrap();
        settings.database_url = None;
        settings.jwt_secret = None;
        settings.var_dir = std::env::temp_dir().join(format!(
            "turnpost-rotate-{}",
            hex::encode(rand::random::<[u8; 6]>())
        ));
        // Before the first start there is nothing to rotate.
        assert!(rotate_in(&settings, 30).is_err());
        let first = jwt_secret(&mut settings.clone()).unwrap();
        assert_eq!(rotate_in(&settings, 3).unwrap(), ExitCode::SUCCESS);
        let mut started = settings.clone();
        let current = jwt_secret(&mut started).unwrap();
        assert_ne!(current.expose_secret(), first.expose_secret());
        assert_eq!(current.expose_secret().len(), 64);
        let previous = started.jwt_secret_previous.as_ref().unwrap();
        assert_eq!(previous.expose_secret(), first.expose_secret());
        let until = started.jwt_secret_previous_until.unwrap();
        let days = (until - chrono::Utc::now()).num_minutes() as f64 / 1440.0;
        assert!((2.99..=3.0).contains(&days), "{days}");
        // Both files are the owner's alone.
        use std::os::unix::fs::PermissionsExt;
        for name in ["jwt-secret", "jwt-secret.previous"] {
            let mode = std::fs::metadata(settings.var_dir.join(name))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "{name}");
        }
        // A configured secret is the operator's to rotate: the command says how.
        let mut configured = settings.clone();
        configured.jwt_secret = Some(SecretString::from("c".repeat(32)));
        assert_eq!(
            rotate_in(&configured, 3).unwrap(),
            ExitCode::from(EX_BAD_SETTINGS)
        );
        let _ = std::fs::remove_dir_all(&settings.var_dir);
    }
}
