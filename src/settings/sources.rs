//! Reading the settings from their sources, refusing names that mean no setting.

use std::collections::BTreeMap;
use std::fmt;

use config::{Config, File, FileFormat, Source, ValueKind};

use super::Settings;

/// Variables named `TURNPOST_*` that are not settings: they are let through, every other
/// unknown one is refused.
const NOT_SETTINGS: &[&str] = &[
    // Picks the file `config/<TURNPOST_ENV>.toml`.
    "TURNPOST_ENV",
    // `text` or `json`: read by the logger, which starts before the settings are loaded.
    "TURNPOST_LOG_FORMAT",
];

/// The settings that are booleans. The `config` crate also reads `yes`, `on` and `1` as
/// true; an operator who writes `yes` may mean something else, so only `true` and `false`
/// are taken.
const BOOLEANS: &[&str] = &[
    "require_email_verification",
    "email_pictures",
    "webhook_allow_private",
];

const PREFIX: &str = "TURNPOST_";

/// Variables read under another setting's name: `(variable, setting)`. Setting both is
/// refused, since one would silently lose.
const ALIASES: &[(&str, &str)] = &[("TURNPOST_RATE_LIMIT_PER_TOKEN", "rate_limit_per_account")];

/// A setting that cannot be used, in one line that names it.
#[derive(Debug)]
pub struct SettingsError(pub String);

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SettingsError {}

impl From<config::ConfigError> for SettingsError {
    fn from(e: config::ConfigError) -> SettingsError {
        // One line: the message goes to a terminal or a journal as one entry.
        SettingsError(e.to_string().replace('\n', " "))
    }
}

/// The settings, and where each came from.
pub struct Sourced {
    pub settings: Settings,
    /// Setting name → `config/default.toml`, `config/local.toml`, `env TURNPOST_BIND`…;
    /// names not in it have their built-in default.
    pub sources: BTreeMap<String, String>,
}

impl Sourced {
    /// Every setting as `(name, value with secrets masked, source)`, in declaration order.
    pub fn entries(&self) -> Vec<(String, serde_json::Value, String)> {
        let Ok(serde_json::Value::Object(map)) = serde_json::to_value(&self.settings) else {
            return Vec::new();
        };
        map.into_iter()
            .map(|(key, value)| {
                let source = self
                    .sources
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| "built-in default".into());
                (key, value, source)
            })
            .collect()
    }
}

fn compiled_defaults() -> File<config::FileSourceString, FileFormat> {
    File::from_str(include_str!("../../config/default.toml"), FileFormat::Toml)
}

/// Every setting's name: the fields of `Settings`, as serialised.
fn known_names() -> Result<Vec<String>, SettingsError> {
    let defaults: Settings = Config::builder()
        .add_source(compiled_defaults())
        .build()?
        .try_deserialize()?;
    match serde_json::to_value(&defaults) {
        Ok(serde_json::Value::Object(map)) => Ok(map.keys().cloned().collect()),
        _ => Err(SettingsError(
            "the built-in settings cannot be listed".into(),
        )),
    }
}

/// The known name nearest to `name` (to suggest for a misspelling).
fn nearest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .map(|k| (strsim::jaro_winkler(name, k), k))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

fn unknown(name: &str, place: &str, suggestion: Option<String>) -> SettingsError {
    SettingsError(match suggestion {
        Some(s) => format!("unknown setting {name}{place}; did you mean {s}?"),
        None => format!("unknown setting {name}{place}"),
    })
}

/// The `TURNPOST_*` variables that are settings, by setting name, with their variables.
fn environment(known: &[String]) -> Result<Vec<(String, String, String)>, SettingsError> {
    let mut found = Vec::new();
    for (name, value) in std::env::vars_os() {
        let Some(name) = name.to_str().filter(|n| n.starts_with(PREFIX)) else {
            continue;
        };
        if NOT_SETTINGS.contains(&name) {
            continue;
        }
        let key = match ALIASES.iter().find(|(alias, _)| *alias == name) {
            Some((_, setting)) => setting.to_string(),
            None => name[PREFIX.len()..].to_ascii_lowercase(),
        };
        if !known.contains(&key) {
            let names: Vec<String> = known
                .iter()
                .map(|k| format!("{PREFIX}{}", k.to_ascii_uppercase()))
                .collect();
            let near = nearest(name, names.iter().map(String::as_str)).map(str::to_string);
            return Err(unknown(name, "", near));
        }
        let Some(value) = value.to_str() else {
            return Err(SettingsError(format!("{name} is not valid UTF-8")));
        };
        found.push((key, name.to_string(), value.to_string()));
    }
    found.sort();
    if let Some(w) = found.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(SettingsError(format!(
            "{} and {} are the same setting: set one of them",
            w[0].1, w[1].1
        )));
    }
    Ok(found)
}

