import { z } from "zod";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { Operations } from "../../shared/browser_protocol.ts";
import { type ChildSession, frameListing } from "./frame_listing.ts";

/** `tab.frames`'s answer as a service from before the held mark (0700) parses it. */
const BEFORE_THE_MARK = z.object({
  sessions: z.array(
    z.object({ session_id: z.string(), target_id: z.string(), type: z.string(), url: z.string() })
      .strict(),
  ).max(64),
}).strict();

const child = (id: string): ChildSession => ({
  session_id: id,
  target_id: `frame-${id}`,
  type: "iframe",
  url: `https://${id}.test/`,
});

Deno.test("a held frame is marked only for a service that asked for the mark", () => {
  const children = [child("free"), child("busy")];
  const held = new Set(["busy"]);

  const asked = { sessions: frameListing(children, held, true) };
  assertEquals(asked.sessions.map((session) => session.held), [undefined, true]);
  assert(Operations["tab.frames"].result.safeParse(asked).success, "this service reads it");

  // A service that did not ask (one from before the mark) is given the sessions unmarked, in the
  // shape its own schema takes.
  const unasked = { sessions: frameListing(children, held, false) };
  assertEquals(unasked.sessions, children);
  assert(BEFORE_THE_MARK.safeParse(unasked).success, "a service from before the mark reads it");
  assert(
    !BEFORE_THE_MARK.safeParse(asked).success,
    "the marked listing is what such a service refuses",
  );
});
