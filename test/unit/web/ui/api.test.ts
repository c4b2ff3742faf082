/**
 * The pure helpers of the web UI's api.js (a browser ES module, loaded here
 * from the source tree as it is served): Link header parsing, the query
 * string of a query execution, and the Basic header.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

interface UiApi {
  parseLink(header: string | null): Record<string, string>;
  argumentsQuery(args: string[]): string;
  basicAuth(user: string, password: string): string;
}

// dist/test/unit/web/ui/ → repo root is five levels up.
const API_JS = new URL('../../../../../src/web/ui/api.js', import.meta.url).href;

void describe('web UI api.js helpers', () => {
  let api: UiApi;
  before(async () => {
    api = (await import(API_JS)) as UiApi;
  });

  void it('parses every rel of a Link header and keeps the URLs as given', () => {
    const header =
      '<https://h:1/api/v1/logs?page=1&per_page=3&level=warning>; rel="first", <https://h:1/api/v1/logs?page=2&per_page=3&level=warning>; rel="next", ' +
      '<https://h:1/api/v1/logs?page=9&per_page=3&level=warning>; rel=last';
    assert.deepEqual(api.parseLink(header), {
      first: 'https://h:1/api/v1/logs?page=1&per_page=3&level=warning',
      next: 'https://h:1/api/v1/logs?page=2&per_page=3&level=warning',
      last: 'https://h:1/api/v1/logs?page=9&per_page=3&level=warning',
    });
  });

  void it('gives {} for a missing or meaningless Link header', () => {
    assert.deepEqual(api.parseLink(null), {});
    assert.deepEqual(api.parseLink(''), {});
    assert.deepEqual(api.parseLink('garbage, <u>; title="x"'), {});
  });

  void it('turns arguments into query-string pairs: k=v stays, a bare word has no "="', () => {
    assert.equal(
      api.argumentsQuery(['warn=load > 80', 'show all', '', 'crit=90', 'x=a=b']),
      'warn=load%20%3E%2080&show%20all&crit=90&x=a%3Db',
    );
    assert.equal(api.argumentsQuery([]), '');
    assert.equal(api.argumentsQuery(['=lead']), '%3Dlead');
  });

  void it('encodes Basic credentials as UTF-8', () => {
    assert.equal(api.basicAuth('root', 'pässword'), `Basic ${Buffer.from('root:pässword', 'utf8').toString('base64')}`);
  });
});
