/**
 * One end-to-end session for a test: a fresh instance under a temporary HOME, headless Chromium
 * through `browser launch`, the fixture server, and the 1.x SDK client spawning the MCP
 * connector under its own permission set.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert } from "./assert.ts";
import { launchBrowser, type LaunchedBrowser } from "./browser.ts";
import { executable, makeTestEnv, type TestEnv } from "./env.ts";
import { type FixtureServer, serveFixtures } from "./fixtures.ts";
import { startService } from "./processes.ts";
import { pollUntil, waitFor } from "./wait.ts";
import { fetchStatus } from "../../service/control/mod.ts";
import { resolveInstancePaths } from "../../shared/instance.ts";

/** A content block as tests read it. */
export type Block = { type: string; text?: string; data?: string; mimeType?: string };

/** The result of a tool call as tests read it. */
export interface CallResult {
  content: Block[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A running end-to-end session. */
export interface E2ESession {
  testEnv: TestEnv;
  browser: LaunchedBrowser;
  fixtures: FixtureServer;
  client: Client;
  /** Calls a tool and returns its raw result. */
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  /** Calls a tool, fails the test on an error result, and returns the result. */
  ok(name: string, args: Record<string, unknown>): Promise<CallResult>;
  /** Calls a tool, fails the test unless it is an error result, and returns the error text. */
  fail(name: string, args: Record<string, unknown>): Promise<string>;
  /** The first text block of a result. */
  text(result: CallResult): string;
  /** Opens a tab (tabs_context_mcp createIfEmpty) and returns its id. */
  firstTab(): Promise<number>;
  /**
   * Another MCP client on the same instance, named `name`, its connector given `env` and `args`
   * (e.g. `--principal NAME`).
   */
  connectClient(name: string, env?: Record<string, string>, args?: string[]): Promise<Client>;
  /** With `serviceApart`: the service's own process, to stop, kill or start again. */
  service: ServiceApart | null;
  close(): Promise<void>;
}

/**
 * A session's service in a process of its own. Without it `browser launch` runs the service in
 * its own process, and killing that takes the launcher down and leaves Chromium running with no
 * one to stop it.
 */
export interface ServiceApart {
  /** Ends the running service with `signal` and waits for it to exit. */
  kill(signal: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts the service again (after `kill`) and waits until it answers. */
  start(): Promise<void>;
}

/** Starts the instance's service on its own and waits until it answers. */
function serviceApart(testEnv: TestEnv): Promise<ServiceApart> {
  const { controlSocket } = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  let child: Deno.ChildProcess | null = null;
  const apart: ServiceApart = {
    async kill(signal) {
      const running = child;
      child = null;
      if (running === null) return;
      running.kill(signal);
      await running.status;
    },
    async start() {
      child = startService(testEnv);
      await waitFor(() => fetchStatus(controlSocket).then(() => true), "the service");
    },
  };
  return apart.start().then(() => apart);
}

/** The 1.x SDK client connected to a connector of the test's instance. */
async function connectClient(
  testEnv: TestEnv,
  name: string,
  env: Record<string, string> = {},
  extra: string[] = [],
): Promise<Client> {
  const { command, args } = executable(testEnv, "mcp-connector", [
    "--instance",
    testEnv.instance,
    ...extra,
  ]);
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command, args, env: { ...testEnv.env, ...env }, stderr: "pipe" }),
  );
  return client;
}

/** Starts a session; `fixtureHeaders` adds response headers per fixture path. */
export async function startSession(
  options: {
    fixtureHeaders?: Record<string, Record<string, string>>;
    /** Extra `browser launch` arguments, e.g. ["--device-scale-factor", "2"]. */
    launchArgs?: string[];
    /** The person's policy file, in place before the service starts. */
    policy?: string;
    /** Settings for every process of the session (the service's, the connector's). */
    env?: Record<string, string>;
    /** How the instance's name begins (what a screenshot shows of it). */
    instancePrefix?: string;
    /** Runs once the instance exists, before the browser starts; returns more launch arguments. */
    beforeLaunch?: (testEnv: TestEnv) => Promise<string[]>;
    /** The service in a process of its own, which the test may kill (`E2ESession.service`). */
    serviceApart?: boolean;
  } = {},
): Promise<E2ESession> {
  const testEnv = await makeTestEnv(options.instancePrefix);
  Object.assign(testEnv.env, options.env ?? {});
  if (options.policy !== undefined) {
    const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
    await Deno.mkdir(paths.configDir, { recursive: true });
    await Deno.writeTextFile(paths.policyFile, options.policy);
  }
  const fixtures = serveFixtures(options.fixtureHeaders);
  const more = await options.beforeLaunch?.(testEnv) ?? [];
  const service = options.serviceApart ? await serviceApart(testEnv) : null;
  const browser = await launchBrowser(testEnv, { extra: [...options.launchArgs ?? [], ...more] });
  const client = await connectClient(testEnv, "ghostlight-test");
  const call = async (name: string, args: Record<string, unknown>) =>
    await client.callTool({ name, arguments: args }) as CallResult;
  const text = (result: CallResult) => result.content.find((b) => b.type === "text")?.text ?? "";
  const session: E2ESession = {
    testEnv,
    browser,
    fixtures,
    client,
    call,
    text,
    async ok(name, args) {
      const result = await call(name, args);
      assert(!result.isError, `${name} failed: ${JSON.stringify(result.content).slice(0, 2000)}`);
      return result;
    },
    async fail(name, args) {
      const result = await call(name, args);
      assert(result.isError, `expected ${name} to fail for ${JSON.stringify(args)}`);
      return text(result);
    },
    async firstTab() {
      const result = await session.ok("tabs_context_mcp", { createIfEmpty: true });
      return (result.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    },
    connectClient: (name, env, args) => connectClient(testEnv, name, env, args),
    service,
    async close() {
      await client.close().catch(() => {});
      await browser.stop();
      await service?.kill("SIGTERM");
      await fixtures.close();
      await testEnv.dispose();
    },
  };
  return session;
}

/**
 * Loads fixture `path` in `tabId` whatever the last step left there (an open dialog, a
 * leave-page prompt, a scrolled or half-filled page): one failing step must not fail the next.
 */
export async function freshPage(s: E2ESession, tabId: number, path: string): Promise<CallResult> {
  return await s.ok("navigate", { url: s.fixtures.url(path), force: true, tabId });
}

/**
 * Reads the tab's network log until every request whose URL holds `urlPattern` (one at least)
 * has its answer or its failure: a request still pending says nothing yet about its status.
 */
export async function settledRequests(
  s: E2ESession,
  tabId: number,
  urlPattern = "",
): Promise<CallResult> {
  return await pollUntil(
    () => s.ok("read_network_requests", { tabId, urlPattern }),
    (result) => {
      const requests = (result.structuredContent?.requests ?? []) as {
        status?: number;
        failed?: string;
      }[];
      return requests.length > 0 &&
        requests.every((request) => request.status !== undefined || request.failed !== undefined);
    },
    `the requests to ${urlPattern || "the page"} to be answered`,
  );
}

/** The ref read_page gives the element whose line matches `pattern`. */
export async function refOf(s: E2ESession, tabId: number, pattern: RegExp): Promise<string> {
  const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
  const line = outline.split("\n").find((line) => pattern.test(line));
  const ref = line && /\[(ref_\d+)\]/.exec(line)?.[1];
  assert(ref, `a line matching ${pattern} with a ref in:\n${outline.slice(0, 3000)}`);
  return ref;
}
