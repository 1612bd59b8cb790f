/**
 * How a browser operation fails: a kind the tools act on (a tab that is gone, a dialog that holds
 * the page, a link that closed, a timeout) and a message.
 *
 * @module
 */

import type { OpenDialog } from "./tab_state.ts";

/** Why a browser operation failed. */
export type BrowserErrorKind =
  | "no_such_tab"
  | "cdp_error"
  | "context_lost"
  | "invalid_params"
  | "unsupported"
  | "internal"
  | "disconnected"
  | "not_sent"
  | "abandoned"
  | "timeout"
  | "unanswered"
  | "busy"
  | "dialog_open"
  | "needs_upgrade"
  | "detached"
  | "transfer_refused";

/**
 * A browser operation failed; `kind` says whether it may have happened. `not_sent` means the
 * command never left the service (the link was already closed, or the write was refused).
 * `abandoned` means it never left the service either, because the work it was for was over (a
 * read that lost a race to its call's answer, a cancelled wait: decisions 0760, 0790): unlike
 * `not_sent` it says nothing of the browser being unreachable.
 * `detached` means the tab's debugger session ended while the command ran for a reason on the
 * browser's side (the tab closed, its page went away, someone took the debugger): the extension
 * answered, so the command is over, though what it did before then stays done (decision 0166).
 * `context_lost` means the command ran in a document, frame or frame session that is gone (the
 * page navigated or the frame went away), as the extension reads Chrome's words where they enter:
 * the service acts on the kind, never on those words. `transfer_refused` means the extension would not hold or hand out a transfer's bytes, so the
 * command that was to use them was never sent. `unanswered` means a command its caller said has no
 * effect on the page (a look, a read in Ghostlight's own world) was not answered in its time: it may
 * still run, but nothing of the tab is left unknown by it, so the tab is not quarantined
 * (decision 0710).
 */
/** What an error tells of the dialog that holds a page. */
export type DialogFacts = Pick<OpenDialog, "type" | "message"> & { url?: string };

export class BrowserError extends Error {
  /**
   * With `dialog_open`, the dialog that holds the page, as data (decision 0321): its type and
   * the page's own message, which is told to the model only fenced, never read back out of
   * this error's message; and the URL of the page that opened it, when known, for the fence.
   */
  readonly dialog?: DialogFacts;

  constructor(
    readonly kind: BrowserErrorKind,
    message: string,
    facts: { dialog?: DialogFacts } = {},
  ) {
    super(message);
    this.name = "BrowserError";
    if (facts.dialog) {
      const { type, message, url } = facts.dialog;
      this.dialog = { type, message, ...(url ? { url } : {}) };
    }
  }

  /** True when the browser may have carried the operation out. */
  get mayHaveHappened(): boolean {
    return this.kind === "disconnected" || this.kind === "timeout";
  }
}

/** The refusal for a command the open dialog would hold. */
export function dialogOpenError(dialog: DialogFacts): BrowserError {
  const quoted = dialog.message ? ` ("${dialog.message.slice(0, 100)}")` : "";
  return new BrowserError(
    "dialog_open",
    `A JavaScript ${dialog.type} dialog${quoted} is open and freezes the page`,
    { dialog },
  );
}
