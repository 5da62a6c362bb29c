import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
import { pubSubSuite } from "./_test_suite.ts";

pubSubSuite({
  name: "memory pub/sub",
  open(options) {
    // One process: both names are the same pub/sub.
    const a = createMemoryPubSub(options);
    return Promise.resolve({ a, b: a, done: () => a.close() });
  },
});
