// A form for a game type's `options_schema` (JSON Schema): one control per property,
// defaults filled in. Booleans are checkboxes, numbers number fields (empty = the default,
// or null where the schema allows it), enumerations selects, strings text fields.

import { h, humanize, nextId } from './dom.js';

function types(prop) {
  return Array.isArray(prop.type) ? prop.type : [prop.type];
}

function choices(prop) {
  if (Array.isArray(prop.enum)) return prop.enum.filter((v) => v !== null);
  const alts = prop.oneOf || prop.anyOf;
  if (Array.isArray(alts) && alts.every((a) => 'const' in a)) return alts.map((a) => a.const);
  return null;
}

/**
 * Returns `{element, value(), players(n)}`; `value()` is the options object to send.
 * `players(n)` hides the options the schema offers only for other player counts
 * (`x-players`), which then keep their defaults.
 */
export function schemaForm(schema) {
  const props = Object.entries((schema && schema.properties) || {});
  const readers = [];
  const forPlayers = [];
  const rows = props.map(([name, prop]) => {
    const before = readers.length;
    const row = control(name, prop, readers);
    const reader = readers.length > before ? readers[readers.length - 1] : null;
    if (Array.isArray(prop['x-players'])) forPlayers.push([row, prop['x-players'], reader]);
    return row;
  });
  const hidden = new Set();
  return {
    element: h('div', { class: 'options' }, rows.length ? rows : h('p', { class: 'hint' }, 'This game has no options.')),
    value: () => Object.fromEntries(readers.filter((r) => !hidden.has(r)).map((r) => r()).filter(Boolean)),
    players: (n) => {
      for (const [row, counts, reader] of forPlayers) {
        row.hidden = !counts.includes(n);
        if (row.hidden) hidden.add(reader); else hidden.delete(reader);
      }
    },
  };
}

/** One option's control; pushes its reader (if it can edit the option) onto `readers`. */
function control(name, prop, readers) {
  const id = nextId('opt');
  const hintId = `${id}-hint`;
  const hint = prop.description ? h('small', { id: hintId, class: 'hint' }, prop.description.replace(/\n/g, ' ')) : null;
  const described = hint ? hintId : false;
  const label = prop.title || humanize(name);
  const t = types(prop);
  const opts = choices(prop);
  if (t.includes('boolean')) {
    const input = h('input', { id, type: 'checkbox', checked: prop.default === true, 'aria-describedby': described });
    readers.push(() => [name, input.checked]);
    return h('div', { class: 'field check' }, input, h('label', { for: id }, ` ${label}`), hint);
  }
  let input;
  if (opts) {
    input = h('select', { id, 'aria-describedby': described },
      opts.map((v) => h('option', { value: JSON.stringify(v), selected: v === prop.default }, humanize(v))));
    readers.push(() => [name, JSON.parse(input.value)]);
  } else if (t.includes('integer') || t.includes('number')) {
    input = h('input', {
      id, type: 'number', inputmode: 'numeric', step: t.includes('integer') ? 1 : 'any',
      min: prop.minimum ?? false, max: prop.maximum ?? false,
      value: prop.default ?? '', placeholder: prop.default === null ? 'none' : false,
      'aria-describedby': described,
    });
    readers.push(() => (input.value === '' ? null : [name, Number(input.value)]));
  } else if (t.includes('string')) {
    input = h('input', { id, type: 'text', value: prop.default ?? '', 'aria-describedby': described });
    readers.push(() => (input.value === '' ? null : [name, input.value]));
  } else {
    return h('p', { class: 'hint' }, `${label}: the default is used (this form cannot edit it).`);
  }
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint);
}
