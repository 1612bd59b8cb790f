/**
 * Tests of `frames.ts`: the typed contract of runtime calls, and the main frame's one-round-trip
 * reads.
 *
 * @module
 */

import { assert, assertEquals } from "../../../tests/support/assert.ts";
import type {
  PackedSnapshot,
  PageMethods,
  Readable,
  ScrollProbe,
  Snapshot,
} from "../page_runtime/contract.ts";
import {
  answerPath,
  asPackedWalk,
  type Command,
  elementCall,
  type Frame,
  frameWorld,
  INSTALLED_TOKEN,
  knownMain,
  labelIn,
  leadingRead,
  lookupRef,
  mainWorldCall,
  noRuntime,
  parseJson,
  readMainFrame,
  readVouched,
  refFor,
  type RuntimeAnswer,
  runtimeArguments,
  type RuntimeCall,
  runtimeCall,
  type RuntimeMethod,
  type TabPages,
  trailingRead,
  valueOf,
  vouchedCall,
} from "./frames.ts";
import { BrowserError, type BrowserLink, TabState } from "../../browser/mod.ts";
import { ToolError } from "../core/errors.ts";
import type { TabTarget } from "../core/target.ts";
import { LANDED_BINDING } from "./landed_facts.ts";

// The contract with the page runtime holds at the type level (decision 0320): a call names a
// method the runtime has, with the arguments it takes, and its answer has the runtime's type.
// Each `@ts-expect-error` below fails the type check of this file if the line it marks ever
// compiles, so loosening the call helper (back to a bare string, or `unknown[]` arguments) fails
// this test.

