/**
 * The runtime's surface: what the service calls as `__ghostlight.<method>(...)` in a frame's
 * isolated world, declared as the contract with the service (`contract.ts`) says: a method
 * missing, extra or of another shape here fails the type check.
 *
 * @module
 */

import type { PageMethods } from "./contract.ts";
import { describe } from "./describe.ts";
import {
  aim,
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
import { packWalk } from "./pack.ts";
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

/** The runtime object one world holds, as the contract with the service declares it. */
export const runtime: PageMethods = {
  token,
  aim,
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
  packWalk,
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
export type Runtime = PageMethods;
