/**
 * The names of NSCA's encryption methods as settings write them (NSClient++'s
 * names and nsca.cfg's numbers) and the nsca method number each means; the
 * settings importer and the NSCA client (protocols/nsca/crypt.ts, where the
 * methods are explained) read this one table.
 */

/** Encryption method names (NSClient++'s and nsca.cfg's numbers) -> nsca's method number. */
export const NSCA_METHODS: Readonly<Record<string, number>> = {
  none: 0,
  xor: 1,
  des: 2,
  '3des': 3,
  aes: 14,
  aes256: 14,
  rijndael128: 14,
  rijndael192: 15,
  rijndael256: 16,
  '0': 0,
  '1': 1,
  '2': 2,
  '3': 3,
  '14': 14,
  '15': 15,
  '16': 16,
};

/** nsca's method number of a name (case-insensitive), or undefined for one we do not offer. */
export function nscaMethod(name: string): number | undefined {
  const key = name.trim().toLowerCase();
  return Object.hasOwn(NSCA_METHODS, key) ? NSCA_METHODS[key] : undefined;
}
