//! The `Authorization: Bearer <jwt>` extractor.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};

use super::problem::ApiError;
use crate::domain::Domain;

/// The authenticated account's id.
#[derive(Clone, Copy, Debug)]
pub struct Caller(pub i64);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Ready<Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(domain) = req.app_data::<web::Data<Domain>>() else {
            return ready(Err(ApiError::unauthorized(
                "authentication is not configured",
            )));
        };
        let token = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(str::trim);
        let result =
            match token {
                None => Err(ApiError::unauthorized(
                    "send Authorization: Bearer <access_token>",
                )),
                Some(t) => domain.tokens.verify(t).map(Caller).ok_or_else(|| {
                    ApiError::unauthorized("the access token is invalid or expired")
                }),
            };
        ready(result)
    }
}
