/**
 * Serves `tests/fixtures/` on 127.0.0.1 with an ephemeral port.
 *
 * @module
 */

import { ROOT } from "./env.ts";
import { serverDelay } from "./wait.ts";

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript",
  css: "text/css",
  json: "application/json",
  png: "image/png",
};

/** A running fixture server. */
export interface FixtureServer {
  origin: string;
  url(path: string): string;
  /** How many requests for `path` the server has had. */
  requests(path: string): number;
  /** The bodies posted to `/submit`, oldest first (a form's JSON as the page sent it). */
  submissions(): unknown[];
  close(): Promise<void>;
}

/** Starts a fixture server; `headers` adds response headers per path. */
export function serveFixtures(
  headers: Record<string, Record<string, string>> = {},
): FixtureServer {
  const seen = new Map<string, number>();
  const submitted: unknown[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const path = url.pathname;
      seen.set(path, (seen.get(path) ?? 0) + 1);
      // `/redirect?to=/page.html` answers 302, for tests of where a navigation lands.
      if (path === "/redirect") {
        return Response.redirect(new URL(url.searchParams.get("to") ?? "/", url), 302);
      }
      // `POST /submit` keeps the JSON a form sent and answers its number.
      if (path === "/submit" && request.method === "POST") {
        submitted.push(JSON.parse(await request.text()));
        return Response.json({ id: submitted.length });
      }
      // `/slow?ms=N` answers after N ms (at most 15 s, sooner if the browser gives up).
      if (path === "/slow") {
        const ms = Math.min(15_000, Number(url.searchParams.get("ms")) || 0);
        await serverDelay(ms, request.signal);
        return new Response("slow", { headers: { "content-type": "text/plain" } });
      }
      const file = path === "/" ? "/index.html" : path;
      if (file.includes("..")) return new Response("no", { status: 400 });
      try {
        const body = await Deno.readFile(`${ROOT}/tests/fixtures${file}`);
        const ext = file.split(".").pop() ?? "";
        return new Response(body, {
          headers: { "content-type": TYPES[ext] ?? "application/octet-stream", ...headers[file] },
        });
      } catch {
        return new Response("not found", { status: 404 });
      }
    },
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    requests: (path) => seen.get(path) ?? 0,
    submissions: () => [...submitted],
    close: () => server.shutdown(),
  };
}
