/**
 * Reading an agent's value as on or off, for a checkbox, radio or switch. One home for both
 * sides: the page runtime turns the field to it, the fill receipt says what was asked with it.
 *
 * @module
 */

/** Words and values that mean on. */
const ON = ["true", "on", "yes", "y", "checked", "1"];
/** Words and values that mean off (an empty value is off, as an empty form field submits). */
const OFF = ["false", "off", "no", "n", "unchecked", "0", ""];

/** The value read as on or off, or null when it is neither. */
export function toBool(value: unknown): boolean | null {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  const text = String(value).trim().toLowerCase();
  if (ON.includes(text)) return true;
  if (OFF.includes(text)) return false;
  return null;
}
