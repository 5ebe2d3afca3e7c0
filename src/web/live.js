// Live updates, one connection per browser. A browser opens at most 6 HTTP/1.1
// connections to a site, and a stream per tab left the sixth tab's own requests waiting
// behind five streams. So every tab shares one Server-Sent Events stream
// (GET /api/v1/me/events; EventSource cannot send headers and a token never goes in a
// URL, so it carries a stream ticket from POST /api/v1/me/stream-tickets):
//   - held by a SharedWorker (live-worker.js) where the browser has them;
//   - else held by one leader tab (a Web Lock elects it) that relays the events to the
//     others over a BroadcastChannel;
//   - else, in a browser with neither, by each tab.
// Pages subscribe; while no stream is open they poll instead (see `connected`), with
// If-None-Match so an unchanged game costs a 304.

import { token } from './api.js';

const listeners = new Set();
/** Public game streams this tab follows: id → {fn, open}. */
const watchers = new Map();

let port = null;
let workerOpen = false;
let channel = null;
let leading = false;
let releaseLead = null;
let relayedOpen = false;
let source = null;
let failures = 0;
let retryTimer = null;
/** Counts openings: an opening that waited for its ticket while another began gives way. */
let openings = 0;
/** The id of the last event received, so that a new stream resumes after it. */
let lastId = null;

/**
 * The URL of an event stream for token `t` (none: as anybody): a stream ticket (valid 60 s
 * for opening streams only) and, for the account's stream, where the last one stopped.
 * live-worker.js has the same (a classic worker cannot import this module).
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

function sharedWorker() {
  if (port || typeof SharedWorker === 'undefined') return port;
  try {
    const w = new SharedWorker('/web/live-worker.js', { name: 'turnpost-live' });
    port = w.port;
    port.onmessage = (m) => fromWorker(m.data);
    port.start();
    // A tab going away (or into the back-forward cache) leaves the shared stream.
    window.addEventListener('pagehide', () => port.postMessage({ type: 'bye' }));
    window.addEventListener('pageshow', (e) => {
      if (!e.persisted) return;
      start();
      for (const id of watchers.keys()) port.postMessage({ type: 'watch', id, token: token() });
    });
  } catch {
    port = null;
  }
  return port;
}

function fromWorker(msg) {
  if (!msg || typeof msg !== 'object') return;
  if (msg.type === 'state') workerOpen = Boolean(msg.open);
  else if (msg.type === 'event') emit(msg.kind, msg.data || {});
  else if (msg.type === 'watching' || msg.type === 'game') {
    const w = watchers.get(Number(msg.id));
    if (!w) return;
    if (msg.type === 'watching') w.open = Boolean(msg.open);
    else w.fn(msg.data || {});
  }
}

/** Whether events are arriving; pages poll faster while this is false. */
export function connected() {
  if (port) return workerOpen;
  if (channel && !leading) return relayedOpen;
  return source !== null && source.readyState === EventSource.OPEN;
}

/**
 * Calls `fn(kind, data)` for `game_changed` and `your_turn` (data `{id, version, status}`),
 * `lobby_changed`, `chat_message` (data: the message), and for `lagged` and `reconnected` (data `{}`: events may have been
 * missed, re-read); returns an unsubscribe.
 */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function emit(kind, data) {
  for (const fn of [...listeners]) fn(kind, data);
  if (leading && channel) channel.postMessage({ type: 'event', kind, data });
}

function parse(ev) {
  try {
    return JSON.parse(ev.data);
  } catch {
    // A frame we cannot read tells the pages nothing more than "something changed".
    return {};
  }
}

