// Chat at the table: the game page's chat panel, for the game's players only.
// Messages arrive live as `chat_message` events on the caller's stream (live.js); a
// reconnect or a missed event reads what came after the last message shown. Every text
// is put in the page as text (textContent through `h`), never as HTML.

import { get, post, request } from './api.js';
import { h, fill, nextId, shortWhen } from './dom.js';
import * as live from './live.js';

/**
 * The chat panel of game `game` (with `your_seat` set), or null for a spectator. Returns
 * `{ el, stop }`.
 */
export function chatPanel(game, show) {
  if (game.your_seat === null || game.your_seat === undefined) return null;
  const id = game.id;
  const teams = (game.game_type === 'partners' && game.players === 4)
    || (game.game_type === 'kasino' && game.players === 4 && game.options && game.options.teams === true);
  let channel = 'table';
  /** Per channel: the messages shown, oldest first, and the newest id. */
  const state = { table: { list: [], last: 0 }, team: { list: [], last: 0 } };
  /** Per channel: messages of others that arrived live while the other channel was shown. */
  const unseen = { table: 0, team: 0 };
  function drawTabs() {
    if (!tabs) return;
    for (const b of tabs.querySelectorAll('button')) {
      const c = b.dataset.channel;
      const name = c === 'table' ? 'Table' : 'Team';
      fill(b, name, unseen[c] ? h('span', { class: 'badge chat-unseen' }, ` ${unseen[c]} new`) : null);
      b.setAttribute('aria-label', unseen[c] ? `${name}: ${unseen[c]} new message${unseen[c] > 1 ? 's' : ''}` : name);
    }
  }
  const listEl = h('ol', { class: 'chat-list', tabindex: 0, 'aria-label': 'Chat messages', 'aria-live': 'polite' });
  const input = h('textarea', { rows: 2, maxlength: 1000, 'aria-label': 'Message', placeholder: 'Say something to the table' });
  const sendBtn = h('button', { type: 'submit' }, 'Send');
  const tabs = teams ? h('div', { class: 'chat-tabs', role: 'group', 'aria-label': 'Channel' },
    ['table', 'team'].map((c) => h('button', {
      type: 'button',
      dataset: { channel: c },
      'aria-pressed': String(c === channel),
      onclick: () => {
        channel = c;
        unseen[c] = 0;
        drawTabs();
        tabs.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.channel === c)));
        input.placeholder = c === 'team' ? 'Say something to your team' : 'Say something to the table';
        draw();
        catchUp(c).catch(() => {});
      },
    }, c === 'table' ? 'Table' : 'Team'))) : null;
  const form = h('form', { class: 'chat-form' }, input, sendBtn);
  // Players of this game the caller muted (account id → name), with an Unmute button each.
  const muted = new Map();
  const mutedEl = h('p', { class: 'chat-muted muted', hidden: true });
  const reportDialog = reportBox(id, show);
  const askReport = (m) => reportDialog.ask(m);
  function drawMuted() {
    mutedEl.hidden = muted.size === 0;
    fill(mutedEl, muted.size ? 'Muted: ' : null, [...muted].map(([who, name], i) => [i ? ', ' : null, name, ' ',
      h('button', {
        type: 'button',
        class: 'link',
        'aria-label': `Unmute ${name}`,
        dataset: { unmute: who },
        onclick: () => request('DELETE', `/api/v1/accounts/${who}/mute`)
          .then(() => {
            muted.delete(who);
            drawMuted();
            show(`${name} is no longer muted.`, 'info');
            state.table = { list: [], last: 0 };
            state.team = { list: [], last: 0 };
            catchUp('table').catch(() => {});
            if (teams) catchUp('team').catch(() => {});
          })
          .catch((e) => show(e.message, 'error')),
      }, 'Unmute')]));
  }
  get('/api/v1/me/mutes').then((list) => {
    for (const x of list) if ((game.seats || []).some((s) => s.account_id === x.account_id)) muted.set(x.account_id, x.name);
    drawMuted();
  }).catch(() => {});
  const el = h('details', { id: 'chat', open: true },
    h('summary', {}, 'Chat'), tabs, listEl, mutedEl, form, reportDialog.el);

  function line(m) {
    const menu = m.seat === game.your_seat ? null : h('span', { class: 'chat-menu' },
      h('button', {
        type: 'button',
        class: 'link',
        title: 'Hide this player\'s messages everywhere',
        onclick: () => post(`/api/v1/accounts/${m.author_id}/mute`, {})
          .then(() => {
            for (const c of Object.values(state)) c.list = c.list.filter((x) => x.author_id !== m.author_id);
            muted.set(m.author_id, m.author_name);
            draw();
            drawMuted();
            show(`${m.author_name} is muted: their messages are hidden until you unmute them.`, 'info');
          })
          .catch((e) => show(e.message, 'error')),
      }, 'Mute'),
      h('button', {
        type: 'button',
        class: 'link',
        title: 'Report this message to the server\'s operator',
        onclick: () => askReport(m),
      }, 'Report'));
    return h('li', { class: 'chat-message', dataset: { message: m.id } },
      h('span', { class: 'chat-author' }, m.author_name),
      h('span', { class: 'muted' }, ` ${shortWhen(m.created_at)} `),
      menu,
      h('div', { class: 'chat-text' }, m.text));
  }

  function draw() {
    const s = state[channel];
    fill(listEl, s.list.length ? s.list.map(line)
      : h('li', { class: 'muted' }, muted.size ? 'No messages to show: those of muted players are hidden.' : 'No messages yet.'));
    listEl.scrollTop = listEl.scrollHeight;
  }

  function add(m, arrived = false) {
    const s = state[m.channel];
    if (!s || s.list.some((x) => x.id === m.id)) return;
    s.list.push(m);
    s.list.sort((a, b) => a.id - b.id);
    s.last = Math.max(s.last, m.id);
    if (m.channel === channel) draw();
    else if (arrived && m.seat !== game.your_seat) {
      unseen[m.channel] += 1;
      drawTabs();
    }
    markRead();
  }

  async function catchUp(c) {
    const s = state[c];
    const q = s.last ? `&after=${s.last}` : '';
    const page = await get(`/api/v1/games/${id}/chat?channel=${c}&limit=200${q}`);
    page.messages.forEach((m) => add(m));
    if (c === channel) draw();
  }

  let marked = 0;
  function markRead() {
    const newest = Math.max(state.table.last, state.team.last);
    if (newest > marked && !document.hidden) {
      marked = newest;
      request('POST', `/api/v1/games/${id}/chat/read`, { body: { last_read_id: newest } }).catch(() => {});
    }
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = input.value;
    if (!text.trim()) return;
    sendBtn.disabled = true;
    post(`/api/v1/games/${id}/chat`, { text, channel })
      .then((m) => {
        input.value = '';
        add(m);
      })
      .catch((e) => show(e.message, 'error'))
      .finally(() => { sendBtn.disabled = false; });
  });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });

  const unsubscribe = live.subscribe((kind, data) => {
    if (kind === 'chat_message' && data.game_id === id) add(data, true);
    else if (kind === 'reconnected' || kind === 'lagged') {
      catchUp('table').catch(() => {});
      if (teams) catchUp('team').catch(() => {});
    }
  });
  catchUp('table').catch(() => {});
  if (teams) catchUp('team').catch(() => {});
  // A safety net while the stream is down.
  const timer = setInterval(() => {
    if (!live.connected()) catchUp(channel).catch(() => {});
  }, 15000);
  draw();
  return {
    el,
    stop: () => {
      unsubscribe();
      clearInterval(timer);
    },
  };
}

