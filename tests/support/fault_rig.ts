/**
 * The set-up of an end-to-end fault test: a fresh instance, its service in the foreground, the
 * slow-page fixture server as the witness, headless Chromium through `browser launch`, and MCP
 * connectors driven line by line, all stopped again by `close`.
 *
 * @module
 */

import { fetchStatus, type Status } from "../../service/control/mod.ts";
import { controlKey } from "../../service/endpoint/mod.ts";
import { resolveInstancePaths } from "../../shared/instance.ts";
import {
  serveSlowPages,
  type SlowServer,
  startConnector,
  startService,
  type Transcript,
  waitFor,
} from "../mcp_support.ts";
import { launchBrowser, type LaunchedBrowser } from "./browser.ts";
import { makeTestEnv, type TestEnv } from "./env.ts";

/** A running fault test set-up. */
export interface FaultRig {
  testEnv: TestEnv;
  slow: SlowServer;
  /** The browser launched last. */
  browser: LaunchedBrowser;
  /** The service's status now. */
  status(): Promise<Status>;
  /** A new connector on the instance, closed with the rig. */
  connector(env?: Record<string, string>): Transcript;
  /** Stops the browser (if still running) and launches another with the same arguments. */
  relaunch(): Promise<LaunchedBrowser>;
  close(): Promise<void>;
}

/**
 * Starts the service (with `env` added to the instance's environment) and a browser launched
 * with `launchArgs`; `prepare` runs first, once the instance exists.
 */
export async function startFaultRig(
  prefix: string,
  options: {
    env?: Record<string, string>;
    launchArgs?: string[];
    prepare?: (testEnv: TestEnv) => Promise<void>;
  } = {},
): Promise<FaultRig> {
  const testEnv = await makeTestEnv(prefix);
  Object.assign(testEnv.env, options.env ?? {});
  await options.prepare?.(testEnv);
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  // The whole status, as the person's own `ghostlight status` reads it: an unproven read leaves
  // out the agents (decision 0335). The key exists once the service has started.
  const status = async () =>
    fetchStatus(paths.controlSocket, await controlKey(paths.keys).catch(() => undefined));
  const slow = serveSlowPages();
  const service = startService(testEnv);
  const opened: Transcript[] = [];
  const launch = () => launchBrowser(testEnv, { extra: options.launchArgs });
  let browser: LaunchedBrowser | null = null;
  const close = async () => {
    for (const mcp of opened) await mcp.close().catch(() => {});
    await browser?.stop();
    service.kill("SIGTERM");
    await service.status;
    await slow.close();
    await testEnv.dispose();
  };
  try {
    await waitFor(async () => (await status()).service !== null, "service");
    browser = await launch();
  } catch (error) {
    await close();
    throw error;
  }
  const rig: FaultRig = {
    testEnv,
    slow,
    browser,
    status,
    connector(env = {}) {
      const mcp = startConnector(testEnv, env);
      opened.push(mcp);
      return mcp;
    },
    async relaunch() {
      await browser?.stop();
      browser = null;
      browser = rig.browser = await launch();
      return browser;
    },
    close,
  };
  return rig;
}
