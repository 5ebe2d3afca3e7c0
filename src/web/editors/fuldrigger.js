// Fuldrigger: put a deal together. The legal list offers a few standard deals; here any
// mix of ducats, ships, forts and depot loads can go either way. The server checks the
// deal as it changes (what each side owns, the limits), and "Offer this deal" sends it.

import { h, fill } from '../dom.js';
import { checker, choice, stepper, checkboxes } from '../compose.js';

const CASH_STEP = 10;

/** The standard deals the legal list offers fold away on the page: this composes any. */
export const replaces = ['offer'];

export function mount(el, ctx) {
  const view = ctx.view;
  const me = ctx.game.your_seat;
  const partners = [...new Set(ctx.legal.filter((a) => a && a.type === 'offer').map((a) => a.to))];
  if (!view || !Array.isArray(view.players) || !partners.length) return undefined;

  const name = (seat) => {
    const p = view.players.find((x) => x.seat === seat);
    const account = ctx.game.seats.find((s) => s.seat === seat);
    return `${p ? p.name : `Seat ${seat + 1}`}${account ? ` (${account.name})` : ''}`;
  };
  const shipText = (s) => {
    const load = s.cargo ? `${s.cargo.good} bought for ${s.cargo.price}` : 'empty';
    return `ship #${s.id} at ${s.at}${s.privateer ? ', privateer' : ''}, ${load}`;
  };

  const check = checker(ctx, { play: 'Offer this deal' });
  let to = partners[0];
  let deal = null;
  const sides = h('div', { class: 'deal' });
  fill(el,
    h('h3', {}, 'A deal'),
    h('p', { class: 'hint' }, 'What you give and what you get; the other player accepts or declines in their own time.'),
    choice('Deal with', partners.map((s) => [s, name(s)]), to, (v) => {
      to = Number(v);
      draw();
    }),
    sides, check.el);

  /** One side of the deal: what `seat` owns, to tick. `into` is the bundle it fills. */
  function side(title, seat, into) {
    const p = view.players.find((x) => x.seat === seat) || { cash: 0, forts: [], depot: [] };
    const ships = (view.ships || []).filter((s) => s.owner === seat);
    return h('div', { class: 'deal-side' },
      h('h4', {}, title),
      stepper('Ducats', 0, 0, p.cash, (n) => {
        into.cash = n;
        compose();
      }, { by: CASH_STEP }),
      h('p', { class: 'hint' }, `${seat === me ? 'You have' : 'They have'} ${p.cash} ducats.`),
      checkboxes('Ships', ships.map((s) => [s.id, shipText(s)]), (v) => {
        into.ships = v;
        compose();
      }),
      checkboxes('Forts', (p.forts || []).map((f) => [f, `fort at ${f}`]), (v) => {
        into.forts = v;
        compose();
      }),
      checkboxes('Depot loads', (p.depot || []).map((d) => [d.id, `${d.token.good} in the ${d.isthmus} depot`]), (v) => {
        into.depot = v;
        compose();
      }));
  }

  function draw() {
    deal = { give: { cash: 0, ships: [], forts: [], depot: [] }, get: { cash: 0, ships: [], forts: [], depot: [] } };
    fill(sides, side('You give', me, deal.give), side(`You get from ${name(to)}`, to, deal.get));
    compose(true);
  }

  function compose(fresh = false) {
    const empty = (b) => !b.cash && !b.ships.length && !b.forts.length && !b.depot.length;
    if (fresh || (empty(deal.give) && empty(deal.get))) {
      check.set(null, 'Put something into the deal.');
      return;
    }
    check.set({ type: 'offer', to, give: { ...deal.give }, get: { ...deal.get } });
  }

  draw();
  return () => check.stop();
}
