//! The embedded default: a private PostgreSQL cluster started from the installed PostgreSQL
//! binaries, so a newcomer needs no database set-up. Also the throwaway clusters the test
//! suite runs on.
//!
//! PostgreSQL refuses to run as root; when we are root, every server binary runs as the
//! `postgres` user through `runuser`, and the cluster directory is handed to that user.

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

const SUPERUSER: &str = "turnpost";
pub const DATABASE: &str = "turnpost";

/// Where `initdb`, `pg_ctl` and `postgres` live: PATH first, then the newest
/// `/usr/lib/postgresql/*/bin`.
pub fn find_bin_dir() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("initdb").is_file()
                && dir.join("pg_ctl").is_file()
                && dir.join("postgres").is_file()
            {
                return Ok(dir);
            }
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
                    let bin = e.path().join("bin");
                    bin.join("initdb").is_file().then_some((v, bin))
                })
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions.pop().map(|(_, p)| p).ok_or_else(|| {
        anyhow!(
            "no PostgreSQL server binaries found (looked for initdb, pg_ctl, postgres in PATH and \
             /usr/lib/postgresql/*/bin). Install PostgreSQL (e.g. `apt-get install -y postgresql`) \
             or set DATABASE_URL"
        )
    })
}

fn running_as_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|euid| euid == "0"))
        })
        .unwrap_or(false)
}

/// A command for a PostgreSQL binary, run as `postgres` when we are root.
fn pg_command(bin: &Path) -> Command {
    if running_as_root() {
        let mut c = Command::new("runuser");
        c.arg("-u").arg("postgres").arg("--").arg(bin);
        c
    } else {
        Command::new(bin)
    }
}

/// How the cluster compresses full-page images in the WAL: zstd where the build has it
/// (Debian's does, from PostgreSQL 15), else pglz, which every build has. zstd left a cold
/// move's WAL smaller than pglz did (`cargo bench --bench storage`). The server itself
/// answers whether it takes the value, without starting.
fn wal_compression(bin: &Path, data: &Path) -> &'static str {
    let zstd = pg_command(&bin.join("postgres"))
        .args(["-C", "wal_compression", "-c", "wal_compression=zstd", "-D"])
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| out.status.success() && out.stdout.starts_with(b"zstd"));
    if zstd { "zstd" } else { "pglz" }
}

/// Hands `dir` to the postgres user when we are root.
fn give_to_postgres(dir: &Path) -> Result<()> {
    if running_as_root() {
        let status = Command::new("chown")
            .arg("-R")
            .arg("postgres:postgres")
            .arg(dir)
            .status()
            .context("running chown")?;
        if !status.success() {
            bail!("chown postgres {} failed", dir.display());
        }
    }
    Ok(())
}

/// Writes a file only its owner may read (the cluster password).
fn write_private(path: &Path, contents: &str) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    f.write_all(contents.as_bytes())?;
    Ok(())
}

fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(l.local_addr()?.port())
}

fn random_password() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

