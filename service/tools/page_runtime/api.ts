/**
 * The runtime's surface: what the service calls as `__ghostlight.<method>(...)` in a frame's
 * isolated world. `deno task build:page` reads the method names from here for the service's
 * `RuntimeMethod` type.
 *
 * @module
 */

import { describe } from "./describe.ts";
import {
  box,
  boxes,
  contentOrigin,
  coveredBy,
  focusedFrame,
  frameAt,
  framesShown,
  scrollTo,
} from "./geometry.ts";
import { observeBefore, prepareAction, settle } from "./observe.ts";
import { pageInfo } from "./page_info.ts";
import { readable } from "./readable.ts";
import { byId, token, vouch } from "./registry.ts";
import { redactResult, secretDigests } from "./secrets.ts";
import { fill, fillByLabels, fillMany, submitControl } from "./form.ts";
import { findNodes } from "./find.ts";
import { showCaption } from "./narrate.ts";
import { snapshot } from "./snapshot.ts";
import { putFiles } from "./files.ts";
import { quietCheck, waitCheck } from "./wait.ts";

/** The runtime object one world holds. */
export const runtime = {
  token,
  box,
  boxes,
  contentOrigin,
  coveredBy,
  describe,
  fill,
  fillByLabels,
  fillMany,
  findNodes,
  focusedFrame,
  frameAt,
  framesShown,
  element: byId,
  observeBefore,
  pageInfo,
  prepareAction,
  quietCheck,
  readable,
  redactResult,
  scrollTo,
  secretDigests,
  settle,
  showCaption,
  snapshot,
  putFiles,
  submitControl,
  vouch,
  waitCheck,
};

/** The runtime's type, as the page sees it. */
export type Runtime = typeof runtime;
