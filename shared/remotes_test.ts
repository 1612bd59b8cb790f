import { assert, assertEquals } from "../tests/support/assert.ts";
import { readPolicyText } from "../service/governance/policy_file.ts";
import { Principal } from "./bridge.ts";
import { RemotePrincipal, remotePrincipal } from "./remotes.ts";

Deno.test("remote:NAME is a principal only the service binds: a local connector cannot take it", () => {
  assertEquals(remotePrincipal("agent"), "remote:agent");
  assert(RemotePrincipal.safeParse("remote:agent").success);
  // A local connector's --principal is read with Principal, which has no colon.
  assert(!Principal.safeParse("remote:agent").success);
  assert(!RemotePrincipal.safeParse("remote:").success);
});

Deno.test("a policy grant may name a remote principal", () => {
  const read = readPolicyText(
    `{ "default": "allow", "grants": [{ "principals": ["remote:agent"], "hosts": ["example.com"], "deny": ["action"] }] }`,
    "policy.jsonc",
  );
  assert("policy" in read, "error" in read ? read.error : "");
  assertEquals(read.policy.grants[0].principals, ["remote:agent"]);
  const bad = readPolicyText(
    "policy.jsonc",
    `{ "default": "allow", "grants": [{ "principals": ["remote:"], "allow": ["read"] }] }`,
  );
  assert("error" in bad);
});