/** True only when `A` and `B` are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

function holds<T extends true>(): T | undefined {
  return undefined;
}

Deno.test("a runtime call is checked for its method, its arguments and its answer", () => {
  const read = runtimeCall("readable", true, 100);
  holds<Same<typeof read, RuntimeCall<Readable>>>();
  holds<Same<RuntimeAnswer<"fill">, Awaited<ReturnType<PageMethods["fill"]>>>>();
  assertEquals(read, "globalThis.__ghostlight?.readable?.(true, 100)");

  // @ts-expect-error a method the runtime does not have
  runtimeCall("readText", true, 100);
  // @ts-expect-error an argument of the wrong type
  runtimeCall("readable", "true", 100);
  // @ts-expect-error an argument missing
  runtimeCall("readable", true);
  // @ts-expect-error the token is a value, not a method
  runtimeCall("token");

  // The answer's type comes with the call: reading it as another type does not compile.
  const reply = {
    result: { value: { url: "u", title: "t", text: "x", length: 1, scope: "", whole: 1 } },
  };
  const value: Readable = valueOf(read, reply);
  assertEquals(value.text, "x");
  // @ts-expect-error a snapshot is not what `readable` answers
  const _wrong: Snapshot = valueOf(read, reply);
});

Deno.test("element calls, vouched calls and JSON text keep the runtime's types", () => {
  assertEquals(elementCall("describe", 7), "globalThis.__ghostlight?.describe?.(7)");
  assertEquals(elementCall("describe", 7, false), "globalThis.__ghostlight?.describe?.(7, false)");
  // @ts-expect-error `box` takes the element's number alone
  elementCall("box", 7, true);
  // @ts-expect-error `framesShown` takes no element
  elementCall("framesShown", 7);

  const vouched = vouchedCall(runtimeCall("framesShown"));
  holds<
    Same<
      typeof vouched,
      RuntimeCall<{ current: boolean; value: ReturnType<PageMethods["framesShown"]> }>
    >
  >();
  assertEquals(
    vouched,
    "globalThis.__ghostlight?.vouch?.(globalThis.__ghostlight?.framesShown?.())",
  );

  const walk = asPackedWalk(runtimeCall("snapshot", { filter: "all" }));
  assertEquals(
    walk,
    'globalThis.__ghostlight?.packWalk?.(globalThis.__ghostlight?.snapshot?.({"filter":"all"}))',
  );
  const parsed: PackedSnapshot = parseJson(valueOf(walk, { result: { value: '{"gone":true}' } }));
  assertEquals(parsed, { gone: true });

  assertEquals(runtimeArguments("putFiles", null, { x: 1, y: 2 }, [], "drop"), [
    { value: null },
    { value: { x: 1, y: 2 } },
    { value: [] },
    { value: "drop" },
  ]);
  // @ts-expect-error a mode `putFiles` does not know
  runtimeArguments("putFiles", null, null, [], "paste");
});

Deno.test("a world without the runtime is told by its reply's type, not by an error's words", () => {
  // What CDP answers for `globalThis.__ghostlight?.readable?.(...)` where no runtime is installed.
  assertEquals(noRuntime({ result: { type: "undefined" } }), true);
  assertEquals(noRuntime({ result: { type: "object", subtype: "null", value: null } }), false);
  assertEquals(noRuntime({ result: { type: "string", value: "" } }), false);
  // No method of the contract answers undefined, so the reply's type cannot be mistaken.
  holds<Same<Extract<RuntimeAnswer<RuntimeMethod>, undefined>, never>>();
});

Deno.test("a main-world call is checked against the contract too", () => {
  const probe = mainWorldCall("scrollProbe", { x: 1, y: 2 });
  holds<Same<typeof probe, RuntimeCall<ScrollProbe>>>();
  assert(probe.endsWith(')({"x":1,"y":2})'));
  // @ts-expect-error a function the main world does not have
  mainWorldCall("scrollTo", null);
  // @ts-expect-error `windowSizeOnceMoved` takes where the window was and a bound
  mainWorldCall("windowSizeOnceMoved", 5);
});

Deno.test("a page program's test of a runtime answer names a field the contract has", () => {
  assertEquals(answerPath("prepareAction", "before", "hidden"), [
    "result",
    "value",
    "before",
    "hidden",
  ]);
  assertEquals(answerPath("prepareAction", "point"), ["result", "value", "point"]);
  // @ts-expect-error `prepareAction` answers no `hiddenNow`
  answerPath("prepareAction", "before", "hiddenNow");
  // @ts-expect-error `observeBefore` answers `hidden` at its top, not under `before`
  answerPath("observeBefore", "before", "hidden");
});

//

/** A stand-in expression the fake browser below recognises by its text. */
function fake<T>(text: string): RuntimeCall<T> {
  return text as RuntimeCall<T>;
}

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
        if (owner === undefined) {
          throw new BrowserError(
            "context_lost",
            "Runtime.evaluate: Cannot find context with specified id",
          );
        }
        // Every read answers the document it ran in; the token says the runtime is there. A
        // vouching read also says, as the runtime knows it, whether the frame shows that
        // document (not another, not hidden in the back/forward cache).
        const expression = command.params.expression;
        const value = expression === INSTALLED_TOKEN
          ? `token-${owner}`
          : expression === "vouch"
          ? { doc: owner, current: owner === this.shown }
          : expression === vouchedCall(fake("read"))
          ? { current: owner === this.shown, value: owner }
          : owner;
        // A read that fails in a document the frame no longer shows (one kept in the cache).
        if (expression === vouchedCall(fake("fragile")) && owner !== this.shown) {
          return {
            exceptionDetails: { text: "Uncaught", exception: { description: "TypeError" } },
          };
        }
        if (expression === vouchedCall(fake("fragile"))) {
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
  assertEquals((await readMainFrame<string>(target, pages, fake("read"))).value, "A");
  frame.sequences = [];
  return { frame, target, pages };
}

