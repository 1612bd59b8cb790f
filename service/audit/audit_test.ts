import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import {
  type AuditEntry,
  AuditKey,
  AuditLog,
  AuditUnavailable,
  checkAnchor,
  FIELDS,
  readAnchor,
  rotatedNumbers,
  type Verification,
  verifyAudit,
} from "./mod.ts";
import { canonicalJson, ChainKey, encodeHex } from "./keyed.ts";
import { hashOf, legacyHashOf, seal } from "./record.ts";

const KEY = ChainKey.derive(new Uint8Array(32).fill(3));

function entry(n: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    kind: n % 2 === 0 ? "decision" : "outcome",
    result: n % 2 === 0 ? "allowed" : "success",
    principal: "test-principal",
    client: "ghostlight-test",
    workspace: "ws-0123456789abcdef",
    work: `w${n}`,
    tool: "computer",
    action: "left_click",
    host: "127.0.0.1",
    capabilities: ["action"],
    rule: "no policy file (all open)",
    args: "hmac-sha256:00",
    ...overrides,
  };
}

async function tempAudit(options: { maxBytes?: number; keepFiles?: number } = {}) {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-audit-" });
  const file = `${dir}/audit.jsonl`;
  const open = () =>
    AuditLog.open({
      file,
      maxBytes: options.maxBytes ?? 1 << 20,
      keepFiles: options.keepFiles ?? 10,
      key: KEY,
    });
  const verifyText = (text: string) => verifyAudit([{ name: "audit.jsonl", text }], KEY);
  return {
    dir,
    file,
    open,
    verifyText,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

function failsAt(result: Verification, line: number, reason: RegExp): void {
  assert(!result.ok, "expected the verification to fail");
  assertEquals(result.line, line);
  assertMatch(result.reason, reason);
}

Deno.test("records have a fixed field order and chain to the one before", async () => {
  await using t = await tempAudit();
  const audit = await t.open();
  for (let n = 0; n < 3; n++) await audit.append(entry(n));
  const lines = (await Deno.readTextFile(t.file)).trimEnd().split("\n");
  assertEquals(lines.length, 3);
  const records = lines.map((line) => JSON.parse(line));
  for (const record of records) assertEquals(Object.keys(record), FIELDS);
  assertEquals(records.map((r) => r.seq), [1, 2, 3]);
  assertEquals(records[0].prev, null);
  assertEquals(records[1].prev, records[0].hash);
  assertEquals(records[2].prev, records[1].hash);
  assertEquals((await Deno.stat(t.file)).mode! & 0o777, 0o600);
  assertEquals(t.verifyText(await Deno.readTextFile(t.file)), {
    ok: true,
    records: 3,
    legacy: 0,
    first: 1,
    end: { seq: 3, hash: records[2].hash },
    events: [],
  });
});

Deno.test("verify names the first bad line: an edited byte, a removed, a swapped record", async () => {
  await using t = await tempAudit();
  const audit = await t.open();
  for (let n = 0; n < 6; n++) await audit.append(entry(n));
  const text = await Deno.readTextFile(t.file);
  const lines = text.trimEnd().split("\n");

  const edited = [...lines];
  edited[2] = edited[2].replace("127.0.0.1", "127.0.0.2");
  failsAt(t.verifyText(edited.join("\n") + "\n"), 3, /hash does not match/);

  const reformatted = [...lines];
  reformatted[1] = JSON.stringify(JSON.parse(reformatted[1]), null, 0).replace(":", ": ");
  failsAt(t.verifyText(reformatted.join("\n") + "\n"), 2, /fixed form/);

  const removed = lines.filter((_, index) => index !== 3);
  failsAt(t.verifyText(removed.join("\n") + "\n"), 4, /removed, inserted or reordered/);

  const swapped = [...lines];
  [swapped[1], swapped[2]] = [swapped[2], swapped[1]];
  failsAt(t.verifyText(swapped.join("\n") + "\n"), 2, /removed, inserted or reordered/);

  const inserted = [...lines.slice(0, 2), lines[4], ...lines.slice(2)];
  failsAt(t.verifyText(inserted.join("\n") + "\n"), 3, /removed, inserted or reordered/);

  const firstRemoved = lines.slice(1);
  assert((t.verifyText(firstRemoved.join("\n") + "\n")).ok, "a rotated-away head is fine");
  failsAt(t.verifyText("not json\n"), 1, /not a JSON record/);
});

Deno.test("rotation by size keeps the chain across files and bounds the files kept", async () => {
  await using t = await tempAudit({ maxBytes: 1200, keepFiles: 2 });
  const audit = await t.open();
  for (let n = 0; n < 20; n++) await audit.append(entry(n));
  const numbers = await rotatedNumbers(t.file);
  assertEquals(numbers.length, 2, "only the newest rotated files are kept");
  const files = [...numbers.map((n) => `${t.file}.${n}`), t.file];
  const texts = await Promise.all(
    files.map(async (name) => ({ name, text: await Deno.readTextFile(name) })),
  );
  for (const { text } of texts) assert(new TextEncoder().encode(text).length <= 1200);
  const verified = verifyAudit(texts, KEY);
  assert(verified.ok, JSON.stringify(verified));
  assertEquals(verified.end?.seq, 20);
  // Out of order, the files break the chain at the first line of the misplaced one.
  const misordered = verifyAudit([texts[1], texts[0], texts[2]], KEY);
  assert(!misordered.ok && misordered.file === texts[0].name && misordered.line === 1);
});

Deno.test("a reopened audit continues the chain, from a rotated file too", async () => {
  await using t = await tempAudit({ maxBytes: 600 });
  const first = await t.open();
  for (let n = 0; n < 3; n++) await first.append(entry(n));
  const second = await t.open();
  await second.append(entry(3));
  // Only rotated files left: the chain goes on from the newest of them.
  await Deno.rename(t.file, `${t.file}.99`);
  const third = await t.open();
  await third.append(entry(4));
  const numbers = await rotatedNumbers(t.file);
  const texts = await Promise.all(
    [...numbers.map((n) => `${t.file}.${n}`), t.file].map(async (name) => ({
      name,
      text: await Deno.readTextFile(name),
    })),
  );
  const verified = verifyAudit(texts, KEY);
  assert(verified.ok, JSON.stringify(verified));
  assertEquals(verified.end?.seq, 5);
});

Deno.test("writing fails closed: an unwritable or damaged audit refuses with the reason", async () => {
  await using t = await tempAudit();
  const audit = await t.open();
  await audit.append(entry(0));
  await Deno.remove(t.file);
  await Deno.mkdir(t.file);
  let thrown: unknown;
  try {
    await audit.append(entry(1));
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof AuditUnavailable, String(thrown));
  assertMatch(thrown.message, /could not be written/);
  assertEquals(audit.state().ok, false);
  await Deno.remove(t.file);

  // Without a trusted anchor, a damaged last record leaves the chain nowhere to go on from.
  await Deno.remove(`${t.dir}/audit.anchor`);
  await Deno.writeTextFile(t.file, '{"seq":1,"time":"x"}\n');
  const damaged = await t.open();
  assertMatch(damaged.state().error ?? "", /last record .* is not an audit record/);
  let refused: unknown;
  try {
    await damaged.append(entry(2));
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof AuditUnavailable);
});

Deno.test("arguments are a keyed hash: stable, key-order blind, secret-dependent", () => {
  const key = AuditKey.derive(new Uint8Array(32).fill(7));
  const other = AuditKey.derive(new Uint8Array(32).fill(8));
  const a = key.arguments({ text: "hunter2", tabId: 1 });
  assertMatch(a, /^hmac-sha256:[0-9a-f]{64}$/);
  assertEquals(a, key.arguments({ tabId: 1, text: "hunter2" }));
  assert(a !== other.arguments({ text: "hunter2", tabId: 1 }));
  assert(!a.includes("hunter2"));
  assertMatch(key.workspace("ws_secret"), /^ws-[0-9a-f]{16}$/);
});

Deno.test("a workspace's tag is the same on every call, and its own under each key", () => {
  const key = AuditKey.derive(new Uint8Array(32).fill(7));
  const other = AuditKey.derive(new Uint8Array(32).fill(8));
  const first = key.workspace("ws_a");
  assertEquals(key.workspace("ws_a"), first);
  assert(first !== key.workspace("ws_b"));
  assert(first !== other.workspace("ws_a"));
  // Past the bound the memory starts over; the tag is made again, the same.
  for (let i = 0; i < 1_100; i++) key.workspace(`ws_${i}`);
  assertEquals(key.workspace("ws_a"), first);
});

Deno.test("the hashes are WebCrypto's to the byte: records written before 0216 still verify", async () => {
  const hex = (buffer: ArrayBuffer) => encodeHex(new Uint8Array(buffer));
  const hmacKey = (raw: BufferSource) =>
    crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const secret = new Uint8Array(32).fill(7);
  const encode = (text: string) => new TextEncoder().encode(text);
  // The key as it was derived: HMAC of the label under the secret, then HMAC under that.
  const derived = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    encode("ghostlight-audit-key-v1"),
  );
  const args = { text: "pässwörd \u{1F511}", tabId: 1, nested: { b: [1, "x"], a: null } };
  const webArgs = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(derived),
    encode(`args\n${canonicalJson(args)}`),
  );
  const key = AuditKey.derive(secret);
  assertEquals(key.arguments(args), `hmac-sha256:${hex(webArgs)}`);
  const webTag = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(derived),
    encode("workspace\nws_é"),
  );
  assertEquals(key.workspace("ws_é"), `ws-${hex(webTag).slice(0, 16)}`);
  const record = seal(
    entry(2, { client: "clïent ✓" }),
    { seq: 4, hash: "sha256:00" },
    new Date(0),
    ChainKey.derive(secret),
  );
  const { hash, ...rest } = record;
  const line = JSON.stringify(rest, Object.keys(rest));
  assertEquals(
    legacyHashOf(rest),
    `sha256:${hex(await crypto.subtle.digest("SHA-256", encode(line)))}`,
  );
  // The chain key: HMAC of its label under the secret; each record's hash an HMAC under it.
  const chain = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    encode("ghostlight-audit-chain-v1"),
  );
  const webHash = await crypto.subtle.sign("HMAC", await hmacKey(chain), encode(line));
  assertEquals(hash, `hmac-sha256:${hex(webHash)}`);
});

