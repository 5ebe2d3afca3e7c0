//! Builds the application: pool, migrations, domain, outbox worker, HTTP server. Tests
//! build it with `bind = 127.0.0.1:0` and read the port back.

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use actix_web::dev::{Server, ServerHandle};
use actix_web::{App, HttpServer, web};
use anyhow::{Context, Result};
use secrecy::{ExposeSecret, SecretString};
use tracing_actix_web::TracingLogger;
use utoipa_actix_web::AppExt;

use crate::api::deadline::{self, RequestDeadline};
use crate::api::{self, health::OpenApiText, problem};
use crate::auth::jwt::Tokens;
use crate::auth::password::HashGate;
use crate::auth::throttle::{Limits, LoginThrottle};
use crate::domain::Domain;
use crate::domain::bot_worker::BotWorker;
use crate::domain::clocks::SystemClock;
use crate::games::Registry;
use crate::notify::links::SignedLinks;
use crate::notify::reply::ReplyAddress;
use crate::notify::reset_links::ResetLinks;
use crate::notify::transport::Mailer;
use crate::outbox::worker::{Lane, Worker};
use crate::settings::Settings;
use crate::store;
use crate::store::announcer::Announcer;

/// The plain reply address: `reply_address`, else the address of `mail_from`.
fn reply_address(settings: &Settings) -> Result<String> {
    match &settings.reply_address {
        Some(a) if !a.trim().is_empty() => Ok(a.trim().to_string()),
        _ => {
            let from: lettre::message::Mailbox = settings
                .mail_from
                .parse()
                .context("invalid mail_from address")?;
            Ok(from.email.to_string())
        }
    }
}

/// Everything the server secret signs with.
struct Signers {
    tokens: Tokens,
    reply: ReplyAddress,
    links: SignedLinks,
    reset_links: ResetLinks,
}

impl Signers {
    fn new(settings: &Settings, secret: &SecretString) -> Result<Signers> {
        let bytes = secret.expose_secret().as_bytes();
        Ok(Signers {
            tokens: Tokens::new(secret, settings.jwt_ttl_hours as i64 * 3600),
            reply: ReplyAddress::new(&reply_address(settings)?, bytes)?,
            links: SignedLinks::new(bytes, &settings.public_url())?,
            reset_links: ResetLinks::new(bytes)?,
        })
    }
}

/// The domain over `pool`: what the server runs, and what tests build to call the domain
/// directly (e.g. `sweep(now)` with a chosen time, or a "restarted" sweeper).
pub fn domain(
    settings: &Settings,
    pool: store::PgPool,
    registry: Registry,
    jwt_secret: &SecretString,
) -> Result<Domain> {
    let signers = Signers::new(settings, jwt_secret)?;
    let previous = match (
        &settings.jwt_secret_previous,
        settings.jwt_secret_previous_until,
    ) {
        (Some(secret), Some(until)) => Some((Signers::new(settings, secret)?, until.timestamp())),
        _ => None,
    };
    let Signers {
        tokens,
        reply,
        links,
        reset_links,
    } = match previous {
        Some((p, until)) => Signers {
            tokens: signers.tokens.accepting(p.tokens, until),
            reply: signers.reply.accepting(p.reply, until),
            links: signers.links.accepting(p.links, until),
            reset_links: signers.reset_links.accepting(p.reset_links, until),
        },
        None => signers,
    };
    Ok(Domain {
        pool,
        registry,
        tokens,
        throttle: Arc::new(LoginThrottle::new(Limits {
            per_pair: settings.login_max_failures as usize,
            per_address: settings.login_max_failures_per_address as usize,
            per_account: settings.login_max_failures_per_account as usize,
            window: Duration::from_secs(settings.login_window_secs),
            pace: Duration::from_millis(settings.login_slow_lane_ms),
        })),
        reset_throttle: Arc::new(LoginThrottle::new(
            crate::domain::password_reset::throttle_limits(
                settings.password_reset_max_per_email,
                settings.password_reset_max_per_client,
                Duration::from_secs(settings.password_reset_window_secs),
            ),
        )),
        hashes: Arc::new(HashGate::with_cost(
            settings.password_hash_slots,
            Duration::from_secs(settings.password_queue_secs),
            settings.password_hash_cost,
        )),
        public_url: settings.public_url(),
        reply,
        inbound_secret: settings
            .inbound_secret
            .clone()
            .filter(|s| !s.expose_secret().is_empty()),
        clock: Arc::new(SystemClock),
        vacation_days_per_year: settings.vacation_days_per_year,
        max_active_games_per_account: settings.max_active_games_per_account,
        computer_moves_per_day: Some(settings.bot_moves_per_account_per_day).filter(|&n| n > 0),
        outbox_retention: chrono::Duration::days(settings.outbox_retention_days),
        links,
        reset_links,
        turn_email_grace: Duration::from_secs(settings.turn_email_grace_secs),
        require_email_verification: settings.require_email_verification,
        email_pictures: settings.email_pictures,
        views: Arc::default(),
        game_cache: Arc::default(),
        sessions: Arc::default(),
        webhooks: crate::notify::webhook::WebhookPolicy::new(
            settings.webhook_allow_private,
            Duration::from_secs(settings.webhook_timeout_secs.max(1)),
        ),
        announcer: Default::default(),
    })
}

