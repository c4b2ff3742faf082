/**
 * Pieces shared by the views: the view heading with its toolbar, the
 * "your role may not see this" notice, error notices, and status words
 * and colours of check results.
 */
import { h } from '../dom.js';

/** Check result codes → word and CSS modifier. Anything else is UNKNOWN. */
export const STATUS = [
  { word: 'OK', css: 'ok' },
  { word: 'WARNING', css: 'warning' },
  { word: 'CRITICAL', css: 'critical' },
  { word: 'UNKNOWN', css: 'unknown' },
];

export function statusOf(result) {
  return STATUS[result] ?? STATUS[3];
}

/** The view's heading (focusable target) and a toolbar of controls. */
export function viewHeader(title, ...tools) {
  return h(
    'div',
    { class: 'view-header' },
    h('h1', { tabindex: '-1', text: title }),
    h('div', { class: 'toolbar' }, tools),
  );
}

/** A notice saying that the signed-in role lacks `privilege` for `what`. */
export function forbiddenNotice(what, privilege) {
  return h(
    'p',
    { class: 'notice notice-locked', role: 'note' },
    h('strong', { text: 'Not allowed: ' }),
    `your role does not have the privilege for ${what}`,
    privilege ? [' (', h('code', { text: privilege }), ')'] : null,
    '. Ask an administrator to grant it in [/settings/web/roles].',
  );
}

/** An alert for a failed call; a 403 becomes the privilege notice when `what` is given. */
export function errorNotice(err, what, privilege) {
  if (err && err.status === 403 && what) return forbiddenNotice(what, privilege);
  const message = err instanceof Error ? err.message : String(err);
  const code = err && err.code && !String(err.code).startsWith('HTTP_') && err.code !== 'network' ? err.code : null;
  return h(
    'p',
    { class: 'notice notice-error', role: 'alert' },
    h('strong', { text: 'Error: ' }),
    message,
    code ? [' ', h('code', { text: code })] : null,
  );
}

/** A small yes/no badge. */
export function flag(value, yes = 'yes', no = 'no') {
  return h('span', { class: `flag ${value ? 'flag-on' : 'flag-off'}`, text: value ? yes : no });
}

/** A refresh button calling `onClick`. */
export function refreshButton(onClick, label = 'Refresh') {
  return h('button', { type: 'button', class: 'secondary', onclick: onClick, text: label });
}

/** Shorten a hash for display; the full text goes into the title attribute. */
export function shortHash(hash) {
  if (!hash) return h('span', { text: '—' });
  return h('code', { title: hash, text: hash.length > 12 ? `${hash.slice(0, 12)}…` : hash });
}
