//! Generates the Rust models of `openapi.yaml` with openapi-generator (`openapi-generator-cli`,
//! from PyPI), as a client builder would, into one file under `OUT_DIR`. Without the
//! generator the crate builds empty and says so (`generated()`), so that only the tests that
//! need it fail, with a message naming what to install.

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::{env, fs};

fn main() -> Result<(), Box<dyn Error>> {
    let spec = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?).join("../../openapi.yaml");
    println!("cargo::rerun-if-changed={}", spec.display());
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rustc-check-cfg=cfg(generated_models)");
    let out = PathBuf::from(env::var("OUT_DIR")?);
    let generated = out.join("generated");
    if generated.exists() {
        fs::remove_dir_all(&generated)?;
    }
    // Models and their `mod.rs` only: the API functions would bring reqwest and a TLS
    // stack, minutes of compiling on two cores, for nothing the tests read.
    let ran = Command::new("openapi-generator-cli")
        .arg("generate")
        .arg("-i")
        .arg(&spec)
        .args(["-g", "rust", "-o"])
        .arg(&generated)
        .args([
            "--global-property",
            "models,supportingFiles=mod.rs,modelDocs=false,modelTests=false",
        ])
        .output();
    let models = generated.join("src").join("models");
    let mut text = String::new();
    match ran {
        Ok(done) if done.status.success() && models.join("mod.rs").exists() => {
            // `pub mod x;` becomes `pub mod x { include!(".../x.rs"); }`: one module of the
            // generated files, each in its own namespace as the generator laid them out.
            for line in fs::read_to_string(models.join("mod.rs"))?.lines() {
                match line
                    .strip_prefix("pub mod ")
                    .and_then(|l| l.strip_suffix(';'))
                {
                    Some(name) => {
                        let file = models.join(format!("{name}.rs"));
                        writeln!(text, "pub mod {name} {{ include!({:?}); }}", file)?;
                    }
                    None => writeln!(text, "{line}")?,
                }
            }
            println!("cargo::rustc-cfg=generated_models");
        }
        Ok(done) => println!(
            "cargo::warning=openapi-generator-cli failed: {}",
            String::from_utf8_lossy(&done.stderr)
                .lines()
                .chain(String::from_utf8_lossy(&done.stdout).lines())
                .filter(|l| l.contains("rror"))
                .take(5)
                .collect::<Vec<_>>()
                .join(" | ")
        ),
        Err(e) => println!("cargo::warning=openapi-generator-cli not found ({e})"),
    }
    fs::write(out.join("models.rs"), text)?;
    Ok(())
}
