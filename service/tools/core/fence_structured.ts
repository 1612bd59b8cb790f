/**
 * One rule for page strings in structured content: every string in a result's structured content
 * is fenced as untrusted, with the workspace's nonce, unless its key names a value the service
 * itself made ({@linkcode SERVICE_KEYS}: refs, ids, origins, the service's own
 * vocabularies). The rule is applied once, at the bridge's one door, to every call and every step,
 * so a new tool's page strings are fenced without the tool doing anything; a key joins the list
 * only when the service produced every value it can hold.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";
import { fence, originOf } from "./fence.ts";

/**
 * Keys whose string values the service produced or validated, so the page cannot choose them:
 * ids the service minted, origins, and words from a fixed vocabulary. A URL is not one of them: a
 * page rewrites its own path, query and fragment (`history.replaceState`), so a `url` is fenced
 * whole like any page string, while its origin has its own key (decision 0281).
 */
export const SERVICE_KEYS: ReadonlySet<string> = new Set([
  "workspaceId",
  "ref",
  "origin",
  "topOrigin",
  "frameOrigin",
  "sessionNonce",
  "action",
  "targetAssurance",
  "kind",
  "tool",
  "imageId",
  "readyState",
  "delivery",
]);

/** Structured content with every page string fenced; service values and non-strings as they were. */
export function fenceStructured(
  workspace: Workspace,
  structured: Record<string, unknown>,
): Record<string, unknown> {
  const origin = typeof structured.url === "string" ? originOf(structured.url) : "unknown";
  return fenceObject(workspace, structured, origin);
}

function fenceObject(
  workspace: Workspace,
  value: Record<string, unknown>,
  origin: string,
): Record<string, unknown> {
  const here = typeof value.url === "string" ? originOf(value.url) : origin;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SERVICE_KEYS.has(key) ? keepServiceValue(workspace, item, here) : fenceValue(
      workspace,
      item,
      here,
    );
  }
  return out;
}

/** A service key's value: its strings stay; objects under it are walked like any other. */
function keepServiceValue(workspace: Workspace, value: unknown, origin: string): unknown {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((item) => keepServiceValue(workspace, item, origin));
  return fenceValue(workspace, value, origin);
}

function fenceValue(workspace: Workspace, value: unknown, origin: string): unknown {
  if (typeof value === "string") {
    return isFenced(workspace, value) ? value : fence(workspace, origin, value);
  }
  if (Array.isArray(value)) return value.map((item) => fenceValue(workspace, item, origin));
  if (value !== null && typeof value === "object") {
    return fenceObject(workspace, value as Record<string, unknown>, origin);
  }
  return value;
}

/** Whether `text` is one whole fence of this workspace (a step's result already fenced). */
export function isFenced(workspace: Workspace, text: string): boolean {
  const tag = `page-content-${workspace.fenceNonce}`;
  return text.startsWith(`<${tag} `) && text.endsWith(`\n</${tag}>`) &&
    text.indexOf(`</${tag}>`) === text.length - tag.length - 3;
}

/** The text inside a fence of this workspace; the text itself when it is not fenced. */
export function unfence(workspace: Workspace, text: string): string {
  if (!isFenced(workspace, text)) return text;
  return text.slice(text.indexOf(">\n") + 2, text.length - workspace.fenceNonce.length - 17);
}

/**
 * Structured content with this workspace's fences taken off again, for values that go back into
 * the page rather than to the model (`script`'s references).
 */
export function unfenceStructured(workspace: Workspace, value: unknown): unknown {
  if (typeof value === "string") return unfence(workspace, value);
  if (Array.isArray(value)) return value.map((item) => unfenceStructured(workspace, item));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, unfenceStructured(workspace, item)]),
    );
  }
  return value;
}
