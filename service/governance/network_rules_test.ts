import { assert, assertEquals } from "../../tests/support/assert.ts";
import type { NetworkRule } from "../../shared/browser_protocol.ts";
import type { Capability } from "../catalog/mod.ts";
import { type CallFacts, decide, Restriction, type Rules } from "./decide.ts";
import { hostOfUrl } from "./hosts.ts";
import { compileNetworkRules, TooManyNetworkRules } from "./network_rules.ts";
import { ALL_OPEN, type PolicyLayer, readPolicyText } from "./policy_file.ts";
import { BUILT_IN_SACRED } from "./sacred.ts";

function layer(text: string, source = "user.jsonc"): PolicyLayer {
  const read = readPolicyText(text, source);
  if ("error" in read) throw new Error(read.error);
  return read.policy;
}

/** What the browser does with a request to `host` under `rules` (the extension's contract). */
function browserSays(rules: NetworkRule[], host: string): "block" | "allow" {
  const matching = rules.filter((rule) =>
    rule.host === null || rule.host === host ||
    (rule.subdomains && host.endsWith(`.${rule.host}`))
  );
  if (matching.length === 0) return "allow";
  const top = Math.max(...matching.map((rule) => rule.priority));
  // As the browser does: of equal priorities, allowing wins.
  return matching.some((rule) => rule.priority === top && rule.action === "allow")
    ? "allow"
    : "block";
}

/** Hosts in and around every domain the policies below name. */
const HOSTS = [
  "127.0.0.1",
  "127.0.0.2",
  "localhost",
  "example.com",
  "www.example.com",
  "shop.example.com",
  "a.shop.example.com",
  "example.org",
  "docs.example.org",
  "bank.example",
  "www.bank.example",
  "accounts.google.com",
  "x.accounts.google.com",
  "google.com",
  "paypal.com",
  "www.paypal.com",
  "unrelated.test",
  "deep.sub.unrelated.test",
  "x.example.com",
  "a.x.example.com",
  // As the IPv4 address it reaches, to the policy; in IPv6 form, to the browser.
  "[::ffff:127.0.0.1]",
  "[::ffff:127.0.0.2]",
  "[::ffff:7f00:2]",
];

const POLICIES: Record<string, PolicyLayer[]> = {
  "all open": [ALL_OPEN],
  "default deny, read on one host": [layer(`{
    "default": "deny",
    "grants": [
      { "hosts": ["127.0.0.1"], "allow": ["read", "write", "action", "execute"] },
      { "principals": ["*"], "hosts": ["*.example.com"], "allow": ["read"], "deny": ["execute"] }
    ],
    "sacred": ["bank.example"]
  }`)],
  "sacred address under default allow": [layer(`{ "default": "allow", "sacred": ["127.0.0.2"] }`)],
  "default allow, with denies and an exact host reopened": [layer(`{
    "default": "allow",
    "grants": [
      { "hosts": ["*.example.com"], "deny": ["write"] },
      { "hosts": ["shop.example.com"], "allow": ["write"] },
      { "hosts": ["127.0.0.2"], "deny": ["read"] },
      { "principals": ["cursor"], "hosts": ["*"], "deny": ["action"] },
      { "hosts": ["example.org"], "deny": ["execute"] }
    ]
  }`)],
  "two layers, both must allow": [
    layer(
      `{ "default": "deny", "grants": [{ "hosts": ["*.example.com", "127.0.0.1"], "allow": ["read", "write"] }] }`,
      "machine.jsonc",
    ),
    layer(
      `{ "default": "allow", "grants": [{ "hosts": ["shop.example.com"], "deny": ["read"] }], "sacred": ["*.unrelated.test"] }`,
    ),
  ],
  "default deny, a domain opened and a deeper one closed again": [layer(`{
    "default": "deny",
    "grants": [
      { "hosts": ["*.example.com"], "allow": ["read"] },
      { "hosts": ["*.x.example.com"], "deny": ["read"] }
    ]
  }`)],
  "observe mode refuses nothing": [layer(`{ "mode": "observe", "default": "deny" }`)],
};

const CALLS: Omit<CallFacts, "host">[] = [
  { principal: "claude-code", capabilities: ["read"], restrictions: [] },
  { principal: "claude-code", capabilities: ["read", "write"], restrictions: [] },
  { principal: "cursor", capabilities: ["read", "action"], restrictions: [] },
  { principal: "claude-code", capabilities: ["read", "execute"], restrictions: [] },
  {
    principal: "claude-code",
    capabilities: ["read"],
    restrictions: [Restriction.parse({ source: "the connector", hosts: ["*.example.com"] })],
  },
];

Deno.test("the compiled rules refuse exactly the hosts decide() refuses, for every policy and call", () => {
  for (const [name, layers] of Object.entries(POLICIES)) {
    const rules: Rules = { layers, builtInSacred: BUILT_IN_SACRED };
    for (const call of CALLS) {
      const compiled = compileNetworkRules(rules, call, 400);
      for (const written of HOSTS) {
        // The policy sees the host as enforcement normalises it; the browser matches the host
        // as its URL parser writes it.
        const url = `http://${written}/`;
        const verdict = decide(rules, { ...call, host: hostOfUrl(url) }).verdict;
        const refused = verdict === "denied" || verdict === "sacred";
        const host = new URL(url).hostname;
        assertEquals(
          browserSays(compiled, host),
          refused ? "block" : "allow",
          `${name}, ${call.principal} ${call.capabilities.join("+")}, ${host}`,
        );
      }
    }
  }
});

Deno.test("an open policy compiles to the sacred sites only, and default deny to one block first", () => {
  const read: Omit<CallFacts, "host"> = {
    principal: "c",
    capabilities: ["read" as Capability],
    restrictions: [],
  };
  const open = compileNetworkRules({ layers: [ALL_OPEN], builtInSacred: ["paypal.com"] }, read, 10);
  assertEquals(open, [{ priority: 4, action: "block", host: "paypal.com", subdomains: true }]);
  const closed = compileNetworkRules(
    {
      layers: [
        layer(`{ "default": "deny", "grants": [{ "hosts": ["127.0.0.1"], "allow": ["read"] }] }`),
      ],
      builtInSacred: [],
    },
    read,
    10,
  );
  assertEquals(closed, [
    { priority: 1, action: "block", host: null, subdomains: true },
    { priority: 9, action: "allow", host: "127.0.0.1", subdomains: false },
    { priority: 9, action: "allow", host: "[::ffff:7f00:1]", subdomains: false },
  ]);
});

Deno.test("a policy naming more hosts than the bound refuses to compile", () => {
  const hosts = Array.from({ length: 30 }, (_, i) => `"h${i}.example"`).join(", ");
  const rules: Rules = {
    layers: [
      layer(`{ "default": "deny", "grants": [{ "hosts": [${hosts}], "allow": ["read"] }] }`),
    ],
    builtInSacred: [],
  };
  const call = { principal: "c", capabilities: ["read" as Capability], restrictions: [] };
  assertEquals(compileNetworkRules(rules, call, 31).length, 31);
  let refused: unknown;
  try {
    compileNetworkRules(rules, call, 30);
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof TooManyNetworkRules, String(refused));
});
