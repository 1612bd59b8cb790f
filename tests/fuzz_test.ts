/**
 * Property-based fuzzing (fast-check) of every parser at a trust boundary: the length-prefixed
 * framer (the bridge, the browser socket and Chrome's native messaging all read through it), the
 * MCP stdio line reader, JSON-RPC dispatch of both revisions end to end through the connector's
 * `serve`, and the decoding of bridge, handshake and browser messages. For each: never a crash or
 * a hang, memory bounded, a typed error for every bad input, valid input always accepted.
 * `deno task test` runs a small fixed budget per target; `deno task soak` a long one.
 */

import fc from "fast-check";
import {
  Admission,
  ConnectorHello,
  ConnectorMessage,
  ConnectorProof,
  ServiceHello,
  ServiceMessage,
} from "../shared/bridge.ts";
import { FromExtension, ToExtension } from "../shared/browser_protocol.ts";
import {
  encodeFrame,
  FrameReader,
  FramingError,
  LineReader,
  OVERSIZED_HEAD_BYTES,
  OVERSIZED_TAIL_BYTES,
} from "../shared/framing.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { readPolicyText } from "../service/governance/mod.ts";
import { ChainKey, FIELDS, verifyAudit } from "../service/audit/mod.ts";
import { seal } from "../service/audit/record.ts";
import { shown } from "../service/cli/shown.ts";
import { FileRefused, readRegularFile } from "../shared/files.ts";
import { applyInverse, insertJsonEntry, parseJsonc } from "../service/install/jsonc_edit.ts";
import { insertTomlTable } from "../service/install/toml_edit.ts";
import { serve } from "../mcp_connector/main.ts";
import { readConnectorSettings } from "../mcp_connector/settings.ts";
import { assert, assertEquals } from "./support/assert.ts";
import { chunked, concat, countingStream, fuzzRuns, RUN_TIMEOUT_MS } from "./support/fuzz.ts";

const encoder = new TextEncoder();
const fatal = new TextDecoder("utf-8", { fatal: true });

function header(length: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, length, true);
  return out;
}

/** A frame read, or why not, with where the reader stands after it (-1 when not known). */
type FrameOutcome = { value: unknown; end: number } | { error: string; end: number } | null;

/** What a correct framer makes of `bytes` from `at`: the reference the reader is held to. */
function modelFrame(bytes: Uint8Array, at: number, cap: number): FrameOutcome {
  if (bytes.length - at === 0) return null;
  if (bytes.length - at < 4) return { error: "truncated", end: bytes.length };
  const length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true);
  if (length > cap) return { error: "too_large", end: at + 4 };
  if (bytes.length - at - 4 < length) return { error: "truncated", end: bytes.length };
  const end = at + 4 + length;
  try {
    const value = JSON.parse(fatal.decode(bytes.subarray(at + 4, end)));
    return value === null ? { error: "malformed", end } : { value, end };
  } catch {
    return { error: "malformed", end };
  }
}

/** Bytes that look like frames often enough to get past the header: real, cut and forged. */
const frameishBytes = fc.array(
  fc.oneof(
    fc.jsonValue().map((value) => encodeFrame(value, 1 << 30)),
    fc.uint8Array({ maxLength: 64 }),
    fc.uint8Array({ maxLength: 64 }).map((body) => concat([header(body.length), body])),
    fc.integer({ min: 0, max: 0xffffffff }).map(header),
  ),
  { maxLength: 8 },
).map(concat);

Deno.test("fuzz: the framer matches its model on any bytes, any chunking, and buffers little", async () => {
  await fc.assert(
    fc.asyncProperty(
      frameishBytes,
      fc.array(fc.nat(), { maxLength: 8 }),
      fc.integer({ min: 0, max: 256 }),
      async (bytes, cuts, cap) => {
        const chunks = chunked(bytes, cuts);
        const biggest = Math.max(0, ...chunks.map((chunk) => chunk.length));
        const source = countingStream(chunks);
        const reader = new FrameReader(source.stream, cap);
        let at = 0;
        while (true) {
          const expected = modelFrame(bytes, at, cap);
          let got: FrameOutcome;
          try {
            const value = await reader.next();
            got = value === null ? null : { value, end: -1 };
          } catch (error) {
            assert(error instanceof FramingError, `a typed error, not ${error}`);
            got = { error: error.kind, end: -1 };
          }
          if (got === null || expected === null) {
            assertEquals(got, expected);
          } else {
            assertEquals({ ...got, end: expected.end }, expected);
            at = expected.end;
          }
          // Never more than one chunk (and a header) read ahead of what was returned.
          assert(source.delivered() - at <= biggest + 4, "the reader buffers one chunk ahead");
          if (got === null || "error" in got) break;
        }
        reader.cancel();
      },
    ),
    { numRuns: fuzzRuns(300), timeout: RUN_TIMEOUT_MS },
  );
});

