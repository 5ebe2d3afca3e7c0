// Crossword Rummy: lay a meld on the grid. Pick a tile (from the rack, or one already on
// the table to move it), then a cell; the server checks every arrangement as it changes
// (the rules live there, so the verdict and its reason are the game's own), and "Play
// meld" sends the whole new table. Keyboard: Tab to the rack or the grid, arrow keys move
// between cells, Enter or Space picks up and puts down, Escape lets go.

import { h, fill } from '../dom.js';
import { checker, keepFocus } from '../compose.js';

/** Free cells shown around the tiles: room to start a separate group. */
const MARGIN = 2;
const COLOURS = ['red', 'yellow', 'blue', 'green'];
/** The kinds of action that mean "it is your turn" (a meld is possible); not a pass. */
const TURN = ['take_display', 'draw_bag', 'play_action', 'meld', 'pass'];

const colourOf = (tile) => String(tile).split('-')[0];
const isNumber = (tile) => COLOURS.includes(colourOf(tile));

export function mount(el, ctx) {
  const view = ctx.view;
  if (!view || !Array.isArray(view.table) || !Array.isArray(view.your_rack)) return undefined;
  if (!ctx.legal.some((a) => a && TURN.includes(a.type))) return undefined;

  const labels = new Map([...view.table, ...view.your_rack].map((t) => [t.tile, t.label]));
  const onTable = new Set(view.table.map((c) => c.tile));
  const initial = () => new Map(view.table.map((c) => [c.tile, { x: c.x, y: c.y }]));
  /** Where each tile on the grid stands: the table as it is plus what is laid now. */
  let placed = initial();
  /** The tile picked up (from the rack or the grid), or null. */
  let held = null;
  /** The cell with the keyboard focus in the grid. */
  let cursor = view.table.length ? { x: view.table[0].x, y: view.table[0].y } : { x: 0, y: 0 };
  const undo = [];

  const check = checker(ctx, { play: 'Play meld' });
  const opened = Array.isArray(view.opened) && view.opened[ctx.game.your_seat];
  const rackEl = h('div', { class: 'cr-rack', role: 'group', 'aria-label': 'Your rack' });
  const gridEl = h('div', { class: 'cr-grid', role: 'group', 'aria-label': 'The table' });
  const heldEl = h('p', { class: 'cr-held', 'aria-live': 'polite' });
  const tools = h('div', { class: 'buttons' });
  fill(el,
    h('p', { class: 'hint' },
      'Pick a tile from your rack or the table, then a cell. Arrow keys move in the grid; Escape lets go.',
      opened ? '' : ' Your first meld opens a group of your own: 3 or more of your tiles in one line, not touching the table.'),
    h('h3', {}, 'Your rack'), rackEl, heldEl,
    h('h3', {}, 'The table'), h('div', { class: 'cr-scroll' }, gridEl),
    tools, check.el);

  const at = (x, y) => {
    for (const [tile, p] of placed) if (p.x === x && p.y === y) return tile;
    return null;
  };
  const fromRack = () => [...placed.keys()].filter((t) => !onTable.has(t));
  const describe = (tile) => `${labels.get(tile) || tile}${onTable.has(tile) ? ' (table)' : ' (yours)'}`;

  function change(fn) {
    undo.push({ placed: new Map(placed), held });
    fn();
    draw();
    verdict();
  }

  function verdict() {
    if (!fromRack().length) {
      check.set(null, 'Lay at least one tile from your rack.');
      return;
    }
    const table = [...placed].map(([tile, p]) => ({ tile, x: p.x, y: p.y }));
    table.sort((a, b) => a.y - b.y || a.x - b.x);
    check.set({ type: 'meld', table });
  }

  function pick(tile) {
    held = held === tile ? null : tile;
    draw();
  }

  function cell(x, y) {
    cursor = { x, y };
    const there = at(x, y);
    if (held && !there) {
      const tile = held;
      change(() => {
        placed.set(tile, { x, y });
        held = null;
      });
    } else if (held && there === held) {
      held = null;
      draw();
    } else if (there) {
      held = there;
      draw();
    } else {
      draw();
    }
  }

  function bounds() {
    const xs = [...placed.values()].map((p) => p.x).concat(0);
    const ys = [...placed.values()].map((p) => p.y).concat(0);
    return {
      x0: Math.min(...xs) - MARGIN, x1: Math.max(...xs) + MARGIN,
      y0: Math.min(...ys) - MARGIN, y1: Math.max(...ys) + MARGIN,
    };
  }

  function tileClass(tile) {
    return `tile ${isNumber(tile) ? `t-${colourOf(tile)}` : 't-action'}`;
  }

  function drawRack() {
    const left = view.your_rack.filter((t) => !placed.has(t.tile));
    fill(rackEl, left.length ? left.map((t) => {
      const number = isNumber(t.tile);
      return h('button', {
        type: 'button', class: tileClass(t.tile), 'aria-pressed': String(held === t.tile),
        dataset: { tile: t.tile, key: `rack:${t.tile}` }, disabled: !number,
        title: number ? false : 'action tiles are played, not laid',
        onclick: () => {
          pick(t.tile);
          if (held) focusCursor();
        },
      }, t.label);
    }) : h('p', { class: 'muted' }, 'All your tiles are on the grid.'));
  }

  function drawGrid() {
    const b = bounds();
    cursor = { x: Math.min(b.x1, Math.max(b.x0, cursor.x)), y: Math.min(b.y1, Math.max(b.y0, cursor.y)) };
    gridEl.style.gridTemplateColumns = `auto repeat(${b.x1 - b.x0 + 1}, 2.6rem)`;
    const cells = [h('span', { class: 'cr-corner', 'aria-hidden': 'true' })];
    for (let x = b.x0; x <= b.x1; x += 1) cells.push(h('span', { class: 'cr-head', 'aria-hidden': 'true' }, x));
    for (let y = b.y0; y <= b.y1; y += 1) {
      cells.push(h('span', { class: 'cr-head', 'aria-hidden': 'true' }, y));
      for (let x = b.x0; x <= b.x1; x += 1) {
        const tile = at(x, y);
        const here = cursor.x === x && cursor.y === y;
        cells.push(h('button', {
          type: 'button',
          class: `cell ${tile ? tileClass(tile) : 'empty'}${tile && !onTable.has(tile) ? ' new' : ''}${tile && tile === held ? ' held' : ''}`,
          tabindex: here ? 0 : -1,
          'aria-label': `column ${x}, row ${y}: ${tile ? describe(tile) : 'empty'}`,
          'aria-pressed': tile ? String(tile === held) : false,
          dataset: tile ? { x, y, key: `cell:${x},${y}`, tile } : { x, y, key: `cell:${x},${y}` },
          onclick: () => cell(x, y),
          onkeydown: (e) => arrow(e, b),
        }, tile ? labels.get(tile) || tile : ''));
      }
    }
    fill(gridEl, cells);
  }

  function arrow(e, b) {
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
    if (e.key === 'Escape' && held) {
      e.preventDefault();
      held = null;
      draw();
      return;
    }
    if (!step) return;
    e.preventDefault();
    cursor = {
      x: Math.min(b.x1, Math.max(b.x0, cursor.x + step[0])),
      y: Math.min(b.y1, Math.max(b.y0, cursor.y + step[1])),
    };
    drawGrid();
    focusCursor();
  }

  function focusCursor() {
    gridEl.querySelector('button[tabindex="0"]')?.focus();
  }

  function drawTools() {
    const back = held && !onTable.has(held) && placed.has(held);
    fill(heldEl, held ? `Holding ${describe(held)}: choose a cell.` : '');
    fill(tools,
      h('button', {
        type: 'button', disabled: !back, dataset: { key: 'tool:back' },
        onclick: () => {
          const tile = held;
          change(() => {
            placed.delete(tile);
            held = null;
          });
        },
      }, 'Back to rack'),
      h('button', {
        type: 'button', disabled: !undo.length, dataset: { key: 'tool:undo' },
        onclick: () => {
          const last = undo.pop();
          if (!last) return;
          ({ placed, held } = last);
          draw();
          verdict();
        },
      }, 'Undo'),
      h('button', {
        type: 'button', disabled: !undo.length, dataset: { key: 'tool:reset' },
        onclick: () => change(() => {
          placed = initial();
          held = null;
        }),
      }, 'Reset'));
  }

  function draw() {
    const inside = el.contains(document.activeElement);
    keepFocus(el, () => {
      drawRack();
      drawGrid();
      drawTools();
    });
    // The focused control went away (a rack tile laid, a tool disabled): carry on in the grid.
    if (inside && !el.contains(document.activeElement)) focusCursor();
  }

  draw();
  check.set(null, 'Lay at least one tile from your rack.');
  return () => check.stop();
}
