// Space Empires 4X: the economic orders (build, research, bid) with the CP they leave, and
// movement orders (which ships, which hex), picked from the legal steps instead of long
// lists of buttons. Each composed order is checked on the server and sent on its own, as
// the game takes them one step at a time.

import { h, fill, humanize } from '../dom.js';
import { checker, narrowing } from '../compose.js';

const ECONOMY = ['build', 'research', 'bid'];

/** The movement buttons (dozens of them) fold away: moves are composed here or on the board. */
export const replaces = ['move'];

export function mount(el, ctx) {
  const view = ctx.view;
  if (!view || !Array.isArray(view.groups)) return undefined;
  const kinds = new Set(ctx.legal.map((a) => a && a.type));
  const economy = ECONOMY.some((k) => kinds.has(k));
  const moving = kinds.has('move');
  if (!economy && !moving) return undefined;

  const check = checker(ctx, { play: economy ? 'Place this order' : 'Move' });
  // Whichever part was changed last is the order to check.
  const picked = (note) => (a, byUser) => {
    if (byUser) check.set(a, note);
  };
  const parts = [];
  if (economy) parts.push(...economyParts(ctx, picked));
  if (moving) parts.push(movementPart(ctx, picked));
  fill(el, parts, check.el);
  check.set(null, economy ? 'Choose an order.' : 'Choose ships and a hex.');
  return () => check.stop();
}

const at = (x, y) => `(${x},${y})`;

function economyParts(ctx, picked) {
  const me = ctx.view.me || {};
  const draft = me.draft || null;
  const out = [];
  if (draft) {
    const left = draft.available - draft.spent - (draft.bid || 0);
    out.push(h('p', { class: 'cp' },
      h('strong', {}, `${left} CP left`),
      ` of ${draft.available} (income ${draft.income}, maintenance ${draft.maintenance}; spent ${draft.spent}`,
      draft.bid !== null && draft.bid !== undefined ? `, bid ${draft.bid}` : '', ').'));
    if (Array.isArray(draft.lines) && draft.lines.length) {
      out.push(h('p', { class: 'hint' }, 'Ordered so far: ', draft.lines.map(orderText).join('; '), '.'));
    }
  }
  const tech = new Map(me.tech || []);
  const has = (k) => ctx.legal.some((a) => a && a.type === k);
  if (has('build')) {
    out.push(h('div', { class: 'editor-part' }, h('h3', {}, 'Build'),
      narrowing(ctx.legal, ['build'], [
        { label: 'Unit', key: (a) => a.unit, text: (a) => humanize(a.unit) },
        { label: 'At', key: (a) => at(a.x, a.y), text: (a) => colonyText(ctx, a.x, a.y) },
      ], picked('Choose a unit and where it is built.')).el));
  }
  if (has('research')) {
    out.push(h('div', { class: 'editor-part' }, h('h3', {}, 'Research'),
      narrowing(ctx.legal, ['research'], [
        { label: 'Technology', key: (a) => a.tech, text: (a) => `${humanize(a.tech)} (now level ${tech.get(a.tech) ?? 0})` },
      ], picked('Choose a technology.')).el));
  }
  if (has('bid')) {
    out.push(h('div', { class: 'editor-part' }, h('h3', {}, 'Bid for the turn order'),
      narrowing(ctx.legal, ['bid'], [
        { label: 'CP to bid', key: (a) => a.cp, text: (a) => `${a.cp} CP` },
      ], picked('Choose a bid.')).el));
  }
  return out;
}

/** One line of the draft order as the server keeps it. */
function orderText(line) {
  if (!line || typeof line !== 'object') return String(line);
  if (line.type === 'build') return `build ${humanize(line.unit || '')}`;
  if (line.type === 'research') return `research ${humanize(line.tech || '')}`;
  return humanize(line.type || JSON.stringify(line));
}

function colonyText(ctx, x, y) {
  const c = (ctx.view.colonies || []).find((k) => k.x === x && k.y === y);
  return `${at(x, y)}${c ? (c.homeworld ? ' Homeworld' : ' colony') : ''}`;
}

function movementPart(ctx, picked) {
  const groups = new Map(ctx.view.groups.map((g) => [g.id, g]));
  const groupText = (ids) => {
    const first = groups.get(ids[0]);
    const names = ids.map((id) => {
      const g = groups.get(id);
      if (!g || !g.kind) return `#${id}`;
      return `#${id} ${humanize(g.kind)}${g.count > 1 ? ` ×${g.count}` : ''}`;
    });
    return `${names.join(', ')}${first ? ` at ${at(first.x, first.y)}` : ''}`;
  };
  const hexText = (x, y) => {
    const hex = (ctx.view.hexes || []).find((k) => k.x === x && k.y === y);
    if (!hex) return at(x, y);
    const notes = [];
    if (!hex.explored) notes.push('unexplored');
    if (hex.home_of === ctx.game.your_seat) notes.push('your home system');
    else if (hex.home_of !== null && hex.home_of !== undefined) notes.push(`home system of seat ${hex.home_of + 1}`);
    if ((ctx.view.groups || []).some((g) => g.x === x && g.y === y && g.owner !== ctx.game.your_seat)) notes.push('enemy ships');
    return `${at(x, y)}${notes.length ? ` ${notes.join(', ')}` : ''}`;
  };
  return h('div', { class: 'editor-part' }, h('h3', {}, 'Movement'),
    narrowing(ctx.legal, ['move'], [
      { label: 'Ships', key: (a) => a.groups.join(','), text: (a) => groupText(a.groups) },
      { label: 'To', key: (a) => at(a.x, a.y), text: (a) => hexText(a.x, a.y) },
    ], picked('Choose ships and a hex.')).el);
}
