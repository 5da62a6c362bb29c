import { createKvPubSub } from "@fetchkit/toolkit/pubsub";
import { pubSubSuite } from "./_test_suite.ts";

pubSubSuite({
  name: "kv pub/sub",
  async open(options) {
    // Two databases on one file, as two servers would open it.
    const dir = await Deno.makeTempDir({ prefix: "pubsub-kv-" });
    const one = await Deno.openKv(`${dir}/kv.sqlite`);
    const two = await Deno.openKv(`${dir}/kv.sqlite`);
    const a = createKvPubSub({ client: one, ...options });
    const b = createKvPubSub({ client: two, ...options });
    return {
      a,
      b,
      async done() {
        await a.close();
        await b.close();
        one.close();
        two.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
});