Deno.test("a read of a current world is one evaluation and one look after it, pipelined when synchronous", async () => {
  const { frame, target, pages } = await knownWorldOfA();
  const read = await readMainFrame<string>(target, pages, fake("read"), [], { synchronous: true });
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
      const read = await readMainFrame<string>(target, pages, fake("read"), [], {
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
    const read = await readMainFrame<{ doc: string }>(target, pages, fake("vouch"), [], vouched);
    return { ...read, doc: read.value?.doc };
  });
  // Questions beside a vouched read travel with it, without a look: the value says whether
  // their replies are used (decision 0590).
  const { frame, target, pages } = await knownWorldOfA();
  const beside = [{ method: "Runtime.evaluate", params: { expression: "read", contextId: 1 } }];
  const read = await readMainFrame<{ doc: string }>(target, pages, fake("vouch"), beside, vouched);
  assertEquals(frame.sequences.map((s) => s.commands.map((c) => c.method)), [[
    "Runtime.evaluate",
    "Runtime.evaluate",
  ]]);
  assertEquals(read.beside.length, 1);
  // A value that cannot vouch: the replies beside it are not used, but asked again after the
  // read the ordinary way.
  const stale = await knownWorldOfA();
  stale.frame.before.set(0, () => {
    stale.frame.before.clear();
    stale.frame.commit("B", true);
  });
  const again = await readMainFrame<{ doc: string }>(
    stale.target,
    stale.pages,
    fake("vouch"),
    beside,
    vouched,
  );
  assertEquals([again.value?.doc, again.beside.length], ["B", 1]);
  assertEquals(stale.frame.sequences.at(-1)!.commands.map((c) => c.method), ["Runtime.evaluate"]);
});

Deno.test("a walk or text read the runtime vouches for is one evaluation, and read again when hidden", async () => {
  await checkVouched(async (target, pages) => {
    const read = await readVouched<string>(target, pages, fake("read"));
    return { ...read, doc: read.value ?? undefined };
  });
  // Without a look, a read that fails is read again: the failing world may be a document kept in
  // the back/forward cache while the frame shows another.
  const { frame, target, pages } = await knownWorldOfA();
  frame.before.set(0, () => {
    frame.before.clear();
    frame.commit("B", true);
  });
  const read = await readVouched<string>(target, pages, fake("fragile"));
  assertEquals([read.value, read.loaderId], ["B", "B"]);
});

Deno.test("a new document's first read is one trip in the world its runtime named", async () => {
  const { frame, target, pages } = await knownWorldOfA();
  const context = frame.commitWithNote("B");
  const read = await readMainFrame<string>(target, pages, fake("read"));
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
  const back = await readMainFrame<string>(target, pages, fake("read"));
  assertEquals([back.value, back.loaderId], ["A", "A"]);
  frame.sequences = [];
  assertEquals((await readMainFrame<string>(target, pages, fake("read"))).value, "A");
  assertEquals(evaluatedIn(frame), [back.frame.contextId]);
});

/** The contexts the reads' evaluations went to, in order. */
function evaluatedIn(frame: FakeFrame): unknown[] {
  return frame.sequences.flatMap((s) =>
    s.commands.filter((c) => c.method === "Runtime.evaluate").map((c) => c.params.contextId)
  );
}

/** `frame` committing `loader` just before the next `Page.createIsolatedWorld` reaches it. */
function commitBeforeNextWorld(frame: FakeFrame, loader: string): void {
  const run = frame.run.bind(frame);
  frame.run = (command) => {
    if (command.method === "Page.createIsolatedWorld") {
      frame.run = run;
      frame.commit(loader, false);
    }
    return run(command);
  };
}

Deno.test("a world made after a look is kept only as the document the frame shows once it is made", async () => {
  // The first read of a tab looks at the frame tree (A), then asks for the world: a navigation
  // to B commits in between, so the world Chrome answers is B's.
  const frame = new FakeFrame("A");
  const target = frame.target();
  const pages = freshPages();
  commitBeforeNextWorld(frame, "B");
  const read = await readMainFrame<string>(target, pages, fake("read"));
  assertEquals([read.value, read.loaderId, read.frame.loaderId], ["B", "B", "B"]);
});

Deno.test("a read whose look was answered before a navigation leaves the new document's refs alone", async () => {
  // The flake in request_filter_test: an earlier call's settle read looked at the frame tree
  // while the tab still showed A, and asked for a world only once B had loaded and a ref of B
  // had been given out. The world Chrome answered was B's; kept as A's, it replaced B's in the
  // memory, and the ref was "not on this page any more" on the page it came from.
  const { frame, target, pages } = await knownWorldOfA();
  frame.commitWithNote("B");
  const world = knownMain(target, pages)!;
  assertEquals(world.loaderId, "B");
  const ref = refFor(pages, world, 7);
  const late = await frameWorld(target, pages, { frameId: "main", loaderId: "A" }).then(
    () => null,
    (error: unknown) => error,
  );
  assertEquals(late?.constructor.name, "FrameGone");
  assertEquals(lookupRef(pages, ref).frame.loaderId, "B");
});

