/**
 * Keyboard and mouse vocabulary for `computer`: xdotool-style key names and chords turned into
 * CDP `Input.dispatchKeyEvent` parameters, typed text turned into real key events, and the
 * modifier bit masks CDP uses. Pure: no browser here.
 *
 * @module
 */

import { ownEntry } from "../../../shared/own.ts";
import { ToolError } from "../core/errors.ts";

/** CDP modifier bits. */
const MODIFIER_BITS = { alt: 1, ctrl: 2, meta: 4, shift: 8 } as const;
type Modifier = keyof typeof MODIFIER_BITS;

const MODIFIER_NAMES: Record<string, Modifier> = {
  ctrl: "ctrl",
  control: "ctrl",
  control_l: "ctrl",
  control_r: "ctrl",
  shift: "shift",
  shift_l: "shift",
  shift_r: "shift",
  alt: "alt",
  alt_l: "alt",
  alt_r: "alt",
  option: "alt",
  meta: "meta",
  cmd: "meta",
  command: "meta",
  super: "meta",
  super_l: "meta",
  win: "meta",
};

const MODIFIER_KEYS: Record<Modifier, KeyDefinition> = {
  ctrl: { key: "Control", code: "ControlLeft", keyCode: 17 },
  shift: { key: "Shift", code: "ShiftLeft", keyCode: 16 },
  alt: { key: "Alt", code: "AltLeft", keyCode: 18 },
  meta: { key: "Meta", code: "MetaLeft", keyCode: 91 },
};

/** One physical key as CDP describes it. */
export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  /** The text the key inserts when pressed without ctrl/alt/meta. */
  text?: string;
}

