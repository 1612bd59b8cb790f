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
