// Forgotten passwords: ask for a reset link, and the link's page that sets a new password.
//   #/forgot          the address to send the link to
//   #/reset/<token>   where the emailed link lands (the token rides in the fragment, which
//                     never reaches a server)

import { request, setToken } from './api.js';
import { h, fill } from './dom.js';
import * as live from './live.js';

function field(label, attrs) {
  return h('label', { class: 'field' }, h('span', {}, label), h('input', attrs));
}

/** A form that shows the server's refusal under its button. */
function form(title, fields, submitText, onSubmit, footer) {
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary' }, submitText);
  const f = h('form', { class: 'card narrow' }, h('h1', {}, title), ...fields, button, error, footer);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    fill(error);
    button.disabled = true;
    try {
      await onSubmit(new FormData(f), error);
    } catch (e) {
      fill(error, e.message);
    } finally {
      button.disabled = false;
    }
  });
  return f;
}

export async function forgot(main) {
  fill(
    main,
    form(
      'Forgot your password?',
      [
        h('p', {}, 'Enter the address you sign in with. We will email it a link to choose a new password.'),
        field('Email', { name: 'email', type: 'email', autocomplete: 'username', required: true }),
      ],
      'Send me a link',
      async (d) => {
        const r = await request('POST', '/api/v1/password-reset', { body: { email: d.get('email') }, auth: false });
        // The same answer for every address: whether it has an account is for its mailbox to say.
        fill(
          main,
          h(
            'section',
            { class: 'card narrow', id: 'reset-sent' },
            h('h1', {}, 'Check your email'),
            h('p', {}, r.data.detail),
            h('p', {}, 'Nothing came? Look in the spam folder, or ask again in a few minutes.'),
            h('p', {}, h('a', { href: '#/signin' }, 'Back to sign in')),
          ),
        );
      },
      h('p', {}, 'Remembered it? ', h('a', { href: '#/signin' }, 'Sign in')),
    ),
  );
}

/** What to tell someone whose link the server refused. */
const LINK_TROUBLE = {
  link_expired: 'This link is more than an hour old.',
  link_used: 'This link was used already: it works once.',
  invalid_link: 'This link is not valid: copy it from the email whole.',
};

/** The page of a link that no longer works: why, and the way to a new one. */
function deadLink(main, trouble) {
  fill(main, h('section', { class: 'card narrow', id: 'reset-dead' },
    h('h1', {}, 'This link no longer works'),
    h('p', {}, trouble),
    h('p', {}, h('a', { href: '#/forgot' }, 'Ask for a new link'), ' or ', h('a', { href: '#/signin' }, 'sign in'), '.')));
}

export async function reset(main, params, app) {
  const linkToken = params[0] || '';
  // Said before anyone types a new password for a link that cannot take it.
  try {
    await request('POST', '/api/v1/password-reset/check', { body: { token: linkToken }, auth: false });
  } catch (e) {
    const trouble = LINK_TROUBLE[e.code];
    if (!trouble) throw e;
    deadLink(main, trouble);
    return;
  }
  fill(
    main,
    form(
      'Choose a new password',
      [
        field('New password (at least 10 characters, hard to guess: a few words do well)', {
          name: 'password', type: 'password', autocomplete: 'new-password', minlength: 10, required: true,
        }),
      ],
      'Set password and sign in',
      async (d, error) => {
        try {
          const r = await request('POST', '/api/v1/password-reset/new-password', {
            body: { token: linkToken, password: d.get('password') },
            auth: false,
          });
          setToken(r.data.access_token, false);
        } catch (e) {
          const trouble = LINK_TROUBLE[e.code];
          if (!trouble) throw e;
          fill(error, `${trouble} `, h('a', { href: '#/forgot' }, 'Ask for a new link'), '.');
          return;
        }
        // The used link leaves the address bar and the history.
        history.replaceState(null, '', '#/games');
        live.start();
        app.navigate('#/games', 'Your new password is set, and you are signed in.');
      },
      h('p', {}, h('a', { href: '#/signin' }, 'Sign in'), ' instead'),
    ),
  );
}