const NAMED_KEYS: Record<string, KeyDefinition> = {
  return: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  enter: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  kp_enter: { key: "Enter", code: "NumpadEnter", keyCode: 13, text: "\r" },
  tab: { key: "Tab", code: "Tab", keyCode: 9 },
  iso_left_tab: { key: "Tab", code: "Tab", keyCode: 9 },
  backspace: { key: "Backspace", code: "Backspace", keyCode: 8 },
  delete: { key: "Delete", code: "Delete", keyCode: 46 },
  del: { key: "Delete", code: "Delete", keyCode: 46 },
  escape: { key: "Escape", code: "Escape", keyCode: 27 },
  esc: { key: "Escape", code: "Escape", keyCode: 27 },
  space: { key: " ", code: "Space", keyCode: 32, text: " " },
  up: { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  down: { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  left: { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  right: { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  arrowup: { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  arrowdown: { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  arrowleft: { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  arrowright: { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  home: { key: "Home", code: "Home", keyCode: 36 },
  end: { key: "End", code: "End", keyCode: 35 },
  page_up: { key: "PageUp", code: "PageUp", keyCode: 33 },
  pageup: { key: "PageUp", code: "PageUp", keyCode: 33 },
  prior: { key: "PageUp", code: "PageUp", keyCode: 33 },
  page_down: { key: "PageDown", code: "PageDown", keyCode: 34 },
  pagedown: { key: "PageDown", code: "PageDown", keyCode: 34 },
  next: { key: "PageDown", code: "PageDown", keyCode: 34 },
  insert: { key: "Insert", code: "Insert", keyCode: 45 },
  minus: { key: "-", code: "Minus", keyCode: 189, text: "-" },
  equal: { key: "=", code: "Equal", keyCode: 187, text: "=" },
  plus: { key: "+", code: "Equal", keyCode: 187, text: "+" },
  comma: { key: ",", code: "Comma", keyCode: 188, text: "," },
  period: { key: ".", code: "Period", keyCode: 190, text: "." },
  slash: { key: "/", code: "Slash", keyCode: 191, text: "/" },
  backslash: { key: "\\", code: "Backslash", keyCode: 220, text: "\\" },
  semicolon: { key: ";", code: "Semicolon", keyCode: 186, text: ";" },
  apostrophe: { key: "'", code: "Quote", keyCode: 222, text: "'" },
  grave: { key: "`", code: "Backquote", keyCode: 192, text: "`" },
  bracketleft: { key: "[", code: "BracketLeft", keyCode: 219, text: "[" },
  bracketright: { key: "]", code: "BracketRight", keyCode: 221, text: "]" },
};
for (let n = 1; n <= 12; n++) {
  NAMED_KEYS[`f${n}`] = { key: `F${n}`, code: `F${n}`, keyCode: 111 + n };
}

const PUNCTUATION_CODES: Record<string, [string, number]> = {
  "-": ["Minus", 189],
  "=": ["Equal", 187],
  ",": ["Comma", 188],
  ".": ["Period", 190],
  "/": ["Slash", 191],
  "\\": ["Backslash", 220],
  ";": ["Semicolon", 186],
  "'": ["Quote", 222],
  "`": ["Backquote", 192],
  "[": ["BracketLeft", 219],
  "]": ["BracketRight", 221],
};

/** The key that types one character (US layout where it has one). */
export function keyForCharacter(char: string): KeyDefinition {
  if (char === "\n" || char === "\r") return NAMED_KEYS.enter;
  if (char === "\t") return NAMED_KEYS.tab;
  if (char === " ") return NAMED_KEYS.space;
  if (/^[a-z]$/i.test(char)) {
    const upper = char.toUpperCase();
    return { key: char, code: `Key${upper}`, keyCode: upper.charCodeAt(0), text: char };
  }
  if (/^[0-9]$/.test(char)) {
    return { key: char, code: `Digit${char}`, keyCode: char.charCodeAt(0), text: char };
  }
  const punctuation = ownEntry(PUNCTUATION_CODES, char);
  if (punctuation) return { key: char, code: punctuation[0], keyCode: punctuation[1], text: char };
  return { key: char, code: "", keyCode: 0, text: char };
}

/** One chord of a `key` action: modifiers held while one key is pressed. */
export interface Chord {
  modifiers: Modifier[];
  key: KeyDefinition | null;
}

function keyByName(name: string, whole: string): KeyDefinition {
  const named = ownEntry(NAMED_KEYS, name.toLowerCase());
  if (named) return named;
  if ([...name].length === 1) return keyForCharacter(name);
  throw new ToolError(
    "tool_failure",
    `text: unknown key name "${name}" in "${whole}".`,
    'Use xdotool names such as "Return", "Tab", "BackSpace", "Delete", "Escape", "Up", ' +
      '"Page_Down", "F5", a single character, or chords like "ctrl+a": ' +
      '{"action": "key", "text": "ctrl+a Delete", "tabId": 123}.',
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
    for (const part of parts.slice(0, -1)) {
      const modifier = ownEntry(MODIFIER_NAMES, part.toLowerCase());
      if (!modifier) throw unknownModifier(part, chord);
      modifiers.push(modifier);
    }
    const last = parts.at(-1)!;
    const lone = ownEntry(MODIFIER_NAMES, last.toLowerCase());
    if (lone) return { modifiers: [...modifiers, lone], key: null };
    const key = keyByName(last, chord);
    return { modifiers, key };
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
    const modifier = ownEntry(MODIFIER_NAMES, part.toLowerCase());
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
      ...(text !== undefined ? { text, unmodifiedText: text } : {}),
    },
  };
}

/** The key events that press one key: down (with text when it types), then up. */
export function pressEvents(key: KeyDefinition, modifiers = 0, text = key.text): KeyEvent[] {
  // Ctrl, alt and meta turn a key into a shortcut: it types nothing.
  const types = text !== undefined && (modifiers & (MODIFIER_BITS.ctrl | MODIFIER_BITS.alt |
        MODIFIER_BITS.meta)) === 0;
  return [
    types ? keyEvent("keyDown", key, modifiers, text) : keyEvent("rawKeyDown", key, modifiers),
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
  const key = chord.key?.text?.toLowerCase();
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
    for (const modifier of chord.modifiers) {
      mask |= MODIFIER_BITS[modifier];
      events.push(keyEvent("rawKeyDown", MODIFIER_KEYS[modifier], mask));
    }
    if (chord.key) {
      const shifted = chord.key.text !== undefined && (mask & MODIFIER_BITS.shift) !== 0 &&
          /^[a-z]$/.test(chord.key.text)
        ? chord.key.text.toUpperCase()
        : chord.key.text;
      const press = pressEvents(chord.key, mask, shifted);
      // Elsewhere ctrl shortcuts work by themselves; cmd (meta) ones, which agents used to a Mac
      // send, get the command so they do what was meant.
      const command = options.mac || chord.modifiers.includes("meta")
        ? editCommand(chord)
        : undefined;
      if (command) press[0].params.commands = [command];
      events.push(...press);
    }
    for (const modifier of [...chord.modifiers].reverse()) {
      mask &= ~MODIFIER_BITS[modifier];
      events.push(keyEvent("keyUp", MODIFIER_KEYS[modifier], mask));
    }
  }
  return events;
}

/** The key events that type `text`, one real key press per character. */
export function typeEvents(text: string): KeyEvent[] {
  const events: KeyEvent[] = [];
  for (const char of text) {
    const key = keyForCharacter(char);
    const shift = /^[A-Z]$/.test(char) ? MODIFIER_BITS.shift : 0;
    events.push(...pressEvents(key, shift, key.text));
  }
  return events;
}
