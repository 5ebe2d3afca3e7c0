// The lobby: open games to join (GET /games?open=true) and a form to start one.

import { get, post, gameTypes } from './api.js';
import { h, fill, nextId, typeName, when } from './dom.js';
import { schemaForm } from './schemaform.js';
import { subscribe } from './live.js';

const DAYS_PER_MOVE = [1, 2, 3, 5, 7, 14];

function select(label, name, options, attrs = {}) {
  const id = nextId(name);
  return h('div', { class: 'field' }, h('label', { for: id }, label),
    h('select', { id, name, ...attrs }, options.map(([v, text]) => h('option', { value: v }, text))));
}

function createForm(types, app) {
  const typeSel = select('Game', 'game_type', types.map((t) => [t.id, t.name]));
  const playersBox = h('div');
  const optionsBox = h('fieldset', {}, h('legend', {}, 'Options'));
  const clock = select('Clock', 'days_per_move',
    [['', 'No clock'], ...DAYS_PER_MOVE.map((d) => [d, `${d} day${d > 1 ? 's' : ''} per move`])]);
  const maxId = nextId('max');
  const maxDays = h('div', { class: 'field' }, h('label', { for: maxId }, 'Clock cap in days (empty: three moves’ worth)'),
    h('input', { id: maxId, name: 'max_days', type: 'number', min: 1, max: 60, inputmode: 'numeric' }));
  const policy = select('When a clock runs out', 'timeout_policy',
    [['forfeit', 'the player forfeits'], ['random_move', 'a random move is made for them'],
      ['bot', 'the computer plays for them until they take their seat back']]);
  const botsBox = h('div');
  const privateId = nextId('private');
  const privacy = h('div', { class: 'field' },
    h('label', { for: privateId },
      h('input', { id: privateId, name: 'private', type: 'checkbox' }),
      ' Private: only its players and the people invited see it; not in the lobby'));
  const inviteId = nextId('invite');
  const invite = h('div', { class: 'field' },
    h('label', { for: inviteId }, 'Invite by email (addresses, one per line; a seat is kept for each)'),
    h('textarea', { id: inviteId, name: 'invite', rows: 2, autocomplete: 'off', placeholder: 'bo@example.org' }));
  const ratedId = nextId('rated');
  const rated = h('div', { class: 'field check' },
    h('input', { type: 'checkbox', name: 'rated', id: ratedId, checked: true }),
    h('label', { for: ratedId }, ' Rated: the result changes the players’ ratings'));
  const reliableId = nextId('reliable');
  const minReliable = h('div', { class: 'field' },
    h('label', { for: reliableId }, 'Those who join must have played at least this percent of their games to the end (empty: anyone)'),
    h('input', { id: reliableId, name: 'min_reliability', type: 'number', min: 0, max: 100, inputmode: 'numeric' }));
  const minRatingId = nextId('minrating');
  const minRating = h('div', { class: 'field' },
    h('label', { for: minRatingId }, 'Minimum rating in this game to join (empty: anyone)'),
    h('input', { id: minRatingId, name: 'min_rating', type: 'number', min: 0, max: 4000, inputmode: 'numeric' }));
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Create game');
  let options = null;

  const typeInput = typeSel.querySelector('select');
  const showType = () => {
    const t = types.find((x) => x.id === typeInput.value) || types[0];
    fill(playersBox, select('Players', 'players', t.player_counts.map((n) => [n, `${n} players`])));
    // "Play against the computer": up to every seat but the creator's.
    const showBots = () => {
      const n = Number(playersBox.querySelector('select').value) || 2;
      fill(botsBox, select('Computer players', 'bots',
        Array.from({ length: n }, (_, k) => [k, k === 0 ? 'none: people only'
          : `${k} (${k === n - 1 ? 'you against the computer: starts at once' : `${n - 1 - k} seat${n - 1 - k > 1 ? 's' : ''} left for people`})`])));
    };
    options = schemaForm(t.options_schema);
    const showPlayers = () => {
      showBots();
      options.players(Number(playersBox.querySelector('select').value) || 2);
    };
    playersBox.querySelector('select').addEventListener('change', showPlayers);
    showPlayers();
    fill(optionsBox, h('legend', {}, 'Options'), options.element,
      h('p', {}, h('a', { href: `#/rules/${encodeURIComponent(t.id)}` }, `Rules of ${t.name}`)));
  };
  typeInput.addEventListener('change', showType);
  showType();

  const clockInput = clock.querySelector('select');
  const syncClock = () => {
    for (const el of [maxDays, policy]) el.hidden = clockInput.value === '';
  };
  clockInput.addEventListener('change', syncClock);
  syncClock();

  const form = h('form', { class: 'card', 'aria-labelledby': 'new-game' },
    h('h2', { id: 'new-game' }, 'Start a game'), typeSel, playersBox, botsBox, optionsBox, clock, maxDays, policy,
    privacy, invite, rated, minReliable, minRating, button, error);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    fill(error);
    const d = new FormData(form);
    const body = { game_type: d.get('game_type'), players: Number(d.get('players')), options: options.value(), rated: d.get('rated') === 'on' };
    if (d.get('private')) body.private = true;
    if (d.get('min_reliability')) body.min_reliability = Number(d.get('min_reliability'));
    if (d.get('min_rating')) body.min_rating = Number(d.get('min_rating'));
    if (Number(d.get('bots')) > 0) body.bots = Number(d.get('bots'));
    const invitees = String(d.get('invite') || '').split(/[\s,;]+/).filter(Boolean);
    if (invitees.length) body.invite = invitees;
    if (d.get('days_per_move')) {
      body.time_control = { days_per_move: Number(d.get('days_per_move')) };
      if (d.get('max_days')) body.time_control.max_days = Number(d.get('max_days'));
      body.timeout_policy = d.get('timeout_policy');
    }
    button.disabled = true;
    try {
      const g = await post('/api/v1/games', body);
      app.navigate(`#/game/${g.id}`, g.status === 'active'
        ? 'Game created: every seat is taken, it has started.'
        : 'Game created. It starts when every seat is taken.');
    } catch (e) {
      fill(error, refusal(e, 'The game was not created'));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** A refusal of the lobby's rules (requirements, the cap on games) said as a sentence. */
function refusal(e, what) {
  if (e.code !== 'join_requirement_not_met' && e.code !== 'too_many_active_games') return e.message;
  const why = e.message.replace(/ \((min_reliability|min_rating)\)$/, '');
  return `${what}: ${why}.`;
}

function openGames(list, types, app, reload) {
  if (!list.items.length) return h('p', { class: 'muted' }, 'No open games right now. Start one!');
  return h('ul', { class: 'games' }, list.items.map((g) => {
    const joined = g.your_seat !== null;
    const act = async (path, message) => {
      try {
        await post(`/api/v1/games/${g.id}/${path}`, {});
        if (path === 'join') app.navigate(`#/game/${g.id}`, message);
        else reload(message);
      } catch (e) {
        app.flash(refusal(e, `You cannot join game #${g.id}`), 'error');
        reload();
      }
    };
    return h('li', { class: 'game-row', dataset: { game: g.id } },
      h('div', {},
        h('a', { href: `#/game/${g.id}` }, `${typeName(types, g.game_type)} #${g.id}`),
        h('div', { class: 'muted' }, `${g.seats.length} of ${g.players} seats taken: `,
          g.seats.map((s) => s.name).join(', '),
          h('span', { class: 'reliability', title: 'Share of their ended games the creator played to the end' },
            g.creator_reliability === null || g.creator_reliability === undefined
              ? ' (creator: no finished games yet)'
              : ` (creator plays ${g.creator_reliability}% of games to the end)`),
          g.clock ? ' · clock' : ' · no clock',
          g.requirements && g.requirements.min_reliability !== null ? ` · asks ${g.requirements.min_reliability}% reliability` : '',
          g.requirements && g.requirements.min_rating !== null ? ` · asks rating ${g.requirements.min_rating}+` : '',
          ` · opened ${when(g.updated_at)}`)),
      joined
        ? h('button', { type: 'button', onclick: () => act('leave', `You left game #${g.id}.`) }, 'Leave')
        : h('button', { type: 'button', class: 'primary', onclick: () => act('join', `You joined game #${g.id}.`) }, 'Join'));
  }));
}

/**
 * The lobby's filters (game type, seats, clock, the creator's rating): a form whose
 * `query()` is the matching query string of GET /games; `onChange` runs on each change.
 */
function filterBar(types, onChange) {
  const counts = [...new Set(types.flatMap((t) => t.player_counts))].sort((a, b) => a - b);
  // Named `filter_…` (the create form beside it has fields called `game_type`, `players`).
  const type = select('Game', 'filter_game_type', [['', 'Any game'], ...types.map((t) => [t.id, t.name])]);
  const players = select('Players', 'filter_players', [['', 'Any number'], ...counts.map((n) => [n, `${n} players`])]);
  const clock = select('Clock', 'filter_clock', [['', 'With or without'], ['true', 'With a clock'], ['false', 'No clock']]);
  const ratingBox = (label, name) => {
    const id = nextId(name);
    return h('div', { class: 'field' }, h('label', { for: id }, label),
      h('input', { id, name: `filter_${name}`, type: 'number', min: 0, max: 4000, step: 50, inputmode: 'numeric' }));
  };
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', { class: 'filters', id: 'lobby-filters', 'aria-label': 'Filter open games' },
    type, players, clock, ratingBox('Creator rated from', 'min_rating'), ratingBox('Creator rated up to', 'max_rating'),
    h('button', { type: 'reset' }, 'Clear'), error);
  const query = () => {
    const d = new FormData(form);
    return ['game_type', 'players', 'clock', 'min_rating', 'max_rating']
      .filter((k) => String(d.get(`filter_${k}`) || '').trim() !== '')
      .map((k) => `&${k}=${encodeURIComponent(String(d.get(`filter_${k}`)).trim())}`).join('');
  };
  let timer = null;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      fill(error);
      onChange().catch((e) => fill(error, e.message));
    }, 250);
  };
  form.addEventListener('change', changed);
  form.addEventListener('input', changed);
  form.addEventListener('reset', () => setTimeout(changed));
  form.addEventListener('submit', (ev) => ev.preventDefault());
  return { el: form, query };
}

