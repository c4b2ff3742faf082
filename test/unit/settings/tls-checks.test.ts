/**
 * The listeners' TLS files in `config-agent settings validate` (the command run as
 * a process) and in tlsFileProblems: a key of another certificate, an
 * unreadable or unparsable certificate, key or CA is an error at the line
 * of the setting it belongs to, in the CLI's problem shape
 * (`file:line:col: error CODE [section] key: message`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { tlsFileProblems } from '../../../src/settings/store/tls-checks.js';
import { certDir, type CertDir, type CertFiles } from '../../helpers/agent-certs.js';
import { runAgentCli } from '../../helpers/run-cli.js';

void describe('TLS files of the listeners in validation', () => {
  let certs: CertDir;
  let ca: CertFiles;
  let a: CertFiles;
  let b: CertFiles;
  let n = 0;

  /** Writes `ini` as a settings file in the cert folder (so relative paths start there). */
  const settings = (ini: string): string => {
    const file = join(certs.dir, `s${++n}.ini`);
    writeFileSync(file, ini);
    return file;
  };
  const problemsOf = (file: string): ReturnType<typeof tlsFileProblems> => {
    const r = loadSettingsText(readFileSync(file, 'utf8'), file);
    assert.ok(r.ok, JSON.stringify(r.problems));
    return tlsFileProblems(r.snapshot);
  };

  before(() => {
    certs = certDir();
    ca = certs.ca('ca');
    a = certs.issue(ca, 'a', 'server');
    b = certs.issue(ca, 'b', 'server');
  });
  after(() => certs.remove());

  void it('`certificate = other.pem` with the default web key: an error at the certificate line, exit 1', async () => {
    // The default key file (${certificate-path}/certificate.key) holds a's key; the certificate is b's.
    mkdirSync(join(certs.dir, 'security'), { recursive: true });
    writeFileSync(join(certs.dir, 'security', 'certificate.key'), readFileSync(a.key));
    const file = settings(
      `[/modules]\nWEBServer = enabled\n\n[/settings/default]\npassword = x\n\n[/settings/WEB/server]\nport = 0s\ncertificate = b.pem\n`,
    );
    const r = await runAgentCli(['settings', 'validate', file]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const key = join(certs.dir, 'security', 'certificate.key');
    assert.ok(
      r.stdout.includes(
        `${file}:9:15: error AGENT_ERR_TLS_KEY_MISMATCH [/settings/WEB/server] certificate: the private key in ${key} does not belong to the certificate ${b.cert}`,
      ),
      r.stdout,
    );
    const json = JSON.parse((await runAgentCli(['settings', 'validate', file, '--format', 'json'])).stdout) as {
      files: { errors: { code: string; line: number; key: string }[] }[];
    };
    assert.deepEqual(
      json.files[0]?.errors.map((e) => [e.code, e.line, e.key]),
      [['AGENT_ERR_TLS_KEY_MISMATCH', 9, 'certificate']],
    );
  });

  void it("a combined certificate+key file with the default web key is NSClient++'s convention: valid", async () => {
    const combined = join(certs.dir, 'combined-b.pem');
    writeFileSync(combined, readFileSync(b.cert, 'utf8') + readFileSync(b.key, 'utf8'));
    const file = settings(
      `[/modules]\nWEBServer = enabled\n\n[/settings/default]\npassword = x\n\n[/settings/WEB/server]\nport = 0s\ncertificate = combined-b.pem\n`,
    );
    const r = await runAgentCli(['settings', 'validate', file]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  void it('a written key of another certificate: the error is at the key line', () => {
    const file = settings(
      `[/modules]\nRemoteServer = enabled\n\n[/settings/remote/server]\nport = 5666\ncertificate = ${b.cert}\ncertificate key = ${a.key}\n`,
    );
    const [p, ...rest] = problemsOf(file);
    assert.equal(rest.length, 0);
    assert.deepEqual(
      [p?.code, p?.line, p?.section, p?.key],
      ['AGENT_ERR_TLS_KEY_MISMATCH', 7, '/settings/remote/server', 'certificate key'],
    );
    assert.equal(p?.message, `the private key in ${a.key} does not belong to the certificate ${b.cert}`);
  });

  void it('unreadable key, unparsable certificate, unparsable CA: each at its own line with AGENT_ERR_TLS_FILE', () => {
    const folder = join(certs.dir, 'a-folder.key');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(certs.dir, 'not-a-cert.pem'), 'hello\n');
    writeFileSync(join(certs.dir, 'not-a-ca.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const file = settings(
      `[/modules]\nAgentServer = enabled\nRemoteServer = enabled\n\n[/settings/agent/server]\nport = 5668\ncertificate = ${a.cert}\ncertificate key = a-folder.key\nca = not-a-ca.pem\n\n[/settings/remote/server]\nport = 5666\ncertificate = not-a-cert.pem\n`,
    );
    const got = problemsOf(file).map((p) => [p.code, p.line, p.key, p.message]);
    assert.deepEqual(
      got.map((g) => g.slice(0, 3)),
      [
        ['AGENT_ERR_TLS_FILE', 8, 'certificate key'],
        ['AGENT_ERR_TLS_FILE', 9, 'ca'],
        ['AGENT_ERR_TLS_FILE', 13, 'certificate'],
      ],
    );
    assert.equal(got[0]?.[3], `cannot read certificate key file ${folder}: it is a folder, not a file`);
    assert.match(String(got[1]?.[3]), /^cannot read ca file .*not-a-ca\.pem: the certificate cannot be parsed/);
    assert.equal(
      got[2]?.[3],
      `cannot read certificate file ${join(certs.dir, 'not-a-cert.pem')}: the file is not a PEM certificate (no start line)`,
    );
  });

  void it('missing files: a certificate the listener creates is fine, a missing CA or NRPE certificate is not', () => {
    const file = settings(
      `[/modules]\nAgentServer = enabled\nRemoteServer = enabled\n\n[/settings/agent/server]\nport = 5668\nca = nowhere-ca.pem\n\n[/settings/remote/server]\nport = 5666\ncertificate = nowhere.pem\n`,
    );
    const got = problemsOf(file).map((p) => [p.key, p.line, p.message.replace(certs.dir, 'DIR')]);
    assert.deepEqual(got, [
      ['ca', 7, 'cannot read ca file DIR/nowhere-ca.pem: no such file'],
      ['certificate', 11, 'cannot read certificate file DIR/nowhere.pem: no such file'],
    ]);
  });

  void it('disabled listeners and listeners without TLS are not checked', () => {
    const file = settings(
      `[/modules]\nRemoteServer = disabled\nWEBServer = enabled\n\n[/settings/default]\npassword = x\n\n[/settings/WEB/server]\nport = 0\ncertificate = missing-and-plain.pem\n\n[/settings/remote/server]\ncertificate = nowhere.pem\n`,
    );
    assert.deepEqual(problemsOf(file), []);
  });
});
