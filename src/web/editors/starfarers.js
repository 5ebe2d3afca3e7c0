// The Starfarers of Catan: trade offers of any size (the legal list only names one-for-one
// swaps) and flights with a chosen route. The server checks what is composed as it
// changes; the buttons send it.

import { h, fill, humanize } from '../dom.js';
import { checker, choice, stepper, narrowing, keepFocus } from '../compose.js';

const RESOURCES = ['carbon', 'food', 'fuel', 'ore', 'trade_goods'];
/** The most cards of one kind a trade offer may ask for here (hands stay small). */
const MOST_ASKED = 9;

export function mount(el, ctx) {
  const view = ctx.view;
  if (!view || !Array.isArray(view.players)) return undefined;
  const parts = [trade(ctx), flight(ctx)].filter(Boolean);
  if (!parts.length) return undefined;
  fill(el, parts.map((p) => p.el));
  return () => parts.forEach((p) => p.stop());
}

function playerName(ctx, seat) {
  const p = ctx.view.players.find((x) => x.seat === seat);
  const account = ctx.game.seats.find((s) => s.seat === seat);
  return `${p ? p.name : `Seat ${seat + 1}`}${account ? ` (${account.name})` : ''}`;
}

/** A trade offer to another player: steppers for the cards given and asked for. */
function trade(ctx) {
  const partners = [...new Set(ctx.legal.filter((a) => a && a.type === 'offer_trade').map((a) => a.to))];
  if (!partners.length) return null;
  const me = ctx.view.players.find((p) => p.seat === ctx.game.your_seat);
  const hand = (me && me.hand) || {};
  const check = checker(ctx, { play: 'Offer this trade' });
  const give = Object.fromEntries(RESOURCES.map((r) => [r, 0]));
  const get = Object.fromEntries(RESOURCES.map((r) => [r, 0]));
  let to = partners[0];
  const compose = () => {
    const total = (x) => RESOURCES.reduce((n, r) => n + x[r], 0);
    if (!total(give) || !total(get)) check.set(null, 'Give at least one card and ask for at least one.');
    else check.set({ type: 'offer_trade', to, give: { ...give }, get: { ...get } });
  };
  const el = h('div', { class: 'editor-part' },
    h('h3', {}, 'A trade offer'),
    choice('Offer to', partners.map((s) => [s, playerName(ctx, s)]), to, (v) => {
      to = Number(v);
      compose();
    }),
    h('div', { class: 'deal' },
      h('div', { class: 'deal-side' }, h('h4', {}, 'You give'),
        RESOURCES.map((r) => stepper(humanize(r), 0, 0, hand[r] || 0, (n) => {
          give[r] = n;
          compose();
        }))),
      h('div', { class: 'deal-side' }, h('h4', {}, 'You get'),
        RESOURCES.map((r) => stepper(humanize(r), 0, 0, MOST_ASKED, (n) => {
          get[r] = n;
          compose();
        })))),
    check.el);
  check.set(null, 'Give at least one card and ask for at least one.');
  return { el, stop: check.stop };
}

/** A flight: the ship, where it goes (from the legal list), and stops on the way. */
function flight(ctx) {
  const flights = ctx.legal.filter((a) => a && a.type === 'fly');
  if (!flights.length) return null;
  const texts = new Map(ctx.legal.map((a, i) => [JSON.stringify(a), ctx.texts[i] || '']));
  // "fly colony ship #3 to r21c32 (next to s4 BL)", "keep colony ship #3 at r25c30 (…)".
  const where = (a) => {
    const text = texts.get(JSON.stringify(a)) || '';
    const stay = /^keep .*? at (.*)$/.exec(text);
    if (stay) return `${stay[1]}, where it is now`;
    return text.replace(/^fly .*? to /, '') || `intersection ${a.to}`;
  };
  const shipText = (id) => {
    const s = (ctx.view.ships || []).find((x) => x.id === id);
    return s ? `${humanize(s.kind)} ship #${id} at ${s.label}` : `ship #${id}`;
  };
  const check = checker(ctx, { play: 'Fly' });
  let chosen = null;
  let via = [];
  const route = h('div', { class: 'route' });

  const compose = () => {
    if (!chosen) check.set(null, 'Choose a ship and where it flies.');
    else check.set({ type: 'fly', ship: chosen.ship, to: chosen.to, via: [...via] });
  };
  // Stops can be any place the ship can reach this flight; the server checks the route.
  const drawRoute = () => keepFocus(route, () => {
    if (!chosen) {
      fill(route);
      return;
    }
    const reach = flights.filter((a) => a.ship === chosen.ship && a.to !== chosen.to && !via.includes(a.to));
    let next = reach.length ? reach[0].to : null;
    fill(route,
      h('h4', {}, 'Route'),
      h('ol', { class: 'stops' },
        via.map((n, i) => h('li', {}, `via ${where(flights.find((a) => a.ship === chosen.ship && a.to === n) || { to: n })} `,
          h('button', {
            type: 'button', class: 'link', 'aria-label': `Remove stop ${i + 1}`,
            dataset: { key: `remove:${i}`, fallback: 'add' },
            onclick: () => {
              via.splice(i, 1);
              drawRoute();
              compose();
            },
          }, 'remove'))),
        h('li', {}, `to ${where(chosen)}`)),
      reach.length ? h('div', { class: 'inline' },
        choice('Add a stop on the way', reach.map((a) => [a.to, where(a)]), next, (v) => {
          next = Number(v);
        }),
        h('div', { class: 'buttons' }, h('button', {
          type: 'button', dataset: { key: 'add' },
          onclick: () => {
            via.push(next);
            drawRoute();
            compose();
          },
        }, 'Add stop'))) : null,
      h('p', { class: 'hint' }, 'Without stops the ship takes the shortest way.'));
  });

  const pick = narrowing(ctx.legal, ['fly'], [
    { label: 'Ship', key: (a) => a.ship, text: (a) => shipText(a.ship) },
    { label: 'Fly to', key: (a) => a.to, text: where },
  ], (a, byUser) => {
    if (chosen && (!a || a.ship !== chosen.ship || a.to !== chosen.to)) via = [];
    chosen = a;
    drawRoute();
    if (byUser) compose();
  });
  const el = h('div', { class: 'editor-part' }, h('h3', {}, 'A flight'), pick.el, route, check.el);
  check.set(null, 'Choose a ship and where it flies.');
  return { el, stop: check.stop };
}
