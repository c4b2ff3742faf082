/**
 * How the NRPE and agent-protocol clients space their retries of a failed
 * connection (the `retry` option counts them): 100 ms, 200 ms, 400 ms ...
 * at most 1 s, each plus up to half of it at random, so a fleet of pollers
 * that lost a daemon at once does not knock on it in lockstep.
 */
import type { BackoffPolicy } from '../retry-policy.js';

export const CONNECT_RETRY: BackoffPolicy = { firstMs: 100, factor: 2, maxMs: 1000, jitter: 0.5 };
