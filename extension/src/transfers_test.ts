import { assert, assertEquals } from "../../tests/support/assert.ts";
import {
  MAX_TRANSFER_TOTAL_BYTES,
  MAX_TRANSFERS,
  TRANSFER_CHUNK_BYTES,
  transferChunks,
  transferPlaceholder,
} from "../../shared/transfer.ts";
import { decodeBase64 } from "../../shared/base64.ts";
import { placeTransfers, TransferRefused, TransferStore } from "./transfers.ts";

function payload(bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) out[i] = (i * 31 + 7) & 0xff;
  return out;
}

async function refused(promise: Promise<unknown> | (() => unknown), pattern: RegExp) {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    assert(error instanceof TransferRefused, `expected a refusal, got ${error}`);
    assert(pattern.test(error.message), `"${error.message}" does not match ${pattern}`);
    return;
  }
  throw new Error(`expected a refusal matching ${pattern}`);
}

Deno.test("chunks arriving in any order reassemble into the verified payload, taken once", async () => {
  const bytes = payload(TRANSFER_CHUNK_BYTES * 2 + 1000);
  const chunks = await transferChunks("t-ordered", bytes, 60_000);
  assertEquals(chunks.length, 3);
  const store = new TransferStore();
  assertEquals(await store.add(chunks[2]), { received: 1, complete: false });
  assertEquals(await store.add(chunks[0]), { received: 2, complete: false });
  assertEquals(await store.add(chunks[1]), { received: 3, complete: true });
  const taken = store.take(["t-ordered"]);
  assertEquals(decodeBase64(taken.get("t-ordered")!), bytes);
  await refused(() => store.take(["t-ordered"]), /unknown, expired or already used/);
});

Deno.test("a corrupted chunk is refused and the transfer dropped whole", async () => {
  const bytes = payload(TRANSFER_CHUNK_BYTES + 10);
  const chunks = await transferChunks("t-corrupt", bytes, 60_000);
  const store = new TransferStore();
  await store.add(chunks[0]);
  // Same length, one byte changed: only the digest can tell.
  const data = chunks[1].data;
  const flipped = { ...chunks[1], data: (data[0] === "A" ? "B" : "A") + data.slice(1) };
  await refused(store.add(flipped), /corrupt: its bytes do not match its SHA-256/);
  assertEquals(store.size, 0);
  assertEquals(store.heldBytes, 0);
  await refused(() => store.take(["t-corrupt"]), /unknown/);
});

Deno.test("a chunk of the wrong size or shape is refused", async () => {
  const chunks = await transferChunks("t-shape", payload(TRANSFER_CHUNK_BYTES + 10), 60_000);
  const store = new TransferStore();
  await refused(store.add({ ...chunks[0], data: chunks[0].data.slice(4) }), /base64 characters/);
  await store.add(chunks[0]);
  await refused(store.add(chunks[0]), /arrived twice/);
  await store.add(chunks[0]);
  await refused(store.add({ ...chunks[1], total_bytes: 99 }), /contradicts its first chunk/);
  await refused(
    store.add({ ...chunks[0], transfer_id: "t-count", count: 5 }),
    /declares 5 chunks for \d+ bytes; it needs 2/,
  );
});

Deno.test("an incomplete transfer cannot be taken, and taking is all or none", async () => {
  const store = new TransferStore();
  const whole = await transferChunks("t-whole", payload(100), 60_000);
  const partial = await transferChunks("t-partial", payload(TRANSFER_CHUNK_BYTES + 1), 60_000);
  await store.add(whole[0]);
  await store.add(partial[0]);
  await refused(() => store.take(["t-whole", "t-partial"]), /incomplete: 1 of 2 chunks/);
  assertEquals(store.take(["t-whole"]).size, 1, "the complete one was not used up by the refusal");
});

Deno.test("an expired transfer is refused and its bytes freed", async () => {
  let now = 1_000;
  const store = new TransferStore(() => now);
  const chunks = await transferChunks("t-late", payload(TRANSFER_CHUNK_BYTES + 1), 5_000);
  await store.add(chunks[0]);
  now += 5_000;
  assertEquals(await store.add({ ...chunks[1] }), { received: 1, complete: false });
  now += 5_000;
  await refused(() => store.take(["t-late"]), /unknown, expired/);
  assertEquals(store.heldBytes, 0);
});

Deno.test("transfers held at once and bytes held are bounded, and the refusal says the limit", async () => {
  const store = new TransferStore();
  for (let i = 0; i < MAX_TRANSFERS; i++) {
    await store.add((await transferChunks(`t-many-${i}`, payload(10), 60_000))[0]);
  }
  const extra = (await transferChunks("t-many-x", payload(10), 60_000))[0];
  await refused(store.add(extra), new RegExp(`${MAX_TRANSFERS} transfers, the limit`));
  store.clear();
  const big = (await transferChunks("t-big", payload(10), 60_000))[0];
  const huge = { ...big, total_bytes: MAX_TRANSFER_TOTAL_BYTES + 1, count: 86 };
  await refused(store.add(huge), /over the 32 MiB limit/);
});

Deno.test("placing transfers fills each placeholder once, and refuses before taking anything", async () => {
  const store = new TransferStore();
  await store.add((await transferChunks("t-place", payload(6), 60_000))[0]);
  const params = {
    arguments: [{ value: 1 }, { value: [{ data: transferPlaceholder("t-place") }] }],
  };
  const twice = { a: transferPlaceholder("t-place"), b: transferPlaceholder("t-place") };
  await refused(
    () => placeTransfers(twice, ["t-place"], (ids) => store.take(ids)),
    /appears 2 times/,
  );
  assertEquals(store.size, 1, "a refused placement takes nothing");
  const filled = placeTransfers(params, ["t-place"], (ids) => store.take(ids));
  assertEquals(filled, { arguments: [{ value: 1 }, { value: [{ data: "ByZFZIOi" }] }] });
  assertEquals(store.size, 0);
});
