// Building blocks for move editors (editors/*.js): a check that previews the composed
// action on the server and offers to play it, choices filtered from the legal actions,
// and number steppers. Plain DOM, labelled controls, reachable by keyboard.

import { h, fill, nextId } from './dom.js';

/** The wait after the last change before a composed move is checked on the server. */
const SETTLE_MS = 350;

/**
 * The server's verdict on the move being composed, and a button to play it.
 * `set(action)` checks `action` (debounced, latest wins) with `ctx.preview`, which also
 * shows the outcome in the page's preview panel; `set(null, note)` shows a note and
 * disables the button. `el` goes into the editor; `stop()` ends pending work.
 */
export function checker(ctx, { play = 'Play this move' } = {}) {
  const status = h('p', { class: 'check muted', role: 'status' }, 'Nothing composed yet.');
  const button = h('button', { type: 'button', class: 'primary', disabled: true }, play);
  let current = null;
  let asked = 0;
  let timer = null;

  const show = (kind, ...text) => {
    status.className = `check ${kind}`;
    fill(status, ...text);
  };

  button.addEventListener('click', () => {
    if (!current) return;
    button.disabled = true;
    ctx.submit(current).catch((e) => show('bad', h('strong', {}, 'Not played: '), e.message));
  });

  function set(action, note = 'Nothing composed yet.') {
    clearTimeout(timer);
    const mine = ++asked;
    current = null;
    button.disabled = true;
    if (!action) {
      show('muted', note);
      return;
    }
    show('muted', 'Checking…');
    timer = setTimeout(() => {
      ctx.preview(action).then((p) => {
        if (mine !== asked) return;
        current = action;
        button.disabled = false;
        show('good', h('strong', {}, 'Valid: '), p.description);
      }, (e) => {
        if (mine !== asked) return;
        show('bad', h('strong', {}, 'Not valid: '), e.message);
      });
    }, SETTLE_MS);
  }

  return {
    el: h('div', { class: 'check-row' }, status, h('div', { class: 'buttons' }, button)),
    set,
    stop() {
      clearTimeout(timer);
      asked += 1;
    },
  };
}

/**
 * Runs `redraw` (which replaces what is inside `el`) and puts the keyboard focus back on
 * the control with the same `data-key`, or on its `data-fallback` when that one is
 * disabled now.
 */
export function keepFocus(el, redraw) {
  const was = el.contains(document.activeElement) ? document.activeElement.dataset : null;
  redraw();
  if (!was || !was.key) return;
  const find = (k) => k && [...el.querySelectorAll('[data-key]')].find((x) => x.dataset.key === k && !x.disabled);
  (find(was.key) || find(was.fallback))?.focus();
}

/** A labelled select; `options` are `[value, text]`, values compared as strings. */
export function choice(label, options, value, onchange, { empty = null } = {}) {
  const id = nextId('pick');
  const select = h('select', { id, onchange: () => onchange(select.value === '' ? null : select.value) },
    empty !== null ? h('option', { value: '', selected: value === null || value === undefined }, empty) : null,
    options.map(([v, text]) => h('option', { value: String(v), selected: String(v) === String(value) }, text)));
  return h('div', { class: 'field' }, h('label', { for: id }, label), select);
}

/**
 * A number with − and + buttons (and typing), kept within `min..max`; `by` is the buttons'
 * step. Calls `onchange(n)` on every change; redraws nothing but itself.
 */
export function stepper(label, value, min, max, onchange, { by = 1 } = {}) {
  const id = nextId('step');
  let n = value;
  const clamp = (v) => Math.min(max, Math.max(min, Number.isFinite(v) ? Math.trunc(v) : min));
  const input = h('input', { id, type: 'number', inputmode: 'numeric', min, max, step: 1, value });
  const less = h('button', { type: 'button', class: 'step', 'aria-label': `${label}: less`, 'aria-controls': id }, '−');
  const more = h('button', { type: 'button', class: 'step', 'aria-label': `${label}: more`, 'aria-controls': id }, '+');
  const set = (v) => {
    n = clamp(v);
    input.value = n;
    less.disabled = n <= min;
    more.disabled = n >= max;
    onchange(n);
  };
  input.addEventListener('change', () => set(Number(input.value)));
  less.addEventListener('click', () => set(n - by));
  more.addEventListener('click', () => set(n + by));
  less.disabled = n <= min;
  more.disabled = n >= max;
  return h('div', { class: 'stepper' }, h('label', { for: id }, label), less, input, more);
}

/** Labelled checkboxes in a fieldset, one per `[value, text]`; `onchange(values ticked)`. */
export function checkboxes(legend, options, onchange) {
  if (!options.length) return null;
  const boxes = options.map(() => h('input', { type: 'checkbox', id: nextId('box') }));
  const changed = () => onchange(options.filter((_, i) => boxes[i].checked).map(([v]) => v));
  const items = options.map(([, text], i) => {
    boxes[i].addEventListener('change', changed);
    return h('li', {}, h('label', { for: boxes[i].id }, boxes[i], text));
  });
  return h('fieldset', { class: 'picks-set' }, h('legend', {}, legend), h('ul', { class: 'picks' }, items));
}

/**
 * Choices narrowed step by step from the legal actions of some kinds: each step picks one
 * value among the actions that match the steps before it (`key(action)` says what a step
 * picks, `text(action)` how it reads; a later step with one value picks it). Calls
 * `onpick(action | null, byUser)` with the single legal action all steps name.
 */
export function narrowing(legal, kinds, steps, onpick) {
  const el = h('div', { class: 'narrowing' });
  const pool = legal.filter((a) => a && kinds.includes(a.type));
  const picks = steps.map(() => null);
  function draw(byUser) {
    // Redrawn selects replace the old ones: keep the keyboard where it was.
    const had = el.contains(document.activeElement) ? document.activeElement.dataset.step : null;
    let left = pool;
    const rows = [];
    let done = true;
    for (const [i, s] of steps.entries()) {
      const seen = new Map();
      for (const a of left) {
        const k = String(s.key(a));
        if (!seen.has(k)) seen.set(k, s.text(a));
      }
      if (picks[i] !== null && !seen.has(picks[i])) picks[i] = null;
      // The first choice is always the player's own (choosing it is what starts a check).
      if (picks[i] === null && seen.size === 1 && i > 0) [picks[i]] = seen.keys();
      const row = choice(s.label, [...seen], picks[i], (v) => {
        picks[i] = v;
        for (let j = i + 1; j < steps.length; j += 1) picks[j] = null;
        draw(true);
      }, { empty: 'choose…' });
      row.querySelector('select').dataset.step = i;
      rows.push(row);
      if (picks[i] === null) {
        done = false;
        break;
      }
      left = left.filter((a) => String(s.key(a)) === picks[i]);
    }
    fill(el, rows);
    if (had !== null && had !== undefined) el.querySelector(`select[data-step="${had}"]`)?.focus();
    onpick(done ? left[0] || null : null, byUser);
  }
  draw(false);
  return { el };
}
