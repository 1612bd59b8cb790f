/**
 * Keyboard and mouse vocabulary for `computer`: xdotool-style key names and chords turned into
 * CDP `Input.dispatchKeyEvent` parameters, typed text turned into real key events, and the
 * modifier bit masks CDP uses. Pure: no browser here.
 *
 * @module
 */

import { ownEntry } from "../../../shared/own.ts";
import { ToolError } from "../core/errors.ts";
import {
  type KeyDefinition,
  type Keystroke,
  keystrokeForCharacter,
  keystrokeForName,
  modifierKey,
} from "./key_table.ts";

export type { KeyDefinition } from "./key_table.ts";

/** CDP modifier bits. */
const MODIFIER_BITS = { alt: 1, ctrl: 2, meta: 4, shift: 8 } as const;
type Modifier = keyof typeof MODIFIER_BITS;

/** The modifier each modifier key sets, by the key it reports. */
const MODIFIER_OF_KEY: Record<string, Modifier> = {
  Control: "ctrl",
  Shift: "shift",
  Alt: "alt",
  Meta: "meta",
};

/** A modifier name's bit and physical key (Control_R is the right one), or undefined. */
function modifierByName(name: string): { modifier: Modifier; key: KeyDefinition } | undefined {
  const key = modifierKey(name);
  return key && { modifier: MODIFIER_OF_KEY[key.key], key };
}

/** One chord of a `key` action: modifiers held while one key is pressed. */
export interface Chord {
  modifiers: Modifier[];
  /** The modifiers' physical keys, in the same order (left or right). */
  held: KeyDefinition[];
  key: Keystroke | null;
}

function keyByName(name: string, whole: string): Keystroke {
  const known = keystrokeForName(name);
  if (known) return known;
  throw new ToolError(
    "tool_failure",
    `text: unknown key name "${name}" in "${whole}".`,
    'Use xdotool keysym names such as "Return", "Tab", "BackSpace", "Delete", "Escape", "Up", ' +
      '"Page_Down", "F5", "KP_Subtract", "asciitilde", "XF86AudioMute", a single character, or ' +
      'chords like "ctrl+a": {"action": "key", "text": "ctrl+a Delete", "tabId": 123}.',
  );
}

/** Parses `text` of a `key` action: space-separated chords such as "ctrl+a Delete". */
export function parseChords(text: string): Chord[] {
  const chords = text.trim().split(/\s+/).filter((part) => part !== "");
  if (chords.length === 0) {
    throw new ToolError(
      "tool_failure",
      "text is required for key: the keys to press.",
      'Call {"action": "key", "text": "Return", "tabId": 123}.',
    );
  }
  return chords.map((chord) => {
    // "ctrl++" means ctrl and the plus key.
    const parts = chord.length > 1 && chord.endsWith("++")
      ? [...chord.slice(0, -2).split("+"), "+"]
      : chord.split("+");
    const modifiers: Modifier[] = [];
    const held: KeyDefinition[] = [];
    for (const part of parts.slice(0, -1)) {
      const modifier = modifierByName(part);
      if (!modifier) throw unknownModifier(part, chord);
      modifiers.push(modifier.modifier);
      held.push(modifier.key);
    }
    const last = parts.at(-1)!;
    const lone = modifierByName(last);
    if (lone) {
      return { modifiers: [...modifiers, lone.modifier], held: [...held, lone.key], key: null };
    }
    return { modifiers, held, key: keyByName(last, chord) };
  });
}

function unknownModifier(part: string, chord: string): ToolError {
  return new ToolError(
    "tool_failure",
    `text: "${part}" in "${chord}" is not a modifier (ctrl, shift, alt, meta/cmd/super).`,
    'Write chords as modifier+key, e.g. {"action": "key", "text": "shift+Tab", "tabId": 123}.',
  );
}

/** The CDP bit mask of a `modifiers` string such as "ctrl+shift". */
export function parseModifiers(text: string | undefined): number {
  if (text === undefined || text.trim() === "") return 0;
  let mask = 0;
  for (const part of text.split(/[+\s]+/).filter((p) => p !== "")) {
    const modifier = modifierByName(part)?.modifier;
    if (!modifier) {
      throw new ToolError(
        "tool_failure",
        `modifiers: "${part}" is not a modifier; use ctrl, shift, alt or meta (cmd), joined by +.`,
        'Call {"action": "left_click", "coordinate": [100, 200], "modifiers": "ctrl", "tabId": 123}.',
      );
    }
    mask |= MODIFIER_BITS[modifier];
  }
  return mask;
}