/** Reasons offered for a report; the one picked (and any detail) is the report's `reason`. */
const REPORT_REASONS = ['Insults or harassment', 'Spam or advertising', 'Cheating or help from outside the game', 'Something else'];

/** The dialog that asks why a message is reported, then reports it. */
function reportBox(gameId, show) {
  const titleId = nextId('report-h');
  const selectId = nextId('report-reason');
  const detailId = nextId('report-detail');
  const quote = h('blockquote', { class: 'report-quote' });
  const reason = h('select', { id: selectId, name: 'reason', 'aria-required': 'true' },
    h('option', { value: '' }, 'Choose a reason'), REPORT_REASONS.map((r) => h('option', { value: r }, r)));
  const detail = h('textarea', { id: detailId, name: 'detail', rows: 3, maxlength: 400 });
  const error = h('p', { class: 'error', role: 'alert' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Report');
  const cancel = h('button', { type: 'button', value: 'cancel' }, 'Cancel');
  const form = h('form', { method: 'dialog' },
    h('h2', { id: titleId }, 'Report a message'),
    quote,
    h('div', { class: 'field' }, h('label', { for: selectId }, 'Why?'), reason),
    h('div', { class: 'field' }, h('label', { for: detailId }, 'More detail for the server’s operator (optional)'), detail),
    error,
    h('div', { class: 'buttons' }, send, ' ', cancel));
  const el = h('dialog', { class: 'report-dialog', 'aria-labelledby': titleId }, form);
  let message = null;
  cancel.addEventListener('click', () => el.close());
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!message) return;
    if (!reason.value) {
      fill(error, 'Choose a reason.');
      reason.focus();
      return;
    }
    const why = detail.value.trim() ? `${reason.value}: ${detail.value.trim()}` : reason.value;
    send.disabled = true;
    post(`/api/v1/games/${gameId}/chat/${message.id}/report`, { reason: why })
      .then(() => {
        el.close();
        show('Reported. Thank you: the server’s operator will read it.', 'info');
      })
      .catch((e) => fill(error, e.message))
      .finally(() => { send.disabled = false; });
  });
  return {
    el,
    ask(m) {
      message = m;
      fill(quote, `${m.author_name}: ${m.text}`);
      reason.value = '';
      detail.value = '';
      fill(error);
      el.showModal();
      reason.focus();
    },
  };
}
