//! Build script: the only thing it does is make Cargo rebuild when a migration is added.
//! `embed_migrations!` reads the `migrations` directory at compile time, but Cargo tracks
//! only the files it read, so a new migration directory alone would not be embedded.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
