import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { hostMatches, hostOfUrl, HostPattern, sacredCovers } from "./hosts.ts";
import { readPolicyText, withGrantAppended } from "./policy_file.ts";
import { DEFAULT_TEMPLATE, TEMPLATES } from "./templates.ts";

const EXAMPLE = `{
  // comments are allowed
  "mode": "enforce",
  "default": "deny",
  "grants": [
    { "hosts": ["127.0.0.1"], "allow": ["read"] },
    { "principals": ["*"], "hosts": ["*.example.com"], "deny": ["execute"] }
  ],
  "sacred": ["bank.example"]
}`;

function errorOf(text: string): string {
  const read = readPolicyText(text, "policy.jsonc");
  assert("error" in read, `expected ${text} to be refused`);
  return read.error;
}

Deno.test("the README's example policy is accepted as written", () => {
  const read = readPolicyText(EXAMPLE, "policy.jsonc");
  assert("policy" in read, JSON.stringify(read));
  assertEquals(read.policy, {
    source: "policy.jsonc",
    mode: "enforce",
    default: "deny",
    grants: [
      {
        principals: ["*"],
        saidClients: false,
        hosts: ["127.0.0.1"],
        allow: ["read"],
        deny: [],
        ask: [],
      },
      {
        principals: ["*"],
        saidClients: false,
        hosts: ["*.example.com"],
        allow: [],
        deny: ["execute"],
        ask: [],
      },
    ],
    sacred: ["bank.example"],
    warnings: [],
  });
});

Deno.test("the deprecated clients is read as principals, with a warning; both at once is refused", () => {
  const read = readPolicyText(
    `{ "default": "allow", "grants": [
      { "principals": ["cursor"], "deny": ["write"] },
      { "clients": ["Claude-Desktop"], "deny": ["execute"] },
    ] }`,
    "p.jsonc",
  );
  assert("policy" in read, JSON.stringify(read));
  assertEquals(read.policy.grants.map((grant) => grant.principals), [["cursor"], [
    "claude-desktop",
  ]]);
  assertEquals(read.policy.warnings.length, 1);
  assertMatch(read.policy.warnings[0], /^p\.jsonc: grant 2 says "clients", which is deprecated/);
  assertMatch(
    errorOf(
      `{ "default": "allow", "grants": [{ "principals": ["a"], "clients": ["a"], "deny": ["read"] }] }`,
    ),
    /grants\.0: a grant says "principals" or the deprecated "clients", not both/,
  );
  assertMatch(
    errorOf(
      `{ "default": "allow", "grants": [{ "principals": ["Claude Desktop"], "deny": ["read"] }] }`,
    ),
    /grants\.0\.principals\.0: .*a principal is 1 to 64 lowercase letters/,
  );
});

Deno.test("default allow with deny grants, trailing commas and block comments are accepted", () => {
  const read = readPolicyText(
    `/* everything, but no scripts */ { "default": "allow", "grants": [
      { "hosts": ["*"], "deny": ["execute"], },
    ], }`,
    "policy.jsonc",
  );
  assert("policy" in read, JSON.stringify(read));
  assertEquals(read.policy.mode, "enforce");
  assertEquals(read.policy.default, "allow");
});

Deno.test("a broken or invalid file is refused with where and why", () => {
  assertMatch(errorOf(`{ "default": "deny", `), /not valid JSONC: .* at line 1, column \d+/);
  assertMatch(errorOf(`{\n  "default": "deny"\n  "mode": "observe"\n}`), /at line 3, column 3/);
  assertMatch(errorOf(""), /empty/);
  assertMatch(errorOf(`{ "mode": "enforce" }`), /"default" must be "allow" .* or "deny"/);
  assertMatch(errorOf(`{ "default": "deny", "grant": [] }`), /Unrecognized key.*grant/);
  assertMatch(
    errorOf(`{ "default": "deny", "grants": [{ "hosts": ["x.test"], "allow": ["click"] }] }`),
    /at grants\.0\.allow\.0/,
  );
  assertMatch(
    errorOf(
      `{ "default": "deny", "grants": [{ "hosts": ["https://x.test/"], "allow": ["read"] }] }`,
    ),
    /"https:\/\/x\.test\/" is not a host pattern/,
  );
  assertMatch(
    errorOf(`{ "default": "deny", "grants": [{ "hosts": ["x.test"] }] }`),
    /a grant needs "allow", "ask" or "deny"/,
  );
});

Deno.test("host patterns: exact, *.domain, *; normalised as browsers report hosts", () => {
  const pattern = (raw: string) => HostPattern.parse(raw);
  assertEquals(pattern(" Example.COM. "), "example.com");
  assertEquals(pattern("*.Example.com"), "*.example.com");
  assertEquals(pattern("bücher.example"), "xn--bcher-kva.example");
  assertEquals(pattern("[::1]"), "[::1]");
  for (const bad of ["", "a b", "x.test:8080", "x.test/path", "*.*.x", "user@x.test", "**"]) {
    assert(!HostPattern.safeParse(bad).success, bad);
  }
  assert(hostMatches("*", "anything"));
  assert(hostMatches("*.example.com", "a.example.com"));
  assert(!hostMatches("*.example.com", "example.com"));
  assert(!hostMatches("*.example.com", "notexample.com"));
  assert(sacredCovers("bank.example", "bank.example"));
  assert(sacredCovers("bank.example", "www.bank.example"));
  assert(!sacredCovers("bank.example", "mybank.example"));
});

