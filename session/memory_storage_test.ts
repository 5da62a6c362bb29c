import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { storageSuite } from "./_test_suite.ts";
import { userSessionSuite } from "./_user_test_suite.ts";

Deno.test("memory storage", async (t) => {
  await storageSuite(t, {
    storage: (cookie) => createMemorySessionStorage({ cookie }),
    revocable: true,
    shared: false,
  });
});

Deno.test("memory storage: sessions by user", async (t) => {
  // One store, shared by the storages a step makes: as two servers.
  const shared = new Map<
    string,
    ReturnType<typeof createMemorySessionStorage>
  >();
  await userSessionSuite(t, {
    storage(cookie, options) {
      const key = JSON.stringify([cookie, options]);
      let storage = shared.get(key);
      if (storage === undefined) {
        shared.set(
          key,
          storage = createMemorySessionStorage({ cookie, ...options }),
        );
      }
      return storage;
    },
  });
});
