// The game page: the board picture, the caller's hand, the legal actions as buttons
// grouped by kind, a preview before sending, the log, resign and nudge, and a game
// type's own move editor when one exists (editors/<game_type>.js, see editors/README.md).

import { request, get, post, gameTypes, ApiError, token } from './api.js';
import { h, fill, svgPicture, typeName, humanize, pieceText, shortWhen } from './dom.js';
import { seatLine } from './games.js';
import * as live from './live.js';
import { chatPanel } from './chat.js';
import { historyPanel } from './history.js';

/** Which game types have an editor module: listed by the server from the files it ships. */
let editorList = null;
function editors() {
  if (!editorList) editorList = get('/web/editors.json', { auth: false }).catch(() => []);
  return editorList;
}

/**
 * The caller's own hand or rack, as `[{label, pieces}]`: a list at the top of the view
 * (`your_hand`, `your_rack`, ...), or the `hand` of the viewer's own entries in a list of
 * seats or colours (a view carries no one else's hand).
 */
function handsOf(view) {
  if (!view || typeof view !== 'object') return [];
  for (const key of ['your_hand', 'your_rack', 'hand', 'rack']) {
    if (Array.isArray(view[key])) return [{ label: key.endsWith('rack') ? 'Your rack' : 'Your hand', pieces: view[key] }];
  }
  const out = [];
  for (const list of Object.values(view)) {
    if (!Array.isArray(list)) continue;
    for (const e of list) {
      if (!e || typeof e !== 'object' || !e.hand || typeof e.hand !== 'object') continue;
      const pieces = Array.isArray(e.hand) ? e.hand
        : Object.entries(e.hand).map(([k, n]) => `${humanize(k)} ${typeof n === 'object' ? JSON.stringify(n) : n}`);
      const who = e.colour || e.name;
      out.push({ label: `Your hand${who ? ` (${who})` : ''}`, pieces });
    }
  }
  return out;
}

/** A seat as people know it: "Ada (Red)", "you (Red)" with `you`, "Seat 2" if empty. */
export function seatName(game, seat, { you = false } = {}) {
  const s = game.seats.find((x) => x.seat === seat);
  const label = s && s.label && s.label !== s.name ? ` (${s.label})` : '';
  if (you && seat === game.your_seat) return `you${label}`;
  return s ? `${s.name}${label}` : `Seat ${seat + 1}`;
}

/** Seats with something to decide: their turn, or an offer to answer. */
function deciding(game) {
  return Array.isArray(game.deciding) ? game.deciding : game.to_act;
}

/** Whether the caller has something to decide in this game now. */
export function myDecision(game) {
  return game.status === 'active' && game.your_seat !== null
    && (deciding(game).includes(game.your_seat) || game.legal_actions.length > 0);
}

/** A sentence of the server's (which names the people already) ending with a full stop. */
function sentence(text) {
  const out = String(text || '').trim();
  return out && !/[.!?]$/.test(out) ? `${out}.` : out;
}

function statusText(game) {
  if (game.status === 'open') return `Waiting for players: ${game.seats.length} of ${game.players} seats taken.`;
  if (game.status === 'finished') {
    const summary = game.result && game.result.summary;
    const rating = game.rated ? ' Ratings updated (see Leaderboards).' : ' Unrated game.';
    return `Game over.${summary ? ` ${sentence(summary)}` : ''}${rating}`;
  }
  const others = deciding(game).filter((s) => s !== game.your_seat).map((s) => seatName(game, s));
  if (game.your_seat === null) return `You are watching. Waiting for ${others.join(', ') || 'nobody'}.`;
  if (myDecision(game)) {
    const what = game.to_act.includes(game.your_seat) ? 'Your turn' : 'Your decision';
    return others.length ? `${what} (also waiting for ${others.join(', ')}).` : `${what}.`;
  }
  return `Waiting for ${others.join(', ') || 'nobody'}.`;
}

/** The final ranking, best first, with scores when the game keeps them. */
function ranking(game) {
  const places = (game.result && game.result.ranking) || [];
  return places.map((p) => h('li', { class: p.rank === 1 ? 'seat to-act' : 'seat' },
    `${p.rank}. ${seatName(game, p.seat)}${p.seat === game.your_seat ? ' (you)' : ''}`,
    p.score !== null && p.score !== undefined ? ` · ${p.score} points` : ''));
}

/** The legal actions grouped by their `type` (the action JSON's kind), in order. */
function groups(game) {
  const out = new Map();
  game.legal_actions.forEach((action, i) => {
    const kind = (action && typeof action === 'object' && action.type) || 'action';
    if (!out.has(kind)) out.set(kind, []);
    out.get(kind).push({ action, text: game.legal_action_texts[i] || JSON.stringify(action), i });
  });
  return out;
}

