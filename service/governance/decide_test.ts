import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import type { Capability } from "../catalog/mod.ts";
import {
  type CallFacts,
  decide,
  explainPolicy,
  Restriction,
  type Rules,
  type Verdict,
} from "./decide.ts";
import { hostOfUrl } from "./hosts.ts";
import { ALL_OPEN, type PolicyLayer, readPolicyText } from "./policy_file.ts";

/** The example policy of issue 9 and the README: on 127.0.0.1 only reading; all else refused. */
const EXAMPLE = `{
  // comments are allowed
  "mode": "enforce",
  "default": "deny",
  "grants": [
    { "hosts": ["127.0.0.1"], "allow": ["read"] },
    { "clients": ["*"], "hosts": ["*.example.com"], "deny": ["execute"] }
  ],
  "sacred": ["bank.example"]
}`;

function layer(text: string, source = "user.jsonc"): PolicyLayer {
  const read = readPolicyText(text, source);
  if ("error" in read) throw new Error(read.error);
  return read.policy;
}

const example = layer(EXAMPLE);
const open = ALL_OPEN;
const allowWithDenies = layer(`{
  "default": "allow",
  "grants": [
    { "hosts": ["*.example.com"], "deny": ["execute", "write"] },
    { "principals": ["Cursor"], "hosts": ["*"], "deny": ["action"] },
    { "hosts": ["shop.example.com"], "allow": ["write"] }
  ]
}`);
const observing = layer(`{ "mode": "observe", "default": "deny", "sacred": ["vault.test"] }`);
const machine = layer(
  `{ "default": "allow", "grants": [{ "hosts": ["*"], "deny": ["execute"] }] }`,
  "machine.jsonc",
);

const asking = layer(`{
  "default": "deny",
  "grants": [
    { "hosts": ["*"], "allow": ["read", "action"], "ask": ["write"] },
    { "hosts": ["shop.test"], "allow": ["write"], "ask": ["action"] },
    { "hosts": ["bad.test"], "ask": ["write"], "deny": ["write"] },
  ]
}`);
/** A layer the person saved yeses into (decision 0482). */
const saved = layer(`{
  "default": "deny",
  "grants": [
    { "hosts": ["shop.test"], "ask": ["write"] },
    { "principals": ["bob"], "hosts": ["shop.test"], "allow": ["write"] },
    { "principals": ["bob"], "hosts": ["shop.test"], "allow": ["action"], "ask": ["action"] },
    { "principals": ["bob"], "hosts": ["*"], "ask": ["read"] },
    { "hosts": ["news.test"], "allow": ["read"] },
    { "hosts": ["bank.test"], "deny": ["write"] },
    { "principals": ["bob"], "hosts": ["bank.test"], "allow": ["write"] },
  ]
}`);
const askFirst = layer(`{ "default": "ask", "grants": [{ "hosts": ["*"], "allow": ["read"] }] }`);
const machineAsks = layer(
  `{ "default": "allow", "grants": [{ "hosts": ["*"], "ask": ["action"] }] }`,
  "machine.jsonc",
);
const observeAsks = layer(`{ "mode": "observe", "default": "ask" }`);

const builtInSacred = ["accounts.google.com", "chase.com"];
const rules = (...layers: PolicyLayer[]): Rules => ({ layers, builtInSacred });

function restriction(value: Record<string, unknown>): Restriction {
  return Restriction.parse({ source: "the call's restriction", ...value });
}

interface Row {
  why: string;
  rules: Rules;
  principal?: string;
  host: string | null;
  capabilities: Capability[];
  restrictions?: Restriction[];
  verdict: Verdict;
  capability?: Capability | null;
  rule: RegExp;
}