/// How a message names setting `key`: by the variable or the file it was set in.
fn name_of(key: &str, sources: &BTreeMap<String, String>) -> String {
    match sources.get(key).map(String::as_str) {
        Some(s) if s.starts_with("env ") => s["env ".len()..].to_string(),
        Some(file) => format!("{key} (in {file})"),
        None => key.to_string(),
    }
}

/// The file `TURNPOST_ENV` names, which must exist: a misspelt environment would
/// otherwise read no file and say nothing.
fn environment_file() -> Result<String, SettingsError> {
    let Ok(env) = std::env::var("TURNPOST_ENV") else {
        return Ok("default".into());
    };
    let path = format!("config/{env}.toml");
    if std::path::Path::new(&path).is_file() {
        return Ok(env);
    }
    let present: Vec<String> = std::fs::read_dir("config")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".toml")?;
            (stem != "local").then(|| stem.to_string())
        })
        .collect();
    let near = nearest(&env, present.iter().map(String::as_str))
        .filter(|n| strsim::jaro_winkler(&env, n) >= 0.8)
        .map(|n| format!("; did you mean TURNPOST_ENV={n}?"))
        .unwrap_or_default();
    Err(SettingsError(format!(
        "TURNPOST_ENV={env:?} names {path}, which does not exist{near}"
    )))
}

/// A variable that is nearly `DATABASE_URL` while `DATABASE_URL` itself is unset: the
/// server would run its private cluster instead of the database the host meant.
fn misspelt_database_url() -> Result<(), SettingsError> {
    if std::env::var_os("DATABASE_URL").is_some() {
        return Ok(());
    }
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        let upper = name.to_ascii_uppercase();
        if upper != "DATABASE_URL" && strsim::damerau_levenshtein(&upper, "DATABASE_URL") <= 2 {
            return Err(SettingsError(format!(
                "{name} is set but DATABASE_URL is not; did you mean DATABASE_URL? \
                 (without it the server runs its private cluster)"
            )));
        }
    }
    Ok(())
}

pub fn load() -> Result<Sourced, SettingsError> {
    let known = known_names()?;
    let env = environment_file()?;
    misspelt_database_url()?;
    let mut sources = BTreeMap::new();
    for key in compiled_defaults().collect()?.into_keys() {
        sources.insert(key, "config/default.toml".to_string());
    }
    let mut builder = Config::builder().add_source(compiled_defaults());
    for stem in [format!("config/{env}"), "config/local".to_string()] {
        let file = File::with_name(&stem).required(false);
        let place = format!("{stem}.toml");
        for key in file.collect()?.into_keys() {
            if !known.contains(&key) {
                let near = nearest(&key, known.iter().map(String::as_str)).map(str::to_string);
                return Err(unknown(&key, &format!(" in {place}"), near));
            }
            sources.insert(key, place.clone());
        }
        builder = builder.add_source(file);
    }
    // Strings, with no type guessing: a numeric-looking secret must stay a string.
    for (key, name, value) in environment(&known)? {
        builder = builder.set_override(&key, value)?;
        sources.insert(key, format!("env {name}"));
    }
    if let Ok(url) = std::env::var("DATABASE_URL") {
        builder = builder.set_override("database_url", url)?;
        sources.insert("database_url".into(), "env DATABASE_URL".into());
    }
    let config = builder.build()?;
    for key in BOOLEANS {
        let Ok(value) = config.get::<config::Value>(key) else {
            continue;
        };
        let ok = match &value.kind {
            ValueKind::Boolean(_) => true,
            ValueKind::String(s) => s == "true" || s == "false",
            _ => false,
        };
        if !ok {
            return Err(SettingsError(format!(
                "{} must be true or false, not {:?}",
                name_of(key, &sources),
                value.to_string()
            )));
        }
    }
    let settings: Settings = config.try_deserialize()?;
    let problems: Vec<String> = settings
        .problems()
        .into_iter()
        .map(|(key, problem)| format!("{} {problem}", name_of(key, &sources)))
        .collect();
    if !problems.is_empty() {
        return Err(SettingsError(problems.join("; ")));
    }
    Ok(Sourced { settings, sources })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_name_is_suggested() {
        let known = known_names().unwrap();
        assert!(known.contains(&"turn_email_grace_secs".to_string()));
        assert!(known.contains(&"trusted_proxies".to_string()));
        assert_eq!(
            nearest("turn_email_grace_sec", known.iter().map(String::as_str)),
            Some("turn_email_grace_secs")
        );
        assert_eq!(
            nearest("db_pol_size", known.iter().map(String::as_str)),
            Some("db_pool_size")
        );
    }

    #[test]
    fn every_boolean_setting_is_listed() {
        let defaults: Settings = Config::builder()
            .add_source(compiled_defaults())
            .build()
            .unwrap()
            .try_deserialize()
            .unwrap();
        let serde_json::Value::Object(map) = serde_json::to_value(&defaults).unwrap() else {
            panic!("settings serialise to a map");
        };
        let booleans: Vec<&str> = map
            .iter()
            .filter(|(_, v)| v.is_boolean())
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(booleans, BOOLEANS);
    }
}
