import { assert } from "../../../tests/support/assert.ts";
import { chordEvents, parseChords } from "./input.ts";
import { mayPipeline } from "./send.ts";

function mouse(type: string, extra: Record<string, unknown> = {}) {
  return { method: "Input.dispatchMouseEvent", params: { type, x: 10, y: 20, ...extra } };
}

Deno.test("a click's and a key chord's events go out pipelined", () => {
  const press = { button: "left", clickCount: 1 };
  assert(mayPipeline([mouse("mouseMoved"), mouse("mousePressed", press), mouse("mouseReleased")]));
  assert(mayPipeline([
    mouse("mouseMoved"),
    mouse("mousePressed", press),
    mouse("mouseReleased", press),
    mouse("mousePressed", { ...press, clickCount: 2 }),
    mouse("mouseReleased", { ...press, clickCount: 2 }),
  ]));
  assert(mayPipeline(chordEvents(parseChords("ctrl+a Delete"))));
});

Deno.test("a drag, a wheel and anything but input wait for each event", () => {
  const press = { button: "left", buttons: 1, clickCount: 1 };
  assert(
    !mayPipeline([
      mouse("mouseMoved"),
      mouse("mousePressed", press),
      mouse("mouseMoved", { button: "left", buttons: 1 }),
      mouse("mouseReleased", press),
    ]),
  );
  assert(!mayPipeline([mouse("mouseWheel", { deltaX: 0, deltaY: 100 })]));
  assert(!mayPipeline([{ method: "Runtime.evaluate", params: { expression: "1" } }]));
});
