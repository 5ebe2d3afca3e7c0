//! Request budgets for the API: per account for a caller that sends a token (all of an
//! account's tokens, login and personal, spend one budget: a fresh token or sign-in is no
//! fresh budget), per client address for everyone else, so that one runaway client cannot
//! take the server from the others, and a client can see its budget before it runs out.
//!
//! - Every answer under `/api/v1/` says where its caller stands, with the headers of the
//!   IETF draft (draft-ietf-httpapi-ratelimit-headers, the `RateLimit-Limit` form GitHub and
//!   others send): `RateLimit-Limit` (requests per minute), `RateLimit-Remaining` (requests
//!   that may be made at once now), `RateLimit-Reset` (seconds until the whole budget is
//!   back) and `RateLimit-Policy` (`<limit>;w=60`).
//! - Past the budget: 429 `rate_limited` with `Retry-After` (seconds until one more request
//!   is allowed), and the request does nothing.
//! - A budget is a minute's worth of requests that may be spent at once and comes back
//!   steadily (GCRA, by the `governor` crate): a client that waits `60/limit` seconds
//!   between requests is never refused.
//! - A login token names its account in its signature; a personal access token is looked
//!   up once (what it belongs to never changes) and then remembered. A token that names no
//!   account spends a budget of its own, and when the server refuses it (401) its client
//!   address is charged as well: otherwise a fresh made-up token would be a fresh budget.
//! - Not limited: the inbound mail endpoint (the mail server's, with its own secret), and
//!   everything outside `/api/v1/` (health, metrics, the description, the web client).
//!
//! Budgets are per node, in memory: with two nodes behind one balancer a client may make
//! up to twice its budget. A restart forgives.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use actix_web::middleware::Next;
use actix_web::{ResponseError, web};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use sha2::{Digest, Sha256};

use super::problem::ApiError;
use crate::auth::jwt::TicketParent;
use crate::domain::{Domain, ProblemCode};
use crate::store::kinds::AccountId;

/// A budget's window: the limits are requests per minute.
const WINDOW_SECS: u64 = 60;

/// Personal access tokens whose account is remembered (a few bytes each).
const REMEMBERED_TOKENS: usize = 100_000;

/// How many checks between sweeps of keys whose budget is full again (bounds memory under
/// a flood of distinct tokens or addresses).
const SWEEP_EVERY: u64 = 4096;

type Limiter<K> = RateLimiter<
    K,
    governor::state::keyed::DefaultKeyedStateStore<K>,
    DefaultClock,
    StateInformationMiddleware,
>;

/// The budgets, from the settings: requests per minute, `None` for no limit.
#[derive(Clone, Copy, Debug)]
pub struct Budgets {
    pub per_account: Option<NonZeroU32>,
    pub per_address: Option<NonZeroU32>,
}

pub struct RateLimits {
    per_account: Option<(NonZeroU32, Limiter<Key>)>,
    per_address: Option<(NonZeroU32, Limiter<IpAddr>)>,
    /// Addresses whose refused tokens used up their budget, until when.
    barred: Mutex<HashMap<IpAddr, Instant>>,
    /// The account of each personal access token seen (by its key): a token never changes
    /// hands, so this is never stale, and a request past its budget costs no query.
    pat_accounts: quick_cache::sync::Cache<[u8; 32], AccountId>,
    checks: AtomicU64,
}

/// The budget a request with a token spends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// The token's account: all its tokens share the budget.
    Account(AccountId),
    /// A token that names no account (made up, malformed, revoked), by its hash: the
    /// table of budgets holds no usable token.
    Token([u8; 32]),
}

/// Whose budget a request spends.
enum Caller {
    Bearer(Key),
    Address,
}

/// Where a caller stands after a request was let through.
struct Standing {
    limit: u32,
    remaining: u32,
    reset_secs: u64,
}

impl RateLimits {
    pub fn new(budgets: Budgets) -> RateLimits {
        fn limiter<K: std::hash::Hash + Eq + Clone>(n: NonZeroU32) -> (NonZeroU32, Limiter<K>) {
            let limiter: DefaultKeyedRateLimiter<K> = RateLimiter::keyed(Quota::per_minute(n));
            (n, limiter.with_middleware::<StateInformationMiddleware>())
        }
        RateLimits {
            per_account: budgets.per_account.map(limiter),
            per_address: budgets.per_address.map(limiter),
            barred: Mutex::new(HashMap::new()),
            pat_accounts: quick_cache::sync::Cache::new(REMEMBERED_TOKENS),
            checks: AtomicU64::new(0),
        }
    }

