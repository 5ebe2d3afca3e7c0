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
const KINDS = ['game_changed', 'your_turn', 'lobby_changed', 'chat_message'];

const ports = new Set();
let token = null;
let source = null;
let opened = false;
let failures = 0;
let retryTimer = null;
/** Counts openings: an opening that waited for its ticket while another began gives way. */
let openings = 0;
/** The id of the last event received, so that a new stream resumes after it. */
let lastId = null;
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

/**
 * The URL of an event stream for token `t` (none: as anybody): EventSource cannot send a
 * header and a token never goes in a URL, so it carries a stream ticket (valid 60 s for
 * opening streams only) and, for the account's stream, where the last one stopped.
 */
async function streamUrl(path, t, resumeAfter) {
  const q = new URLSearchParams();
  if (t) {
    const r = await fetch('/api/v1/me/stream-tickets', {
      method: 'POST',
      headers: { Authorization: `Bearer ${t}` },
    });
    if (!r.ok) throw new Error(`stream ticket: ${r.status}`);
    q.set('ticket', (await r.json()).ticket);
  }
  if (resumeAfter) q.set('last_event_id', resumeAfter);
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}

function close() {
  clearTimeout(retryTimer);
  openings += 1;
  if (source) source.close();
  source = null;
  opened = false;
}

function retryLater() {
  failures += 1;
  retryTimer = setTimeout(open, Math.min(60000, 2000 * 2 ** failures));
}

async function open() {
  close();
  if (!token) {
    broadcast({ type: 'state', open: false });
    return;
  }
  const mine = openings;
  let url;
  try {
    url = await streamUrl('/api/v1/me/events', token, lastId);
  } catch {
    if (mine !== openings) return;
    broadcast({ type: 'state', open: false });
    retryLater();
    return;
  }
  // Stopped, or opened again, while the ticket was on its way.
  if (mine !== openings) return;
  source = new EventSource(url);
  const current = source;
  source.onopen = () => {
    failures = 0;
    // After a dropped connection whatever happened meanwhile was not told: re-read.
    if (opened) broadcast({ type: 'event', kind: 'reconnected', data: {} });
    opened = true;
    broadcast({ type: 'state', open: true });
  };
  const seen = (ev) => {
    if (ev.lastEventId) lastId = ev.lastEventId;
  };
  for (const kind of KINDS) {
    source.addEventListener(kind, (ev) => {
      seen(ev);
      broadcast({ type: 'event', kind, data: parse(ev) });
    });
  }
  source.addEventListener('ready', seen);
  source.addEventListener('lagged', () => broadcast({ type: 'event', kind: 'lagged', data: {} }));
  // What happened while disconnected could not be replayed: re-read, as after lagged.
  source.addEventListener('resync', (ev) => {
    seen(ev);
    broadcast({ type: 'event', kind: 'lagged', data: {} });
  });
  source.onerror = () => {
    if (current !== source) return;
    broadcast({ type: 'state', open: isOpen() });
    // The browser retries by itself while CONNECTING; once it gave up (CLOSED: a 401 for
    // a ticket past its minute, a server gone) we retry slower with a new ticket, and the
    // tabs poll meanwhile.
    if (source.readyState === EventSource.CLOSED) {
      source = null;
      retryLater();
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
    g = { source: null, ports: new Set(), closed: false };
    games.set(id, g);
    const entry = g;
    // Until its stream opens the watchers poll; one that never opens leaves them polling.
    streamUrl(`/api/v1/games/${id}/events`, watcherToken, null).then((url) => {
      if (entry.closed) return;
      entry.source = new EventSource(url);
      entry.source.onopen = () => {
        for (const p of entry.ports) post(p, { type: 'watching', id, open: true });
      };
      entry.source.onerror = () => {
        for (const p of entry.ports) post(p, { type: 'watching', id, open: watchOpen(entry) });
      };
      entry.source.addEventListener('game_changed', (ev) => {
        const data = parse(ev);
        for (const p of entry.ports) post(p, { type: 'game', id, data });
      });
    }, () => {});
  }
  g.ports.add(port);
  post(port, { type: 'watching', id, open: watchOpen(g) });
}

function watchOpen(g) {
  return g.source !== null && g.source.readyState === EventSource.OPEN;
}

function unwatch(port, id) {
  const g = games.get(id);
  if (!g) return;
  g.ports.delete(port);
  if (!g.ports.size) {
    g.closed = true;
    if (g.source) g.source.close();
    games.delete(id);
  }
}

function handle(port, msg) {
  if (!msg || typeof msg !== 'object') return;
  switch (msg.type) {
    case 'start':
      if (msg.token !== token || source === null) {
        // Another account's stream does not resume where this one stopped.
        if (msg.token !== token) lastId = null;
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
