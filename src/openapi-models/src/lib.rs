//! The models openapi-generator's Rust client makes of `openapi.yaml`, compiled against the
//! workspace's serde: the contract tests read every game answer with them and send actions
//! written by them, as a Rust client of the API would.

/// Whether the models are here: false when `openapi-generator-cli` was missing at build
/// time (`python3 -m pip install openapi-generator-cli==7.26.0`, with Java 11 or later).
pub fn generated() -> bool {
    cfg!(generated_models)
}

/// The generated models, as the generator wrote them.
#[allow(warnings, clippy::all, clippy::pedantic)]
pub mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
