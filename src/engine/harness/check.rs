//! The contract checks every game must pass, run by each game's tests. Only test builds
//! and crates enabling the `testing` feature compile this (it pulls in the SVG parser).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use super::{PlayoutConfig, Steer, choose_steered_from};
use crate::contract::{Game, Seat, Status, ViewCommon, Viewer, Visibility};
use crate::people::People;
use crate::rng::GameRng;

fn uniform<G: Game>(_: &G::State, _: Seat, _: &G::Action) -> u32 {
    1
}

/// A board picture must parse as SVG (what browsers and the PNG rasteriser need), carry a
/// `<title>` and `<desc>` for screen readers, and be at most 600 px wide.
pub fn check_picture(svg: &str) -> Result<(), String> {
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .map_err(|e| e.to_string())?;
    if tree.size().width() > 600.5 {
        return Err(format!("{} px wide, more than 600", tree.size().width()));
    }
    for needle in ["<title", "<desc"] {
        if !svg.contains(needle) {
            return Err(format!("no {needle}> element"));
        }
    }
    Ok(())
}

/// The cheap half of [`check_picture`], run on every picture a playout draws: the text is
/// well-formed XML with an `<svg>` root at most 600 px wide that has a `<title>` and a
/// `<desc>` child. The full check converts the picture the way the PNG rasteriser does,
/// which costs about as much as the rest of a deep step together; playouts run it on a
/// sample (every [`FULL_PICTURE_CHECK_EVERY`]-th deep step, the first and the last).
///
/// Drawing and parsing every seat's picture at every deep step was more than half of a
/// contract test's time, so playouts draw them on a sample too (every
/// [`PICTURE_CHECK_EVERY`]-th deep step, the first and the last). A picture is drawn from
/// a view alone, and every view is still checked at every deep step; the thousands of
/// playouts a game's tests run still draw its pictures in thousands of positions.
pub fn check_picture_markup(svg: &str) -> Result<(), String> {
    use resvg::usvg::roxmltree;
    let doc = roxmltree::Document::parse(svg).map_err(|e| e.to_string())?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" {
        return Err(format!("the root element is <{}>", root.tag_name().name()));
    }
    let width: f64 = root
        .attribute("width")
        .and_then(|w| w.trim_end_matches("px").parse().ok())
        .ok_or("the <svg> element has no numeric width")?;
    if width > 600.5 {
        return Err(format!("{width} px wide, more than 600"));
    }
    for needle in ["title", "desc"] {
        if !root.children().any(|c| c.tag_name().name() == needle) {
            return Err(format!("no <{needle}> element"));
        }
    }
    Ok(())
}

/// How often (in deep steps) a playout draws each viewer's picture and checks its markup
/// and its click targets.
pub const PICTURE_CHECK_EVERY: usize = 4;

/// How often (in deep steps) a playout also runs the full [`check_picture`]; a multiple
/// of [`PICTURE_CHECK_EVERY`], so it falls on a step whose pictures are drawn.
pub const FULL_PICTURE_CHECK_EVERY: usize = 16;

/// What a checked playout observed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayoutStats {
    pub actions: usize,
    pub illegal_tried: usize,
    pub views_checked: usize,
    /// Resamples that changed what some other seat sees: proof the leak check can fail.
    pub resamples_that_changed_state: usize,
    pub private_log_entries: usize,
    /// Board pictures parsed as SVG and compared under resampling.
    pub pictures_checked: usize,
    /// Steps at which a seat had a forced action (played by the server for it).
    pub forced_steps: usize,
    /// Calls of the game's own invariant hooks (`check_invariants` and `check_step`).
    pub invariant_checks: usize,
    /// Every field of the state seen in the playout, as a path with array indices and
    /// numeric map keys folded (`hands[][].rank`, `fleets{}.ships`).
    pub state_paths: BTreeSet<String>,
    /// The fields that `resample_hidden` changed for some viewer at least once.
    pub varied_paths: BTreeSet<String>,
}

impl PlayoutStats {
    /// Adds another playout's counts and paths to these.
    pub fn merge(&mut self, other: PlayoutStats) {
        self.actions += other.actions;
        self.illegal_tried += other.illegal_tried;
        self.views_checked += other.views_checked;
        self.pictures_checked += other.pictures_checked;
        self.forced_steps += other.forced_steps;
        self.resamples_that_changed_state += other.resamples_that_changed_state;
        self.private_log_entries += other.private_log_entries;
        self.invariant_checks += other.invariant_checks;
        self.state_paths.extend(other.state_paths);
        self.varied_paths.extend(other.varied_paths);
    }

    /// State fields that resampling never changed and that are not under one of the
    /// `public` prefixes. A hidden field that `resample_hidden` forgets shows up here, so
    /// the leak check could not have caught a view that shows it.
    ///
    /// Fields of one object count together: when resampling changed a card's rank, its
    /// suit counts as varied too, and an RNG whose seed changed needs no new stream number.
    pub fn never_varied(&self, public: &[&str]) -> Vec<String> {
        let varied_objects: BTreeSet<&str> = self
            .varied_paths
            .iter()
            .filter_map(|p| parent_object(p))
            .collect();
        self.state_paths
            .iter()
            .filter(|p| !self.varied_paths.contains(*p))
            .filter(|p| parent_object(p).is_none_or(|o| !varied_objects.contains(o)))
            // An empty list (`steals[]`) counts as varied when its elements' fields did.
            .filter(|p| {
                !self
                    .varied_paths
                    .iter()
                    .any(|v| v.len() > p.len() && path_has_prefix(v, p))
            })
            .filter(|p| !public.iter().any(|pre| path_has_prefix(p, pre)))
            .cloned()
            .collect()
    }
}