Deno.test("fuzz: every valid frame sequence is read back whole, however it is chunked", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.jsonValue().filter((value) => value !== null), { maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 16 }),
      async (values, cuts) => {
        const bytes = concat(values.map((value) => encodeFrame(value, 1 << 20)));
        const reader = new FrameReader(countingStream(chunked(bytes, cuts)).stream, 1 << 20);
        for (const value of values) {
          assertEquals(await reader.next(), JSON.parse(JSON.stringify(value)));
        }
        assertEquals(await reader.next(), null);
      },
    ),
    { numRuns: fuzzRuns(200), timeout: RUN_TIMEOUT_MS },
  );
});

type LineOutcome = { kind: "line"; text: string } | { kind: "oversized"; bytes: number } | null;

/** What a correct line reader makes of `bytes`: its segments between newlines, capped. */
function modelLines(bytes: Uint8Array, cap: number): { outcome: LineOutcome; end: number }[] {
  const out: { outcome: LineOutcome; end: number }[] = [];
  let at = 0;
  while (at < bytes.length) {
    let newline = bytes.indexOf(0x0a, at);
    const terminated = newline >= 0;
    if (!terminated) newline = bytes.length;
    const segment = bytes.subarray(at, newline);
    const end = terminated ? newline + 1 : newline;
    if (segment.length > cap) {
      out.push({ outcome: { kind: "oversized", bytes: segment.length }, end });
    } else {
      const text = new TextDecoder().decode(segment);
      out.push({
        outcome: { kind: "line", text: text.endsWith("\r") ? text.slice(0, -1) : text },
        end,
      });
    }
    at = end;
  }
  out.push({ outcome: null, end: at });
  return out;
}

Deno.test("fuzz: the stdio line reader matches its model and holds at most its cap", async () => {
  const lineBytes = fc.array(
    fc.oneof(
      fc.uint8Array({ maxLength: 80 }),
      fc.constant(encoder.encode("\n")),
      fc.constant(encoder.encode("\r\n")),
      fc.string({ unit: "grapheme", maxLength: 40 }).map((text) => encoder.encode(text)),
    ),
    { maxLength: 12 },
  ).map(concat);
  await fc.assert(
    fc.asyncProperty(
      lineBytes,
      fc.array(fc.nat(), { maxLength: 8 }),
      fc.integer({ min: 1, max: 64 }),
      async (bytes, cuts, cap) => {
        const chunks = chunked(bytes, cuts);
        const biggest = Math.max(0, ...chunks.map((chunk) => chunk.length));
        const source = countingStream(chunks);
        const reader = new LineReader(source.stream, cap);
        for (const expected of modelLines(bytes, cap)) {
          const got = await reader.next();
          if (got?.kind === "oversized") {
            // What it kept of the line to find a request id in: bounded, never the whole line.
            const { head, tail, ...rest } = got;
            assert(head.length <= OVERSIZED_HEAD_BYTES && tail.length <= OVERSIZED_TAIL_BYTES);
            assertEquals(rest, expected.outcome);
          } else {
            assertEquals(got, expected.outcome);
          }
          // A line is held whole only up to its cap; beyond, it is skipped as it arrives.
          assert(source.delivered() - expected.end <= cap + 1 + biggest, "bounded buffering");
        }
      },
    ),
    { numRuns: fuzzRuns(300), timeout: RUN_TIMEOUT_MS },
  );
});

