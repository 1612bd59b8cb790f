/**
 * `javascript_tool`: runs the agent's script in the page's main world through CDP
 * (`Runtime.evaluate` in REPL mode), so a strict Content-Security-Policy does not block it, top
 * level `await` works and the last expression is the result. The result is serialised in the
 * page with bounds and cut, the values of the page's password fields are redacted in
 * Ghostlight's isolated world (so they never reach the service), then secret-looking parts are
 * redacted here before it is fenced as page-sourced.
 *
 * @module
 */

import { BrowserError } from "../../browser/mod.ts";
import { dialogAfterEffect, openDialog } from "../page/after_dialog.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { displayUrl, fence, fencedUrl, originOf, redactSecrets } from "../core/safe_text.ts";
import {
  DialogOpened,
  inMainFrame,
  pageInfo,
  runtimeCall,
  send,
  sendRacingDialogs,
  SERIALIZE,
  type TabPages,
  tabPages,
} from "../page/frames.ts";
import { provenance } from "../page/provenance.ts";
import { MODULI, randomBase, redactByDigests, type SecretDigest } from "../page/secret_digest.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";

/** Longest result text returned. */
export const MAX_RESULT_CHARS = 20_000;
/** Characters read past the cut, so redaction sees a secret that straddles it whole. */
const READ_MARGIN = 2_000;
/** Longest exception text shown. */
const MAX_THROWN_CHARS = 1_000;
/** Longest a script may run, including awaited promises; then it is stopped. */
export const SCRIPT_TIMEOUT_MS = 10_000;
/** How long a stopped script's evaluation may take to come back. */
const STOP_GRACE_MS = 3_000;

interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  objectId?: string;
  description?: string;
}

interface Evaluated {
  result?: RemoteObject;
  exceptionDetails?: {
    text?: string;
    lineNumber?: number;
    exception?: { description?: string; value?: unknown };
  };
}

/**
 * Sends a command that runs the agent's script. Runtime.evaluate's own `timeout` stops a
 * script still running synchronously after {@linkcode SCRIPT_TIMEOUT_MS}, so the tab is usable
 * again; work after an await is beyond it, so an evaluation that never answers fails after a
 * grace period, saying the page may still be busy.
 */
async function runBounded(
  target: TabTarget,
  method: string,
  params: Record<string, unknown>,
): Promise<Evaluated> {
  const started = performance.now();
  const overran = () => performance.now() - started >= SCRIPT_TIMEOUT_MS - 100;
  try {
    const evaluated = await sendRacingDialogs(
      target,
      undefined,
      method,
      params,
      { timeoutMs: SCRIPT_TIMEOUT_MS + STOP_GRACE_MS },
    ) as Evaluated;
    if (evaluated.exceptionDetails && overran()) throw scriptStopped();
    return evaluated;
  } catch (error) {
    if (!(error instanceof BrowserError) || !overran()) throw error;
    // V8 answers a script it stopped with an internal error.
    if (error.kind !== "timeout") throw scriptStopped();
    throw new ToolError(
      "outcome_unknown",
      `The script did not finish in ${SCRIPT_TIMEOUT_MS / 1000} s (its awaited work never ` +
        "settled, or it loops after an await); it may still be running in the page.",
      "The tab takes no other command until the browser confirms this one ended (when its " +
        "awaited work settles); to go on at once, close it (tab_control close) and work in a " +
        "new tab. Keep scripts short and free of endless loops.",
    );
  }
}

function scriptStopped(): ToolError {
  return new ToolError(
    "tool_failure",
    `The script ran over ${SCRIPT_TIMEOUT_MS / 1000} s and was stopped (the page is usable ` +
      "again). Statements before the point it reached may have run.",
    "Make it finish sooner: no endless loops; do slow work in several shorter calls.",
  );
}

