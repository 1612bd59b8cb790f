/**
 * Governance for service unit tests that build a bridge session by hand: all-open policy files
 * in a temporary folder (never the machine's), person controls with no browser to show on, and
 * an audit in that folder.
 *
 * @module
 */

import { Questions } from "../../service/asks/mod.ts";
import { AuditKey, AuditLog, ChainKey } from "../../service/audit/mod.ts";
import type { GovernanceDeps } from "../../service/bridge/mod.ts";
import { PersonControls, PolicyStore } from "../../service/governance/mod.ts";
import type { WorkspaceHolds, WorkspaceRegistry } from "../../service/workspace/mod.ts";

/** Governance for a test, with the folder it keeps its files in. */
export async function testGovernance(
  workspaces: WorkspaceRegistry,
  holds: WorkspaceHolds,
): Promise<GovernanceDeps & { dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-governance-" });
  const policy = new PolicyStore({
    userFile: `${dir}/policy.jsonc`,
    machineFile: `${dir}/machine-policy.jsonc`,
  });
  await policy.load();
  return {
    dir,
    policy,
    person: new PersonControls({
      workspaces,
      holds,
      attentionAfter: 5,
      effects: { show: () => {}, focus: () => Promise.resolve(false) },
    }),
    audit: await AuditLog.open({
      file: `${dir}/audit.jsonl`,
      maxBytes: 1 << 20,
      keepFiles: 2,
      key: ChainKey.derive(new Uint8Array(32)),
    }),
    auditKey: AuditKey.derive(new Uint8Array(32)),
    questions: new Questions({
      timeoutMs: 120_000,
      live: (id) => workspaces.get(id) !== undefined,
    }),
  };
}
