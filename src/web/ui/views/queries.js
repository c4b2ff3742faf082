/**
 * Queries view: the list of queries (queries.list) with a filter, and for
 * the chosen one a form for its arguments that follows its execute_url
 * (queries.execute). The result shows its status word and colour, each
 * line's message and its performance data as bars. `#queries/<name>`
 * opens a query directly.
 */
import { h, replace, uid } from '../dom.js';
import { argumentsQuery } from '../api.js';
import { viewHeader, errorNotice, forbiddenNotice, statusOf, refreshButton } from './common.js';
import { perfBars } from './perf-bars.js';

export function mountQueries(root, { api, index, announce, param, allowed, can }) {
  const filterId = uid('filter');
  const filter = h('input', {
    id: filterId,
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    oninput: () => applyFilter(),
  });
  const list = h('ul', { class: 'query-list' });
  const listBox = h('div', { class: 'query-list-box' });
  const runner = h(
    'section',
    { class: 'card runner', 'aria-label': 'Run a query' },
    h('p', { class: 'hint', text: 'Choose a query from the list.' }),
  );
  let queries = [];
  let disposed = false;

  replace(
    root,
    viewHeader(
      'Queries',
      refreshButton(() => refresh()),
    ),
    h(
      'div',
      { class: 'queries-layout' },
      h(
        'section',
        { class: 'card', 'aria-label': 'Query list' },
        h('div', { class: 'field' }, h('label', { for: filterId, text: 'Filter queries' }), filter),
        listBox,
      ),
      runner,
    ),
  );
  // The sign-in probe already got 403: say so without asking again (Refresh retries).
  if (!allowed) replace(listBox, errorNotice({ status: 403 }, 'the query list', 'queries.list'));
  else refresh();

  async function refresh() {
    try {
      queries = await api.json(index.queries_url);
      if (disposed) return;
      queries.sort((a, b) => a.name.localeCompare(b.name));
      replace(
        list,
        queries.map((q) =>
          h(
            'li',
            { dataset: { query: q.name } },
            h(
              'button',
              {
                type: 'button',
                class: 'query-pick',
                'aria-describedby': `q-${q.name}-title`,
                onclick: () => choose(q, true),
              },
              q.name,
            ),
            h('span', {
              id: `q-${q.name}-title`,
              class: 'hint',
              text: [q.title, q.module].filter(Boolean).join(' · '),
            }),
          ),
        ),
      );
      replace(
        listBox,
        queries.length ? list : h('p', { text: 'No queries: no module that provides queries is loaded.' }),
      );
      applyFilter();
      const wanted = queries.find((q) => q.name === param);
      if (wanted) choose(wanted, false);
    } catch (err) {
      if (!disposed) replace(listBox, errorNotice(err, 'the query list', 'queries.list'));
    }
  }

  function applyFilter() {
    const needle = filter.value.trim().toLowerCase();
    for (const li of list.children) {
      const q = queries.find((x) => x.name === li.dataset.query);
      li.hidden = needle !== '' && !`${q?.name} ${q?.title} ${q?.module}`.toLowerCase().includes(needle);
    }
  }

  function choose(q, focus) {
    param = q.name;
    history.replaceState(null, '', `#queries/${encodeURIComponent(q.name)}`);
    for (const li of list.children) li.classList.toggle('chosen', li.dataset.query === q.name);
    const argsId = uid('args');
    const args = h('textarea', {
      id: argsId,
      name: 'arguments',
      rows: '3',
      spellcheck: 'false',
      autocapitalize: 'none',
      'aria-describedby': `${argsId}-hint`,
    });
    const run = h('button', { type: 'submit', text: 'Run' });
    const result = h('div', { class: 'result-box', 'aria-live': 'polite' });
    const form = h(
      'form',
      { class: 'run-form' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: argsId, text: 'Arguments' }),
        args,
        h('p', {
          id: `${argsId}-hint`,
          class: 'hint',
          text: 'One argument per line: key=value or a single word. Ctrl+Enter runs.',
        }),
      ),
      run,
    );
    args.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) form.requestSubmit();
    });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      run.disabled = true;
      run.textContent = 'Running…';
      result.setAttribute('aria-busy', 'true');
      const started = performance.now();
      try {
        const query = argumentsQuery(args.value.split('\n').map((a) => a.trim()));
        const url = query ? `${q.execute_url}${q.execute_url.includes('?') ? '&' : '?'}${query}` : q.execute_url;
        const answer = await api.json(url);
        if (disposed) return;
        replace(result, renderResult(answer, Math.round(performance.now() - started)));
        announce(`${answer.command ?? q.name}: ${statusOf(answer.result).word}`);
      } catch (err) {
        if (!disposed) replace(result, errorNotice(err, 'running queries', 'queries.execute'));
      } finally {
        run.disabled = false;
        run.textContent = 'Run';
        result.removeAttribute('aria-busy');
      }
    });
    // Running needs queries.execute: without it the query is described, not offered.
    const runnable = can('queries.execute');
    replace(
      runner,
      h('h2', { id: 'runner-heading' }, h('code', { text: q.name })),
      q.title || q.module
        ? h('p', { class: 'subtitle', text: [q.title, q.module && `(${q.module})`].filter(Boolean).join(' ') })
        : null,
      q.description ? h('p', { class: 'description', text: q.description }) : null,
      runnable ? [form, result] : forbiddenNotice('running queries', 'queries.execute'),
    );
    if (focus && runnable) args.focus();
  }

  return {
    dispose() {
      disposed = true;
    },
  };
}

function renderResult(answer, ms) {
  const status = statusOf(answer.result);
  const lines = Array.isArray(answer.lines) ? answer.lines : [];
  return h(
    'div',
    { class: `check-result status-${status.css}`, dataset: { status: status.word } },
    h(
      'p',
      { class: 'status-line' },
      h('span', { class: 'badge', text: status.word }),
      ' ',
      h('code', { text: answer.command ?? '' }),
      h('span', { class: 'hint', text: ` exit code ${answer.result} · ${ms} ms` }),
    ),
    lines.length === 0 ? h('p', { class: 'hint', text: 'No output.' }) : null,
    lines.map((line) =>
      h('div', { class: 'check-line' }, h('pre', { class: 'message', text: line.message ?? '' }), perfBars(line.perf)),
    ),
  );
}
