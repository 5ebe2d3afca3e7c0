// "My games": the caller's games, whose turn it is, and the clocks.

import { get, gameTypes } from './api.js';
import { h, fill, duration, typeName, when } from './dom.js';
import { subscribe } from './live.js';

/** One seat as a short line: name, ▶ when the game waits for it, its clock. */
export function seatLine(g, s) {
  const waiting = g.to_act.includes(s.seat);
  const you = s.seat === g.your_seat;
  return h('li', { class: waiting ? 'seat to-act' : 'seat' },
    waiting ? h('span', { class: 'marker', 'aria-hidden': 'true' }, '▶ ') : null,
    h('span', {}, s.name, you ? ' (you)' : ''),
    s.bot ? h('span', { class: 'muted' }, ' · played by the computer') : null,
    waiting ? h('span', { class: 'sr-only' }, ', to move') : null,
    s.clock_ms_left !== null && s.clock_ms_left !== undefined
      ? h('span', { class: s.clock_running ? 'clock running' : 'clock' },
        ` ⏱ ${duration(s.clock_ms_left)}${s.clock_running ? ' (running)' : ''}`)
      : null,
    s.on_vacation_until ? h('span', { class: 'muted' }, ` on vacation until ${when(s.on_vacation_until)}`) : null);
}

function row(g, types) {
  const state = g.status === 'finished' ? 'Finished'
    : g.status === 'open' ? `Waiting for players (${g.seats.length}/${g.players})`
      : g.awaiting_you ? 'Your turn' : 'Waiting for others';
  return h('li', { class: g.awaiting_you ? 'game-row yours' : 'game-row', dataset: { game: g.id } },
    h('div', {},
      h('a', { href: `#/game/${g.id}` }, `${typeName(types, g.game_type)} #${g.id}`),
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
  const draw = () => {
    const mine = items.filter((g) => g.awaiting_you);
    const rest = items.filter((g) => !g.awaiting_you);
    fill(listBox,
      items.length ? null : h('p', {}, 'You have no games yet. ', h('a', { href: '#/lobby' }, 'Find or start one in the lobby'), '.'),
      mine.length ? [h('h2', {}, 'Your turn'), h('ul', { class: 'games' }, mine.map((g) => row(g, types)))] : null,
      rest.length ? [h('h2', {}, 'Other games'), h('ul', { class: 'games' }, rest.map((g) => row(g, types)))] : null,
      next ? h('button', { type: 'button', onclick: more }, 'Show more') : null);
  };
  const more = async () => {
    const page = await get(next);
    items = items.concat(page.items);
    next = page.next;
    draw();
  };
  const reload = async () => {
    const page = await get(url);
    items = page.items;
    next = page.next;
    draw();
  };
  await reload();
  fill(main, h('h1', {}, 'My games'), listBox);
  const quiet = () => reload().catch(() => {});
  const unsubscribe = subscribe(quiet);
  // Clocks tick on the server; a slow refresh keeps them honest.
  const timer = setInterval(quiet, 60000);
  return () => {
    unsubscribe();
    clearInterval(timer);
  };
}
