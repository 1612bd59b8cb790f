/**
 * The person's policy, end to end through a real MCP client, the three processes and headless
 * Chromium: the README's example policy, decisions before anything reaches a page, the landing
 * check after a redirect, sacred sites, hot reload that keeps the last good policy, a
 * connector's own restriction, and an audit that verifies, and stops verifying when touched.
 */

import type { InstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { MOVED_TABS_POLICY, movedTabsStayGoverned } from "./support/moved_tabs.ts";
import { ghostlight } from "./support/processes.ts";
import { allText } from "./support/results.ts";
import { type CallResult, type E2ESession, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

/** The example of issue 9 and the README: on 127.0.0.1 only reading; everything else refused. */
const EXAMPLE = `{
  // comments are allowed
  "mode": "enforce",
  "default": "deny",
  "grants": [
    { "hosts": ["127.0.0.1"], "allow": ["read"] },
    { "clients": ["*"], "hosts": ["*.example.com"], "deny": ["execute"] }
  ],
  "sacred": ["bank.example"]
}
`;

/** The instance's paths, as `ghostlight paths --json` gives them. */
async function pathsOf(s: E2ESession): Promise<InstancePaths> {
  const out = await ghostlight(s.testEnv, ["paths", "--json"]);
  assertEquals(out.code, 0, out.stderr);
  return JSON.parse(out.stdout);
}

interface Line {
  seq: number;
  kind: string;
  result: string;
  tool: string;
  action: string | null;
  host: string | null;
  capabilities: string[];
  rule: string | null;
  args: string;
}

async function auditLines(paths: InstancePaths): Promise<Line[]> {
  const text = await Deno.readTextFile(paths.auditFile);
  return text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

/** What `status --json` says of the person's side. */
async function personStatus(s: E2ESession) {
  const out = await ghostlight(s.testEnv, ["status", "--json"]);
  return JSON.parse(out.stdout).person as {
    policy: { summary: string; problem: string | null };
  };
}

/** The workspace's fence nonce, as the first fence in `text` carries it. */
function nonceOf(text: string): string {
  return /<page-content-([\w-]+) /.exec(text)?.[1] ?? "(no fence)";
}

function localhostUrl(s: E2ESession, path: string): string {
  return s.fixtures.url(path).replace("127.0.0.1", "localhost");
}

Deno.test("the example policy: reading on 127.0.0.1 works, a click and localhost are refused, all audited", async () => {
  const s = await startSession({ policy: EXAMPLE, env: { GHOSTLIGHT_POLICY_RELOAD_MS: "100" } });
  try {
    const paths = await pathsOf(s);
    assertEquals(paths.policyFile, `${paths.configDir}/policy.jsonc`);
    const tab = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/article.html"), tabId: tab });
    const text = await s.ok("get_page_text", { tabId: tab });
    assertMatch(s.text(text), /<page-content/);
    // explain tells the agent the policy in force, in the person's words.
    const explained = s.text(await s.ok("explain", {}));
    assertMatch(explained, /Policy in force[\s\S]*By default every capability is refused/);
    assertMatch(explained, /127\.0\.0\.1/);

    const click = await s.fail("computer", {
      action: "left_click",
      coordinate: [5, 5],
      tabId: tab,
    });
    assertEquals(
      click,
      "Denied: computer left_click needs the action capability on the page in its tab, which is " +
        `refused ("default": "deny" of ${paths.policyFile}). The tab is on:\n` +
        `<page-content-${nonceOf(click)} origin="${s.fixtures.origin}" trust="untrusted">\n` +
        `127.0.0.1\n</page-content-${nonceOf(click)}>\nNothing was done. Only the person can ` +
        "change this: do it with what is allowed here, or ask them.",
    );

    const before = s.fixtures.requests("/index.html");
    const away = await s.fail("navigate", { url: localhostUrl(s, "/index.html"), tabId: tab });
    assertMatch(away, /^Denied: navigate needs the read capability on localhost, which is refused/);
    assertEquals(s.fixtures.requests("/index.html"), before, "nothing was sent toward localhost");

    // Allowed at the target, refused where it redirects: the browser stops the redirect before
    // it leaves (decision 0275), so nothing reaches localhost and nothing of it is returned.
    const redirect = s.fixtures.url(
      `/redirect?to=${encodeURIComponent(localhostUrl(s, "/index.html"))}`,
    );
    const landed = await s.call("navigate", { url: redirect, tabId: tab });
    assert(landed.isError, JSON.stringify(landed));
    assertMatch(
      allText(landed),
      /ERR_BLOCKED_BY_CLIENT[\s\S]*stopped 1 request from the tab[^\n]*\n- <page-content-[^\n]*\nlocalhost\n<\/page-content-[\w-]+>: the read capability there is refused/,
    );
    assertMatch(allText(landed), /Navigate the tab back/);
    assert(!allText(landed).includes("Lighthouse"), "nothing of the denied page comes back");
    assertEquals(landed.structuredContent, undefined);
    assertEquals(s.fixtures.requests("/index.html"), before, "nothing was sent toward localhost");

    const lines = await auditLines(paths);
    const decision = (tool: string, host: string, result: string) =>
      lines.find((line) =>
        line.kind === "decision" && line.tool === tool && line.host === host &&
        line.result === result
      );
    const read = decision("get_page_text", "127.0.0.1", "allowed");
    assert(read, "the read's decision is audited");
    assertEquals(read.capabilities, ["read"]);
    const denied = decision("computer", "127.0.0.1", "denied");
    assert(denied, "the click's decision is audited");
    assertEquals([denied.action, denied.capabilities], ["left_click", ["action"]]);
    assertMatch(denied.rule ?? "", /"default": "deny"/);
    assert(decision("navigate", "localhost", "denied"), "the navigation's decision is audited");
    assert(
      lines.some((line) =>
        line.kind === "outcome" && line.tool === "computer" && line.result === "denied"
      ),
    );
    // Arguments are a keyed hash, never the arguments.
    assert(lines.every((line) => /^hmac-sha256:[0-9a-f]{64}$/.test(line.args)));
    assert(!(await Deno.readTextFile(paths.auditFile)).includes("index.html"));

    // A broken policy written while the service runs leaves the previous one in force.
    await Deno.writeTextFile(paths.policyFile, `{ "default": "allow", `);
    const broken = await pollUntil(
      () => personStatus(s),
      (person) => person.policy.problem !== null,
      "status to report the broken policy",
    );
    assertMatch(
      broken.policy.problem!,
      /is not valid JSONC: .* at line 1.*stays until it is fixed/,
    );
    await s.ok("navigate", { url: s.fixtures.url("/article.html"), tabId: tab });
    assertMatch(
      await s.fail("computer", { action: "left_click", coordinate: [5, 5], tabId: tab }),
      /action capability on the page in its tab[^\n]*The tab is on:\n<page-content-[^\n]*>\n127\.0\.0\.1\n/,
    );

    // A good one replaces it.
    await Deno.writeTextFile(
      paths.policyFile,
      `{ "default": "allow", "grants": [{ "hosts": ["*"], "deny": ["execute"] }] }`,
    );
    await pollUntil(
      () => personStatus(s),
      (person) => person.policy.problem === null,
      "status to report the fixed policy",
    );
    await s.ok("computer", { action: "left_click", coordinate: [5, 5], tabId: tab });
    assertMatch(
      await s.fail("javascript_tool", { action: "javascript_exec", text: "1", tabId: tab }),
      /execute capability on the page in its tab, which is refused \(grant 1 of .*\(\*\) denies execute\)/,
    );

    // A connector's own restriction only tightens: this one may touch example.org only.
    const restricted = await s.connectClient("restricted-agent", {
      GHOSTLIGHT_RESTRICT_HOSTS: "example.org",
    });
    try {
      const listed = await restricted.callTool({
        name: "tabs_context_mcp",
        arguments: { createIfEmpty: true },
      }) as CallResult;
      const own = (listed.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
      const refused = await restricted.callTool({
        name: "navigate",
        arguments: { url: s.fixtures.url("/article.html"), tabId: own },
      }) as CallResult;
      assert(refused.isError);
      assertMatch(
        allText(refused),
        /read capability on 127\.0\.0\.1, which is refused \(this connector's GHOSTLIGHT_RESTRICT_HOSTS allows only example\.org\)/,
      );
    } finally {
      await restricted.close();
    }

    // The audit the run wrote verifies; a copy with one byte changed, a record removed, or
    // two swapped does not, and the first bad line is named.
    const verified = await ghostlight(s.testEnv, ["audit", "verify"]);
    assertEquals(verified.code, 0, verified.stdout + verified.stderr);
    assertMatch(verified.stdout, /^The audit is intact: \d+ record\(s\)/);
    const records = (await Deno.readTextFile(paths.auditFile)).trimEnd().split("\n");
    assert(records.length > 10);
    const copy = `${s.testEnv.home}/audit-copy.jsonl`;
    const verifyCopy = async (lines: string[]) => {
      await Deno.writeTextFile(copy, lines.join("\n") + "\n");
      return await ghostlight(s.testEnv, ["audit", "verify", copy]);
    };
    assertEquals((await verifyCopy(records)).code, 0);
    const edited = [...records];
    edited[4] = edited[4].replace(
      /"seq":5,"time":"(\d)/,
      (_m, digit) => `"seq":5,"time":"${(Number(digit) + 1) % 10}`,
    );
    assert(edited[4] !== records[4]);
    const afterEdit = await verifyCopy(edited);
    assertEquals(afterEdit.code, 1);
    assertMatch(afterEdit.stdout, /audit-copy\.jsonl:5: the record on line 5 was edited/);
    const afterRemoval = await verifyCopy(records.filter((_, index) => index !== 6));
    assertEquals(afterRemoval.code, 1);
    assertMatch(afterRemoval.stdout, /:7: .*removed, inserted or reordered/);
    const swapped = [...records];
    [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
    const afterSwap = await verifyCopy(swapped);
    assertEquals(afterSwap.code, 1);
    assertMatch(afterSwap.stdout, /:3: .*removed, inserted or reordered/);

    // What would the example have refused of all this? The clicks allowed later, for one.
    const policyCopy = `${s.testEnv.home}/example.jsonc`;
    await Deno.writeTextFile(policyCopy, EXAMPLE);
    const simulated = await ghostlight(s.testEnv, [
      "policy",
      "simulate",
      policyCopy,
      "--replay",
      paths.auditFile,
    ]);
    assertEquals(simulated.code, 0, simulated.stderr);
    assertMatch(
      simulated.stdout,
      /computer left_click on 127\.0\.0\.1 would be denied .* it was allowed/,
    );
    assertMatch(simulated.stdout, /\d+ of \d+ decision\(s\) would have been refused/);
  } finally {
    await s.close();
  }
});

Deno.test("a sacred site is refused under an allow-all policy, before anything is sent", async () => {
  const s = await startSession({ policy: `{ "default": "allow", "sacred": ["localhost"] }` });
  try {
    const tab = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/article.html"), tabId: tab });
    const before = s.fixtures.requests("/index.html");
    const refused = await s.fail("navigate", { url: localhostUrl(s, "/index.html"), tabId: tab });
    assertMatch(
      refused,
      /^Denied: navigate would touch localhost, which Ghostlight never touches whatever the policy says: localhost is a sacred site \("sacred" in .*policy\.jsonc names localhost\)\.\nAsk the person to do this part themselves\.$/,
    );
    assertEquals(s.fixtures.requests("/index.html"), before);
    const result: CallResult = await s.ok("get_page_text", { tabId: tab });
    assertMatch(s.text(result), /<page-content/);
  } finally {
    await s.close();
  }
});

Deno.test("a tab that moves, by itself or by a click, stays governed without the gate asking the browser", async () => {
  const s = await startSession({ policy: MOVED_TABS_POLICY, launchArgs: ["--remote-debugging"] });
  try {
    await movedTabsStayGoverned(s, await s.firstTab());
  } finally {
    await s.close();
  }
});