/// Panics unless every state field is either declared public (a prefix in `public`) or
/// was varied by `resample_hidden` in the playouts behind `stats`. Each game's contract
/// test calls it, so a new hidden field must be resampled (or declared public) to pass.
pub fn assert_resample_covers(stats: &PlayoutStats, public: &[&str]) {
    let missing = stats.never_varied(public);
    assert!(
        missing.is_empty(),
        "resample_hidden never varied these state fields, and they are not declared public: {missing:?}"
    );
    // A declared public prefix that matches nothing is a typo or a stale name.
    for pre in public {
        assert!(
            stats.state_paths.iter().any(|p| path_has_prefix(p, pre)),
            "declared public field {pre:?} matches no state field: {:?}",
            stats.state_paths
        );
    }
}

/// The object a field belongs to (`hands[][].rank` → `hands[][]`); none at the top level.
fn parent_object(path: &str) -> Option<&str> {
    path.rfind('.').map(|i| &path[..i])
}

fn path_has_prefix(path: &str, prefix: &str) -> bool {
    path == prefix
        || (path.starts_with(prefix)
            && matches!(path.as_bytes().get(prefix.len()), Some(b'.' | b'[' | b'{')))
}

/// Leaves of a JSON document by exact path (`hands[1][0].rank`).
fn leaves(v: &Value, path: &mut String, out: &mut BTreeMap<String, String>) {
    let len = path.len();
    match v {
        Value::Object(map) if !map.is_empty() => {
            for (k, child) in map {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                leaves(child, path, out);
                path.truncate(len);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, child) in items.iter().enumerate() {
                let _ = write!(path, "[{i}]");
                leaves(child, path, out);
                path.truncate(len);
            }
        }
        // An empty list is the same field as its elements (`bag[]`), so an empty bag
        // counts as varied when bags vary, rather than as a field of its own.
        Value::Array(_) => {
            out.insert(format!("{path}[]"), "[]".into());
        }
        leaf => {
            out.insert(path.clone(), leaf.to_string());
        }
    }
}

/// `hands[1][0].rank` → `hands[][].rank`; numeric object keys (`fleets.12`) → `fleets{}`.
fn fold_path(exact: &str) -> String {
    let mut out = String::with_capacity(exact.len());
    let mut chars = exact.chars().peekable();
    let mut segment_start = true;
    while let Some(c) = chars.next() {
        match c {
            '[' => {
                out.push_str("[]");
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                }
                segment_start = false;
            }
            '.' => {
                out.push('.');
                segment_start = true;
            }
            d if segment_start && d.is_ascii_digit() => {
                // A numeric map key: fold the whole segment.
                while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                    chars.next();
                }
                if out.ends_with('.') {
                    out.pop();
                }
                out.push_str("{}");
                segment_start = false;
            }
            other => {
                out.push(other);
                segment_start = false;
            }
        }
    }
    out
}

/// Adds the folded path of every leaf of `v` (as [`leaves`] and [`fold_path`] name them) to
/// `out`, folding as it walks: a playout does this for its state at every deep step.
fn folded_leaves(v: &Value, path: &mut String, out: &mut BTreeSet<String>) {
    let len = path.len();
    match v {
        Value::Object(map) if !map.is_empty() => {
            for (k, child) in map {
                push_folded_key(path, k);
                folded_leaves(child, path, out);
                path.truncate(len);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            path.push_str("[]");
            for child in items {
                folded_leaves(child, path, out);
            }
            path.truncate(len);
        }
        Value::Array(_) => {
            path.push_str("[]");
            if !out.contains(path.as_str()) {
                out.insert(path.clone());
            }
            path.truncate(len);
        }
        _ => {
            if !out.contains(path.as_str()) {
                out.insert(path.clone());
            }
        }
    }
}

/// Appends object key `k` to a folded path as [`fold_path`] would fold it.
fn push_folded_key(path: &mut String, k: &str) {
    let plain = !k.starts_with(|c: char| c.is_ascii_digit()) && !k.contains(['.', '[']);
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k);
    } else {
        let folded = fold_path(k);
        if !path.is_empty() && !folded.starts_with("{}") {
            path.push('.');
        }
        path.push_str(&folded);
    }
}

