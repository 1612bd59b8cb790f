/**
 * The one key table of `computer`'s keyboard: every key of a US keyboard by its `code` (what
 * `KeyboardEvent.code` reports), with the key it gives unshifted and shifted, the Windows key
 * code CDP wants, and its location (left, right, numpad); and the names agents use for keys,
 * xdotool's keysym names first (`asciitilde`, `KP_Subtract`, `Control_R`, `XF86AudioMute`...),
 * each naming a key of that table and whether shift is pressed with it. Pure data and look-ups.
 *
 * @module
 */

import { ownEntry } from "../../../shared/own.ts";

/** `KeyboardEvent.location`: standard, left, right, numpad. */
export type KeyLocation = 0 | 1 | 2 | 3;
const LEFT = 1;
const RIGHT = 2;
const NUMPAD = 3;

/** One key press as CDP describes it. */
export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  location: KeyLocation;
  /** The text the key inserts when pressed without ctrl/alt/meta. */
  text?: string;
}

/** A physical key: what it gives unshifted and, where it differs, shifted. */
interface PhysicalKey {
  key: string;
  keyCode: number;
  shifted?: string;
  /** Text when it is not the key itself (Enter types "\r"). */
  text?: string;
  location?: KeyLocation;
}

const PHYSICAL: Record<string, PhysicalKey> = {
  Escape: { key: "Escape", keyCode: 27 },
  Backquote: { key: "`", shifted: "~", keyCode: 192 },
  Digit1: { key: "1", shifted: "!", keyCode: 49 },
  Digit2: { key: "2", shifted: "@", keyCode: 50 },
  Digit3: { key: "3", shifted: "#", keyCode: 51 },
  Digit4: { key: "4", shifted: "$", keyCode: 52 },
  Digit5: { key: "5", shifted: "%", keyCode: 53 },
  Digit6: { key: "6", shifted: "^", keyCode: 54 },
  Digit7: { key: "7", shifted: "&", keyCode: 55 },
  Digit8: { key: "8", shifted: "*", keyCode: 56 },
  Digit9: { key: "9", shifted: "(", keyCode: 57 },
  Digit0: { key: "0", shifted: ")", keyCode: 48 },
  Minus: { key: "-", shifted: "_", keyCode: 189 },
  Equal: { key: "=", shifted: "+", keyCode: 187 },
  Backslash: { key: "\\", shifted: "|", keyCode: 220 },
  Backspace: { key: "Backspace", keyCode: 8 },
  Tab: { key: "Tab", keyCode: 9 },
  BracketLeft: { key: "[", shifted: "{", keyCode: 219 },
  BracketRight: { key: "]", shifted: "}", keyCode: 221 },
  CapsLock: { key: "CapsLock", keyCode: 20 },
  Semicolon: { key: ";", shifted: ":", keyCode: 186 },
  Quote: { key: "'", shifted: '"', keyCode: 222 },
  Enter: { key: "Enter", keyCode: 13, text: "\r" },
  Comma: { key: ",", shifted: "<", keyCode: 188 },
  Period: { key: ".", shifted: ">", keyCode: 190 },
  Slash: { key: "/", shifted: "?", keyCode: 191 },
  Space: { key: " ", keyCode: 32 },
  ShiftLeft: { key: "Shift", keyCode: 16, location: LEFT },
  ShiftRight: { key: "Shift", keyCode: 16, location: RIGHT },
  ControlLeft: { key: "Control", keyCode: 17, location: LEFT },
  ControlRight: { key: "Control", keyCode: 17, location: RIGHT },
  AltLeft: { key: "Alt", keyCode: 18, location: LEFT },
  AltRight: { key: "Alt", keyCode: 18, location: RIGHT },
  MetaLeft: { key: "Meta", keyCode: 91, location: LEFT },
  MetaRight: { key: "Meta", keyCode: 92, location: RIGHT },
  ContextMenu: { key: "ContextMenu", keyCode: 93 },
  PrintScreen: { key: "PrintScreen", keyCode: 44 },
  ScrollLock: { key: "ScrollLock", keyCode: 145 },
  Pause: { key: "Pause", keyCode: 19 },
  Insert: { key: "Insert", keyCode: 45 },
  Delete: { key: "Delete", keyCode: 46 },
  Home: { key: "Home", keyCode: 36 },
  End: { key: "End", keyCode: 35 },
  PageUp: { key: "PageUp", keyCode: 33 },
  PageDown: { key: "PageDown", keyCode: 34 },
  ArrowLeft: { key: "ArrowLeft", keyCode: 37 },
  ArrowUp: { key: "ArrowUp", keyCode: 38 },
  ArrowRight: { key: "ArrowRight", keyCode: 39 },
  ArrowDown: { key: "ArrowDown", keyCode: 40 },
  Help: { key: "Help", keyCode: 47 },
  NumLock: { key: "NumLock", keyCode: 144 },
  // The numpad with num lock on; its navigation keys (num lock off) are named below.
  NumpadDivide: { key: "/", keyCode: 111, location: NUMPAD },
  NumpadMultiply: { key: "*", keyCode: 106, location: NUMPAD },
  NumpadSubtract: { key: "-", keyCode: 109, location: NUMPAD },
  NumpadAdd: { key: "+", keyCode: 107, location: NUMPAD },
  NumpadDecimal: { key: ".", keyCode: 110, location: NUMPAD },
  NumpadEqual: { key: "=", keyCode: 187, location: NUMPAD },
  NumpadComma: { key: ",", keyCode: 194, location: NUMPAD },
  NumpadEnter: { key: "Enter", keyCode: 13, text: "\r", location: NUMPAD },
  // Media, browser and system keys.
  AudioVolumeMute: { key: "AudioVolumeMute", keyCode: 173 },
  AudioVolumeDown: { key: "AudioVolumeDown", keyCode: 174 },
  AudioVolumeUp: { key: "AudioVolumeUp", keyCode: 175 },
  MediaTrackNext: { key: "MediaTrackNext", keyCode: 176 },
  MediaTrackPrevious: { key: "MediaTrackPrevious", keyCode: 177 },
  MediaStop: { key: "MediaStop", keyCode: 178 },
  MediaPlayPause: { key: "MediaPlayPause", keyCode: 179 },
  MediaRecord: { key: "MediaRecord", keyCode: 0 },
  MediaRewind: { key: "MediaRewind", keyCode: 0 },
  MediaFastForward: { key: "MediaFastForward", keyCode: 0 },
  MediaSelect: { key: "LaunchMediaPlayer", keyCode: 181 },
  LaunchMail: { key: "LaunchMail", keyCode: 180 },
  LaunchApp1: { key: "LaunchApplication1", keyCode: 182 },
  LaunchApp2: { key: "LaunchApplication2", keyCode: 183 },
  BrowserBack: { key: "BrowserBack", keyCode: 166 },
  BrowserForward: { key: "BrowserForward", keyCode: 167 },
  BrowserRefresh: { key: "BrowserRefresh", keyCode: 168 },
  BrowserStop: { key: "BrowserStop", keyCode: 169 },
  BrowserSearch: { key: "BrowserSearch", keyCode: 170 },
  BrowserFavorites: { key: "BrowserFavorites", keyCode: 171 },
  BrowserHome: { key: "BrowserHome", keyCode: 172 },
  Eject: { key: "Eject", keyCode: 0 },
  Power: { key: "Power", keyCode: 0 },
  Sleep: { key: "Standby", keyCode: 95 },
  WakeUp: { key: "WakeUp", keyCode: 0 },
  BrightnessUp: { key: "BrightnessUp", keyCode: 0 },
  BrightnessDown: { key: "BrightnessDown", keyCode: 0 },
};
for (let n = 0; n <= 9; n++) {
  PHYSICAL[`Numpad${n}`] = { key: String(n), keyCode: 96 + n, location: NUMPAD };
}
for (let n = 1; n <= 24; n++) PHYSICAL[`F${n}`] = { key: `F${n}`, keyCode: 111 + n };
for (const letter of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  PHYSICAL[`Key${letter}`] = {
    key: letter.toLowerCase(),
    shifted: letter,
    keyCode: letter.charCodeAt(0),
  };
}

