// Small helpers to build the page without innerHTML (text is always text).

/** h('button', {class: 'x', onclick: fn}, 'text', child, ...) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's content. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
/** A page-unique id, for labels and aria references. */
export const nextId = (prefix = 'id') => `${prefix}-${++uid}`;

/**
 * A board picture (SVG text from the server) as an inline element that scales with its
 * container. Its ids get a unique prefix, so two pictures on one page do not collide.
 */
export function svgPicture(text) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
    return h('p', { class: 'error' }, 'The picture could not be read.');
  }
  const prefix = nextId('pic') + '-';
  for (const s of svg.querySelectorAll('script, foreignObject')) s.remove();
  for (const el of [svg, ...svg.querySelectorAll('*')]) {
    for (const a of [...el.attributes]) {
      if (a.name.startsWith('on')) el.removeAttribute(a.name);
      else if (a.name === 'id') a.value = prefix + a.value;
      else if (a.value.includes('url(#')) a.value = a.value.replaceAll('url(#', `url(#${prefix}`);
      else if (a.localName === 'href' && a.value.startsWith('#')) a.value = `#${prefix}${a.value.slice(1)}`;
    }
  }
  const labelled = svg.getAttribute('aria-labelledby');
  if (labelled) svg.setAttribute('aria-labelledby', labelled.split(/\s+/).map((x) => prefix + x).join(' '));
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  svg.classList.add('picture');
  return document.importNode(svg, true);
}

/** "2 d 5 h", "3 h 12 min", "40 min" for a clock in milliseconds. */
export function duration(ms) {
  const min = Math.max(0, Math.floor(ms / 60000));
  const d = Math.floor(min / 1440);
  const hrs = Math.floor((min % 1440) / 60);
  if (d > 0) return `${d} d ${hrs} h`;
  if (hrs > 0) return `${hrs} h ${min % 60} min`;
  return `${min} min`;
}

export function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A compact time: "14:05" today, "Nov 23, 14:05" before. */
export function shortWhen(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const today = d.toDateString() === new Date().toDateString();
  return d.toLocaleString(undefined, today ? { timeStyle: 'short' } : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** A game type's name, from the list of types (falls back to the id). */
export function typeName(types, id) {
  return (types.find((t) => t.id === id) || { name: id }).name;
}

/** `take_display` → "Take display". */
export function humanize(s) {
  const t = String(s).replace(/[_-]+/g, ' ').trim();
  return t.charAt(0).toUpperCase() + t.slice(1);
}

const SUITS = { C: '♣', D: '♦', H: '♥', S: '♠' };
/** A card or tile as people read it: "QC" → "Q♣"; objects with a label show the label. */
export function pieceText(p) {
  if (p && typeof p === 'object') return p.label || p.name || p.card || JSON.stringify(p);
  const m = /^(10|[2-9AJQKT])([CDHS])$/.exec(String(p));
  return m ? m[1] + SUITS[m[2]] : String(p).replace(/_/g, ' ');
}
