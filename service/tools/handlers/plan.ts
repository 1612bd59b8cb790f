/**
 * `update_plan`: the agent states which domains it will visit and how it will go about the
 * task. When the call names a workspace, the plan is kept on it (shown in `ghostlight status`
 * and the control API); otherwise it is only acknowledged. The log gets counts, never the
 * plan's text (the model wrote it: it could forge log lines). No page is touched.
 *
 * @module
 */

import { log } from "../../log/mod.ts";
import { type StatelessHandler, success } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";

/** Most domains and steps in one plan, and the longest entry. */
const MAX_ITEMS = 30;
const MAX_ITEM_CHARS = 300;
const EXAMPLE = '{"domains": ["example.com"], "approach": ["Open the search page", ' +
  '"Read the first result"]}';

function entries(value: unknown, field: string): string[] {
  const list = (value as unknown[]).map((item) => String(item).trim()).filter((item) => item);
  if (list.length === 0 && field === "approach") {
    throw new ToolError(
      "tool_failure",
      "approach must list at least one step.",
      `Call ${EXAMPLE}.`,
    );
  }
  if (list.length > MAX_ITEMS || list.some((item) => item.length > MAX_ITEM_CHARS)) {
    throw new ToolError(
      "tool_failure",
      `${field} takes at most ${MAX_ITEMS} entries of at most ${MAX_ITEM_CHARS} characters.`,
      `Summarise; e.g. ${EXAMPLE}.`,
    );
  }
  return list;
}

/** A domain as the user should read it: the host, without scheme or path. */
function host(domain: string): string {
  try {
    return new URL(/^[a-z]+:\/\//i.test(domain) ? domain : `https://${domain}`).hostname;
  } catch {
    return domain;
  }
}

/** `update_plan`. */
export const updatePlan: StatelessHandler = (args, context) => {
  const domains = entries(args.domains, "domains").map(host);
  const approach = entries(args.approach, "approach");
  const workspace = context.workspace;
  const plan = { domains, approach, at: new Date().toISOString() };
  if (workspace) workspace.plan = plan;
  log(
    "info",
    // The workspace id is a bearer capability and never goes to the log; its label does.
    `plan ${
      workspace ? `kept for ${JSON.stringify(workspace.label)}` : "acknowledged without a workspace"
    }` +
      `: ${domains.length} domain(s), ${approach.length} step(s)`,
  );
  const summary = `${approach.length} step${approach.length === 1 ? "" : "s"} on ${
    domains.length === 0 ? "no named domain" : domains.join(", ")
  }`;
  return Promise.resolve(success(
    workspace
      ? `Plan recorded: ${summary}. The user can see it with 'ghostlight status'.`
      : `Plan noted: ${summary}. No workspace was named, so it is not kept or shown to the ` +
        "user; it still guides you.",
    { domains, approach, recorded: plan.at, kept: workspace !== undefined },
  ));
};