/** Runs the expression in the main world; returns early if it opens a JavaScript dialog. */
async function run(target: TabTarget, expression: string): Promise<Evaluated> {
  return await runBounded(target, "Runtime.evaluate", {
    expression,
    replMode: true,
    awaitPromise: true,
    returnByValue: false,
    userGesture: true,
    allowUnsafeEvalBlockedByCSP: true,
    timeout: SCRIPT_TIMEOUT_MS,
  });
}

/** Runs the agent's script as a console line would, its last value awaited. */
async function evaluateScript(target: TabTarget, text: string): Promise<Evaluated> {
  let evaluated = await run(target, text);
  const syntax = evaluated.exceptionDetails?.exception?.description ?? "";
  if (/Illegal return statement/.test(syntax)) {
    // Agents often write a function body; run it as one rather than fail the first call.
    evaluated = await run(target, `await (async () => {\n${text}\n})()`);
  }
  if (evaluated.result?.subtype === "promise" && evaluated.result.objectId) {
    // REPL mode awaits top-level await but hands back a promise that is the last value.
    evaluated = await runBounded(target, "Runtime.awaitPromise", {
      promiseObjectId: evaluated.result.objectId,
      returnByValue: false,
    });
  }
  return evaluated;
}

async function valueOf(target: TabTarget, remote: RemoteObject): Promise<unknown> {
  if (remote.type === "undefined") return undefined;
  if (remote.unserializableValue !== undefined) return remote.unserializableValue;
  if (!remote.objectId) return remote.value;
  try {
    const copied = await send(target, undefined, "Runtime.callFunctionOn", {
      objectId: remote.objectId,
      functionDeclaration: SERIALIZE,
      returnByValue: true,
    });
    return (copied.result as RemoteObject | undefined)?.value ?? remote.description;
  } finally {
    await send(target, undefined, "Runtime.releaseObject", { objectId: remote.objectId })
      .catch(() => {});
  }
}

/** The agent's script's value as text, before redaction. */
function asText(value: unknown): string {
  return value === undefined
    ? "undefined"
    : typeof value === "string"
    ? value
    : JSON.stringify(value) ?? String(value);
}

/** The value of a remote object that cannot be read any more: primitives only. */
function carriedValue(remote: RemoteObject): string {
  if (remote.type === "undefined") return "undefined";
  if (remote.unserializableValue !== undefined) return remote.unserializableValue;
  if (remote.objectId) return `[${remote.description ?? remote.subtype ?? remote.type}]`;
  return asText(remote.value);
}

/** The agent's script from the arguments, or a refusal showing a correct call. */
function scriptOf(args: Record<string, unknown>, tabId: number): string {
  const example = `{"action": "javascript_exec", "text": "document.title", "tabId": ${tabId}}`;
  if (args.action !== "javascript_exec") {
    throw new ToolError(
      "tool_failure",
      `"action" must be "javascript_exec", not ${JSON.stringify(args.action)}.`,
      `A correct call looks like: ${example}`,
    );
  }
  const text = args.text as string;
  if (text.trim() === "") {
    throw new ToolError("tool_failure", '"text" is empty.', `Pass the script, e.g. ${example}`);
  }
  return text;
}

/** Digests of the page's secret field values, taken with a fresh base (see secret_digest.ts). */
interface Secrets {
  base: number;
  digests: SecretDigest[];
}

async function secretsOf(target: TabTarget, pages: TabPages): Promise<Secrets> {
  const base = randomBase();
  const digests = await inMainFrame(
    target,
    pages,
    runtimeCall("secretDigests", base, MODULI),
    { synchronous: true },
  );
  return { base, digests };
}

/** The answer when the script itself waits on a dialog it opened: its result never came. */
function blockedByDialog(context: ToolContext, target: TabTarget, error: DialogOpened) {
  const { url } = target.link.tab(target.native).dialog ?? { url: "" };
  return success(
    `The script opened a JavaScript ${error.type} dialog and waits for it; the page is frozen ` +
      "until it is answered, and the script's result is lost. It says:\n" +
      fence(context.workspace, originOf(url), redactSecrets(error.text)) +
      `\nAnswer it with computer: {"action": "key", "text": "Return", "tabId": ${target.tabId}} ` +
      'accepts, "Escape" dismisses.',
    { tabId: target.tabId, dialog: { type: error.type, message: redactSecrets(error.text) } },
  );
}

