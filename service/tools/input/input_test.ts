import { assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import { ToolError } from "../core/errors.ts";
import { chordEvents, parseChords, parseModifiers, typeEvents } from "./input.ts";

type Params = { type: string; key: string; modifiers: number; text?: string };
const summary = (events: { params: Record<string, unknown> }[]) =>
  events.map((event) => {
    const p = event.params as Params;
    return `${p.type}:${p.key}:${p.modifiers}${p.text !== undefined ? `:${p.text}` : ""}`;
  });

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
  assertEquals(keys.map((chord) => chord.key?.key ?? chord.modifiers.join("+")), [
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
