/**
 * The control API's client: `ghostlight status`, `browser launch`, `doctor` and the person's
 * commands (`hold`, `resume`, `stop`, `take-over`) ask a running service through its control
 * socket. It speaks HTTP/1.1 over the Unix socket itself, because
 * `fetch` through a Unix-socket client asks for net access to the URL's host name, and the
 * service's permissions name only its sockets (decision 0100).
 *
 * @module
 */

import { PersonAnswer, type PersonRequest } from "../../shared/person.ts";
import { Probe } from "./probe.ts";
import { PROOF_HEADER, proveRequest } from "./proof.ts";
import { Status } from "./status.ts";

/** The largest control answer read; the status of a busy service is a few KiB. */
export const MAX_CONTROL_RESPONSE = 1024 * 1024;
/** How long one control request may take. */
const CONTROL_TIMEOUT_MS = 5_000;

const encoder = new TextEncoder();

/** One answer from the control API. */
export interface ControlResponse {
  status: number;
  body: string;
}

/**
 * Sends one request to the control socket and reads the whole answer (the connection closes
 * after it). Rejects when the service is absent, slow, or answers more than
 * {@linkcode MAX_CONTROL_RESPONSE} bytes.
 */
export async function requestControl(
  controlSocket: string,
  request: {
    method: "GET" | "POST";
    path: string;
    body?: string;
    timeoutMs?: number;
    /** The control key: the request then carries its proof (every POST needs one). */
    key?: Uint8Array;
  },
): Promise<ControlResponse> {
  const body = request.body === undefined ? new Uint8Array() : encoder.encode(request.body);
  const proof = request.key === undefined
    ? ""
    : `${PROOF_HEADER}: ${await proveRequest(request.key, { ...request, body })}\r\n`;
  const conn = await Deno.connect({ transport: "unix", path: controlSocket });
  const timer = setTimeout(() => conn.close(), request.timeoutMs ?? CONTROL_TIMEOUT_MS);
  try {
    const head = `${request.method} ${request.path} HTTP/1.1\r\nHost: ghostlight\r\n` +
      "Connection: close\r\n" + proof +
      (request.body === undefined
        ? ""
        : `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`) +
      "\r\n";
    const out = new Uint8Array([...encoder.encode(head), ...body]);
    for (let written = 0; written < out.length;) {
      written += await conn.write(out.subarray(written));
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of conn.readable) {
      size += chunk.length;
      if (size > MAX_CONTROL_RESPONSE) {
        throw new Error(`the control answer is over ${MAX_CONTROL_RESPONSE} bytes`);
      }
      chunks.push(chunk);
    }
    return parseResponse(concat(chunks));
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // Closed by the timeout or the peer.
    }
  }
}

/** Parses an HTTP/1.1 answer: status line, headers, and a body of fixed length or chunks. */
export function parseResponse(bytes: Uint8Array): ControlResponse {
  const split = indexOf(bytes, CRLF2, 0);
  if (split < 0) throw new Error("the control answer has no end of headers");
  const [statusLine, ...headerLines] = latin1(bytes.subarray(0, split)).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error("the control answer has no status line");
  const chunked = headerLines.some((line) => /^transfer-encoding:\s*chunked\s*$/i.test(line));
  const rest = bytes.subarray(split + 4);
  return { status, body: new TextDecoder().decode(chunked ? unchunk(rest) : rest) };
}

const CRLF = [13, 10];
const CRLF2 = [13, 10, 13, 10];

function indexOf(bytes: Uint8Array, needle: number[], from: number): number {
  outer: for (let i = from; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

function unchunk(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = indexOf(bytes, CRLF, at);
    if (end < 0) break;
    const size = parseInt(latin1(bytes.subarray(at, end)), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
  return concat(parts);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Reads the status of a running service through its control socket. Proved with the control
 * `key` it is whole; without one the service leaves out who the agents are, their plans and
 * their sites (decision 0335), and says so in `withheld`.
 */
export async function fetchStatus(controlSocket: string, key?: Uint8Array): Promise<Status> {
  const response = await requestControl(controlSocket, { method: "GET", path: "/status", key });
  if (response.status !== 200) {
    throw new Error(`the service answered ${response.status} for its status`);
  }
  return Status.parse(JSON.parse(response.body));
}

/** How long a probe of the browsers may take: each browser gets 5 s for all its rounds, in parallel. */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Asks a running service to probe each attached browser `rounds` times in a row (1 to
 * 100), proved with the control `key`; resolves with their answers, each timed by the service.
 */
export async function fetchProbe(
  controlSocket: string,
  key: Uint8Array,
  rounds = 1,
): Promise<Probe> {
  const response = await requestControl(controlSocket, {
    method: "POST",
    path: `/probe?rounds=${rounds}`,
    timeoutMs: PROBE_TIMEOUT_MS,
    key,
  });
  if (response.status !== 200) {
    let said: PersonAnswer | undefined;
    try {
      said = PersonAnswer.safeParse(JSON.parse(response.body)).data;
    } catch {
      // Not JSON: the status says enough.
    }
    const why = said && !said.ok ? `: ${said.message}` : "";
    throw new Error(`the service answered ${response.status} for a probe${why}`);
  }
  return Probe.parse(JSON.parse(response.body));
}

/**
 * Asks a running service to carry out one of the person's requests, proved with the control
 * `key`; a refusal (400) or an unproven request (401) carries its answer too.
 */
export async function askPerson(
  controlSocket: string,
  key: Uint8Array,
  person: PersonRequest,
): Promise<PersonAnswer> {
  const response = await requestControl(controlSocket, {
    method: "POST",
    path: "/person",
    body: JSON.stringify(person),
    timeoutMs: 10_000,
    key,
  });
  return PersonAnswer.parse(JSON.parse(response.body));
}
