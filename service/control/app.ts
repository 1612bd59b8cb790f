/**
 * The control API's routes, served by Hono on the owner-only control socket: the status, the
 * person's controls (hold, resume, stop, take over), and a probe of the attached browsers. Every
 * request must carry the control proof (decision 0250), except `GET /status`, which without one
 * shows only what reveals nothing of the agents, their plans and their sites (decision 0335). It
 * never drives a page: the person's requests go to the service's controls, which decide, and the
 * probe's one command to each browser changes nothing there.
 *
 * @module
 */

import { Hono } from "hono";
import type { PersonAnswer } from "../../shared/person.ts";
import { MAX_PROBE_ROUNDS, type Probe, ProbeQuery } from "./probe.ts";
import { type ControlProofs, PROOF_HEADER } from "./proof.ts";
import { type Status, unprovenStatus } from "./status.ts";

/** What the control app serves. */
export interface ControlSources {
  status: () => Status;
  /** Carries out one person request (unchecked JSON) and answers it. */
  person: (request: unknown) => Promise<PersonAnswer>;
  /**
   * Sends each attached browser a command that changes nothing, answered by the extension,
   * `rounds` times in a row, and times each answer.
   */
  probe?: (rounds: number) => Promise<Probe>;
  /** Checks the proof every request but an unproven status read must carry. */
  proofs: ControlProofs;
}

/** Whether the request in hand carried a good proof, as the routes read it. */
type Proven = { Variables: { proven: boolean } };

/** Builds the control app. */
export function controlApp(sources: ControlSources): Hono<Proven> {
  const app = new Hono<Proven>();
  app.use("*", async (c, next) => {
    const header = c.req.header(PROOF_HEADER) ?? null;
    // Only a status read may go unproven, and it is shown less (decision 0335).
    const reading = c.req.method === "GET" || c.req.method === "HEAD";
    if (header === null && reading && new URL(c.req.url).pathname === "/status") {
      c.set("proven", false);
      return await next();
    }
    const url = new URL(c.req.url);
    const why = await sources.proofs.check(
      {
        method: c.req.method,
        path: url.pathname + url.search,
        body: new Uint8Array(await c.req.raw.clone().arrayBuffer()),
      },
      header,
    );
    // Shaped as a person's answer, so the person's commands read the refusal like any other.
    if (why !== null) return c.json({ ok: false, message: why }, 401);
    c.set("proven", true);
    await next();
  });
  app.get("/status", (c) => {
    const status = sources.status();
    return c.json(c.get("proven") ? status : unprovenStatus(status));
  });
  app.get("/person", async (c) => c.json(await sources.person({ op: "state" })));
  app.post("/person", async (c) => {
    const body = await c.req.json().catch(() => null);
    const answer = await sources.person(body);
    return c.json(answer, answer.ok ? 200 : 400);
  });
  const probe = sources.probe;
  if (probe) {
    app.post("/probe", async (c) => {
      const query = ProbeQuery.safeParse(c.req.query());
      if (!query.success) {
        return c.json(
          { error: `rounds must be a whole number from 1 to ${MAX_PROBE_ROUNDS}` },
          400,
        );
      }
      return c.json(await probe(query.data.rounds));
    });
  }
  app.notFound((c) =>
    c.json({ error: "no such route; try GET /status, GET /person or POST /person" }, 404)
  );
  return app;
}
