import { assertEquals } from "../../../tests/support/assert.ts";
import { fillableFields, matchFields } from "./form_match.ts";
import type { OutlineNode } from "./outline.ts";

const FORM: OutlineNode[] = [
  { depth: 0, role: "form", name: "Order", ref: "ref_1" },
  { depth: 1, role: "textbox", name: "First name", ref: "ref_2" },
  { depth: 1, role: "textbox", name: "Last name", ref: "ref_3" },
  { depth: 1, role: "textbox", name: "Email", ref: "ref_4", hints: "email" },
  { depth: 1, role: "textbox", name: "Confirm email", ref: "ref_5" },
  { depth: 1, role: "text", name: "Company" },
  { depth: 1, role: "textbox", name: "", ref: "ref_6" },
  { depth: 1, role: "textbox", name: "Phone (home)", ref: "ref_7" },
  { depth: 1, role: "textbox", name: "Phone (work)", ref: "ref_8" },
  { depth: 1, role: "group", name: "Delivery", ref: "ref_9" },
  { depth: 2, role: "radio", name: "Standard", ref: "ref_10" },
  { depth: 2, role: "radio", name: "Express", ref: "ref_11" },
  { depth: 1, role: "checkbox", name: "I accept the terms", ref: "ref_12" },
  { depth: 1, role: "button", name: "Place order", ref: "ref_13" },
];

function refs(labels: string[]): (string | undefined)[] {
  return matchFields(labels, fillableFields(FORM)).map((match) =>
    "field" in match ? match.field.node.ref : match.unmatched
  );
}

Deno.test("labels find their fields by name, nearby text and group legend", () => {
  assertEquals(refs(["First name", "Last name", "Email", "Company", "Delivery", "terms"]), [
    "ref_2",
    "ref_3",
    "ref_4",
    "ref_6",
    "ref_9",
    "ref_12",
  ]);
});

Deno.test("an exact name beats a longer one, and each field is filled once", () => {
  assertEquals(refs(["Confirm email", "Email"]), ["ref_5", "ref_4"]);
});

Deno.test("two equally good fields are ambiguous, a label with no field is unmatched", () => {
  const [phone, fax] = matchFields(["Phone", "Fax"], fillableFields(FORM));
  assertEquals("unmatched" in phone && phone.unmatched, "ambiguous");
  if ("candidates" in phone) {
    assertEquals(phone.candidates.map((node) => node.ref), ["ref_7", "ref_8"]);
  }
  assertEquals("unmatched" in fax && fax.unmatched, "none");
});

Deno.test("buttons and plain text are not fields", () => {
  assertEquals(refs(["Place order"]), ["none"]);
});
