//! What the benchmarks that run a real cluster share.

use std::path::PathBuf;
use std::process::Child;

use turnpost::embedded_pg::PrivateCluster;

/// `name` from the environment as a number, or `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The cluster (and server) of a run; stopped and removed however the run ends.
pub struct Rig {
    pub var: PathBuf,
    pub cluster: Option<PrivateCluster>,
    pub server: Option<Child>,
}

impl Rig {
    /// A private cluster (started as `turnpost serve` starts its own) in a fresh directory
    /// named for the bench, and its database URL. (`http_load` starts its cluster with
    /// `pg_stat_statements` loaded, so not every bench calls this.)
    #[allow(dead_code)]
    pub fn start(name: &str) -> anyhow::Result<(Rig, String)> {
        let var = std::env::temp_dir().join(format!("turnpost-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&var)?;
        let mut rig = Rig {
            var,
            cluster: None,
            server: None,
        };
        let cluster = PrivateCluster::ensure_running(&rig.var.join("pg"))?;
        let url = cluster.database_url();
        rig.cluster = Some(cluster);
        Ok((rig, url))
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        if let Some(mut s) = self.server.take() {
            let _ = s.kill();
            let _ = s.wait();
        }
        if let Some(c) = self.cluster.take() {
            c.stop();
        }
        let _ = std::fs::remove_dir_all(&self.var);
    }
}
