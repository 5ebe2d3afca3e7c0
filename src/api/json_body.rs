//! The JSON body of a request: `web::Json` (its size limit, content type and problems), read
//! only from an object. serde reads a struct from an array too, member by member in order
//! (`["why"]` as `{"reason": "why"}`, `[]` as every member's default), and every request
//! body the API describes is an object.

use std::future::Future;
use std::pin::Pin;

use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::problem::ApiError;
use crate::domain::ProblemCode;

/// A request body of type `T`, sent as a JSON object.
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Json<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let raw = web::Json::<Box<RawValue>>::from_request(req, payload);
        Box::pin(async move {
            let raw = raw.await?.into_inner();
            Ok(Json(parse(raw.get())?))
        })
    }
}

/// `text` (well-formed JSON) as a `T`, when it is an object.
fn parse<T: DeserializeOwned>(text: &str) -> Result<T, actix_web::Error> {
    if !text.trim_start().starts_with('{') {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ProblemCode::InvalidBody,
            "the body must be a JSON object",
        )
        .into());
    }
    serde_json::from_str(text).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ProblemCode::InvalidBody,
            e.to_string(),
        )
        .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Report {
        #[serde(default)]
        reason: String,
    }

    #[test]
    fn only_an_object_is_read_as_a_body() {
        assert_eq!(
            parse::<Report>(r#" {"reason": "rude"}"#).unwrap().reason,
            "rude"
        );
        assert_eq!(parse::<Report>("{}").unwrap().reason, "");
        for text in ["[]", r#"["rude"]"#, "null", "3", r#""rude""#] {
            let e = parse::<Report>(text).unwrap_err();
            let problem = e.as_error::<ApiError>().unwrap();
            assert_eq!(problem.code, ProblemCode::InvalidBody, "{text}");
        }
        assert!(parse::<Report>(r#"{"why": 1}"#).is_err());
    }
}
