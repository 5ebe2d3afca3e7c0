//! The client's address: what throttles, rate limits, stream limits and the logs key on.
//!
//! It is the TCP peer, unless the peer is one of the operator's trusted proxies
//! (`TURNPOST_TRUSTED_PROXIES`). Behind a proxy every request comes from the proxy, so
//! keying on the peer would make all users share one budget (50 failed logins by anyone
//! would lock everybody out). A trusted proxy's header then names the client: the
//! right-most address in the chain that is not itself a trusted proxy. Left of that the
//! chain is whatever the client sent, and a client can forge it, so it is never read.
//! From a peer that is not trusted the headers are ignored for the same reason.
//!
//! Only the header the operator names (`TURNPOST_CLIENT_ADDRESS_HEADER`) is read. A proxy
//! sets the header it is configured for and passes the other through untouched, so a
//! client's own `Forwarded: for=<victim>` would otherwise arrive as if the proxy wrote it.
//!
//! A forwarded header that cannot be read (before an untrusted address is found) gives
//! the peer, not an error: the request itself is fine, and a broken proxy must not lock
//! users out of the service.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use actix_web::HttpRequest;
use actix_web::http::header::HeaderMap;
use actix_web::web;
use ipnet::IpNet;

use crate::settings::ClientAddressHeader;

/// The operator's trusted proxies and the header they name the client in; empty (the
/// default): trust nobody.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
    header: ClientAddressHeader,
}

impl TrustedProxies {
    /// A comma-separated list of CIDRs (`10.0.0.0/8`) or single addresses (`::1`).
    pub fn parse(list: &str) -> Result<TrustedProxies, String> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<IpNet>()
                    .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                    .map(|n| n.trunc())
                    .map_err(|_| format!("{s:?} is neither a CIDR nor an IP address"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|nets| TrustedProxies {
                nets,
                header: ClientAddressHeader::default(),
            })
    }

    /// The same proxies, read from `header` only.
    pub fn reading(self, header: ClientAddressHeader) -> TrustedProxies {
        TrustedProxies { header, ..self }
    }

    fn trusts(&self, addr: IpAddr) -> bool {
        let addr = addr.to_canonical();
        self.nets.iter().any(|n| n.contains(&addr))
    }
}

/// The client address of `req` (see the module's description); the unspecified address
/// when the peer is unknown (a test request without a socket).
pub fn of(req: &HttpRequest) -> IpAddr {
    let trusted = req.app_data::<web::Data<TrustedProxies>>();
    let peer = req.peer_addr().map(|a| a.ip());
    match (trusted, peer) {
        (Some(t), Some(p)) => resolve(p, req.headers(), t),
        (None, Some(p)) => p.to_canonical(),
        (_, None) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
    }
}

/// The client address of a request from `peer` with `headers`.
pub fn resolve(peer: IpAddr, headers: &HeaderMap, trusted: &TrustedProxies) -> IpAddr {
    let peer = peer.to_canonical();
    if !trusted.trusts(peer) {
        return peer;
    }
    let chain = match trusted.header {
        ClientAddressHeader::XForwardedFor => x_forwarded_for_chain(headers),
        ClientAddressHeader::Forwarded => forwarded_chain(headers),
    };
    let mut leftmost = peer;
    // From the nearest hop outwards: each trusted hop vouches for the one before it.
    for hop in chain.iter().rev() {
        match hop {
            Some(addr) if trusted.trusts(*addr) => leftmost = *addr,
            Some(addr) => return *addr,
            None => return peer,
        }
    }
    // Only trusted proxies (or no header): the farthest one is as near the client as known.
    leftmost
}

/// The `for=` addresses of every `Forwarded` element, first hop first; `None` for one
/// that is not an address (`unknown`, an obfuscated `_name`, garbage).
fn forwarded_chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let mut chain = Vec::new();
    for value in headers.get_all("forwarded") {
        let Ok(value) = value.to_str() else {
            chain.push(None);
            continue;
        };
        for element in value.split(',') {
            let node = element.split(';').find_map(|pair| {
                let (key, value) = pair.split_once('=')?;
                key.trim()
                    .eq_ignore_ascii_case("for")
                    .then_some(value.trim())
            });
            // An element without `for=` (only `proto=`, say) names no hop.
            if let Some(node) = node {
                chain.push(node_address(node.trim_matches('"')));
            }
        }
    }
    chain
}

/// The addresses of every `X-Forwarded-For` entry, first hop first.
fn x_forwarded_for_chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let mut chain = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        match value.to_str() {
            Ok(v) => chain.extend(
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(node_address),
            ),
            Err(_) => chain.push(None),
        }
    }
    chain
}

