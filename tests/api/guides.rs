//! The README and the four guides under `src/docs/` stay honest: their links lead somewhere,
//! the README stays short, they tell what is true rather than the project's history, and
//! the API guide's walk-through is the script the suite runs (`tests/readme_requests.sh`).
//! None of these tests needs a server.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The README and the guides, as paths from the repository's root.
const DOCS: &[&str] = &[
    "README.md",
    "src/docs/players.md",
    "src/docs/hosting.md",
    "src/docs/api.md",
    "src/docs/development.md",
];

/// Files that must not tell the project's history.
const PRESENT_TENSE: &[&str] = &[
    "README.md",
    "src/docs/players.md",
    "src/docs/hosting.md",
    "src/docs/api.md",
    "src/docs/development.md",
    "benches/README.md",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The lines of `text` outside fenced code blocks, with their numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => lines.push((i + 1, line)),
            _ => {}
        }
    }
    lines
}

/// The fenced code blocks of `text`: (the word after the opening fence, the block's lines).
fn code_blocks(text: &str) -> Vec<(String, Vec<&str>)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match current.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    current = Some((info.trim().to_string(), Vec::new()));
                }
            }
            Some((info, mut body)) => {
                if trimmed.starts_with("```") {
                    blocks.push((info, body));
                } else {
                    body.push(line);
                    current = Some((info, body));
                }
            }
        }
    }
    blocks
}

/// `line` without its inline code spans (a link written inside backticks is no link).
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The link targets of one line of prose: Markdown links and images `[text](target)`, and
/// the `src` and `href` attributes of HTML tags.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].trim();
        // `[text](target "title")`
        let target = target.split_whitespace().next().unwrap_or("");
        targets.push(target.trim_matches(|c| c == '<' || c == '>').to_string());
        rest = &after[end..];
    }
    for attribute in ["src=\"", "href=\""] {
        let mut rest = line.as_str();
        while let Some(at) = rest.find(attribute) {
            let after = &rest[at + attribute.len()..];
            let Some(end) = after.find('"') else { break };
            targets.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// A link to somewhere else: a scheme (`https:`, `mailto:`), or a path on a server.
fn is_external(target: &str) -> bool {
    target.starts_with('/')
        || target.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
}

/// `path` with `.` and `..` resolved, without asking the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// GitHub's anchor of a heading: lowercase, every character but letters, digits, spaces,
/// `-` and `_` dropped, each space a `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a Markdown file's headings (outside code blocks), with GitHub's `-1`,
/// `-2`, … for a heading that repeats an earlier one.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = anchor(line[hashes..].trim_end_matches('#'));
        let mut name = base.clone();
        let mut n = 0;
        while seen.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        seen.insert(name);
    }
    seen
}

