import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { type BrowserLink, TabState } from "../../browser/mod.ts";
import type { TabTarget } from "../core/target.ts";
import { INSTALLED_TOKEN, LANDED_BINDING, vouchedCall } from "./in_page.ts";
import { type Command, readMainFrame, readVouched, trailingRead } from "./main_frame_read.ts";
import type { TabPages } from "./refs.ts";

/**
 * One tab's main frame as Chrome keeps it, enough for the read: documents by loader id, each
 * with its worlds' execution contexts. A context answers only for its own document, and fails
 * once that document is destroyed; a document kept in the back/forward cache keeps its contexts
 * (the worst case for a read: its evaluation still answers while the frame shows another).
 */
class FakeFrame {
  shown: string;
  readonly #contexts = new Map<number, string>();
  #next = 1;
  /** Runs before the sequence's command at that index (a navigation committing there). */
  before: Map<number, () => void> = new Map();
  sequences: { commands: Command[]; pipeline?: boolean }[] = [];
  /** The tab's events as the service has them. */
  readonly events = new TabState();

  constructor(first: string) {
    this.shown = first;
  }

  /**
   * A new document commits with the runtime registered for it: its world is made as it is
   * created, and the runtime names it through the binding, after the commit on the tab's events.
   */
  commitWithNote(loader: string): number {
    this.commit(loader, false);
    const id = this.#next++;
    this.#contexts.set(id, loader);
    this.events.apply({
      method: "Page.frameNavigated",
      params: { frame: { id: "main", loaderId: loader } },
    });
    this.events.apply({
      method: "Runtime.bindingCalled",
      params: {
        name: LANDED_BINDING,
        payload: JSON.stringify({ world: `token-${loader}` }),
        executionContextId: id,
      },
    });
    return id;
  }

