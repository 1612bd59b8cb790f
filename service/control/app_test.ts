import { assert, assertEquals } from "../../tests/support/assert.ts";
import { controlApp } from "./app.ts";
import { Probe } from "./probe.ts";
import { ControlProofs, PROOF_HEADER, proveRequest } from "./proof.ts";
import { Status } from "./status.ts";

const key = crypto.getRandomValues(new Uint8Array(32));
const proofs = () => new ControlProofs(key);

type App = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

/** A POST as the person's command sends it: proved with the control key. */
async function post(app: App, path: string, body = "", signWith = key): Promise<Response> {
  const proof = await proveRequest(signWith, {
    method: "POST",
    path,
    body: new TextEncoder().encode(body),
  });
  return await app.request(path, {
    method: "POST",
    body: body === "" ? undefined : body,
    headers: { [PROOF_HEADER]: proof },
  });
}

/** A GET as the person's `ghostlight status` sends it: proved with the control key. */
async function get(app: App, path: string, signWith = key): Promise<Response> {
  const proof = await proveRequest(signWith, { method: "GET", path, body: new Uint8Array() });
  return await app.request(path, { headers: { [PROOF_HEADER]: proof } });
}

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
    proofs: proofs(),
  });
  const ok = await get(app, "/status");
  assertEquals(Status.parse(await ok.json()), status);
  const missing = await get(app, "/nothing");
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
    proofs: proofs(),
  });
  const refused = await post(app, "/person", JSON.stringify({ op: "hold", workspace: 9 }));
  assertEquals(refused.status, 400);
  assertEquals(await refused.json(), { ok: false, message: "there is no workspace 9" });
  const state = await get(app, "/person");
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
  const app = controlApp({ status: () => status, person, probe, proofs: proofs() });
  const probed = await post(app, "/probe");
  assertEquals(Probe.parse(await probed.json()), found);
  assertEquals((await post(app, "/probe?rounds=20")).status, 200);
  for (const rounds of ["0", "101", "1.5", "many"]) {
    const refused = await post(app, `/probe?rounds=${rounds}`);
    assertEquals(refused.status, 400, `rounds=${rounds}`);
  }
  assertEquals(asked, [1, 20]);
  const without = controlApp({ status: () => status, person, proofs: proofs() });
  assertEquals((await post(without, "/probe")).status, 404);
});

Deno.test("a POST without the control key's proof is refused before anything is asked", async () => {
  const asked: unknown[] = [];
  const app = controlApp({
    status: () => status,
    person: (request) => {
      asked.push(request);
      return Promise.resolve({ ok: false, message: "asked" });
    },
    probe: () => {
      asked.push("probe");
      return Promise.resolve({ browsers: [] });
    },
    proofs: proofs(),
  });
  const body = JSON.stringify({ op: "resume" });
  const unproven = await app.request("/person", { method: "POST", body });
  assertEquals(unproven.status, 401);
  assertEquals((await unproven.json()).ok, false);
  // Another key (a connector's), a proof of another body, and a proof used twice.
  const other = crypto.getRandomValues(new Uint8Array(32));
  assertEquals((await post(app, "/person", body, other)).status, 401);
  assertEquals((await post(app, "/probe", "", other)).status, 401);
  const proof = await proveRequest(key, {
    method: "POST",
    path: "/person",
    body: new TextEncoder().encode(JSON.stringify({ op: "hold" })),
  });
  const swapped = await app.request("/person", {
    method: "POST",
    body,
    headers: { [PROOF_HEADER]: proof },
  });
  assertEquals(swapped.status, 401);
  const once = await proveRequest(key, {
    method: "POST",
    path: "/person",
    body: new TextEncoder().encode(body),
  });
  const first = await app.request("/person", {
    method: "POST",
    body,
    headers: { [PROOF_HEADER]: once },
  });
  assertEquals(first.status, 400, "proved: the person's controls answered");
  const again = await app.request("/person", {
    method: "POST",
    body,
    headers: { [PROOF_HEADER]: once },
  });
  assertEquals(again.status, 401);
  assertEquals((await again.json()).message, "the request's proof was used already");
  assertEquals(asked, [{ op: "resume" }]);
});

/** A busy service's status: every field that names an agent, a plan, a site or the policy. */
const revealing: Status = {
  ...status,
  connectors: [{
    principal: "secret-principal",
    client: "secret-client 1.0",
    mismatch: "secret-mismatch",
    connectedAt: "2026-01-01T00:00:00.000Z",
    activeWorks: 2,
  }],
  workspaces: 1,
  plans: [{
    client: "secret-client 1.0",
    domains: ["secret-plan.example"],
    approach: ["secret approach"],
    at: "2026-01-01T00:00:00.000Z",
  }],
  person: {
    service: { version: "1", instance: "t" },
    paused: false,
    attentionAfter: 3,
    stopped: 0,
    policy: { summary: "secret-policy", problem: null },
    audit: { file: "secret-audit.jsonl", ok: true, error: null },
    questions: [],
    granted: [],
    workspaces: [{
      number: 1,
      client: "secret-client 1.0",
      color: "blue",
      state: "running",
      tabs: 1,
      denials: 0,
      plan: { domains: ["secret-plan.example"], approach: [], at: "2026-01-01T00:00:00.000Z" },
      current: null,
      last: null,
    }],
  },
};

Deno.test("an unproven read shows no agent, plan, site or policy; GET /person needs the proof", async () => {
  const asked: unknown[] = [];
  const app = controlApp({
    status: () => revealing,
    person: (request) => {
      asked.push(request);
      return Promise.resolve({ ok: true, state: revealing.person!, said: "secret-state" });
    },
    proofs: proofs(),
  });
  const unproven = await app.request("/status");
  assertEquals(unproven.status, 200);
  const text = await unproven.text();
  assert(!/secret/.test(text), text);
  const shown = Status.parse(JSON.parse(text));
  assertEquals(shown.connectors, [{ connectedAt: "2026-01-01T00:00:00.000Z", activeWorks: 2 }]);
  assertEquals(shown.workspaces, 1);
  assert(shown.withheld !== undefined, "it says what it left out");
  for (const path of ["/person", "/nothing"]) {
    const refused = await app.request(path);
    assertEquals(refused.status, 401, path);
    assert(!/secret/.test(await refused.text()), path);
  }
  // Another key's proof reads nothing either; the person's proof reads it whole.
  const other = crypto.getRandomValues(new Uint8Array(32));
  assertEquals((await get(app, "/status", other)).status, 401);
  assertEquals((await get(app, "/person", other)).status, 401);
  assertEquals(asked, []);
  assertEquals(Status.parse(await (await get(app, "/status")).json()), revealing);
  assertEquals((await get(app, "/person")).status, 200);
});