#[test]
fn every_link_of_the_readme_and_the_guides_leads_to_a_file_and_a_heading_that_exist() {
    let mut broken = Vec::new();
    for doc in DOCS {
        let text = read(doc);
        let dir = Path::new(doc).parent().unwrap_or(Path::new(""));
        for (number, line) in prose_lines(&text) {
            for target in link_targets(line) {
                if target.is_empty() || is_external(&target) {
                    continue;
                }
                let (file, fragment) = match target.split_once('#') {
                    Some((file, fragment)) => (file, Some(fragment)),
                    None => (target.as_str(), None),
                };
                let path = if file.is_empty() {
                    PathBuf::from(doc)
                } else {
                    normalise(&dir.join(file))
                };
                let on_disk = root().join(&path);
                if !on_disk.exists() {
                    broken.push(format!(
                        "{doc}:{number}: {target}: no file {}",
                        path.display()
                    ));
                    continue;
                }
                let Some(fragment) = fragment else { continue };
                if on_disk.is_dir() || path.extension().is_none_or(|e| e != "md") {
                    broken.push(format!(
                        "{doc}:{number}: {target}: a fragment of no Markdown file"
                    ));
                    continue;
                }
                let target_text = std::fs::read_to_string(&on_disk).expect("a Markdown file");
                if !anchors(&target_text).contains(fragment) {
                    broken.push(format!(
                        "{doc}:{number}: {target}: {} has no heading #{fragment}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_anchors_are_githubs() {
    assert_eq!(anchor("Each game's words"), "each-games-words");
    assert_eq!(anchor("2. Trade and build"), "2-trade-and-build");
    assert_eq!(
        anchor("Kasino — rules as this server plays them"),
        "kasino--rules-as-this-server-plays-them"
    );
    assert_eq!(anchor("email_throughput"), "email_throughput");
    assert_eq!(anchor("Games, views and types"), "games-views-and-types");
    let repeated = anchors("# A\n## B\n```\n# not a heading\n```\n## B\n");
    assert_eq!(
        repeated.into_iter().collect::<Vec<_>>(),
        ["a", "b", "b-1"].map(String::from)
    );
    assert_eq!(
        link_targets("see [a](b.md#c), `[not](a link)` and <img src=\"d.png\">"),
        ["b.md#c", "d.png"].map(String::from)
    );
    assert!(is_external("https://nexte.st") && is_external("/docs") && !is_external("../x.md"));
}

#[test]
fn the_readme_is_at_most_250_lines() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: move the rest to a guide"
    );
}

/// What tells the project's history rather than what is true: an issue's number, a stop or
/// a point of a plan, a commit hash (a word of 7 to 40 lowercase hex digits with both a
/// digit and a letter in it, wherever it stands).
fn history(line: &str) -> Vec<String> {
    let lower = line.to_lowercase();
    let mut found = Vec::new();
    let word_char = |c: char| c.is_alphanumeric() || c == '_';
    let starts_word = |at: usize| !lower[..at].chars().next_back().is_some_and(word_char);
    for phrase in ["issue ", "point "] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(phrase) {
            let at = from + at;
            let after = &lower[at + phrase.len()..];
            let digits = after.chars().take_while(char::is_ascii_digit).count();
            let ends_word = !after[digits..].chars().next().is_some_and(word_char);
            if starts_word(at) && digits > 0 && (phrase == "issue " || ends_word) {
                found.push(format!("{phrase}{}", &after[..digits]));
            }
            from = at + phrase.len();
        }
    }
    if lower.contains("this stop") {
        found.push("this stop".to_string());
    }
    for word in line.split(|c: char| !word_char(c)) {
        let hex = (7..=40).contains(&word.len())
            && word
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
        if hex
            && word.chars().any(|c| c.is_ascii_digit())
            && word.chars().any(|c| c.is_ascii_alphabetic())
        {
            found.push(word.to_string());
        }
    }
    found
}

#[test]
fn the_readme_the_guides_and_the_benches_tell_no_history() {
    assert_eq!(
        history("as issue 36 asks, point 6"),
        ["issue 36", "point 6"]
    );
    assert_eq!(history("the server as of d42789b"), ["d42789b"]);
    assert!(
        history("at 2026-11-26, 1,415 moves/s, a tissue 3, deadbeef, a checkpoint 5").is_empty()
    );
    let mut told = Vec::new();
    for doc in PRESENT_TENSE {
        for (i, line) in read(doc).lines().enumerate() {
            for what in history(line) {
                told.push(format!("{doc}:{}: {what}: {line}", i + 1));
            }
        }
    }
    assert!(
        told.is_empty(),
        "history, not the present:\n{}",
        told.join("\n")
    );
}

#[test]
fn the_api_guides_walk_through_is_the_script_the_suite_runs() {
    let script = read("tests/readme_requests.sh");
    let script_lines: BTreeSet<&str> = script.lines().map(str::trim).collect();
    let guide = read("src/docs/api.md");
    let mut shown = BTreeSet::new();
    let mut missing = Vec::new();
    for (info, body) in code_blocks(&guide) {
        if info != "sh" || !body.iter().any(|l| l.contains("curl")) {
            continue;
        }
        for line in body.iter().map(|l| l.trim()) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            shown.insert(line);
            if !script_lines.contains(line) {
                missing.push(line.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "src/docs/api.md shows requests tests/readme_requests.sh does not send:\n{}",
        missing.join("\n")
    );
    // And the other way round: every request the script sends is shown.
    let unshown: Vec<&str> = script
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("curl") && !l.starts_with('#') && !shown.contains(l))
        .collect();
    assert!(
        unshown.is_empty(),
        "tests/readme_requests.sh sends requests src/docs/api.md does not show:\n{}",
        unshown.join("\n")
    );
}