/** The refusal for a script that threw; the exception's text is the page's, so it is fenced. */
async function threw(
  context: ToolContext,
  target: TabTarget,
  details: NonNullable<Evaluated["exceptionDetails"]>,
): Promise<ToolError> {
  const why = details.exception?.description?.split("\n")[0] ??
    (details.exception?.value !== undefined
      ? `Uncaught ${JSON.stringify(details.exception.value)}`
      : details.text ?? "unknown error");
  const page = await pageInfo(context.workspace, target).catch(() => ({ url: "" }));
  return new ToolError(
    "tool_failure",
    "The script threw:\n" +
      fence(context.workspace, originOf(page.url), redactSecrets(why.slice(0, MAX_THROWN_CHARS))),
    "Fix the script and run it again; statements before the error may already have run.",
  );
}

/**
 * The script's result as text to show (redacted in the page) and the page's URL. The script has
 * run: a dialog that froze the page since does not undo that, so the result then is what was
 * read before it (or what the script's answer carried), redacted with the digests taken before.
 */
async function readResult(
  target: TabTarget,
  pages: TabPages,
  remote: RemoteObject,
  secrets: Secrets,
): Promise<{ shown: string; total: number; url: string }> {
  let text: string | null = null;
  try {
    text = asText(await valueOf(target, remote));
    // Only what can be shown is redacted and returned; a script can return any amount.
    const read = await inMainFrame(
      target,
      pages,
      runtimeCall("redactResult", text.slice(0, MAX_RESULT_CHARS + READ_MARGIN)),
      { synchronous: true },
    );
    return { shown: read.text, total: text.length, url: read.url };
  } catch (error) {
    const dialog = target.link.tab(target.native).dialog;
    if (!dialog) throw error;
    text ??= carriedValue(remote);
    const kept = text.slice(0, MAX_RESULT_CHARS + READ_MARGIN);
    return {
      shown: redactByDigests(kept, secrets.digests, secrets.base),
      total: text.length,
      url: dialog.url,
    };
  }
}

/** `javascript_tool`. */
export const javascriptTool: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const text = scriptOf(args, target.tabId);
  const pages = tabPages(context.workspace, target.tabId);
  // Taken before the script runs: a dialog it leaves behind can freeze the page before the
  // result is redacted there, and the result must still go out without the page's secrets.
  const secrets = await secretsOf(target, pages);
  let evaluated: Evaluated;
  try {
    evaluated = await evaluateScript(target, text);
  } catch (error) {
    if (error instanceof DialogOpened) return blockedByDialog(context, target, error);
    throw error;
  }
  if (evaluated.exceptionDetails) throw await threw(context, target, evaluated.exceptionDetails);
  const remote = evaluated.result ?? { type: "undefined" };
  const type = remote.subtype ?? remote.type;
  const { total, url, ...read } = await readResult(target, pages, remote, secrets);
  let shown = redactSecrets(read.shown);
  if (shown.length > MAX_RESULT_CHARS) shown = shown.slice(0, MAX_RESULT_CHARS);
  const cut = total > MAX_RESULT_CHARS
    ? `\n[Cut at ${MAX_RESULT_CHARS} of ${total} characters; return less (e.g. slice or map).]`
    : "";
  const dialog = openDialog(target);
  return success(
    `Result (${type}) from tab ${target.tabId} (${fencedUrl(context.workspace, url)}):\n` +
      fence(context.workspace, originOf(url), shown) + cut +
      dialogAfterEffect(context.workspace, target, "the script finished"),
    {
      tabId: target.tabId,
      url: displayUrl(url),
      type,
      result: shown,
      truncated: total > MAX_RESULT_CHARS,
      provenance: provenance(context.workspace, url),
      ...(dialog ? { dialog } : {}),
    },
  );
};
