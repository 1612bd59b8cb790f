import { assert, assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import { ToolError } from "../core/errors.ts";
import { chordEvents, parseChords, parseModifiers, typeEvents } from "./input.ts";

type Params = {
  type: string;
  key: string;
  code: string;
  location?: number;
  modifiers: number;
  text?: string;
};
/** Each event as type:key:modifiers[:text], or with `where` type:key:code:location:modifiers. */
const describe = (where: boolean) => (events: { params: Record<string, unknown> }[]) =>
  events.map((event) => {
    const p = event.params as Params;
    return `${p.type}:${p.key}:${where ? `${p.code}:${p.location ?? 0}:` : ""}${p.modifiers}` +
      (p.text !== undefined ? `:${p.text}` : "");
  });
const summary = describe(false);
const full = describe(true);

Deno.test("chords press modifiers around the key and release them in reverse", () => {
  assertEquals(summary(chordEvents(parseChords("ctrl+a Delete"))), [
    "rawKeyDown:Control:2",
    "rawKeyDown:a:2",
    "keyUp:a:2",
    "keyUp:Control:0",
    "rawKeyDown:Delete:0",
    "keyUp:Delete:0",
  ]);
  assertEquals(summary(chordEvents(parseChords("shift+Tab"))), [
    "rawKeyDown:Shift:8",
    "rawKeyDown:Tab:8",
    "keyUp:Tab:8",
    "keyUp:Shift:0",
  ]);
});

Deno.test("xdotool names, case and aliases resolve", () => {
  const keys = parseChords("Return KP_Enter BackSpace page_down Prior F5 space ctrl++ super");
  assertEquals(keys.map((chord) => chord.key?.key.key ?? chord.modifiers.join("+")), [
    "Enter",
    "Enter",
    "Backspace",
    "PageDown",
    "PageUp",
    "F5",
    " ",
    "+",
    "meta",
  ]);
  assertEquals(summary(chordEvents(parseChords("Return"))), [
    "keyDown:Enter:0:\r",
    "keyUp:Enter:0",
  ]);
});

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error.message;
    throw error;
  }
  throw new Error("expected a ToolError");
}

Deno.test("unknown keys and modifiers are refused by name", () => {
  assertMatch(refusal(() => parseChords("ctrl+Banana")), /unknown key name "Banana"/);
  assertMatch(refusal(() => parseChords("hyper+a")), /"hyper" in "hyper\+a" is not a modifier/);
  assertMatch(refusal(() => parseChords("   ")), /text is required for key/);
  assertMatch(refusal(() => parseModifiers("ctrl+hyper")), /"hyper" is not a modifier/);
});

Deno.test("key and modifier names like properties of every object are refused, not pressed", () => {
  for (const name of ["constructor", "toString", "__proto__", "valueOf"]) {
    assertMatch(refusal(() => parseChords(name)), /unknown key name/, name);
    assertMatch(refusal(() => parseChords(`${name}+a`)), /is not a modifier/, name);
    assertMatch(refusal(() => parseChords(`ctrl+${name}`)), /unknown key name/, name);
    assertMatch(refusal(() => parseModifiers(name)), /is not a modifier/, name);
  }
});

Deno.test("modifier masks follow CDP's bits", () => {
  assertEquals(parseModifiers(undefined), 0);
  assertEquals(parseModifiers("alt"), 1);
  assertEquals(parseModifiers("ctrl+shift"), 10);
  assertEquals(parseModifiers("cmd"), 4);
});

Deno.test("typing presses one key per character, newlines as Enter", () => {
  assertEquals(summary(typeEvents("Hi\n")), [
    "keyDown:H:8:H",
    "keyUp:H:8",
    "keyDown:i:0:i",
    "keyUp:i:0",
    "keyDown:Enter:0:\r",
    "keyUp:Enter:0",
  ]);
  assertEquals(typeEvents("é😀").length, 4);
});

Deno.test("on macOS editing shortcuts carry their editor command", () => {
  const commands = (text: string, mac: boolean) =>
    chordEvents(parseChords(text), { mac }).map((event) => event.params.commands).filter(Boolean);
  assertEquals(commands("ctrl+a", true), [["selectAll"]]);
  assertEquals(commands("cmd+shift+z", true), [["redo"]]);
  assertEquals(commands("ctrl+a", false), []);
  assertEquals(commands("cmd+a", false), [["selectAll"]]);
  assertEquals(commands("alt+a shift+a a", true), []);
});

