import { assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { CutOffs } from "./cut_off.ts";

Deno.test("a cut ends the commands waiting under its key, and only those", async () => {
  const cuts = new CutOffs<string>();
  const never = () => new Promise<string>(() => {});
  const a1 = cuts.race("a", never, () => new Error("a ended"));
  const a2 = cuts.race("a", never, () => new Error("a ended"));
  let bSettled = false;
  let answerB!: (value: string) => void;
  const b = cuts.race(
    "b",
    () => new Promise<string>((resolve) => answerB = resolve),
    () => new Error("b ended"),
  ).finally(() => bSettled = true);
  cuts.cut("a");
  await assertRejects(() => a1, /a ended/);
  await assertRejects(() => a2, /a ended/);
  await Promise.resolve();
  assertEquals(bSettled, false);
  answerB("b's answer");
  assertEquals(await b, "b's answer");
  // Answered, it is no longer waiting: a later cut of its key changes nothing.
  cuts.cut("b");
});

Deno.test("a command's own answer or failure passes through untouched", async () => {
  const cuts = new CutOffs<number>();
  assertEquals(await cuts.race(1, () => Promise.resolve(7), () => new Error("cut")), 7);
  await assertRejects(
    () => cuts.race(1, () => Promise.reject(new Error("chrome said no")), () => new Error("cut")),
    /chrome said no/,
  );
});