export async function gamePage(main, [idText, atWord, atText], app) {
  const id = Number(idText);
  if (!Number.isInteger(id) || id <= 0) throw new Error('No such game.');
  // A link to a position: #/game/<id>/at/<version>.
  const startAt = atWord === 'at' && /^\d+$/.test(atText || '') ? Number(atText) : null;
  const types = await gameTypes();

  let game = null;
  let etag = null;
  let boardTag = null;
  let lastSeq = 0;
  // The log's entries as far as the takeback button needs them: who chose the last move
  // that still counts (moves that played themselves, `[forced]` and `[bot]`, are skipped).
  const chosen = [];
  let busy = false;
  let editorCleanup = null;
  /** The move shown in the preview panel, kept across others' moves while still legal. */
  let previewing = null;
  /** The action kinds the game's editor composes (their buttons fold away). */
  let editorKinds = [];
  let closed = false;

  const heading = h('h1', {}, `Game #${id}`);
  const status = h('p', { class: 'status-line', role: 'status', tabindex: -1 });
  const seats = h('ul', { class: 'seats' });
  const board = h('figure', { id: 'board', class: 'board' });
  /** What a click on the board picked, and the moves that involve it. */
  const boardChoices = h('div', { class: 'board-choices', 'aria-live': 'polite' });
  const hand = h('section', { id: 'hand', 'aria-label': 'Your hand' });
  const actions = h('section', { id: 'actions', 'aria-labelledby': 'actions-h' });
  const preview = h('section', { id: 'preview', 'aria-live': 'polite' });
  const editor = h('section', { id: 'editor' });
  const tools = h('div', { class: 'tools' });
  const invitations = h('section', { id: 'invitations', 'aria-label': 'Invitations' });
  // Seats given up and offered to a replacement.
  const replacements = h('section', { id: 'replacements', 'aria-label': 'Seats given up' });
  // The seat's private note (PUT /games/{id}/note): seen by its author alone. Its text
  // lives in a textarea's value and the status line's textContent, never as markup.
  const noteText = h('textarea', { id: 'note-text', rows: 5, maxlength: 4000, 'aria-label': 'Your private note' });
  const noteState = h('span', { class: 'muted note-state', role: 'status' });
  const noteSave = h('button', { type: 'button', id: 'note-save' }, 'Save note');
  const note = h('details', { id: 'note', hidden: true },
    h('summary', {}, 'My notes (only you see them)'), noteText, h('div', {}, noteSave, ' ', noteState));
  let noteLoaded = false;
  let noteTimer = null;
  let noteSaved = '';
  async function saveNote() {
    clearTimeout(noteTimer);
    noteTimer = null;
    const body = noteText.value;
    if (body === noteSaved) return;
    noteState.textContent = 'Saving…';
    try {
      const r = await request('PUT', `/api/v1/games/${id}/note`, { body: { body } });
      noteSaved = r.data ? r.data.body : body;
      noteState.textContent = 'Saved.';
    } catch (e) {
      noteState.textContent = e.message;
    }
  }
  noteText.addEventListener('input', () => {
    noteState.textContent = 'Not saved yet.';
    clearTimeout(noteTimer);
    noteTimer = setTimeout(() => { saveNote().catch(() => {}); }, 1500);
  });
  noteSave.addEventListener('click', () => { saveNote().catch(() => {}); });
  async function loadNote() {
    if (noteLoaded || game.your_seat === null || !token()) return;
    noteLoaded = true;
    note.hidden = false;
    const n = await get(`/api/v1/games/${id}/note`);
    noteSaved = n.body;
    noteText.value = n.body;
    if (n.body) note.open = true;
    note.dataset.loaded = 'true';
  }
  // A long log scrolls in its box, which therefore takes the keyboard focus.
  const logList = h('ol', { class: 'log', tabindex: 0, 'aria-label': 'The moves so far' });
  const log = h('details', { id: 'log', open: true }, h('summary', {}, 'Log'), logList, h('p', { class: 'muted none' }, 'No moves yet.'));
  // Looking back shows a past position in place of the board and the hand; what plays a
  // move is put aside meanwhile (kept as it was), since moves are made on the game now.
  const past = historyPanel({ onShow: (v) => showAt(v).catch((e) => fill(board, h('p', { class: 'error' }, e.message))) });
  const root = h('section', { id: 'game' }, heading, status, seats,
    // An editor sits under the board: grids and maps need the width.
    h('div', { class: 'game-grid' }, h('div', { class: 'main-col' }, board, past.el, boardChoices, editor),
      h('div', { class: 'side' }, hand, actions, preview, tools, replacements, invitations, note, log)));
  fill(main, root);

  const show = (message, kind) => app.flash(message, kind);

  // One refresh at a time: events often come in pairs (game_changed, your_turn), and two
  // answers to the same question would draw the page twice.
  let inFlight = null;
  let again = false;
  async function refresh() {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      do {
        again = false;
        if (closed) return;
        let r;
        try {
          r = await request('GET', `/api/v1/games/${id}`, { etag });
        } catch (e) {
          if (e.status === 404 && !token() && !game) {
            // A private game's link, opened in a signed-out tab: sign in, then come back.
            app.signInFirst([`Sign in to open game #${id}: only its players can see it.`, 'info']);
            throw new ApiError(404, { detail: 'No such game, or a private one: sign in if you play in it or were invited.' });
          }
          throw e;
        }
        if (r.status !== 304 && !closed && r.etag !== etag) setGame(r.data, r.etag);
      } while (again);
    })();
    try {
      await inFlight;
    } finally {
      inFlight = null;
    }
  }

  function setGame(g, tag) {
    // The same answer twice (a move's own response and the event it caused): keep the page.
    if (tag && tag === etag) return;
    const moved = !game || game.version !== g.version || game.status !== g.status;
    game = g;
    etag = tag || null;
    root.dataset.version = g.version;
    root.dataset.status = g.status;
    const mine = myDecision(g);
    document.title = `${mine ? 'Your turn · ' : ''}${typeName(types, g.game_type)} #${g.id} · Turnpost`;
    fill(heading, `${typeName(types, g.game_type)} #${g.id}`);
    fill(status, statusText(g));
    status.classList.toggle('yours', mine);
    fill(seats, g.status === 'finished' ? ranking(g) : g.seats.map((s) => seatLine(g, s)));
    past.update(id, g.status === 'open' ? 0 : g.version, g.status === 'finished');
    drawHand();
    drawActions();
    drawTools();
    drawInvitations().catch(() => fill(invitations));
    if (!moved) drawReplacements().catch(() => fill(replacements));
    loadNote().catch((e) => { noteState.textContent = e.message; });
    if (moved) {
      keepPreview();
      picked = [];
      if (past.at() === null) loadBoard().catch((e) => fill(board, h('p', { class: 'error' }, e.message)));
      loadLog().then(drawTools).then(drawReplacements).catch(() => {});
      mountEditor().catch((e) => fill(editor, h('p', { class: 'error' }, `The move editor failed: ${e.message}`)));
    }
  }

  async function loadBoard() {
    if (game.status === 'open') {
      fill(board, h('p', { class: 'muted' }, 'The board appears when the game starts.'));
      return;
    }
    const r = await request('GET', `/api/v1/games/${id}/board.svg`, { etag: boardTag });
    if (r.status === 304) {
      markTargets();
      return;
    }
    // Looked back meanwhile: the past position stays.
    if (past.at() !== null) return;
    boardTag = r.etag;
    drawPicture(r.data, game.version);
    markTargets();
  }

  function drawPicture(svg, version) {
    fill(board, h('div', { class: 'board-scroll' }, svgPicture(svg)), zoomButton);
    board.dataset.version = version;
    fitBoard();
  }

  /** Shows the position after `version` moves as the caller saw it then, or the game now. */
  let shownSeq = 0;
  async function showAt(version) {
    const seq = ++shownSeq;
    history.replaceState(null, '', version === null ? `#/game/${id}` : `#/game/${id}/at/${version}`);
    root.classList.toggle('looking-back', version !== null);
    for (const el of [actions, preview, editor, boardChoices]) el.hidden = version !== null;
    if (version === null) {
      boardTag = null;
      drawHand();
      await loadBoard();
      return;
    }
    const [picture, then] = await Promise.all([
      request('GET', `/api/v1/games/${id}/board.svg?version=${version}`),
      get(`/api/v1/games/${id}/views/${version}`),
    ]);
    if (seq !== shownSeq || past.at() !== version) return;
    drawPicture(picture.data, version);
    drawHandOf(then.view);
  }

  // Phones: a 600-unit picture squeezed to 360 px wrote its labels at 6 px. The picture is
  // shown no smaller than its smallest text needs to be READABLE px high, and scrolls
  // sideways within its frame where the screen is narrower; "Fit to screen" shows it whole.
  // On a wide screen the whole picture fits its column at nearly that size, so it is shown
  // whole there unless the player asks for the readable size.
  const READABLE = 11;
  const wide = window.matchMedia('(min-width: 52rem)');
  let chosenFit = null;
  const zoomButton = h('button', {
    type: 'button', class: 'link zoom',
    onclick: () => {
      chosenFit = !fitWhole();
      fitBoard();
    },
  });
  const fitWhole = () => (chosenFit === null ? wide.matches : chosenFit);
  function fitBoard() {
    const svg = board.querySelector('svg.picture');
    if (!svg) return;
    svg.style.width = '';
    const vb = svg.viewBox && svg.viewBox.baseVal;
    const sizes = [...svg.querySelectorAll('text')]
      .map((t) => parseFloat(getComputedStyle(t).fontSize))
      .filter((n) => n > 0);
    if (!vb || !vb.width || !sizes.length) {
      zoomButton.hidden = true;
      return;
    }
    const smallest = Math.min(...sizes);
    const readableWidth = Math.ceil(vb.width * (READABLE / smallest));
    const frame = board.querySelector('.board-scroll');
    const fits = frame.clientWidth >= readableWidth;
    zoomButton.hidden = fits;
    const scrolls = !fits && !fitWhole();
    if (scrolls) svg.style.width = `${readableWidth}px`;
    // A frame that scrolls takes the keyboard focus, so arrow keys can scroll it.
    if (scrolls) {
      frame.tabIndex = 0;
      frame.setAttribute('role', 'region');
      frame.setAttribute('aria-label', 'The board (scrolls sideways)');
    } else {
      frame.removeAttribute('tabindex');
      frame.removeAttribute('role');
      frame.removeAttribute('aria-label');
    }
    fill(zoomButton, fitWhole() ? 'Show the board larger' : 'Fit the board to the screen');
  }
  const onResize = () => fitBoard();
  window.addEventListener('resize', onResize);

  // Playing on the board: an element of the picture with a data-target stands for what
  // actions involve (a card, a hex, a ship). A click picks it and keeps the actions that
  // involve everything picked; one left is previewed, several are listed to choose from.
  let picked = [];
  const targetsOf = (i) => (Array.isArray(game.legal_action_targets) && game.legal_action_targets[i]) || [];
  function markTargets() {
    if (past.at() !== null) return;
    const live = new Set();
    game.legal_actions.forEach((_a, i) => targetsOf(i).forEach((t) => live.add(t)));
    // What the pick makes possible is drawn at once (a phone has no hover): every other
    // element that a move involving everything picked also involves.
    const possible = new Set();
    if (picked.length) {
      for (const it of matching(picked)) targetsOf(it.i).forEach((t) => possible.add(t));
    }
    for (const el of board.querySelectorAll('[data-target]')) {
      el.classList.toggle('target', live.has(el.dataset.target));
      el.classList.toggle('picked', picked.includes(el.dataset.target));
      el.classList.toggle('possible', possible.has(el.dataset.target) && !picked.includes(el.dataset.target));
    }
    board.classList.toggle('playable', live.size > 0);
    drawBoardChoices();
  }
  function matching(targets) {
    const out = [];
    game.legal_actions.forEach((action, i) => {
      const ts = targetsOf(i);
      if (targets.every((t) => ts.includes(t))) out.push({ action, text: game.legal_action_texts[i] || JSON.stringify(action), i });
    });
    return out;
  }
  function pick(target) {
    if (busy || !game.legal_actions.length || past.at() !== null) return;
    if (picked.includes(target)) picked = picked.filter((t) => t !== target);
    else if (matching([...picked, target]).length) picked = [...picked, target];
    else picked = [target];
    if (!matching(picked).length) picked = [];
    markTargets();
    const left = matching(picked);
    if (picked.length && left.length === 1) choose(left[0].action, left[0].text).catch(() => {});
  }
  function drawBoardChoices() {
    if (!picked.length) {
      fill(boardChoices);
      return;
    }
    const left = matching(picked);
    fill(boardChoices,
      h('p', { class: 'muted' }, left.length === 1 ? 'On the board: this move.' : `On the board: ${left.length} moves involve what you picked. Pick another place or piece to narrow them, or choose one:`),
      h('div', { class: 'buttons' }, left.slice(0, 40).map((it) => h('button', {
        type: 'button', class: 'action', dataset: { index: it.i }, disabled: busy,
        onclick: () => choose(it.action, it.text),
      }, it.text))),
      h('button', { type: 'button', class: 'link', onclick: () => { picked = []; markTargets(); } }, 'Clear the selection'));
  }
  board.addEventListener('click', (ev) => {
    const el = ev.target.closest && ev.target.closest('[data-target]');
    if (el && board.contains(el) && el.classList.contains('target')) pick(el.dataset.target);
  });

  async function loadLog() {
    if (game.status === 'open') return;
    for (;;) {
      const entries = await get(`/api/v1/games/${id}/log?after=${lastSeq}&limit=200`);
      for (const e of entries) {
        // Two loads may overlap (a move's own answer and the event it caused): an entry
        // already shown is not shown twice.
        if (e.seq <= lastSeq) continue;
        lastSeq = e.seq;
        const automatic = e.text !== null && /^\[(forced|bot)\] /.test(e.text);
        if (e.takeback_to === null && !e.undone_by && !automatic) chosen.push({ seq: e.seq, seat: e.seat });
        if (e.takeback_to !== null && e.takeback_to !== undefined) {
          while (chosen.length && chosen[chosen.length - 1].seq > e.takeback_to) chosen.pop();
          // A takeback: the entries after the version it returned to no longer count.
          for (const li of logList.children) {
            if (Number(li.value) > e.takeback_to && !li.classList.contains('undone')) {
              li.classList.add('undone');
              li.title = `Taken back (entry ${e.seq})`;
            }
          }
        }
        const who = seatName(game, e.seat);
        past.describe(e.seq, e.text === null ? `${who} moved (hidden).` : sentence(`${who}: ${e.text}`));
        const seq = e.seq;
        logList.append(h('li', {
          value: e.seq,
          dataset: { seat: e.seat },
          class: e.undone_by ? 'undone' : (e.takeback_to !== null && e.takeback_to !== undefined ? 'takeback' : null),
          title: e.undone_by ? `Taken back (entry ${e.undone_by})` : null,
        },
          h('span', { class: 'who' }, seatName(game, e.seat)), ' ',
          e.text === null ? h('span', { class: 'muted' }, '(hidden)') : e.text,
          h('time', { datetime: e.at, class: 'muted', title: new Date(e.at).toLocaleString() }, ` ${shortWhen(e.at)}`), ' ',
          h('button', {
            type: 'button', class: 'link show-at', 'aria-label': `Show the board after move ${seq}`,
            onclick: () => past.go(seq),
          }, 'show')));
      }
      if (entries.length < 200) break;
    }
    logList.scrollTop = logList.scrollHeight;
  }

  function drawHand() {
    // A past position's hand stays until the game now is shown again.
    if (past.at() !== null) return;
    if (game.status !== 'active') {
      fill(hand);
      return;
    }
    drawHandOf(game.view);
  }

  function drawHandOf(view) {
    fill(hand, handsOf(view).map(({ label, pieces }) => [
      h('h2', {}, label),
      pieces.length ? h('ul', { class: 'pieces' }, pieces.map((p) => h('li', {}, pieceText(p)))) : h('p', { class: 'muted' }, 'empty'),
    ]));
  }

  function drawActions() {
    if (!game.legal_actions.length) {
      fill(actions);
      return;
    }
    const all = groups(game);
    const many = game.legal_actions.length > 30;
    // With many choices: a filter by words ("7♣", "build 9"), opening groups that match.
    const filter = many ? h('input', {
      type: 'search', id: 'action-filter', placeholder: 'e.g. a card or a place',
      oninput: () => {
        const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
        for (const g of actions.querySelectorAll('.group')) {
          let shown = 0;
          for (const b of g.querySelectorAll('button.action')) {
            b.hidden = !words.every((w) => b.textContent.toLowerCase().includes(w));
            if (!b.hidden) shown += 1;
          }
          g.hidden = shown === 0;
          if (g.localName === 'details') g.open = words.length > 0 && shown > 0;
        }
      },
    }) : null;
    const drawn = [...all].map(([kind, items]) => {
      const buttons = h('div', { class: 'buttons' }, items.map((it) =>
        h('button', {
          type: 'button', class: 'action', dataset: { index: it.i, kind },
          disabled: busy, onclick: () => choose(it.action, it.text),
        }, it.text)));
      const title = `${humanize(kind)} (${items.length})`;
      // Moves the editor composes, or a long list that clicks on the board pick from,
      // start folded: the list stays for keyboards and screen readers.
      const onBoard = items.length > 12 && items.every((it) => targetsOf(it.i).length > 0);
      if (editorKinds.includes(kind) || onBoard) {
        const hint = editorKinds.includes(kind) ? 'or compose one under the board' : 'or click on the board';
        return h('details', { class: 'group' }, h('summary', {}, `${title}: ${hint}`), buttons);
      }
      // With many choices, big groups start folded so the page stays scannable.
      if (many && items.length > 12 && all.size > 1) {
        return h('details', { class: 'group' }, h('summary', {}, title), buttons);
      }
      return h('fieldset', { class: 'group' }, h('legend', {}, title), buttons);
    });
    fill(actions, h('h2', { id: 'actions-h' }, 'Your move'),
      filter ? h('div', { class: 'field' }, h('label', { for: 'action-filter' }, `Find a move (${game.legal_actions.length} choices)`), filter) : null,
      drawn);
  }

  /**
   * Previews `action` and offers to play it. Resolves with the preview (or rejects). An
   * editor's checks leave the keyboard focus where the player is composing (`focus`).
   */
  async function choose(action, text, { focus = true } = {}) {
    previewing = { action, text, focus };
    const play = h('button', { type: 'button', class: 'primary play', disabled: true }, 'Play this move');
    const cancel = h('button', { type: 'button', onclick: () => { previewing = null; fill(preview); } }, 'Cancel');
    const body = h('div', {}, h('p', { class: 'muted' }, 'Working out the result…'));
    fill(preview, h('div', { class: 'card preview' }, h('h2', {}, 'Preview'), h('p', {}, h('strong', {}, text || 'Your move')), body,
      h('div', { class: 'buttons' }, play, cancel)));
    play.addEventListener('click', () => submit(action).catch(() => {}));
    try {
      const p = await post(`/api/v1/games/${id}/preview`, { action });
      fill(body,
        h('p', {}, p.description),
        p.finishes_game ? h('p', { class: 'badge' }, 'This move ends the game.')
          : h('p', { class: 'muted' }, `Then to move: ${p.to_act.map((s) => (s === game.your_seat ? 'you' : seatName(game, s))).join(', ') || 'nobody'}`),
        h('details', {}, h('summary', {}, 'The board after this move'), svgPicture(p.board_svg)));
      play.disabled = false;
      if (focus) play.focus();
      return p;
    } catch (e) {
      fill(body, h('p', { class: 'error', role: 'alert' }, e.message));
      throw e;
    }
  }

  /** Plays `action` on the version shown; resolves with the game as it now is. */
  async function submit(action) {
    if (busy) throw new ApiError(0, { detail: 'A move is already on its way.' });
    busy = true;
    for (const b of root.querySelectorAll('button.action, button.play')) b.disabled = true;
    try {
      const r = await request('POST', `/api/v1/games/${id}/actions`, { body: { expected_version: game.version, action } });
      busy = false;
      previewing = null;
      fill(preview);
      setGame(r.data, r.etag);
      // The event stream often brings this same game before the move's own answer, and
      // drew it while the move was on its way, buttons held; setGame keeps that drawing.
      for (const b of root.querySelectorAll('button.action')) b.disabled = false;
      show('Move played.');
      status.focus();
      return r.data;
    } catch (e) {
      busy = false;
      show(e.code === 'stale_version' ? 'The game moved on before your move arrived; here it is now.' : e.message, 'error');
      await refresh().catch(() => {});
      drawActions();
      throw e;
    }
  }

  /**
   * The move being previewed survives another player's move while it is still legal (it is
   * previewed again on the new position); one that is no longer legal says so.
   */
  function keepPreview() {
    const was = previewing;
    previewing = null;
    if (!was) {
      fill(preview);
      return;
    }
    const same = JSON.stringify(was.action);
    if (game.legal_actions.some((a) => JSON.stringify(a) === same)) {
      choose(was.action, was.text, { focus: false }).catch(() => {});
      return;
    }
    fill(preview, h('div', { class: 'card preview' }, h('h2', {}, 'Preview'),
      h('p', { class: 'error', role: 'alert' }, `The move you were looking at${was.text ? ` (${was.text})` : ''} is no longer possible: the game moved on.`)));
  }

  /** A control's label: what identifies it across a redraw. */
  const controlLabel = (c) => (c.labels && c.labels[0] ? c.labels[0].textContent.trim() : (c.name || c.type));
  /** The labels of the editor's controls the player changed (editors redraw controls). */
  let touched = new Set();

  /** The editor's controls (choices, numbers, boxes) as the player left them. */
  function editorControls() {
    return [...editor.querySelectorAll('select, input, textarea')].map((c) => {
      const label = controlLabel(c);
      const chosen = c.localName === 'select' && c.selectedOptions[0] ? c.selectedOptions[0].textContent.trim() : null;
      return { label, value: c.value, checked: c.checked, chosen, changed: touched.has(label) };
    });
  }

  /**
   * Puts back what the player had composed in the editor before the game moved on, one
   * control at a time (a choice can fill the next one's options); a choice that is no
   * longer on offer is reported.
   */
  function restoreControls(saved) {
    const lost = [];
    for (let i = 0; i < saved.length; i += 1) {
      const s = saved[i];
      if (!s.changed) continue;
      const c = editor.querySelectorAll('select, input, textarea')[i];
      const label = c ? controlLabel(c) : null;
      if (!c || label !== s.label) {
        lost.push(s.chosen || s.value);
        continue;
      }
      if (c.type === 'checkbox' || c.type === 'radio') {
        if (c.checked === s.checked) continue;
        c.checked = s.checked;
      } else {
        if (c.value === s.value) continue;
        if (c.localName === 'select' && ![...c.options].some((o) => o.value === s.value)) {
          lost.push(s.chosen || s.value);
          continue;
        }
        c.value = s.value;
      }
      touched.add(label);
      c.dispatchEvent(new Event('input', { bubbles: true }));
      c.dispatchEvent(new Event('change', { bubbles: true }));
    }
    return lost;
  }

  async function mountEditor() {
    const saved = editorControls();
    if (editorCleanup) editorCleanup();
    editorCleanup = null;
    fill(editor);
    if (game.status !== 'active' || !game.legal_actions.length) return;
    if (!(await editors()).includes(game.game_type)) return;
    const mod = await import(`./editors/${game.game_type}.js`);
    const kinds = Array.isArray(mod.replaces) ? mod.replaces : [];
    if (kinds.join() !== editorKinds.join()) {
      editorKinds = kinds;
      drawActions();
    }
    const el = h('div', { class: 'editor' });
    fill(editor, h('h2', {}, 'Compose a move'), el);
    const ctx = {
      game,
      view: game.view,
      legal: game.legal_actions,
      texts: game.legal_action_texts,
      preview: (action) => choose(action, null, { focus: false }),
      submit,
    };
    const result = mod.mount(el, ctx);
    if (typeof result === 'function') editorCleanup = result;
    // Nothing to compose at this point of the game: no empty section.
    if (!el.childElementCount) {
      fill(editor);
      return;
    }
    // Which controls the player touched: only those are put back after a move.
    touched = new Set();
    const touch = (ev) => {
      if (ev.target && ev.target.matches && ev.target.matches('select, input, textarea')) touched.add(controlLabel(ev.target));
    };
    el.addEventListener('change', touch, true);
    el.addEventListener('input', touch, true);
    const lost = restoreControls(saved);
    if (lost.length) {
      el.prepend(h('p', { class: 'error', role: 'alert' }, `The game moved on: ${lost.join(', ')} is no longer possible. The rest of your move is as you left it.`));
    } else if (saved.some((s) => s.changed)) {
      el.prepend(h('p', { class: 'muted', role: 'status' }, 'The game moved on; your move is as you left it.'));
    }
  }

  /**
   * Seats given up in a game of three or more, which the computer plays on: a player still
   * in the game offers one in the lobby (or withdraws the offer); anyone else signed in may
   * take an offered seat. A hand-over is written into the log after the move it followed.
   */
  async function drawReplacements() {
    if (game.status === 'open') {
      fill(replacements);
      return;
    }
    let list;
    try {
      list = await get(`/api/v1/games/${id}/replacements`);
    } catch {
      fill(replacements);
      return;
    }
    for (const r of list) {
      if (r.text === null || r.taken_at_version > lastSeq) continue;
      // The seat's entries up to the hand-over were the leaver's (or the computer's for them).
      for (const li of logList.querySelectorAll(`li[data-seat="${r.seat}"]:not(.handover)`)) {
        const who = li.querySelector('.who');
        if (who && Number(li.value) <= r.taken_at_version && who.textContent.startsWith(r.replacement_name)) {
          who.textContent = r.left_name + who.textContent.slice(r.replacement_name.length);
        }
      }
      if (logList.querySelector(`li.handover[data-seat="${r.seat}"]`)) continue;
      const line = h('li', { class: 'handover', dataset: { seat: r.seat } }, r.text);
      const after = [...logList.children].find((li) => Number(li.value) === r.taken_at_version && !li.classList.contains('handover'));
      if (after) after.after(line);
      else if (r.taken_at_version === 0) logList.prepend(line);
      else logList.append(line);
    }
    const stillIn = game.status === 'active' && game.your_seat !== null && !game.forfeited.includes(game.your_seat);
    const send = (method, path, done) => request(method, `/api/v1/games/${id}/seats/${path}`, { body: method === 'POST' ? {} : undefined })
      .then((res) => {
        show(done);
        if (res.data && res.data.id === id) setGame(res.data, null);
        else drawReplacements().catch(() => {});
      })
      .catch((e) => show(e.message, 'error'));
    const items = [];
    if (game.status === 'active' && game.players >= 3) {
      for (const seat of game.forfeited) {
        const offer = list.find((r) => r.seat === seat);
        if (offer && offer.replacement_account_id !== null) continue;
        const who = seatName(game, seat);
        if (offer) {
          items.push(h('li', { dataset: { seat, offered: 'true' } },
            `${who} gave up; the seat is offered in the lobby to a replacement. `,
            stillIn ? h('button', { type: 'button', onclick: () => send('DELETE', `${seat}/offer`, `The offer of ${who}’s seat is withdrawn.`) }, 'Withdraw the offer') : null,
            !stillIn && game.your_seat === null && token() ? h('button', {
              type: 'button',
              class: 'primary',
              onclick: () => send('POST', `${seat}/take`, `You took over ${who}’s seat: you play on from its position, unrated.`),
            }, 'Take this seat') : null));
        } else if (stillIn && !game.private) {
          items.push(h('li', { dataset: { seat, offered: 'false' } },
            `${who} gave up; the computer plays their seat. `,
            h('button', { type: 'button', onclick: () => send('POST', `${seat}/offer`, `${who}’s seat is offered in the lobby.`) }, 'Offer this seat')));
        }
      }
    }
    if (game.status === 'finished') {
      // The result: who left a seat (and keeps the loss), who played it on unrated.
      const handed = list.filter((r) => r.text !== null);
      fill(replacements, handed.length ? [h('h2', {}, 'Seats handed over'),
        h('ul', { class: 'offers' }, handed.map((r) => h('li', { dataset: { seat: r.seat } },
          `${r.left_name} left seat ${r.seat + 1} and keeps the loss; ${r.replacement_name} played it on as a replacement, unrated.`)))] : []);
      return;
    }
    fill(replacements, items.length ? [h('h2', {}, 'Seats given up'), h('ul', { class: 'offers' }, items)] : []);
  }

  /** The game's invitations, for the player who opened it while it waits for players. */
  async function drawInvitations() {
    if (game.status !== 'open' || game.your_seat !== 0 || !token()) {
      fill(invitations);
      return;
    }
    let list;
    try {
      list = await get(`/api/v1/games/${id}/invitations`);
    } catch {
      fill(invitations);
      return;
    }
    if (!list.length) {
      fill(invitations);
      return;
    }
    fill(invitations, h('h2', {}, 'Invitations'), h('ul', { class: 'invitations' }, list.map((inv) =>
      h('li', { dataset: { invitation: inv.id, status: inv.status } }, `${inv.email}: ${inv.status} `,
        inv.status === 'pending' ? h('button', {
          type: 'button',
          onclick: () => request('DELETE', `/api/v1/games/${id}/invitations/${inv.id}`)
            .then(() => { show(`The invitation to ${inv.email} is withdrawn; its seat is free.`); return drawInvitations(); })
            .catch((e) => show(e.message, 'error')),
        }, 'Cancel') : null))));
  }

  /** Ask to take back one's last move, or answer (or withdraw) the request pending. */
  function takebackTools() {
    const send = (path, done) => post(`/api/v1/games/${id}/${path}`, {})
      .then((g) => { setGame(g, null); show(done(g)); })
      .catch((e) => show(e.message, 'error'));
    const tb = game.takeback;
    if (!tb) {
      // Only the last move chosen in the game can be taken back, by its player; in a game
      // whose every move shows a hidden card, none can.
      const type = types.find((t) => t.id === game.game_type);
      if (type && type.takebacks === false) return [];
      const last = chosen[chosen.length - 1];
      if (!last || last.seat !== game.your_seat) return [];
      return [h('button', {
        type: 'button',
        onclick: () => send('takeback', (g) => (g.takeback
          ? 'The other players are asked to agree to your takeback.'
          : 'Your move is taken back.')),
      }, 'Take back my move')];
    }
    const what = tb.undoes_texts.join('; ');
    const waiting = tb.waiting_for.map((s) => seatName(game, s)).join(', ');
    if (tb.seat === game.your_seat) {
      return [
        h('p', { class: 'takeback' }, `You asked to take back: ${what}. Waiting for ${waiting}.`),
        h('button', { type: 'button', onclick: () => send('takeback/decline', () => 'Your takeback request is withdrawn.') }, 'Withdraw the takeback'),
      ];
    }
    if (!tb.waiting_for.includes(game.your_seat)) {
      return [h('p', { class: 'takeback' }, `${seatName(game, tb.seat)} asks to take back: ${what}. Waiting for ${waiting}.`)];
    }
    return [
      h('p', { class: 'takeback' }, `${seatName(game, tb.seat)} asks to take back: ${what}.`),
      h('button', {
        type: 'button',
        onclick: () => send('takeback/accept', (g) => (g.takeback
          ? 'You accepted; the others have yet to answer.'
          : 'The move is taken back.')),
      }, 'Accept the takeback'),
      h('button', { type: 'button', onclick: () => send('takeback/decline', () => 'You declined the takeback.') }, 'Decline'),
    ];
  }

  function drawTools() {
    const buttons = [];
    if (game.status === 'open' && !token()) {
      buttons.push(h('a', { href: '#/signin' }, 'Sign in to join'));
    } else if (game.status === 'open') {
      const seated = game.your_seat !== null;
      buttons.push(h('button', {
        type: 'button',
        onclick: () => post(`/api/v1/games/${id}/${seated ? 'leave' : 'join'}`, {})
          .then(() => (seated ? app.navigate('#/lobby', `You left game #${id}.`) : refresh()))
          .catch((e) => show(e.message, 'error')),
      }, seated ? 'Leave this game' : 'Join this game'));
    }
    if (game.status === 'active' && game.your_seat !== null && !game.forfeited.includes(game.your_seat)) {
      if (!game.to_act.includes(game.your_seat)) {
        buttons.push(h('button', {
          type: 'button',
          onclick: () => post(`/api/v1/games/${id}/nudge`, {})
            .then(() => show('A reminder is on its way to the players the game waits for.'))
            .catch((e) => show(e.message, 'error')),
        }, 'Nudge'));
      }
      const confirm = h('span', { hidden: true, class: 'confirm' }, 'Really give up? ',
        h('button', {
          type: 'button', class: 'danger',
          onclick: () => post(`/api/v1/games/${id}/resign`, {})
            .then((g) => { setGame(g, null); show('You resigned.'); })
            .catch((e) => show(e.message, 'error')),
        }, 'Yes, resign'), ' ',
        h('button', { type: 'button', onclick: () => { confirm.hidden = true; resign.focus(); } }, 'No'));
      const resign = h('button', { type: 'button', onclick: () => { confirm.hidden = false; confirm.querySelector('button').focus(); } }, 'Resign…');
      buttons.push(resign, confirm);
      buttons.push(...takebackTools());
      // The computer took the seat when its time ran out: one click takes it back.
      if (game.seats.some((x) => x.seat === game.your_seat && x.bot)) {
        buttons.push(h('p', { class: 'takeback' }, 'Your time ran out and the computer is playing your seat.'),
          h('button', {
            type: 'button',
            class: 'primary',
            onclick: () => post(`/api/v1/games/${id}/resume`, {})
              .then((g) => { setGame(g, null); show('Your seat is yours again.'); })
              .catch((e) => show(e.message, 'error')),
          }, 'Take my seat back'));
      }
    }
    if (game.status === 'finished' && game.your_seat !== null) {
      // One click: the same players, seats rotated; a rematch someone asked for already
      // is simply opened.
      buttons.push(game.rematch
        ? h('a', { href: `#/game/${game.rematch}` }, `Go to the rematch (game #${game.rematch})`)
        : h('button', {
          type: 'button',
          onclick: () => post(`/api/v1/games/${id}/rematch`, {})
            .then((g) => app.navigate(`#/game/${g.id}`, `Rematch: game #${g.id}, the seats rotated by one.`))
            .catch((e) => show(e.message, 'error')),
        }, 'Rematch'));
    }
    buttons.push(h('a', { href: `#/rules/${encodeURIComponent(game.game_type)}` }, 'Rules'));
    fill(tools, buttons);
  }

  await refresh();
  if (startAt !== null && game.status !== 'open') past.go(startAt);

  // The players' chat, beside the log; spectators have none.
  const chat = chatPanel(game, show);
  if (chat) log.after(chat.el);

  // Live: refresh when the stream says this game changed; poll (cheap 304s) as a safety
  // net, often while the stream is down and every 20 s while it is up (an event lost
  // under load, as on a loaded 2-core machine, then costs 20 s rather than a minute).
  let lastRead = Date.now();
  const reread = () => {
    lastRead = Date.now();
    refresh().catch(() => {});
  };
  const unsubscribe = live.subscribe((kind, data) => {
    // A chat message changes nothing of the game (the chat panel takes it).
    if (kind === 'chat_message') return;
    if (data.id === undefined || data.id === id) reread();
  });
  // A spectator (signed in without a seat, or not signed in) follows this game's own
  // stream, which carries only what anyone may know: version, status, whose turn. It is
  // shared with the browser's other tabs (see live.js).
  const watch = game.your_seat === null ? live.watchGame(id, (data) => {
    if (data.version !== game.version || data.status !== game.status) reread();
  }) : null;
  const streaming = () => live.connected() || (watch !== null && watch.open());
  const timer = setInterval(() => {
    if (!streaming() || Date.now() - lastRead > 20000) reread();
  }, 5000);
  return () => {
    closed = true;
    past.stop();
    if (noteTimer) saveNote().catch(() => {});
    if (watch) watch.stop();
    if (chat) chat.stop();
    clearInterval(timer);
    window.removeEventListener('resize', onResize);
    unsubscribe();
    if (editorCleanup) editorCleanup();
  };
}
