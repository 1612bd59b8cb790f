import { assertEquals } from "../../tests/support/assert.ts";
import { ControlProofs, MAX_REMEMBERED_PROOFS, PROOF_WINDOW_MS, proveRequest } from "./proof.ts";

const key = crypto.getRandomValues(new Uint8Array(32));
const request = { method: "POST", path: "/person", body: new TextEncoder().encode("{}") };

Deno.test("a proof is good only within the window of the service's clock", async () => {
  let now = Date.now();
  const proofs = new ControlProofs(key, { now: () => now });
  const header = await proveRequest(key, request);
  now += PROOF_WINDOW_MS + 1;
  assertEquals(await proofs.check(request, header), "the request's proof is out of date");
  now -= 2 * (PROOF_WINDOW_MS + 1);
  assertEquals(await proofs.check(request, header), "the request's proof is out of date");
  for (const bad of ["", "v1", "v2 1 n p", `v1 x n p`, `${header} more`]) {
    assertEquals(await proofs.check(request, bad), "the request's proof is malformed", bad);
  }
});

Deno.test("accepted proofs are remembered up to a bound, and forgotten past the window", async () => {
  let now = Date.now();
  const proofs = new ControlProofs(key, { now: () => now });
  for (let i = 0; i < MAX_REMEMBERED_PROOFS; i++) {
    assertEquals(await proofs.check(request, await proveRequest(key, request)), null);
  }
  assertEquals(
    await proofs.check(request, await proveRequest(key, request)),
    "too many control requests in the last minute; try again",
  );
  // Past the window every remembered proof is forgotten, and room is made.
  now += 2 * PROOF_WINDOW_MS + 1;
  assertEquals(await proofs.check(request, await proveRequest(key, request, now)), null);
});