/// Adds to `out` the folded path of every leaf in which `a` and `b` differ, or that only
/// one of them has: the same paths as comparing their [`flatten`]ed leaves, without
/// building them, since the two are mostly equal.
fn differing_paths(a: &Value, b: &Value, path: &mut String, out: &mut BTreeSet<String>) {
    let len = path.len();
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if !x.is_empty() && !y.is_empty() => {
            for (k, child) in x {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                match y.get(k) {
                    Some(other) => differing_paths(child, other, path, out),
                    None => all_paths(child, path, out),
                }
                path.truncate(len);
            }
            for (k, child) in y {
                if !x.contains_key(k) {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                    all_paths(child, path, out);
                    path.truncate(len);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if !x.is_empty() && !y.is_empty() => {
            for i in 0..x.len().max(y.len()) {
                let _ = write!(path, "[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(p), Some(q)) => differing_paths(p, q, path, out),
                    (Some(only), None) | (None, Some(only)) => all_paths(only, path, out),
                    (None, None) => {}
                }
                path.truncate(len);
            }
        }
        _ if a == b => {}
        _ => {
            all_paths(a, path, out);
            all_paths(b, path, out);
        }
    }
}

/// Adds the folded path of every leaf of `v`, whose exact path is `path`, to `out`.
fn all_paths(v: &Value, path: &mut String, out: &mut BTreeSet<String>) {
    let mut exact = BTreeMap::new();
    leaves(v, path, &mut exact);
    out.extend(exact.keys().map(|p| fold_path(p)));
}

fn flatten(v: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    leaves(v, &mut String::new(), &mut out);
    out
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("<unserialisable: {e}>"))
}

/// One random playout with every contract check. Returns what it saw, or the first
/// violation (with the seed, so it can be replayed).
pub fn check_playout<G: Game>(
    game: &G,
    options: &G::Options,
    seats: usize,
    seed: u64,
    cfg: &PlayoutConfig,
) -> Result<PlayoutStats, String> {
    check_playout_steered(game, options, seats, seed, cfg, &uniform::<G>)
}

/// [`check_playout`] with a steered random player.
pub fn check_playout_steered<G: Game>(
    game: &G,
    options: &G::Options,
    seats: usize,
    seed: u64,
    cfg: &PlayoutConfig,
    steer: Steer<'_, G>,
) -> Result<PlayoutStats, String> {
    let fail = |msg: String| Err(format!("seed {seed}: {msg}"));
    let view_schema = serde_json::to_value(schemars::schema_for!(G::View)).unwrap_or(Value::Null);
    if let Err(e) = view_schema_has_common_fields(&view_schema) {
        return fail(e);
    }
    let mut state = match game.setup(options, seats, GameRng::seed_from_u64(seed)) {
        Ok(s) => s,
        Err(e) => return fail(format!("setup failed: {e}")),
    };
    let mut agent = GameRng::seed_from_u64(seed ^ 0x5eed_a9e7_0000_0001);
    let mut stats = PlayoutStats::default();
    let mut log: Vec<(Seat, G::Action)> = Vec::new();
    let mut previous_legal: Vec<(Seat, G::Action)> = Vec::new();
    // Counts deep steps from 0 so the first one runs the full picture check.
    let mut deep_steps = usize::MAX;
    let viewers: Vec<Viewer> = (0..seats)
        .map(Viewer::Seat)
        .chain(std::iter::once(Viewer::Spectator))
        .collect();

    loop {
        let status = game.status(&state);
        let deep = stats.actions % cfg.deep_every.max(1) == 0;
        // Serde round trip is the identity, byte for byte: every `round_trip_every`-th
        // step, on deep steps and on the last state.
        if deep || status.is_finished() || stats.actions % cfg.round_trip_every.max(1) == 0 {
            let bytes = json(&state);
            match serde_json::from_str::<G::State>(&bytes) {
                Ok(back) if back == state && json(&back) == bytes => {}
                Ok(_) => {
                    return fail(format!(
                        "serde round trip changed the state at action {}",
                        log.len()
                    ));
                }
                Err(e) => return fail(format!("state does not deserialise: {e}")),
            }
        }

        // Each seat's legal actions and forced action on this state, listed once: the
        // checks below and the random player's choice all read these.
        let legal: Vec<Vec<G::Action>> =
            (0..seats).map(|s| game.legal_actions(&state, s)).collect();
        let mut forced_here: Vec<Option<Option<G::Action>>> = vec![None; seats];
        if let Status::Active { to_act } = &status {
            if to_act.is_empty() {
                return fail("active game with nobody to act".into());
            }
            for &s in to_act {
                if s >= seats {
                    return fail(format!("to_act names seat {s} of {seats}"));
                }
                if legal[s].is_empty() {
                    return fail(format!("seat {s} must act but has no legal action"));
                }
                // The server plays a forced action unasked: it must be the one legal choice
                // and must depend on nothing the seat cannot see.
                let forced = game.forced_action(&state, s);
                if let Some(slot) = forced_here.get_mut(s) {
                    *slot = Some(forced.clone());
                }
                if let Some(forced) = forced {
                    stats.forced_steps += 1;
                    if legal[s].len() != 1 || legal[s][0] != forced {
                        return fail(format!(
                            "seat {s}'s forced action {forced:?} is not its only legal action"
                        ));
                    }
                }
            }
        }

        stats.invariant_checks += 1;
        if let Err(e) = game.check_invariants(&state) {
            return fail(format!("invariant broken at action {}: {e}", log.len()));
        }

        if deep {
            deep_steps = deep_steps.wrapping_add(1);
        }
        let state_value = if deep {
            let value = serde_json::to_value(&state).unwrap_or(Value::Null);
            folded_leaves(&value, &mut String::new(), &mut stats.state_paths);
            value
        } else {
            Value::Null
        };
        if deep {
            // Descriptions are unique per seat: email replies can quote them.
            for (s, actions) in legal.iter().enumerate() {
                let mut seen = BTreeMap::new();
                for a in actions {
                    let d = game.describe_action(&state, s, a);
                    if let Some(other) = seen.insert(d.clone(), a) {
                        return fail(format!(
                            "seat {s}: two legal actions described as {d:?}: {other:?} and {a:?}"
                        ));
                    }
                }
                // Private alternatives of one secret choice look the same to outsiders.
                let mut forms: BTreeMap<Vec<Seat>, String> = BTreeMap::new();
                for a in actions {
                    if let Visibility::Private {
                        seen_by,
                        public_form,
                    } = game.action_visibility(&state, s, a)
                    {
                        if !seen_by.contains(&s) {
                            return fail(format!("private action {a:?} hidden from its own actor"));
                        }
                        let form = json(&public_form);
                        if let Some(prev) = forms.insert(seen_by.clone(), form.clone())
                            && prev != form
                        {
                            return fail(format!(
                                "seat {s}: private alternatives show different public forms {prev} / {form}: the form leaks the choice"
                            ));
                        }
                    }
                }
            }
            // Every viewer's view of this state, compared below with the views of each
            // resampled world.
            let typed_views: Vec<G::View> = viewers.iter().map(|&w| game.view(&state, w)).collect();
            let views: Vec<String> = typed_views.iter().map(json).collect();
            let drawn = deep_steps % PICTURE_CHECK_EVERY == 0 || status.is_finished();
            let full = deep_steps % FULL_PICTURE_CHECK_EVERY == 0 || status.is_finished();
            // No view depends on what its viewer may not see.
            for (i, &viewer) in viewers.iter().enumerate() {
                let typed_view = &typed_views[i];
                if let Err(e) = common_fields_agree(typed_view, viewer, seats, &status) {
                    return fail(format!("view of {viewer:?} at action {}: {e}", log.len()));
                }
                let view = &views[i];
                let text = game.render_text(&state, viewer);
                let people = test_people(viewer, seats_of(&viewers));
                let picture = drawn.then(|| game.board_svg(typed_view, &people));
                if let Some(picture) = &picture {
                    let checked = if full {
                        check_picture(picture)
                    } else {
                        check_picture_markup(picture)
                    };
                    if let Err(e) = checked {
                        return fail(format!("board picture of {viewer:?} is not valid SVG: {e}"));
                    }
                    if let Viewer::Seat(s) = viewer
                        && let Err(e) = targets_are_drawn(game, &state, s, &legal[s], picture)
                    {
                        return fail(e);
                    }
                    stats.pictures_checked += 1;
                }
                let other = game.resample_hidden(&state, viewer, &mut agent);
                stats.views_checked += 1;
                if deep_steps % RESAMPLE_CHECK_EVERY == 0
                    && let Err(e) =
                        resample_depends_only_on_view(game, &state, &other, viewer, &mut agent)
                {
                    return fail(e);
                }
                differing_paths(
                    &state_value,
                    &serde_json::to_value(&other).unwrap_or(Value::Null),
                    &mut String::new(),
                    &mut stats.varied_paths,
                );
                // Did resampling really change something another seat sees? (Changing only
                // the RNG would make the leak check vacuous.)
                if viewers
                    .iter()
                    .zip(&views)
                    .any(|(&w, seen)| w != viewer && json(&game.view(&other, w)) != *seen)
                {
                    stats.resamples_that_changed_state += 1;
                }
                let other_view = json(&game.view(&other, viewer));
                if other_view != *view {
                    return fail(format!(
                        "view of {viewer:?} changed when only hidden information changed:\n  {view}\n  {other_view}"
                    ));
                }
                if game.render_text(&other, viewer) != text {
                    return fail(format!("text of {viewer:?} depends on hidden information"));
                }
                // The views are equal, so the pictures differ only if drawing reads more
                // than the view's JSON shows or is not deterministic: checked on the same
                // sample as the full picture check, since drawing is a large part of a step.
                if full
                    && let Some(picture) = &picture
                    && game.board_svg(&game.view(&other, viewer), &people) != *picture
                {
                    return fail(format!(
                        "board picture of {viewer:?} depends on hidden information (or is not deterministic)"
                    ));
                }
                if let Viewer::Seat(s) = viewer
                    && json(&game.legal_actions(&other, s)) != json(&legal[s])
                {
                    return fail(format!(
                        "legal actions of seat {s} depend on hidden information"
                    ));
                }
                if let Viewer::Seat(s) = viewer
                    && json(&game.forced_action(&other, s))
                        != json(
                            &forced_here
                                .get_mut(s)
                                .and_then(Option::take)
                                .unwrap_or_else(|| game.forced_action(&state, s)),
                        )
                {
                    return fail(format!(
                        "whether seat {s}'s move plays itself depends on hidden information"
                    ));
                }
                if game.status(&other).to_act() != status.to_act() {
                    return fail("to_act depends on hidden information".into());
                }
            }
            // Actions that were legal a step ago but are not now are refused.
            if game.legal_actions_complete() {
                for (s, a) in previous_legal.iter().take(8) {
                    if !legal[*s].contains(a) {
                        stats.illegal_tried += 1;
                        if game.apply(&state, *s, a).is_ok() {
                            return fail(format!(
                                "seat {s} may apply {a:?}, which legal_actions does not list"
                            ));
                        }
                    }
                }
            }
        }

        if let Status::Finished(outcome) = &status {
            let mut ranked: Vec<Seat> = outcome.ranking.iter().map(|p| p.seat).collect();
            ranked.sort_unstable();
            if ranked != (0..seats).collect::<Vec<_>>() {
                return fail(format!(
                    "the ranking must list every seat once: {:?}",
                    outcome.ranking
                ));
            }
            if let Some((s, a)) = previous_legal.first()
                && game.apply(&state, *s, a).is_ok()
            {
                return fail("a finished game accepted an action".into());
            }
            break;
        }
        if log.len() >= cfg.max_actions {
            return fail(format!("did not finish within {} actions", cfg.max_actions));
        }

        let Some((seat, action)) = choose_steered_from::<G>(
            &state,
            status.to_act(),
            &legal,
            cfg.optional_action_percent,
            &mut agent,
            Some(steer),
        ) else {
            return fail("no seat has a legal action".into());
        };
        if deep {
            // The same action from a seat that may not play it is refused. When the list
            // is only a sample, only a seat with nothing at all to do is certain to be
            // refused.
            let complete = game.legal_actions_complete();
            for (other, other_legal) in legal.iter().enumerate() {
                let may_not = if complete {
                    !other_legal.contains(&action)
                } else {
                    other_legal.is_empty()
                };
                if other != seat && may_not {
                    stats.illegal_tried += 1;
                    if game.apply(&state, other, &action).is_ok() {
                        return fail(format!(
                            "seat {other} may apply seat {seat}'s action {action:?}"
                        ));
                    }
                    break;
                }
            }
        }
        if let Visibility::Private { .. } = game.action_visibility(&state, seat, &action) {
            stats.private_log_entries += 1;
        }
        let next = match game.apply(&state, seat, &action) {
            Ok(next) => next,
            Err(e) => {
                return fail(format!(
                    "legal action {action:?} of seat {seat} refused: {e}"
                ));
            }
        };
        stats.invariant_checks += 1;
        if let Err(e) = game.check_step(&state, seat, &action, &next) {
            return fail(format!(
                "step invariant broken by seat {seat}'s {action:?} at action {}: {e}",
                log.len()
            ));
        }
        state = next;
        previous_legal = legal
            .into_iter()
            .enumerate()
            .flat_map(|(s, acts)| acts.into_iter().map(move |a| (s, a)))
            .collect();
        // Keep the sample varied but bounded.
        agent.shuffle(&mut previous_legal);
        log.push((seat, action));
        stats.actions += 1;
    }

    // Replaying the log from the seed gives the same state, byte for byte.
    let mut replay = match game.setup(options, seats, GameRng::seed_from_u64(seed)) {
        Ok(s) => s,
        Err(e) => return fail(format!("replay setup failed: {e}")),
    };
    for (i, (s, a)) in log.iter().enumerate() {
        replay = match game.apply(&replay, *s, a) {
            Ok(next) => next,
            Err(e) => return fail(format!("replay refused action {i}: {e}")),
        };
    }
    if json(&replay) != json(&state) {
        return fail("replay from the log differs from the incremental state".into());
    }
    Ok(stats)
}

/// The fields every view carries, named as in [`ViewCommon`].
const COMMON_FIELDS: [&str; 3] = ["viewer", "to_act", "finished"];

/// `view` carries [`ViewCommon`]'s fields and they say what the rules say: whom the view
/// is for, the seats the game's status waits for, whether it has finished. Clients read
/// them beside the game resource, whose `to_act` comes from the rules: a view that
/// disagreed would tell them two different things.
pub fn common_fields_agree<V: serde::Serialize>(
    view: &V,
    viewer: Viewer,
    seats: usize,
    status: &Status,
) -> Result<(), String> {
    let got = serde_json::to_value(view).map_err(|e| format!("view does not serialise: {e}"))?;
    let want = serde_json::to_value(ViewCommon::new(viewer, seats, status))
        .map_err(|e| format!("ViewCommon does not serialise: {e}"))?;
    for key in COMMON_FIELDS {
        let Some(field) = got.get(key) else {
            return Err(format!(
                "the view has no `{key}` field (every view flattens a ViewCommon)"
            ));
        };
        if Some(field) != want.get(key) {
            return Err(format!(
                "the view's `{key}` is {field}, the rules say {}",
                want.get(key).unwrap_or(&Value::Null)
            ));
        }
    }
    Ok(())
}

/// A view's published JSON Schema (`schema_for!(View)`) declares [`ViewCommon`]'s fields
/// exactly as `ViewCommon` does, each required: same type and description in every game,
/// so generated clients type them alike (a field of the same name written by hand, with
/// another type or text, fails).
pub fn view_schema_has_common_fields(view_schema: &Value) -> Result<(), String> {
    let common = serde_json::to_value(schemars::schema_for!(ViewCommon))
        .map_err(|e| format!("ViewCommon's schema does not serialise: {e}"))?;
    let required = |schema: &Value, key: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|k| k == key))
    };
    for key in COMMON_FIELDS {
        let pointer = format!("/properties/{key}");
        let (got, want) = (view_schema.pointer(&pointer), common.pointer(&pointer));
        if got.is_none() || got != want {
            return Err(format!(
                "the view's schema declares `{key}` as {}, not as ViewCommon does ({}): flatten a ViewCommon into the view",
                got.map_or("nothing".into(), Value::to_string),
                want.map_or("nothing".into(), Value::to_string),
            ));
        }
        if !required(view_schema, key) {
            return Err(format!("the view's schema does not require `{key}`"));
        }
    }
    Ok(())
}

