// Settings for other programs: webhooks (POST/GET/DELETE /api/v1/me/webhooks, a test ping,
// the recent deliveries) and the calendar feed's secret address (GET /api/v1/me/calendar,
// POST /api/v1/me/calendar/reset).

import { get, post, request } from './api.js';
import { h, fill, nextId, when } from './dom.js';

const EVENTS = [
  ['your_turn', 'Your turn'],
  ['offer', 'An offer to answer'],
  ['game_finished', 'Game finished'],
];

/** A read-only text box with a copy button. */
function copyable(value, label) {
  const box = h('input', { value, readonly: true, spellcheck: 'false', class: 'copyable', 'aria-label': label });
  const done = h('span', { class: 'muted', role: 'status' });
  const copy = h('button', {
    type: 'button',
    onclick: async () => {
      box.select();
      try {
        await navigator.clipboard.writeText(value);
        fill(done, ' Copied.');
      } catch {
        fill(done, ' Select the text and copy it.');
      }
    },
  }, 'Copy');
  box.addEventListener('focus', () => box.select());
  return h('div', { class: 'inline' }, box, copy, done);
}

export function webhooksCard(app) {
  const url = h('input', { type: 'url', name: 'url', required: true, placeholder: 'https://bot.example.org/turnpost', spellcheck: 'false' });
  const urlId = url.id = nextId('hook');
  const boxes = EVENTS.map(([value, label]) => {
    const box = h('input', { type: 'checkbox', name: 'events', value, checked: value !== 'offer', id: nextId('ev') });
    return [box, h('div', { class: 'field check' }, box, h('label', { for: box.id }, ` ${label}`))];
  });
  const error = h('p', { class: 'error', role: 'alert' });
  const created = h('div', { role: 'status' });
  const list = h('ul', { class: 'webhooks' });
  const button = h('button', { type: 'submit' }, 'Add webhook');
  const form = h('form', { class: 'card', 'aria-labelledby': 'hooks-h' },
    h('h2', { id: 'hooks-h' }, 'Webhooks'),
    h('p', { class: 'muted' }, 'Signed POSTs to your own program (a chat bot, another client) when it is your turn, when you get an offer, and when a game ends. See the API guide (/docs/api) for how to check the signature.'),
    h('p', { class: 'muted' }, 'Writing a client of your own? ', h('a', { href: '/docs' }, 'The API reference'), ' describes every request, with a page per game.'),
    h('div', { class: 'field' }, h('label', { for: urlId }, 'Address'), url),
    h('fieldset', {}, h('legend', {}, 'Events'), boxes.map(([, field]) => field)),
    button, error, created, list);

  async function refresh() {
    const hooks = await get('/api/v1/me/webhooks');
    fill(list, hooks.length ? hooks.map(item) : h('li', { class: 'muted' }, 'No webhooks yet.'));
  }

  function item(hook) {
    const log = h('div');
    const remove = h('button', {
      type: 'button',
      onclick: async () => {
        if (!window.confirm(`Delete the webhook to ${hook.url}?`)) return;
        try {
          await request('DELETE', `/api/v1/me/webhooks/${hook.id}`);
          await refresh();
        } catch (e) {
          fill(error, e.message);
        }
      },
    }, 'Delete');
    const test = h('button', {
      type: 'button',
      onclick: async () => {
        try {
          await post(`/api/v1/me/webhooks/${hook.id}/test`, {});
          app.flash('A ping is on its way; see the deliveries.');
        } catch (e) {
          fill(error, e.message);
        }
      },
    }, 'Send a ping');
    const show = h('button', {
      type: 'button',
      onclick: async () => {
        try {
          const ds = await get(`/api/v1/me/webhooks/${hook.id}/deliveries`);
          fill(log, ds.length
            ? h('ul', { class: 'deliveries' }, ds.map((d) => h('li', {},
              `${when(d.created_at)} ${d.event}${d.game_id ? ` (game #${d.game_id})` : ''}: ${d.status}`,
              d.attempts ? `, ${d.attempts} failed attempt${d.attempts === 1 ? '' : 's'}` : '',
              d.last_error ? ` (${d.last_error})` : '')))
            : h('p', { class: 'muted' }, 'Nothing sent yet.'));
        } catch (e) {
          fill(error, e.message);
        }
      },
    }, 'Deliveries');
    return h('li', {},
      h('code', {}, hook.url), ' ', h('span', { class: 'muted' }, hook.events.join(', ')),
      h('div', { class: 'inline' }, test, show, remove), log);
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    fill(error);
    fill(created);
    button.disabled = true;
    try {
      const events = boxes.filter(([box]) => box.checked).map(([box]) => box.value);
      const hook = await post('/api/v1/me/webhooks', { url: url.value.trim(), events });
      fill(created,
        h('p', {}, 'Webhook added. Its signing secret is shown only now: keep it with your program.'),
        copyable(hook.secret, 'Signing secret'));
      url.value = '';
      await refresh();
    } catch (e) {
      fill(error, e.message);
    } finally {
      button.disabled = false;
    }
  });
  refresh().catch((e) => fill(error, e.message));
  return form;
}

export function calendarCard() {
  const error = h('p', { class: 'error', role: 'alert' });
  const address = h('div');
  const show = (feed) => fill(address, copyable(feed.url, 'Calendar feed address'));
  const reset = h('button', {
    type: 'button',
    onclick: async () => {
      if (!window.confirm('Make a new address? Calendars subscribed to the old one stop getting updates.')) return;
      try {
        show(await post('/api/v1/me/calendar/reset', {}));
      } catch (e) {
        fill(error, e.message);
      }
    },
  }, 'New address');
  get('/api/v1/me/calendar').then(show, (e) => fill(error, e.message));
  return h('section', { class: 'card', 'aria-labelledby': 'cal-h' },
    h('h2', { id: 'cal-h' }, 'Calendar'),
    h('p', { class: 'muted' }, 'Subscribe to this address in your calendar app to see when each of your clocks runs out. Anyone with the address sees your deadlines: keep it to yourself, or make a new one.'),
    address, reset, error);
}
