/** Agent protocol server TLS options: a ca file that is not PEM is an error naming it. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentServerTls } from '../../../../src/protocols/agent/tls.js';
import { loadOrCreateCertificate } from '../../../../src/protocols/server-certificate.js';

describe('agentServerTls', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a ca file that holds no PEM certificate, naming it; accepts a real one', async () => {
    const pems = await loadOrCreateCertificate({ cert: join(dir, 'cert.pem'), key: join(dir, 'cert.key') });
    const garbage = join(dir, 'ca.txt');
    writeFileSync(garbage, 'garbage\n');
    const settings = { cert: pems.cert, key: pems.key, verifyMode: 'peer-cert', allowedCiphers: '' };
    assert.throws(() => agentServerTls({ ...settings, ca: garbage }), {
      code: 'AGENT_ERR_TLS_FILE',
      message: `cannot read ca file ${garbage}: the file holds no PEM certificate (no start line)`,
    });
    const ok = agentServerTls({ ...settings, ca: join(dir, 'cert.pem') });
    assert.equal(ok.requestCert, true);
    assert.ok(ok.ca);
  });
});
