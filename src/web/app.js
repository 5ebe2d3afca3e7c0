// The page shell: hash routes, the navigation, messages, and signing out.
//   #/signin  #/signup  #/games  #/lobby  #/game/<id>  #/rules/<type>  #/settings
//   #/game/<id>/at/<version>: a game's page looking back at a past position
//   #/leaderboard/<type>  #/ratings/<account id>
//   #/forgot  #/reset/<token>: asking for a password reset link, and where it lands
//   #/welcome/<game id>/<token>: where an accepted invitation lands, signed in (the token
//   rides in the fragment, which never reaches a server, and leaves the address at once);
//   #/welcome/<token>: where a sign-up link's button lands, signed in the same way.

import { token, setToken, clearToken, setUnauthorizedHandler, get } from './api.js';
import { h, fill } from './dom.js';
import * as live from './live.js';

const routes = {
  signin: () => import('./auth.js').then((m) => m.signIn),
  signup: () => import('./auth.js').then((m) => m.signUp),
  forgot: () => import('./reset.js').then((m) => m.forgot),
  reset: () => import('./reset.js').then((m) => m.reset),
  games: () => import('./games.js').then((m) => m.myGames),
  lobby: () => import('./lobby.js').then((m) => m.lobby),
  game: () => import('./game.js').then((m) => m.gamePage),
  rules: () => import('./rules.js').then((m) => m.rulesPage),
  settings: () => import('./settings.js').then((m) => m.settings),
  leaderboard: () => import('./ratings.js').then((m) => m.leaderboardPage),
  ratings: () => import('./ratings.js').then((m) => m.ratingsPage),
};
// A public game's page is open to anyone: they watch it as a spectator.
const PUBLIC = new Set(['signin', 'signup', 'forgot', 'reset', 'rules', 'game', 'leaderboard', 'ratings']);

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const flashBox = document.getElementById('flash');
let cleanup = null;
let me = null;
let routeSeq = 0;
/** Where a signed-out visitor was going (a game's link from an email), for after sign-in. */
let wanted = null;

/** Shows a message in the live region (read out by screen readers). */
export function flash(text, kind = 'info') {
  fill(flashBox, text ? h('p', { class: `flash ${kind}` }, text) : null);
}

let pending = null;
/** Goes to a page; `message` is shown there once it is drawn. */
export function navigate(hash, message) {
  pending = message || null;
  if (location.hash === hash) route();
  else location.hash = hash;
}

/** The signed-in account (GET /me), cached until sign-out or a settings change. */
export async function account(refresh = false) {
  if (!me || refresh) me = await get('/api/v1/me');
  return me;
}

export function signOut(message) {
  clearToken();
  live.stop();
  me = null;
  navigate('#/signin', message && [message, 'error']);
}

setUnauthorizedHandler(() => signOut('Your session has ended. Please sign in again.'));

function drawNav(current) {
  const link = (hash, text) =>
    h('a', { href: hash, 'aria-current': current === hash.slice(2) ? 'page' : false }, text);
  // The players' guide: playing in the browser and by email, chat, takebacks, clocks.
  const help = h('a', { href: '/docs/players' }, 'Help');
  if (!token()) {
    fill(nav, link('#/signin', 'Sign in'), link('#/signup', 'Sign up'), link('#/leaderboard', 'Leaderboards'), help);
    return;
  }
  fill(
    nav,
    link('#/games', 'My games'),
    link('#/lobby', 'Lobby'),
    link('#/leaderboard', 'Leaderboards'),
    link('#/ratings', 'My ratings'),
    link('#/settings', 'Settings'),
    help,
    h('button', { type: 'button', class: 'link', onclick: () => signOut() }, 'Sign out'),
  );
}

/**
 * Signed in by an accepted invitation (#/welcome/<game>/<token>) or a sign-up link
 * (#/welcome/<token>): keep the token, take it out of the address, open the game or the
 * player's games.
 */
function welcome(raw) {
  const m = /^#\/welcome\/(?:(\d+)\/)?([A-Za-z0-9._~-]+)$/.exec(raw);
  if (!m) return false;
  setToken(m[2], false);
  me = null;
  history.replaceState(null, '', m[1] ? `#/game/${m[1]}` : '#/games');
  pending = m[1] ? 'You are in: welcome to the game.' : 'Your account is ready and you are signed in. Open a game in the Lobby, or start one.';
  live.start();
  return true;
}

async function route() {
  if (welcome(location.hash)) {
    route();
    return;
  }
  const raw = location.hash;
  // In-page anchors (the skip link) are not routes.
  if (raw && !raw.startsWith('#/')) return;
  const [name, ...params] = raw.slice(2).split('/').map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return '';
    }
  });
  let page = routes[name] ? name : token() ? 'games' : 'signin';
  if (!token() && !PUBLIC.has(page)) {
    if (routes[name]) wanted = raw;
    page = 'signin';
  }
  if (token() && (page === 'signin' || page === 'signup' || page === 'forgot')) page = 'games';
  if (cleanup) cleanup();
  cleanup = null;
  drawNav(page);
  const seq = ++routeSeq;
  // Each navigation draws into a box of its own: a page still loading when the next
  // navigation starts writes into a box no longer shown, so the last navigation wins.
  const box = h('div', { class: 'page' }, h('p', { class: 'muted' }, 'Loading…'));
  main.replaceChildren(box);
  const message = pending;
  pending = null;
  flash(...(Array.isArray(message) ? message : [message]));
  const render = await routes[page]();
  if (seq !== routeSeq) return;
  const ctx = {
    flash, navigate, account, signOut,
    /** The page to go to after signing in. */
    resume: () => {
      const to = wanted || '#/games';
      wanted = null;
      return to;
    },
    /** Whether this page is still the one shown. */
    current: () => seq === routeSeq,
    /** A signed-out visitor needs an account here: sign in, then come back to this page. */
    signInFirst: (why) => {
      wanted = raw;
      navigate('#/signin', why);
    },
  };
  try {
    const done = (await render(box, params, ctx)) || null;
    // Another route started meanwhile: this page is already gone.
    if (seq !== routeSeq) {
      if (done) done();
      return;
    }
    cleanup = done;
  } catch (e) {
    if (seq !== routeSeq || (e && e.status === 401)) return;
    fill(box, h('h1', {}, 'Something went wrong'), h('p', { class: 'error' }, e.message || String(e)));
  }
  // Move focus to the new page's heading, so keyboard and screen-reader users start there.
  if (seq !== routeSeq) return;
  const heading = box.querySelector('h1');
  if (heading && !main.contains(document.activeElement)) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
}

window.addEventListener('hashchange', route);

if (token()) live.start();
route();