/** The records of a file, as lines. */
async function linesOf(file: string): Promise<string[]> {
  return (await Deno.readTextFile(file)).trimEnd().split("\n");
}

Deno.test("a record edited with the chain recomputed after it fails: the hash needs the key", async () => {
  await using t = await tempAudit();
  const audit = await t.open();
  for (let n = 0; n < 4; n++) await audit.append(entry(n));
  const lines = await linesOf(t.file);
  // The forger edits record 2 and recomputes every hash from there on, under a key of their own
  // and as plain SHA-256: neither passes.
  for (const forgery of [ChainKey.derive(new Uint8Array(32).fill(9)), null]) {
    let prev = JSON.parse(lines[0]).hash;
    const forged = [lines[0]];
    for (const line of lines.slice(1)) {
      const { hash: _, ...rest } = JSON.parse(line);
      rest.prev = prev;
      if (rest.seq === 2) rest.host = "innocent.example";
      const record = forgery === null
        ? { ...rest, hash: legacyHashOf(rest) }
        : seal(rest, { seq: rest.seq - 1, hash: prev }, new Date(rest.time), forgery);
      forged.push(JSON.stringify(record, FIELDS));
      prev = record.hash;
    }
    failsAt(
      t.verifyText(forged.join("\n") + "\n"),
      2,
      forgery === null ? /plain hash after keyed records/ : /keyed hash does not match/,
    );
  }
});

