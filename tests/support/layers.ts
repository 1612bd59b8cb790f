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
  tools: ["browser", "catalog", "log", "workspace"],
  bridge: ["audit", "browser", "catalog", "governance", "log", "scheduler", "tools", "workspace"],
  daemon: [
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
 * Which sub-folders of `service/tools/` each may import: the recordings (`gif`) at the bottom,
 * the plumbing every call shares (`core`), reading a page (`page`), acting on it (`input`:
 * pointing, keys, scrolling, dropping files, load watching, coordinates, and the receipt of
 * what changed), and the tool handlers on top, each of which checks its arguments, asks the
 * layers below and renders the answer. The page runtime (`page_runtime`) is bundled into the
 * page and takes only the pure helpers it shares with the service. No handler imports another
 * handler: what two handlers share lives in a layer below them. The files at the folder's root
 * (`mod.ts`, `registry.ts`) assemble the handlers and may import any of them.
 */
export const TOOL_LAYERS: Record<string, string[]> = {
  gif: [],
  core: ["gif"],
  page: ["core"],
  page_runtime: ["core", "page"],
  input: ["core", "page"],
  handlers: ["core", "gif", "input", "page"],
};