/// Cross-origin access for browser clients on the configured origins: any method and
/// header, and the response headers a client needs (ETag, Retry-After, Location, Link).
fn cors(origins: &[String]) -> actix_cors::Cors {
    use actix_web::http::header;
    let mut c = actix_cors::Cors::default()
        .allow_any_method()
        .allow_any_header()
        .expose_headers([
            header::ETAG,
            header::RETRY_AFTER,
            header::LOCATION,
            header::LINK,
            header::ALLOW,
            header::HeaderName::from_static(api::request_id::HEADER),
            header::HeaderName::from_static("ratelimit-limit"),
            header::HeaderName::from_static("ratelimit-remaining"),
            header::HeaderName::from_static("ratelimit-reset"),
            header::HeaderName::from_static("ratelimit-policy"),
        ])
        .max_age(3600);
    for o in origins {
        c = if o == "*" {
            c.allow_any_origin()
        } else {
            c.allowed_origin(o)
        };
    }
    c
}

/// Runs the migrations on a connection of its own: at start the database may take longer
/// than a request should wait for one.
async fn migrate(database_url: &str) -> Result<()> {
    let migrate_url = database_url.to_string();
    tokio::task::spawn_blocking(move || -> Result<()> {
        use diesel::Connection;
        let mut conn =
            diesel::PgConnection::establish(&migrate_url).context("connecting to the database")?;
        let applied = store::migrate(&mut conn)?;
        if applied.is_empty() {
            tracing::info!("no pending migrations");
        } else {
            tracing::info!(
                count = applied.len(),
                migrations = %applied.join(", "),
                "migrations applied"
            );
        }
        Ok(())
    })
    .await?
}

/// How long a background pool waits at start for the connections its threads will use.
/// The database just answered the migrations, so they come; a busy machine may take
/// seconds to make them, longer than a request may wait for one (which is what the
/// threads' pools allow later, when the database is down).
const WARM_PATIENCE: Duration = Duration::from_secs(30);