// One row a line, so the table reads as a table.
// deno-fmt-ignore
const TABLE: Row[] = [
  // Hosts and patterns.
  { why: "an exact host grant allows", rules: rules(example), host: "127.0.0.1", capabilities: ["read"], verdict: "allowed", rule: /grant 1 of user\.jsonc \(127\.0\.0\.1\) allows read/ },
  { why: "an exact host does not match another host", rules: rules(example), host: "localhost", capabilities: ["read"], verdict: "denied", capability: "read", rule: /"default": "deny" of user\.jsonc/ },
  { why: "an exact host does not match its subdomain", rules: rules(example), host: "a.127.0.0.1.nip.io", capabilities: ["read"], verdict: "denied", rule: /"default": "deny"/ },
  { why: "*.domain matches a subdomain", rules: rules(allowWithDenies), host: "www.example.com", capabilities: ["execute"], verdict: "denied", capability: "execute", rule: /grant 1 of user\.jsonc \(\*\.example\.com\) denies execute/ },
  { why: "*.domain matches a deeper subdomain", rules: rules(allowWithDenies), host: "a.b.example.com", capabilities: ["execute"], verdict: "denied", rule: /denies execute/ },
  { why: "*.domain does not match the domain itself", rules: rules(allowWithDenies), host: "example.com", capabilities: ["execute"], verdict: "allowed", rule: /"default": "allow"/ },
  { why: "*.domain does not match a lookalike", rules: rules(allowWithDenies), host: "badexample.com", capabilities: ["execute"], verdict: "allowed", rule: /"default": "allow"/ },
  { why: "* matches any host", rules: rules(machine), host: "anything.test", capabilities: ["execute"], verdict: "denied", rule: /grant 1 of machine\.jsonc \(\*\) denies execute/ },
  { why: "* matches a page without a host name", rules: rules(machine), host: "data:", capabilities: ["execute"], verdict: "denied", rule: /denies execute/ },
  { why: "a hostless page is matched by no named host", rules: rules(example), host: "file:", capabilities: ["read"], verdict: "denied", rule: /"default": "deny"/ },
  // Principals.
  { why: "a grant for a principal applies to it, in any case", rules: rules(allowWithDenies), principal: "cursor", host: "news.test", capabilities: ["action"], verdict: "denied", capability: "action", rule: /grant 2 of user\.jsonc \(\*\) denies action/ },
  { why: "a grant for a principal does not apply to another", rules: rules(allowWithDenies), principal: "claude-code", host: "news.test", capabilities: ["action"], verdict: "allowed", rule: /"default": "allow"/ },
  { why: "the deprecated clients: * applies to every principal", rules: rules(example), principal: "anyone", host: "x.example.com", capabilities: ["execute"], verdict: "denied", rule: /grant 2 of user\.jsonc \(\*\.example\.com\) denies execute/ },
  // Deny over allow.
  { why: "deny overrides a later, more specific allow", rules: rules(allowWithDenies), host: "shop.example.com", capabilities: ["write"], verdict: "denied", capability: "write", rule: /grant 1 .* denies write/ },
  { why: "one denied capability of several denies the call", rules: rules(example), host: "127.0.0.1", capabilities: ["read", "action"], verdict: "denied", capability: "action", rule: /"default": "deny"/ },
  // Default.
  { why: "default deny refuses what no grant mentions", rules: rules(example), host: "127.0.0.1", capabilities: ["write"], verdict: "denied", capability: "write", rule: /"default": "deny" of user\.jsonc/ },
  { why: "default allow lets through what no grant mentions", rules: rules(allowWithDenies), host: "news.test", capabilities: ["write"], verdict: "allowed", rule: /"default": "allow" of user\.jsonc/ },
  { why: "no policy file is all open", rules: rules(open), host: "news.test", capabilities: ["execute"], verdict: "allowed", rule: /no policy file \(all open\)/ },
  { why: "a call needing no capability is allowed under deny-all", rules: rules(example), host: "localhost", capabilities: [], verdict: "allowed", capability: null, rule: /needs no capability/ },
  { why: "a call touching no site is allowed under deny-all", rules: rules(example), host: null, capabilities: ["read"], verdict: "allowed", rule: /touches no site/ },
  // Observe mode.
  { why: "observe mode lets a would-be denial through, recorded", rules: rules(observing), host: "news.test", capabilities: ["action"], verdict: "observed", capability: "action", rule: /^observe mode: "default": "deny" of user\.jsonc/ },
  { why: "an enforcing layer still denies beside an observing one", rules: rules(machine, observing), host: "news.test", capabilities: ["execute"], verdict: "denied", rule: /machine\.jsonc .* denies execute/ },
  // Layers: the machine-wide layer only tightens.
  { why: "the machine layer denies what the user's allows", rules: rules(machine, open), host: "news.test", capabilities: ["execute"], verdict: "denied", rule: /machine\.jsonc/ },
  { why: "the user's layer denies what the machine's allows", rules: rules(machine, example), host: "localhost", capabilities: ["read"], verdict: "denied", rule: /user\.jsonc/ },
  { why: "both layers allowing allows", rules: rules(machine, example), host: "127.0.0.1", capabilities: ["read"], verdict: "allowed", rule: /grant 1 of user\.jsonc/ },
  // Ask: deny wins over ask, ask over allow; layers only tighten.
  { why: "a grant's ask asks", rules: rules(asking), host: "news.test", capabilities: ["write"], verdict: "ask", capability: "write", rule: /grant 1 of user\.jsonc \(\*\) asks the person before write/ },
  { why: "a more specific host's allow wins over a wildcard's ask (0482)", rules: rules(asking), host: "shop.test", capabilities: ["write"], verdict: "allowed", rule: /grant 2 .* \(shop\.test\) allows write, more specific than its ask/ },
  { why: "an allow for the principal wins over an ask for everyone on the same host (0482)", rules: rules(saved), principal: "bob", host: "shop.test", capabilities: ["write"], verdict: "allowed", rule: /grant 2 .* allows write, more specific/ },
  { why: "another principal is still asked", rules: rules(saved), principal: "alice", host: "shop.test", capabilities: ["write"], verdict: "ask", rule: /grant 1 .* asks the person before write/ },
  { why: "an allow as specific as the ask asks", rules: rules(saved), principal: "bob", host: "shop.test", capabilities: ["action"], verdict: "ask", rule: /grant 3 .* asks the person before action/ },
  { why: "an allow more specific in one way and less in the other asks", rules: rules(saved), principal: "bob", host: "news.test", capabilities: ["read"], verdict: "ask", rule: /grant 4 .* asks the person before read/ },
  { why: "a more specific allow never opens a deny", rules: rules(saved), principal: "bob", host: "bank.test", capabilities: ["write"], verdict: "denied", rule: /grant 6 .* denies write/ },
  { why: "ask wins over an allow of another grant", rules: rules(asking), host: "shop.test", capabilities: ["action"], verdict: "ask", capability: "action", rule: /grant 2 .* asks the person before action/ },
  { why: "deny wins over ask", rules: rules(asking), host: "bad.test", capabilities: ["write"], verdict: "denied", rule: /grant 3 .* denies write/ },
  { why: "a denied capability beside an asked one denies the call", rules: rules(asking), host: "news.test", capabilities: ["write", "execute"], verdict: "denied", capability: "execute", rule: /"default": "deny"/ },
  { why: "a default of ask asks what no grant names", rules: rules(askFirst), host: "news.test", capabilities: ["action"], verdict: "ask", rule: /"default": "ask" of user\.jsonc/ },
  { why: "a grant's allow answers a default of ask", rules: rules(askFirst), host: "news.test", capabilities: ["read"], verdict: "allowed", rule: /allows read/ },
  { why: "the machine layer turns the user's allow into an ask", rules: rules(machineAsks, open), host: "news.test", capabilities: ["action"], verdict: "ask", rule: /machine\.jsonc \(\*\) asks the person before action/ },
  { why: "the user's allow cannot turn the machine's ask into an allow", rules: rules(machineAsks, layer(`{ "default": "deny", "grants": [{ "hosts": ["*"], "allow": ["action"] }] }`)), host: "news.test", capabilities: ["action"], verdict: "ask", rule: /machine\.jsonc/ },
  { why: "the user's deny wins over the machine's ask", rules: rules(machineAsks, example), host: "news.test", capabilities: ["action"], verdict: "denied", rule: /user\.jsonc/ },
  { why: "observe mode records what it would have asked", rules: rules(observeAsks), host: "news.test", capabilities: ["write"], verdict: "observed", capability: "write", rule: /^observe mode: "default": "ask" of user\.jsonc/ },
  // Per-call restriction: only tightens.
  { why: "a restriction refuses a capability it does not list", rules: rules(open), host: "news.test", capabilities: ["action"], restrictions: [restriction({ capabilities: ["read"] })], verdict: "denied", capability: "action", rule: /the call's restriction allows only read/ },
  { why: "a restriction refuses a host it does not list", rules: rules(open), host: "news.test", capabilities: ["read"], restrictions: [restriction({ hosts: ["*.example.com"] })], verdict: "denied", rule: /allows only \*\.example\.com/ },
  { why: "a restriction cannot open what the policy denies", rules: rules(example), host: "localhost", capabilities: ["read"], restrictions: [restriction({ capabilities: ["read"], hosts: ["*"] })], verdict: "denied", rule: /"default": "deny"/ },
  { why: "a restriction applies in observe mode too", rules: rules(observing), host: "news.test", capabilities: ["execute"], restrictions: [restriction({ capabilities: [] })], verdict: "denied", rule: /allows only no capability/ },
  { why: "within the restriction, the policy decides", rules: rules(example), host: "127.0.0.1", capabilities: ["read"], restrictions: [restriction({ capabilities: ["read"], hosts: ["127.0.0.1"] })], verdict: "allowed", rule: /grant 1/ },
  // Sacred sites: whatever the policy says.
  { why: "a built-in sacred site is refused under all-open", rules: rules(open), host: "accounts.google.com", capabilities: ["read"], verdict: "sacred", rule: /accounts\.google\.com is a sacred site \(the built-in list/ },
  { why: "a sacred entry covers its subdomains", rules: rules(open), host: "secure.chase.com", capabilities: ["read"], verdict: "sacred", rule: /names chase\.com/ },
  { why: "a policy's own sacred list adds to the built-in one", rules: rules(example), host: "www.bank.example", capabilities: ["read"], verdict: "sacred", rule: /"sacred" in user\.jsonc names bank\.example/ },
  { why: "a sacred site is refused in observe mode", rules: rules(observing), host: "vault.test", capabilities: ["read"], verdict: "sacred", rule: /sacred/ },
  { why: "a sacred site is refused even for a call needing nothing", rules: rules(open), host: "chase.com", capabilities: [], verdict: "sacred", capability: null, rule: /sacred/ },
  { why: "the browser's own pages are refused like sacred sites", rules: rules(open), host: "chrome-extension:", capabilities: ["read"], verdict: "sacred", rule: /the browser's own/ },
  { why: "a sacred site is refused whatever a restriction allows", rules: rules(open), host: "chase.com", capabilities: ["read"], restrictions: [restriction({ hosts: ["chase.com"] })], verdict: "sacred", rule: /sacred/ },
];

Deno.test("the decision table", () => {
  for (const row of TABLE) {
    const call: CallFacts = {
      principal: row.principal ?? "ghostlight-test",
      host: row.host,
      capabilities: row.capabilities,
      restrictions: row.restrictions ?? [],
    };
    const decision = decide(row.rules, call);
    assertEquals(decision.verdict, row.verdict, row.why);
    if (row.capability !== undefined) assertEquals(decision.capability, row.capability, row.why);
    assertMatch(decision.rule, row.rule, row.why);
  }
});

Deno.test("the person's yes answers an ask, for its host and capability only", () => {
  const yes = (host: string, capability: Capability) =>
    host === "shop.test" && capability === "action"
      ? "the person allowed action on shop.test"
      : null;
  const call = (host: string, capabilities: Capability[]): CallFacts => ({
    principal: "ghostlight-test",
    host,
    capabilities,
    restrictions: [],
    yes,
  });
  const allowed = decide(rules(asking), call("shop.test", ["action"]));
  assertEquals([allowed.verdict, allowed.rule], [
    "allowed",
    "the person allowed action on shop.test",
  ]);
  assertEquals(decide(rules(asking), call("news.test", ["write"])).verdict, "ask");
  // A yes never opens what a layer denies, nor a sacred site.
  assertEquals(decide(rules(asking), call("shop.test", ["action", "execute"])).verdict, "denied");
  const sacred = layer(`{ "default": "ask", "sacred": ["shop.test"] }`);
  assertEquals(decide(rules(sacred), call("shop.test", ["action"])).verdict, "sacred");
});

Deno.test("explain says ask where the person is asked", () => {
  const explained = explainPolicy(rules(askFirst), "ghostlight-test", "news.test")!;
  assertEquals(
    Object.fromEntries(Object.entries(explained.capabilities).map(([k, v]) => [k, v.verdict])),
    { read: "allowed", action: "ask", write: "ask", execute: "ask" },
  );
});

Deno.test("explain says, capability by capability, what a client may do on a host", () => {
  const explained = explainPolicy(rules(example), "ghostlight-test", "127.0.0.1")!;
  assertEquals(explained.sacred, null);
  assertEquals(
    Object.fromEntries(Object.entries(explained.capabilities).map(([k, v]) => [k, v.verdict])),
    { read: "allowed", action: "denied", write: "denied", execute: "denied" },
  );
  const sacred = explainPolicy(rules(example), "ghostlight-test", "bank.example")!;
  assertMatch(sacred.sacred ?? "", /sacred/);
  assertEquals(sacred.capabilities.read.verdict, "sacred");
});

Deno.test("explain names a host as enforcement sees a page there", () => {
  const idn = layer(`{ "default": "allow", "sacred": ["bücher.example", "127.0.0.2"] }`);
  for (const name of ["BÜCHER.example.", "Bücher.Example", "xn--bcher-kva.example."]) {
    const explained = explainPolicy(rules(idn), "ghostlight-test", name)!;
    assertEquals(explained.host, "xn--bcher-kva.example", name);
    assertEquals(explained.capabilities.read.verdict, "sacred", name);
    // The page enforcement decides on, for the same name, gets the same answer.
    const page = hostOfUrl(`https://${name}/`);
    assertEquals(page, explained.host, name);
  }
  for (const name of ["[::ffff:127.0.0.2]", "[::FFFF:7f00:2]", "127.0.0.2."]) {
    assertEquals(explainPolicy(rules(idn), "ghostlight-test", name)!.sacred !== null, true, name);
  }
  assertEquals(explainPolicy(rules(idn), "ghostlight-test", "http://x/"), null);
});

Deno.test("an IPv4-mapped IPv6 address is the IPv4 address it reaches", () => {
  const denied = layer(`{
    "default": "allow",
    "grants": [{ "hosts": ["127.0.0.2"], "deny": ["read"] }]
  }`);
  for (
    const url of [
      "http://[::ffff:127.0.0.2]:8000/",
      "http://[::ffff:7f00:2]/",
      "http://127.0.0.2./",
    ]
  ) {
    const host = hostOfUrl(url);
    assertEquals(host, "127.0.0.2", url);
    const decision = decide(rules(denied), {
      principal: "ghostlight-test",
      host,
      capabilities: ["read"],
      restrictions: [],
    });
    assertEquals(decision.verdict, "denied", url);
  }
  // Other IPv6 addresses stay as they are.
  assertEquals(hostOfUrl("http://[::1]/"), "[::1]");
  assertEquals(hostOfUrl("http://[2001:db8::ffff:7f00:2]/"), "[2001:db8::ffff:7f00:2]");
  // A policy naming the mapped form names the IPv4 address.
  const mapped = layer(`{ "default": "allow", "sacred": ["[::ffff:127.0.0.2]"] }`);
  assertEquals(mapped.sacred, ["127.0.0.2"]);
});