  /** A new document commits; the old one is destroyed, or kept (back/forward cache). */
  commit(loader: string, keepOld: boolean): void {
    if (!keepOld) {
      for (const [id, owner] of this.#contexts) if (owner === this.shown) this.#contexts.delete(id);
    }
    this.shown = loader;
  }

  run(command: Command): Record<string, unknown> {
    switch (command.method) {
      case "Page.getFrameTree":
        return { frameTree: { frame: { id: "main", loaderId: this.shown } } };
      case "Page.createIsolatedWorld": {
        const id = this.#next++;
        this.#contexts.set(id, this.shown);
        return { executionContextId: id };
      }
      case "Runtime.evaluate": {
        const owner = this.#contexts.get(command.params.contextId as number);
        if (owner === undefined) throw new Error("Cannot find context with specified id");
        // Every read answers the document it ran in; the token says the runtime is there. A
        // vouching read also says, as the runtime knows it, whether the frame shows that
        // document (not another, not hidden in the back/forward cache).
        const expression = command.params.expression;
        const value = expression === INSTALLED_TOKEN
          ? `token-${owner}`
          : expression === "vouch"
          ? { doc: owner, current: owner === this.shown }
          : expression === vouchedCall("read")
          ? { current: owner === this.shown, value: owner }
          : owner;
        // A read that fails in a document the frame no longer shows (one kept in the cache).
        if (expression === vouchedCall("fragile") && owner !== this.shown) {
          return {
            exceptionDetails: { text: "Uncaught", exception: { description: "TypeError" } },
          };
        }
        if (expression === vouchedCall("fragile")) {
          return { result: { value: { current: true, value } } };
        }
        return { result: { value } };
      }
    }
    throw new Error(`unexpected ${command.method}`);
  }

  target(): TabTarget {
    const call = (operation: string, params: Record<string, unknown>) => {
      if (operation === "cdp.sequence") {
        const sequence = params as unknown as FakeFrame["sequences"][number];
        this.sequences.push(sequence);
        return Promise.resolve().then(() => ({
          results: sequence.commands.map((command, index) => {
            this.before.get(index)?.();
            return this.run(command);
          }),
        }));
      }
      return Promise.resolve().then(() => this.run(params as unknown as Command));
    };
    const events = this.events;
    const tab = () => {
      const { promise: event, resolve } = Promise.withResolvers<null>();
      return {
        watch: () => ({ event, stop: () => resolve(null) }),
        get mainDocument() {
          return events.mainDocument;
        },
      };
    };
    return { link: { call, tab } as unknown as BrowserLink, native: 1, tabId: 1 };
  }
}

function freshPages(): TabPages {
  return { frames: new Map(), numbers: new Map(), entries: new Map(), next: 1, reads: new Map() };
}

/** A frame showing document A whose world is known, as after a first read. */
async function knownWorldOfA(): Promise<{ frame: FakeFrame; target: TabTarget; pages: TabPages }> {
  const frame = new FakeFrame("A");
  const target = frame.target();
  const pages = freshPages();
  assertEquals((await readMainFrame<string>(target, pages, "read")).value, "A");
  frame.sequences = [];
  return { frame, target, pages };
}

Deno.test("a read of a current world is one evaluation and one look after it, pipelined when synchronous", async () => {
  const { frame, target, pages } = await knownWorldOfA();
  const read = await readMainFrame<string>(target, pages, "read", [], { synchronous: true });
  assertEquals([read.value, read.loaderId], ["A", "A"]);
  assertEquals(frame.sequences.length, 1);
  assertEquals(frame.sequences[0].commands.map((c) => c.method), [
    "Runtime.evaluate",
    "Page.getFrameTree",
  ]);
  assertEquals(frame.sequences[0].pipeline, true);
});

Deno.test("a read across a navigation never answers for a document the frame does not show", async () => {
  // A navigation commits before the evaluation or between it and the look; the old document is
  // destroyed or kept in the back/forward cache, or the frame goes back to it before the look.
  for (const at of [0, 1]) {
    for (const how of ["destroyed", "cached", "left and came back"] as const) {
      if (how === "left and came back" && at === 1) continue;
      const { frame, target, pages } = await knownWorldOfA();
      frame.before.set(at, () => {
        frame.before.clear();
        frame.commit("B", how !== "destroyed");
        // Back to A (restored from the cache) just before the look: A was hidden meanwhile.
        if (how === "left and came back") frame.before.set(1, () => frame.shown = "A");
      });
      const read = await readMainFrame<string>(target, pages, "read", [], {
        synchronous: true,
      });
      const where = `navigation before command ${at}, old document ${how}`;
      // The value is the document's whose world it came from, and that is the one shown now.
      assertEquals(read.value, read.loaderId, where);
      assertEquals(read.loaderId, frame.shown, where);
      assertEquals(read.frame.loaderId, frame.shown, where);
    }
  }
});

type Vouched = (target: TabTarget, pages: TabPages) => Promise<{
  doc: string | undefined;
  loaderId: string;
  frame: { loaderId?: string };
}>;

/**
 * A vouched read is one evaluation; after a navigation that commits before it, with the old
 * document destroyed (the evaluation fails) or kept in the back/forward cache (its runtime says it
 * is not shown), it is read again in the document the frame shows.
 */
async function checkVouched(read: Vouched): Promise<void> {
  {
    const { frame, target, pages } = await knownWorldOfA();
    const answer = await read(target, pages);
    assertEquals([answer.doc, answer.loaderId], ["A", "A"]);
    assertEquals(frame.sequences.map((s) => s.commands.map((c) => c.method)), [
      ["Runtime.evaluate"],
    ]);
  }
  for (const how of ["destroyed", "cached"] as const) {
    const { frame, target, pages } = await knownWorldOfA();
    frame.before.set(0, () => {
      frame.before.clear();
      frame.commit("B", how === "cached");
    });
    const answer = await read(target, pages);
    assertEquals([answer.doc, answer.loaderId, answer.frame.loaderId], ["B", "B", "B"], how);
  }
}

Deno.test("a read whose value vouches for its document is the evaluation alone, and read again when it cannot", async () => {
  const vouched = { synchronous: true, vouched: true };
  await checkVouched(async (target, pages) => {
    const read = await readMainFrame<{ doc: string }>(target, pages, "vouch", [], vouched);
    return { ...read, doc: read.value?.doc };
  });
  // Commands beside a read still go after a look: they are sent only with it.
  const { frame, target, pages } = await knownWorldOfA();
  const beside = [{ method: "Runtime.evaluate", params: { expression: "read", contextId: 1 } }];
  await readMainFrame<{ doc: string }>(target, pages, "vouch", beside, vouched);
  assertEquals(frame.sequences[0].commands.map((c) => c.method), [
    "Runtime.evaluate",
    "Page.getFrameTree",
    "Runtime.evaluate",
  ]);
});

Deno.test("a walk or text read the runtime vouches for is one evaluation, and read again when hidden", async () => {
  await checkVouched(async (target, pages) => {
    const read = await readVouched<string>(target, pages, "read");
    return { ...read, doc: read.value ?? undefined };
  });
  // Without a look, a read that fails is read again: the failing world may be a document kept in
  // the back/forward cache while the frame shows another.
  const { frame, target, pages } = await knownWorldOfA();
  frame.before.set(0, () => {
    frame.before.clear();
    frame.commit("B", true);
  });
  const read = await readVouched<string>(target, pages, "fragile");
  assertEquals([read.value, read.loaderId], ["B", "B"]);
});

Deno.test("a new document's first read is one trip in the world its runtime named", async () => {
  const { frame, target, pages } = await knownWorldOfA();
  const context = frame.commitWithNote("B");
  const read = await readMainFrame<string>(target, pages, "read");
  assertEquals([read.value, read.loaderId, read.frame.token], ["B", "B", "token-B"]);
  assertEquals(frame.sequences.map((s) => s.commands.map((c) => c.method)), [[
    "Runtime.evaluate",
    "Page.getFrameTree",
  ]]);
  assertEquals(frame.sequences[0].commands[0].params.contextId, context);
  // A page back from the back/forward cache named nothing new (B stays alive in the cache and
  // would still answer): its own world is found and read, and B's is not taken back.
  frame.commit("A", true);
  frame.events.apply({
    method: "Page.frameNavigated",
    params: { frame: { id: "main", loaderId: "A" }, type: "BackForwardCacheRestore" },
  });
  const back = await readMainFrame<string>(target, pages, "read");
  assertEquals([back.value, back.loaderId], ["A", "A"]);
  frame.sequences = [];
  assertEquals((await readMainFrame<string>(target, pages, "read")).value, "A");
  assertEquals(evaluatedIn(frame), [back.frame.contextId]);
});

/** The contexts the reads' evaluations went to, in order. */
function evaluatedIn(frame: FakeFrame): unknown[] {
  return frame.sequences.flatMap((s) =>
    s.commands.filter((c) => c.method === "Runtime.evaluate").map((c) => c.params.contextId)
  );
}

Deno.test("a note the tab moved on from is taken once: the world the read found stays", async () => {
  const { frame, target, pages } = await knownWorldOfA();
  const stale = frame.commitWithNote("B");
  // The main frame shows C, and the tab's events never said so (a detach, a lost session).
  frame.commit("C", false);
  const read = await readMainFrame<string>(target, pages, "read");
  assertEquals([read.value, read.loaderId], ["C", "C"]);
  assert(read.frame.contextId !== stale);
  frame.sequences = [];
  for (let i = 0; i < 2; i++) {
    assertEquals((await readMainFrame<string>(target, pages, "read")).value, "C");
  }
  assertEquals(evaluatedIn(frame), [read.frame.contextId, read.frame.contextId]);
});

Deno.test("the settle read after input is one evaluation, used only when it vouches for its document", () => {
  const world = { key: "/main", frameId: "main", contextId: 4, token: "t", loaderId: "A" };
  const read = trailingRead<{ current?: boolean; n: number }>(world, "settle")!;
  const c = read.command;
  assertEquals([c.method, c.afterReplies, c.params.contextId], ["Runtime.evaluate", true, 4]);
  const reply = (value: unknown) => ({ result: { value } });
  assertEquals(read.answer(reply({ current: true, n: 3 }))?.value, { current: true, n: 3 });
  assertEquals(read.answer(reply({ current: true, n: 3 }))?.loaderId, "A");
  // A document hidden in the back/forward cache, or a value that does not say.
  assertEquals(read.answer(reply({ current: false, n: 3 })), null);
  assertEquals(read.answer(reply({ n: 3 })), null);
  // The read failed (the extension answers its failure as a reply), or threw in the page.
  assertEquals(read.answer({ failed: "Cannot find context with specified id" }), null);
  assertEquals(read.answer({ exceptionDetails: { text: "gone" } }), null);
  assertEquals(read.answer(undefined as unknown as Record<string, unknown>), null);
  // A world in a frame of its own is not read this way.
  assertEquals(trailingRead({ ...world, parent: { frameKey: "/main", localId: 2 } }, "x"), null);
});
