// Ratings: a game type's leaderboard (GET /game-types/{id}/leaderboard) and an account's
// ratings with their history (GET /accounts/{id}/ratings). Both are public.
//   #/leaderboard/<type>/<page>   #/ratings/<account id>/<page>   (#/ratings: your own)

import { get, gameTypes, token } from './api.js';
import { h, fill, typeName, when } from './dom.js';

const PER_PAGE = 20;
const num = (x) => Math.round(x);
const pageOf = (raw) => {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : 1;
};

/** Previous/next links for a paged answer. */
function pager(base, answer) {
  const prev = answer.page > 1 ? h('a', { href: `${base}/${answer.page - 1}`, rel: 'prev' }, '← Previous') : null;
  const next = answer.next ? h('a', { href: `${base}/${answer.page + 1}`, rel: 'next' }, 'Next →') : null;
  return prev || next ? h('p', { class: 'pager' }, prev, prev && next ? ' · ' : null, next) : null;
}

function typeLinks(types, current) {
  return h('nav', { class: 'type-links', 'aria-label': 'Game types' },
    h('ul', { class: 'inline-list' }, types.map((t) => h('li', {},
      h('a', { href: `#/leaderboard/${encodeURIComponent(t.id)}`, 'aria-current': t.id === current ? 'page' : false }, t.name)))));
}

const provisional = (r) => (r.provisional ? h('abbr', { title: 'provisional: fewer than five rated games' }, ' ?') : null);

export async function leaderboardPage(main, [type, page]) {
  const types = await gameTypes();
  const id = type || (types[0] && types[0].id) || '';
  const base = `#/leaderboard/${encodeURIComponent(id)}`;
  const board = await get(`/api/v1/game-types/${encodeURIComponent(id)}/leaderboard?page=${pageOf(page)}&per_page=${PER_PAGE}`, { auth: false });
  const table = board.entries.length
    ? h('div', { class: 'table-wrap' }, h('table', { class: 'leaderboard' },
      h('thead', {}, h('tr', {}, ['#', 'Player', 'Rating', 'Deviation', 'Games'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, board.entries.map((e) => h('tr', { dataset: { account: e.account_id } },
        h('td', {}, String(e.position)),
        h('td', {}, h('a', { href: `#/ratings/${e.account_id}` }, e.name)),
        h('td', {}, String(num(e.rating)), provisional(e)),
        h('td', {}, `±${num(e.deviation)}`),
        h('td', {}, String(e.games_played)))))))
    : h('p', { class: 'muted' }, 'No rated games of this type yet.');
  fill(main,
    h('h1', {}, `Leaderboard: ${typeName(types, id)}`),
    typeLinks(types, id),
    table,
    pager(base, board),
    h('p', { class: 'muted' }, 'Glicko-2 ratings; a question mark marks a provisional rating (fewer than five rated games).'));
}

export async function ratingsPage(main, [who, page], app) {
  let id = Number(who);
  if (!Number.isInteger(id) || id < 1) {
    if (!token()) {
      app.navigate('#/signin');
      return;
    }
    id = (await app.account()).id;
  }
  const [types, r, rel] = await Promise.all([
    gameTypes(),
    get(`/api/v1/accounts/${id}/ratings?page=${pageOf(page)}&per_page=${PER_PAGE}`, { auth: false }),
    get(`/api/v1/accounts/${id}/reliability`, { auth: false }).catch(() => null),
  ]);
  const reliability = rel ? h('section', { 'aria-labelledby': 'rel-h', id: 'reliability' },
    h('h2', { id: 'rel-h' }, 'Reliability'),
    h('p', {}, rel.share === null
      ? 'No game has ended for this player yet.'
      : `Plays ${rel.share}% of games to the end (${rel.games_finished} game${rel.games_finished === 1 ? '' : 's'} ended: ${rel.resigned} resigned, ${rel.lost_on_time} lost on time).`)) : null;
  const current = r.ratings.length
    ? h('div', { class: 'table-wrap' }, h('table', { class: 'ratings' },
      h('thead', {}, h('tr', {}, ['Game', 'Rating', 'Deviation', 'Games'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, r.ratings.map((x) => h('tr', { dataset: { type: x.game_type } },
        h('td', {}, h('a', { href: `#/leaderboard/${encodeURIComponent(x.game_type)}` }, typeName(types, x.game_type))),
        h('td', {}, String(num(x.rating)), provisional(x)),
        h('td', {}, `±${num(x.deviation)}`),
        h('td', {}, String(x.games_played)))))))
    : h('p', { class: 'muted' }, 'No rated games yet.');
  const history = r.history.length
    ? h('ol', { class: 'history' }, r.history.map((c) => {
      const delta = num(c.rating_after) - num(c.rating_before);
      return h('li', { dataset: { game: c.game_id } },
        h('a', { href: `#/game/${c.game_id}` }, `${typeName(types, c.game_type)} #${c.game_id}`),
        ` · place ${c.rank} · ${num(c.rating_before)} → ${num(c.rating_after)} (${delta >= 0 ? '+' : ''}${delta}) · ${when(c.rated_at)}`);
    }))
    : null;
  fill(main,
    h('h1', {}, `Ratings: ${r.name}`),
    reliability,
    h('section', { 'aria-labelledby': 'cur-h' }, h('h2', { id: 'cur-h' }, 'Current ratings'), current),
    history ? h('section', { 'aria-labelledby': 'hist-h' }, h('h2', { id: 'hist-h' }, 'Rated games'), history, pager(`#/ratings/${id}`, r)) : null);
}
