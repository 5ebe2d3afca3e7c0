//! Webhook deliveries: the signed POST the outbox worker makes for a row of kind
//! `webhook`, and the guard that keeps webhooks off the server's own network.
//!
//! Signature: `Turnpost-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` of
//! `"{t}.{body}"` under the webhook's secret (its UTF-8 bytes, as shown at creation). The
//! time is part of what is signed so a receiver can refuse old deliveries replayed;
//! `Turnpost-Delivery` (the outbox row) stays the same on retries, for idempotency.
//!
//! SSRF: unless `webhook_allow_private` is set, a webhook never reaches a loopback, private,
//! link-local or otherwise non-global address. URLs naming such an address are refused when
//! registered; host names are checked where it matters, when they are resolved for the
//! connection (the resolver drops such addresses, so a name that points inside fails).
//! Redirects are not followed and proxies are not used, so neither can lead elsewhere.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use hmac::{Hmac, Mac};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use sha2::Sha256;

/// How webhooks are sent; one blocking client, made on first use (in the worker's thread:
/// a blocking client must not be made or dropped inside the async server).
pub struct WebhookPolicy {
    pub allow_private: bool,
    pub timeout: Duration,
    client: OnceLock<reqwest::blocking::Client>,
}

impl Clone for WebhookPolicy {
    /// A copy makes its own client when it needs one, so a client made in the worker is
    /// never dropped by a copy living in the async server.
    fn clone(&self) -> Self {
        WebhookPolicy::new(self.allow_private, self.timeout)
    }
}

/// Makes ring the process's rustls crypto provider, unless one is set. The webhook client
/// brings its own, but its reqwest features (TLS without a bundled provider) apply to every
/// reqwest client in the process, and those built without a preconfigured TLS need a
/// process default.
pub fn install_tls_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err: another thread installed one a moment ago, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

impl WebhookPolicy {
    pub fn new(allow_private: bool, timeout: Duration) -> WebhookPolicy {
        install_tls_provider();
        WebhookPolicy {
            allow_private,
            timeout,
            client: OnceLock::new(),
        }
    }

    /// Whether a webhook may reach `ip`.
    pub fn allows(&self, ip: IpAddr) -> bool {
        self.allow_private || is_global(ip)
    }

