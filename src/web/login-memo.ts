/**
 * The login a keep-alive connection passed with, remembered on its socket,
 * so that a request repeating the exact Authorization header on the same
 * connection skips reading, hashing and looking up the credential.
 *
 * Contract:
 * - a memo is valid while its login is unchanged: at once while the
 *   settings (`key`, the access layer's object for one settings view) and
 *   the generated root password are the very ones it was last confirmed
 *   against, otherwise after comparing the login's fingerprint
 *   (login-fingerprint.ts), which confirms it again;
 * - the header is kept only as long as its connection, and only compared
 *   with headers arriving on that connection (a peer timing the comparison
 *   there already sent the right credential on it); the generated password
 *   is a reference to the string the WEBServer module holds, no copy.
 */
import type { Socket } from 'node:net';
import { loginFingerprint, type WebSettings } from './login-fingerprint.js';
import type { Principal } from './respond.js';

export interface LoginMemo {
  header: string;
  login: string;
  fingerprint: string;
  principal: Principal;
  /** Milliseconds its credential check took (what a refusal of a route waits: WebRequest.uncheckedCost). */
  cost: number;
  /** The peer address the login passed the allowed hosts with. */
  address: string;
  /** The settings view (as the access layer's object for it) of the last confirmation. */
  confirmed: object;
  generated: string | undefined;
}

const MEMO = Symbol('agent.loginMemo');
type MemoSocket = Socket & { [MEMO]?: LoginMemo };

/** The memo of `socket` when `header` is the one it remembers. */
export function rememberedLogin(socket: Socket, header: string | undefined): LoginMemo | undefined {
  if (header === undefined) return undefined;
  const memo = (socket as MemoSocket)[MEMO];
  return memo !== undefined && memo.header === header ? memo : undefined;
}

export function rememberLogin(socket: Socket, memo: LoginMemo): void {
  (socket as MemoSocket)[MEMO] = memo;
}

/** True when the memo was last confirmed against these very settings and generated password. */
export function confirmedFor(memo: LoginMemo, key: object, generated: string | undefined): boolean {
  return memo.confirmed === key && memo.generated === generated;
}

/** True while the memo's login is unchanged in `settings` (then it is confirmed for `key`). */
export function stillValid(
  memo: LoginMemo,
  key: object,
  settings: WebSettings,
  generated: string | undefined,
): boolean {
  if (confirmedFor(memo, key, generated)) return true;
  if (memo.fingerprint !== loginFingerprint(settings, memo.login, generated)) return false;
  memo.confirmed = key;
  memo.generated = generated;
  return true;
}
