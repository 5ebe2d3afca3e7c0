// Settings: name, email notifications (each turn, daily digest, off), reminders, time
// zone, quiet hours (PATCH /api/v1/me), vacation (POST /api/v1/me/vacation), webhooks and
// the calendar feed (integrations.js).

import { get, patch, post, request } from './api.js';
import { h, fill, nextId, when } from './dom.js';
import { calendarCard, webhooksCard } from './integrations.js';

function labelled(label, control, hint) {
  const id = control.id || (control.id = nextId('set'));
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('small', { class: 'hint' }, hint) : null);
}

const hours = (selected, blank) => [
  blank ? h('option', { value: '', selected: selected === null }, blank) : null,
  ...Array.from({ length: 24 }, (_, n) => h('option', { value: n, selected: n === selected }, `${String(n).padStart(2, '0')}:00`)),
];

function submitter(form, button, message, send) {
  const error = h('p', { class: 'error', role: 'alert' });
  form.append(button, error);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    fill(error);
    button.disabled = true;
    try {
      await send();
      message();
    } catch (e) {
      fill(error, e.message);
    } finally {
      button.disabled = false;
    }
  });
}

export async function settings(main, _params, app) {
  const me = await app.account(true);

  const name = h('input', { name: 'name', value: me.name, required: true, autocomplete: 'nickname' });
  const mode = h('select', { name: 'email_mode' },
    [['each_turn', 'An email on each turn'], ['daily_digest', 'One daily digest'], ['off', 'No turn emails']]
      .map(([v, t]) => h('option', { value: v, selected: me.email_mode === v }, t)));
  const digest = h('select', { name: 'digest_hour' }, hours(me.digest_hour));
  const reminders = h('input', { type: 'checkbox', name: 'reminders', checked: me.reminders, id: nextId('rem') });
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const zoneList = nextId('zones');
  const zone = h('input', { name: 'time_zone', value: me.time_zone, list: zoneList, autocomplete: 'off', spellcheck: 'false' });
  const quietFrom = h('select', { name: 'quiet_from' }, hours(me.quiet_from, 'no quiet hours'));
  const quietUntil = h('select', { name: 'quiet_until' }, hours(me.quiet_until, 'no quiet hours'));
  const syncDigest = () => {
    digest.closest('.field').hidden = mode.value !== 'daily_digest';
  };

  const prefs = h('form', { class: 'card', 'aria-labelledby': 'prefs-h' },
    h('h2', { id: 'prefs-h' }, 'Account and notifications'),
    h('p', { class: 'muted' }, `Signed in as ${me.email}.`),
    labelled('Name', name),
    labelled('Turn emails', mode),
    labelled('Digest hour (your time)', digest),
    h('div', { class: 'field check' }, reminders, h('label', { for: reminders.id }, ' Remind me at 50 % and 90 % of a clock')),
    labelled('Time zone', zone, 'An IANA name such as Europe/Copenhagen.'),
    h('datalist', { id: zoneList }, zones.map((z) => h('option', { value: z }))),
    h('fieldset', {}, h('legend', {}, 'Quiet hours: no reminders'),
      h('div', { class: 'inline' }, labelled('From', quietFrom), labelled('Until', quietUntil))));
  mode.addEventListener('change', syncDigest);
  submitter(prefs, h('button', { type: 'submit', class: 'primary' }, 'Save settings'),
    () => app.flash('Settings saved.'),
    async () => {
      const quiet = quietFrom.value === '' || quietUntil.value === '' ? [] : [Number(quietFrom.value), Number(quietUntil.value)];
      await patch('/api/v1/me', {
        name: name.value,
        email_notifications: mode.value,
        digest_hour: Number(digest.value),
        reminders: reminders.checked,
        time_zone: zone.value.trim(),
        quiet_hours: quiet,
      });
      await app.account(true);
    });

  const today = new Date().toISOString().slice(0, 10);
  const from = h('input', { type: 'date', name: 'from', min: today, required: true });
  const until = h('input', { type: 'date', name: 'until', min: today, required: true });
  const vacation = h('form', { class: 'card', 'aria-labelledby': 'vac-h' },
    h('h2', { id: 'vac-h' }, 'Vacation'),
    h('p', { class: 'muted' }, 'Your clocks stand still in every game from the first day to the end of the last one, and opponents see that you are away.'),
    h('div', { class: 'inline' }, labelled('First day', from), labelled('Last day', until)));
  submitter(vacation, h('button', { type: 'submit' }, 'Go on vacation'),
    () => {},
    async () => {
      // Whole local days: from the start of the first to the end of the last. A vacation
      // starting today starts now (the server refuses a start in the past).
      const start = new Date(`${from.value}T00:00`);
      const end = new Date(`${until.value}T00:00`);
      end.setDate(end.getDate() + 1);
      const begin = start < new Date() ? new Date() : start;
      const v = await post('/api/v1/me/vacation', { from: begin.toISOString(), until: end.toISOString() });
      app.flash(`Vacation booked until ${when(v.until)}; ${v.days_left_this_year} days left this year.`);
    });

  fill(main, h('h1', {}, 'Settings'), h('div', { class: 'columns' }, prefs, vacation, webhooksCard(app), calendarCard(), mutedCard(app), yourData(app, me)));
  syncDigest();
}

