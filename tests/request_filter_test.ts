/**
 * Requests the agent causes toward a refused host never leave the browser (decision 0275), end to
 * end through a real MCP client, the three processes and headless Chromium: an allowed page on
 * 127.0.0.1 whose form posts to, whose link leads to and whose scripts fetch from 127.0.0.2, a
 * host the policy refuses (or a sacred one). The refused host's own server is the proof: it
 * records every request that reaches it.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { connectCdp, sendPageTo } from "./support/cdp.ts";
import { ghostlight } from "./support/processes.ts";
import { allText } from "./support/results.ts";
import { type E2ESession, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

/** A server on one loopback address that records the path of every request it receives. */
interface Recorder {
  origin: string;
  paths: string[];
  close(): Promise<void>;
}

function record(
  hostname: string,
  page: (origin: string) => string,
  refusedOrigin = "",
): Recorder {
  const paths: string[] = [];
  let origin = "";
  const server = Deno.serve({ hostname, port: 0, onListen: () => {} }, (request) => {
    const { pathname: path, search } = new URL(request.url);
    if (paths.length < 1000) paths.push(path + search);
    if (path === "/worker.js") {
      return new Response(workerScript(refusedOrigin), {
        headers: { "content-type": "text/javascript" },
      });
    }
    if (path === "/worker.html") {
      return new Response(WORKER_PAGE, { headers: { "content-type": "text/html" } });
    }
    if (path === "/page.html" || path === "/ticking.html") {
      const html = path === "/page.html" ? page(origin) : tickingPage(refusedOrigin);
      return new Response(html, { headers: { "content-type": "text/html" } });
    }
    return new Response("received", {
      headers: { "content-type": "text/plain", "access-control-allow-origin": "*" },
    });
  });
  origin = `http://${hostname}:${server.addr.port}`;
  return { origin, paths, close: () => server.shutdown() };
}

/** The service rereads its policy file often, so a test waits little for a change to apply. */
const QUICK_RELOAD = { GHOSTLIGHT_POLICY_RELOAD_MS: "100" };

/** The refused server's address is a sacred site. */
const SACRED = `{ "default": "allow", "sacred": ["127.0.0.2"] }`;

/**
 * A page that keeps fetching from the refused host and tells its own server how each attempt
 * went (`/tick?reached`, `/tick?blocked`).
 */
function tickingPage(refused: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ticking</title>` +
    `<link rel="icon" href="data:,"></head><body><p>Ticking</p><script>setInterval(() => ` +
    `fetch("${refused}/tick").then(() => fetch("/tick?reached"), () => fetch("/tick?blocked")), ` +
    `100)</script></body></html>`;
}

/**
 * A service worker that, each time its page asks, fetches from the refused host and tells its own
 * server how that went (`/worker?reached`, `/worker?blocked`). It runs outside any tab.
 */
function workerScript(refused: string): string {
  return `self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("message", (event) => event.waitUntil(
  fetch("${refused}/from-worker?" + event.data).then(
    () => fetch("/worker?reached"), () => fetch("/worker?blocked"))));`;
}

/** A page that registers the worker and asks it to fetch, once it is active. */
const WORKER_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
  `<title>Worker</title><link rel="icon" href="data:,"></head><body><p>Worker</p><script>` +
  `navigator.serviceWorker.register("/worker.js").then(() => navigator.serviceWorker.ready)` +
  `.then((registration) => registration.active.postMessage("first"))</script></body></html>`;

/** The allowed page: a form posting to, and a link leading to, the refused host. */
function allowedPage(refused: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>` +
    `<link rel="icon" href="data:,"></head><body><main><h1>Order</h1>` +
    `<form method="post" action="${refused}/submit"><label>Full name ` +
    `<input name="fullName"></label> <button type="submit">Send order</button></form>` +
    `<p><a id="away" href="${refused}/link">Partner site</a></p>` +
    `<p><a href="/ticking.html" target="_blank">Open ticker</a></p>` +
    `<p><a href="${refused}/catalogue" target="_blank">Catalogue</a> ` +
    `<button type="button" onclick="window.open('${refused}/brochure')">Brochure</button> ` +
    `<a href="/after" target="_blank">Afterword</a></p></main></body></html>`;
}

