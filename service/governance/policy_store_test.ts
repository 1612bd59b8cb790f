import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { decide } from "./decide.ts";
import { MAX_POLICY_BYTES, PolicyStore } from "./policy_store.ts";

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

/** Makes a FIFO at `path` (mkfifo(1)). */
async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  if (!made.success) throw new Error(`mkfifo failed: ${new TextDecoder().decode(made.stderr)}`);
}

Deno.test("a FIFO policy file does not hang the start: deny-all, and status says why", async () => {
  await using t = await makeStore();
  await mkfifo(t.userFile);
  // With no writer at the FIFO's other end, a read would wait forever.
  await t.store.load();
  assertEquals(t.verdict("anywhere.test", "read"), "denied");
  const state = t.store.states().user;
  assertEquals([state.state, state.inForce], ["invalid", "deny-all"]);
  assertMatch(state.error ?? "", /is a FIFO \(named pipe\), not a regular file/);
  await t.store.reload();
});

Deno.test("a policy file over the bound is refused unread, with its size in the reason", async () => {
  await using t = await makeStore();
  await Deno.writeTextFile(t.userFile, NO_SCRIPTS);
  await t.store.load();
  const huge = new Uint8Array(MAX_POLICY_BYTES + 1).fill(0x20);
  await Deno.writeFile(t.userFile, huge);
  await t.store.reload();
  const state = t.store.states().user;
  assertEquals([state.state, state.inForce], ["invalid", "last good version"]);
  assertMatch(state.error ?? "", /is 1048577 bytes, more than the 1048576 this file may be/);
  assertEquals(t.verdict("anywhere.test", "execute"), "denied");
});

Deno.test("an unchanged policy file is not read again", async () => {
  await using t = await makeStore();
  await Deno.writeTextFile(t.userFile, NO_SCRIPTS);
  await t.store.load();
  const before = await Deno.stat(t.userFile);
  // Same size, same time, same file: a change the poll does not look into (it reads nothing).
  const same = NO_SCRIPTS.replace(`"execute"`, `"read"   `).slice(0, NO_SCRIPTS.length);
  using file = await Deno.open(t.userFile, { write: true });
  await file.write(new TextEncoder().encode(same));
  await Deno.utime(t.userFile, before.atime!, before.mtime!);
  await t.store.reload();
  assertEquals(t.verdict("anywhere.test", "execute"), "denied", "the file was not read again");
  await Deno.utime(t.userFile, before.atime!, new Date(before.mtime!.getTime() + 5_000));
  await t.store.reload();
  assertEquals(t.verdict("anywhere.test", "read"), "denied", "a changed time is read");
});
