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

Deno.test("GET /status answers the current status; any other route names the one there is", async () => {
  const app = controlApp(() => status);
  const ok = await app.request("/status");
  assertEquals(Status.parse(await ok.json()), status);
  const missing = await app.request("/nothing");
  assertEquals(missing.status, 404);
  assertEquals(await missing.json(), { error: "no such route; try GET /status" });
});

Deno.test("POST /probe answers what the probe found; without a probe there is no such route", async () => {
  const found = { browsers: [{ slot: 0, extensionVersion: "1", ms: 3 }] };
  const app = controlApp(() => status, () => Promise.resolve(found));
  const probed = await app.request("/probe", { method: "POST" });
  assertEquals(Probe.parse(await probed.json()), found);
  assertEquals((await controlApp(() => status).request("/probe", { method: "POST" })).status, 404);
});