/** Both servers, and the session whose policy `policy(refusedOrigin)` gives. */
async function setUp(policy: string, launchArgs: string[] = []): Promise<{
  s: E2ESession;
  allowed: Recorder;
  refused: Recorder;
  tab: number;
  close(): Promise<void>;
}> {
  const s = await startSession({ policy, launchArgs, env: QUICK_RELOAD });
  const servers = await openServers(s);
  return {
    s,
    ...servers,
    close: async () => {
      await s.close();
      await servers.close();
    },
  };
}

/**
 * Two fresh recording servers for one case, the refused host's and the allowed one's, and the
 * session's first tab on the allowed page: a case sharing its session with others starts with
 * servers that have seen nothing.
 */
async function openServers(s: E2ESession): Promise<{
  allowed: Recorder;
  refused: Recorder;
  tab: number;
  close(): Promise<void>;
}> {
  const refused = record("127.0.0.2", () => "");
  const allowed = record("127.0.0.1", () => allowedPage(refused.origin), refused.origin);
  const tab = await s.firstTab();
  await s.ok("navigate", { url: `${allowed.origin}/page.html`, tabId: tab });
  return {
    allowed,
    refused,
    tab,
    close: async () => {
      await allowed.close();
      await refused.close();
    },
  };
}

/** A ref of `role` "label" on the page, from find. */
async function refOf(s: E2ESession, tabId: number, query: string): Promise<string> {
  const text = s.text(await s.ok("find", { tabId, query }));
  const ref = /\[(ref_\d+)\]/.exec(text)?.[1];
  assert(ref, `find names ${query}:\n${text}`);
  return ref;
}

/** Runs a script in the tab and returns the whole answer. */
async function run(s: E2ESession, tabId: number, text: string): Promise<string> {
  return allText(await s.call("javascript_tool", { action: "javascript_exec", text, tabId }));
}

/** `text` without its untrusted-content fences: what the agent reads as Ghostlight's own words. */
function outsideFences(text: string): string {
  return text.replace(/<page-content-([\w-]+) [^>\n]*>\n[\s\S]*?\n<\/page-content-\1>/g, "");
}

const FETCH = (origin: string, path: string) =>
  `await fetch("${origin}${path}").then(() => "reached", (e) => "failed: " + e.message)`;

Deno.test("a default-deny policy: a form, a link and a script's requests to a host it does not grant never leave the browser", async (t) => {
  const env = await setUp(`{
    "default": "deny",
    "grants": [{ "hosts": ["127.0.0.1"], "allow": ["read", "action", "write", "execute"] }]
  }`);
  const { s, refused, tab } = env;
  try {
    await t.step("form_fill with submit: nothing is posted, and the agent is told", async () => {
      const result = await s.call("form_fill", {
        tabId: tab,
        fields: { "Full name": "Ada Lovelace" },
        submit: true,
      });
      const text = allText(result);
      assertEquals(refused.paths, [], "the refused host received nothing");
      assertMatch(text, /^Denied: Not submitted: the form sends to a host that is refused/);
      assertMatch(text, /That host received nothing/);
      // The host is the page's choice (the form's action): it is named only inside the fence.
      assertEquals(outsideFences(text).includes("127.0.0.2"), false, text);
      assertMatch(
        text,
        /stopped 1 request from the tab while this call ran[^\n]*\n- <page-content-[\w-]+ origin="http:\/\/127\.0\.0\.2:\d+" trust="untrusted">\n127\.0\.0\.2\n<\/page-content-[\w-]+>: the read /,
      );
      assert(!text.includes("data:"), `only requests that leave the browser count: ${text}`);
    });

    await t.step("a click on a link to the refused host: nothing arrives", async () => {
      await s.ok("navigate", { url: `${env.allowed.origin}/page.html`, tabId: tab });
      const ref = await refOf(s, tab, "Partner site link");
      const text = allText(await s.call("computer", { action: "left_click", ref, tabId: tab }));
      assertEquals(refused.paths, [], "the refused host received nothing");
      assertMatch(text, /^Denied: computer left_click led the tab toward a host that is refused/);
      assertEquals(outsideFences(text).includes("127.0.0.2"), false, text);
      assertMatch(
        text,
        /stopped 1 request from the tab while this call ran[^\n]*\n- <page-content-[^\n]*\n127\.0\.0\.2\n<\/page-content-[\w-]+>: /,
      );
    });

    await t.step(
      "a script's fetch, image and beacon: nothing arrives, the answer says so",
      async () => {
        await s.ok("navigate", { url: `${env.allowed.origin}/page.html`, tabId: tab });
        const fetched = await run(s, tab, FETCH(refused.origin, "/fetch"));
        assertMatch(fetched, /failed: Failed to fetch/);
        assertMatch(
          fetched,
          /stopped 1 request from the tab while this call ran[\s\S]*127\.0\.0\.2/,
        );
        assertEquals(outsideFences(fetched).includes("127.0.0.2"), false, fetched);
        const sent = await run(
          s,
          tab,
          `navigator.sendBeacon("${refused.origin}/beacon", "x");
         await new Promise((done) => {
           const image = new Image();
           image.onload = image.onerror = () => done(null);
           image.src = "${refused.origin}/image.png";
         });
         "sent"`,
        );
        assertMatch(sent, /stopped 2 requests from the tab while this call ran/);
        assertEquals(refused.paths, [], "the refused host received nothing");
      },
    );

    await t.step("a tab the page opens takes its opener's filter, with no call on it", async () => {
      await s.ok("navigate", { url: `${env.allowed.origin}/page.html`, tabId: tab });
      const ref = await refOf(s, tab, "Open ticker link");
      await s.ok("computer", { action: "left_click", ref, tabId: tab });
      const blocked = () =>
        Promise.resolve(env.allowed.paths.filter((path) => path === "/tick?blocked").length);
      await pollUntil(blocked, (n) => n >= 4, "the opened tab's ticks to be stopped");
      // Not even its first: the request guard holds it until it has its filter (decision 0336).
      assertEquals(refused.paths, [], "no tick reached the host");
    });
  } finally {
    await env.close();
  }
});