Deno.test("an audit from before the key verifies as legacy, and keyed records follow it", async () => {
  await using t = await tempAudit();
  let prev: string | null = null;
  const legacy: string[] = [];
  for (let n = 0; n < 3; n++) {
    const sealed = seal(entry(n), { seq: n, hash: prev }, new Date(), KEY);
    const { hash: _, ...rest } = sealed;
    const record = { ...rest, hash: legacyHashOf(rest) };
    legacy.push(JSON.stringify(record, FIELDS));
    prev = record.hash;
  }
  await Deno.writeTextFile(t.file, legacy.join("\n") + "\n");
  const audit = await t.open();
  assert(audit.state().ok, audit.state().error);
  await audit.append(entry(3));
  const verified = t.verifyText(await Deno.readTextFile(t.file));
  assert(verified.ok, JSON.stringify(verified));
  assertEquals([verified.records, verified.legacy, verified.events], [4, 3, []]);
});

Deno.test("a cut, a deleted audit and a deleted anchor are found at start and recorded as a gap", async () => {
  await using t = await tempAudit();
  const anchorFile = `${t.dir}/audit.anchor`;
  const first = await t.open();
  for (let n = 0; n < 5; n++) await first.append(entry(n));
  const lines = await linesOf(t.file);

  // The last two records cut off: the service goes on, its first record says what is missing.
  await Deno.writeTextFile(t.file, lines.slice(0, 3).join("\n") + "\n");
  const cut = await t.open();
  assert(cut.state().ok);
  const afterCut = await linesOf(t.file);
  const gap = JSON.parse(afterCut.at(-1)!);
  assertEquals([gap.seq, gap.kind, gap.result], [4, "audit", "gap"]);
  assertMatch(gap.rule, /ends at record 3, but its anchor names record 5: 2 record\(s\) were cut/);
  const verified = t.verifyText(afterCut.join("\n") + "\n");
  assert(verified.ok);
  assertEquals(verified.events.map((event) => event.result), ["gap"]);

  // The audit deleted: the chain goes on from the anchored head, the gap says so.
  await Deno.remove(t.file);
  const deleted = await t.open();
  assert(deleted.state().ok);
  const [restart] = (await linesOf(t.file)).map((line) => JSON.parse(line));
  assertEquals([restart.seq, restart.result], [5, "gap"]);
  assertMatch(restart.rule, /the audit was deleted: its anchor names record 4/);

  // The anchor deleted with keyed records left: that is a gap too.
  await Deno.remove(anchorFile);
  await t.open();
  assertMatch(JSON.parse((await linesOf(t.file)).at(-1)!).rule, /anchor was deleted/);

  // Both deleted on an instance that had run: a gap, not a silent fresh start.
  await Deno.remove(anchorFile);
  await Deno.remove(t.file);
  await AuditLog.open({ file: t.file, maxBytes: 1 << 20, keepFiles: 10, key: KEY, hadRun: true });
  const [fresh] = (await linesOf(t.file)).map((line) => JSON.parse(line));
  assertEquals([fresh.seq, fresh.result], [1, "gap"]);
  assertMatch(fresh.rule, /had run before/);
});

