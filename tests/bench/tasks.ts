/**
 * The task set of `deno task bench --tasks` (issue 32): eight jobs of different shapes on the
 * fixture site under tests/fixtures/tasks/, each written once per MCP server as the shortest
 * sequence a careful agent would use with that server's own tools, and each checked at the end by
 * what the page reached (the state it posts to the fixture server) or, for a task that only reads,
 * by whether the answers the agent got carry the page's facts. Success is measured, never assumed.
 *
 * A careful agent does not know a page's markup, only what the task says and what the server's
 * answers showed it: it names controls by the words the task uses (Ghostlight's `act_on` and
 * `form_fill`, Playwright's role selectors), reads a page when it needs refs the task cannot give
 * it (chrome-devtools-mcp's uids, Playwright inside an iframe), and looks at the page after an
 * action whose answer does not show what happened.
 *
 * @module
 */

import type { FixtureServer, Submission } from "../support/fixtures.ts";
import { waitFor, within } from "../support/wait.ts";
import type { Answer } from "./journey.ts";
import { STEP_MS } from "./journey.ts";

/** The servers the tasks are written for (the raw-CDP floor has no tools to count). */
export const TASK_PEERS = ["ghostlight", "playwright", "devtools"] as const;
export type TaskPeer = typeof TASK_PEERS[number];

/** What a task script may do: call the server's tools (counted), and find a ref in an answer. */
export interface TaskContext {
  /** One counted call of the server's own tool. An error answer fails the task. */
  call(name: string, args: Record<string, unknown>): Promise<Answer>;
  /** The ref the server's `answer` gives the element with `role` and `label`, or null. */
  refOf(answer: Answer, role: string, label: string): string | null;
  /** The fixture page's address, carrying the round's run id. */
  url(path: string): string;
}

/** What one task script returns: the text the agent bases its answer on (read tasks). */
export type TaskScript = (t: TaskContext) => Promise<string>;

/** One task: its scripts per server and the check of its outcome. */
export interface Task {
  id: string;
  title: string;
  scripts: Record<TaskPeer, TaskScript>;
  /** Null when the task really succeeded, else why not. */
  check(outcome: { reports: Record<string, unknown>[]; answer: string }): string | null;
}

/** One task done once by one server. */
export interface TaskResult {
  task: string;
  calls: number;
  textChars: number;
  images: number;
  imageChars: number;
  /** Wall time from the first call's start to the last call's answer. */
  ms: number;
  ok: boolean;
  note?: string;
}

/** A Playwright role selector: what its tools accept in place of a ref. */
const pw = (role: string, name: string) => `role=${role}[name=${JSON.stringify(name)}]`;

/** The ref for `role` `label` in `answer`, or a clear failure. */
function need(t: TaskContext, answer: Answer, role: string, label: string): string {
  const ref = t.refOf(answer, role, label);
  if (ref === null) throw new Error(`no ref for ${role} "${label}" in the answer`);
  return ref;
}

/**
 * A careful agent's look after an action: when the action's answer does not show `text`, it reads
 * the page with `read`; the task fails if even the read does not show it.
 */
async function lookFor(answer: Answer, text: string, read: () => Promise<Answer>) {
  if (answer.text.includes(text)) return answer;
  const seen = await read();
  if (!seen.text.includes(text)) throw new Error(`the page did not show "${text}"`);
  return seen;
}

/** The task's last report from the page, if any. */
function last(reports: Record<string, unknown>[], task: string) {
  return reports.filter((r) => r.task === task).at(-1);
}

/** Checks `want` against the page's last report of `task`. */
function reported(
  reports: Record<string, unknown>[],
  task: string,
  want: Record<string, unknown>,
): string | null {
  const got = last(reports, task);
  if (!got) return "the page reported no outcome";
  const wrong = Object.entries(want).filter(([key, value]) => got[key] !== value);
  return wrong.length === 0
    ? null
    : `the page ended with ${wrong.map(([k]) => `${k}=${JSON.stringify(got[k])}`).join(", ")}`;
}

/** Every one of `facts` in `answer`, in order; else which is missing. */
function carries(answer: string, facts: string[]): string | null {
  let at = 0;
  for (const fact of facts) {
    const found = answer.indexOf(fact, at);
    if (found < 0) {
      return `the answers do not show "${fact}"${at > 0 ? " after the one before" : ""}`;
    }
    at = found + fact.length;
  }
  return null;
}