Deno.test("a note the tab moved on from is taken once: the world the read found stays", async () => {
  const { frame, target, pages } = await knownWorldOfA();
  const stale = frame.commitWithNote("B");
  // The main frame shows C, and the tab's events never said so (a detach, a lost session).
  frame.commit("C", false);
  const read = await readMainFrame<string>(target, pages, fake("read"));
  assertEquals([read.value, read.loaderId], ["C", "C"]);
  assert(read.frame.contextId !== stale);
  frame.sequences = [];
  for (let i = 0; i < 2; i++) {
    assertEquals((await readMainFrame<string>(target, pages, fake("read"))).value, "C");
  }
  assertEquals(evaluatedIn(frame), [read.frame.contextId, read.frame.contextId]);
});

Deno.test("the settle read after input is one evaluation, used only when it vouches for its document", () => {
  const world = { key: "/main", frameId: "main", contextId: 4, token: "t", loaderId: "A" };
  const read = trailingRead<{ current?: boolean; n: number }>(world, fake("settle"))!;
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
  assertEquals(
    trailingRead({ ...world, parent: { frameKey: "/main", localId: 2 } }, fake("x")),
    null,
  );
});

Deno.test("a read in a world that holds no runtime is a miss, read again where one is made", () => {
  const world = { key: "/main", frameId: "main", contextId: 4, token: "t", loaderId: "A" };
  const read = leadingRead(world, fake<{ n: number }>("before"))!;
  const look = { frameTree: { frame: { id: "main", loaderId: "A" } } };
  assertEquals(read.answer({ result: { type: "object", value: { n: 1 } } }, look)?.value, {
    n: 1,
  });
  // The call answered undefined: there was no runtime in the world to call.
  assertEquals(read.answer({ result: { type: "undefined" } }, look), null);
});

Deno.test("a page that replaces its document at every read is told so, not as an internal error", async () => {
  const { frame, target, pages } = await knownWorldOfA();
  let commits = 0;
  const run = frame.run.bind(frame);
  // Every evaluation of the read finds its world destroyed: the page navigates each time.
  frame.run = (command) => {
    if (command.method === "Runtime.evaluate" && command.params.expression === "read") {
      frame.commit(`N${commits++}`, false);
    }
    return run(command);
  };
  const error = await readMainFrame<string>(target, pages, fake("read")).then(
    () => null,
    (error: unknown) => error,
  );
  assert(error instanceof ToolError, `a ToolError, not ${error}`);
  assertEquals(error.kind, "tool_failure");
  assert(error.message.startsWith("The page changed while it was being read"), error.message);
  assert(commits >= 2, `read twice before it gave up (${commits})`);
});

Deno.test("a ref's label is made when a question asks for it, not as each ref is given out", () => {
  const pages: TabPages = {
    frames: new Map(),
    numbers: new Map(),
    entries: new Map(),
    next: 1,
    reads: new Map(),
  };
  const frame: Frame = { key: "/main", frameId: "main", contextId: 1, token: "t0k3n" };
  const secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
  const ref = refFor(pages, frame, 7, { role: "generic-clickable", name: `Key ${secret}` });
  // Kept as the read named it: a read of the 3,000-row page gives out about 1,200 refs, and no
  // redaction is spent on those no question names (decision 0620).
  assertEquals(pages.entries.get(1)?.read, { role: "generic-clickable", name: `Key ${secret}` });
  assertEquals(labelIn(pages, ref), { role: "clickable", name: "Key [redacted]" });
  // The name is cut as it is kept, so the memory of a tab's refs stays bounded.
  const long = refFor(pages, frame, 8, { role: "button", name: "x".repeat(400) });
  assertEquals(pages.entries.get(2)?.read?.name.length, 150);
  assertEquals(labelIn(pages, long)?.name, `${"x".repeat(149)}…`);
  assertEquals(labelIn(pages, refFor(pages, frame, 9)), null, "a ref no read named");
  assertEquals(labelIn(pages, "ref_99"), null);
});
