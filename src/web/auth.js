// Sign in and sign up.

import { request, signIn as apiSignIn } from './api.js';
import { h, fill } from './dom.js';
import * as live from './live.js';

function field(label, attrs) {
  return h('label', { class: 'field' }, h('span', {}, label), h('input', attrs));
}

function form(main, title, fields, submitText, onSubmit, footer) {
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary' }, submitText);
  const f = h('form', { class: 'card narrow' }, h('h1', {}, title), ...fields, button, error, footer);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    fill(error);
    button.disabled = true;
    try {
      await onSubmit(new FormData(f));
    } catch (e) {
      fill(error, e.message);
    } finally {
      button.disabled = false;
    }
  });
  fill(main, f);
}

export async function signIn(main, _params, app) {
  form(
    main,
    'Sign in',
    [
      field('Email', { name: 'email', type: 'email', autocomplete: 'username', required: true }),
      field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'remember' }), ' Keep me signed in on this device'),
    ],
    'Sign in',
    async (d) => {
      await apiSignIn(d.get('email'), d.get('password'), d.get('remember') === 'on');
      live.start();
      app.navigate(app.resume());
    },
    h(
      'div',
      {},
      h('p', {}, h('a', { href: '#/forgot' }, 'Forgot your password?')),
      h('p', {}, 'New here? ', h('a', { href: '#/signup' }, 'Create an account')),
    ),
  );
}

export async function signUp(main, _params, app) {
  form(
    main,
    'Create an account',
    [
      field('Name (shown to other players)', { name: 'name', autocomplete: 'nickname', required: true }),
      field('Email (turn notifications go here)', { name: 'email', type: 'email', autocomplete: 'email', required: true }),
      field('Password (at least 10 characters, hard to guess: a few words do well)', {
        name: 'password', type: 'password', autocomplete: 'new-password', minlength: 10, required: true,
      }),
    ],
    'Sign up',
    async (d) => {
      const email = d.get('email');
      const body = { email, name: d.get('name'), password: d.get('password') };
      const r = await request('POST', '/api/v1/accounts', { body, auth: false });
      // 202: the server makes the account once the address is confirmed, and answers so
      // for every address (whether it has an account is for its mailbox to say).
      if (r.status === 202) {
        checkYourEmail(main, r.data);
        return;
      }
      await apiSignIn(email, d.get('password'), false);
      live.start();
      app.navigate('#/lobby', 'Welcome! Join an open game or start one.');
    },
    h('p', {}, 'Have an account? ', h('a', { href: '#/signin' }, 'Sign in')),
  );
}

/** After a sign-up that waits for the address: where to look, and the way to sign in. */
function checkYourEmail(main, accepted) {
  fill(
    main,
    h(
      'section',
      { class: 'card narrow', id: 'check-your-email' },
      h('h1', {}, 'Check your email'),
      h('p', {}, accepted.detail),
      h('p', {}, 'Nothing came? Look in the spam folder, or sign up again for a new link.'),
      h('p', {}, h('a', { href: '#/signin' }, 'Sign in')),
    ),
  );
}