    /// Spends one request of the caller's budget: where it stands, or the refusal.
    fn spend(&self, caller: &Caller, address: IpAddr) -> Result<Option<Standing>, Box<ApiError>> {
        self.sweep_now_and_then();
        match caller {
            Caller::Bearer(key) => {
                if let Some(wait) = self.barred_for(address) {
                    return Err(refusal(
                        self.per_address.as_ref().map_or(0, |(n, _)| n.get()),
                        wait,
                        "this address sent too many tokens the server refused",
                    ));
                }
                let why = match key {
                    Key::Account(_) => "this account made too many requests (with all its tokens)",
                    Key::Token(_) => "this token made too many requests",
                };
                match &self.per_account {
                    Some((n, l)) => check(*n, l, key, why),
                    None => Ok(None),
                }
            }
            Caller::Address => match &self.per_address {
                Some((n, l)) => check(
                    *n,
                    l,
                    &address,
                    "this client address made too many requests without a token",
                ),
                None => Ok(None),
            },
        }
    }

    /// A refused token costs its address one request; an address out of budget that way
    /// may not try tokens until its budget allows again.
    fn charge_refused_token(&self, address: IpAddr) {
        let Some((_, l)) = &self.per_address else {
            return;
        };
        if let Err(not_until) = l.check_key(&address) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            if let Ok(mut barred) = self.barred.lock() {
                barred.insert(address, Instant::now() + wait);
            }
        }
    }

    fn barred_for(&self, address: IpAddr) -> Option<Duration> {
        let barred = self.barred.lock().ok()?;
        let until = *barred.get(&address)?;
        until.checked_duration_since(Instant::now())
    }

    fn sweep_now_and_then(&self) {
        if !self
            .checks
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(SWEEP_EVERY)
        {
            return;
        }
        if let Some((_, l)) = &self.per_account {
            l.retain_recent();
            l.shrink_to_fit();
        }
        if let Some((_, l)) = &self.per_address {
            l.retain_recent();
            l.shrink_to_fit();
        }
        if let Ok(mut barred) = self.barred.lock() {
            let now = Instant::now();
            barred.retain(|_, until| *until > now);
        }
    }
}

fn check<K: std::hash::Hash + Eq + Clone>(
    limit: NonZeroU32,
    limiter: &Limiter<K>,
    key: &K,
    why: &str,
) -> Result<Option<Standing>, Box<ApiError>> {
    match limiter.check_key(key) {
        Ok(snapshot) => {
            let remaining = snapshot.remaining_burst_capacity();
            let spent = u64::from(limit.get().saturating_sub(remaining));
            // One request comes back every `WINDOW_SECS / limit` seconds.
            let reset_secs = (spent * WINDOW_SECS).div_ceil(u64::from(limit.get()));
            Ok(Some(Standing {
                limit: limit.get(),
                remaining,
                reset_secs,
            }))
        }
        Err(not_until) => Err(refusal(
            limit.get(),
            not_until.wait_time_from(DefaultClock::default().now()),
            why,
        )),
    }
}

fn refusal(limit: u32, wait: Duration, why: &str) -> Box<ApiError> {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let secs = secs.max(1);
    let mut e = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ProblemCode::RateLimited,
        format!("{why}: {limit} a minute are allowed; retry in {secs} s"),
    );
    e.retry_after = Some(secs);
    e.extra
        .insert("limit".into(), serde_json::Value::from(u64::from(limit)));
    e.extra
        .insert("retry_after".into(), serde_json::Value::from(secs));
    Box::new(e)
}

/// Whether a request spends a budget: the API, but not the mail server's endpoint.
fn limited(path: &str) -> bool {
    path.starts_with("/api/v1/") && path != "/api/v1/inbound/email"
}

/// Whose budget the request spends: the account its token names, if it names one. A token
/// sent from an address barred for refused tokens is not looked up: it is refused anyway.
async fn caller(req: &ServiceRequest, limits: &RateLimits, address: IpAddr) -> Caller {
    let token = match super::auth::bearer_token(req.request()) {
        Some(token) if !token.is_empty() => token,
        _ => return Caller::Address,
    };
    let by_token = || Caller::Bearer(Key::Token(Sha256::digest(token.as_bytes()).into()));
    if limits.per_account.is_none() || limits.barred_for(address).is_some() {
        return by_token();
    }
    let Some(domain) = req.app_data::<web::Data<Domain>>().cloned() else {
        return by_token();
    };
    match limits.account_of(domain, &token).await {
        Some(account) => Caller::Bearer(Key::Account(account)),
        None => by_token(),
    }
}