type KeyEvent = { method: "Input.dispatchKeyEvent"; params: Record<string, unknown> };

function keyEvent(type: string, key: KeyDefinition, modifiers: number, text?: string): KeyEvent {
  return {
    method: "Input.dispatchKeyEvent",
    params: {
      type,
      key: key.key,
      code: key.code,
      windowsVirtualKeyCode: key.keyCode,
      nativeVirtualKeyCode: key.keyCode,
      modifiers,
      ...(key.location !== 0 ? { location: key.location } : {}),
      ...(key.location === 3 ? { isKeypad: true } : {}),
      ...(text !== undefined ? { text, unmodifiedText: text } : {}),
    },
  };
}

/** The key events that press one key: down (with text when it types), then up. */
export function pressEvents(key: KeyDefinition, modifiers = 0): KeyEvent[] {
  // Ctrl, alt and meta turn a key into a shortcut: it types nothing.
  const types = key.text !== undefined && (modifiers & (MODIFIER_BITS.ctrl | MODIFIER_BITS.alt |
        MODIFIER_BITS.meta)) === 0;
  return [
    types ? keyEvent("keyDown", key, modifiers, key.text) : keyEvent("rawKeyDown", key, modifiers),
    keyEvent("keyUp", key, modifiers),
  ];
}

/** Editing shortcuts and the editor command each runs. */
const EDIT_COMMANDS: Record<string, string> = {
  a: "selectAll",
  c: "copy",
  x: "cut",
  v: "paste",
  z: "undo",
  "shift+z": "redo",
  y: "redo",
};

/**
 * The editor command of a chord such as ctrl+a or cmd+shift+z. Chrome on macOS runs editing
 * shortcuts only when the key event names their command, and agents write ctrl or cmd
 * interchangeably, so both count there.
 */
function editCommand(chord: Chord): string | undefined {
  const key = chord.key?.key.text?.toLowerCase();
  if (!key) return undefined;
  const others = chord.modifiers.filter((m) => m !== "ctrl" && m !== "meta");
  if (others.length === chord.modifiers.length || others.some((m) => m !== "shift")) {
    return undefined;
  }
  return ownEntry(EDIT_COMMANDS, others.length ? `shift+${key}` : key);
}

/**
 * The key events for a list of chords; `mac` adds the editor commands Chrome on macOS needs
 * for editing shortcuts (elsewhere only cmd/meta shortcuts get them).
 */
export function chordEvents(chords: Chord[], options: { mac?: boolean } = {}): KeyEvent[] {
  const events: KeyEvent[] = [];
  for (const chord of chords) {
    let mask = 0;
    chord.modifiers.forEach((modifier, index) => {
      mask |= MODIFIER_BITS[modifier];
      events.push(keyEvent("rawKeyDown", chord.held[index], mask));
    });
    if (chord.key) {
      // Shift held turns "3" into "#"; a key named by its shifted character ("exclam") brings
      // shift with it, as xdotool presses it.
      const shift = chord.key.shift || (mask & MODIFIER_BITS.shift) !== 0;
      const press = pressEvents(
        shift ? chord.key.shifted : chord.key.key,
        shift ? mask | MODIFIER_BITS.shift : mask,
      );
      // Elsewhere ctrl shortcuts work by themselves; cmd (meta) ones, which agents used to a Mac
      // send, get the command so they do what was meant.
      const command = options.mac || chord.modifiers.includes("meta")
        ? editCommand(chord)
        : undefined;
      if (command) press[0].params.commands = [command];
      events.push(...press);
    }
    for (let index = chord.modifiers.length - 1; index >= 0; index--) {
      mask &= ~MODIFIER_BITS[chord.modifiers[index]];
      events.push(keyEvent("keyUp", chord.held[index], mask));
    }
  }
  return events;
}

/** The key events that type `text`, one real key press per character (US layout). */
export function typeEvents(text: string): KeyEvent[] {
  const events: KeyEvent[] = [];
  for (const char of text) {
    const stroke: Keystroke = keystrokeForCharacter(char);
    events.push(...pressEvents(stroke.key, stroke.shift ? MODIFIER_BITS.shift : 0));
  }
  return events;
}
