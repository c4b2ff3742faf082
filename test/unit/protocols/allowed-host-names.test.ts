/**
 * Host names in allowed hosts, resolved with the system resolver (this
 * host's own name from /etc/hosts): a name allows the addresses it
 * resolves to once `ready` settles; a name that does not resolve allows
 * nobody and is reported; addresses work from the start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { allowedHosts } from '../../../src/protocols/allowed-host-names.js';
import { inRange } from '../../../src/in-range.js';

void test("this host's name allows its addresses once resolved", async () => {
  const name = hostname();
  const addresses = (await lookup(name, { all: true })).map((a) => a.address);
  const warnings: string[] = [];
  const hosts = allowedHosts(`10.9.8.7, ${name}`, (w) => warnings.push(w));
  assert.equal(hosts.isAllowed('10.9.8.7'), true, 'addresses work before the names answer');
  await hosts.ready;
  for (const a of addresses) assert.equal(hosts.isAllowed(a), true, a);
  assert.equal(hosts.isAllowed('192.0.2.99'), false);
  assert.deepEqual(warnings, []);
});

void test('a name that does not resolve allows nobody and is reported with its name', async () => {
  const warnings: string[] = [];
  const hosts = allowedHosts('no-such-host.invalid', (w) => warnings.push(w));
  await hosts.ready;
  assert.equal(hosts.isAllowed('127.0.0.1'), false);
  assert.equal(warnings.length, 1);
  assert.match(
    inRange(warnings, 0),
    /^allowed hosts entry "no-such-host\.invalid" does not resolve \(\w+\): it allows nobody until a reload resolves it$/,
  );
});