Deno.test("an anchor edited, or signed under another key, is not trusted", async () => {
  await using t = await tempAudit();
  const audit = await t.open();
  await audit.append(entry(0));
  const anchorFile = `${t.dir}/audit.anchor`;
  const anchor = JSON.parse(await Deno.readTextFile(anchorFile));
  anchor.state.seq = 0;
  await Deno.writeTextFile(anchorFile, JSON.stringify(anchor));
  await t.open();
  const last = JSON.parse((await linesOf(t.file)).at(-1)!);
  assertEquals(last.result, "gap");
  assertMatch(last.rule, /does not carry the service's MAC/);
});

Deno.test("every field is bounded before sealing: a 370-character host and a huge rule verify", async () => {
  await using t = await tempAudit();
  const audit = await t.open();
  const host = `${"a".repeat(63)}.`.repeat(6).slice(0, 370);
  const hosts = Array.from({ length: 64 }, (_, i) => `${"h".repeat(60)}${i}.example`);
  await audit.append(
    entry(0, {
      host,
      rule: `only ${hosts.join(", ")}`,
      client: "c".repeat(900),
      principal: "p".repeat(300),
    }),
  );
  await audit.append(
    entry(1, { capabilities: ["read", "action", "write", "execute", "x".repeat(40)] }),
  );
  // A surrogate pair at the cut is not split.
  await audit.append(entry(2, { client: `${"c".repeat(198)}\u{1F511}tail` }));
  const verified = t.verifyText(await Deno.readTextFile(t.file));
  assert(verified.ok, JSON.stringify(verified));
  const records = (await linesOf(t.file)).map((line) => JSON.parse(line));
  assertEquals(records[0].host.length, 300);
  assertEquals(records[0].principal.length, 64);
  assert(records[0].host.endsWith("…"));
  assertEquals(records[1].capabilities.length, 4);
  assert(!/[\ud800-\udbff]…/.test(records[2].client), "no lone surrogate at the cut");
  // And the service that wrote it continues it after a restart.
  const reopened = await t.open();
  assert(reopened.state().ok, reopened.state().error);
  await reopened.append(entry(3));
});

Deno.test("a record names its principal; one written before the field existed still verifies", async () => {
  await using t = await tempAudit();
  // Two keyed records as the service wrote them before records named their principal.
  let prev: string | null = null;
  const before: string[] = [];
  for (let n = 0; n < 2; n++) {
    const { hash: _, principal: __, ...rest } = seal(
      entry(n),
      { seq: n, hash: prev },
      new Date(),
      KEY,
    );
    const record = { ...rest, hash: hashOf(rest, KEY) };
    before.push(JSON.stringify(record, FIELDS));
    prev = record.hash;
  }
  assert(!before[0].includes("principal"));
  await Deno.writeTextFile(t.file, before.join("\n") + "\n");
  const audit = await t.open();
  assert(audit.state().ok, audit.state().error);
  const written = await audit.append(entry(2, { principal: "reader" }));
  assertEquals(written.principal, "reader");
  // (Opened without an anchor, the audit first records that gap: a record about itself.)
  const lines = await linesOf(t.file);
  assertEquals(lines.length, 4);
  assertMatch(lines[2], /"result":"gap","principal":null,"client":"ghostlight"/);
  assertMatch(lines[3], /"result":"allowed","principal":"reader","client":"ghostlight-test"/);
  const verified = t.verifyText(lines.join("\n") + "\n");
  assert(verified.ok, JSON.stringify(verified));
  assertEquals([verified.records, verified.legacy], [4, 0]);
  // The principal is under the hash like every other field.
  failsAt(
    t.verifyText([...lines.slice(0, 3), lines[3].replace('"reader"', '"writer"')].join("\n")),
    4,
    /keyed hash does not match/,
  );
});

Deno.test("the audit is never written through a link, nor into a FIFO", async () => {
  await using t = await tempAudit();
  const outside = await Deno.makeTempFile();
  try {
    await Deno.symlink(outside, t.file);
    const linked = await t.open();
    assertMatch(linked.state().error ?? "", /not a regular file/);
    assertEquals(await Deno.readTextFile(outside), "");
    await Deno.remove(t.file);
    const audit = await t.open();
    await audit.append(entry(0));
    // A link swapped in while the service runs: the write is refused, nothing reaches the target.
    await Deno.remove(t.file);
    await Deno.symlink(outside, t.file);
    let thrown: unknown;
    try {
      await audit.append(entry(1));
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof AuditUnavailable);
    assertMatch(thrown.message, /is a symbolic link, not a regular file/);
    assertEquals(await Deno.readTextFile(outside), "");
  } finally {
    await Deno.remove(outside);
  }
});

Deno.test("a damaged last record with a trusted anchor is recorded as a gap, and the audit goes on", async () => {
  await using t = await tempAudit();
  const audit = await t.open();
  for (let n = 0; n < 3; n++) await audit.append(entry(n));
  const lines = await linesOf(t.file);
  // The last record edited, then half of it cut off (as a crash mid-write would leave it).
  await Deno.writeTextFile(t.file, `${lines.slice(0, 2).join("\n")}\n${lines[2].slice(0, 40)}`);
  const reopened = await t.open();
  assert(reopened.state().ok, reopened.state().error);
  await reopened.append(entry(3));
  const after = await linesOf(t.file);
  assertEquals(after.length, 5, "the cut line stays on its own line");
  const gap = JSON.parse(after[3]);
  assertEquals([gap.seq, gap.result], [4, "gap"]);
  assertMatch(gap.rule, /the last record of .* was cut off/);
  // verify names the damaged line; everything after it follows the anchored head.
  failsAt(t.verifyText(after.join("\n") + "\n"), 3, /not a JSON record/);
  const repaired = [...after.slice(0, 2), lines[2], ...after.slice(3)];
  assert(t.verifyText(repaired.join("\n") + "\n").ok, "the chain goes on from record 3");
});

Deno.test("the anchor follows rotation: an oldest file removed out of turn is caught", async () => {
  await using t = await tempAudit({ maxBytes: 1200, keepFiles: 3 });
  const audit = await t.open();
  for (let n = 0; n < 20; n++) await audit.append(entry(n));
  const read = async () => {
    const numbers = await rotatedNumbers(t.file);
    const files = [...numbers.map((n) => `${t.file}.${n}`), t.file];
    return await Promise.all(
      files.map(async (name) => ({ name, text: await Deno.readTextFile(name) })),
    );
  };
  const anchor = await readAnchor(`${t.dir}/audit.anchor`, KEY);
  assert(typeof anchor === "object" && anchor !== null);
  assert(anchor.rotations > 0 && anchor.first > 1, JSON.stringify(anchor));
  const texts = await read();
  const verified = verifyAudit(texts, KEY, anchor.seq);
  assert(verified.ok);
  assertEquals(checkAnchor(verified, anchor), null, "rotation as the service did it is fine");
  assertEquals(verified.first, anchor.first);
  // The oldest kept file removed by someone else: the chain still holds, the anchor does not.
  await Deno.remove(texts[0].name);
  const cut = verifyAudit(await read(), KEY, anchor.seq);
  assert(cut.ok);
  assertMatch(checkAnchor(cut, anchor) ?? "", /an audit file was removed out of turn/);
});
