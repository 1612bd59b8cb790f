/**
 * Run by tests/role_keys_test.ts under the MCP connector's permission set and its instance's
 * flags (plus, for the tries that need them, a reach to the browser and control sockets): a
 * process that holds the MCP connector's key and tries what issues 25 and 26 found it could do.
 * It reads commands, one a line, on stdin and answers each with one JSON line on stdout:
 *
 * - `browser`: attaches to the browser socket as a browser, proving the MCP key, then as an MCP
 *   connector; answers the frames each attempt received.
 * - `resume`: asks the control socket to resume every agent, without a proof and with one made
 *   with the MCP key; answers each status.
 * - `squat relay` / `squat forge`: waits until the service's own socket lies at the bridge path,
 *   opens a connection to it, replaces the path with a socket of its own and answers `ready`; the
 *   next connector to come is relayed through the connection opened before (relay), or answered
 *   with a proof made with the MCP key (forge). Answers the frames that passed, or `missed` when
 *   no connector came before the service bound its socket again.
 *
 * Argument: a JSON object of the instance's paths.
 *
 * @module
 */

import { BRIDGE_MAJOR } from "../../shared/bridge.ts";
import { encodeFrame, FrameReader } from "../../shared/framing.ts";
import { writeAll } from "../../shared/handshake.ts";
import type { InstancePaths } from "../../shared/instance.ts";
import { computePeerProof, freshNonce } from "../../shared/proof.ts";
import { requestControl } from "../../service/control/client.ts";
import { pollUntil, WAIT_MS, within } from "./wait.ts";

const paths: InstancePaths = JSON.parse(Deno.args[0]);
const mcpKey = await Deno.readFile(paths.keys.mcp);
const FRAME = 1024 * 1024;

/** Every frame `reader` gives until the peer closes, or until `ms` pass. */
async function framesUntilClosed(reader: FrameReader, ms = 10_000): Promise<unknown[]> {
  const frames: unknown[] = [];
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline) {
      const frame = await reader.next();
      if (frame === null) break;
      frames.push(frame);
    }
  } catch {
    // A reset counts as closed.
  }
  return frames;
}

/** One attach to the browser socket in `role`, proving the MCP key: the frames it received. */
async function attachAsBrowser(role: "browser" | "mcp"): Promise<unknown[]> {
  const conn = await Deno.connect({ transport: "unix", path: paths.browserSocket });
  const reader = new FrameReader(conn.readable, FRAME);
  const hello = { type: "hello", bridge_major: BRIDGE_MAJOR, role, nonce: freshNonce() };
  await writeAll(conn, encodeFrame(hello, FRAME));
  const answer = await reader.next() as Record<string, unknown> | null;
  const frames: unknown[] = [answer];
  if (answer?.type === "hello") {
    const { proof: _proof, ...service } = answer;
    const proof = await computePeerProof(mcpKey, { connector: hello, service });
    await writeAll(conn, encodeFrame({ type: "proof", proof }, FRAME)).catch(() => {});
    // What an extension says next: it claims a browser and waits for commands.
    const extension = {
      type: "hello",
      browser_id: "hostile-browser-1",
      extension_version: "1.0.0",
      user_agent: "hostile",
    };
    await writeAll(conn, encodeFrame(extension, FRAME)).catch(() => {});
    frames.push(...await framesUntilClosed(reader));
  } else frames.push(...await framesUntilClosed(reader));
  try {
    conn.close();
  } catch {
    // Closed by the service.
  }
  return frames;
}

/** POST /person resume, unproven and proved with the MCP key: each answer's status and body. */
async function resume(): Promise<{ status: number; body: string }[]> {
  const body = JSON.stringify({ op: "resume" });
  const answers = [];
  for (const key of [undefined, mcpKey]) {
    const answer = await requestControl(paths.controlSocket, {
      method: "POST",
      path: "/person",
      body,
      key,
    });
    answers.push({ status: answer.status, body: answer.body });
  }
  return answers;
}

