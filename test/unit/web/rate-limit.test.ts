import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuthRateLimiter } from '../../../src/web/rate-limit.js';

describe('AuthRateLimiter', () => {
  it('blocks an address after max failures for block seconds, then lets it try again', () => {
    let now = 1_000_000;
    const rl = new AuthRateLimiter({ maxFailures: 3, blockSeconds: 10 }, () => now);
    assert.equal(rl.fail('10.0.0.1'), false);
    assert.equal(rl.fail('10.0.0.1'), false);
    assert.equal(rl.isBlocked('10.0.0.1'), false);
    assert.equal(rl.fail('10.0.0.1'), true, 'the third failure starts the block');
    assert.equal(rl.isBlocked('10.0.0.1'), true);
    assert.equal(rl.isBlocked('10.0.0.2'), false, 'other addresses are not affected');
    assert.equal(rl.blockedCount(), 1);
    now += 9_999;
    assert.equal(rl.isBlocked('10.0.0.1'), true);
    now += 2;
    assert.equal(rl.isBlocked('10.0.0.1'), false);
    assert.equal(rl.fail('10.0.0.1'), false, 'the count starts again after a block');
  });

  it('clears the count on success', () => {
    const rl = new AuthRateLimiter({ maxFailures: 2, blockSeconds: 10 });
    rl.fail('a');
    rl.succeed('a');
    assert.equal(rl.fail('a'), false);
    assert.equal(rl.isBlocked('a'), false);
  });

  it('is off when max failures is 0', () => {
    const rl = new AuthRateLimiter({ maxFailures: 0, blockSeconds: 10 });
    for (let i = 0; i < 100; i++) rl.fail('a');
    assert.equal(rl.isBlocked('a'), false);
  });

  it('keeps a bounded number of addresses', () => {
    const rl = new AuthRateLimiter({ maxFailures: 2, blockSeconds: 10 });
    for (let i = 0; i < 10_050; i++) rl.fail(`addr-${i}`);
    rl.fail('addr-0');
    assert.equal(rl.isBlocked('addr-0'), false, 'the oldest entries were dropped');
    assert.equal(rl.fail('addr-10049'), true);
  });
});
