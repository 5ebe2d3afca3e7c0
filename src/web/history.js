// A game's history: the start, one move back or forward, the game now, a slider over every
// position, and a replay that steps on by itself. The panel keeps which position is shown
// and what led to it; the game page draws that position (the board as the caller's seat
// saw it then) through `onShow`.

import { h, fill } from './dom.js';

/** How long a replay shows each position. */
const REPLAY_STEP_MS = 1500;

export function historyPanel({ onShow }) {
  /** The version shown, or null while the game as it is now is shown. */
  let at = null;
  let latest = 0;
  let finished = false;
  /** What led to each version: "Ada played 7♥", from the log. */
  const texts = new Map();
  let replay = null;

  const slider = h('input', {
    type: 'range', id: 'history-slider', min: 0, max: 0, step: 1, value: 0,
    'aria-label': 'Position in the game (0 is the start)',
  });
  const button = (name, label, text, onclick) => h('button', {
    type: 'button', class: `history-${name}`, 'aria-label': label, title: label, onclick,
  }, text);
  const first = button('start', 'The start', '|◀', () => go(0));
  const back = button('back', 'One move back', '◀', () => go((at ?? latest) - 1));
  const forward = button('forward', 'One move forward', '▶', () => go((at ?? latest) + 1));
  const now = button('now', 'The game now', '▶|', () => go(null));
  const play = button('replay', 'Replay the game from the position shown', 'Replay', () => toggleReplay());
  const where = h('p', { class: 'history-where', role: 'status' });
  const link = h('a', { class: 'history-link', href: '#' }, 'Link to this position');
  const el = h('details', { id: 'history', hidden: true },
    h('summary', {}, 'History: step through the moves'),
    h('div', { class: 'history-bar' }, first, back, slider, forward, now),
    h('div', { class: 'history-foot' }, where, play, link));
  slider.addEventListener('input', () => go(Number(slider.value), { keepReplay: false }));
  // The arrow keys step while the panel has the focus (the slider moves by itself).
  el.addEventListener('keydown', (ev) => {
    if (ev.target === slider || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === 'ArrowLeft') back.click();
    else if (ev.key === 'ArrowRight') forward.click();
    else return;
    ev.preventDefault();
  });

  let gameId = null;
  function draw() {
    const shown = at ?? latest;
    slider.max = String(latest);
    slider.value = String(shown);
    slider.setAttribute('aria-valuetext', describe(shown));
    first.disabled = shown === 0;
    back.disabled = shown === 0;
    forward.disabled = at === null;
    now.disabled = at === null;
    fill(play, replay ? 'Pause' : 'Replay');
    play.disabled = !replay && latest === 0;
    fill(where, at === null ? `The game now: ${describe(shown)}` : `You are looking back: ${describe(shown)}`);
    link.href = at === null ? `#/game/${gameId}` : `#/game/${gameId}/at/${at}`;
    el.classList.toggle('looking-back', at !== null);
  }

  function describe(v) {
    if (v === 0) return latest === 0 ? 'the start; no moves yet.' : `the start, before move 1 of ${latest}.`;
    const text = texts.get(v);
    const end = v === latest && finished ? ' (the last move)' : '';
    return `after move ${v} of ${latest}${end}${text ? `: ${text}` : '.'}`;
  }

  /** Shows version `v` (clamped), or the game now for null or the latest version. */
  function go(v, { keepReplay = true } = {}) {
    if (!keepReplay || v === null) stopReplay();
    let next = v === null ? null : Math.max(0, Math.min(v, latest));
    if (next === latest) next = null;
    const changed = next !== at;
    at = next;
    if (at !== null) el.open = true;
    draw();
    if (changed) onShow(at);
    if (at === null) stopReplay();
  }

  function stopReplay() {
    if (!replay) return;
    clearInterval(replay);
    replay = null;
    draw();
  }

  function toggleReplay() {
    if (replay) {
      stopReplay();
      return;
    }
    // From the start when the game now is shown; otherwise on from the position shown.
    if (at === null) go(0);
    replay = setInterval(() => go((at ?? latest) + 1), REPLAY_STEP_MS);
    draw();
  }

  return {
    el,
    /** The version shown, or null for the game now. */
    at: () => at,
    go,
    /** The game moved on (or was opened): its id, version and whether it is over. */
    update(id, version, over) {
      gameId = id;
      latest = version;
      finished = over;
      el.hidden = version === 0;
      if (at !== null && at >= latest) at = null;
      draw();
    },
    /** What led to `version`, as the log says it. */
    describe(version, text) {
      texts.set(version, text);
      if (version === (at ?? latest)) draw();
    },
    stop: stopReplay,
  };
}