/** Lines a client might send: valid requests of both revisions, near misses and noise. */
function clientLines(): fc.Arbitrary<Uint8Array> {
  const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.boolean());
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const argumentsOf = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }));
  const request = fc.oneof(
    id.map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "fuzz", version: "1" },
      },
    })),
    fc.constant({ jsonrpc: "2.0", method: "notifications/initialized" }),
    id.map((id) => ({ jsonrpc: "2.0", id, method: "ping" })),
    id.map((id) => ({ jsonrpc: "2.0", id, method: "tools/list" })),
    fc.tuple(id, fc.string({ maxLength: 20 }), argumentsOf).map(([id, name, args]) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    })),
    id.map((id) => ({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: meta } })),
    id.map((id) => ({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: meta } })),
    fc.tuple(id, fc.string({ maxLength: 20 }), argumentsOf).map(([id, name, args]) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, _meta: meta },
    })),
    fc.tuple(id, fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 3 })).map((
      [id, method, params],
    ) => ({ jsonrpc: "2.0", id, method, params })),
  );
  return fc.oneof(
    { weight: 6, arbitrary: request.map((message) => encoder.encode(JSON.stringify(message))) },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => encoder.encode(JSON.stringify(value))) },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 40 }).map((bytes) =>
        bytes.map((b) => b === 10 ? 32 : b)
      ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 20_000 }).map((depth) =>
        encoder.encode(
          `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(depth)}${
            "]".repeat(depth)
          }}}`,
        )
      ),
    },
  );
}

Deno.test({
  name: "fuzz: the connector answers any stdin with well-formed JSON-RPC and ends when it ends",
  // Calls end at once (no service to reach), but their progress timers are unref'd and may be
  // cleared a tick after serve() returns.
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const home = await Deno.makeTempDir({ prefix: "ghostlight-fuzz-" });
  const paths = resolveInstancePaths("fuzz", (key) => ({ HOME: home })[key]);
  const settings = readConnectorSettings(() => undefined);
  let answered = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(clientLines(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (lines, cuts) => {
          const input = concat(lines.flatMap((line) => [line, encoder.encode("\n")]));
          const out: Uint8Array[] = [];
          await serve(paths, settings, {
            input: countingStream(chunked(input, cuts)).stream,
            output: new WritableStream({ write: (chunk) => void out.push(chunk) }),
          });
          const text = new TextDecoder().decode(concat(out));
          for (const line of text.split("\n").filter((line) => line !== "")) {
            const message = JSON.parse(line);
            assertEquals(message.jsonrpc, "2.0", line);
            assert("id" in message || "method" in message, line);
            answered++;
          }
        },
      ),
      { numRuns: fuzzRuns(60), timeout: RUN_TIMEOUT_MS },
    );
    assert(answered > 0, "the cases reached the connector's answers");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

const SCHEMAS = {
  ConnectorHello,
  ConnectorProof,
  ServiceHello,
  Admission,
  ConnectorMessage,
  ServiceMessage,
  FromExtension,
  ToExtension,
};

Deno.test("fuzz: bridge, handshake and browser decoders refuse anything with a typed error", () => {
  const hostile = fc.oneof(
    fc.anything(),
    fc.jsonValue(),
    fc.record(
      { type: fc.constantFrom("hello", "proof", "start", "result", "command", "refused") },
      {
        requiredKeys: [],
      },
    ).chain((base) =>
      fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue()).map((rest) => ({
        ...rest,
        ...base,
      }))
    ),
  );
  fc.assert(
    fc.property(hostile, (value) => {
      for (const [name, schema] of Object.entries(SCHEMAS)) {
        const parsed = schema.safeParse(value);
        assert(parsed.success || parsed.error.issues.length > 0, `${name} says why it refuses`);
      }
    }),
    { numRuns: fuzzRuns(500) },
  );
});

Deno.test("fuzz: valid bridge and browser messages are always accepted, after a frame hop", () => {
  const seq = fc.nat();
  const short = (max: number) => fc.string({ maxLength: max });
  const connectorMessage = fc.oneof(
    fc.record({ type: fc.constant("open_workspace"), seq, label: short(200) }),
    fc.record({ type: fc.constant("release_workspace"), workspace: short(128) }),
    fc.record({ type: fc.constant("catalog"), seq }),
    fc.record({
      type: fc.constant("start"),
      seq,
      tool: short(128),
      arguments: fc.dictionary(short(20), fc.jsonValue({ maxDepth: 4 })),
      workspace: short(128),
      context: fc.record({ client_name: short(200), client_version: short(100) }),
    }, { requiredKeys: ["type", "seq", "tool", "arguments", "context"] }),
    fc.record({ type: fc.constant("cancel"), seq }),
  );
  const browserHello = fc.record({
    type: fc.constant("hello"),
    browser_id: fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/),
    extension_version: fc.stringMatching(/^[0-9A-Za-z.+-]{1,32}$/),
    user_agent: short(500),
    launch_token: short(64),
  }, { requiredKeys: ["type", "browser_id", "extension_version", "user_agent"] });
  const fromExtension = fc.oneof(
    browserHello,
    fc.record({
      type: fc.constant("result"),
      id: seq,
      ok: fc.constant(true),
      value: fc.jsonValue(),
    }),
    fc.record({ type: fc.constant("tab_removed"), tab_id: seq }),
  );
  const hop = (value: unknown) =>
    JSON.parse(new TextDecoder().decode(encodeFrame(value, 1 << 24).subarray(4)));
  fc.assert(
    fc.property(connectorMessage, fromExtension, (message, fromBrowser) => {
      const bridge = ConnectorMessage.safeParse(hop(message));
      assert(bridge.success, JSON.stringify(bridge.error?.issues));
      const browser = FromExtension.safeParse(hop(fromBrowser));
      assert(browser.success, JSON.stringify(browser.error?.issues));
    }),
    { numRuns: fuzzRuns(500) },
  );
});

