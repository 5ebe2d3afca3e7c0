// Kasino: any capture or build, also one the list of choices leaves out on a crowded table
// (there the list is a sample). Pick a card from your hand and the table cards (and
// builds) it takes or builds with; the server checks the move as it changes (the rules
// live there, so the verdict and its reason are the game's own), and "Play this move"
// sends it. Every control is a labelled button: Tab reaches them, Enter or Space toggles.

import { h, fill } from '../dom.js';
import { checker, keepFocus, stepper } from '../compose.js';

const SUITS = { C: '♣', D: '♦', H: '♥', S: '♠' };
const SUIT_NAMES = { C: 'clubs', D: 'diamonds', H: 'hearts', S: 'spades' };
const RANK_NAMES = { A: 'ace', J: 'jack', Q: 'queen', K: 'king' };
/** The action types that mean "it is your turn to play a card". */
const TURN = ['trail', 'capture', 'clear_table', 'build', 'raise', 'add_to_build'];
const MODES = [['capture', 'Take'], ['build', 'Build'], ['add_to_build', 'Add to a build']];

const rankOf = (card) => card.slice(0, -1);
const suitOf = (card) => card.slice(-1);
/** "10H" as the log writes it: "10♥". */
const pretty = (card) => `${rankOf(card)}${SUITS[suitOf(card)] || suitOf(card)}`;
/** "10 of hearts", for screen readers. */
const spoken = (card) => `${RANK_NAMES[rankOf(card)] || rankOf(card)} of ${SUIT_NAMES[suitOf(card)] || suitOf(card)}`;
const red = (card) => ['D', 'H'].includes(suitOf(card));
/** A card's value on the table, as the view gives loose cards theirs (HR-1, HR-3): only a
 * first guess for a new build's value, which the player can change. */
const tableValue = (card) => ({ A: 1, J: 11, Q: 12, K: 13 }[rankOf(card)] || Number(rankOf(card)) || 0);