/** What pressing a key does: the key as it then reads, and whether shift is held for it. */
export interface Keystroke {
  key: KeyDefinition;
  /** The key as it reads when shift is held (the same key where shift changes nothing). */
  shifted: KeyDefinition;
  /** Shift must be held to get `key` ("!" is shift+1). */
  shift: boolean;
}

function definition(code: string, shifted: boolean): KeyDefinition {
  const physical = PHYSICAL[code];
  const key = shifted && physical.shifted !== undefined ? physical.shifted : physical.key;
  const text = physical.text ?? ([...key].length === 1 ? key : undefined);
  return {
    key,
    code,
    keyCode: physical.keyCode,
    location: physical.location ?? 0,
    ...(text !== undefined ? { text } : {}),
  };
}

function stroke(code: string, shift = false): Keystroke {
  return { key: definition(code, shift), shifted: definition(code, true), shift };
}

/** The key of each character a US keyboard types, and whether it takes shift. */
const CHARACTERS = new Map<string, Keystroke>();
for (const [code, physical] of Object.entries(PHYSICAL)) {
  // The main block comes first: "-" is the Minus key, not the numpad's.
  if ([...physical.key].length === 1 && !CHARACTERS.has(physical.key)) {
    CHARACTERS.set(physical.key, stroke(code));
  }
  if (physical.shifted !== undefined && !CHARACTERS.has(physical.shifted)) {
    CHARACTERS.set(physical.shifted, stroke(code, true));
  }
}
CHARACTERS.set("\n", stroke("Enter"));
CHARACTERS.set("\r", stroke("Enter"));
CHARACTERS.set("\t", stroke("Tab"));