Deno.test("fuzz: the policy loader answers every text with a policy or a reason, never a throw", () => {
  const capability = fc.constantFrom("read", "action", "write", "execute");
  const host = fc.constantFrom("*", "127.0.0.1", "*.example.com", "localhost", "bank.example");
  const grant = fc.record({
    clients: fc.array(fc.constantFrom("*", "claude-code", "cursor"), {
      minLength: 1,
      maxLength: 2,
    }),
    hosts: fc.array(host, { minLength: 1, maxLength: 3 }),
    allow: fc.array(capability, { minLength: 1, maxLength: 4 }),
    deny: fc.array(capability, { minLength: 1, maxLength: 4 }),
  }, { requiredKeys: ["hosts", "allow"] });
  const policy = fc.record({
    mode: fc.constantFrom("enforce", "observe"),
    default: fc.constantFrom("allow", "deny"),
    grants: fc.array(grant, { maxLength: 4 }),
    sacred: fc.array(host.filter((pattern) => pattern !== "*"), { maxLength: 2 }),
  }, { requiredKeys: ["default"] });
  // Any text: a typed answer (a policy or why not), whatever the bytes.
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
      const read = readPolicyText(text, "policy.jsonc");
      assert("policy" in read || ("error" in read && read.error.length > 0));
    }),
    { numRuns: fuzzRuns(300) },
  );
  // A well-formed policy, as JSON or with comments and trailing commas, is always accepted.
  fc.assert(
    fc.property(policy, fc.boolean(), (file, commented) => {
      const json = JSON.stringify(file, null, 2);
      const text = commented ? `// the person's policy\n${json.replace(/\n}$/, ",\n}")}` : json;
      const read = readPolicyText(text, "policy.jsonc");
      assert("policy" in read, "error" in read ? read.error : "");
    }),
    { numRuns: fuzzRuns(300) },
  );
});

Deno.test("fuzz: a client config edit is exact and undone to the byte, or refused", () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
  const config = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
  const layout = fc.record({
    indent: fc.constantFrom(2, 3, 4, "\t"),
    crlf: fc.boolean(),
    comment: fc.boolean(),
  });
  const entry = { command: "/home/u/.local/bin/ghostlight-mcp-connector", args: [] };
  fc.assert(
    fc.property(config, layout, fc.string({ maxLength: 40 }), (value, how, junk) => {
      let text = JSON.stringify(value, null, how.indent);
      if (how.comment) text = `// settings\n${text}`;
      if (how.crlf) text = text.replaceAll("\n", "\r\n");
      const path = ["mcpServers", "ghostlight"];
      const edited = insertJsonEntry(text, { path, value: entry });
      if (edited.ok) {
        assertEquals(applyInverse(edited.text, edited.inverse), text);
        const parsed = parseJsonc(edited.text);
        assert(parsed.ok);
      }
      // A file that is not JSON is refused with a reason, never half-edited.
      const broken = insertJsonEntry(`{${junk}`, { path, value: entry });
      if (!parseJsonc(`{${junk}`).ok) assert(!broken.ok && broken.reason.length > 0);
      // TOML: our table is added and removed to the byte, or the file is left alone.
      const toml = Object.entries(value)
        .filter(([, item]) => typeof item === "string" || typeof item === "number")
        .map(([name, item]) => `${name} = ${JSON.stringify(item)}`).join("\n");
      const table = insertTomlTable(toml, {
        path: ["mcp_servers", "ghostlight"],
        value: { command: entry.command },
      });
      if (table.ok) assertEquals(applyInverse(table.text, table.inverse), toml);
    }),
    { numRuns: fuzzRuns(200) },
  );
});