/// The outbox's two lanes, each with sender threads and connections of its own: emails,
/// and webhooks (a receiver that never answers must not delay anyone's email).
fn spawn_outbox(
    settings: &Settings,
    database_url: &str,
    domain: &Domain,
    worker_stop: &Arc<AtomicBool>,
) -> Result<(JoinHandle<()>, JoinHandle<()>)> {
    let senders = settings.outbox_senders.max(1);
    let mailer = Mailer::from_settings(
        settings.smtp_url.as_ref().map(|s| s.expose_secret()),
        settings.mail_dir(),
        senders,
    )?;
    let sender_threads = match settings.email_senders {
        crate::settings::EmailSenders::Running => senders,
        crate::settings::EmailSenders::Driven => 0,
    };
    // Its own connections: a burst of sending never keeps a request waiting for one.
    let worker_pool = store::pool(
        database_url,
        senders as u32 + 1,
        Duration::from_millis(settings.db_checkout_timeout_ms.max(1000)),
    )?;
    let from: lettre::message::Mailbox = settings
        .mail_from
        .parse()
        .context("invalid mail_from address")?;
    store::warm(&worker_pool, sender_threads as u32, WARM_PATIENCE);
    let worker = Worker {
        lane: Lane::Email,
        domain: Domain {
            pool: worker_pool,
            ..domain.clone()
        },
        mailer,
        senders: sender_threads,
        from: from.clone(),
        poll: Duration::from_millis(settings.outbox_poll_ms),
        max_attempts: settings.outbox_max_attempts,
        lease: Duration::from_secs(settings.outbox_lease_secs),
        stop: Arc::clone(worker_stop),
    };
    let worker = std::thread::Builder::new()
        .name("outbox".into())
        .spawn(move || worker.run())
        .context("starting the outbox worker")?;

    // Webhooks have senders (and connections) of their own: a receiver that never
    // answers must not delay anyone's email. Their mailer is never used.
    let hook_senders = settings.webhook_senders.max(1);
    let hook_pool = store::pool(
        database_url,
        hook_senders as u32 + 1,
        Duration::from_millis(settings.db_checkout_timeout_ms.max(1000)),
    )?;
    store::warm(&hook_pool, hook_senders as u32, WARM_PATIENCE);
    let hooks = Worker {
        lane: Lane::Webhooks,
        domain: Domain {
            pool: hook_pool,
            ..domain.clone()
        },
        mailer: Mailer::Files(lettre::FileTransport::new(settings.mail_dir())),
        senders: hook_senders,
        from,
        poll: Duration::from_millis(settings.outbox_poll_ms),
        max_attempts: settings.outbox_max_attempts,
        lease: Duration::from_secs(settings.webhook_timeout_secs.max(1) * 3 + 30),
        stop: Arc::clone(worker_stop),
    };
    let hooks = std::thread::Builder::new()
        .name("webhooks".into())
        .spawn(move || hooks.run())
        .context("starting the webhook senders")?;
    Ok((worker, hooks))
}