impl RateLimits {
    /// The account a token belongs to, if it is one of ours: a login token's by its
    /// signature (whether it is still good is the route's business), a personal access
    /// token's as remembered or looked up.
    async fn account_of(&self, domain: web::Data<Domain>, token: &str) -> Option<AccountId> {
        let parent = super::auth::token_parent(&domain, token)?;
        match parent {
            TicketParent::Login { account, .. } => Some(account),
            TicketParent::Pat { key } => {
                if let Some(account) = self.pat_accounts.get(&key) {
                    return Some(account);
                }
                // The same check the route makes next, which then finds it in memory.
                let checked = super::auth::parent_session(domain, parent).await.ok()?;
                self.pat_accounts.insert(key, checked.account);
                Some(checked.account)
            }
        }
    }
}

fn set_headers(headers: &mut HeaderMap, s: &Standing) {
    let mut put = |name: &'static str, value: String| {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), v);
        }
    };
    put("ratelimit-limit", s.limit.to_string());
    put("ratelimit-remaining", s.remaining.to_string());
    put("ratelimit-reset", s.reset_secs.to_string());
    put("ratelimit-policy", format!("{};w={WINDOW_SECS}", s.limit));
}

pub async fn enforce(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let limits = req.app_data::<web::Data<RateLimits>>().cloned();
    // Behind a trusted proxy, the client it names (see `client_addr`).
    let address = req
        .peer_addr()
        .map(|_| super::client_addr::of(req.request()));
    let (Some(limits), Some(address)) = (limits.filter(|_| limited(req.path())), address) else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let caller = caller(&req, &limits, address).await;
    let standing = match limits.spend(&caller, address) {
        Ok(s) => s,
        Err(e) => {
            let limit = e.extra.get("limit").and_then(|v| v.as_u64()).unwrap_or(0);
            let retry = e.retry_after.unwrap_or(1);
            let mut resp = e.error_response();
            set_headers(
                resp.headers_mut(),
                &Standing {
                    limit: u32::try_from(limit).unwrap_or(u32::MAX),
                    remaining: 0,
                    reset_secs: retry,
                },
            );
            debug_assert!(resp.headers().contains_key(RETRY_AFTER));
            return Ok(req.into_response(resp));
        }
    };
    let mut res = next.call(req).await?.map_into_boxed_body();
    if matches!(caller, Caller::Bearer(_)) && res.status() == StatusCode::UNAUTHORIZED {
        limits.charge_refused_token(address);
    }
    if let Some(s) = standing {
        set_headers(res.headers_mut(), &s);
    }
    Ok(res)
}