Deno.test("fuzz: any audit entry seals into a record that verifies, and is shown escaped", () => {
  const key = ChainKey.derive(new Uint8Array(32).fill(5));
  // Any text, long and short, with controls, surrogates and separators in it; long ones are a
  // short piece repeated, so a case costs little to make.
  const text = (max: number) =>
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 30 }),
      fc.tuple(fc.string({ unit: "binary", minLength: 1, maxLength: 8 }), fc.nat({ max }))
        .map(([piece, times]) => piece.repeat(times).slice(0, max)),
      fc.constantFrom("\u001b[2J", "a\nb", "\ud800", "\u202e", "\\u001b"),
    );
  const entry = fc.record({
    kind: fc.constantFrom("decision", "outcome", "audit") as fc.Arbitrary<
      "decision" | "outcome" | "audit"
    >,
    result: text(80),
    principal: fc.option(text(200)),
    client: text(600),
    workspace: fc.option(text(80)),
    work: fc.option(text(80)),
    tool: text(300),
    action: fc.option(text(200)),
    host: fc.option(text(1_000)),
    capabilities: fc.array(text(40), { maxLength: 8 }),
    rule: fc.option(text(5_000)),
    args: text(300),
  });
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 4 }), (entries) => {
      let after: { seq: number; hash: string | null } = { seq: 0, hash: null };
      const lines: string[] = [];
      for (const one of entries) {
        const record = seal(one, after, new Date(0), key);
        lines.push(JSON.stringify(record, FIELDS));
        after = record;
        const line = shown(`${record.principal} ${record.client} ${record.host} ${record.rule}`);
        // deno-lint-ignore no-control-regex
        assert(!/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]/.test(line), line);
      }
      const verified = verifyAudit([{ name: "audit.jsonl", text: lines.join("\n") + "\n" }], key);
      assert(verified.ok, JSON.stringify(verified));
    }),
    { numRuns: fuzzRuns(40) },
  );
});

Deno.test("fuzz: a file is read only when it is a regular file within its bound, never a FIFO", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-fuzz-files-" });
  let n = 0;
  try {
    const kind = fc.constantFrom("file", "link", "dangling", "fifo", "folder", "absent");
    await fc.assert(
      fc.asyncProperty(
        kind,
        fc.integer({ min: 0, max: 4_096 }),
        fc.integer({ min: 0, max: 4_096 }),
        fc.boolean(),
        async (what, size, maxBytes, follow) => {
          const path = `${dir}/f${n++}`;
          const target = `${path}.target`;
          await Deno.writeFile(target, new Uint8Array(size).fill(0x61));
          if (what === "file") await Deno.rename(target, path);
          if (what === "link") await Deno.symlink(target, path);
          if (what === "dangling") await Deno.symlink(`${path}.none`, path);
          if (what === "folder") await Deno.mkdir(path);
          if (what === "fifo") {
            assert((await new Deno.Command("mkfifo", { args: [path] }).output()).success);
          }
          let read: Uint8Array | null | "refused";
          try {
            read = await readRegularFile(path, { maxBytes, noFollow: !follow });
          } catch (error) {
            assert(
              error instanceof FileRefused || error instanceof Deno.errors.NotFound,
              String(error),
            );
            read = "refused";
          }
          const readable = what === "file" || (what === "link" && follow);
          if (what === "absent" || (what === "dangling" && follow)) {
            assert(read === null || read === "refused");
          } else if (readable && size <= maxBytes) {
            assert(read instanceof Uint8Array && read.length === size);
          } else assertEquals(read, "refused");
        },
      ),
      { numRuns: fuzzRuns(60) },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
