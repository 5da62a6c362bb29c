// The rolling restart through HAProxy for real: three instances of the
// auth app (with the live board) on Redis, a steady bounded load (GETs,
// sign-ins, form posts, an event stream and a WebSocket per client), and
// every instance replaced one at a time. No request fails, no session is
// lost, and every stream and socket reconnects and gets every message.
// Needs Debian's haproxy and redis-server; skipped with a notice without
// them, unless CI or TOOLKIT_REQUIRE_ALL is set. The load and the checks:
// _test_restart.ts (restart_node_test.ts runs them with Node instances).
import { missingProgram, rollingRestartUnderLoad } from "./_test_restart.ts";

const skip = await missingProgram(
  ["haproxy", "redis-server"],
  "the rolling restart",
) !== undefined;

Deno.test({
  name:
    "rolling restart behind HAProxy: 0 failed requests, no session lost, every live client resumes with no message missed",
  ignore: skip,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await rollingRestartUnderLoad();
  },
});
