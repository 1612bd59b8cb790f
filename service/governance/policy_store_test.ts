import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { decide } from "./decide.ts";
import { PolicyStore } from "./policy_store.ts";

const READ_ONLY_HERE =
  `{ "default": "deny", "grants": [{ "hosts": ["127.0.0.1"], "allow": ["read"] }] }`;
const NO_SCRIPTS = `{ "default": "allow", "grants": [{ "hosts": ["*"], "deny": ["execute"] }] }`;

async function makeStore() {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-policy-" });
  const userFile = `${dir}/policy.jsonc`;
  const machineFile = `${dir}/machine.jsonc`;
  const store = new PolicyStore({ userFile, machineFile });
  const verdict = (host: string, capability: "read" | "execute") =>
    decide(store.rules(), { principal: "c", host, capabilities: [capability], restrictions: [] })
      .verdict;
  return {
    store,
    userFile,
    machineFile,
    verdict,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("no policy file is all open", async () => {
  await using t = await makeStore();
  await t.store.load();
  assertEquals(t.verdict("anywhere.test", "execute"), "allowed");
  assertEquals(t.store.states().user, { file: t.userFile, state: "absent", inForce: "nothing" });
});

Deno.test("a bad file at start means deny-all with the reason, never all-open", async () => {
  await using t = await makeStore();
  await Deno.writeTextFile(t.userFile, `{ "default": "allow", `);
  await t.store.load();
  assertEquals(t.verdict("anywhere.test", "read"), "denied");
  const state = t.store.states().user;
  assertEquals([state.state, state.inForce], ["invalid", "deny-all"]);
  assertMatch(state.error ?? "", /not valid JSONC/);
  const decision = decide(t.store.rules(), {
    principal: "c",
    host: "anywhere.test",
    capabilities: ["read"],
    restrictions: [],
  });
  assertMatch(decision.rule, /a deny-all stand-in, because .* is not valid JSONC/);
});

Deno.test("hot reload applies a good file and keeps the last good one over a broken one", async () => {
  await using t = await makeStore();
  await t.store.load();
  await Deno.writeTextFile(t.userFile, READ_ONLY_HERE);
  await t.store.reload();
  assertEquals(t.verdict("127.0.0.1", "read"), "allowed");
  assertEquals(t.verdict("localhost", "read"), "denied");

  await Deno.writeTextFile(t.userFile, `{ "default": "allow" `);
  await t.store.reload();
  assertEquals(t.verdict("localhost", "read"), "denied", "the last good policy stays in force");
  const broken = t.store.states().user;
  assertEquals([broken.state, broken.inForce], ["invalid", "last good version"]);
  assertMatch(broken.error ?? "", /not valid JSONC/);

  await Deno.writeTextFile(t.userFile, NO_SCRIPTS);
  await t.store.reload();
  assertEquals(t.verdict("localhost", "read"), "allowed");
  assertEquals(t.store.states().user.state, "loaded");
});

Deno.test("a policy file removed for good no longer applies; a moment's absence is ignored", async () => {
  await using t = await makeStore();
  await Deno.writeTextFile(t.userFile, READ_ONLY_HERE);
  await t.store.load();
  await Deno.remove(t.userFile);
  await t.store.reload();
  assertEquals(t.verdict("localhost", "read"), "denied", "one missed read changes nothing");
  await t.store.reload();
  assertEquals(t.verdict("localhost", "read"), "allowed");
});

Deno.test("the machine-wide file tightens the user's", async () => {
  await using t = await makeStore();
  await Deno.writeTextFile(t.machineFile, NO_SCRIPTS);
  await t.store.load();
  assertEquals(t.verdict("anywhere.test", "read"), "allowed");
  assertEquals(t.verdict("anywhere.test", "execute"), "denied");
  assertEquals(t.store.states().machine.state, "loaded");
  assertEquals(t.store.rules().layers.map((layer) => layer.source), [
    t.machineFile,
    "no policy file (all open)",
  ]);
});
