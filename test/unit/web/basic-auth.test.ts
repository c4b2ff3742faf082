import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readBasicCredentials, MAX_AUTH_HEADER } from '../../../src/web/basic-auth.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

void describe('readBasicCredentials', () => {
  void it('reads user and password, with a colon in the password and UTF-8', () => {
    assert.deepEqual(readBasicCredentials(`Basic ${b64('root:a:b')}`), {
      kind: 'basic',
      user: 'root',
      password: 'a:b',
    });
    assert.deepEqual(readBasicCredentials(`basic ${b64('zoë:pässword')}`), {
      kind: 'basic',
      user: 'zoë',
      password: 'pässword',
    });
  });

  void it('tells a missing header from an invalid one', () => {
    assert.deepEqual(readBasicCredentials(undefined), { kind: 'none' });
    assert.deepEqual(readBasicCredentials(''), { kind: 'none' });
    assert.deepEqual(readBasicCredentials('Bearer abc'), { kind: 'invalid', reason: 'scheme' });
    assert.deepEqual(readBasicCredentials('Digest x'), { kind: 'invalid', reason: 'scheme' });
    assert.deepEqual(readBasicCredentials(`Basic ${b64('nocolon')}`), { kind: 'invalid', reason: 'malformed' });
    assert.deepEqual(readBasicCredentials(`Basic ${b64(':pw')}`), { kind: 'invalid', reason: 'malformed' });
    assert.deepEqual(readBasicCredentials(`Basic ${'A'.repeat(MAX_AUTH_HEADER)}`), {
      kind: 'invalid',
      reason: 'too-long',
    });
  });
});
