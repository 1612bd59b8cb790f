/**
 * Lookups in plain tables keyed by outside words (tool arguments, query words, command names).
 *
 * @module
 */

/**
 * `table`'s own entry for `key`, or undefined: "constructor", "toString" and "__proto__" are in
 * every object, never entries of a table.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
