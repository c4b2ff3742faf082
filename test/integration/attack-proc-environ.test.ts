/**
 * Black box (issue 37, item 8): a script the agent runs, as the agent's own
 * user, read the `${env:}` secrets from /proc/<agent>/environ (the agent
 * deletes them from process.env, but the kernel shows the block it was
 * started with). The agent now marks itself non-dumpable, and the kernel
 * then makes its /proc files root's and refuses them to its user.
 *
 * The tests run as root, and root (CAP_SYS_PTRACE) may read any process's
 * environ whatever its flag: so the agent runs here as user and group 65534
 * (nobody, setpriv), and its script, as that user too, tries the read. The
 * owner of /proc/<agent>/environ is checked as well: root:root for a
 * non-dumpable process of another user, as the kernel sets it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { defined } from '../helpers/defined.js';

const NOBODY = 65534;
const SECRET = 'vault-token-5772';

void describe("a script of the agent's user cannot read /proc/<agent>/environ (agent process as nobody)", () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();

  before(async () => {
    ({ agent, base, ca } = made.add(
      await startWebAgent({
        ini: `[/modules]
CheckExternalScripts = enabled
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = \${env:AGENT_TEST_WEB_PASSWORD}

[/settings/external scripts/scripts]
read_environ = read-environ.sh
`,
        env: { AGENT_TEST_WEB_PASSWORD: SECRET },
        asUser: NOBODY,
        files: {
          'scripts/read-environ.sh': `#!/bin/sh
pid=$(cat "$(dirname "$0")/agent.pid")
if env=$(tr '\\000' '\\n' < "/proc/$pid/environ" 2>/dev/null); then
  echo "read the environment of $pid: $(echo "$env" | grep AGENT_TEST_WEB_PASSWORD)"
  exit 2
fi
echo "cannot read /proc/$pid/environ"
`,
        },
      }),
      (w) => w.agent.stop(),
    ));
    const script = join(agent.dir, 'scripts', 'read-environ.sh');
    chmodSync(script, 0o755);
    writeFileSync(join(agent.dir, 'scripts', 'agent.pid'), String(defined(agent.proc.pid, 'the agent pid')));
  });
  after(() => made.close());

  void it('the agent runs as nobody (the setup holds)', () => {
    const status = statSync(`/proc/${defined(agent.proc.pid, 'pid')}`);
    assert.equal(status.uid, NOBODY, 'the /proc folder of a process belongs to its user');
  });

  void it("its environ is root's, as the kernel makes it for a non-dumpable process", () => {
    const environ = statSync(`/proc/${defined(agent.proc.pid, 'pid')}/environ`);
    assert.deepEqual([environ.uid, environ.gid], [0, 0]);
  });

  void it('a script it runs cannot read it', async () => {
    const res = await webRequest(`${base}/api/v1/queries/read_environ/commands/execute`, {
      ca,
      user: 'root',
      password: SECRET,
    });
    assert.equal(res.status, 200, res.body);
    assert.ok(!res.body.includes(SECRET), res.body);
    assert.match(res.body, /cannot read \/proc\/\d+\/environ/);
  });
});