/// The clock sweeper's thread.
fn spawn_sweeper(
    settings: &Settings,
    domain: &Domain,
    worker_stop: &Arc<AtomicBool>,
) -> Result<JoinHandle<()>> {
    // The clock sweeper: reminders and timeouts, each applied exactly once (see
    // domain::sweeper), so a restart or a second server never repeats one.
    let sweep_domain = domain.clone();
    let sweep_stop = Arc::clone(worker_stop);
    let interval = Duration::from_secs(settings.sweep_interval_secs.max(1));
    std::thread::Builder::new()
        .name("sweeper".into())
        .spawn(move || {
            while !sweep_stop.load(Ordering::Relaxed) {
                let now = chrono::Utc::now();
                crate::domain::sweeper::pass_started(now, interval);
                match sweep_domain.sweep(now) {
                    Ok(_) => {
                        store::outage::DATABASE.back();
                    }
                    Err(e) => store::outage::DATABASE.failed("a clock sweep", &e),
                }
                let until = std::time::Instant::now() + interval;
                while std::time::Instant::now() < until && !sweep_stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        })
        .context("starting the clock sweeper")
}

/// The background bot worker's thread.
fn spawn_bot_worker(
    settings: &Settings,
    database_url: &str,
    domain: &Domain,
    worker_stop: &Arc<AtomicBool>,
) -> Result<JoinHandle<()>> {
    // The computer's moves that requests left over: one game at a time, one move per
    // transaction, on a connection of its own so that it never takes a request's.
    let bot_pool = store::pool(
        database_url,
        1,
        Duration::from_millis(settings.db_checkout_timeout_ms.max(1000)),
    )?;
    store::warm(&bot_pool, 1, WARM_PATIENCE);
    let bot_worker = BotWorker {
        domain: Domain {
            pool: bot_pool,
            ..domain.clone()
        },
        poll: Duration::from_millis(settings.bot_poll_ms.max(1)),
        stop: Arc::clone(worker_stop),
    };
    std::thread::Builder::new()
        .name("bots".into())
        .spawn(move || bot_worker.run())
        .context("starting the bot worker")
}

/// The HTTP server, bound and not yet running, and its port.
fn http_server(
    settings: &Settings,
    domain: &Domain,
    hub: web::Data<crate::notify::events::EventHub>,
) -> Result<(u16, Server)> {
    // Streams are bounded so that they never use the descriptors ordinary requests
    // need; actix stops accepting before the process runs out of them.
    let nofile = api::stream_limits::raise_open_file_limit();
    let stream_limits = web::Data::new(api::stream_limits::StreamLimits::new(
        settings.max_event_streams,
        settings.max_event_streams_per_address,
        nofile,
    ));
    let rate_limits = web::Data::new(api::rate_limit::RateLimits::new(api::rate_limit::Budgets {
        per_account: std::num::NonZeroU32::new(settings.rate_limit_per_account),
        per_address: std::num::NonZeroU32::new(settings.rate_limit_per_address),
    }));
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max_connections = usize::try_from(nofile.saturating_sub(256))
        .unwrap_or(usize::MAX)
        .max(64)
        / workers.max(1);
    let listener =
        TcpListener::bind(&settings.bind).with_context(|| format!("binding {}", settings.bind))?;
    let port = listener.local_addr()?.port();
    let data = web::Data::new(domain.clone());
    let stream_timing = web::Data::new(api::events::StreamTiming {
        keep_alive: Duration::from_millis(settings.sse_keep_alive_ms.max(1)),
        retry_ms: settings.sse_retry_ms,
    });
    let metrics_access = web::Data::new(api::metrics::MetricsAccess {
        token: settings.metrics_token.clone(),
    });
    let spec = web::Data::new(OpenApiText(api::openapi_yaml()));
    let mut routes = api::spec::routes(&api::openapi());
    routes.extend(
        api::web_client::ROUTES
            .iter()
            .map(|r| (r.to_string(), vec!["GET"])),
    );
    let known_routes = web::Data::new(problem::KnownRoutes(routes));
    let request_timeout = Duration::from_secs(settings.request_timeout_secs.max(1));
    let deadline = web::Data::new(RequestDeadline(request_timeout));
    let write_gate = web::Data::new(api::write_gate::WriteGate::for_pool(
        settings.db_pool_size,
        request_timeout,
    ));
    let cors_origins = settings.cors_origins();
    // Settings::load checked the list; settings made in code are checked here.
    let trusted_proxies = web::Data::new(
        api::client_addr::TrustedProxies::parse(&settings.trusted_proxies)
            .map_err(|e| anyhow::anyhow!("trusted_proxies: {e}"))?
            .reading(settings.client_address_header),
    );
    let mail_check =
        web::Data::new(api::health::MailCheck(settings.smtp_url.as_ref().and_then(
            |u| crate::notify::smtp_probe::SmtpProbe::new(u.expose_secret()),
        )));
    let server = HttpServer::new(move || {
        App::new()
            // Innermost, so that it sees the handler's content type before `Compress` does.
            .wrap(actix_web::middleware::from_fn(
                api::request_id::keep_streams_uncompressed,
            ))
            .wrap(actix_web::middleware::from_fn(api::write_gate::gate))
            .wrap(actix_web::middleware::from_fn(deadline::enforce))
            // Inside CORS, so that a browser client can read a 429 and its headers; CORS
            // preflights are answered before it and cost nothing.
            .wrap(actix_web::middleware::from_fn(api::rate_limit::enforce))
            .wrap(actix_web::middleware::Condition::new(
                !cors_origins.is_empty(),
                cors(&cors_origins),
            ))
            // Inside the request's span, so that each access line carries its id.
            .wrap(actix_web::middleware::from_fn(api::access_log::record))
            .wrap(TracingLogger::<api::log_redact::RedactedSpans>::new())
            // gzip, br or zstd as the client accepts; not images already compressed (PNG),
            // nor event streams (marked by `keep_streams_uncompressed`).
            .wrap(actix_web::middleware::Compress::default())
            // Outside `Compress`: a compressed answer's ETag names its coding.
            .wrap(actix_web::middleware::from_fn(api::etag::per_coding))
            // Outermost: the request's span needs its id, and every answer gets it.
            .wrap(actix_web::middleware::from_fn(api::request_id::tag))
            .app_data(deadline.clone())
            .app_data(write_gate.clone())
            .app_data(known_routes.clone())
            .app_data(hub.clone())
            .app_data(stream_limits.clone())
            .app_data(rate_limits.clone())
            .app_data(trusted_proxies.clone())
            .app_data(mail_check.clone())
            .app_data(stream_timing.clone())
            .app_data(data.clone())
            .app_data(spec.clone())
            .app_data(metrics_access.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(256 * 1024)
                    .error_handler(problem::json_error),
            )
            .app_data(web::QueryConfig::default().error_handler(problem::query_error))
            .app_data(web::PathConfig::default().error_handler(problem::path_error))
            .into_utoipa_app()
            .configure(api::routes)
            .into_app()
            // The browser client: not part of the API, so not in its description.
            .configure(api::web_client::routes)
            .default_service(web::to(problem::not_found))
    })
    .workers(workers)
    .max_connections(max_connections)
    // A compressed answer leaves in two writes (head, then body): with Nagle's algorithm the
    // body waited for the client's delayed acknowledgement, 40 ms on Linux, on every such
    // answer.
    .tcp_nodelay(true)
    .listen(listener)?
    // The head must arrive in time; the body and the answer are under `deadline`.
    .client_request_timeout(request_timeout)
    .shutdown_timeout(10)
    .worker_max_blocking_threads(blocking_threads_per_worker(settings.db_pool_size))
    .run();
    Ok((port, server))
}

pub struct Application {
    port: u16,
    server: Server,
    domain: Domain,
    worker_stop: Arc<AtomicBool>,
    worker: Option<JoinHandle<()>>,
    hooks: Option<JoinHandle<()>>,
    sweeper: Option<JoinHandle<()>>,
    bots: Option<JoinHandle<()>>,
    events: Option<JoinHandle<()>>,
    announcer: Option<JoinHandle<()>>,
}

impl Application {
    /// Everything up to a bound, not yet running server.
    pub async fn build(
        settings: &Settings,
        database_url: &str,
        jwt_secret: SecretString,
    ) -> Result<Application> {
        let registry = Registry::standard();
        registry
            .check_data()
            .map_err(|e| anyhow::anyhow!("shipped game data is broken: {e}"))?;
        if jwt_secret.expose_secret().len() < 32 {
            anyhow::bail!("the JWT secret must have at least 32 characters");
        }
        if let (Some(_), Some(until)) = (
            &settings.jwt_secret_previous,
            settings.jwt_secret_previous_until,
        ) {
            if until > chrono::Utc::now() {
                tracing::info!(%until, "accepting what the previous secret signed until its grace period ends");
            } else {
                tracing::warn!(%until, "the previous secret's grace period is over: remove it from the settings");
            }
        }

        let pool = store::pool_with(
            database_url,
            settings.db_pool_size,
            Duration::from_millis(settings.db_checkout_timeout_ms.max(1)),
            Some(store::REQUEST_SESSION),
        )?;
        migrate(database_url).await?;
        // The sweeper's first pass runs at once, on up to two of the requests' connections.
        let warm_pool = pool.clone();
        tokio::task::spawn_blocking(move || store::warm(&warm_pool, 2, WARM_PATIENCE)).await?;

        // The metrics recorder, before the workers count anything.
        let _ = api::metrics::handle();
        api::metrics::register(registry.all().map(|g| g.info().id));
        let worker_stop = Arc::new(AtomicBool::new(false));
        let (announcer, announcer_thread) =
            Announcer::spawn(database_url.to_string(), Arc::clone(&worker_stop))
                .context("starting the announcer")?;
        let domain = Domain {
            announcer,
            ..domain(settings, pool, registry, &jwt_secret)?
        };

        let (worker, hooks) = spawn_outbox(settings, database_url, &domain, &worker_stop)?;

        let sweeper = spawn_sweeper(settings, &domain, &worker_stop)?;
        let bots = spawn_bot_worker(settings, database_url, &domain, &worker_stop)?;

        // Live events: this node's listener on the database's notifications.
        let hub = crate::notify::events::EventHub::default();
        let events = crate::notify::events::spawn_listener(
            hub.clone(),
            database_url.to_string(),
            Arc::clone(&worker_stop),
        )
        .context("starting the event listener")?;
        let hub = web::Data::new(hub);

        let (port, server) = http_server(settings, &domain, hub)?;

        Ok(Application {
            port,
            server,
            domain,
            worker_stop,
            worker: Some(worker),
            hooks: Some(hooks),
            sweeper: Some(sweeper),
            bots: Some(bots),
            events: Some(events),
            announcer: Some(announcer_thread),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// Stops the server from elsewhere; `run_until_stopped` then stops the workers.
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// Serves until SIGINT/SIGTERM (actix handles both), then stops the outbox worker.
    pub async fn run_until_stopped(mut self) -> Result<()> {
        let result = self.server.await;
        self.worker_stop.store(true, Ordering::Relaxed);
        for w in [
            self.worker.take(),
            self.hooks.take(),
            self.sweeper.take(),
            self.bots.take(),
            self.events.take(),
            self.announcer.take(),
        ]
        .into_iter()
        .flatten()
        {
            let _ = tokio::task::spawn_blocking(move || w.join()).await;
        }
        result.context("HTTP server")
    }
}

/// An application running on a thread of its own (see [`spawn_in_background`]).
pub struct BackgroundApp {
    pub port: u16,
    handle: ServerHandle,
}

impl BackgroundApp {
    /// Closes the server's connections and stops its senders, sweeper, bot worker and event listener,
    /// without waiting for them. A test suite starts a hundred apps in one process: left
    /// running, their senders' polling alone kept both cores of a CI machine busy.
    pub fn stop(&self) {
        // The command is sent at once; the returned future only waits for it to finish.
        drop(self.handle.stop(false));
    }
}

/// Builds and runs the application on a thread of its own (with its own actix system);
/// returns once it listens. For tests and benchmarks; it runs until [`BackgroundApp::stop`]
/// or the end of the process.
pub fn spawn_in_background(
    settings: Settings,
    database_url: String,
    jwt_secret: SecretString,
) -> Result<BackgroundApp> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("turnpost-app".into())
        .spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                match Application::build(&settings, &database_url, jwt_secret).await {
                    Ok(app) => {
                        let _ = tx.send(Ok(BackgroundApp {
                            port: app.port(),
                            handle: app.handle(),
                        }));
                        if let Err(e) = app.run_until_stopped().await {
                            tracing::error!(error = %e, "application stopped");
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            })
        })
        .context("spawning the application thread")?;
    rx.recv_timeout(Duration::from_secs(120))
        .context("the application did not start in time")?
}

/// Threads per HTTP worker for blocking work (database calls, hashing, pictures). Almost all
/// of it needs a database connection, so more threads than connections only wait, each
/// with its own allocator arena: with actix's default (256 per worker) a load of 32 games
/// held 250 MiB, with this bound 80 MiB, at the same rate.
fn blocking_threads_per_worker(pool_size: u32) -> usize {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    (pool_size as usize).div_ceil(workers) + 2
}
