/**
 * `ghostlight-browser-connector`: Chrome's native-messaging host. A bounded pipe between the
 * extension (length-prefixed frames on stdin/stdout) and the service (the same frames on the
 * instance's browser socket). It decides nothing: each frame is passed on as it came, held to
 * its hop's cap, and read as JSON by the service and by Chrome, which both check it (decision
 * 0232). When the service goes away it keeps Chrome's port open, tells the extension, and
 * reconnects.
 *
 * @module
 */

import {
  FROM_EXTENSION_MAX_FRAME,
  type Passed,
  type RelayStatus,
  TO_EXTENSION_MAX_FRAME,
} from "../shared/browser_protocol.ts";
import { BoundedWriter, encodeFrame, FrameReader } from "../shared/framing.ts";
import { connectAndVerify, ImpostorError, type OpenedConnection } from "../shared/handshake.ts";
import { type InstancePaths, instancePathsFromEnv } from "../shared/instance.ts";
import { VERSION } from "../shared/version.ts";
import { readBrowserConnectorSettings } from "./settings.ts";

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 1_000;
/** Frames waiting for Chrome's stdin before the connector gives up on it. */
const MAX_QUEUED_TO_CHROME = 64;
/** Bytes waiting for Chrome's stdin before the connector gives up on it. */
const MAX_QUEUED_BYTES_TO_CHROME = 8 * 1024 * 1024;
/**
 * Frames passed on before the extension is told at once (decision 0570); fewer are told when the
 * connector next waits. A quarter of the extension's window of 16, so it never waits for a count.
 */
const PASSED_EVERY = 4;

function report(message: string): void {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`ghostlight-browser-connector: ${message}\n`));
  } catch {
    // Nowhere left to report to.
  }
}

function parseInstanceFlag(args: string[]): string | undefined {
  const index = args.indexOf("--instance");
  return index >= 0 ? args[index + 1] : undefined;
}

type Service = OpenedConnection<unknown>;

/**
 * Counts Chrome's frames taken to pass on to the service (or dropped with it away; the next is
 * read only once this one is written) and tells the extension, which holds what goes beyond its
 * window in its fair queue (decision 0570): at once every {@linkcode PASSED_EVERY} frames,
 * otherwise when the connector next waits. The first count (0) is said at once, so the extension
 * knows this connector counts. Returns what notes one frame taken.
 */
function countPassed(toChrome: BoundedWriter): () => void {
  let passed = 0;
  let told = 0;
  let telling: ReturnType<typeof setTimeout> | undefined;
  const tell = () => {
    clearTimeout(telling);
    telling = undefined;
    told = passed;
    const count: Passed = { type: "passed", frames: passed };
    toChrome.write(encodeFrame(count, TO_EXTENSION_MAX_FRAME)).catch(() => {});
  };
  tell();
  return () => {
    passed++;
    if (passed - told >= PASSED_EVERY) tell();
    else telling ??= setTimeout(tell, 0);
  };
}

/**
 * Relays between Chrome and the service until Chrome closes the port. Returns false when
 * Chrome's side broke (an oversized or malformed frame) rather than closing cleanly.
 */
async function relay(paths: InstancePaths): Promise<boolean> {
  // Chrome not reading what the extension is sent: end, so Chrome restarts the host, rather
  // than lose a result silently.
  const toChrome = new BoundedWriter(Deno.stdout.writable, {
    maxWaiting: MAX_QUEUED_TO_CHROME,
    maxBytes: MAX_QUEUED_BYTES_TO_CHROME,
    onOverflow: (error) => {
      report(`Chrome is not reading: ${error.message}`);
      Deno.exit(1);
    },
  });
  // Through stdin's stream, unlike the sockets (decision 0238): read directly, a form_input's
  // browser trip measured 0.3–0.9 ms slower in five of six alternated runs.
  const fromChrome = new FrameReader(Deno.stdin.readable, FROM_EXTENSION_MAX_FRAME);
  const link: { service: Service | null } = { service: null };
  let chromeOpen = true;

  const tellExtension = (state: RelayStatus["state"]) => {
    const status: RelayStatus = { type: "relay", state };
    toChrome.write(encodeFrame(status, TO_EXTENSION_MAX_FRAME)).catch(() => {});
  };
  const taken = countPassed(toChrome);

  const serviceLoop = async () => {
    let wait = RECONNECT_MIN_MS;
    let reported = false;
    while (chromeOpen) {
      let opened: Service;
      try {
        opened = await connectAndVerify({
          socket: paths.browserSocket,
          keys: paths.keys,
          role: "browser",
          maxFrame: TO_EXTENSION_MAX_FRAME,
        });
      } catch (error) {
        if (error instanceof ImpostorError || error instanceof Deno.errors.NotCapable) {
          report((error as Error).message);
          Deno.exit(1);
        }
        if (!reported) report(`waiting for the service: ${(error as Error).message}`);
        reported = true;
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, RECONNECT_MAX_MS);
        continue;
      }
      wait = RECONNECT_MIN_MS;
      reported = false;
      link.service = opened;
      tellExtension("connected");
      try {
        while (true) {
          const frame = await opened.reader.nextFrame();
          if (frame === null) break;
          await toChrome.write(frame);
        }
      } catch (error) {
        report(`service link ended: ${(error as Error).message}`);
      }
      link.service = null;
      try {
        opened.conn.close();
      } catch {
        // Already closed.
      }
      if (chromeOpen) tellExtension("disconnected");
    }
  };
  serviceLoop();

  let clean = true;
  try {
    while (true) {
      const frame = await fromChrome.nextFrame();
      if (frame === null) break;
      taken();
      // While the service is away, frames from the extension are dropped: the extension
      // says hello again when it hears the relay is back, and results for a lost service
      // have nobody waiting for them.
      const current = link.service;
      if (current === null) continue;
      // Awaited, so a slow service slows reading from Chrome instead of queueing without end.
      // A failed write ends this service link (the extension hears "disconnected" and says
      // hello again on the next one); nothing is dropped without the link ending.
      await current.writer.write(frame).catch((error) => {
        report(`could not pass a frame to the service: ${error.message}`);
        try {
          current.conn.close();
        } catch {
          // Already closed; the service loop notices.
        }
      });
    }
  } catch (error) {
    report(`Chrome's port failed: ${(error as Error).message}`);
    clean = false;
  }
  chromeOpen = false;
  return clean;
}

if (import.meta.main) {
  if (Deno.args.includes("--version")) {
    console.log(`ghostlight-browser-connector ${VERSION}`);
    Deno.exit(0);
  }
  // Read once, here; everything below receives them.
  const settings = readBrowserConnectorSettings((key) => Deno.env.get(key));
  let paths: InstancePaths;
  try {
    paths = instancePathsFromEnv(parseInstanceFlag(Deno.args) ?? settings.instance);
  } catch (error) {
    report((error as Error).message);
    Deno.exit(2);
  }
  Deno.exit(await relay(paths) ? 0 : 1);
}
