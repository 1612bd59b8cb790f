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

/**
 * A form posted to `/submit`, as the server received it: a browser's form post (its fields, and
 * the code the confirmation page showed), or the JSON body a script-driven form sent.
 */
export type Submission = FormSubmission | { json: unknown };

/** A browser's form post: its fields, and the code the confirmation page showed for it. */
export interface FormSubmission {
  fields: Record<string, string>;
  code: string;
}

/** A running fixture server. */
export interface FixtureServer {
  origin: string;
  url(path: string): string;
  /** How many requests for `path` the server has had. */
  requests(path: string): number;
  /** Every form posted to `/submit`, oldest first. */
  submissions(): Submission[];
  close(): Promise<void>;
}

/** Most submissions kept; a runaway page cannot grow the list without bound. */
const MAX_SUBMISSIONS = 1_000;

/** Starts a fixture server; `headers` adds response headers per path. */
export function serveFixtures(
  headers: Record<string, Record<string, string>> = {},
): FixtureServer {
  const seen = new Map<string, number>();
  /** Requests waiting (`/after?path=...`) for the server to have had a request for a path. */
  const waiting = new Map<string, (() => void)[]>();
  const submitted: Submission[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const path = url.pathname;
      seen.set(path, (seen.get(path) ?? 0) + 1);
      for (const release of waiting.get(path) ?? []) release();
      waiting.delete(path);
      // `/after?path=/p` answers once the server has had a request for /p (at once if it had
      // one), or when the server closes: a page waits on another page's step by it.
      if (path === "/after") {
        const awaited = url.searchParams.get("path") ?? "";
        if ((seen.get(awaited) ?? 0) === 0) {
          await new Promise<void>((release) => {
            waiting.set(awaited, [...waiting.get(awaited) ?? [], release]);
          });
        }
        return new Response("after", { headers: { "content-type": "text/plain" } });
      }
      // `/redirect?to=/page.html` answers 302, for tests of where a navigation lands.
      if (path === "/redirect") {
        return Response.redirect(new URL(url.searchParams.get("to") ?? "/", url), 302);
      }
      // `/slow?ms=N` answers after N ms (at most 15 s, sooner if the browser gives up).
      if (path === "/slow") {
        const ms = Math.min(15_000, Number(url.searchParams.get("ms")) || 0);
        await serverDelay(ms, request.signal);
        return new Response("slow", { headers: { "content-type": "text/plain" } });
      }
      // `/no-content` answers 204: a browser that navigates there stays where it was.
      if (path === "/no-content") return new Response(null, { status: 204 });
      // `POST /submit` records the form. A script's JSON body (a framework-style form) is
      // answered with its number; a browser's form post with a confirmation page naming a code.
      if (path === "/submit" && request.method === "POST") {
        if (!(request.headers.get("content-type") ?? "").includes("form")) {
          const json = JSON.parse(await request.text());
          if (submitted.length < MAX_SUBMISSIONS) submitted.push({ json });
          return Response.json({ id: submitted.length });
        }
        const fields: Record<string, string> = {};
        for (const [key, value] of await request.formData()) fields[key] = String(value);
        const code = `GL-${crypto.randomUUID().slice(0, 6).toUpperCase()}`;
        if (submitted.length < MAX_SUBMISSIONS) submitted.push({ fields, code });
        const name = (fields.fullName ?? "").replace(/[<>&"]/g, "");
        return new Response(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Registered</title>` +
            `<link rel="icon" href="data:,">` +
            `</head><body><main><h1>Registration received</h1><p>Welcome, ${name}.</p>` +
            `<p>Confirmation code: <strong id="code">${code}</strong></p></main></body></html>`,
          { headers: { "content-type": TYPES.html } },
        );
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
    close: () => {
      for (const release of [...waiting.values()].flat()) release();
      waiting.clear();
      return server.shutdown();
    },
  };
}