export function mount(el, ctx) {
  const view = ctx.view;
  if (!view || !Array.isArray(view.table) || !Array.isArray(view.your_hand)) return undefined;
  if (!view.your_hand.length || !ctx.legal.some((a) => a && TURN.includes(a.type))) return undefined;

  const loose = view.table.filter((t) => t.item === 'loose');
  const builds = view.table.filter((t) => t.item === 'build');
  let mode = 'capture';
  let card = null;
  let taken = new Set();
  let chosenBuilds = new Set();
  let value = null;

  const check = checker(ctx, { play: 'Play this move' });
  const modeEl = h('div', { class: 'ks-mode' });
  const handEl = h('div', { class: 'ks-cards', role: 'group', 'aria-label': 'Your hand: the card to play' });
  const tableEl = h('div', { class: 'ks-cards', role: 'group', 'aria-label': 'Loose table cards' });
  const buildsEl = h('div', { class: 'ks-cards', role: 'group', 'aria-label': 'Builds on the table' });
  const valueEl = h('div', { class: 'ks-value' });
  const sumEl = h('p', { class: 'hint', 'aria-live': 'polite' });
  const tools = h('div', { class: 'buttons' });
  fill(el,
    h('h3', {}, 'Capture or build'),
    h('p', { class: 'hint' },
      'Any capture or build, also one the list leaves out: pick a card from your hand and the table cards (and builds) it takes or builds with. The server checks the move before you play it.'),
    modeEl,
    h('h4', {}, 'Your card'), handEl,
    h('h4', {}, 'Table cards'), tableEl,
    builds.length ? h('h4', {}, 'Builds') : null, buildsEl,
    valueEl, sumEl, tools, check.el);

  function toggleButton(key, text, label, pressed, onclick, extra = '') {
    return h('button', {
      type: 'button', class: `ks-card${extra}`, 'aria-pressed': String(pressed),
      // The spoken name starts with the visible text, so voice control finds the button.
      'aria-label': `${text}: ${label}`, dataset: { key }, onclick,
    }, text);
  }

  function drawMode() {
    const options = MODES.filter(([m]) => m !== 'add_to_build' || builds.length);
    fill(modeEl, h('div', { class: 'buttons', role: 'group', 'aria-label': 'Kind of move' },
      options.map(([m, text]) => h('button', {
        type: 'button', class: 'ks-mode-button', 'aria-pressed': String(mode === m),
        dataset: { key: `mode:${m}`, mode: m },
        onclick: () => change(() => {
          mode = m;
          chosenBuilds = new Set();
          value = null;
        }),
      }, text))));
  }

  function drawCards() {
    fill(handEl, view.your_hand.map((c) => toggleButton(
      `hand:${c}`, pretty(c), `${spoken(c)}, from your hand`, card === c,
      () => change(() => { card = card === c ? null : c; }),
      red(c) ? ' red' : '',
    )));
    fill(tableEl, loose.length ? loose.map((t) => toggleButton(
      `table:${t.card}`, pretty(t.card), `${spoken(t.card)}, on the table, worth ${t.value}`, taken.has(t.card),
      () => change(() => {
        if (taken.has(t.card)) taken.delete(t.card);
        else taken.add(t.card);
      }),
      red(t.card) ? ' red' : '',
    )) : h('p', { class: 'muted' }, 'No loose cards on the table.'));
    fill(buildsEl, builds.map((b) => {
      const usable = mode !== 'build';
      const button = toggleButton(
        `build:${b.id}`, `B${b.id}: ${b.value}`,
        `build B${b.id}, worth ${b.value}, ${b.kind}, cards ${b.cards.map(pretty).join(' ')}`,
        chosenBuilds.has(b.id),
        () => change(() => {
          if (chosenBuilds.has(b.id)) chosenBuilds.delete(b.id);
          else if (mode === 'add_to_build') chosenBuilds = new Set([b.id]);
          else chosenBuilds.add(b.id);
        }),
        ' ks-build',
      );
      button.disabled = !usable;
      button.title = usable ? '' : 'a new build uses loose cards only';
      return button;
    }));
  }

  /** The value of a new build: the player's, or the sum of the cards as a first guess. */
  function buildValue() {
    if (value !== null) return value;
    const sum = (card ? tableValue(card) : 0) + loose.filter((t) => taken.has(t.card)).reduce((s, t) => s + t.value, 0);
    return Math.max(1, Math.min(16, sum || 1));
  }

  function drawValue() {
    if (mode !== 'build') {
      fill(valueEl);
      return;
    }
    fill(valueEl,
      stepper('Build value', buildValue(), 1, 16, (n) => {
        value = n;
        verdict();
      }),
      h('p', { class: 'hint' }, 'Several groups worth the value make a multiple build; keep another card of that value in hand.'));
  }

  function drawTools() {
    const picked = loose.filter((t) => taken.has(t.card));
    const sum = picked.reduce((s, t) => s + t.value, 0);
    fill(sumEl, picked.length
      ? `Table cards picked: ${picked.map((t) => pretty(t.card)).join(' ')} (worth ${sum} together).`
      : 'No table cards picked.');
    fill(tools,
      h('button', {
        type: 'button', dataset: { key: 'tool:all', fallback: 'tool:none' }, disabled: !loose.length,
        onclick: () => change(() => { taken = new Set(loose.map((t) => t.card)); }),
      }, 'Pick every table card'),
      h('button', {
        type: 'button', dataset: { key: 'tool:none', fallback: 'tool:all' }, disabled: !taken.size && !chosenBuilds.size && !card,
        onclick: () => change(() => {
          card = null;
          taken = new Set();
          chosenBuilds = new Set();
          value = null;
        }),
      }, 'Clear picks'));
  }

  function compose() {
    if (!card) return [null, 'Pick a card from your hand.'];
    const cards = loose.filter((t) => taken.has(t.card)).map((t) => t.card);
    if (mode === 'capture') {
      if (!cards.length && !chosenBuilds.size) return [null, 'Pick the table cards or builds to take.'];
      return [{ type: 'capture', card, cards, builds: builds.filter((b) => chosenBuilds.has(b.id)).map((b) => b.id) }];
    }
    if (mode === 'build') {
      if (!cards.length) return [null, 'Pick the loose table cards to build with.'];
      return [{ type: 'build', card, value: buildValue(), cards }];
    }
    const [build] = [...chosenBuilds];
    if (build === undefined) return [null, 'Pick the build to add to.'];
    return [{ type: 'add_to_build', card, build, cards }];
  }

  function verdict() {
    const [action, note] = compose();
    check.set(action, note);
  }

  function change(fn) {
    fn();
    draw();
    verdict();
  }

  function draw() {
    keepFocus(el, () => {
      drawMode();
      drawCards();
      drawValue();
      drawTools();
    });
  }

  draw();
  verdict();
  return () => check.stop();
}
