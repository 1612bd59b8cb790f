import { assert, assertEquals } from "../tests/support/assert.ts";
import { pollUntil } from "../tests/support/wait.ts";
import { CallQuestions } from "./elicitation.ts";
import { MAX_PARKED, Parking } from "./input_required.ts";
import type { CallEnd } from "./service_link.ts";

function parkedCall(question: number, ended: Promise<CallEnd | null>) {
  const questions = new CallQuestions();
  const asked = { seq: question, question, message: `question ${question}` };
  questions.handler({ type: "ask", ...asked });
  return { tool: "form_input", ended, questions, asked };
}

Deno.test("a parked call's state is honoured once, and at most MAX_PARKED wait at once", () => {
  const parking = new Parking(() => {}, 60_000);
  const never = new Promise<CallEnd | null>(() => {});
  const states: string[] = [];
  for (let n = 1; n <= MAX_PARKED; n++) {
    const result = parking.park(parkedCall(n, never));
    assert(result !== null, `call ${n} is parked`);
    assertEquals(result.resultType, "input_required");
    assertEquals(Object.keys(result.inputRequests as object), [`question-${n}`]);
    states.push(result.requestState as string);
  }
  assertEquals(new Set(states).size, MAX_PARKED, "every state is its own");
  assertEquals(parking.park(parkedCall(99, never)), null, "one more is not parked");
  assertEquals(parking.take(states[0])?.asked.question, 1);
  assertEquals(parking.take(states[0]), undefined, "a state is honoured once");
  assert(parking.park(parkedCall(100, never)) !== null, "a taken call makes room");
});

Deno.test("an ended call's end is dropped when no retry comes within the keep time", async () => {
  const reported: string[] = [];
  const parking = new Parking((line) => reported.push(line), 20);
  const end: CallEnd = { outcome: { kind: "success", content: [] } as never };
  const result = parking.park(parkedCall(1, Promise.resolve(end)));
  const state = result!.requestState as string;
  await pollUntil(() => Promise.resolve(reported.length), (n) => n > 0, "the drop to be said");
  assertEquals(parking.take(state), undefined, "dropped after the keep time");
  assert(/question 1\) was dropped/.test(reported[0] ?? ""), reported.join("\n"));
});