// Your data: a download of everything about the account (GET /api/v1/me/export), and
// deleting the account (POST /api/v1/me/delete, with the password).
function yourData(app, me) {
  const status = h('p', { class: 'muted', role: 'status', id: 'data-status' });
  const download = h('button', { type: 'button' }, 'Download my data');
  download.addEventListener('click', async () => {
    download.disabled = true;
    fill(status, 'Preparing…');
    try {
      const data = await get('/api/v1/me/export');
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const a = h('a', { href: url, download: `turnpost-account-${me.id}.json` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      fill(status, `Downloaded: ${data.games.length} game${data.games.length === 1 ? '' : 's'}.`);
    } catch (e) {
      fill(status, e.message);
    } finally {
      download.disabled = false;
    }
  });

  const password = h('input', { type: 'password', name: 'password', required: true, autocomplete: 'current-password' });
  const sure = h('input', { type: 'checkbox', name: 'sure', required: true, id: nextId('sure') });
  const remove = h('form', { class: 'danger', 'aria-labelledby': 'delete-h' },
    h('h3', { id: 'delete-h' }, 'Delete my account'),
    h('p', { class: 'muted' }, 'Your games in progress are resigned (in a game of three or more the computer plays your seat on). Your address, name, password, tokens, webhooks and calendar feed are erased; finished games show "Deleted player" in your seat. This cannot be undone.'),
    labelled('Password', password),
    h('div', { class: 'field check' }, sure, h('label', { for: sure.id }, ' I understand that this cannot be undone')));
  submitter(remove, h('button', { type: 'submit', class: 'danger' }, 'Delete my account'),
    () => app.signOut('Your account was deleted.'),
    async () => {
      await post('/api/v1/me/delete', { password: password.value });
    });

  return h('section', { class: 'card', 'aria-labelledby': 'data-h' },
    h('h2', { id: 'data-h' }, 'Your data'),
    h('p', { class: 'muted' }, 'Everything Turnpost keeps about your account, as one JSON file: your profile, every game with your seat as you see it and its log, your ratings, tokens and webhooks (without their secrets).'),
    download, status, remove);
}

// Muted players (GET /api/v1/me/mutes): their chat messages are hidden; each can be unmuted.
function mutedCard(app) {
  const list = h('ul', { class: 'muted-players' });
  const card = h('section', { class: 'card', id: 'muted-players', 'aria-labelledby': 'muted-h' },
    h('h2', { id: 'muted-h' }, 'Muted players'),
    h('p', { class: 'muted' }, 'Their chat messages are hidden from you in every game. Mute a player from a message of theirs in a game’s chat.'),
    list);
  const draw = (players) => fill(list, players.length
    ? players.map((p) => h('li', { dataset: { account: p.account_id } },
      h('a', { href: `#/ratings/${p.account_id}` }, p.name), ' ',
      h('span', { class: 'muted' }, `since ${when(p.muted_at)}`), ' ',
      h('button', {
        type: 'button',
        'aria-label': `Unmute ${p.name}`,
        onclick: async (ev) => {
          ev.currentTarget.disabled = true;
          try {
            await request('DELETE', `/api/v1/accounts/${p.account_id}/mute`);
            app.flash(`${p.name} is no longer muted.`);
            draw(players.filter((x) => x.account_id !== p.account_id));
          } catch (e) {
            app.flash(e.message, 'error');
          }
        },
      }, 'Unmute')))
    : h('li', { class: 'muted' }, 'Nobody is muted.'));
  get('/api/v1/me/mutes').then(draw).catch((e) => fill(list, h('li', { class: 'error' }, e.message)));
  return card;
}