/** The file at `path` as the kernel names it. */
async function identity(path: string): Promise<string | null> {
  try {
    const info = await Deno.lstat(path);
    // The inode number alone is often reused by the next file made.
    const times = [info.birthtime, info.ctime, info.mtime].map((time) => time?.getTime());
    return [info.dev, info.ino, ...times].join(":");
  } catch {
    return null;
  }
}

/** A connection to whatever serves the bridge path, tried again while the path is rebound. */
function connectWithin(ms: number): Promise<Deno.UnixConn> {
  return pollUntil(
    () => Deno.connect({ transport: "unix", path: paths.bridgeSocket }),
    () => true,
    "a connection to the bridge socket",
    ms,
  );
}

/** The socket this process last put at the bridge path. */
let squatted: string | null = null;

/**
 * Replaces the bridge socket and serves the next connector in `mode`; resolves with what that
 * connector sent last (its proof, when it answered the service's hello) once it hung up.
 */
async function squat(mode: "relay" | "forge", ready: () => void): Promise<unknown> {
  // The service binds its socket again once it notices; only then is the real one there.
  await pollUntil(
    () => identity(paths.bridgeSocket),
    (now) => now !== null && now !== squatted,
    "the service to bind its socket again",
  );
  const upstream = mode === "relay" ? await connectWithin(WAIT_MS) : null;
  await Deno.remove(paths.bridgeSocket).catch(() => {});
  const listener = Deno.listen({ transport: "unix", path: paths.bridgeSocket });
  squatted = await identity(paths.bridgeSocket);
  ready();
  // Once the service binds its socket again, no connector comes here any more.
  let victim: Deno.UnixConn;
  try {
    victim = await within(listener.accept(), 5_000, "a connector at the squatted socket");
  } catch {
    listener.close();
    upstream?.close();
    return { missed: true };
  }
  listener.close();
  const fromVictim = new FrameReader(victim.readable, FRAME);
  const hello = await fromVictim.next() as Record<string, unknown>;
  const seen: unknown[] = [hello];
  if (upstream) {
    // Relay: the real service signs the victim's hello; the victim's proof goes back to it.
    const fromService = new FrameReader(upstream.readable, FRAME);
    await writeAll(upstream, encodeFrame(hello, FRAME));
    await writeAll(victim, encodeFrame(await fromService.next(), FRAME));
    const proof = await fromVictim.next().catch(() => null);
    seen.push(proof);
    if (proof !== null) {
      await writeAll(upstream, encodeFrame(proof, FRAME));
      const admission = await fromService.next().catch(() => null);
      seen.push(admission);
      if (admission !== null) await writeAll(victim, encodeFrame(admission, FRAME)).catch(() => {});
    }
    upstream.close();
  } else {
    // Forge: the best proof it can make, with the only key it holds.
    const service = {
      type: "hello",
      bridge_major: BRIDGE_MAJOR,
      challenge: freshNonce(),
      service: { version: "0.0.0", instance: paths.instance, pid: Deno.pid },
    };
    const proof = await computePeerProof(mcpKey, { connector: hello, service });
    await writeAll(victim, encodeFrame({ ...service, proof }, FRAME));
    seen.push(await fromVictim.next().catch(() => null));
  }
  try {
    victim.close();
  } catch {
    // Closed by the victim.
  }
  return seen;
}

const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
const say = (value: unknown) => console.log(JSON.stringify(value));
let pending = "";
for await (const chunk of lines) {
  pending += chunk;
  let end;
  while ((end = pending.indexOf("\n")) >= 0) {
    const command = pending.slice(0, end).trim();
    pending = pending.slice(end + 1);
    try {
      if (command === "browser") {
        say({ asBrowser: await attachAsBrowser("browser"), asMcp: await attachAsBrowser("mcp") });
      } else if (command === "resume") {
        say({ answers: await resume() });
      } else if (command === "squat relay" || command === "squat forge") {
        const mode = command === "squat relay" ? "relay" : "forge";
        const served = squat(mode, () => say({ ready: true }));
        say({ served: await served });
      } else say({ error: `unknown command ${command}` });
    } catch (error) {
      say({ error: `${(error as Error).name}: ${(error as Error).message}` });
    }
  }
}