/** This tab's own stream: in a browser without SharedWorker, held by the leader only. */
async function openSource() {
  closeSource();
  const t = token();
  if (!t || typeof EventSource === 'undefined') return;
  const opening = openings;
  let url;
  try {
    url = await streamUrl('/api/v1/me/events', t, lastId);
  } catch {
    if (opening !== openings) return;
    failures += 1;
    retryTimer = setTimeout(openSource, Math.min(60000, 2000 * 2 ** failures));
    return;
  }
  if (opening !== openings) return;
  source = new EventSource(url);
  const mine = source;
  let opened = false;
  const tell = () => leading && channel && channel.postMessage({ type: 'state', open: connected() });
  source.onopen = () => {
    failures = 0;
    if (opened) emit('reconnected', {});
    opened = true;
    tell();
  };
  const seen = (ev) => {
    if (ev.lastEventId) lastId = ev.lastEventId;
  };
  for (const kind of ['game_changed', 'your_turn', 'lobby_changed', 'chat_message']) {
    source.addEventListener(kind, (ev) => {
      seen(ev);
      emit(kind, parse(ev));
    });
  }
  source.addEventListener('ready', seen);
  source.addEventListener('lagged', () => emit('lagged', {}));
  // What happened while disconnected could not be replayed: re-read, as after lagged.
  source.addEventListener('resync', (ev) => {
    seen(ev);
    emit('lagged', {});
  });
  source.onerror = () => {
    if (mine !== source) return;
    tell();
    if (source.readyState === EventSource.CLOSED) {
      source = null;
      failures += 1;
      retryTimer = setTimeout(openSource, Math.min(60000, 2000 * 2 ** failures));
    }
  };
}

function closeSource() {
  clearTimeout(retryTimer);
  openings += 1;
  if (source) source.close();
  source = null;
}

/** Without SharedWorker: the tab holding the Web Lock streams and relays; others listen. */
function lead() {
  if (channel) return;
  channel = new BroadcastChannel('turnpost-live');
  channel.onmessage = (m) => {
    const msg = m.data || {};
    if (leading) {
      if (msg.type === 'hello') channel.postMessage({ type: 'state', open: connected() });
      return;
    }
    if (msg.type === 'state') relayedOpen = Boolean(msg.open);
    else if (msg.type === 'event') for (const fn of [...listeners]) fn(msg.kind, msg.data || {});
  };
  channel.postMessage({ type: 'hello' });
  navigator.locks.request('turnpost-live', () => new Promise((release) => {
    leading = true;
    releaseLead = release;
    openSource();
    // The stream was down while leadership moved: what happened meanwhile was not told.
    emit('reconnected', {});
  }));
}

export function start() {
  if (!token()) return;
  if (sharedWorker()) {
    port.postMessage({ type: 'start', token: token() });
  } else if (typeof BroadcastChannel !== 'undefined' && navigator.locks) {
    if (!channel) lead();
    else if (leading) openSource();
  } else {
    openSource();
  }
}

export function stop() {
  if (port) port.postMessage({ type: 'stop' });
  workerOpen = false;
  closeSource();
  if (releaseLead) releaseLead();
  releaseLead = null;
  leading = false;
  if (channel) channel.close();
  channel = null;
}

/**
 * Follows a public game's own stream (for spectators): `fn(data)` on each change. Shared
 * with other tabs watching the same game; returns `{open(), stop()}`, `open()` telling
 * whether events arrive (else the page polls).
 */
export function watchGame(id, fn) {
  const entry = { fn, open: false };
  watchers.set(id, entry);
  let own = null;
  if (sharedWorker()) {
    port.postMessage({ type: 'watch', id, token: token() });
  } else if (typeof EventSource !== 'undefined') {
    // Until the stream opens the page polls; one that never opens leaves it polling.
    streamUrl(`/api/v1/games/${id}/events`, token(), null).then((url) => {
      if (!watchers.has(id)) return;
      own = new EventSource(url);
      own.addEventListener('game_changed', (ev) => fn(parse(ev)));
    }, () => {});
  }
  return {
    open: () => (own ? own.readyState === EventSource.OPEN : entry.open),
    stop: () => {
      watchers.delete(id);
      if (own) own.close();
      own = null;
      if (port) port.postMessage({ type: 'unwatch', id });
    },
  };
}
