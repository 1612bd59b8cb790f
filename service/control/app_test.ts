import { assertEquals } from "../../tests/support/assert.ts";
import { controlApp } from "./app.ts";
import { Probe } from "./probe.ts";
import { Status } from "./status.ts";

const status: Status = {
  service: { version: "1", instance: "t", pid: 1, startedAt: "2026-01-01T00:00:00.000Z" },
  browsers: [],
  connectors: [],
  workspaces: 0,
};

Deno.test("GET /status answers the current status; any other route names the ones there are", async () => {
  const app = controlApp({
    status: () => status,
    person: () => Promise.resolve({ ok: false, message: "no" }),
  });
  const ok = await app.request("/status");
  assertEquals(Status.parse(await ok.json()), status);
  const missing = await app.request("/nothing");
  assertEquals(missing.status, 404);
  assertEquals(await missing.json(), {
    error: "no such route; try GET /status, GET /person or POST /person",
  });
});

Deno.test("POST /person hands the request on and answers 400 when it was refused", async () => {
  const asked: unknown[] = [];
  const app = controlApp({
    status: () => status,
    person: (request) => {
      asked.push(request);
      return Promise.resolve({ ok: false, message: "there is no workspace 9" });
    },
  });
  const refused = await app.request("/person", {
    method: "POST",
    body: JSON.stringify({ op: "hold", workspace: 9 }),
  });
  assertEquals(refused.status, 400);
  assertEquals(await refused.json(), { ok: false, message: "there is no workspace 9" });
  const state = await app.request("/person");
  assertEquals(state.status, 200);
  assertEquals(asked, [{ op: "hold", workspace: 9 }, { op: "state" }]);
});

Deno.test("POST /probe answers what the probe found; without a probe there is no such route", async () => {
  const found = { browsers: [{ slot: 0, extensionVersion: "1", ms: 2.5, samplesMs: [2.5] }] };
  const person = () => Promise.resolve({ ok: false as const, message: "no" });
  const asked: number[] = [];
  const probe = (rounds: number) => {
    asked.push(rounds);
    return Promise.resolve(found);
  };
  const app = controlApp({ status: () => status, person, probe });
  const probed = await app.request("/probe", { method: "POST" });
  assertEquals(Probe.parse(await probed.json()), found);
  assertEquals((await app.request("/probe?rounds=20", { method: "POST" })).status, 200);
  for (const rounds of ["0", "101", "1.5", "many"]) {
    const refused = await app.request(`/probe?rounds=${rounds}`, { method: "POST" });
    assertEquals(refused.status, 400, `rounds=${rounds}`);
  }
  assertEquals(asked, [1, 20]);
  const without = controlApp({ status: () => status, person });
  assertEquals((await without.request("/probe", { method: "POST" })).status, 404);
});
