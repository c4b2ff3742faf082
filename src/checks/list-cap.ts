/**
 * Lists in a check's message, capped for checks that can have very many
 * items (check_logfile on a log read for the first time): at most so many
 * items and bytes, then `… N more`, so an answer stays readable and fits
 * the protocols' limits.
 */

export interface ListCap {
  items: number;
  bytes: number;
}

/** The parts joined, cut after `cap.items` parts or `cap.bytes` bytes with a last part `… N more`. */
export function capped(parts: readonly string[], separator: string, cap: ListCap | undefined): string {
  if (!cap) return parts.join(separator);
  let out = '';
  let n = 0;
  for (const p of parts) {
    const next = n === 0 ? p : `${out}${separator}${p}`;
    if (n >= cap.items || Buffer.byteLength(next) > cap.bytes) break;
    out = next;
    n++;
  }
  return n === parts.length ? out : `${out}${n > 0 ? separator : ''}… ${parts.length - n} more`;
}
