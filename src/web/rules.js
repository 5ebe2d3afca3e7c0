// A game type's rules (GET /api/v1/game-types/{id}/rules), Markdown rendered simply:
// headings, paragraphs, lists, tables, code, emphasis and links. Text stays text.

import { get, gameTypes } from './api.js';
import { h, fill, typeName } from './dom.js';

/** Inline Markdown (`code`, **strong**, *em*, [link](url)) as DOM nodes. */
function inline(text) {
  const out = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(h('code', {}, m[1]));
    else if (m[2] !== undefined) out.push(h('strong', {}, m[2]));
    else if (m[3] !== undefined) out.push(h('em', {}, m[3]));
    else {
      // Links to other repository files mean nothing here; keep their text.
      const href = m[5];
      out.push(/^(https?:|#)/.test(href) ? h('a', { href, rel: 'noopener' }, m[4]) : m[4]);
    }
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

const cells = (line) => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

export function markdown(src) {
  const lines = src.replace(/\r/g, '').split('\n');
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const code = [];
      for (i += 1; i < lines.length && !/^```/.test(lines[i]); i += 1) code.push(lines[i]);
      i += 1;
      out.push(h('pre', {}, h('code', {}, code.join('\n'))));
    } else if (/^#{1,6}\s/.test(line)) {
      const level = Math.min(6, line.match(/^#+/)[0].length + 1);
      out.push(h(`h${level}`, {}, inline(line.replace(/^#+\s*/, ''))));
      i += 1;
    } else if (/^\s*\|/.test(line) && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}/.test(lines[i + 1])) {
      const head = cells(line);
      const rows = [];
      for (i += 2; i < lines.length && /^\s*\|/.test(lines[i]); i += 1) rows.push(cells(lines[i]));
      out.push(h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, inline(c))))),
        h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, inline(c)))))))));
    } else if (/^\s*([-*]|\d+\.)\s/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      while (i < lines.length && /^\s*([-*]|\d+\.)\s/.test(lines[i])) {
        let item = lines[i].replace(/^\s*([-*]|\d+\.)\s+/, '');
        // Continuation lines, indented under the item.
        for (i += 1; i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*]|\d+\.)\s/.test(lines[i]); i += 1) {
          item += ` ${lines[i].trim()}`;
        }
        items.push(h('li', {}, inline(item)));
      }
      out.push(h(ordered ? 'ol' : 'ul', {}, items));
    } else if (/^>\s?/.test(line)) {
      const quote = [];
      for (; i < lines.length && /^>\s?/.test(lines[i]); i += 1) quote.push(lines[i].replace(/^>\s?/, ''));
      out.push(h('blockquote', {}, inline(quote.join(' '))));
    } else if (line.trim() === '') {
      i += 1;
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() !== '' && !/^(#{1,6}\s|```|\s*\||\s*([-*]|\d+\.)\s|>)/.test(lines[i]); i += 1) {
        para.push(lines[i].trim());
      }
      if (!para.length) {
        para.push(line);
        i += 1;
      }
      out.push(h('p', {}, inline(para.join(' '))));
    }
  }
  return out;
}

export async function rulesPage(main, [type]) {
  const [types, text] = await Promise.all([
    gameTypes().catch(() => []),
    get(`/api/v1/game-types/${encodeURIComponent(type || '')}/rules`, { auth: false }),
  ]);
  fill(main, h('h1', {}, `Rules: ${typeName(types, type)}`), h('article', { class: 'rules' }, markdown(String(text))));
}
