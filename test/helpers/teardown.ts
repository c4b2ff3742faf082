/**
 * What a test file makes and must close (agents, daemons, browsers,
 * certificates, folders), registered as it is made and closed by one
 * after() hook:
 *
 *     const made = new Teardown();
 *     after(() => made.close());
 *     before(async () => {
 *       certs = made.add(makeCerts(), (c) => c.remove());
 *       agent = made.add(await startAgent({ ini }), (a) => a.stop());
 *     });
 *
 * A before() that fails half way has registered only what it made, so the
 * hook needs no `agent?.stop()` on a variable that may still be unset.
 * close() runs the clean-ups in the reverse order of their registration
 * (an agent stops before the certificates it reads are removed), each one
 * awaited, and every one of them even when one fails; the first failure is
 * thrown after the last clean-up ran. What is registered after close() is
 * closed by the next close().
 */
export class Teardown {
  private steps: (() => unknown)[] = [];

  /** Register `close(resource)` and hand the resource back. */
  add<T>(resource: T, close: (resource: T) => unknown): T {
    this.steps.push(() => close(resource));
    return resource;
  }

  /** Register a clean-up that belongs to no one value (a folder to remove, an environment variable to restore). */
  defer(step: () => unknown): void {
    this.steps.push(step);
  }

  async close(): Promise<void> {
    const steps = this.steps.reverse();
    this.steps = [];
    const failures: unknown[] = [];
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