Deno.test("typed punctuation carries its key's code, and shift where the key needs it", () => {
  assertEquals(full(typeEvents("!^~a#")).filter((event) => event.startsWith("keyDown")), [
    "keyDown:!:Digit1:0:8:!",
    "keyDown:^:Digit6:0:8:^",
    "keyDown:~:Backquote:0:8:~",
    "keyDown:a:KeyA:0:0:a",
    "keyDown:#:Digit3:0:8:#",
  ]);
  // Every character a US keyboard types has its key's code.
  const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
  for (const event of typeEvents(printable)) {
    assert(event.params.code !== "", `a code for ${JSON.stringify(event.params.key)}`);
  }
});

Deno.test("shift held gives the shifted character: shift+3 types #", () => {
  assertEquals(full(chordEvents(parseChords("shift+3 shift+minus shift+a"))), [
    "rawKeyDown:Shift:ShiftLeft:1:8",
    "keyDown:#:Digit3:0:8:#",
    "keyUp:#:Digit3:0:8",
    "keyUp:Shift:ShiftLeft:1:0",
    "rawKeyDown:Shift:ShiftLeft:1:8",
    "keyDown:_:Minus:0:8:_",
    "keyUp:_:Minus:0:8",
    "keyUp:Shift:ShiftLeft:1:0",
    "rawKeyDown:Shift:ShiftLeft:1:8",
    "keyDown:A:KeyA:0:8:A",
    "keyUp:A:KeyA:0:8",
    "keyUp:Shift:ShiftLeft:1:0",
  ]);
});

Deno.test("modifiers report their side: Control_R is the right control key", () => {
  assertEquals(full(chordEvents(parseChords("Control_R+a Shift_R Alt_L Meta_R super"))), [
    "rawKeyDown:Control:ControlRight:2:2",
    "rawKeyDown:a:KeyA:0:2",
    "keyUp:a:KeyA:0:2",
    "keyUp:Control:ControlRight:2:0",
    "rawKeyDown:Shift:ShiftRight:2:8",
    "keyUp:Shift:ShiftRight:2:0",
    "rawKeyDown:Alt:AltLeft:1:1",
    "keyUp:Alt:AltLeft:1:0",
    "rawKeyDown:Meta:MetaRight:2:4",
    "keyUp:Meta:MetaRight:2:0",
    "rawKeyDown:Meta:MetaLeft:1:4",
    "keyUp:Meta:MetaLeft:1:0",
  ]);
});

Deno.test("xdotool keysym names of punctuation, the numpad and media keys resolve", () => {
  const downs = (text: string) =>
    full(chordEvents(parseChords(text))).filter((event) => !event.startsWith("keyUp"));
  assertEquals(downs("asciitilde exclam numbersign quotedbl braceleft"), [
    "keyDown:~:Backquote:0:8:~",
    "keyDown:!:Digit1:0:8:!",
    "keyDown:#:Digit3:0:8:#",
    'keyDown:":Quote:0:8:"',
    "keyDown:{:BracketLeft:0:8:{",
  ]);
  assertEquals(downs("ISO_Left_Tab"), ["rawKeyDown:Tab:Tab:0:8"]);
  assertEquals(downs("KP_Subtract KP_7 KP_Home KP_Enter"), [
    "keyDown:-:NumpadSubtract:3:0:-",
    "keyDown:7:Numpad7:3:0:7",
    "rawKeyDown:Home:Numpad7:3:0",
    "keyDown:Enter:NumpadEnter:3:0:\r",
  ]);
  assertEquals(downs("XF86AudioMute XF86AudioRaiseVolume XF86AudioPlay F13 Menu Caps_Lock"), [
    "rawKeyDown:AudioVolumeMute:AudioVolumeMute:0:0",
    "rawKeyDown:AudioVolumeUp:AudioVolumeUp:0:0",
    "rawKeyDown:MediaPlayPause:MediaPlayPause:0:0",
    "rawKeyDown:F13:F13:0:0",
    "rawKeyDown:ContextMenu:ContextMenu:0:0",
    "rawKeyDown:CapsLock:CapsLock:0:0",
  ]);
  // The numpad's keys say so to CDP, which is what sets their location.
  const keypad = chordEvents(parseChords("KP_Subtract"))[0].params;
  assertEquals(keypad.isKeypad, true);
  assertEquals(keypad.windowsVirtualKeyCode, 109);
});

Deno.test("Playwright's names, a key's code or its key value, resolve too", () => {
  const downs = (text: string) =>
    full(chordEvents(parseChords(text))).filter((event) => !event.startsWith("keyUp"));
  assertEquals(downs("Shift+Digit3 ControlRight NumpadSubtract AudioVolumeMute"), [
    "rawKeyDown:Shift:ShiftLeft:1:8",
    "keyDown:#:Digit3:0:8:#",
    "rawKeyDown:Control:ControlRight:2:2",
    "keyDown:-:NumpadSubtract:3:0:-",
    "rawKeyDown:AudioVolumeMute:AudioVolumeMute:0:0",
  ]);
});
