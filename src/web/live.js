// Live updates: one Server-Sent Events stream per signed-in tab (GET /api/v1/me/events,
// token in the query because EventSource cannot send headers). Pages subscribe; when the
// stream is down they poll instead (see `connected`), with If-None-Match so an unchanged
// game costs a 304.

import { token } from './api.js';

const listeners = new Set();
let source = null;
let failures = 0;
let retryTimer = null;

/** Whether events are arriving; pages poll faster while this is false. */
export function connected() {
  return source !== null && source.readyState === EventSource.OPEN;
}

/**
 * Calls `fn(kind, data)` for `game_changed` and `your_turn` (data `{id, version, status}`),
 * and for `lagged` and `reconnected` (data `{}`: events may have been missed, re-read);
 * returns an unsubscribe.
 */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function emit(kind, ev) {
  let data = {};
  try {
    data = JSON.parse(ev.data);
  } catch {
    // A frame we cannot read tells the pages nothing more than "something changed".
  }
  for (const fn of [...listeners]) fn(kind, data);
}

export function start() {
  stop();
  const t = token();
  if (!t || typeof EventSource === 'undefined') return;
  source = new EventSource(`/api/v1/me/events?access_token=${encodeURIComponent(t)}`);
  let opened = false;
  source.onopen = () => {
    failures = 0;
    // After a dropped connection: whatever happened meanwhile was not told.
    if (opened) emit('reconnected', { data: '{}' });
    opened = true;
  };
  source.addEventListener('game_changed', (ev) => emit('game_changed', ev));
  source.addEventListener('your_turn', (ev) => emit('your_turn', ev));
  source.addEventListener('lagged', () => emit('lagged', { data: '{}' }));
  source.onerror = () => {
    // The browser retries by itself while the stream is CONNECTING; once it gave up
    // (CLOSED, e.g. a 401 or a server that went away) we retry slower, polling meanwhile.
    if (source && source.readyState === EventSource.CLOSED) {
      source = null;
      failures += 1;
      retryTimer = setTimeout(start, Math.min(60000, 2000 * 2 ** failures));
    }
  };
}

export function stop() {
  clearTimeout(retryTimer);
  if (source) source.close();
  source = null;
}
