/**
 * Issue 37, a small hole: check_nt USEDDISKSPACE with a path instead of a
 * drive letter told whether any path existed (a size for /root/.ssh, an
 * error for a path that is not there). Now a path is answered only when it
 * is a mount point; any other, existing or not, gets the answer of an
 * unknown letter. The path is sent by a raw check_nt peer (Debian's
 * check_nt takes only letters); letters by check_nt itself. Agent run as
 * a process.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { checkNt, rawRequest } from '../helpers/check-nt.js';
import { Teardown } from '../helpers/teardown.js';

const made = new Teardown();
after(() => made.close());
let agent: AgentProcess;
let port: number;

before(async () => {
  agent = made.add(
    await startAgent({
      ini: `[/modules]
CheckDisk = enabled
NSClientServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1
password = s3cret

[/settings/NSClient/server]
port = 0
bind to = 127.0.0.1
`,
    }),
    (a) => a.stop(),
  );
  port = await listenerPort(agent, 'NSClientServer');
});

/** USEDDISKSPACE (command 4) for `drive` as check_nt sends it: `password&4&drive`. */
const disk = (drive: string): Promise<string> => rawRequest(port, `s3cret&4&${drive}`);

void it('USEDDISKSPACE answers the same for a path that exists and one that does not, unless it is a mount point', async () => {
  const existing = await disk('/etc/ssh');
  const missing = await disk('/etc/no-such-dir');
  assert.equal(existing.replace('/etc/ssh', 'X'), missing.replace('/etc/no-such-dir', 'X'));
  assert.match(existing, /^ERROR: drive \/etc\/ssh is neither in drive letters \(C=\/\) nor a mount point$/);
  // A mount point and a letter still answer: FREE&TOTAL.
  assert.match(await disk('/'), /^\d+&\d+$/);
  const c = await checkNt(port, ['-s', 's3cret', '-v', 'USEDDISKSPACE', '-l', 'C']);
  assert.equal(c.code, 0, c.out);
});