/// `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]`, `[2001:db8::1]:4711` or `2001:db8::1`.
fn node_address(node: &str) -> Option<IpAddr> {
    if let Some(rest) = node.strip_prefix('[') {
        let (v6, _port) = rest.split_once(']')?;
        return v6
            .parse::<Ipv6Addr>()
            .ok()
            .map(|a| IpAddr::V6(a).to_canonical());
    }
    if let Ok(addr) = node.parse::<IpAddr>() {
        return Some(addr.to_canonical());
    }
    let (v4, port) = node.split_once(':')?;
    port.parse::<u16>().ok()?;
    v4.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for &(k, v) in pairs {
            h.append(HeaderName::from_static(k), HeaderValue::from_static(v));
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_sends() {
        let t = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let h = headers(&[("x-forwarded-for", "1.2.3.4"), ("forwarded", "for=5.6.7.8")]);
        assert_eq!(resolve(ip("192.0.2.9"), &h, &t), ip("192.0.2.9"));
        let none = TrustedProxies::default();
        assert_eq!(resolve(ip("10.0.0.1"), &h, &none), ip("10.0.0.1"));
    }

    #[test]
    fn a_trusted_proxy_names_the_rightmost_untrusted_hop() {
        let t = TrustedProxies::parse("10.0.0.0/8, 127.0.0.1").unwrap();
        let h = headers(&[("x-forwarded-for", "6.6.6.6, 1.2.3.4, 10.1.1.1")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &t), ip("1.2.3.4"));
        // Two header lines are one list.
        let h = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "1.2.3.4"),
        ]);
        assert_eq!(resolve(ip("10.0.0.2"), &h, &t), ip("1.2.3.4"));
        // Only proxies: the farthest one.
        let h = headers(&[("x-forwarded-for", "10.9.9.9, 10.1.1.1")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &t), ip("10.9.9.9"));
        // No header at all: the peer.
        assert_eq!(
            resolve(ip("127.0.0.1"), &HeaderMap::new(), &t),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn forwarded_is_read_per_rfc_7239_when_named() {
        let t = TrustedProxies::parse("127.0.0.1/32")
            .unwrap()
            .reading(ClientAddressHeader::Forwarded);
        let h = headers(&[
            (
                "forwarded",
                "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https;by=127.0.0.1",
            ),
            ("x-forwarded-for", "9.9.9.9"),
        ]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &t), ip("2001:db8:cafe::17"));
        let h = headers(&[("forwarded", "For=\"192.0.2.43:47011\"")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &t), ip("192.0.2.43"));
    }

    #[test]
    fn only_the_named_header_is_read() {
        // A proxy that sets X-Forwarded-For passes the client's own Forwarded through.
        let h = headers(&[
            ("forwarded", "for=192.0.2.66"),
            ("x-forwarded-for", "198.51.100.7"),
        ]);
        let xff = TrustedProxies::parse("127.0.0.1").unwrap();
        assert_eq!(resolve(ip("127.0.0.1"), &h, &xff), ip("198.51.100.7"));
        let only_forwarded = headers(&[("forwarded", "for=192.0.2.66")]);
        assert_eq!(
            resolve(ip("127.0.0.1"), &only_forwarded, &xff),
            ip("127.0.0.1")
        );
        // And the other way round.
        let fwd = xff.reading(ClientAddressHeader::Forwarded);
        let h = headers(&[
            ("forwarded", "for=198.51.100.7"),
            ("x-forwarded-for", "192.0.2.66"),
        ]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &fwd), ip("198.51.100.7"));
        let only_xff = headers(&[("x-forwarded-for", "192.0.2.66")]);
        assert_eq!(resolve(ip("127.0.0.1"), &only_xff, &fwd), ip("127.0.0.1"));
    }

    #[test]
    fn garbage_before_the_client_gives_the_peer_and_garbage_beyond_it_is_ignored() {
        let t = TrustedProxies::parse("127.0.0.1").unwrap();
        for bad in ["not-an-address", "unknown", "1.2.3.4, _hidden", "[::1"] {
            let h = headers(&[("x-forwarded-for", bad)]);
            assert_eq!(resolve(ip("127.0.0.1"), &h, &t), ip("127.0.0.1"), "{bad}");
        }
        let h = headers(&[("forwarded", "for=unknown")]);
        let fwd = t.clone().reading(ClientAddressHeader::Forwarded);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &fwd), ip("127.0.0.1"));
        let h = headers(&[("x-forwarded-for", "<script>, 1.2.3.4")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &t), ip("1.2.3.4"));
    }

    #[test]
    fn mapped_addresses_match_their_ipv4_entries() {
        let t = TrustedProxies::parse("127.0.0.1/32").unwrap();
        let h = headers(&[("x-forwarded-for", "::ffff:1.2.3.4")]);
        assert_eq!(resolve(ip("::ffff:127.0.0.1"), &h, &t), ip("1.2.3.4"));
    }

    #[test]
    fn bad_lists_are_refused() {
        assert!(TrustedProxies::parse("").unwrap().nets.is_empty());
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("proxy.example.org").is_err());
        assert_eq!(
            TrustedProxies::parse("10.1.2.3/8").unwrap().nets,
            vec!["10.0.0.0/8".parse::<IpNet>().unwrap()]
        );
    }
}