Deno.test("the host of a page: its hostname; none for a blank page; the scheme without one", () => {
  assertEquals(hostOfUrl("http://127.0.0.1:8080/x?y"), "127.0.0.1");
  assertEquals(hostOfUrl("https://WWW.Example.com./"), "www.example.com");
  assertEquals(hostOfUrl("about:blank"), null);
  assertEquals(hostOfUrl(""), null);
  assertEquals(hostOfUrl("blob:https://a.example/123"), "a.example");
  assertEquals(hostOfUrl("data:text/html,hi"), "data:");
  assertEquals(hostOfUrl("file:///etc/passwd"), "file:");
  assertEquals(hostOfUrl("http://[::1]:3000/"), "[::1]");
  assertEquals(hostOfUrl("chrome-extension://abcdef/popup.html"), "chrome-extension:");
  assertEquals(hostOfUrl("chrome://settings/"), "chrome:");
});

Deno.test("every policy init template is a valid policy as written", () => {
  for (const [name, template] of Object.entries(TEMPLATES)) {
    const read = readPolicyText(template.text, name);
    assert("policy" in read, `${name}: ${JSON.stringify(read)}`);
  }
  assert(DEFAULT_TEMPLATE in TEMPLATES);
});

Deno.test("odd but possible files: a BOM is read past, deep nesting is a reason, not a throw", () => {
  // Editors that save "UTF-8 with BOM" put U+FEFF first; the file is still the person's policy.
  const read = readPolicyText(`\uFEFF{ "default": "deny" }`, "policy.jsonc");
  assert("policy" in read, JSON.stringify(read));
  assertEquals(read.policy.default, "deny");
  const deep = `{ "default": "deny", "grants": ${"[".repeat(100_000)}${"]".repeat(100_000)} }`;
  assertMatch(errorOf(deep), /nest/);
});

Deno.test("a key given twice is refused: the later one would silently win", () => {
  assertMatch(
    errorOf(`{ "default": "deny",\n  "grants": [],\n  "default": "allow" }`),
    /"default" is given twice .*line 3/,
  );
  assertMatch(
    errorOf(`{ "default": "deny", "grants": [{ "hosts": ["a.test"], "allow": ["read"],
      "allow": ["execute"] }] }`),
    /"allow" is given twice/,
  );
  // The same key in different objects is no duplicate.
  const read = readPolicyText(
    `{ "default": "deny", "grants": [{ "hosts": ["a.test"], "allow": ["read"] },
      { "hosts": ["b.test"], "allow": ["read"] }] }`,
    "policy.jsonc",
  );
  assert("policy" in read, JSON.stringify(read));
});

Deno.test("a grant may ask, and the default may be ask; a grant saying nothing is refused", () => {
  const read = readPolicyText(
    `{ "default": "ask", "grants": [{ "hosts": ["*"], "ask": ["write"] }] }`,
    "p.jsonc",
  );
  assert("policy" in read, JSON.stringify(read));
  assertEquals([read.policy.default, read.policy.grants[0].ask], ["ask", ["write"]]);
  const empty = readPolicyText(`{ "default": "ask", "grants": [{ "hosts": ["*"] }] }`, "p.jsonc");
  assert("error" in empty);
  assertMatch(empty.error, /a grant needs "allow", "ask" or "deny"/);
  const bad = readPolicyText(`{ "default": "maybe" }`, "p.jsonc");
  assert("error" in bad);
  assertMatch(bad.error, /"default" must be "allow" .* "ask" .* or "deny"/);
});

Deno.test("the ask-first template reads, asks before acting and allows reading", () => {
  const read = readPolicyText(TEMPLATES["ask-first"].text, "ask-first");
  assert("policy" in read, JSON.stringify(read));
  assertEquals(read.policy.default, "ask");
  assertEquals(read.policy.grants.map((grant) => grant.allow), [["read"]]);
});

Deno.test("a saved yes is appended as a grant, every comment and other byte kept", () => {
  const text = `{
  // Ask before filling forms on the shop.
  "default": "allow",
  "grants": [
    { "hosts": ["shop.test"], "ask": ["write"] }, // the shop
  ],
}
`;
  const saved = { principal: "bob", host: "shop.test", capability: "write" as const };
  const edited = withGrantAppended(text, "user.jsonc", saved);
  assert("text" in edited, JSON.stringify(edited));
  for (
    const kept of ["// Ask before filling forms on the shop.", "// the shop", '"default": "allow"']
  ) {
    assert(edited.text.includes(kept), `${kept} is gone:\n${edited.text}`);
  }
  const read = readPolicyText(edited.text, "user.jsonc");
  assert("policy" in read, JSON.stringify(read));
  assertEquals(read.policy.grants.map((g) => [g.principals, g.hosts, g.allow, g.ask]), [
    [["*"], ["shop.test"], [], ["write"]],
    [["bob"], ["shop.test"], ["write"], []],
  ]);
  // A file with no grants gets them; one that is no policy is left alone, saying why.
  const bare = withGrantAppended(`{ "default": "ask" } // mine\n`, "user.jsonc", saved);
  assert("text" in bare && bare.text.includes("// mine") && bare.text.includes('"bob"'));
  const broken = withGrantAppended(`{ "default": "maybe" }`, "user.jsonc", saved);
  assert("error" in broken, JSON.stringify(broken));
});