Deno.test("a sacred host is filtered for the agent's page: its IPv4-mapped form, a service worker, new tabs (one browser)", async (t) => {
  const s = await startSession({ policy: SACRED, env: QUICK_RELOAD });
  try {
    await t.step("a refused address is filtered in its IPv4-mapped IPv6 form too", async () => {
      const env = await openServers(s);
      const { refused, tab } = env;
      try {
        // The policy decides [::ffff:127.0.0.2] as 127.0.0.2; the browser writes it [::ffff:7f00:2].
        const mapped = refused.origin.replace("127.0.0.2", "[::ffff:127.0.0.2]");
        const fetched = await run(s, tab, FETCH(mapped, "/mapped"));
        assertEquals(refused.paths, [], "the sacred address received nothing");
        assertMatch(fetched, /failed: Failed to fetch/);
        assertMatch(fetched, /stopped 1 request from the tab while this call ran/);
      } finally {
        await env.close();
      }
    });

    await t.step("a service worker of the agent's page cannot reach a refused host", async () => {
      const env = await openServers(s);
      const { allowed, refused, tab } = env;
      const told = (what: string) => () =>
        Promise.resolve(allowed.paths.filter((path) => path.startsWith(`/worker?${what}`)).length);
      try {
        await s.ok("navigate", { url: `${allowed.origin}/worker.html`, tabId: tab });
        await pollUntil(told(""), (n) => n >= 1, "the worker to say how its fetch went");
        assertEquals(refused.paths, [], "the sacred host received nothing from the worker");
        // Asked again by a script of the agent's, after the page settled.
        await run(
          s,
          tab,
          `(await navigator.serviceWorker.ready).active.postMessage("again"); "asked"`,
        );
        await pollUntil(told(""), (n) => n >= 2, "the worker to say how its second fetch went");
        assertEquals(refused.paths, [], "the sacred host received nothing from the worker");
        assertEquals(await told("reached")(), 0);
      } finally {
        await env.close();
      }
    });

    await t.step(
      "the first request of a tab the agent's page opens toward a refused host never leaves the browser",
      async () => {
        const env = await openServers(s);
        const { allowed, refused, tab } = env;
        try {
          // A target=_blank link and window.open, each the first request of its new tab.
          await s.call("computer", {
            action: "left_click",
            ref: await refOf(s, tab, "Catalogue link"),
            tabId: tab,
          });
          await s.call("computer", {
            action: "left_click",
            ref: await refOf(s, tab, "Brochure button"),
            tabId: tab,
          });
          // Opened after both, on the allowed host: once it arrives, theirs would have too.
          await s.call("computer", {
            action: "left_click",
            ref: await refOf(s, tab, "Afterword link"),
            tabId: tab,
          });
          await pollUntil(
            () => Promise.resolve(allowed.paths.filter((path) => path === "/after").length),
            (n) => n >= 1,
            "the allowed tab opened last to load",
          );
          const opened = await pollUntil(
            async () =>
              (await s.ok("tabs_context_mcp", {})).structuredContent as { tabs: unknown[] },
            (listed) => listed.tabs.length >= 4,
            "the three opened tabs to be the agent's",
          );
          assertEquals(opened.tabs.length, 4);
          assertEquals(refused.paths, [], "the sacred host received nothing");
        } finally {
          await env.close();
        }
      },
    );
  } finally {
    await s.close();
  }
});

