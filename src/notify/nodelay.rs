//! Nagle's algorithm off on the pooled SMTP connections. lettre (0.11.23, its newest
//! release) leaves it on, and writes the end of a message (`\r\n.\r\n`) as a second small
//! write after the body: Nagle holds that write until the server acknowledges the body, and
//! the server delays its acknowledgement (40 ms on Linux) because it waits for the rest.
//! Every message then takes 40 ms more on its connection, whatever the machine: at most 25
//! emails a second per connection. lettre has merged the fix (setting `TCP_NODELAY` on its
//! sockets, lettre pull request 1159) but not released it; until it is, the outbox worker
//! sets the option itself before each send. lettre's pool does not hand its sockets out, so
//! they are found among the process's file descriptors by the address they are connected
//! to: the SMTP server's. (Setting it on any other socket would be harmless too: it only
//! makes small writes go out at once.) A connection the pool opens during a send gets the
//! option before the next one.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};

/// The SMTP server's addresses, whose sockets get `TCP_NODELAY`.
#[derive(Clone, Debug)]
pub struct NoDelay {
    peers: Vec<SocketAddr>,
}

impl NoDelay {
    /// For the server of an SMTP URL (`smtp://host:port`, `smtps://…`; lettre's default
    /// ports: 25, 587 with `tls=`, 465 for `smtps`). An address that does not resolve
    /// yields no peers, so nothing is changed.
    pub fn for_url(smtp_url: &str) -> NoDelay {
        let peers = url::Url::parse(smtp_url)
            .ok()
            .and_then(|u| {
                let host = u
                    .host_str()?
                    .trim_matches(|c| c == '[' || c == ']')
                    .to_string();
                let default = match (u.scheme(), u.query_pairs().any(|(k, _)| k == "tls")) {
                    ("smtps", _) => 465,
                    (_, true) => 587,
                    _ => 25,
                };
                let port = u.port().unwrap_or(default);
                (host.as_str(), port).to_socket_addrs().ok()
            })
            .map(|addrs| addrs.collect())
            .unwrap_or_default();
        NoDelay { peers }
    }

    /// Sets `TCP_NODELAY` on every socket of this process connected to the server;
    /// returns how many such sockets there are. Errors are ignored: at worst a message
    /// waits as it did before.
    pub fn apply(&self) -> usize {
        if self.peers.is_empty() {
            return 0;
        }
        apply(&self.peers)
    }
}

#[cfg(target_os = "linux")]
fn apply(peers: &[SocketAddr]) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return 0;
    };
    let mut found = 0;
    for entry in dir.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if !std::fs::read_link(entry.path())
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
        {
            continue;
        }
        if peer_of(fd).is_some_and(|p| peers.contains(&p)) {
            let one: libc::c_int = 1;
            // SAFETY: plain system calls on a descriptor number with a pointer to a local
            // of the size passed; on a descriptor that was closed meanwhile (or reused by
            // another socket) they fail or set a harmless option.
            let set = unsafe {
                libc::setsockopt(
                    fd,
                    libc::IPPROTO_TCP,
                    libc::TCP_NODELAY,
                    (&one as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
            if set == 0 {
                found += 1;
            }
        }
    }
    found
}

#[cfg(not(target_os = "linux"))]
fn apply(_peers: &[SocketAddr]) -> usize {
    0
}

/// The address a socket is connected to.
#[cfg(target_os = "linux")]
fn peer_of(fd: i32) -> Option<SocketAddr> {
    // SAFETY: an all-zero sockaddr_storage is valid; getpeername writes at most `len`
    // bytes into it and reports the length it wrote.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    let got = unsafe {
        libc::getpeername(
            fd,
            (&mut storage as *mut libc::sockaddr_storage).cast(),
            &mut len,
        )
    };
    if got != 0 {
        return None;
    }
    match i32::from(storage.ss_family) {
        libc::AF_INET if len as usize >= std::mem::size_of::<libc::sockaddr_in>() => {
            // SAFETY: the family says the storage holds a sockaddr_in, of the length read.
            let a: libc::sockaddr_in =
                unsafe { *(&storage as *const libc::sockaddr_storage).cast() };
            Some(SocketAddr::new(
                IpAddr::V4(Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr))),
                u16::from_be(a.sin_port),
            ))
        }
        libc::AF_INET6 if len as usize >= std::mem::size_of::<libc::sockaddr_in6>() => {
            // SAFETY: as above, for sockaddr_in6.
            let a: libc::sockaddr_in6 =
                unsafe { *(&storage as *const libc::sockaddr_storage).cast() };
            Some(SocketAddr::new(
                IpAddr::V6(Ipv6Addr::from(a.sin6_addr.s6_addr)),
                u16::from_be(a.sin6_port),
            ))
        }
        _ => None,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn sockets_to_the_server_get_nodelay_and_others_do_not() {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        let to_server = TcpStream::connect(server.local_addr().unwrap()).unwrap();
        let to_other = TcpStream::connect(other.local_addr().unwrap()).unwrap();
        assert!(!to_server.nodelay().unwrap() && !to_other.nodelay().unwrap());
        let url = format!("smtp://127.0.0.1:{}", server.local_addr().unwrap().port());
        assert_eq!(NoDelay::for_url(&url).apply(), 1);
        assert!(to_server.nodelay().unwrap());
        assert!(!to_other.nodelay().unwrap());
        // Default ports as lettre has them; an unknown host changes nothing.
        assert_eq!(
            NoDelay::for_url("smtps://u:p@127.0.0.1").peers,
            vec!["127.0.0.1:465".parse().unwrap()]
        );
        assert_eq!(
            NoDelay::for_url("smtp://127.0.0.1?tls=required").peers,
            vec!["127.0.0.1:587".parse().unwrap()]
        );
        assert_eq!(NoDelay::for_url("not a url").apply(), 0);
    }
}
