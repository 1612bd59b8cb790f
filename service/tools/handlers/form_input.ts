/**
 * `form_input`: sets one field found by ref (text, textarea, select, checkbox, radio,
 * contenteditable) the way a user's input would reach the page: the native value setter, then
 * the input and change events frameworks listen to. Returns a receipt with the value after. The
 * setting itself is the input layer's (`input/set_value.ts`), shared with act_on's set_value.
 *
 * @module
 */

import type { Handler } from "../core/context.ts";
import { setFieldValue } from "../input/set_value.ts";

/** `form_input`. */
export const formInput: Handler = (args, context) =>
  setFieldValue({
    tabId: args.tabId as number,
    ref: args.ref as string,
    value: args.value as string | boolean | number,
  }, context);
