/**
 * The layers the architecture test enforces, as data: the test checks the code against them and
 * the docs are written from them, so the two cannot drift.
 */

/**
 * Which service folders each service folder may import (through their mod.ts): lower layers
 * never reach up. Tools work on pages and workspaces and know nothing of connectors or the
 * bridge; the bridge runs tools; the daemon assembles everything; the CLI drives the daemon.
 */
export const SERVICE_LAYERS: Record<string, string[]> = {
  log: [],
  endpoint: [],
  catalog: [],
  scheduler: [],
  control: [],
  browser: ["log"],
  workspace: ["log"],
  audit: ["log"],
  governance: ["catalog", "log", "workspace"],
  asks: ["catalog", "workspace"],
  tools: ["browser", "catalog", "log", "workspace"],
  bridge: [
    "asks",
    "audit",
    "browser",
    "catalog",
    "governance",
    "log",
    "scheduler",
    "tools",
    "workspace",
  ],
  daemon: [
    "asks",
    "audit",
    "bridge",
    "browser",
    "catalog",
    "control",
    "endpoint",
    "governance",
    "log",
    "scheduler",
    "tools",
    "workspace",
  ],
  privilege: ["governance"],
  install: ["control", "endpoint", "log", "privilege"],
  cli: [
    "audit",
    "browser",
    "catalog",
    "control",
    "daemon",
    "endpoint",
    "governance",
    "install",
    "log",
    "privilege",
  ],
};

/**
 * What each service folder owns, in the words `docs/architecture.md` shows beside its layer
 * (`deno run -A scripts/architecture_doc.ts` writes the table; a test compares them).
 */
export const SERVICE_OWNS: Record<string, string> = {
  log: "the service log (file and stderr, rotation)",
  endpoint: "owned directories, the keys of every role, binding the sockets",
  catalog:
    "the contract (`contract.json`, the team's spec verbatim), our descriptions, argument checks, the capability each action needs, the `Catalog` built from the tool rows",
  scheduler:
    "lanes per workspace, least-recently-served fairness, resources below them (a tab, the topology, the browser), bounded queues, the queue deadline, quarantined tabs",
  control: "the HTTP control API on the control socket (hono), its proof, `status`, and its client",
  browser:
    "attached browsers: `BrowserHub`, `BrowserLink`, per-tab state and events, byte payloads sent as verified chunks (`transfer.ts`)",
  workspace:
    "workspaces, their tabs and plans (`WorkspaceRegistry`), who holds them (`WorkspaceHolds`)",
  audit:
    "the audit: a keyed chain of bounded JSON lines, its anchor, size rotation, fail-closed writes, `verify`",
  governance:
    "the person's side: the policy file (one loader, hot reload, layers), sacred sites, principals, host normalisation, the pure decision function, the per-tab network rules, hold / resume / stop and the attention circuit",
  asks:
    "the questions a policy's `ask` puts to the person: the bounded wait, one open question per workspace with the calls behind it, the yeses remembered for a site for an agent, hold and stop answering no",
  tools: "every tool: `registry.ts` (one row per built tool) and the folders of the table below",
  bridge:
    "one connector's session: the protocol switch (`serve_session.ts`), admission of a workspace, a work's life (`work.ts`), and a call's stages in one list (`call_stages.ts`, composed by `stages.ts`) that every call and every step of a multi-step tool goes through: the tool's own (`run_tool.ts`), governance's (`gate.ts`: the decision, the landing check, the audit records), the quarantine fed by the browser's reports (`quarantine.ts`), the request filter",
  daemon:
    "assembling the service: builds every service-wide object once, accepts connectors and browsers after the proof, the person's requests, idle exit",
  privilege:
    "least privilege at start-up: the exact command, run-time permission flags and entry script that start each executable for one instance",
  install:
    "`install`, `uninstall` and `doctor`: the prefix, the launchers and the service entry, native-host registration per browser and OS, byte-exact client config edits with their inverses, auto-start",
  cli:
    "the `ghostlight` command line, one file per command; `browser launch`; which commands the service's and the installer's entry points run",
};

/** What each folder inside `service/tools/` owns, shown beside its layer when one is declared. */
export const TOOL_OWNS: Record<string, string> = {
  core:
    "the call context, errors, budgets, the page program builder and its compiler (`program.ts`), the text an answer shows made safe (`safe_text.ts`: secret and URL redaction, the fence), normalising a URL, tab targets, releasing tabs, dialog wording, multi-step runs and their references",
  page:
    "Ghostlight's world in each frame with its refs and main-frame reads (`frames.ts`), reading the page (the walk, the outline), locating an element by a description, screenshots, waiting on the page, matching form labels, the landing report, the page runtime's bundle",
  input:
    "acting on a page from typed intents: the page programs of actions and their one executor (`send.ts`), pointing, keys, scrolling, coordinates, setting values, delivering files, load and navigation watches, answering dialogs, and the receipts of what changed",
  gif: "recordings and the GIF encoder",
  page_runtime:
    "TypeScript that runs in the page's isolated world, checked against the DOM, bundled by `deno task build:page`",
  handlers: "one file per tool: its argument checks, its work, its answer",
};

/**
 * Which sub-folders of `service/tools/` each may import: the recordings (`gif`) at the bottom,
 * the plumbing every call shares (`core`, which reads the page runtime's contract for what both
 * sides share, such as the word that replaces a secret), reading a page (`page`), acting on it (`input`:
 * pointing, keys, scrolling, dropping files, load watching, coordinates, and the receipt of
 * what changed), and the tool handlers on top, each of which checks its arguments, asks the
 * layers below and renders the answer. The page runtime (`page_runtime`) is bundled into the
 * page and takes only the pure helpers it shares with the service; the others reach it only
 * through its contract (`page_runtime/contract.ts`, decision 0320). No handler imports another
 * handler: what two handlers share lives in a layer below them. The files at the folder's root
 * (`mod.ts`, `registry.ts`) assemble the handlers and may import any of them.
 */
export const TOOL_LAYERS: Record<string, string[]> = {
  gif: [],
  core: ["gif", "page_runtime"],
  page: ["core", "page_runtime"],
  page_runtime: ["core", "page"],
  input: ["core", "page", "page_runtime"],
  handlers: ["core", "gif", "input", "page", "page_runtime"],
};
