//! Turn and game-over emails, rendered at the moment of the transition (inside the move's
//! transaction), so the email shows exactly the state the player must answer.

use std::fmt::Write as _;

use crate::domain::Domain;
use crate::domain::games::SeatInfo;
use crate::engine::{GameInfo, LoadedGame, Seat, Status, Viewer};
use crate::store::models::{GameRow, NewOutbox};

/// The subject line of every email about one game: stable, so mail clients thread them.
pub fn subject(info: &GameInfo, game_id: i64, what: &str) -> String {
    format!("[Turnpost] {} #{}: {}", info.name, game_id, what)
}

/// Emails owed after a game reached `version` with status `after` (`before_to_act` is who
/// had to act before the action; empty at the start).
#[allow(clippy::too_many_arguments)]
pub fn for_transition(
    domain: &Domain,
    row: &GameRow,
    info: &GameInfo,
    version: i64,
    state: &dyn LoadedGame,
    before_to_act: &[Seat],
    after: &Status,
    seats: &[SeatInfo],
) -> Vec<NewOutbox> {
    let link = format!("{}/api/v1/games/{}", domain.public_url.trim_end_matches('/'), row.id);
    match after {
        Status::Active { to_act } => to_act
            .iter()
            .filter(|s| !before_to_act.contains(s))
            .filter_map(|&s| seats.iter().find(|i| i.seat as usize == s))
            .filter(|i| i.email_notifications)
            .map(|player| turn_email(row, info, version, state, player, seats, &link))
            .collect(),
        Status::Finished(outcome) => seats
            .iter()
            .filter(|i| i.email_notifications)
            .map(|player| {
                let mut body = format!("Hello {},\n\nThe game is over: {}\n\n", player.name, outcome.summary);
                for p in &outcome.ranking {
                    let name = seats
                        .iter()
                        .find(|i| i.seat as usize == p.seat)
                        .map_or("?", |i| i.name.as_str());
                    let score = p.score.map(|s| format!(" ({s} points)")).unwrap_or_default();
                    let _ = writeln!(body, "  {}. {} — {}{}", p.rank, name, state.seat_name(p.seat), score);
                }
                let _ = write!(
                    body,
                    "\nFinal position:\n\n{}\n\nThe game: {link}\n",
                    state.render_text(Viewer::Seat(player.seat as usize))
                );
                let html = html_part(&body, &[], &link);
                NewOutbox {
                    dedupe_key: format!("over:{}:{}", row.id, player.account_id),
                    account_id: Some(player.account_id),
                    game_id: Some(row.id),
                    to_address: player.email.clone(),
                    subject: subject(info, row.id, "game over"),
                    body_text: body,
                    body_html: html,
                }
            })
            .collect(),
    }
}

fn turn_email(
    row: &GameRow,
    info: &GameInfo,
    version: i64,
    state: &dyn LoadedGame,
    player: &SeatInfo,
    seats: &[SeatInfo],
    link: &str,
) -> NewOutbox {
    let seat = player.seat as usize;
    let legal = state.legal_actions(seat);
    let texts: Vec<String> = legal
        .iter()
        .map(|a| state.describe_action(seat, a).unwrap_or_default())
        .collect();
    let opponents: Vec<String> = seats
        .iter()
        .filter(|s| s.seat != player.seat)
        .map(|s| format!("{} ({})", s.name, state.seat_name(s.seat as usize)))
        .collect();
    let mut body = format!(
        "Hello {},\n\nIt is your turn in {} #{} (move {}), playing as {} against {}.\n\n",
        player.name,
        info.name,
        row.id,
        version + 1,
        state.seat_name(seat),
        opponents.join(", ")
    );
    body.push_str(&state.render_text(Viewer::Seat(seat)));
    body.push_str("\n\nYour choices:\n");
    for (i, t) in texts.iter().enumerate() {
        let _ = writeln!(body, "  {:>3}. {}", i + 1, t);
    }
    let _ = write!(
        body,
        "\nSubmit your move at {link}/actions with \"expected_version\": {version}.\n\
         The game: {link}\n\nTo stop these emails, set email_notifications to false (PATCH /api/v1/me).\n"
    );
    let html = html_part(&body, &texts, link);
    NewOutbox {
        dedupe_key: format!("turn:{}:{}:{}", row.id, version, seat),
        account_id: Some(player.account_id),
        game_id: Some(row.id),
        to_address: player.email.clone(),
        subject: subject(info, row.id, "your turn"),
        body_text: body,
        body_html: html,
    }
}

/// A short HTML alternative: the same text in a monospace block, and a link.
fn html_part(text: &str, _choices: &[String], link: &str) -> String {
    format!(
        "<!doctype html><html><body><pre style=\"font-family:monospace\">{}</pre>\
         <p><a href=\"{}\">Open the game</a></p></body></html>",
        html_escape::encode_text(text),
        html_escape::encode_double_quoted_attribute(link)
    )
}
