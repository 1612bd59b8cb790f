/**
 * Version skew between the service and the extension: the features an extension declares in its
 * hello, the operations each feature brings, and what the service says when a tool needs a
 * feature the installed extension lacks. `docs/compatibility.json` says the same for people and
 * scripts; `extension_features_test.ts` keeps the two equal.
 *
 * @module
 */

import { z } from "zod";
import type { OperationName } from "./browser_protocol.ts";
import { VERSION } from "./version.ts";

/** A capability of the extension beyond the operations every extension has. */
export const ExtensionFeature = z.enum([
  "transfers",
  "tab_locations",
  "after_replies",
  "reply_values",
  "network_rules",
  "badge",
  "notifications",
  "frame_holds",
]);
export type ExtensionFeature = z.infer<typeof ExtensionFeature>;

/** Every feature this build of the extension supports: it declares them all in its hello. */
export const EXTENSION_FEATURES: readonly ExtensionFeature[] = ExtensionFeature.options;

/**
 * The operations each feature brings. An operation listed here is sent only to an extension that
 * declared its feature; the others are in every extension that says hello.
 */
export const FEATURE_OPERATIONS: Record<ExtensionFeature, readonly OperationName[]> = {
  transfers: ["transfer.chunk", "transfer.discard", "cdp.with_transfers"],
  // No operation of its own: `tab.observe` asks for it, answers and `tab_location` carry it.
  tab_locations: [],
  // No operation of its own: a `cdp.sequence` command's `afterReplies`.
  after_replies: [],
  // No operation of its own: a `cdp.sequence` command's `sendIf` and `paramsFrom`.
  reply_values: [],
  network_rules: ["tab.network_rules"],
  badge: ["action.badge"],
  notifications: ["action.notify"],
  // No operation of its own: `tab.frames` asks for it with `held`.
  frame_holds: [],
};

/** The tools that act on a page with pointer and keys: they need a page program's features. */
const ACTING_TOOLS: readonly string[] = ["computer", "act_on", "form_fill"];

/** The tools that cannot work without each feature. */
export const FEATURE_TOOLS: Record<ExtensionFeature, readonly string[]> = {
  transfers: ["file_upload", "upload_image"],
  // Without it every tool still works: the gate asks the browser where a tab is instead.
  tab_locations: [],
  // Every action's receipt reads in the action's own message, after its input (decision 0212);
  // the paths kept for an extension without it are gone (decision 0311).
  after_replies: ACTING_TOOLS,
  // An action by ref, and `type`, is one page program aimed by its lead's replies (0239, 0311).
  reply_values: ACTING_TOOLS,
  // Without it every tool still works, but a request to a refused host is not stopped in the
  // browser (the gate still refuses calls aimed at one).
  network_rules: [],
  // Without it every tool works; the toolbar icon just does not count the questions.
  badge: [],
  // Without it every tool works; no system notification says a question waits.
  notifications: [],
  // Without it every tool works: a read leaves a frame whose renderer is held out once its first
  // look there goes unanswered (3 s, decision 0710), instead of at once.
  frame_holds: [],
};

/** The oldest extension version each feature is in. */
export const FEATURE_SINCE: Record<ExtensionFeature, string> = {
  transfers: "0.1.0",
  tab_locations: "0.1.0",
  after_replies: "0.1.0",
  reply_values: "0.1.0",
  network_rules: "0.1.0",
  badge: "0.1.0",
  notifications: "0.1.0",
  frame_holds: "0.1.0",
};

/** The oldest extension this service works with fully; older ones lose the tools they lack. */
export const MIN_EXTENSION_VERSION = "0.1.0";

/** The feature an operation needs, if any. */
export function featureOf(op: OperationName): ExtensionFeature | undefined {
  for (const feature of ExtensionFeature.options) {
    if (FEATURE_OPERATIONS[feature].includes(op)) return feature;
  }
  return undefined;
}

/**
 * The features a hello declared that this service knows; unknown names (a newer extension) are
 * ignored, and an extension that declared nothing has none.
 */
export function knownFeatures(declared: readonly string[] | undefined): ExtensionFeature[] {
  const known = new Set<string>(ExtensionFeature.options);
  return [...new Set(declared ?? [])].filter((name): name is ExtensionFeature => known.has(name));
}

/** Compares dotted version numbers (Chrome's are up to four numbers); missing parts are 0. */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split(/[.+-]/).map((part) => parseInt(part, 10) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const diff = (left[i] ?? 0) - (right[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

/**
 * What is wrong between this service and an extension, or null when nothing is: an older version
 * than the service supports fully, or features it lacks (which tools then refuse).
 */
export function extensionMismatch(
  extensionVersion: string,
  features: readonly ExtensionFeature[],
): string | null {
  const missing = ExtensionFeature.options.filter((feature) => !features.includes(feature));
  const old = compareVersions(extensionVersion, MIN_EXTENSION_VERSION) < 0;
  if (!old && missing.length === 0) return null;
  const tools = [...new Set(missing.flatMap((feature) => FEATURE_TOOLS[feature]))];
  const lacking = missing.length === 0
    ? ""
    : ` lacks ${missing.join(", ")}${
      tools.length === 0 ? "" : ` (${tools.join(", ")} will not work)`
    };`;
  return `extension ${extensionVersion}${old ? ` is older than ${MIN_EXTENSION_VERSION};` : ""}` +
    `${lacking} ${UPGRADE_STEP}`;
}

/** How to bring the installed extension up to this service's version. */
export const UPGRADE_STEP = `Update the Ghostlight extension to ${VERSION} ` +
  `(run 'ghostlight install' again, then reload the extension at chrome://extensions).`;