/** Every code of the table by its lower-cased name, and each named key by its key value. */
const CODES = new Map<string, string>();
for (const code of Object.keys(PHYSICAL)) CODES.set(code.toLowerCase(), code);
for (const [code, physical] of Object.entries(PHYSICAL)) {
  // Key values of named keys ("AudioVolumeMute", "MediaPlayPause", "Standby") not taken by a code.
  if ([...physical.key].length > 1 && !CODES.has(physical.key.toLowerCase())) {
    CODES.set(physical.key.toLowerCase(), code);
  }
}

/** xdotool's keysym names of unshifted keys (and the short names agents write), lower-cased. */
const UNSHIFTED_NAMES: Record<string, string> = {
  return: "Enter",
  enter: "Enter",
  linefeed: "Enter",
  kp_enter: "NumpadEnter",
  tab: "Tab",
  backspace: "Backspace",
  delete: "Delete",
  del: "Delete",
  escape: "Escape",
  esc: "Escape",
  space: "Space",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  arrowup: "ArrowUp",
  arrowdown: "ArrowDown",
  arrowleft: "ArrowLeft",
  arrowright: "ArrowRight",
  home: "Home",
  end: "End",
  page_up: "PageUp",
  pageup: "PageUp",
  prior: "PageUp",
  page_down: "PageDown",
  pagedown: "PageDown",
  next: "PageDown",
  insert: "Insert",
  caps_lock: "CapsLock",
  capslock: "CapsLock",
  num_lock: "NumLock",
  numlock: "NumLock",
  scroll_lock: "ScrollLock",
  scrolllock: "ScrollLock",
  pause: "Pause",
  print: "PrintScreen",
  printscreen: "PrintScreen",
  sys_req: "PrintScreen",
  menu: "ContextMenu",
  contextmenu: "ContextMenu",
  help: "Help",
  minus: "Minus",
  equal: "Equal",
  comma: "Comma",
  period: "Period",
  slash: "Slash",
  backslash: "Backslash",
  semicolon: "Semicolon",
  apostrophe: "Quote",
  quoteright: "Quote",
  grave: "Backquote",
  quoteleft: "Backquote",
  bracketleft: "BracketLeft",
  bracketright: "BracketRight",
  kp_divide: "NumpadDivide",
  kp_multiply: "NumpadMultiply",
  kp_subtract: "NumpadSubtract",
  kp_add: "NumpadAdd",
  kp_decimal: "NumpadDecimal",
  kp_equal: "NumpadEqual",
  kp_separator: "NumpadComma",
  kp_space: "Space",
  kp_tab: "Tab",
  xf86audiomute: "AudioVolumeMute",
  xf86audiolowervolume: "AudioVolumeDown",
  xf86audioraisevolume: "AudioVolumeUp",
  xf86audionext: "MediaTrackNext",
  xf86audioprev: "MediaTrackPrevious",
  xf86audiostop: "MediaStop",
  xf86audioplay: "MediaPlayPause",
  xf86audiopause: "MediaPlayPause",
  xf86audiorecord: "MediaRecord",
  xf86audiorewind: "MediaRewind",
  xf86audioforward: "MediaFastForward",
  xf86audiomedia: "MediaSelect",
  xf86mail: "LaunchMail",
  xf86mycomputer: "LaunchApp1",
  xf86calculator: "LaunchApp2",
  xf86back: "BrowserBack",
  xf86forward: "BrowserForward",
  xf86reload: "BrowserRefresh",
  xf86refresh: "BrowserRefresh",
  xf86stop: "BrowserStop",
  xf86search: "BrowserSearch",
  xf86favorites: "BrowserFavorites",
  xf86homepage: "BrowserHome",
  xf86eject: "Eject",
  xf86poweroff: "Power",
  xf86sleep: "Sleep",
  xf86wakeup: "WakeUp",
  xf86monbrightnessup: "BrightnessUp",
  xf86monbrightnessdown: "BrightnessDown",
};
for (let n = 0; n <= 9; n++) UNSHIFTED_NAMES[`kp_${n}`] = `Numpad${n}`;
for (let n = 1; n <= 24; n++) UNSHIFTED_NAMES[`f${n}`] = `F${n}`;