const ENTRY = 2718;
const CHECKOUT = {
  name: "Ada Lighthouse",
  email: "ada@skerry.example",
  badPostcode: "99 90",
  postcode: "9990",
  badCard: "4111 1111 1111 1111",
  card: "4111111111111111",
  expiry: "09/29",
};
const POSTCODE_ERROR = "Postcode must be 4 digits";
const CARD_ERROR = "Card number must be 16 digits";
const HEADINGS = [
  ["Winter storms", "three panes"],
  ["The new lens", "LED array"],
  ["Supply boats", "every eleven days"],
  ["Seabird counts", "4,200"],
  ["Fog signals", "312 hours"],
  ["Visitors", "Ninety-one"],
  ["Repairs", "granite"],
  ["Looking ahead", "Solar panels"],
];
const PRODUCT_FACTS = {
  a: ["Storm lantern Mk II", "€249", "3.2 kg"],
  b: ["Harbour lantern Lite", "€189", "2.1 kg"],
};

/** The eight tasks. */
export const TASKS: Task[] = [
  {
    id: "table",
    title: `3,000-row table: find entry ${ENTRY} and open it`,
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/logbook.html") });
        await t.call("act_on", {
          target: { role: "button", name: `Open ${ENTRY}` },
          action: "left_click",
        });
        return "";
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/logbook.html") });
        await t.call("browser_click", {
          element: `Open ${ENTRY} button`,
          target: pw("button", `Open ${ENTRY}`),
        });
        return "";
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/logbook.html") });
        const snapshot = await t.call("take_snapshot", {});
        await t.call("click", { uid: need(t, snapshot, "button", `Open ${ENTRY}`) });
        return "";
      },
    },
    check: ({ reports }) => reported(reports, "table", { opened: ENTRY, trusted: true }),
  },
  {
    id: "shop",
    title: "Filter to Lamps, sort by price high to low, read the top three",
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/shop.html") });
        await t.call("form_fill", {
          fields: { "Category": "Lamps", "Sort by": "Price: high to low" },
        });
        return (await t.call("get_page_text", {})).text;
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/shop.html") });
        await t.call("browser_fill_form", {
          fields: [
            {
              target: pw("combobox", "Category"),
              name: "Category",
              type: "combobox",
              value: "Lamps",
            },
            {
              target: pw("combobox", "Sort by"),
              name: "Sort by",
              type: "combobox",
              value: "Price: high to low",
            },
          ],
        });
        return (await t.call("browser_snapshot", {})).text;
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/shop.html") });
        const snapshot = await t.call("take_snapshot", {});
        const filled = await t.call("fill_form", {
          elements: [
            { uid: need(t, snapshot, "combobox", "Category"), value: "Lamps" },
            { uid: need(t, snapshot, "combobox", "Sort by"), value: "Price: high to low" },
          ],
          includeSnapshot: true,
        });
        return filled.text;
      },
    },
    check({ reports, answer }) {
      const state = last(reports, "shop");
      const wrong = reported(reports, "shop", { category: "lamps", sort: "price-desc" });
      if (wrong) return wrong;
      return carries(answer, (state!.top as string[]).map((name) => `${name}`));
    },
  },
  {
    id: "checkout",
    title: "Two-page checkout, correcting the errors each page shows",
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/checkout.html") });
        const read = () => t.call("get_page_text", {});
        const first = await t.call("form_fill", {
          fields: {
            "Full name": CHECKOUT.name,
            "Email": CHECKOUT.email,
            "Postcode": CHECKOUT.badPostcode,
          },
          submit: true,
        });
        await lookFor(first, POSTCODE_ERROR, read);
        await t.call("form_fill", { fields: { "Postcode": CHECKOUT.postcode }, submit: true });
        const pay = await t.call("form_fill", {
          fields: {
            "Card number": CHECKOUT.badCard,
            "Expiry (MM/YY)": CHECKOUT.expiry,
            "I accept the terms of sale": true,
          },
          submit: true,
        });
        await lookFor(pay, CARD_ERROR, read);
        const done = await t.call("form_fill", {
          fields: { "Card number": CHECKOUT.card },
          submit: true,
        });
        await lookFor(done, "Order placed", read);
        return "";
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/checkout.html") });
        const read = () => t.call("browser_snapshot", {});
        const text = (name: string, value: string) => ({
          target: pw("textbox", name),
          name,
          type: "textbox",
          value,
        });
        await t.call("browser_fill_form", {
          fields: [
            text("Full name", CHECKOUT.name),
            text("Email", CHECKOUT.email),
            text("Postcode", CHECKOUT.badPostcode),
          ],
        });
        const go = () =>
          t.call("browser_click", {
            element: "Continue to payment",
            target: pw("button", "Continue to payment"),
          });
        await lookFor(await go(), POSTCODE_ERROR, read);
        await t.call("browser_fill_form", { fields: [text("Postcode", CHECKOUT.postcode)] });
        await go();
        await t.call("browser_fill_form", {
          fields: [
            text("Card number", CHECKOUT.badCard),
            text("Expiry (MM/YY)", CHECKOUT.expiry),
            {
              target: pw("checkbox", "I accept the terms of sale"),
              name: "I accept the terms of sale",
              type: "checkbox",
              value: "true",
            },
          ],
        });
        const place = () =>
          t.call("browser_click", { element: "Place order", target: pw("button", "Place order") });
        await lookFor(await place(), CARD_ERROR, read);
        await t.call("browser_fill_form", { fields: [text("Card number", CHECKOUT.card)] });
        await lookFor(await place(), "Order placed", read);
        return "";
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/checkout.html") });
        const form = await t.call("take_snapshot", {});
        const read = () => t.call("take_snapshot", {});
        await t.call("fill_form", {
          elements: [
            { uid: need(t, form, "textbox", "Full name"), value: CHECKOUT.name },
            { uid: need(t, form, "textbox", "Email"), value: CHECKOUT.email },
            { uid: need(t, form, "textbox", "Postcode"), value: CHECKOUT.badPostcode },
          ],
        });
        const go = need(t, form, "button", "Continue to payment");
        const refused = await lookFor(
          await t.call("click", { uid: go, includeSnapshot: true }),
          POSTCODE_ERROR,
          read,
        );
        await t.call("fill", {
          uid: need(t, refused, "textbox", "Postcode"),
          value: CHECKOUT.postcode,
        });
        const pay = await t.call("click", {
          uid: need(t, refused, "button", "Continue to payment"),
          includeSnapshot: true,
        });
        await t.call("fill_form", {
          elements: [
            { uid: need(t, pay, "textbox", "Card number"), value: CHECKOUT.badCard },
            { uid: need(t, pay, "textbox", "Expiry (MM/YY)"), value: CHECKOUT.expiry },
            { uid: need(t, pay, "checkbox", "I accept the terms of sale"), value: "true" },
          ],
        });
        const place = need(t, pay, "button", "Place order");
        const declined = await lookFor(
          await t.call("click", { uid: place, includeSnapshot: true }),
          CARD_ERROR,
          read,
        );
        await t.call("fill", {
          uid: need(t, declined, "textbox", "Card number"),
          value: CHECKOUT.card,
        });
        await lookFor(
          await t.call("click", { uid: place, includeSnapshot: true }),
          "Order placed",
          read,
        );
        return "";
      },
    },
    check({ reports }) {
      const wrong = reported(reports, "checkout", {
        name: CHECKOUT.name,
        email: CHECKOUT.email,
        postcode: CHECKOUT.postcode,
        card: CHECKOUT.card,
        expiry: CHECKOUT.expiry,
        terms: true,
      });
      if (wrong) return wrong;
      const state = last(reports, "checkout")!;
      return Number(state.deliveryErrors) >= 1 && Number(state.paymentErrors) >= 1
        ? null
        : "the page never showed its validation errors";
    },
  },
  {
    id: "settings",
    title: "Settings: two toggles in one tab, a confirm dialog in another, save",
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/settings.html") });
        const click = (role: string, name: string) =>
          t.call("act_on", { target: { role, name }, action: "left_click" });
        await click("tab", "Notifications");
        await click("switch", "Email alerts");
        await click("switch", "Sound");
        await click("tab", "Privacy");
        await click("button", "Clear history");
        await t.call("dialog", { action: "accept" });
        await click("button", "Save settings");
        return "";
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/settings.html") });
        const click = (role: string, name: string) =>
          t.call("browser_click", { element: name, target: pw(role, name) });
        await click("tab", "Notifications");
        await click("switch", "Email alerts");
        await click("switch", "Sound");
        await click("tab", "Privacy");
        await click("button", "Clear history");
        await t.call("browser_handle_dialog", { accept: true });
        await click("button", "Save settings");
        return "";
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/settings.html") });
        const page = await t.call("take_snapshot", {});
        const notifications = await t.call("click", {
          uid: need(t, page, "tab", "Notifications"),
          includeSnapshot: true,
        });
        await t.call("click", { uid: need(t, notifications, "switch", "Email alerts") });
        await t.call("click", { uid: need(t, notifications, "switch", "Sound") });
        const privacy = await t.call("click", {
          uid: need(t, notifications, "tab", "Privacy"),
          includeSnapshot: true,
        });
        await t.call("click", { uid: need(t, privacy, "button", "Clear history") });
        await t.call("handle_dialog", { action: "accept" });
        await t.call("click", { uid: need(t, privacy, "button", "Save settings") });
        return "";
      },
    },
    check: ({ reports }) =>
      reported(reports, "settings", { email: true, sound: false, digest: false, cleared: true }),
  },
  {
    id: "search",
    title: 'Search with autocomplete: type "skerry", choose Skerry Point Harbour',
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/search.html") });
        await t.call("act_on", {
          target: { role: "combobox", name: "Search harbours" },
          action: "set_value",
          value: "skerry",
        });
        await t.call("act_on", {
          target: { role: "option", name: "Skerry Point Harbour" },
          action: "left_click",
        });
        return "";
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/search.html") });
        await t.call("browser_type", {
          element: "Search harbours",
          target: pw("combobox", "Search harbours"),
          text: "skerry",
        });
        await t.call("browser_click", {
          element: "Skerry Point Harbour",
          target: pw("option", "Skerry Point Harbour"),
        });
        return "";
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/search.html") });
        const page = await t.call("take_snapshot", {});
        const typed = await t.call("fill", {
          uid: need(t, page, "combobox", "Search harbours"),
          value: "skerry",
          includeSnapshot: true,
        });
        // Its plain snapshot leaves the list's options out; the verbose one shows them.
        const list = t.refOf(typed, "option", "Skerry Point Harbour") === null
          ? await t.call("take_snapshot", { verbose: true })
          : typed;
        await t.call("click", { uid: need(t, list, "option", "Skerry Point Harbour") });
        return "";
      },
    },
    check: ({ reports }) =>
      reported(reports, "search", { selected: "Skerry Point Harbour", trusted: true }),
  },
  {
    id: "iframe",
    title: "A newsletter form inside an iframe: fill four fields and subscribe",
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/framed.html") });
        await t.call("form_fill", {
          fields: {
            "Your name": CHECKOUT.name,
            "Your email": CHECKOUT.email,
            "Home harbour": "Skerry Point",
            "Send it weekly": true,
          },
          submit: true,
        });
        return "";
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/framed.html") });
        // Role selectors do not reach into a frame: the refs come from a snapshot.
        const page = await t.call("browser_snapshot", {});
        const field = (role: string, name: string, type: string, value: string) => ({
          target: need(t, page, role, name),
          name,
          type,
          value,
        });
        await t.call("browser_fill_form", {
          fields: [
            field("textbox", "Your name", "textbox", CHECKOUT.name),
            field("textbox", "Your email", "textbox", CHECKOUT.email),
            field("combobox", "Home harbour", "combobox", "Skerry Point"),
            field("checkbox", "Send it weekly", "checkbox", "true"),
          ],
        });
        await t.call("browser_click", {
          element: "Subscribe",
          target: need(t, page, "button", "Subscribe"),
        });
        return "";
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/framed.html") });
        const page = await t.call("take_snapshot", {});
        await t.call("fill_form", {
          elements: [
            { uid: need(t, page, "textbox", "Your name"), value: CHECKOUT.name },
            { uid: need(t, page, "textbox", "Your email"), value: CHECKOUT.email },
            { uid: need(t, page, "combobox", "Home harbour"), value: "Skerry Point" },
            { uid: need(t, page, "checkbox", "Send it weekly"), value: "true" },
          ],
        });
        await t.call("click", { uid: need(t, page, "button", "Subscribe") });
        return "";
      },
    },
    check: ({ reports }) =>
      reported(reports, "iframe", {
        name: CHECKOUT.name,
        email: CHECKOUT.email,
        harbour: "Skerry Point",
        weekly: true,
        trusted: true,
      }),
  },
  {
    id: "article",
    title: "Read an article and summarise it by its headings",
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/gazette.html") });
        return (await t.call("get_page_text", {})).text;
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/gazette.html") });
        return (await t.call("browser_snapshot", {})).text;
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/gazette.html") });
        return (await t.call("take_snapshot", {})).text;
      },
    },
    check: ({ answer }) => carries(answer, HEADINGS.flat()),
  },
  {
    id: "compare",
    title: "Compare two product pages: price and weight of each",
    scripts: {
      async ghostlight(t) {
        await t.call("navigate", { url: t.url("/tasks/product.html?p=a") });
        const a = await t.call("get_page_text", {});
        await t.call("navigate", { url: t.url("/tasks/product.html?p=b") });
        const b = await t.call("get_page_text", {});
        return `${a.text}\n${b.text}`;
      },
      async playwright(t) {
        await t.call("browser_navigate", { url: t.url("/tasks/product.html?p=a") });
        const a = await t.call("browser_snapshot", {});
        await t.call("browser_navigate", { url: t.url("/tasks/product.html?p=b") });
        const b = await t.call("browser_snapshot", {});
        return `${a.text}\n${b.text}`;
      },
      async devtools(t) {
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/product.html?p=a") });
        const a = await t.call("take_snapshot", {});
        await t.call("navigate_page", { type: "url", url: t.url("/tasks/product.html?p=b") });
        const b = await t.call("take_snapshot", {});
        return `${a.text}\n${b.text}`;
      },
    },
    check: ({ answer }) => carries(answer, [...PRODUCT_FACTS.a, ...PRODUCT_FACTS.b]),
  },
];

