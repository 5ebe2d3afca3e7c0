// "My games": the caller's games, whose turn it is, and the clocks.

import { get, gameTypes } from './api.js';
import { h, fill, duration, typeName, when } from './dom.js';
import { subscribe } from './live.js';

/** Seat names that are colours get a swatch of that colour beside the player's name. */
const COLOURS = new Set(['red', 'blue', 'green', 'yellow', 'white', 'orange', 'purple', 'black', 'brown', 'grey', 'gray']);

/**
 * One seat as a short line: name, the game's name for the seat (its colour or place) with
 * a swatch, ▶ when the seat has something to decide, its clock.
 */
export function seatLine(g, s) {
  const deciding = Array.isArray(g.deciding) ? g.deciding : g.to_act;
  const waiting = g.status !== 'finished' && deciding.includes(s.seat);
  const you = s.seat === g.your_seat;
  const label = s.label && s.label !== s.name ? s.label : null;
  const colour = label && COLOURS.has(label.toLowerCase()) ? label.toLowerCase() : null;
  return h('li', { class: waiting ? 'seat to-act' : 'seat', dataset: { seat: s.seat } },
    waiting ? h('span', { class: 'marker', 'aria-hidden': 'true' }, '▶ ') : null,
    colour ? h('span', { class: `swatch c-${colour}`, 'aria-hidden': 'true' }) : null,
    h('span', { class: 'name' }, s.name, you ? ' (you)' : ''),
    label ? h('span', { class: 'label' }, ` · ${label}`) : null,
    s.bot ? h('span', { class: 'muted' }, ' · played by the computer') : null,
    waiting ? h('span', { class: 'sr-only' }, ', to move') : null,
    s.clock_ms_left !== null && s.clock_ms_left !== undefined
      ? h('span', { class: s.clock_running ? 'clock running' : 'clock' },
        ` ⏱ ${duration(s.clock_ms_left)}${s.clock_running ? ' (running)' : ''}`)
      : null,
    s.on_vacation_until ? h('span', { class: 'muted' }, ` on vacation until ${when(s.on_vacation_until)}`) : null);
}

/** Who won a finished game, as the caller knows them: "You won", "Won by Ada and Bo". */
export function wonBy(g) {
  const winners = Array.isArray(g.winners) ? g.winners : [];
  if (!winners.length) return 'Finished';
  if (winners.includes(g.your_seat)) {
    const others = winners.filter((s) => s !== g.your_seat);
    return others.length ? `Finished: you won, with ${names(g, others)}` : 'Finished: you won';
  }
  return `Finished: won by ${names(g, winners)}`;
}

function names(g, seats) {
  const list = seats.map((seat) => (g.seats.find((s) => s.seat === seat) || { name: `Seat ${seat + 1}` }).name);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list[0];
}

function row(g, types, unread) {
  const state = g.status === 'finished' ? wonBy(g)
    : g.status === 'open' ? `Waiting for players (${g.seats.length}/${g.players})`
      : g.awaiting_you ? 'Your turn' : 'Waiting for others';
  return h('li', { class: g.awaiting_you ? 'game-row yours' : 'game-row', dataset: { game: g.id } },
    h('div', {},
      h('a', { href: `#/game/${g.id}` }, `${typeName(types, g.game_type)} #${g.id}`),
      unread.get(g.id) ? h('span', { class: 'badge chat-unread', title: 'Unread chat messages' }, ` 💬 ${unread.get(g.id)}`) : null,
      h('div', { class: g.awaiting_you ? 'badge' : 'muted' }, state),
      h('ul', { class: 'seats' }, g.seats.map((s) => seatLine(g, s)))),
    h('div', { class: 'muted' }, `move ${g.version}`, h('br'), when(g.updated_at)));
}

export async function myGames(main, _params, app) {
  const types = await gameTypes();
  const listBox = h('div');
  const url = '/api/v1/games?per_page=25';
  let items = [];
  let next = null;
  /** Unread chat messages by game. */
  let unread = new Map();
  const draw = () => {
    const mine = items.filter((g) => g.awaiting_you);
    const rest = items.filter((g) => !g.awaiting_you);
    document.title = `${mine.length ? `(${mine.length}) ` : ''}My games · Turnpost`;
    fill(listBox,
      items.length ? null : h('p', {}, 'You have no games yet. ', h('a', { href: '#/lobby' }, 'Find or start one in the lobby'), '.'),
      mine.length ? [h('h2', {}, 'Your turn'), h('ul', { class: 'games' }, mine.map((g) => row(g, types, unread)))] : null,
      rest.length ? [h('h2', {}, 'Other games'), h('ul', { class: 'games' }, rest.map((g) => row(g, types, unread)))] : null,
      next ? h('button', { type: 'button', onclick: more }, 'Show more') : null);
  };
  const more = async () => {
    const page = await get(next);
    items = items.concat(page.items);
    next = page.next;
    draw();
  };
  const reload = async () => {
    const [page, counts] = await Promise.all([get(url), get('/api/v1/me/chat/unread').catch(() => [])]);
    items = page.items;
    next = page.next;
    unread = new Map(counts.map((c) => [c.game_id, c.unread]));
    draw();
  };
  await reload();
  fill(main, h('h1', {}, 'My games'), listBox);
  const quiet = () => reload().catch(() => {});
  // Lobby news is about others' games.
  const unsubscribe = subscribe((kind) => kind !== 'lobby_changed' && quiet());
  // Clocks tick on the server; a slow refresh keeps them honest.
  const timer = setInterval(quiet, 60000);
  return () => {
    unsubscribe();
    clearInterval(timer);
  };
}