Deno.test("a policy reload that refuses a host, and a sacred host, take effect on an open tab", async () => {
  const env = await setUp(`{ "default": "allow" }`);
  const { s, allowed, refused, tab } = env;
  const count = (server: Recorder, path: string) =>
    server.paths.filter((seen) => seen === path).length;
  const counted = (server: Recorder, path: string) => () => Promise.resolve(count(server, path));
  try {
    // Allowed first: the request arrives (the proof below can fail).
    assertMatch(await run(s, tab, FETCH(refused.origin, "/before")), /reached/);
    assertEquals(refused.paths, ["/before"]);
    // The page keeps sending on its own, and tells its own server how each attempt went.
    await run(
      s,
      tab,
      `window.ticking = setInterval(() => fetch("${refused.origin}/tick").then(
         () => fetch("/tick?reached"), () => fetch("/tick?blocked")), 100); "ticking"`,
    );
    await pollUntil(counted(allowed, "/tick?reached"), (n) => n > 0, "a tick to arrive");

    const out = await ghostlight(s.testEnv, ["paths", "--json"]);
    const policyFile = JSON.parse(out.stdout).policyFile as string;
    await Deno.writeTextFile(
      policyFile,
      `{ "default": "allow", "grants": [{ "hosts": ["127.0.0.2"], "deny": ["read"] }] }`,
    );
    // No call touches the tab: the reload alone changes its filter.
    await pollUntil(counted(allowed, "/tick?blocked"), (n) => n > 0, "a tick to be stopped");
    const arrived = count(refused, "/tick");
    await pollUntil(counted(allowed, "/tick?blocked"), (n) => n >= 4, "more ticks stopped");
    assertEquals(count(refused, "/tick"), arrived, "no tick reached the host after the reload");
    await run(s, tab, `clearInterval(window.ticking); "stopped"`);

    const explain = async () => s.text(await s.ok("explain", {}));
    const denied = await run(s, tab, FETCH(refused.origin, "/denied"));
    assertMatch(denied, /failed: Failed to fetch/);
    assertMatch(
      denied,
      /\n127\.0\.0\.2\n<\/page-content-[\w-]+>: the read capability there is refused/,
    );

    const denying = await explain();
    await Deno.writeTextFile(policyFile, `{ "default": "allow", "sacred": ["127.0.0.2"] }`);
    await pollUntil(explain, (text) => text !== denying, "the policy with a sacred host");
    const sacred = await run(s, tab, FETCH(refused.origin, "/sacred"));
    assertMatch(sacred, /failed: Failed to fetch/);
    assertMatch(
      sacred,
      /\n127\.0\.0\.2\n<\/page-content-[\w-]+>: never touched whatever the policy says \("sacred" in \S*policy\.jsonc names 127\.0\.0\.2\)/,
    );
    assertEquals(
      refused.paths.filter((path) => path !== "/tick"),
      ["/before"],
      "nothing after the reload reached the host",
    );
  } finally {
    await env.close();
  }
});

Deno.test("a tab the person takes back loses its filter: what they do there is theirs", async () => {
  const env = await setUp(
    `{ "default": "allow", "grants": [{ "hosts": ["127.0.0.2"], "deny": ["read"] }] }`,
    ["--remote-debugging"],
  );
  const { s, refused, tab } = env;
  try {
    assertMatch(await run(s, tab, FETCH(refused.origin, "/agent")), /failed: Failed to fetch/);
    const stopped = await ghostlight(s.testEnv, ["stop"]);
    assertMatch(stopped.stdout, /their tabs are yours again/);
    // The page, the person's now, goes to the host by itself: the browser lets it.
    const cdp = await connectCdp(s.browser.ready.devtools!);
    try {
      await sendPageTo(cdp, "/page.html", `${refused.origin}/person`);
    } finally {
      cdp.close();
    }
    await pollUntil(
      () => Promise.resolve(refused.paths),
      (paths) => paths.includes("/person"),
      "the person's own navigation to arrive",
    );
    assertEquals(refused.paths, ["/person"], "the agent's request never arrived");
  } finally {
    await env.close();
  }
});