/// Runs `initdb` for a password-protected cluster owned by superuser `turnpost`.
fn initdb(bin: &Path, data: &Path, password: &str) -> Result<()> {
    let parent = data.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(data).with_context(|| format!("creating {}", data.display()))?;
    let pwfile = parent.join(format!(".pwfile-{}", std::process::id()));
    fs::write(&pwfile, password)?;
    give_to_postgres(data)?;
    give_to_postgres(&pwfile)?;
    let out = pg_command(&bin.join("initdb"))
        .arg("-D")
        .arg(data)
        .args([
            "-U",
            SUPERUSER,
            "--auth=scram-sha-256",
            "-E",
            "UTF8",
            "--locale=C",
        ])
        .arg(format!("--pwfile={}", pwfile.display()))
        .output()
        .context("running initdb");
    let _ = fs::remove_file(&pwfile);
    let out = out?;
    if !out.status.success() {
        bail!(
            "initdb failed (is {} reachable by the postgres user?): {}",
            data.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

fn server_options(port: u16, max_connections: u32) -> Vec<String> {
    vec![
        "-p".into(),
        port.to_string(),
        "-h".into(),
        "127.0.0.1".into(),
        // No Unix socket: the data directory path may be too long for one, and TCP on
        // loopback is all we use.
        "-c".into(),
        "unix_socket_directories=".into(),
        "-c".into(),
        format!("max_connections={max_connections}"),
    ]
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn url(password: &str, port: u16, db: &str) -> String {
    format!("postgres://{SUPERUSER}:{password}@127.0.0.1:{port}/{db}")
}

/// The private cluster of `serve`/`migrate`/`verify`, under `<var>/pg`, reused across starts.
pub struct PrivateCluster {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    password: String,
    started_here: bool,
}

impl PrivateCluster {
    /// Creates the cluster if needed and starts it if it is not running.
    pub fn ensure_running(data: &Path) -> Result<PrivateCluster> {
        let bin = find_bin_dir()?;
        let data = std::path::absolute(data)?;
        let pw_path = data.with_extension("password");
        if !data.join("PG_VERSION").is_file() {
            let password = random_password();
            initdb(&bin, &data, &password)?;
            write_private(&pw_path, &password)?;
            tracing::info!(dir = %data.display(), "created private PostgreSQL cluster");
        }
        // Clusters made before the file was written private: tighten it now.
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs::set_permissions(&pw_path, fs::Permissions::from_mode(0o600));
        }
        let password = fs::read_to_string(&pw_path)
            .with_context(|| format!("reading {}", pw_path.display()))?
            .trim()
            .to_string();
        if let Some(port) = running_port(&bin, &data) {
            // Running already. If the Turnpost process that started it is gone (it crashed
            // or was killed), this process adopts the cluster and stops it on shutdown;
            // if that process is alive, it is its cluster, and this one is a guest.
            let adopt = !owner_alive(&data);
            if adopt {
                claim_ownership(&data)?;
                tracing::info!(port, "adopted a private PostgreSQL cluster left running");
            }
            return Ok(PrivateCluster {
                bin,
                data,
                port,
                password,
                started_here: adopt,
            });
        }
        let port = free_port()?;
        let log = data.join("server.log");
        let mut options = server_options(port, 200);
        // The first change to a page after a checkpoint writes the whole 8 KiB page to the
        // WAL, and in games played over days nearly every move is such a first change:
        // compressed, those images shrink several times (`cargo bench --bench storage`,
        // cold moves).
        options.extend([
            "-c".to_string(),
            format!("wal_compression={}", wal_compression(&bin, &data)),
        ]);
        let out = pg_command(&bin.join("pg_ctl"))
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", "60", "-o"])
            .arg(
                options
                    .iter()
                    .map(|a| shell_quote(a))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
            .arg("start")
            .output()
            .context("running pg_ctl start")?;
        if !out.status.success() {
            bail!(
                "could not start the private cluster: {}{}(log: {})",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                log.display()
            );
        }
        tracing::info!(port, "started private PostgreSQL cluster");
        claim_ownership(&data)?;
        let cluster = PrivateCluster {
            bin,
            data,
            port,
            password,
            started_here: true,
        };
        create_database(&url(&cluster.password, port, "postgres"), DATABASE)?;
        Ok(cluster)
    }

    pub fn database_url(&self) -> String {
        url(&self.password, self.port, DATABASE)
    }

    /// Stops the cluster if this process started it.
    pub fn stop(&self) {
        if !self.started_here {
            return;
        }
        let out = pg_command(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "fast", "-w", "stop"])
            .output();
        match out {
            Ok(o) if o.status.success() => {
                let _ = fs::remove_file(owner_file(&self.data));
                tracing::info!("stopped private PostgreSQL cluster")
            }
            Ok(o) => {
                tracing::warn!(stderr = %String::from_utf8_lossy(&o.stderr), "pg_ctl stop failed")
            }
            Err(e) => tracing::warn!(error = %e, "pg_ctl stop failed"),
        }
    }
}

/// Which Turnpost process answers for the running cluster: its pid, beside the data dir.
fn owner_file(data: &Path) -> PathBuf {
    data.with_extension("owner")
}

fn claim_ownership(data: &Path) -> Result<()> {
    let path = owner_file(data);
    fs::write(&path, std::process::id().to_string())
        .with_context(|| format!("writing {}", path.display()))
}

/// True when the recorded owner is another process that is still running.
fn owner_alive(data: &Path) -> bool {
    let Some(pid) = fs::read_to_string(owner_file(data))
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
    else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    // A zombie (state Z) has exited; /proc/<pid>/stat's third field is the state.
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .is_some_and(|zombie| !zombie)
}

/// The port of a running cluster, from line 4 of `postmaster.pid`.
fn running_port(bin: &Path, data: &Path) -> Option<u16> {
    let status = pg_command(&bin.join("pg_ctl"))
        .arg("-D")
        .arg(data)
        .arg("status")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    let pid = fs::read_to_string(data.join("postmaster.pid")).ok()?;
    pid.lines().nth(3)?.trim().parse().ok()
}

/// Creates `name` unless it exists, connecting to the maintenance database at `admin_url`.
pub fn create_database(admin_url: &str, name: &str) -> Result<()> {
    use diesel::prelude::*;
    use diesel::sql_types::Text;
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        #[allow(dead_code)]
        one: i32,
    }
    let mut conn = wait_for_connection(admin_url, Duration::from_secs(30))?;
    let exists = diesel::sql_query("SELECT 1 AS one FROM pg_database WHERE datname = $1")
        .bind::<Text, _>(name)
        .load::<Found>(&mut conn)?;
    if exists.is_empty() {
        // Identifiers cannot be bound; `name` is ours (never user input) and quoted.
        diesel::sql_query(format!("CREATE DATABASE \"{}\"", name.replace('"', "")))
            .execute(&mut conn)?;
    }
    Ok(())
}

fn wait_for_connection(url: &str, patience: Duration) -> Result<diesel::PgConnection> {
    use diesel::Connection;
    let start = Instant::now();
    loop {
        match diesel::PgConnection::establish(url) {
            Ok(c) => return Ok(c),
            Err(e) if start.elapsed() > patience => bail!("database not reachable: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// A throwaway cluster for one test run, in a temporary directory. The server runs under
/// a small shell watchdog that stops it and deletes the directory when the run is over:
/// when this process exits (however it exits, the pipe to the watchdog closes), or, for a
/// runner that gives every test a process of its own, when that runner's process is gone.
pub struct ThrowawayCluster {
    _watchdog: Option<Child>,
    _stdin: Option<ChildStdin>,
    port: u16,
    password: String,
}

/// What ends a throwaway cluster.
enum Lifetime {
    /// The end of this process: the watchdog reads our stdin.
    ThisProcess,
    /// The end of process `pid`: the watchdog looks once a second, in a process group
    /// of its own with no inherited output, so it outlives the process that started it.
    /// The cluster lives in `root`, which goes with it.
    WhileRunning { pid: u32, root: PathBuf },
}

impl ThrowawayCluster {
    pub fn start() -> Result<ThrowawayCluster> {
        Self::start_for(Lifetime::ThisProcess)
    }

    /// A cluster in directory `root` that lives as long as process `pid` (for example
    /// the test runner that started this test's process), for other processes to
    /// [`ThrowawayCluster::attach`]; `root` is removed with it.
    pub fn start_while_running(pid: u32, root: &Path) -> Result<ThrowawayCluster> {
        Self::start_for(Lifetime::WhileRunning {
            pid,
            root: root.to_path_buf(),
        })
    }

    /// A cluster another process started, by its port and superuser password.
    pub fn attach(port: u16, password: String) -> ThrowawayCluster {
        ThrowawayCluster {
            _watchdog: None,
            _stdin: None,
            port,
            password,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn password(&self) -> &str {
        &self.password
    }

    fn start_for(lifetime: Lifetime) -> Result<ThrowawayCluster> {
        let bin = find_bin_dir()?;
        let root = match &lifetime {
            Lifetime::ThisProcess => std::env::temp_dir().join(format!(
                "turnpost-test-pg-{}-{}",
                std::process::id(),
                random_password()
            )),
            Lifetime::WhileRunning { root, .. } => root.clone(),
        };
        fs::create_dir_all(&root)?;
        let data = root.join("data");
        let password = random_password();
        initdb(&bin, &data, &password)?;
        give_to_postgres(&root)?;
        let port = free_port()?;
        let mut argv: Vec<String> = Vec::new();
        if running_as_root() {
            argv.extend(["runuser", "-u", "postgres", "--"].map(String::from));
        }
        argv.push(bin.join("postgres").display().to_string());
        argv.push("-D".into());
        argv.push(data.display().to_string());
        // A test run keeps dozens of app instances alive at once, each with a small pool
        // and an event listener.
        argv.extend(server_options(port, 1000));
        // Nothing here outlives the run, so durability buys nothing; and the WAL is kept
        // small: a full run creates hundreds of databases while schemathesis writes
        // thousands of games, and with the default 1 GB `max_wal_size` the cluster's
        // directory (in the temporary directory, which may be a small tmpfs) may grow by
        // that much before a checkpoint recycles it.
        for setting in [
            "fsync=off",
            "full_page_writes=off",
            "wal_level=minimal",
            "max_wal_senders=0",
            "max_wal_size=128MB",
            "min_wal_size=32MB",
        ] {
            argv.extend(["-c".to_string(), setting.to_string()]);
        }
        let quoted: Vec<String> = argv.iter().map(|a| shell_quote(a)).collect();
        // Stopped with pg_ctl as the server's own user: a signal to `runuser` is not
        // passed on to the server (SIGINT was not), which left servers and their
        // directories behind after every test run.
        let mut stop: Vec<String> = Vec::new();
        if running_as_root() {
            stop.extend(["runuser", "-u", "postgres", "--"].map(String::from));
        }
        stop.push(bin.join("pg_ctl").display().to_string());
        stop.extend(["stop", "-s", "-m", "immediate", "-D"].map(String::from));
        stop.push(data.display().to_string());
        let stop: Vec<String> = stop.iter().map(|a| shell_quote(a)).collect();
        let wait = match &lifetime {
            Lifetime::ThisProcess => "read _ignored".to_string(),
            Lifetime::WhileRunning { pid, .. } => {
                format!(
                    "while kill -0 {pid} 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1; done"
                )
            }
        };
        let script = format!(
            "{server} >{log} 2>&1 & pid=$!; {wait}; {stop} || kill -TERM $pid; wait $pid; rm -rf {root}",
            server = quoted.join(" "),
            stop = stop.join(" "),
            log = shell_quote(&root.join("server.log").display().to_string()),
            root = shell_quote(&root.display().to_string())
        );
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        match lifetime {
            Lifetime::ThisProcess => {
                command
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped());
            }
            Lifetime::WhileRunning { .. } => {
                use std::os::unix::process::CommandExt;
                command
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .process_group(0);
            }
        }
        let mut watchdog = command.spawn().context("starting the test cluster")?;
        let stdin = watchdog.stdin.take();
        if let Err(e) =
            wait_for_connection(&url(&password, port, "postgres"), Duration::from_secs(60))
        {
            let log = fs::read_to_string(root.join("server.log")).unwrap_or_default();
            let err = watchdog
                .stderr
                .take()
                .map(|s| {
                    BufReader::new(s)
                        .lines()
                        .map_while(Result::ok)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            bail!("test cluster did not come up: {e}\n{log}\n{err}");
        }
        Ok(ThrowawayCluster {
            _watchdog: Some(watchdog),
            _stdin: stdin,
            port,
            password,
        })
    }

    /// A fresh, empty database in this cluster.
    pub fn new_database(&self) -> Result<String> {
        let name = format!("t_{}", random_password());
        create_database(&url(&self.password, self.port, "postgres"), &name)?;
        Ok(url(&self.password, self.port, &name))
    }

    /// The address of database `name` in this cluster.
    pub fn database_url(&self, name: &str) -> String {
        url(&self.password, self.port, name)
    }

    /// A fresh database copied from `template` (which nobody may be connected to): a
    /// file copy, far cheaper than running every migration again.
    pub fn copy_of(&self, template: &str) -> Result<String> {
        use diesel::RunQueryDsl;
        let name = format!("t_{}", random_password());
        let mut conn = wait_for_connection(
            &url(&self.password, self.port, "postgres"),
            Duration::from_secs(30),
        )?;
        // Identifiers cannot be bound; both names are ours (never user input) and quoted.
        diesel::sql_query(format!(
            "CREATE DATABASE \"{}\" TEMPLATE \"{}\" STRATEGY FILE_COPY",
            name.replace('"', ""),
            template.replace('"', "")
        ))
        .execute(&mut conn)
        .with_context(|| format!("copying database {template}"))?;
        Ok(url(&self.password, self.port, &name))
    }
}
