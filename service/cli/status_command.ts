/**
 * `ghostlight status`: the service, its browsers, connectors, workspaces and plans, for people or
 * as JSON.
 *
 * @module
 */

import { type FirstLaunch, readFirstLaunch } from "../../shared/first_launch.ts";
import type { InstancePaths } from "../../shared/instance.ts";
import type { PersonWorkspace } from "../../shared/person.ts";
import { fetchStatus, type Status } from "../control/mod.ts";
import { controlKey, describeInstance } from "../endpoint/mod.ts";
import { noMore, takeFlag } from "./args.ts";
import { shown } from "./shown.ts";

/**
 * `ghostlight status [--json]`: prints what a running service reports; exit code 3 when none
 * runs.
 */
export async function runStatus(paths: InstancePaths, args: string[]): Promise<number> {
  const json = takeFlag(args, "--json");
  noMore(args);
  const firstLaunch = await firstLaunchOrProblem(paths);
  let status;
  try {
    status = await fetchStatus(paths.controlSocket, await readableControlKey(paths));
  } catch (error) {
    // Out of this launcher's reach is not "not running": the command line says which it is.
    if (error instanceof Deno.errors.NotCapable) throw error;
    if (json) console.log(JSON.stringify({ service: null, firstLaunch }));
    else {
      console.log(
        `The service for ${describeInstance(paths)} is not running. An MCP client starts it ` +
          `when it connects; 'browser launch' and 'service' start it from here.`,
      );
      if (firstLaunch) printFirstLaunch(firstLaunch);
    }
    return 3;
  }
  if (json) {
    console.log(JSON.stringify({ ...status, firstLaunch }));
    return 0;
  }
  console.log(
    `Service ${status.service.version}, pid ${status.service.pid}, ` +
      `${describeInstance(paths)}, up since ${status.service.startedAt}`,
  );
  if (firstLaunch) printFirstLaunch(firstLaunch);
  console.log(`Browsers: ${status.browsers.length}`);
  for (const browser of status.browsers) {
    console.log(
      shown(`  slot ${browser.slot}: extension ${browser.extensionVersion}, ${browser.userAgent}`),
    );
    if (browser.mismatch) console.log(`    version mismatch: ${shown(browser.mismatch)}`);
  }
  console.log(`MCP connectors: ${status.connectors.length}`);
  for (const connector of status.connectors) {
    // Withheld from an unproven read: then neither name is known here.
    const who = connector.client === undefined
      ? "a connector"
      : `principal ${connector.principal ?? "unnamed"} (its client says: ` +
        `${shown(connector.client)})`;
    console.log(`  ${who}, ${connector.activeWorks} calls running`);
    if (connector.mismatch) console.log(`    principal mismatch: ${shown(connector.mismatch)}`);
  }
  for (const line of remoteLines(status)) console.log(line);
  console.log(`Workspaces: ${status.workspaces}`);
  for (const replaced of status.replacedSockets ?? []) {
    console.log(
      `Warning: another process removed or replaced the ${replaced.socket} socket at ` +
        `${replaced.at}; the service bound it again`,
    );
  }
  for (const tab of status.quarantined ?? []) {
    console.log(
      `  tab ${tab.tabId} quarantined since ${tab.since}: ${tab.unproven} cut-off command(s) ` +
        "not yet proven over (closing the tab or restarting the browser ends it)",
    );
  }
  if (status.withheld) console.log(`Not shown: ${shown(status.withheld)}`);
  const person = status.person;
  if (!person) return 0;
  for (const workspace of person.workspaces) printWorkspace(workspace);
  if (person.paused) console.log("Every agent is paused ('ghostlight resume' lets them carry on).");
  if (person.stopped > 0) console.log(`Stopped agents not yet reconnected: ${person.stopped}`);
  console.log(`Policy: ${shown(person.policy.summary)}`);
  if (person.policy.problem) console.log(`  Problem: ${shown(person.policy.problem)}`);
  for (const warning of person.policy.warnings ?? []) console.log(`  Warning: ${shown(warning)}`);
  console.log(shown(
    person.audit.ok
      ? `Audit: ${person.audit.file}`
      : `Audit: NOT WRITING, every call is refused: ${person.audit.error}`,
  ));
  if (person.audit.gap !== undefined) {
    console.log(
      `  Warning: when this service started, records were missing: ${shown(person.audit.gap)}. ` +
        "The gap is recorded in the audit; 'ghostlight audit verify' names it.",
    );
  }
  return 0;
}

/**
 * The control key when this command can read it, so the status comes whole (decision 0335);
 * without it (no service ever ran here, or the key cannot be read) the status is read unproven
 * and says what it leaves out.
 */
async function readableControlKey(paths: InstancePaths): Promise<Uint8Array | undefined> {
  try {
    return await controlKey(paths.keys);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) throw error;
    return undefined;
  }
}

/**
 * One workspace as `status` prints it: by its principal, its client's name as the client's claim
 * (decision 0338), escaped.
 */
function printWorkspace(workspace: PersonWorkspace): void {
  const doing = workspace.current
    ? `now ${workspace.current.tool}${
      workspace.current.action ? ` ${workspace.current.action}` : ""
    }`
    : workspace.last
    ? `last ${workspace.last.tool} (${workspace.last.result})`
    : "no call yet";
  console.log(shown(
    `  ${workspace.number}. ${workspace.principal ?? "unnamed"} (its client says: ` +
      `${workspace.client}; ${workspace.color} group): ${workspace.state}, ` +
      `${workspace.tabs} tab(s), ${doing}` +
      (workspace.denials > 0 ? `, ${workspace.denials} refused in a row` : ""),
  ));
  if (workspace.plan) {
    console.log(
      shown(
        `     plan (${workspace.plan.at}): ${workspace.plan.domains.join(", ") || "no domain"}`,
      ),
    );
    workspace.plan.approach.forEach((step, index) =>
      console.log(`       ${index + 1}. ${shown(step)}`)
    );
  }
}

/** The first launch's record, or why it is not read: a bad record does not hide the status. */
async function firstLaunchOrProblem(
  paths: InstancePaths,
): Promise<FirstLaunch | { problem: string } | null> {
  try {
    return await readFirstLaunch(paths);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) throw error;
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** What the Claude Desktop bundle's first launch set up, escaped (the file is the person's). */
function printFirstLaunch(record: FirstLaunch | { problem: string }): void {
  if ("problem" in record) {
    console.log(shown(`The first launch's record was not read: ${record.problem}`));
    return;
  }
  console.log(shown(
    `Set up by the Claude Desktop bundle's first launch at ${record.at}: Ghostlight in ` +
      `${record.prefix}, its extension folder ${record.extension}`,
  ));
  for (const item of record.setUp) {
    console.log(shown(`  ${item.target}: ${item.status}, ${item.detail}`));
  }
}

/** `remote NAME: connected to HOST`, or `remote NAME: degraded: WHY` with the next step. */
function remoteLines(status: Pick<Status, "remotes">): string[] {
  return (status.remotes ?? []).map((remote) =>
    remote.state === "connected"
      ? `remote ${remote.name}: connected to ${shown(remote.host)} since ${remote.since}`
      : `remote ${remote.name}: degraded: ${shown(remote.why ?? "no reason given")} (since ` +
        `${remote.since}; the shore keeps trying: see its output, check the agent host, or ` +
        `'ghostlight remote list')`
  );
}