    fn client(&self) -> Result<&reqwest::blocking::Client> {
        if let Some(c) = self.client.get() {
            return Ok(c);
        }
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .context("TLS versions")?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let client = reqwest::blocking::Client::builder()
            .tls_backend_preconfigured(tls)
            .dns_resolver(Arc::new(GuardedResolver {
                allow_private: self.allow_private,
            }))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(self.timeout)
            .connect_timeout(self.timeout)
            .user_agent(concat!("Turnpost-Webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .context("building the webhook client")?;
        Ok(self.client.get_or_init(|| client))
    }

    /// POSTs `body` to `url`, signed with `secret`; a receiver answering other than 2xx (or
    /// not in time) is an error, and the delivery is retried.
    pub fn post(
        &self,
        url: &str,
        secret: &str,
        event: &str,
        delivery: &str,
        body: Vec<u8>,
    ) -> Result<()> {
        let parsed = url::Url::parse(url).context("webhook URL")?;
        // Literal addresses never meet the resolver.
        let literal = match parsed.host() {
            Some(url::Host::Ipv4(a)) => Some(IpAddr::V4(a)),
            Some(url::Host::Ipv6(a)) => Some(IpAddr::V6(a)),
            _ => None,
        };
        if let Some(ip) = literal.filter(|ip| !self.allows(*ip)) {
            return Err(anyhow!("{ip} is not an address webhooks may reach"));
        }
        let t = chrono::Utc::now().timestamp();
        let response = self
            .client()?
            .post(parsed)
            .header("Content-Type", "application/json")
            .header("Turnpost-Event", event)
            .header("Turnpost-Delivery", delivery)
            .header("Turnpost-Signature", signature_header(secret, t, &body)?)
            .body(body)
            .send()
            .map_err(|e| anyhow!("{}", describe(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(anyhow!("the receiver answered {status}"));
        }
        Ok(())
    }
}

/// `reqwest`'s error with its causes (the top level alone says only "error sending request").
fn describe(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        "the receiver did not answer in time".to_string()
    } else {
        e.to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// `t=<t>,v1=<hex HMAC-SHA256 of "{t}.{body}">`.
pub fn signature_header(secret: &str, t: i64, body: &[u8]) -> Result<String> {
    Ok(format!("t={t},v1={}", sign(secret, t, body)?))
}

/// The hex HMAC-SHA256 of `"{t}.{body}"` under `secret`.
pub fn sign(secret: &str, t: i64, body: &[u8]) -> Result<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .map_err(|e| anyhow!("signing key: {e}"))?;
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(hex::encode(mac.finalize().into_bytes()))
}

/// Resolves with the system resolver, then drops the addresses webhooks may not reach.
struct GuardedResolver {
    allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let allow_private = self.allow_private;
        Box::pin(async move {
            let found = tokio::task::spawn_blocking(move || {
                (host.as_str(), 0)
                    .to_socket_addrs()
                    .map(|a| a.collect::<Vec<SocketAddr>>())
            })
            .await??;
            let kept: Vec<SocketAddr> = found
                .into_iter()
                .filter(|a| allow_private || is_global(a.ip()))
                .collect();
            if kept.is_empty() {
                return Err("the host has no address webhooks may reach \
                            (loopback, private and link-local addresses are refused)"
                    .into());
            }
            let addrs: Addrs = Box::new(kept.into_iter());
            Ok(addrs)
        })
    }
}

/// Whether `ip` is an ordinary address on the internet: not loopback, private, link-local,
/// shared (carrier NAT), unspecified, multicast, broadcast, documentation, benchmarking or
/// reserved. IPv4 inside IPv6 (mapped, or NAT64's well-known prefix) is judged as IPv4.
/// (`IpAddr::is_global` would say this, but it is not stable yet.)
pub fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => {
            let [o1, o2, o3, _] = a.octets();
            !(a.is_private()
                || a.is_loopback()
                || a.is_link_local()
                || a.is_unspecified()
                || a.is_broadcast()
                || a.is_documentation()
                || a.is_multicast()
                || o1 == 0
                || (o1 == 100 && (64..128).contains(&o2))
                || (o1 == 192 && o2 == 0 && o3 == 0)
                || (o1 == 198 && (18..20).contains(&o2))
                || o1 >= 240)
        }
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return is_global(IpAddr::V4(v4));
            }
            let s = a.segments();
            let v4 = |hi: u16, lo: u16| {
                let [a, b] = hi.to_be_bytes();
                let [c, d] = lo.to_be_bytes();
                IpAddr::V4(std::net::Ipv4Addr::new(a, b, c, d))
            };
            // NAT64's well-known prefix and IPv4-translated addresses (SIIT, ::ffff:0:0/96)
            // carry the IPv4 address in their last 32 bits.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || s[..6] == [0, 0, 0, 0, 0xffff, 0] {
                return is_global(v4(s[6], s[7]));
            }
            // 6to4 (2002::/16) carries it in bits 16 to 48: 2002:7f00:1::1 is 127.0.0.1.
            if s[0] == 0x2002 {
                return is_global(v4(s[1], s[2]));
            }
            !(a.is_loopback()
                // Teredo (2001::/32) and the other IETF protocol assignments in 2001::/23
                || (s[0] == 0x2001 && s[1] < 0x0200)
                // NAT64 for local use, 64:ff9b:1::/48 (RFC 8215)
                || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1)
                // site-local (deprecated, still routed inside some sites), fec0::/10
                || (s[0] & 0xffc0) == 0xfec0
                // discard-only, 100::/64
                || s[..4] == [0x100, 0, 0, 0]
                || a.is_unspecified()
                || a.is_multicast()
                || a.is_unique_local()
                || a.is_unicast_link_local()
                // IPv4-compatible (deprecated) and other addresses under ::/96
                || s[..6] == [0; 6]
                // documentation, 2001:db8::/32
                || (s[0] == 0x2001 && s[1] == 0x0db8))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_not_global() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2001:db8::1",
            // IPv6 transition ranges (IPv4-translated, 6to4, Teredo) embed IPv4 addresses,
            // which may be private; site-local, local NAT64 and discard-only ranges are not
            // routed on the internet: none of these is a public address.
            "::ffff:0:7f00:1",
            "::ffff:0:a00:1",
            "2002:7f00:1::1",
            "2002:a00:1::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "fec0::1",
            "64:ff9b:1::a9fe:a9fe",
            "100::1",
        ] {
            assert!(!is_global(a.parse().unwrap()), "{a}");
        }
        for a in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700:4700::1111",
            // 6to4 of a public address, and NAT64 of one.
            "2002:101:101::1",
            "64:ff9b::101:101",
        ] {
            assert!(is_global(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn the_signature_is_the_hmac_of_time_dot_body() {
        // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
        assert_eq!(
            sign("whsec_test", 1_700_000_000, br#"{"a":1}"#).unwrap(),
            "38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789"
        );
    }
}