/// How many seeds [`resample_depends_only_on_view`] tries per state and viewer.
pub const RESAMPLE_SEEDS_COMPARED: usize = 2;

/// How often (in deep steps) a playout runs [`resample_depends_only_on_view`]: it costs
/// four resamples and their JSON per viewer, about as much as the rest of a deep step.
pub const RESAMPLE_CHECK_EVERY: usize = 4;

/// `resample_hidden` may use only what `viewer` can know. `other` is a world `viewer`
/// cannot tell apart from `state` (one resample of it); drawn with the same seed, the
/// worlds resampled from each must then be the same, byte for byte. A game whose resample
/// reads anything hidden (another hand's real cards, where a hidden card really lies, the
/// real RNG) gives different worlds for some seed: this is how a thief's sampled hand that
/// followed the real one was caught.
pub fn resample_depends_only_on_view<G: Game>(
    game: &G,
    state: &G::State,
    other: &G::State,
    viewer: Viewer,
    agent: &mut GameRng,
) -> Result<(), String> {
    for _ in 0..RESAMPLE_SEEDS_COMPARED {
        let seed = agent.next_u64();
        let from_state = game.resample_hidden(state, viewer, &mut GameRng::seed_from_u64(seed));
        let from_other = game.resample_hidden(other, viewer, &mut GameRng::seed_from_u64(seed));
        let (a, b) = (json(&from_state), json(&from_other));
        if a != b {
            let (a, b) = (
                flatten(&serde_json::to_value(&from_state).unwrap_or(Value::Null)),
                flatten(&serde_json::to_value(&from_other).unwrap_or(Value::Null)),
            );
            let differ: Vec<&String> = a
                .keys()
                .chain(b.keys())
                .filter(|k| a.get(*k) != b.get(*k))
                .take(6)
                .collect();
            return Err(format!(
                "resample_hidden for {viewer:?} depends on more than the viewer can know: two states it cannot tell apart, resampled with seed {seed}, give different worlds (first differing fields {differ:?})"
            ));
        }
    }
    Ok(())
}