/// Declares the budgets in the API description: the `RateLimit-*` headers on every answer
/// of a limited operation, and its 429 `rate_limited` (added to a 429 it already has).
pub fn describe(doc: &mut serde_json::Value) {
    use serde_json::{Value, json};
    const HEADERS: [(&str, &str, &str); 4] = [
        (
            "RateLimit-Limit",
            "RateLimitLimit",
            "Requests a minute this caller's budget allows: per account (shared by all its tokens) for requests with a bearer token, or per client address for requests without one.",
        ),
        (
            "RateLimit-Remaining",
            "RateLimitRemaining",
            "Requests this caller may still make at once.",
        ),
        (
            "RateLimit-Reset",
            "RateLimitReset",
            "Seconds until the whole budget is back (it comes back steadily, one request every 60/limit seconds).",
        ),
        (
            "RateLimit-Policy",
            "RateLimitPolicy",
            "The budget as `<limit>;w=60`: requests per 60-second window.",
        ),
    ];
    if let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) {
        let headers = components.entry("headers").or_insert_with(|| json!({}));
        if let Some(headers) = headers.as_object_mut() {
            for (_, id, description) in HEADERS {
                let schema = if id == "RateLimitPolicy" {
                    json!({ "type": "string", "pattern": "^[0-9]+;w=[0-9]+$" })
                } else {
                    json!({ "type": "integer", "minimum": 0 })
                };
                headers.insert(
                    id.into(),
                    json!({ "description": description, "schema": schema }),
                );
            }
            headers.insert(
                "RetryAfter".into(),
                json!({
                    "description": "Seconds to wait before retrying.",
                    "schema": { "type": "integer", "minimum": 1 }
                }),
            );
        }
    }
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if !limited(path) {
            continue;
        }
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut() {
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            let refusal = responses.entry("429").or_insert_with(|| {
                json!({
                    "description": "",
                    "content": { "application/problem+json": {
                        "schema": { "$ref": "#/components/schemas/Problem" }
                    } },
                    "headers": {
                        "Retry-After": { "$ref": "#/components/headers/RetryAfter" },
                        "X-Request-Id": { "$ref": "#/components/headers/RequestId" }
                    }
                })
            });
            if let Some(refusal) = refusal.as_object_mut() {
                let said = refusal
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let ours = "`rate_limited`: past this caller's request budget (see `RateLimit-*`); wait for `Retry-After` seconds";
                let description = if said.is_empty() {
                    ours.to_string()
                } else {
                    format!("{said}; or {ours}")
                };
                refusal.insert("description".into(), Value::from(description));
            }
            for resp in responses.values_mut().filter_map(Value::as_object_mut) {
                if resp.contains_key("$ref") {
                    continue;
                }
                let headers = resp.entry("headers").or_insert_with(|| json!({}));
                if let Some(headers) = headers.as_object_mut() {
                    for (name, id, _) in HEADERS {
                        headers.insert(
                            name.into(),
                            json!({ "$ref": format!("#/components/headers/{id}") }),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 1));

    fn limits(per_account: u32, per_address: u32) -> RateLimits {
        RateLimits::new(Budgets {
            per_account: NonZeroU32::new(per_account),
            per_address: NonZeroU32::new(per_address),
        })
    }

    #[test]
    fn a_token_spends_its_own_budget_and_then_waits() {
        let l = limits(3, 100);
        let t = Caller::Bearer(Key::Token([1; 32]));
        let remaining: Vec<u32> = (0..3)
            .map(|_| l.spend(&t, A).unwrap().unwrap().remaining)
            .collect();
        assert_eq!(remaining, [2, 1, 0]);
        let e = l.spend(&t, A).err().unwrap();
        assert_eq!(e.code, ProblemCode::RateLimited);
        assert_eq!(e.status, StatusCode::TOO_MANY_REQUESTS);
        // One request comes back every 20 s.
        assert!((1..=20).contains(&e.retry_after.unwrap()), "{e:?}");
        // Another token, and the address without a token, are untouched.
        assert_eq!(
            l.spend(&Caller::Bearer(Key::Token([2; 32])), A)
                .unwrap()
                .unwrap()
                .remaining,
            2
        );
        assert_eq!(l.spend(&Caller::Address, A).unwrap().unwrap().remaining, 99);
    }

    #[test]
    fn an_account_spends_one_budget_whatever_token_it_sends() {
        let l = limits(3, 100);
        let ada = Caller::Bearer(Key::Account(AccountId(1)));
        assert_eq!(l.spend(&ada, A).unwrap().unwrap().remaining, 2);
        assert_eq!(l.spend(&ada, A).unwrap().unwrap().remaining, 1);
        assert_eq!(l.spend(&ada, A).unwrap().unwrap().remaining, 0);
        assert!(l.spend(&ada, A).is_err());
        let bob = Caller::Bearer(Key::Account(AccountId(2)));
        assert_eq!(l.spend(&bob, A).unwrap().unwrap().remaining, 2);
    }

    #[test]
    fn reset_is_the_time_until_the_whole_budget_is_back() {
        let l = limits(60, 60);
        let t = Caller::Bearer(Key::Token([1; 32]));
        let first = l.spend(&t, A).unwrap().unwrap();
        assert_eq!((first.limit, first.remaining), (60, 59));
        assert_eq!(first.reset_secs, 1);
        for _ in 0..9 {
            l.spend(&t, A).unwrap();
        }
        let tenth = l.spend(&t, A).unwrap().unwrap();
        assert_eq!(tenth.remaining, 49);
        assert_eq!(tenth.reset_secs, 11);
    }

    #[test]
    fn refused_tokens_use_up_the_address_and_then_bar_it() {
        let l = limits(100, 2);
        for _ in 0..3 {
            l.charge_refused_token(A);
        }
        let e = l
            .spend(&Caller::Bearer(Key::Token([9; 32])), A)
            .err()
            .unwrap();
        assert_eq!(e.code, ProblemCode::RateLimited);
        // Another address is not barred.
        let b = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 2));
        assert!(l.spend(&Caller::Bearer(Key::Token([9; 32])), b).is_ok());
    }

    #[test]
    fn no_budget_means_no_limit() {
        let l = limits(0, 0);
        for _ in 0..1000 {
            assert!(
                l.spend(&Caller::Bearer(Key::Token([1; 32])), A)
                    .unwrap()
                    .is_none()
            );
            assert!(l.spend(&Caller::Address, A).unwrap().is_none());
        }
    }

    #[test]
    fn only_the_api_is_limited() {
        assert!(limited("/api/v1/games"));
        assert!(!limited("/api/v1/inbound/email"));
        assert!(!limited("/healthz"));
        assert!(!limited("/"));
        assert!(!limited("/openapi.yaml"));
    }
}
