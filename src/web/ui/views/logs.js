/**
 * Logs view (logs.list): newest entries first, a level filter, a page
 * size, and paging that follows the rel="first|prev|next|last" URLs of the
 * Link header (never building page URLs itself after the first request).
 */
import { h, replace, timeEl, uid } from '../dom.js';
import { viewHeader, errorNotice, refreshButton } from './common.js';

const LEVELS = ['critical', 'error', 'warning', 'info', 'debug'];
const SIZES = ['10', '20', '50', '100'];

export function mountLogs(root, { api, index, allowed }) {
  const checks = LEVELS.map((level) => {
    const id = uid(`level-${level}`);
    const input = h('input', { type: 'checkbox', id, value: level, checked: true, onchange: () => first() });
    return {
      level,
      input,
      el: h(
        'span',
        { class: 'check' },
        input,
        h('label', { for: id }, h('span', { class: `level level-${level}`, text: level })),
      ),
    };
  });
  const sizeId = uid('per-page');
  const size = h(
    'select',
    { id: sizeId, onchange: () => first() },
    SIZES.map((n) => h('option', { value: n, selected: n === '20', text: n })),
  );
  const pager = h('nav', { class: 'pager', 'aria-label': 'Log pages' });
  const table = h('div', { class: 'log-box' });
  const where = h('p', { class: 'pager-where', 'aria-live': 'polite' });
  let currentUrl = null;
  let disposed = false;

  replace(
    root,
    viewHeader(
      'Logs',
      refreshButton(() => load(currentUrl ?? firstUrl())),
    ),
    h(
      'form',
      { class: 'log-filter', onsubmit: (e) => e.preventDefault() },
      h(
        'fieldset',
        {},
        h('legend', { text: 'Levels' }),
        checks.map((c) => c.el),
      ),
      h('div', { class: 'field field-inline' }, h('label', { for: sizeId, text: 'Entries per page' }), size),
    ),
    where,
    pager,
    table,
  );
  // The sign-in probe already got 403: say so without asking again (Refresh retries).
  if (!allowed) replace(table, errorNotice({ status: 403 }, 'the logs', 'logs.list'));
  else first();

  function firstUrl() {
    const url = new URL(index.logs_url);
    url.searchParams.set('page', '1');
    url.searchParams.set('per_page', size.value);
    const levels = checks.filter((c) => c.input.checked).map((c) => c.level);
    if (levels.length < LEVELS.length) url.searchParams.set('level', levels.join(','));
    else url.searchParams.delete('level');
    return url.href;
  }

  function first() {
    if (checks.every((c) => !c.input.checked)) {
      replace(pager);
      where.textContent = '';
      replace(table, h('p', { class: 'notice', text: 'Choose at least one level.' }));
      return;
    }
    load(firstUrl());
  }

  async function load(url) {
    currentUrl = url;
    table.setAttribute('aria-busy', 'true');
    try {
      const page = await api.page(url);
      if (disposed || url !== currentUrl) return;
      renderPage(page);
    } catch (err) {
      if (disposed) return;
      replace(pager);
      where.textContent = '';
      replace(table, errorNotice(err, 'the logs', 'logs.list'));
    } finally {
      table.removeAttribute('aria-busy');
    }
  }

  function renderPage(page) {
    const pages =
      Number.isFinite(page.count) && Number.isFinite(page.limit) && page.limit > 0
        ? Math.max(1, Math.ceil(page.count / page.limit))
        : NaN;
    where.textContent = Number.isFinite(page.page)
      ? `Page ${page.page}${Number.isFinite(pages) ? ` of ${pages}` : ''}${Number.isFinite(page.count) ? ` · ${page.count} entries` : ''}`
      : '';
    const focused = document.activeElement?.dataset?.rel;
    replace(
      pager,
      [
        ['first', 'First'],
        ['prev', 'Previous'],
        ['next', 'Next'],
        ['last', 'Last'],
      ].map(([rel, label]) =>
        h('button', {
          type: 'button',
          class: 'secondary',
          dataset: { rel },
          disabled: !page.links[rel] || (rel === 'first' && page.page === 1) || (rel === 'last' && page.page === pages),
          onclick: () => load(page.links[rel]),
          text: label,
        }),
      ),
    );
    // Keep the keyboard on the pager; fall back to a neighbour when the used button is now disabled.
    if (focused) {
      const buttons = [...pager.querySelectorAll('button')];
      const target = buttons.find((b) => b.dataset.rel === focused && !b.disabled) ?? buttons.find((b) => !b.disabled);
      target?.focus();
    }
    if (page.items.length === 0) return replace(table, h('p', { text: 'No log entries for these levels.' }));
    replace(
      table,
      h(
        'table',
        { class: 'logs stack' },
        h('caption', { class: 'visually-hidden', text: 'Log entries, newest first' }),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['#', 'Time', 'Level', 'Source', 'Message'].map((t) => h('th', { scope: 'col', text: t })),
          ),
        ),
        h(
          'tbody',
          {},
          page.items.map((e) =>
            h(
              'tr',
              { class: `log-${e.level}` },
              h('td', { class: 'num', dataset: { label: '#' }, text: String(e.index) }),
              h('td', { class: 'log-time', dataset: { label: 'Time' } }, timeEl(e.date)),
              h(
                'td',
                { class: 'log-level', dataset: { label: 'Level' } },
                h('span', { class: `level level-${e.level}`, text: e.level }),
              ),
              h(
                'td',
                { class: 'log-source', dataset: { label: 'Source' } },
                h('code', { text: e.namespace }),
                e.file ? h('span', { class: 'hint', text: ` ${e.file}${e.line ? `:${e.line}` : ''}` }) : null,
              ),
              h('td', { class: 'log-message', dataset: { label: 'Message' }, text: e.message }),
            ),
          ),
        ),
      ),
    );
  }

  return {
    dispose() {
      disposed = true;
    },
  };
}