/** Longest one task may take before it counts as failed. */
export const TASK_MS = 300_000;

/**
 * Runs every task once on one server. `call` is the server's own tool call and `refOf` its way
 * of naming refs; each task gets a run id of its own, so its reports are its alone.
 */
export async function runTasks(
  peer: TaskPeer,
  call: (name: string, args: Record<string, unknown>) => Promise<Answer>,
  refOf: (answer: Answer, role: string, label: string) => string | null,
  fixtures: FixtureServer,
  runId: string,
  only: string[] | null = null,
): Promise<TaskResult[]> {
  const results: TaskResult[] = [];
  for (const task of TASKS) {
    if (only && !only.includes(task.id)) continue;
    const run = `${runId}-${task.id}`;
    const result: TaskResult = {
      task: task.id,
      calls: 0,
      textChars: 0,
      images: 0,
      imageChars: 0,
      ms: 0,
      ok: false,
    };
    const context: TaskContext = {
      async call(name, args) {
        result.calls++;
        const answer = await within(call(name, args), STEP_MS, `${name}`);
        result.textChars += answer.textChars;
        result.images += answer.images.length;
        result.imageChars += answer.imageChars;
        if (answer.isError) {
          throw new Error(
            `${name} answered an error: ${answer.text.replace(/\s+/g, " ").slice(0, 300)}`,
          );
        }
        return answer;
      },
      refOf,
      url(path) {
        const url = new URL(fixtures.url(path));
        url.searchParams.set("run", run);
        return url.href;
      },
    };
    const started = performance.now();
    try {
      const answer = await within(task.scripts[peer](context), TASK_MS, task.id);
      result.ms = performance.now() - started;
      // A page posts its state as it changes; the last post may still be on its way when the
      // server answers, so the check gets a bounded grace, outside the timing.
      const problem = () => task.check({ reports: reportsOf(fixtures, run), answer });
      await waitFor(() => Promise.resolve(problem() === null), "the page's end state", 5_000)
        .catch(() => {});
      const found = problem();
      result.ok = found === null;
      if (found) result.note = found;
    } catch (error) {
      result.ms = performance.now() - started;
      result.note = (error as Error).message.slice(0, 400);
    }
    results.push(result);
  }
  return results;
}

/** The reports a run's pages posted to the fixture server, oldest first. */
function reportsOf(fixtures: FixtureServer, run: string): Record<string, unknown>[] {
  return fixtures.submissions()
    .filter((s): s is Submission & { json: Record<string, unknown> } =>
      "json" in s && typeof s.json === "object" && s.json !== null &&
      (s.json as Record<string, unknown>).run === run
    )
    .map((s) => s.json);
}