/** Seats given up in games under way, offered to a replacement (GET /seat-offers). */
function seatOffers(offers, types, app, reload) {
  if (!offers.items.length) return null;
  return [h('h2', { id: 'seat-offers' }, 'Seats to take over'),
    h('p', { class: 'muted' }, 'A player gave up and the computer plays on for them. Take the seat to play on from its position: you see only what the seat sees, and the game is not rated for you.'),
    h('ul', { class: 'games seat-offers' }, offers.items.map((o) => h('li', { class: 'game-row', dataset: { game: o.game_id, seat: o.seat } },
      h('div', {},
        h('a', { href: `#/game/${o.game_id}` }, `${typeName(types, o.game_type)} #${o.game_id}`),
        h('div', { class: 'muted' }, `${o.left_name}’s seat in a game of ${o.players}, offered by ${o.offered_by_name === o.left_name ? 'them' : o.offered_by_name}`,
          o.clock ? ' · clock' : ' · no clock', ` · ${when(o.offered_at)}`)),
      h('button', {
        type: 'button',
        class: 'primary',
        onclick: async () => {
          try {
            await post(`/api/v1/games/${o.game_id}/seats/${o.seat}/take`, {});
            app.navigate(`#/game/${o.game_id}`, `You took over ${o.left_name}’s seat in game #${o.game_id}: you play on from its position, unrated.`);
          } catch (e) {
            app.flash(e.message, 'error');
            reload();
          }
        },
      }, 'Take this seat'))))];
}

