import { assert, assertEquals } from "../../tests/support/assert.ts";
import {
  CONSOLE_PAUSED_EVENT,
  type FromExtension,
  NETWORK_PAUSED_EVENT,
} from "../../shared/browser_protocol.ts";
import { CONTROL_REQUESTS, LANE_EVENTS, Outbox, OUTBOX_WINDOW } from "./outbox.ts";

const BUSY = 1;
const QUIET = 2;

function event(tab: number, n: number, method = "Runtime.consoleAPICalled"): FromExtension {
  return { type: "cdp_event", tab_id: tab, method, params: { n } };
}

function result(id: number): FromExtension {
  return { type: "result", id, ok: true, value: {} };
}

/** An outbox posting into a list, with a connector that counts. */
function counted(): { outbox: Outbox; posted: FromExtension[] } {
  const posted: FromExtension[] = [];
  const outbox = new Outbox((frame) => posted.push(frame));
  outbox.passed(0);
  return { outbox, posted };
}

/** What was posted, in short: `b3` an event of tab 1, `q3` one of tab 2, `r7` result 7. */
function words(frames: FromExtension[]): string[] {
  return frames.map((frame) => {
    if (frame.type === "result") return `r${frame.id}`;
    if (frame.type === "cdp_event") {
      return `${frame.tab_id === BUSY ? "b" : "q"}${(frame.params as { n: number }).n}`;
    }
    return frame.type;
  });
}

Deno.test("without the connector's count every frame is posted at once, in order", () => {
  const posted: FromExtension[] = [];
  const outbox = new Outbox((frame) => posted.push(frame));
  for (let n = 0; n < 100; n++) outbox.put(event(BUSY, n));
  outbox.put(result(1), QUIET);
  assertEquals(posted.length, 101);
  assertEquals(words(posted).at(-1), "r1");
  assertEquals(outbox.waiting, 0);
});

Deno.test("a quiet tab's answer overtakes a busy tab's backlog, and its events take turns", () => {
  const { outbox, posted } = counted();
  for (let n = 0; n < 200; n++) outbox.put(event(BUSY, n));
  // Only the window is in Chrome's hands.
  assertEquals(posted.length, OUTBOX_WINDOW);
  outbox.put(event(QUIET, 0));
  outbox.put(event(QUIET, 1));
  outbox.put(result(7), QUIET);
  outbox.put(event(QUIET, 2));
  // The connector passes on four frames: the two tabs take turns.
  outbox.passed(4);
  assertEquals(words(posted.slice(OUTBOX_WINDOW)), ["b16", "q0", "b17", "q1"]);
  // The quiet tab's answer is next ahead of any event, its own later event after it.
  outbox.passed(8);
  assertEquals(words(posted.slice(OUTBOX_WINDOW + 4)), ["r7", "b18", "q2", "b19"]);
  // The busy tab's events keep their order.
  outbox.passed(1_000);
  const busy = words(posted).filter((word) => word.startsWith("b"));
  assertEquals(busy, Array.from({ length: 200 }, (_, n) => `b${n}`));
  assertEquals(outbox.waiting, 0);
});

Deno.test("frames of no tab go first; a tab's answer stays behind that tab's own events", () => {
  const { outbox, posted } = counted();
  for (let n = 0; n < OUTBOX_WINDOW + 3; n++) outbox.put(event(BUSY, n));
  outbox.put(result(1), BUSY);
  outbox.put({ type: "ended", generation: "g", link: 1, id: 4 });
  outbox.put({ type: "tab_created", tab_id: QUIET, active: false });
  outbox.passed(4);
  assertEquals(words(posted.slice(OUTBOX_WINDOW)), [
    "ended",
    "tab_created",
    `b${OUTBOX_WINDOW}`,
    `b${OUTBOX_WINDOW + 1}`,
  ]);
  outbox.passed(100);
  assertEquals(words(posted).slice(-2), [`b${OUTBOX_WINDOW + 2}`, "r1"]);
});

Deno.test("a full lane drops new events and counts them; answers, dialogs and notices stay", () => {
  const { outbox, posted } = counted();
  const sent = LANE_EVENTS + OUTBOX_WINDOW + 100;
  for (let n = 0; n < sent; n++) outbox.put(event(BUSY, n));
  outbox.put(result(3), BUSY);
  outbox.put(event(BUSY, -1, "Page.javascriptDialogOpening"));
  outbox.put(event(BUSY, -2, "Ghostlight.consolePaused"));
  for (let n = 0; n < 50; n++) outbox.put(event(BUSY, sent + n));
  assertEquals(outbox.dropped, 150);
  outbox.passed(10_000);
  const events = posted.filter((frame) => frame.type === "cdp_event");
  const dropped = events.reduce(
    (sum, frame) => sum + (frame.type === "cdp_event" ? frame.dropped ?? 0 : 0),
    0,
  );
  // Every event is either posted or counted on one that was.
  assertEquals(events.length - 2 + dropped, sent + 50);
  const said = words(posted);
  assert(said.includes("r3"), "the answer is never dropped");
  assert(said.includes("b-1") && said.includes("b-2"), "nor a dialog or a pause notice");
  // The lane never held more than its bound of droppable events.
  assertEquals(posted.length, OUTBOX_WINDOW + LANE_EVENTS + 3);
});

