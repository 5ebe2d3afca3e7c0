// The browser's one live connection, shared by all its Turnpost tabs (a SharedWorker:
// see live.js). A browser opens at most 6 HTTP/1.1 connections to a site; a stream per tab
// left the sixth tab's requests waiting behind five streams. Here one stream
// (GET /api/v1/me/events) serves every tab, and a few public game streams (for spectators)
// are shared by every tab watching the same game; a watcher beyond MAX_GAME_STREAMS polls.
//
// Messages from a tab: {type: 'start', token}, {type: 'stop'}, {type: 'bye'},
// {type: 'watch', id, token}, {type: 'unwatch', id}. To a tab: {type: 'event', kind, data},
// {type: 'state', open}, {type: 'game', id, data} and {type: 'watching', id, open}.

const MAX_GAME_STREAMS = 2;
const KINDS = ['game_changed', 'your_turn', 'lobby_changed'];

const ports = new Set();
let token = null;
let source = null;
let opened = false;
let failures = 0;
let retryTimer = null;
/** Public game streams: id → {source, ports: Set}. */
const games = new Map();

function post(port, msg) {
  try {
    port.postMessage(msg);
  } catch {
    ports.delete(port);
  }
}

function broadcast(msg) {
  for (const port of [...ports]) post(port, msg);
}

function isOpen() {
  return source !== null && source.readyState === EventSource.OPEN;
}

function parse(ev) {
  try {
    return JSON.parse(ev.data);
  } catch {
    // A frame we cannot read tells the pages nothing more than "something changed".
    return {};
  }
}

function close() {
  clearTimeout(retryTimer);
  if (source) source.close();
  source = null;
  opened = false;
}

function open() {
  close();
  if (!token) {
    broadcast({ type: 'state', open: false });
    return;
  }
  source = new EventSource(`/api/v1/me/events?access_token=${encodeURIComponent(token)}`);
  const mine = source;
  source.onopen = () => {
    failures = 0;
    // After a dropped connection whatever happened meanwhile was not told: re-read.
    if (opened) broadcast({ type: 'event', kind: 'reconnected', data: {} });
    opened = true;
    broadcast({ type: 'state', open: true });
  };
  for (const kind of KINDS) {
    source.addEventListener(kind, (ev) => broadcast({ type: 'event', kind, data: parse(ev) }));
  }
  source.addEventListener('lagged', () => broadcast({ type: 'event', kind: 'lagged', data: {} }));
  // What happened while disconnected could not be replayed: re-read, as after lagged.
  source.addEventListener('resync', () => broadcast({ type: 'event', kind: 'lagged', data: {} }));
  source.onerror = () => {
    if (mine !== source) return;
    broadcast({ type: 'state', open: isOpen() });
    // The browser retries by itself while CONNECTING; once it gave up (CLOSED: a 401, a
    // server gone) we retry slower, and the tabs poll meanwhile.
    if (source.readyState === EventSource.CLOSED) {
      source = null;
      failures += 1;
      retryTimer = setTimeout(open, Math.min(60000, 2000 * 2 ** failures));
    }
  };
}

function watch(port, id, watcherToken) {
  let g = games.get(id);
  if (!g) {
    if (games.size >= MAX_GAME_STREAMS) {
      post(port, { type: 'watching', id, open: false });
      return;
    }
    const q = watcherToken ? `?access_token=${encodeURIComponent(watcherToken)}` : '';
    g = { source: new EventSource(`/api/v1/games/${id}/events${q}`), ports: new Set() };
    games.set(id, g);
    const entry = g;
    g.source.onopen = () => {
      for (const p of entry.ports) post(p, { type: 'watching', id, open: true });
    };
    g.source.onerror = () => {
      for (const p of entry.ports) post(p, { type: 'watching', id, open: entry.source.readyState === EventSource.OPEN });
    };
    g.source.addEventListener('game_changed', (ev) => {
      const data = parse(ev);
      for (const p of entry.ports) post(p, { type: 'game', id, data });
    });
  }
  g.ports.add(port);
  post(port, { type: 'watching', id, open: g.source.readyState === EventSource.OPEN });
}

function unwatch(port, id) {
  const g = games.get(id);
  if (!g) return;
  g.ports.delete(port);
  if (!g.ports.size) {
    g.source.close();
    games.delete(id);
  }
}

function handle(port, msg) {
  if (!msg || typeof msg !== 'object') return;
  switch (msg.type) {
    case 'start':
      if (msg.token !== token || source === null) {
        token = msg.token || null;
        open();
      } else {
        post(port, { type: 'state', open: isOpen() });
      }
      break;
    case 'stop':
      token = null;
      close();
      broadcast({ type: 'state', open: false });
      break;
    case 'watch':
      watch(port, Number(msg.id), msg.token || null);
      break;
    case 'unwatch':
      unwatch(port, Number(msg.id));
      break;
    case 'bye':
      ports.delete(port);
      for (const id of [...games.keys()]) unwatch(port, id);
      // No tab left: nothing to keep a connection for.
      if (!ports.size) close();
      break;
    default:
  }
}

self.onconnect = (e) => {
  const port = e.ports[0];
  ports.add(port);
  port.onmessage = (m) => handle(port, m.data);
  port.start();
};
