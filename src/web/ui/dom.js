/**
 * Tiny DOM helpers for the web UI. Everything the API returns is put into
 * the page as text nodes or attributes, never as HTML, so a module name or a
 * log message cannot inject markup.
 */

/**
 * Create an element. `attrs` keys: `class`, `text`, `on<event>` (listener),
 * `dataset` (object), boolean DOM properties (`disabled`, `checked`,
 * `hidden`, `selected`, `required`) and any other attribute (set as a
 * string; null/undefined/false leave it out). Children may be nodes,
 * strings, numbers, arrays of those, or null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (BOOLEAN_PROPS.has(key)) el[key] = Boolean(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Replace all children of `el` with `children` (same forms as `h`). */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A definition list from [term, value] pairs; values may be nodes or text. */
export function facts(pairs, className = 'facts') {
  return h(
    'dl',
    { class: className },
    pairs.filter(Boolean).map(([term, value]) => [h('dt', { text: term }), h('dd', {}, value ?? '—')]),
  );
}

/** Format an ISO date as local date and time; returns the input when it does not parse. */
export function formatDate(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A `<time>` element showing the local time, with the ISO text as its datetime. */
export function timeEl(iso) {
  if (!iso) return h('span', { text: '—' });
  return h('time', { datetime: iso, title: iso, text: formatDate(iso) });
}

/** A unique id for label/control pairs. */
let counter = 0;
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

const BOOLEAN_PROPS = new Set(['disabled', 'checked', 'hidden', 'selected', 'required', 'open']);

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}
