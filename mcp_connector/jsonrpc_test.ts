import { assertEquals } from "../tests/support/assert.ts";
import { classify, ErrorCode } from "./jsonrpc.ts";

Deno.test("classify sorts lines into requests, notifications, responses and errors", () => {
  assertEquals(classify('{"jsonrpc":"2.0","id":1,"method":"m"}'), {
    kind: "request",
    id: 1,
    method: "m",
    params: {},
  });
  assertEquals(classify('{"jsonrpc":"2.0","method":"n","params":{"a":1}}'), {
    kind: "notification",
    method: "n",
    params: { a: 1 },
  });
  assertEquals(classify('{"jsonrpc":"2.0","id":"x","result":{}}'), { kind: "response", id: "x" });
  assertEquals((classify("{") as { code: number }).code, ErrorCode.parseError);
  assertEquals((classify("[]") as { code: number }).code, ErrorCode.invalidRequest);
  assertEquals(classify('{"jsonrpc":"2.0","id":true,"method":"m"}'), {
    kind: "invalid",
    id: null,
    code: ErrorCode.invalidRequest,
    message: "Invalid Request: id must be a string or an integer",
  });
  assertEquals(
    (classify('{"jsonrpc":"2.0","id":1,"method":"m","params":3}') as { code: number }).code,
    ErrorCode.invalidParams,
  );
});
