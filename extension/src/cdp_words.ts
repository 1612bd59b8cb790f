/**
 * Chrome's words for why a command failed, read here and nowhere else: the service acts on the
 * kind they become (decisions 0321, 0451), never on the words, which a page can sometimes shape and
 * Chromium can reword.
 *
 * @module
 */

import type { MechanismErrorKind } from "../../shared/browser_protocol.ts";

/** The tab the command named does not exist. */
const NO_TAB = /no tab with given id|cannot find tab/i;

/**
 * The command ran in a document, frame or frame session that is gone: the page navigated (or the
 * target did, as a new tab's first document replaces `about:blank`), or the frame went away.
 */
const LOST_CONTEXT =
  /context with specified id|execution context was destroyed|cannot find context|inspected target navigated or closed|no frame|frame.*not found|session.*not found|no session/i;

/** The kind of a failed CDP command, from the message Chrome gave it. */
export function cdpFailureKind(
  message: string,
): Extract<MechanismErrorKind, "no_such_tab" | "context_lost" | "cdp_error"> {
  if (NO_TAB.test(message)) return "no_such_tab";
  if (LOST_CONTEXT.test(message)) return "context_lost";
  return "cdp_error";
}
