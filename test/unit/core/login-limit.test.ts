import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuthRateLimiter, addressKey, limitsOf } from '../../../src/core/login-limit.js';

void describe('AuthRateLimiter', () => {
  void it('blocks an address after max failures for block seconds, then lets it try again', () => {
    let now = 1_000_000;
    const rl = new AuthRateLimiter({ maxFailures: 3, blockSeconds: 10 }, () => now);
    assert.equal(rl.acquire('10.0.0.1')?.fail(), false);
    assert.equal(rl.acquire('10.0.0.1')?.fail(), false);
    assert.equal(rl.isBlocked('10.0.0.1'), false);
    assert.equal(rl.acquire('10.0.0.1')?.fail(), true, 'the third failure starts the block');
    assert.equal(rl.isBlocked('10.0.0.1'), true);
    assert.equal(rl.acquire('10.0.0.1'), undefined, 'no slot while blocked');
    assert.equal(rl.isBlocked('10.0.0.2'), false, 'other addresses are not affected');
    assert.equal(rl.blockedCount(), 1);
    now += 9_999;
    assert.equal(rl.isBlocked('10.0.0.1'), true);
    now += 2;
    assert.equal(rl.isBlocked('10.0.0.1'), false);
    assert.equal(rl.acquire('10.0.0.1')?.fail(), false, 'the count starts again after a block');
  });

  void it('counts guesses in flight: no more than max failures are ever admitted at once', () => {
    const rl = new AuthRateLimiter({ maxFailures: 10, blockSeconds: 60 });
    const admitted = [];
    for (let i = 0; i < 300; i++) {
      const a = rl.acquire('10.0.0.1');
      if (a) admitted.push(a);
    }
    assert.equal(admitted.length, 10, 'only 10 of 300 parallel guesses get a slot');
    assert.equal(admitted.filter((a) => a.fail()).length, 1, 'the tenth failure starts the block');
    assert.equal(rl.acquire('10.0.0.1'), undefined);
    assert.ok(rl.acquire('10.0.0.2'), 'another address has its own slots');
  });

  void it('frees the slot of a success without clearing the failures', () => {
    const rl = new AuthRateLimiter({ maxFailures: 2, blockSeconds: 10 });
    rl.acquire('a')?.fail();
    const ok = rl.acquire('a');
    assert.ok(ok);
    assert.equal(rl.acquire('a'), undefined, 'one failure + one in flight = the limit');
    ok.succeed();
    ok.succeed();
    assert.equal(rl.acquire('a')?.fail(), true, 'a success does not buy more guesses');
    assert.equal(rl.isBlocked('a'), true);
  });

  void it('forgets failures when their window ends without a block', () => {
    let now = 0;
    const rl = new AuthRateLimiter({ maxFailures: 3, blockSeconds: 10 }, () => now);
    rl.acquire('a')?.fail();
    rl.acquire('a')?.fail();
    now = 10_000;
    assert.equal(rl.acquire('a')?.fail(), false, 'the window of the first two is over');
    assert.equal(rl.acquire('a')?.fail(), false);
    assert.equal(rl.acquire('a')?.fail(), true);
  });

  void it('settles an attempt once', () => {
    const rl = new AuthRateLimiter({ maxFailures: 2, blockSeconds: 10 });
    const a = rl.acquire('a');
    assert.ok(a);
    assert.equal(a.fail(), false);
    assert.equal(a.fail(), false, 'a second fail() counts nothing');
    assert.equal(rl.isBlocked('a'), false);
  });

  void it('is off when max failures is 0', () => {
    const rl = new AuthRateLimiter({ maxFailures: 0, blockSeconds: 10 });
    for (let i = 0; i < 100; i++) rl.acquire('a')?.fail();
    assert.equal(rl.isBlocked('a'), false);
    assert.ok(rl.acquire('a'));
  });

  void it('keeps a bounded number of addresses', () => {
    const rl = new AuthRateLimiter({ maxFailures: 2, blockSeconds: 10 });
    for (let i = 0; i < 10_050; i++) rl.acquire(`addr-${i}`)?.fail();
    rl.acquire('addr-0')?.fail();
    assert.equal(rl.isBlocked('addr-0'), false, 'the oldest entries were dropped');
    assert.equal(rl.acquire('addr-10049')?.fail(), true);
  });

  void it('wouldAdmit answers what taking a slot and freeing it at once would, without keeping an entry', () => {
    let now = 1_000_000;
    const rl = new AuthRateLimiter({ maxFailures: 2, blockSeconds: 10 }, () => now);
    assert.equal(rl.wouldAdmit('a'), true, 'an unknown address');
    const inFlight = rl.acquire('a');
    assert.equal(rl.wouldAdmit('a'), true, 'one of two slots taken');
    const second = rl.acquire('a');
    assert.equal(rl.wouldAdmit('a'), false, 'both slots in flight: acquire would refuse');
    second?.succeed();
    inFlight?.fail();
    assert.equal(rl.wouldAdmit('a'), true, 'one failure of two');
    rl.acquire('a')?.fail();
    assert.equal(rl.wouldAdmit('a'), false, 'blocked');
    now += 10_001;
    assert.equal(rl.wouldAdmit('a'), true, 'the block is over');
    const off = new AuthRateLimiter({ maxFailures: 0, blockSeconds: 10 });
    assert.equal(off.wouldAdmit('a'), true, 'the limit turned off');
    for (let i = 0; i < 5; i++) assert.equal(rl.wouldAdmit(`10.0.0.${i}`), true);
    assert.equal(rl.blockedCount(), 0);
  });

  void it('counts an IPv4-mapped IPv6 peer as its IPv4 address (one peer, one entry, whichever listener it reached)', () => {
    const rl = new AuthRateLimiter({ maxFailures: 2, blockSeconds: 10 });
    assert.equal(rl.acquire('::ffff:10.0.0.9')?.fail(), false);
    assert.equal(rl.acquire('10.0.0.9')?.fail(), true, 'the second failure of the same peer starts the block');
    assert.equal(rl.isBlocked('::FFFF:10.0.0.9'), true);
    assert.equal(addressKey('::ffff:10.0.0.9'), '10.0.0.9');
    assert.equal(addressKey('FE80::1'), 'fe80::1');
  });

  void it('reads its figures at each use from a function (the settings in force)', () => {
    let limits = { maxFailures: 1, blockSeconds: 10 };
    const rl = new AuthRateLimiter(() => limits);
    assert.equal(rl.acquire('10.0.0.10')?.fail(), true);
    limits = { maxFailures: 0, blockSeconds: 10 };
    assert.equal(rl.isBlocked('10.0.0.10'), false, 'a limit turned off refuses nobody');
    assert.deepEqual(limitsOf({}), { maxFailures: 10, blockSeconds: 60 });
  });
});
