import { assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { noMore, takeFlag, takeOption } from "./args.ts";

Deno.test("options are taken as '--name value' or '--name=value', leaving the rest", () => {
  const args = ["--instance", "try", "browser", "--url=https://example.com/?a=b", "--headless"];
  assertEquals(takeOption(args, "--instance"), "try");
  assertEquals(takeOption(args, "--url"), "https://example.com/?a=b");
  assertEquals(takeOption(args, "--device-scale-factor"), undefined);
  assertEquals(takeFlag(args, "--headless"), true);
  assertEquals(takeFlag(args, "--headless"), false);
  assertEquals(args, ["browser"]);
});

Deno.test("a missing value and a left-over argument are usage mistakes", async () => {
  await assertRejects(
    () => Promise.resolve().then(() => takeOption(["--url"], "--url")),
    /--url needs a value/,
  );
  await assertRejects(
    () => Promise.resolve().then(() => noMore(["extra"])),
    /unexpected argument "extra"/,
  );
});