/** xdotool's keysym names of characters typed with shift, lower-cased. */
const SHIFTED_NAMES: Record<string, string> = {
  exclam: "Digit1",
  at: "Digit2",
  numbersign: "Digit3",
  dollar: "Digit4",
  percent: "Digit5",
  asciicircum: "Digit6",
  ampersand: "Digit7",
  asterisk: "Digit8",
  parenleft: "Digit9",
  parenright: "Digit0",
  underscore: "Minus",
  plus: "Equal",
  bar: "Backslash",
  braceleft: "BracketLeft",
  braceright: "BracketRight",
  colon: "Semicolon",
  quotedbl: "Quote",
  less: "Comma",
  greater: "Period",
  question: "Slash",
  asciitilde: "Backquote",
  // X's name for shift+Tab.
  iso_left_tab: "Tab",
};

/** The numpad's keys with num lock off: the numpad's code, another key. */
const NUMPAD_NAVIGATION: Record<string, [code: string, physical: string]> = {
  kp_home: ["Numpad7", "Home"],
  kp_up: ["Numpad8", "ArrowUp"],
  kp_prior: ["Numpad9", "PageUp"],
  kp_page_up: ["Numpad9", "PageUp"],
  kp_left: ["Numpad4", "ArrowLeft"],
  kp_begin: ["Numpad5", "Clear"],
  kp_right: ["Numpad6", "ArrowRight"],
  kp_end: ["Numpad1", "End"],
  kp_down: ["Numpad2", "ArrowDown"],
  kp_next: ["Numpad3", "PageDown"],
  kp_page_down: ["Numpad3", "PageDown"],
  kp_insert: ["Numpad0", "Insert"],
  kp_delete: ["NumpadDecimal", "Delete"],
};

/** The modifier keys by name, lower-cased: the bit each sets and its physical key. */
export const MODIFIER_KEYS = {
  ctrl: "ControlLeft",
  control: "ControlLeft",
  control_l: "ControlLeft",
  control_r: "ControlRight",
  shift: "ShiftLeft",
  shift_l: "ShiftLeft",
  shift_r: "ShiftRight",
  alt: "AltLeft",
  alt_l: "AltLeft",
  alt_r: "AltRight",
  option: "AltLeft",
  meta: "MetaLeft",
  meta_l: "MetaLeft",
  meta_r: "MetaRight",
  cmd: "MetaLeft",
  command: "MetaLeft",
  super: "MetaLeft",
  super_l: "MetaLeft",
  super_r: "MetaRight",
  win: "MetaLeft",
  controlleft: "ControlLeft",
  controlright: "ControlRight",
  shiftleft: "ShiftLeft",
  shiftright: "ShiftRight",
  altleft: "AltLeft",
  altright: "AltRight",
  metaleft: "MetaLeft",
  metaright: "MetaRight",
} as const;

/** The physical key a modifier name presses, or undefined when `name` is not a modifier. */
export function modifierKey(name: string): KeyDefinition | undefined {
  const code = ownEntry(MODIFIER_KEYS, name.toLowerCase());
  return code === undefined ? undefined : definition(code, false);
}

/**
 * The key that types one character on a US keyboard; a character it has no key for (é, 😀)
 * is sent as text with no code, as a keyboard of another layout or an input method would.
 */
export function keystrokeForCharacter(char: string): Keystroke {
  const known = CHARACTERS.get(char);
  if (known) return known;
  const key: KeyDefinition = { key: char, code: "", keyCode: 0, location: 0, text: char };
  return { key, shifted: key, shift: false };
}

/** The key an xdotool keysym name (any case), a short name or a single character names. */
export function keystrokeForName(name: string): Keystroke | undefined {
  if ([...name].length === 1) return keystrokeForCharacter(name);
  const lower = name.toLowerCase();
  const unshifted = ownEntry(UNSHIFTED_NAMES, lower);
  if (unshifted !== undefined) return stroke(unshifted);
  const shifted = ownEntry(SHIFTED_NAMES, lower);
  if (shifted !== undefined) return stroke(shifted, true);
  // Playwright's and the DOM's names: a key's code ("Digit3", "NumpadSubtract") or key value.
  const byCode = CODES.get(lower);
  if (byCode !== undefined) return stroke(byCode);
  const navigation = ownEntry(NUMPAD_NAVIGATION, lower);
  if (navigation !== undefined) {
    const [code, like] = navigation;
    const key = like === "Clear"
      ? { key: "Clear", code, keyCode: 12, location: NUMPAD as KeyLocation }
      : { ...definition(like, false), code, location: NUMPAD as KeyLocation };
    return { key, shifted: key, shift: false };
  }
  return undefined;
}
