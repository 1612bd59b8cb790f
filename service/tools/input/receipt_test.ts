import { assert, assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import { WorkspaceRegistry } from "../../workspace/mod.ts";
import { type Receipt, renderReceipt } from "./receipt.ts";

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
