import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { actionsOf, CONTRACT } from "../catalog/mod.ts";
import { decide, type Rules } from "./decide.ts";
import { ALL_OPEN, type PolicyLayer, readPolicyText } from "./policy_file.ts";
import { claimMismatch, nameAsPrincipal } from "./principals.ts";
import { withheldTools } from "./projection.ts";

function rulesOf(...texts: string[]): Rules {
  const layers = texts.map((text, index) => {
    const read = readPolicyText(text, `p${index}.jsonc`);
    if ("error" in read) throw new Error(read.error);
    return read.policy;
  });
  return { layers: layers as PolicyLayer[], builtInSacred: [] };
}

const ALL = CONTRACT.map((row) => row.name);
const withheld = (
  rules: Rules,
  principal: string,
  restrictions: { capabilities?: string[] }[] = [],
) => [...withheldTools(rules, principal, restrictions, ALL)].sort();

Deno.test("a tool is withheld only when every action of it is refused everywhere", () => {
  assertEquals(withheld({ layers: [ALL_OPEN], builtInSacred: [] }, "cursor"), []);
  const noScripts = rulesOf(
    `{ "default": "allow", "grants": [{ "principals": ["cursor"], "deny": ["execute"] }] }`,
  );
  assertEquals(withheld(noScripts, "cursor"), ["javascript_tool"]);
  assertEquals(withheld(noScripts, "claude-code"), [], "another principal keeps it");
  // Refused on some sites only: it works elsewhere, so it stays.
  const someSites = rulesOf(
    `{ "default": "allow", "grants": [{ "hosts": ["*.example.com"], "deny": ["execute"] }] }`,
  );
  assertEquals(withheld(someSites, "cursor"), []);
  // Default deny with reading allowed on one site: a tool with any action needing only read, or
  // nothing, stays; one whose every action needs action, write or execute goes.
  const readOne = rulesOf(
    `{ "default": "deny", "grants": [{ "hosts": ["127.0.0.1"], "allow": ["read"] }] }`,
  );
  const gone = withheld(readOne, "cursor");
  // act_on's every action acts on the page (hover and scroll_to run its handlers, decision 0280).
  for (const name of ["javascript_tool", "form_input", "file_upload", "upload_image", "act_on"]) {
    assert(gone.includes(name), `${name} is withheld`);
  }
  for (const name of ["navigate", "computer", "dialog", "tab_control", "explain"]) {
    assert(!gone.includes(name), `${name} stays`);
  }
  // An observing layer refuses nothing; the machine's enforcing layer alone is enough.
  const observing = `{ "mode": "observe", "default": "deny" }`;
  assertEquals(withheld(rulesOf(observing), "cursor"), []);
  assertEquals(
    withheld(
      rulesOf(`{ "default": "allow", "grants": [{ "deny": ["execute"] }] }`, observing),
      "cursor",
    ),
    ["javascript_tool"],
  );
  // The connector's own restriction: only reading.
  const restricted = withheld({ layers: [ALL_OPEN], builtInSacred: [] }, "cursor", [{
    capabilities: ["read"],
  }]);
  assert(restricted.includes("form_input") && !restricted.includes("get_page_text"));
});

Deno.test("a client calling itself by another principal's name is flagged, in words", () => {
  assertEquals(nameAsPrincipal("Claude Desktop"), "claude-desktop");
  assertEquals(nameAsPrincipal("  --Cursor_IDE!! "), "cursor-ide");
  const rules = rulesOf(
    `{ "default": "allow", "grants": [{ "principals": ["claude-desktop"], "allow": ["read"] }] }`,
  );
  assertEquals(
    claimMismatch(rules, { principal: "claude-desktop", clientName: "Claude Desktop" }, []),
    null,
  );
  assertEquals(
    claimMismatch(rules, { principal: "cursor", clientName: "cursor-vscode" }, []),
    null,
  );
  assertMatch(
    claimMismatch(rules, { principal: "cursor", clientName: "Claude Desktop" }, []) ?? "",
    /^its client calls itself "Claude Desktop", another principal's name \(claude-desktop, which the policy's grants name\), but it was started as cursor/,
  );
  assertMatch(
    claimMismatch(rulesOf(`{ "default": "allow" }`), {
      principal: "unnamed",
      clientName: "zed",
    }, ["zed"]) ?? "",
    /another principal's name \(zed\), but it was started as unnamed/,
  );
});

Deno.test("a withheld tool is one the gate refuses on every site, for every policy and principal tried", () => {
  const policies = [
    `{ "default": "deny", "grants": [{ "principals": ["Reader"], "hosts": ["127.0.0.1"], "allow": ["read"] }] }`,
    `{ "default": "allow", "grants": [{ "principals": ["reader"], "deny": ["execute", "write"] }, { "hosts": ["*.example.com"], "deny": ["action"] }] }`,
    `{ "default": "deny", "grants": [{ "hosts": ["*"], "allow": ["read", "action"] }, { "principals": ["cursor"], "hosts": ["example.org"], "allow": ["execute"] }], "sacred": ["bank.example"] }`,
    `{ "default": "allow", "grants": [{ "principals": ["*"], "hosts": ["*"], "deny": ["write"] }, { "principals": ["writer"], "hosts": ["docs.example.org"], "allow": ["write"] }] }`,
  ];
  const hosts = [
    "127.0.0.1",
    "example.org",
    "docs.example.org",
    "www.example.com",
    "bank.example",
    "unrelated.test",
  ];
  let withheldSeen = 0;
  for (const text of policies) {
    const rules = rulesOf(text);
    for (const principal of ["reader", "writer", "cursor", "unnamed"]) {
      for (const tool of withheldTools(rules, principal, [], ALL)) {
        withheldSeen++;
        for (const { action, needs } of actionsOf(tool)) {
          for (const host of hosts) {
            const verdict =
              decide(rules, { principal, host, capabilities: needs, restrictions: [] })
                .verdict;
            assert(
              verdict === "denied" || verdict === "sacred",
              `${text}: ${tool} is withheld from ${principal}, but ${action} on ${host} is ${verdict}`,
            );
          }
        }
      }
    }
  }
  assert(withheldSeen > 10, `the policies withhold tools: ${withheldSeen}`);
});