Deno.test("a tab's pause notices go ahead of its waiting events, in the order they came", () => {
  const { outbox, posted } = counted();
  for (let n = 0; n < OUTBOX_WINDOW + LANE_EVENTS; n++) outbox.put(event(BUSY, n));
  outbox.put(result(4), BUSY);
  outbox.put(event(BUSY, -1, NETWORK_PAUSED_EVENT));
  outbox.put(event(BUSY, -2, CONSOLE_PAUSED_EVENT));
  outbox.put(event(QUIET, 0));
  outbox.passed(3);
  // The flood's notice does not wait behind the flood (nor the answer): the busy tab's next
  // frames are its notices, taking their turns with the quiet tab's.
  assertEquals(words(posted).slice(OUTBOX_WINDOW), ["b-1", "q0", "b-2"]);
  outbox.passed(10_000);
  assertEquals(words(posted).slice(OUTBOX_WINDOW + 3, OUTBOX_WINDOW + 5), [
    `b${OUTBOX_WINDOW}`,
    `b${OUTBOX_WINDOW + 1}`,
  ]);
  assertEquals(words(posted).at(-1), "r4", "the answer keeps its place behind its events");
});

Deno.test("clear forgets what waits; reset also forgets the connector's count", () => {
  const { outbox, posted } = counted();
  for (let n = 0; n < 40; n++) outbox.put(event(BUSY, n));
  outbox.clear();
  assertEquals(outbox.waiting, 0);
  outbox.passed(OUTBOX_WINDOW);
  assertEquals(posted.length, OUTBOX_WINDOW);
  outbox.reset();
  for (let n = 0; n < 40; n++) outbox.put(event(BUSY, n));
  // A new connector that has not said it counts: nothing waits.
  assertEquals(posted.length, OUTBOX_WINDOW + 40);
});

Deno.test("the person's requests waiting for a stalled connector are bounded; acknowledgements are not", () => {
  const { outbox, posted } = counted();
  const person = (id: number): FromExtension => ({
    type: "person",
    id,
    request: { op: "state" },
  });
  // The connector takes nothing: the window fills, then the frames of no tab wait here.
  for (let id = 1; id <= OUTBOX_WINDOW + CONTROL_REQUESTS + 10; id++) outbox.put(person(id), null);
  assertEquals(posted.length, OUTBOX_WINDOW);
  assertEquals(outbox.waiting, CONTROL_REQUESTS);
  assertEquals(outbox.dropped, 10);
  // What is never dropped still waits beyond the bound.
  outbox.put({ type: "ended", generation: "g", link: 1, id: 1 }, null);
  assertEquals(outbox.waiting, CONTROL_REQUESTS + 1);
  // Once the connector passes frames on, the waiting requests go, in order, and room is made.
  outbox.passed(OUTBOX_WINDOW + CONTROL_REQUESTS + 1);
  assertEquals(outbox.waiting, 0);
  assertEquals(
    posted.slice(OUTBOX_WINDOW, OUTBOX_WINDOW + 2).map((frame) => (frame as { id: number }).id),
    [OUTBOX_WINDOW + 1, OUTBOX_WINDOW + 2],
  );
  outbox.put(person(1_000), null);
  assertEquals(outbox.dropped, 10);
});

Deno.test("a tab's answer goes ahead of its events of a kind no longer listened to, never ahead of others", () => {
  const posted: FromExtension[] = [];
  // The busy tab's console is listened to until `paused` is set.
  let paused = false;
  const outbox = new Outbox(
    (frame) => posted.push(frame),
    (tab, method) => paused && tab === BUSY && method === "Runtime.consoleAPICalled",
  );
  outbox.passed(0);
  for (let n = 0; n < OUTBOX_WINDOW + 10; n++) outbox.put(event(BUSY, n));
  // Where the tab stands and a page event wait among the flood's lines.
  outbox.put({ type: "tab_location", tab_id: BUSY }, BUSY);
  outbox.put(event(BUSY, -1, "Page.frameStartedLoading"));
  for (let n = OUTBOX_WINDOW + 10; n < LANE_EVENTS; n++) outbox.put(event(BUSY, n));
  outbox.put(result(5), BUSY);
  outbox.put(event(BUSY, -2, "Network.requestWillBeSent"));
  // While the console is listened to, the answer keeps its place behind the lines.
  outbox.passed(1);
  assertEquals(words(posted).at(-1), `b${OUTBOX_WINDOW}`);
  // Once it is not, the answer goes ahead of the lines directly before it, behind the rest.
  paused = true;
  outbox.passed(10_000);
  const said = words(posted);
  const answered = said.indexOf("r5");
  assertEquals(said.slice(answered - 2, answered + 2), [
    "tab_location",
    "b-1",
    "r5",
    `b${OUTBOX_WINDOW + 10}`,
  ]);
  // The events keep their order among themselves, and nothing is lost.
  const lines = said.filter((word) => /^b\d+$/.test(word));
  assertEquals(lines, Array.from({ length: LANE_EVENTS }, (_, n) => `b${n}`));
  assertEquals(said.at(-1), "b-2", "an event after the answer stays after it");
  assertEquals(said.length, LANE_EVENTS + 4);
});