/// Runs `count` checked playouts from consecutive seeds; panics with the first failure.
/// Returns the summed statistics so a test can assert the checks really ran.
pub fn check_many<G: Game>(
    game: &G,
    options: &G::Options,
    seats: usize,
    count: usize,
    first_seed: u64,
    cfg: &PlayoutConfig,
) -> PlayoutStats {
    check_many_steered(game, options, seats, count, first_seed, cfg, &uniform::<G>)
}

/// [`check_many`] with a steered random player.
pub fn check_many_steered<G: Game>(
    game: &G,
    options: &G::Options,
    seats: usize,
    count: usize,
    first_seed: u64,
    cfg: &PlayoutConfig,
    steer: Steer<'_, G>,
) -> PlayoutStats {
    let mut total = PlayoutStats::default();
    for i in 0..count as u64 {
        match check_playout_steered(game, options, seats, first_seed + i, cfg, steer) {
            Ok(s) => total.merge(s),
            Err(e) => panic!("{} contract violated: {e}", game.info().id),
        }
    }
    assert!(total.views_checked > 0, "no view was checked");
    assert!(total.pictures_checked > 0, "no board picture was checked");
    if cfg.has_hidden_information {
        assert!(
            total.resamples_that_changed_state > 0,
            "resample_hidden never changed the state: the leak check could not fail"
        );
    }
    total
}