export async function lobby(main, _params, app) {
  const types = await gameTypes();
  const listBox = h('section', { 'aria-labelledby': 'open-games' });
  const results = h('div', { id: 'lobby-results' });
  const filters = filterBar(types, () => reload());
  const reload = async (message) => {
    const [list, offers] = await Promise.all([
      get(`/api/v1/games?open=true&per_page=50${filters.query()}`),
      get('/api/v1/seat-offers').catch(() => ({ items: [] })),
    ]);
    const full = list.max_active_games !== undefined && list.your_active_games >= list.max_active_games;
    fill(results,
      full ? h('p', { class: 'notice', id: 'active-cap', role: 'status' },
        `You are in ${list.your_active_games} unfinished games, the most this server allows (${list.max_active_games}). Finish or leave one before you start or join another.`) : null,
      filters.query() && !list.items.length ? h('p', { class: 'muted' }, 'No open game matches these filters.') : openGames(list, types, app, reload),
      seatOffers(offers, types, app, reload));
    if (message) app.flash(message);
  };
  fill(listBox, h('h2', { id: 'open-games' }, 'Open games'), filters.el, results);
  await reload();
  fill(main, h('h1', {}, 'Lobby'), h('div', { class: 'columns' }, listBox, createForm(types, app)));
  // Events cover the caller's own games; others' new games show up on a slow poll.
  const quiet = () => reload().catch(() => {});
  const unsubscribe = subscribe(quiet);
  const timer = setInterval(quiet, 30000);
  return () => {
    unsubscribe();
    clearInterval(timer);
  };
}
