// Every fuzz target, for `fuzz_test.ts` and `deno task fuzz`.
import { multipartTarget, urlencodedTarget } from "./_form_targets.ts";
import type { Target } from "./_run.ts";
import { cookieTargets } from "./_cookie_targets.ts";

export const targets: readonly Target[] = [
  multipartTarget,
  urlencodedTarget,
  ...cookieTargets,
];