/// Names for a contract check's pictures: awkward on purpose (markup characters, a long
/// name), so a picture that does not escape or shorten them fails.
fn test_people(viewer: Viewer, seats: usize) -> People {
    const NAMES: [&str; 4] = [
        "Ada <&> \"Lovelace\"",
        "Bo",
        "Cy Wolfeschlegelsteinhausenbergerdorff",
        "Dee",
    ];
    People::new(
        viewer,
        (0..seats)
            .map(|s| NAMES[s % NAMES.len()].to_string())
            .collect(),
    )
}

fn seats_of(viewers: &[Viewer]) -> usize {
    viewers
        .iter()
        .filter_map(|v| v.seat())
        .max()
        .map_or(0, |s| s + 1)
}

/// Every target of every legal action of `seat` is on that seat's picture as a
/// `data-target` attribute (see [`Game::action_targets`]): a click can select each action
/// by what it involves. Targets are plain tokens, so they need no escaping.
fn targets_are_drawn<G: Game>(
    game: &G,
    state: &G::State,
    seat: Seat,
    legal: &[G::Action],
    picture: &str,
) -> Result<(), String> {
    for a in legal {
        for t in game.action_targets(state, seat, a) {
            if t.is_empty()
                || !t
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'))
            {
                return Err(format!(
                    "seat {seat}: action {a:?} names target {t:?}, which is not a plain token"
                ));
            }
            if !picture.contains(&format!("data-target=\"{t}\"")) {
                return Err(format!(
                    "seat {seat}: action {a:?} involves {t:?}, which its board picture does not mark with data-target"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The harness must be able to fail: a tiny game, correct and with planted faults.

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::harness::{random_playout, random_playout_steered};
    use crate::{GameInfo, Outcome, RuleError, SetupError};

    /// Each seat holds a secret card 1..=9; players take turns naming a number; after six
    /// turns the highest secret wins. `fault` plants one contract violation.
    #[derive(Clone, Copy, PartialEq)]
    enum Fault {
        None,
        LeakyView,
        AcceptsUnlisted,
        ReplayDiverges,
        ForgetsRng,
        BreaksInvariant,
        PeeksAtHidden,
        /// The view's `to_act` names the next seat, not the one the rules wait for.
        MisreportsToAct,
    }

    struct Secrets(Fault);

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct St {
        secrets: Vec<u8>,
        said: Vec<u8>,
        rng: GameRng,
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    struct Say {
        n: u8,
    }

    #[derive(Default, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    struct Opts {}

    #[derive(Serialize, JsonSchema)]
    struct SecretsView {
        #[serde(flatten)]
        common: ViewCommon,
        said: Vec<u8>,
        mine: Option<u8>,
        all: Option<Vec<u8>>,
    }

    impl Game for Secrets {
        type Options = Opts;
        type State = St;
        type Action = Say;
        type View = SecretsView;

        fn info(&self) -> GameInfo {
            GameInfo {
                id: "secrets",
                name: "Secrets",
                min_players: 2,
                max_players: 3,
                rules_version: 1,
            }
        }

        fn setup(&self, _: &Opts, seats: usize, mut rng: GameRng) -> Result<St, SetupError> {
            let secrets = (0..seats).map(|_| rng.die(9)).collect();
            Ok(St {
                secrets,
                said: Vec::new(),
                rng,
            })
        }

        fn status(&self, s: &St) -> Status {
            if s.said.len() >= 6 {
                let scores: Vec<(Seat, i64)> = s
                    .secrets
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (i, v as i64))
                    .collect();
                Status::Finished(Outcome::by_score(&scores, "done"))
            } else {
                Status::Active {
                    to_act: vec![s.said.len() % s.secrets.len()],
                }
            }
        }

        fn legal_actions(&self, s: &St, seat: Seat) -> Vec<Say> {
            if self.status(s).to_act().contains(&seat) {
                (1..=3).map(|n| Say { n }).collect()
            } else {
                Vec::new()
            }
        }

        fn apply(&self, s: &St, seat: Seat, a: &Say) -> Result<St, RuleError> {
            let listed = self.legal_actions(s, seat).contains(a);
            let lenient = self.0 == Fault::AcceptsUnlisted && a.n == 1;
            if !listed && !lenient {
                return Err(RuleError::new("no", "not listed"));
            }
            let mut next = s.clone();
            next.said.push(a.n);
            if self.0 == Fault::ReplayDiverges {
                // Depends on something outside state and action: the wall clock.
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.subsec_nanos());
                next.said.push((nanos % 3) as u8);
                next.said.pop();
                next.secrets[0] = (nanos % 200) as u8;
            }
            Ok(next)
        }

        fn view(&self, s: &St, viewer: Viewer) -> SecretsView {
            let mine = viewer.seat().and_then(|v| s.secrets.get(v).copied());
            let all = (self.0 == Fault::LeakyView).then(|| s.secrets.clone());
            let mut common = ViewCommon::new(viewer, s.secrets.len(), &self.status(s));
            if self.0 == Fault::MisreportsToAct {
                common.to_act = vec![(s.said.len() + 1) % s.secrets.len()];
            }
            SecretsView {
                common,
                said: s.said.clone(),
                mine,
                all,
            }
        }

        fn describe_action(&self, _: &St, _: Seat, a: &Say) -> String {
            format!("say {}", a.n)
        }

        fn render_text(&self, s: &St, _: Viewer) -> String {
            format!("{:?}", s.said)
        }

        fn resample_hidden(&self, s: &St, viewer: Viewer, rng: &mut GameRng) -> St {
            let mut t = s.clone();
            for (i, v) in t.secrets.iter_mut().enumerate() {
                let drawn = rng.die(9);
                // The planted fault keeps a high secret where it really is.
                let peeks = self.0 == Fault::PeeksAtHidden && *v > 6;
                if viewer.seat() != Some(i) && !peeks {
                    *v = drawn;
                }
            }
            if self.0 != Fault::ForgetsRng {
                t.rng = rng.fork();
            }
            t
        }

        fn check_invariants(&self, s: &St) -> Result<(), String> {
            if self.0 == Fault::BreaksInvariant && s.said.len() == 4 {
                return Err("four things said".into());
            }
            Ok(())
        }
    }

    fn run(f: Fault) -> Result<PlayoutStats, String> {
        let cfg = PlayoutConfig::default();
        (0..20).try_fold(PlayoutStats::default(), |mut acc, seed| {
            acc.merge(check_playout(&Secrets(f), &Opts {}, 3, seed, &cfg)?);
            Ok(acc)
        })
    }

    #[test]
    fn resample_coverage_lists_public_and_varied_fields() {
        let stats = run(Fault::None).unwrap();
        // `said` is public; `secrets` and the RNG are resampled.
        assert_resample_covers(&stats, &["said"]);
        assert!(stats.varied_paths.contains("secrets[]"), "{stats:?}");
        assert!(stats.invariant_checks > stats.actions);
    }

    #[test]
    fn a_resample_that_reads_hidden_values_is_caught() {
        let e = run(Fault::PeeksAtHidden).unwrap_err();
        assert!(
            e.contains("depends on more than the viewer can know"),
            "{e}"
        );
    }

    #[test]
    fn a_hidden_field_that_resampling_forgets_is_reported() {
        let stats = run(Fault::ForgetsRng).unwrap();
        assert_eq!(
            stats.never_varied(&["said"]),
            vec!["rng.seed", "rng.stream", "rng.word_pos"]
        );
        let caught = std::panic::catch_unwind(|| assert_resample_covers(&stats, &["said"]));
        assert!(caught.is_err());
    }

    #[test]
    fn a_declared_public_field_that_does_not_exist_is_reported() {
        let stats = run(Fault::None).unwrap();
        let caught = std::panic::catch_unwind(|| assert_resample_covers(&stats, &["sayd"]));
        assert!(caught.is_err());
    }

    #[test]
    fn a_broken_game_invariant_fails_the_playout() {
        let e = run(Fault::BreaksInvariant).unwrap_err();
        assert!(e.contains("invariant"), "{e}");
    }

    #[test]
    fn steering_changes_the_choices() {
        let game = Secrets(Fault::None);
        let always_three = |_: &St, _: Seat, a: &Say| u32::from(a.n == 3);
        let p = random_playout_steered(&game, &Opts {}, 2, 7, 100, Some(&always_three)).unwrap();
        assert!(p.log.iter().all(|(_, a)| a.n == 3), "{:?}", p.log);
        let q = random_playout(&game, &Opts {}, 2, 7, 100).unwrap();
        assert!(q.log.iter().any(|(_, a)| a.n != 3));
    }

    #[test]
    fn the_markup_check_refuses_what_the_full_check_refuses() {
        let good = r#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="10"><title>t</title><desc>d</desc></svg>"#;
        let bad = [
            good.replace("600", "601"),
            good.replace("<title>t</title>", ""),
            good.replace("<desc>d</desc>", ""),
            good.replace("</svg>", ""),
            good.replace("<svg ", "<svgx ").replace("</svg>", "</svgx>"),
        ];
        assert_eq!(check_picture_markup(good), Ok(()));
        assert_eq!(check_picture(good), Ok(()));
        for b in &bad {
            assert!(check_picture_markup(b).is_err(), "{b}");
            assert!(check_picture(b).is_err(), "{b}");
        }
    }

    #[test]
    fn paths_fold_indices_and_numeric_keys() {
        assert_eq!(fold_path("hands[1][0].rank"), "hands[][].rank");
        assert_eq!(fold_path("fleets.12.ships[3]"), "fleets{}.ships[]");
        assert_eq!(fold_path("a2.b"), "a2.b");
        assert!(path_has_prefix("hands[][].rank", "hands"));
        assert!(!path_has_prefix("handsome", "hands"));
    }

    #[test]
    fn a_correct_game_passes_and_the_leak_check_was_live() {
        let stats = run(Fault::None).unwrap();
        assert!(stats.resamples_that_changed_state > 0);
    }

    #[test]
    fn a_view_showing_other_seats_secrets_fails() {
        let e = run(Fault::LeakyView).unwrap_err();
        assert!(
            e.contains("changed when only hidden information changed"),
            "{e}"
        );
    }

    #[test]
    fn a_view_whose_to_act_differs_from_the_rules_fails() {
        let e = run(Fault::MisreportsToAct).unwrap_err();
        assert!(e.contains("`to_act`"), "{e}");
    }

    #[test]
    fn a_view_without_the_common_fields_is_refused() {
        /// The common fields written by hand, one of them typed otherwise.
        #[derive(Serialize, JsonSchema)]
        struct OwnFields {
            viewer: Option<Seat>,
            to_act: Option<Seat>,
            finished: bool,
        }
        #[derive(Serialize, JsonSchema)]
        struct Flattened {
            #[serde(flatten)]
            common: ViewCommon,
            said: Vec<u8>,
        }
        let schema = |s: schemars::Schema| serde_json::to_value(s).unwrap();
        let e =
            view_schema_has_common_fields(&schema(schemars::schema_for!(OwnFields))).unwrap_err();
        assert!(e.contains("`viewer`"), "{e}");
        let flattened = schema(schemars::schema_for!(Flattened));
        assert_eq!(view_schema_has_common_fields(&flattened), Ok(()));
        // ViewCommon's own doc text does not become the view's description.
        assert_eq!(flattened.get("description"), None, "{flattened}");
        let status = Status::Active { to_act: vec![1] };
        let e = common_fields_agree(
            &serde_json::json!({ "viewer": 0 }),
            Viewer::Seat(0),
            2,
            &status,
        )
        .unwrap_err();
        assert!(e.contains("no `to_act`"), "{e}");
        let view = serde_json::json!({ "viewer": null, "to_act": [1], "finished": false });
        assert_eq!(
            common_fields_agree(&view, Viewer::Spectator, 2, &status),
            Ok(())
        );
        let e = common_fields_agree(&view, Viewer::Seat(0), 2, &status).unwrap_err();
        assert!(e.contains("`viewer`"), "{e}");
    }

    #[test]
    fn accepting_an_unlisted_action_fails() {
        let e = run(Fault::AcceptsUnlisted).unwrap_err();
        assert!(e.contains("may apply"), "{e}");
    }

    #[test]
    fn a_replay_that_differs_fails() {
        let e = run(Fault::ReplayDiverges).unwrap_err();
        assert!(e.contains("replay") || e.contains("round trip"), "{e}");
    }

    /// The plain way, as a reference: every leaf of both documents by exact path, compared,
    /// then folded.
    fn varied_by_flattening(a: &Value, b: &Value) -> BTreeSet<String> {
        let (x, y) = (flatten(a), flatten(b));
        let mut out = BTreeSet::new();
        for (path, leaf) in &y {
            if x.get(path) != Some(leaf) {
                out.insert(fold_path(path));
            }
        }
        for path in x.keys() {
            if !y.contains_key(path) {
                out.insert(fold_path(path));
            }
        }
        out
    }

    #[test]
    fn walking_two_documents_finds_the_fields_that_flattening_them_finds() {
        let docs = [
            serde_json::json!({"hands": [[{"rank": 3, "suit": "h"}], []], "fleets": {"12": {"ships": 2}}, "rng": {"seed": 1}}),
            serde_json::json!({"hands": [[{"rank": 4, "suit": "h"}, {"rank": 1, "suit": "s"}], []], "fleets": {"12": {"ships": 2}, "7x": 1}, "rng": {"seed": 1}}),
            serde_json::json!({"hands": [[], [{"rank": 3}]], "fleets": {}, "rng": null, "bag": []}),
            serde_json::json!({"hands": "none", "fleets": {"12": {"ships": [1, 2]}}, "a.b": {"3": true}}),
            serde_json::json!({"hands": [[{"rank": 3, "suit": "h"}], []], "fleets": {"12": {"ships": 2.0}}, "rng": {"seed": 1}}),
            serde_json::json!([1, {"x": [[], [2]]}]),
            serde_json::json!(7),
        ];
        let mut some_differ = false;
        for a in &docs {
            let mut folded = BTreeSet::new();
            folded_leaves(a, &mut String::new(), &mut folded);
            let by_flattening: BTreeSet<String> = flatten(a).keys().map(|p| fold_path(p)).collect();
            assert_eq!(folded, by_flattening, "{a}");
            for b in &docs {
                let mut walked = BTreeSet::new();
                differing_paths(a, b, &mut String::new(), &mut walked);
                assert_eq!(walked, varied_by_flattening(a, b), "{a} against {b}");
                some_differ |= !walked.is_empty();
            }
        }
        assert!(some_differ);
    }
}
