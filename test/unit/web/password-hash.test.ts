import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, isHashed, parseHash, verifyPassword } from '../../../src/web/password-hash.js';

void describe('password-hash', () => {
  void it('hashes in the pbkdf2-sha256$iterations$salt$hash form and verifies it', async () => {
    const stored = await hashPassword('s3cret', 1000);
    assert.match(stored, /^pbkdf2-sha256\$1000\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    assert.ok(isHashed(stored));
    assert.equal(await verifyPassword('s3cret', stored), true);
    assert.equal(await verifyPassword('s3cret ', stored), false);
    assert.equal(await verifyPassword('', stored), false);
  });

  void it('uses a new salt every time', async () => {
    assert.notEqual(await hashPassword('same', 1000), await hashPassword('same', 1000));
  });

  void it('accepts plain text stored passwords', async () => {
    assert.equal(await verifyPassword('plain', 'plain'), true);
    assert.equal(await verifyPassword('plain', 'plainer'), false);
    assert.equal(await verifyPassword('Plain', 'plain'), false);
  });

  void it('never verifies an empty stored password, an unknown user or a malformed hash', async () => {
    assert.equal(await verifyPassword('', ''), false);
    assert.equal(await verifyPassword('x', ''), false);
    assert.equal(await verifyPassword('x', undefined), false);
    assert.equal(await verifyPassword('', undefined), false);
    for (const bad of [
      'pbkdf2-sha256$',
      'pbkdf2-sha256$0$00$00',
      'pbkdf2-sha256$1000$zz$' + 'a'.repeat(64),
      'pbkdf2-sha256$99999999999$00$' + 'a'.repeat(64),
    ]) {
      assert.equal(parseHash(bad), undefined, bad);
      assert.equal(await verifyPassword(bad, bad), false, 'a malformed hash is not compared as plain text');
    }
  });
});
