/**
 * Settings view (settings.get): the effective settings as the agent runs
 * them, one table per section, each value with where it comes from (the
 * file and line, an object it inherits from, or the schema default), as
 * `agent settings show` prints them. Secrets arrive masked (`******`) from
 * the API. A filter narrows sections and keys; values from the file and
 * defaults are told apart in the origin column.
 */
import { h, replace, uid } from '../dom.js';
import { viewHeader, errorNotice, refreshButton } from './common.js';

export function mountSettings(root, { api, index, allowed }) {
  const filterId = uid('settings-filter');
  const filter = h('input', {
    id: filterId,
    type: 'search',
    spellcheck: 'false',
    autocapitalize: 'none',
    oninput: () => render(),
  });
  const box = h('div', { class: 'settings-box' });
  const where = h('p', { class: 'hint', 'aria-live': 'polite' });
  let entries = [];
  let disposed = false;

  replace(
    root,
    viewHeader(
      'Settings',
      refreshButton(() => load()),
    ),
    h('p', {
      class: 'hint',
      text: 'The settings in force, with the file and line each value comes from ("default": the schema default). Secrets show as ******. Edit the settings file (or use the API) to change them.',
    }),
    h('div', { class: 'field field-inline' }, h('label', { for: filterId, text: 'Filter settings' }), filter),
    where,
    box,
  );
  if (!allowed) replace(box, errorNotice({ status: 403 }, 'the settings', 'settings.get'));
  else load();

  async function load() {
    box.setAttribute('aria-busy', 'true');
    try {
      const url = new URL(index.settings_url);
      url.searchParams.set('origins', 'true');
      entries = await api.json(url.href);
      if (!disposed) render();
    } catch (err) {
      if (!disposed) replace(box, errorNotice(err, 'the settings', 'settings.get'));
    } finally {
      box.removeAttribute('aria-busy');
    }
  }

  function render() {
    const needle = filter.value.trim().toLowerCase();
    const shown = entries.filter(
      (e) => needle === '' || `${e.path} ${e.key} ${e.value}`.toLowerCase().includes(needle),
    );
    const sections = new Map();
    for (const e of shown) sections.set(e.path, [...(sections.get(e.path) ?? []), e]);
    where.textContent = `${shown.length} of ${entries.length} values in ${sections.size} sections`;
    if (shown.length === 0) return replace(box, h('p', { text: 'No setting matches the filter.' }));
    replace(
      box,
      [...sections].map(([path, rows]) =>
        h(
          'section',
          { class: 'card settings-section', 'aria-label': path },
          h('h2', {}, h('code', { text: `[${path}]` })),
          h(
            'table',
            { class: 'settings stack' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Key', 'Value', 'From'].map((t) => h('th', { scope: 'col', text: t })),
              ),
            ),
            h(
              'tbody',
              {},
              rows.map((e) =>
                h(
                  'tr',
                  { class: e.origin === 'default' ? 'from-default' : 'from-file' },
                  h('td', { dataset: { label: 'Key' } }, h('code', { text: e.key })),
                  h('td', { class: 'setting-value', dataset: { label: 'Value' }, text: e.value }),
                  h('td', { class: 'setting-origin', dataset: { label: 'From' }, text: e.origin ?? '' }),
                ),
              ),
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
