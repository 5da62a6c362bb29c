import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { storageSuite } from "./_test_suite.ts";

Deno.test("memory storage", async (t) => {
  await storageSuite(t, {
    storage: (cookie) => createMemorySessionStorage({ cookie }),
    revocable: true,
    shared: false,
  });
});
