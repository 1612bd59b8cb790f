import { assert, assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import { pollUntil } from "../../../tests/support/wait.ts";
import { BrowserError, type BrowserLink, TabState } from "../../browser/mod.ts";
import { WorkspaceRegistry } from "../../workspace/mod.ts";
import type { TabTarget } from "../core/target.ts";
import { INSTALLED_TOKEN } from "../page/frames.ts";
import { type Before, observeAfter, type Receipt, renderReceipt } from "./receipt.ts";
import { NavigationWatch } from "./send.ts";

const workspace = new WorkspaceRegistry().open("test client");

function receipt(overrides: Partial<Receipt> = {}): Receipt {
  return {
    action: "left_click",
    targetAssurance: "coordinate",
    target: { role: "button", name: "Save", tag: "button", x: 10, y: 20 },
    observedAfter: { mutations: 1, renderAdvanced: true, settled: true },
    blockers: [],
    page: {
      tabId: 7,
      url: "https://a.test/",
      origin: "https://a.test",
      title: "A",
      renderSerial: 1,
    },
    more: false,
    ...overrides,
  };
}

Deno.test("mechanical facts stay outside the fence, page strings inside it", () => {
  const text = renderReceipt(workspace, receipt(), "left_click at (10, 20).");
  const [facts, ...fenced] = text.split("\n");
  assertEquals(facts, "left_click at (10, 20). 1 DOM change.");
  assertMatch(
    fenced[0],
    new RegExp(`^<page-content-${workspace.fenceNonce} origin="https://a.test"`),
  );
  assertEquals(fenced[1], 'target: button "Save"');
});

Deno.test("navigation, opened tabs and blockers are spelled out", () => {
  const text = renderReceipt(
    workspace,
    receipt({
      observedAfter: {
        urlChanged: "https://a.test/next",
        titleChanged: "Next",
        mutations: 0,
        renderAdvanced: true,
        settled: true,
        focus: { role: "textbox", name: "Email", tag: "input", value: "a@b.c" },
      },
      blockers: [{ kind: "disabled", summary: "It is disabled.", nextStep: "Fill the form." }],
      tabDelta: { opened: [{ tabId: 9, active: true }], closed: [], more: false },
    }),
    "Clicked.",
  );
  assertMatch(
    text,
    /^Clicked\. Now at https:\/\/a\.test <page-content-[\w-]+ [^>]*>\n\/next\n<\/page-content-[\w-]+>\. Opened tab 9 \(yours now/,
  );
  assertMatch(text, /It is disabled\. Fill the form\./);
  assertMatch(text, /focused: textbox "Email" holding "a@b\.c"/);
  assertMatch(text, /title: "Next"/);
  assert(!text.includes("still loading"), "a page that had loaded is not said to be loading");
});

Deno.test("a field the form's own checks refused is named inside the fence", () => {
  const text = renderReceipt(
    workspace,
    receipt({
      observedAfter: {
        mutations: 0,
        renderAdvanced: true,
        settled: true,
        invalidField: {
          role: "spinbutton",
          name: "Years",
          tag: "input",
          value: "100",
          message: "Value must be less than or equal to 80.",
        },
      },
      blockers: [{ kind: "invalid_form", summary: "Not submitted.", nextStep: "Fix it." }],
    }),
    "Clicked.",
  );
  assertMatch(text, /^Clicked\. No DOM change seen\. Not submitted\. Fix it\.\n/);
  assertMatch(
    text,
    /<page-content[^>]*>[^<]*\ninvalid: spinbutton "Years" holding "100": "Value must be less than or equal to 80\."\n<\/page-content/,
  );
});

Deno.test("a page reached while its images still load says so", () => {
  const observedAfter = {
    urlChanged: "https://a.test/slow",
    mutations: 0,
    renderAdvanced: false,
    settled: true,
    stillLoading: true as const,
  };
  const text = renderReceipt(workspace, receipt({ observedAfter }), "Clicked.");
  assertMatch(
    text,
    /^Clicked\. Now at https:\/\/a\.test <page-content-[\w-]+ [^>]*>\n\/slow\n<\/page-content-[\w-]+>\. Its document is ready; some resources are still loading\./,
  );
});

Deno.test("a focus equal to the target is not repeated", () => {
  const target = { role: "textbox", name: "Name", tag: "input" };
  const text = renderReceipt(
    workspace,
    receipt({
      target,
      observedAfter: { mutations: 0, renderAdvanced: true, settled: true, focus: target },
    }),
    "Clicked.",
  );
  assert(!/focused:/.test(text), text);
  assertMatch(text, /No DOM change seen\./);
});

/** A command as the fake link below saw it: sent to the tab, or refused as its work was over. */
interface Seen {
  method: string;
  sent: boolean;
}

/**
 * A link to one tab showing document A whose main frame no world is known of yet: its look at the
 * frame tree, worlds and evaluations answer as Chrome's do, and the first look waits for
 * `release`. Like the real link, it refuses a command whose signal aborted before it went out.
 */
function slowTab(): {
  target: TabTarget;
  tab: TabState;
  seen: Seen[];
  release: () => void;
} {
  const tab = new TabState();
  const seen: Seen[] = [];
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  let looks = 0;
  const answer = (method: string, params: Record<string, unknown>): unknown => {
    switch (method) {
      case "Page.getFrameTree":
        return { frameTree: { frame: { id: "main", loaderId: "A" } } };
      case "Page.createIsolatedWorld":
        return { executionContextId: 1 };
      case "Runtime.evaluate": {
        const value = params.expression === INSTALLED_TOKEN ? "token" : {
          url: "https://a.test/",
          title: "A",
          n: 0,
          rendered: false,
          settled: true,
          ready: "complete",
          changed: [],
          hidden: false,
        };
        return { result: { type: typeof value, value } };
      }
    }
    throw new Error(`unexpected ${method}`);
  };
  const call = async (
    _operation: string,
    params: { method: string; params: Record<string, unknown> },
    options: { signal?: AbortSignal } = {},
  ) => {
    if (options.signal?.aborted) {
      seen.push({ method: params.method, sent: false });
      throw new BrowserError("abandoned", "the work it was for is over");
    }
    seen.push({ method: params.method, sent: true });
    if (params.method === "Page.getFrameTree" && looks++ === 0) await released;
    return answer(params.method, params.params);
  };
  const link = {
    call,
    tab: () => tab,
    tabChangeSerial: 0,
    tabChangesSince: () => [],
    tabChangeAfter: () => Promise.resolve(false),
    compose: (native: number) => native,
  };
  return {
    target: { link: link as unknown as BrowserLink, native: 1, tabId: 1 },
    tab,
    seen,
    release,
  };
}

Deno.test("a settle read that lost its race to the page's leaving sends nothing once the call answered", async () => {
  const { target, tab, seen, release } = slowTab();
  const workspace = new WorkspaceRegistry().open("test client");
  workspace.tabs.add(1);
  const frame = { frameId: "main", loaderId: "A" };
  const before: Before = {
    url: "https://a.test/",
    title: "A",
    mutations: 0,
    tabSerial: 0,
    owned: new Set([1]),
    frame,
  };
  const watch = new NavigationWatch(tab, frame, 5_000);
  const receipt = observeAfter(workspace, target, before, {
    action: "left_click",
    assurance: "coordinate",
    watch,
  });
  // The settle read's first look is held; meanwhile the page asks for another document, which a
  // request filter stops: the page stays, and is read again as it is.
  await pollUntil(() => Promise.resolve(seen.length), (n) => n === 1, "the settle read's look");
  tab.apply({
    method: "Network.requestWillBeSent",
    params: { type: "Document", frameId: "main", requestId: "r1" },
  });
  tab.apply({ method: "Network.loadingFailed", params: { requestId: "r1" } });
  assertEquals((await receipt).page.url, "https://a.test/");
  const answered = seen.length;
  // The losing read's look answers only now; whatever it does next must not reach the tab.
  release();
  await pollUntil(
    () => Promise.resolve(seen.length),
    (n) => n > answered,
    "the losing read's next command",
  );
  assertEquals(seen.slice(answered).filter((command) => command.sent), []);
});
