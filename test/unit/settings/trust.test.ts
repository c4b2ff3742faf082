/**
 * Which keys a pull must be signed by (settings/source/trust.ts): no key
 * file, no requirement; the id follows the files' content (a key removed
 * is a new id); an unreadable key file is AGENT_ERR_SOURCE_SIGNATURE; a
 * verifier's failure is an answer with what it said, never a rejection.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../../src/errors.js';
import { runVerifier, signaturesRequired, trustId } from '../../../src/settings/source/trust.js';

const dir = mkdtempSync(join(tmpdir(), 'trust-'));
const url = 'https://example.invalid/a.ini';

void describe('settings/source/trust.ts', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('no key file: nothing required, id empty', () => {
    const none = { url, allowedSigners: '', gpgKeyring: '' };
    assert.equal(signaturesRequired(none), false);
    assert.equal(trustId(none), '');
  });

  void it('the id follows the content of the key files', () => {
    const signers = join(dir, 'allowed_signers');
    writeFileSync(signers, 'a@example.invalid ssh-ed25519 AAAA1\n');
    const cfg = { url, allowedSigners: signers, gpgKeyring: '' };
    const first = trustId(cfg);
    assert.match(first, /^[0-9a-f]{64}$/);
    assert.equal(trustId(cfg), first);
    writeFileSync(signers, 'b@example.invalid ssh-ed25519 AAAA2\n');
    assert.notEqual(trustId(cfg), first);
  });

  void it('an unreadable key file refuses the pull with AGENT_ERR_SOURCE_SIGNATURE', () => {
    assert.throws(
      () => trustId({ url, allowedSigners: '', gpgKeyring: join(dir, 'missing.gpg') }),
      (err: unknown) => err instanceof AgentError && err.code === 'AGENT_ERR_SOURCE_SIGNATURE',
    );
  });

  void it('a verifier that fails answers with what it said; one that cannot run says why', async () => {
    const failed = await runVerifier('sh', ['-c', 'echo first >&2; echo last >&2; exit 1'], { timeoutMs: 5000 });
    assert.deepEqual([failed.ok, failed.said], [false, 'first; last']);
    const fed = await runVerifier('cat', [], { timeoutMs: 5000, input: Buffer.from('body') });
    assert.deepEqual([fed.ok, fed.stdout], [true, 'body']);
    const missing = await runVerifier('/nonexistent/verifier', [], { timeoutMs: 5000 });
    assert.equal(missing.ok, false);
    assert.match(missing.said, /ENOENT/);
  });
});
